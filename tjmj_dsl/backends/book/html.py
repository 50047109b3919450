"""The rulebook as one self-contained HTML page: inline CSS, tiles drawn as
styled HTML by the compiler, no script, font, image or address from outside
(a Content-Security-Policy says so to the browser too); the one script is the
in-page scorer's (book/scorer_page.py), inline and allowed by its hash. Every string is
escaped here, at one boundary (html.escape, quotes included); ids and
classes come from the compiler, never from the rule file.

`page()` assembles the document from its parts, so a later part (an in-page
scorer) can be added as one more section, style and script."""

from __future__ import annotations

from html import escape

from ...inert import shown
from ...tiles import RANK_OF, SUIT_OF, chinese
from .model import (Block, Book, Bullets, Code, Details, Em, Group, Hand, Inline, Inlines, Link, MiniHand, Para,
                    Section, Strong, Table, TileRef, TileRow, anchor, text_of)

NUMERALS = "一二三四五六七八九"
HONORS = "东南西北中发白"
SUIT_CN = {"m": "万", "p": "饼", "s": "条"}
HONOR_CLASS = "ESWNCFP"

CSS = """
:root{--ink:#1d1d1f;--muted:#5b5b60;--line:#d9d6cc;--paper:#fffdf7;--accent:#a3261b;--hun:#b8860b;--win:#c0392b}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0 auto;max-width:54rem;padding:1rem 1rem 3rem;color:var(--ink);background:#fff;
 font:16px/1.6 system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC","Noto Sans SC","PingFang SC","Hiragino Sans GB","Microsoft YaHei",sans-serif}
h1{font-size:1.7rem;line-height:1.25;margin:.5rem 0}
h2{font-size:1.35rem;border-bottom:2px solid var(--accent);padding-bottom:.2rem;margin-top:2.2rem}
h3{font-size:1.12rem;margin-top:1.6rem}
h4{font-size:1rem;margin-top:1.2rem}
h1,h2,h3,h4{overflow-wrap:anywhere}
p{margin:.55rem 0}
.sub{color:var(--muted)}
code{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:.88em;background:#f3f1ea;padding:.05em .3em;border-radius:.2em;overflow-wrap:break-word}
th code{white-space:nowrap}
nav.toc{background:var(--paper);border:1px solid var(--line);border-radius:.4rem;padding:.4rem 1rem}
nav.toc ol{margin:.3rem 0;padding-left:1.4rem}
a{color:#1a4f8b}
.tw{overflow-x:auto;margin:.6rem 0}
table{border-collapse:collapse;font-size:.93em}
th,td{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:var(--paper)}
td.n,th.n{text-align:right}
.hand{margin:.8rem 0;padding:.55rem .7rem;border:1px solid var(--line);border-left:4px solid #3b7d3b;border-radius:.35rem;background:var(--paper);break-inside:avoid}
.hand.near-miss{border-left-color:var(--hun)}
.hand.refused{border-left-color:#888}
.hand .tiles{display:flex;flex-wrap:wrap;gap:.55rem;align-items:flex-start;margin-bottom:.3rem}
.hand p{margin:.2rem 0}
.grp{display:inline-flex;gap:.08rem;padding:.1rem;border-radius:.3rem}
.grp.declared{outline:1px dashed var(--muted);outline-offset:1px}
.slot{display:inline-flex;flex-direction:column;align-items:center;min-width:1.95em}
.cap{font-size:.62rem;line-height:1.1;color:var(--hun);white-space:nowrap;min-height:.7rem}
.slot.win .cap{color:var(--win);font-weight:700}
.tile{display:inline-flex;flex-direction:column;align-items:center;justify-content:center;width:1.9em;height:2.55em;
 border:1px solid #8f8a7a;border-radius:.28em;background:linear-gradient(#fffef9,#f1ecdc);box-shadow:0 .14em 0 #b8b19b;
 font-weight:700;line-height:1.02;vertical-align:middle;margin:0 .04em .16em;color:#222;font-size:1rem}
.tile .r{font-size:.98em}.tile .s{font-size:.72em}
.tile.m .s{color:#b3261e}.tile.p .r,.tile.p .s{color:#1f5fa8}.tile.s .r,.tile.s .s{color:#1e7d32}
.tile.z .r{font-size:1.25em}.tile.hC .r{color:#b3261e}.tile.hF .r{color:#1e7d32}
.tile.hP .r{color:#1f5fa8;border:2px solid #1f5fa8;border-radius:.15em;padding:0 .05em;font-size:1em}
.slot.hun .tile{border-color:var(--hun);box-shadow:0 .14em 0 var(--hun)}
.slot.win .tile{border:2px solid var(--win)}
.tilerow{display:flex;flex-wrap:wrap;gap:.1rem;align-items:center;margin:.35rem 0}
.tilerow .caption{margin-left:.6rem;color:var(--muted)}
.inl .tile{font-size:.8rem}
.mini{display:inline-flex;flex-wrap:wrap;gap:.3rem;align-items:flex-start}
.mini .tile{font-size:.72rem}.mini .slot{min-width:1.4em}.mini .cap{font-size:.55rem;min-height:.55rem}
table.combinations td{vertical-align:middle}
details{margin:.5rem 0;padding:.3rem .6rem;border:1px solid var(--line);border-radius:.35rem;background:var(--paper)}
details summary{cursor:pointer;font-weight:600}
p.sets{font-size:.9em}
.verdict-win{color:#2e6b2e;font-weight:700}.verdict-no{color:var(--win);font-weight:700}
.erratum{color:var(--win);font-weight:700}
footer{margin-top:3rem;color:var(--muted);font-size:.85em;border-top:1px solid var(--line);padding-top:.6rem}
@media (max-width:36rem){.tw table,.tw tbody,.tw tr,.tw td{display:block;width:100%;box-sizing:border-box}
 .tw tr:first-child{display:none}.tw tr{border:1px solid var(--line);border-radius:.3rem;margin:.45rem 0;background:#fff}
 .tw td{border:0;border-bottom:1px dotted var(--line);padding:.25rem .5rem}.tw td:last-child{border-bottom:0}
 .tw td[data-label]:not([data-label=""])::before{content:attr(data-label) ": ";font-weight:600;color:var(--muted)}
 body{padding:.6rem .6rem 2rem;font-size:15px}.tile{font-size:.9rem}h2{font-size:1.2rem}}
@media print{
 @page{margin:14mm}
 body{max-width:none;padding:0;font-size:10.5pt;color:#000}
 nav.toc{display:none}
 a{color:inherit;text-decoration:none}
 h2{break-after:avoid;page-break-after:avoid}h3,h4{break-after:avoid}
 .hand,table,.tilerow{break-inside:avoid;page-break-inside:avoid}
 .tw{overflow:visible}
 .tile{box-shadow:none;background:#fff}
 .hand{background:#fff}
}
"""

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


