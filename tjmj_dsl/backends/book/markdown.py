"""The rulebook as GitHub-flavoured Markdown. Every string is escaped here,
at one boundary: Markdown punctuation is backslash-escaped, `<` and `&` can
open no HTML, an address cannot become a link, and a newline cannot start a
new block. Tiles are written as text (5万, and 4万=1万 for a hun standing in)."""

from __future__ import annotations

import re

from ...inert import shown
from ...tiles import chinese
from .model import (Block, Book, Bullets, Code, Details, Em, Group, Hand, Inline, Inlines, Link, MiniHand, Para,
                    Section, Strong, Table, TileRef, TileRow)

_PUNCT = re.compile(r"([\\`*_\[\]<>|~#!$])")  # $: GitHub reads $…$ as mathematics
_SPACE = re.compile(r"\s+")
_LINE_START = re.compile(r"^(\s*)([-+=>]|\d+[.)])")


def esc(s: str, cell: bool = False) -> str:
    """Plain text → Markdown that shows exactly that text (what a document can show of it: inert.shown)."""
    s = _SPACE.sub(" ", shown(s))  # no newline can open a new block
    s = _PUNCT.sub(r"\\\1", s)
    s = s.replace("&", "&amp;")
    s = s.replace("://", ":\\/\\/").replace("www.", "www\\.")  # no autolink
    s = _LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), s)
    return s


def code(s: str, cell: bool = False) -> str:
    s = " ".join(shown(s).split())
    run = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (run + 1)
    body = f" {s} " if s.startswith("`") or s.endswith("`") or not s.strip() else s
    if cell:
        body = body.replace("|", "\\|")  # GFM splits table cells on | even inside code
    return f"{fence}{body}{fence}"


def tile_text(k: int) -> str:
    return chinese(k)


def inlines(items: Inlines, cell: bool = False) -> str:
    return "".join(inline(i, cell) for i in items)


def inline(i: Inline, cell: bool = False) -> str:
    if isinstance(i, str):
        return esc(i, cell)
    if isinstance(i, Code):
        return code(i.text, cell)
    if isinstance(i, Strong):
        return f"**{inlines(i.items, cell)}**"
    if isinstance(i, Em):
        return f"*{inlines(i.items, cell)}*"
    if isinstance(i, TileRef):
        return tile_text(i.kind)
    if isinstance(i, Link):
        return f"[{inlines(i.items, cell)}](#{i.anchor})"
    if isinstance(i, MiniHand):
        return code("  ".join(group_text(g) for g in i.groups), cell)
    raise TypeError(type(i).__name__)


def group_text(g: Group) -> str:
    parts = []
    for s in g.slots:
        t = tile_text(s.face)
        if s.hun and s.tile != s.face:
            t += "=" + tile_text(s.tile)
        if s.winning:
            t += "*"
        parts.append(t)
    body = " ".join(parts)
    if g.declared:
        return f"({body})" if g.concealed else f"[{body}]"
    return body


def block(b: Block, out: list[str]) -> None:
    if isinstance(b, Section):
        out.append(f'<a id="{b.id}"></a>')
        out.append("#" * min(6, b.level) + " " + inlines(b.title))
        out.append("")
        for x in b.blocks:
            block(x, out)
        return
    if isinstance(b, Para):
        out.append(inlines(b.items))
    elif isinstance(b, Bullets):
        for n, item in enumerate(b.items, 1):
            out.append((f"{n}. " if b.ordered else "- ") + inlines(item))
    elif isinstance(b, Table):
        if b.id:
            out.append(f'<a id="{b.id}"></a>')
            out.append("")
        out.append("| " + " | ".join(inlines(h, True) or " " for h in b.head) + " |")
        out.append("|" + "---|" * len(b.head))
        for row in b.rows:
            out.append("| " + " | ".join(inlines(c, True) or " " for c in row) + " |")
    elif isinstance(b, Hand):
        if b.groups:
            out.append("`" + "  |  ".join(group_text(g) for g in b.groups) + "`")
            out.append("")
        out.append("\n>\n".join("> " + inlines(line) for line in b.lines))
    elif isinstance(b, Details):
        out.append("**" + inlines(b.summary) + "**")
        out.append("")
        for x in b.blocks:
            block(x, out)
        return
    elif isinstance(b, TileRow):
        out.append(" ".join(tile_text(k) for k in b.tiles) + ((" — " + inlines(b.caption)) if b.caption else ""))
    else:
        raise TypeError(type(b).__name__)
    out.append("")


def render(book: Book, header: str) -> str:
    out = [header, "", "# " + esc(book.title), ""]
    if book.subtitle:
        out += [esc(book.subtitle), ""]
    for s in book.sections:
        block(s, out)
    if book.footer:
        out += ["---", "", inlines(book.footer), ""]
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"