def e(s: str) -> str:
    """Text as HTML shows it: escaped, and only what a document can show of it (inert.shown)."""
    return escape(shown(s), quote=True)


def tile(k: int) -> str:
    """One tile as styled HTML: the rank (Chinese numeral) over the suit, or the honor's character."""
    suit = SUIT_OF[k]
    if suit == "z":
        letter = HONOR_CLASS[k - 27]
        return (f'<span class="tile z h{letter}" title="{e(chinese(k))}" role="img" aria-label="{e(chinese(k))}">'
                f'<span class="r">{e(HONORS[k - 27])}</span></span>')
    return (f'<span class="tile {suit}" title="{e(chinese(k))}" role="img" aria-label="{e(chinese(k))}">'
            f'<span class="r">{e(NUMERALS[RANK_OF[k] - 1])}</span><span class="s">{e(SUIT_CN[suit])}</span></span>')


def inline(i: Inline) -> str:
    if isinstance(i, str):
        return e(i)
    if isinstance(i, Code):
        return f"<code>{e(i.text)}</code>"
    if isinstance(i, Strong):
        return f"<strong>{inlines(i.items)}</strong>"
    if isinstance(i, Em):
        return f"<em>{inlines(i.items)}</em>"
    if isinstance(i, TileRef):
        return f'<span class="inl">{tile(i.kind)}</span>'
    if isinstance(i, Link):
        return f'<a href="#{e(anchor(i.anchor))}">{inlines(i.items)}</a>'
    if isinstance(i, MiniHand):
        return '<span class="mini">' + "".join(group(g) for g in i.groups) + "</span>"
    raise TypeError(type(i).__name__)


def inlines(items: Inlines) -> str:
    return "".join(inline(i) for i in items)


def group(g: Group) -> str:
    slots = []
    for s in g.slots:
        cls = "slot" + (" hun" if s.hun else "") + (" win" if s.winning else "")
        cap = []
        if s.hun and s.face != s.tile:
            cap.append("=" + chinese(s.face))
        elif s.hun:
            cap.append("混")
        if s.winning:
            cap.append("和")
        slots.append(f'<span class="{cls}">{tile(s.tile)}<span class="cap">{e(" ".join(cap))}</span></span>')
    kind = {"chow": "chow", "pung": "pung", "kong": "kong", "pair": "pair"}.get(g.kind, "grp")
    cls = f"grp {kind}" + (" declared" if g.declared else "") + (" concealed" if g.declared and g.concealed else "")
    title = {"chow": "顺子 chow", "pung": "刻子 pung", "kong": "杠 kong", "pair": "将 pair"}.get(g.kind, "")
    if g.declared:
        title += " (concealed)" if g.concealed else " (declared)"
    return f'<span class="{cls}" title="{e(title)}">{"".join(slots)}</span>'


def block(b: Block, out: list[str]) -> None:
    if isinstance(b, Section):
        lvl = min(6, max(2, b.level))
        out.append(f'<section id="{e(anchor(b.id))}"{" class=" + chr(34) + e(b.cls) + chr(34) if b.cls else ""}>')
        out.append(f"<h{lvl}>{inlines(b.title)}</h{lvl}>")
        for x in b.blocks:
            block(x, out)
        out.append("</section>")
    elif isinstance(b, Para):
        out.append(f'<p{" class=" + chr(34) + e(b.cls) + chr(34) if b.cls else ""}>{inlines(b.items)}</p>')
    elif isinstance(b, Bullets):
        tag = "ol" if b.ordered else "ul"
        out.append(f"<{tag}>" + "".join(f"<li>{inlines(i)}</li>" for i in b.items) + f"</{tag}>")
    elif isinstance(b, Table):
        rows = ["<tr>" + "".join(f"<th>{inlines(h)}</th>" for h in b.head) + "</tr>"]
        # each cell carries its column's name: on a phone a row is shown as a card of "name: value" lines
        labels = [e(text_of(h)) for h in b.head]
        for r in b.rows:
            rows.append("<tr>" + "".join(f'<td data-label="{labels[i] if i < len(labels) else ""}">{inlines(c)}</td>'
                                         for i, c in enumerate(r)) + "</tr>")
        ident = f' id="{e(anchor(b.id))}"' if b.id else ""
        cls = f' class="{e(b.cls)}"' if b.cls else ""
        out.append(f'<div class="tw"><table{ident}{cls}>' + "".join(rows) + "</table></div>")
    elif isinstance(b, Hand):
        cls = "hand" + (" " + e(b.cls) if b.cls else "")
        tiles = '<div class="tiles">' + "".join(group(g) for g in b.groups) + "</div>" if b.groups else ""
        out.append(f'<div class="{cls}">{tiles}' + "".join(f"<p>{inlines(line)}</p>" for line in b.lines) + "</div>")
    elif isinstance(b, Details):
        out.append(f"<details><summary>{inlines(b.summary)}</summary>")
        for x in b.blocks:
            block(x, out)
        out.append("</details>")
    elif isinstance(b, TileRow):
        cap = f'<span class="caption">{inlines(b.caption)}</span>' if b.caption else ""
        out.append('<div class="tilerow">' + "".join(tile(k) for k in b.tiles) + cap + "</div>")
    else:
        raise TypeError(type(b).__name__)


def toc(book: Book, extra: tuple[tuple[str, str], ...] = ()) -> str:
    items = "".join(f'<li><a href="#{e(anchor(s.id))}">{inlines(s.title)}</a></li>' for s in book.sections)
    items += "".join(f'<li><a href="#{e(anchor(i))}">{e(t)}</a></li>' for i, t in extra)
    return f'<nav class="toc" aria-label="目录 contents"><strong>目录 Contents</strong><ol>{items}</ol></nav>'


def page(book: Book, header: str, *, extra_css: str = "", extra_sections: tuple[str, ...] = (),
         script: str = "", csp: str = CSP, extra_toc: tuple[tuple[str, str], ...] = ()) -> str:
    """The whole document. `header` is the generated-file comment (compiler
    text); extra_css, extra_sections (HTML fragments), their contents entries
    (id, title) and script (one inline module script, which `csp` must allow)
    are for parts added by other backends, which escape their own content."""
    body: list[str] = []
    for s in book.sections:
        block(s, body)
    parts = [
        f"<!DOCTYPE html>{header}",
        f'<html lang="{e(book.lang)}">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{e(csp)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(book.title)}</title>",
        f"<style>{CSS}{extra_css}</style>",
        "</head>",
        "<body>",
        "<header>",
        f"<h1>{e(book.title)}</h1>",
        f'<p class="sub">{e(book.subtitle)}</p>' if book.subtitle else "",
        "</header>",
        toc(book, extra_toc),
        "<main>",
        *body,
        *extra_sections,
        "</main>",
        f"<footer>{inlines(book.footer)}</footer>" if book.footer else "",
        f'<script type="module">{script}</script>' if script else "",
        "</body>",
        "</html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"


def plain_title(items: Inlines) -> str:
    return e(text_of(items))
