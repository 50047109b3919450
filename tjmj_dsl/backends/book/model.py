"""The rulebook as data: blocks of inlines. Every string in it is plain text
(a renderer escapes it); structure (links, tiles, emphasis) is a type, never
markup inside a string. Anchors are made by the compiler (`anchor()`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Union

from ...tiles import parse_tile


@dataclass(frozen=True)
class Code:
    text: str


@dataclass(frozen=True)
class Strong:
    items: tuple["Inline", ...]


@dataclass(frozen=True)
class Em:
    items: tuple["Inline", ...]


@dataclass(frozen=True)
class TileRef:
    """One tile drawn inline (kind 0-33)."""

    kind: int


@dataclass(frozen=True)
class Link:
    """A link to an anchor of the same page (there are no outside links)."""

    items: tuple["Inline", ...]
    anchor: str


@dataclass(frozen=True)
class MiniHand:
    """A hand drawn small inside a line or a table cell: its groups (see Group)."""

    groups: tuple["Group", ...]


Inline = Union[str, Code, Strong, Em, TileRef, Link, MiniHand]
Inlines = tuple[Inline, ...]


@dataclass(frozen=True)
class Para:
    items: Inlines
    cls: str = ""


@dataclass(frozen=True)
class Bullets:
    items: tuple[Inlines, ...]
    ordered: bool = False


@dataclass(frozen=True)
class Table:
    head: tuple[Inlines, ...]
    rows: tuple[tuple[Inlines, ...], ...]
    cls: str = ""
    id: str = ""


@dataclass(frozen=True)
class Slot:
    """A tile of a drawn hand: the tile held, the face it stands for, whether
    it is a hun tile standing in, and whether it is the winning tile."""

    tile: int
    face: int
    hun: bool
    winning: bool


@dataclass(frozen=True)
class Group:
    slots: tuple[Slot, ...]
    kind: str  # chow | pung | kong | pair
    declared: bool = False
    concealed: bool = True


@dataclass(frozen=True)
class Hand:
    """A hand drawn as tiles, split into its groups, with lines of text under it."""

    groups: tuple[Group, ...]
    lines: tuple[Inlines, ...]
    cls: str = ""  # example | near-miss | refused


@dataclass(frozen=True)
class TileRow:
    tiles: tuple[int, ...]
    caption: Inlines = ()


@dataclass(frozen=True)
class Section:
    id: str
    title: Inlines
    blocks: tuple["Block", ...]
    level: int = 2
    cls: str = ""


@dataclass(frozen=True)
class Details:
    """Blocks a reader opens when wanted (HTML <details>; Markdown: the summary, then the blocks)."""

    summary: Inlines
    blocks: tuple["Block", ...]


Block = Union[Para, Bullets, Table, Hand, TileRow, Section, Details]


@dataclass(frozen=True)
class Book:
    title: str
    subtitle: str
    lang: str
    sections: tuple[Section, ...]
    footer: Inlines = ()


_ANCHOR = re.compile(r"[^a-z0-9-]+")


def anchor(*parts: str) -> str:
    """An anchor id from compiler-chosen parts (pinyin ids): [a-z0-9-] only."""
    return "-".join(p for p in (_ANCHOR.sub("-", x.lower()).strip("-") for x in parts) if p) or "x"


def text_of(items: Inlines) -> str:
    """The plain text of inlines (for titles and alt texts)."""
    from ...tiles import chinese
    out = []
    for i in items:
        if isinstance(i, str):
            out.append(i)
        elif isinstance(i, Code):
            out.append(i.text)
        elif isinstance(i, (Strong, Em, Link)):
            out.append(text_of(i.items))
        elif isinstance(i, TileRef):
            out.append(chinese(i.kind))
        elif isinstance(i, MiniHand):
            out.append(" ".join(chinese(s.tile) for g in i.groups for s in g.slots))
    return "".join(out)


def hand_groups(res: dict[str, Any]) -> tuple[Group, ...]:
    """A scorer answer's decomposition as the book draws it: its groups, each slot's tile, face, hun and winning mark."""
    groups = []
    for g in res.get("decomposition") or ():
        slots = []
        for i, (face, tile, hun) in enumerate(zip(g["faces"], g["tiles"], g["huns"])):
            slots.append(Slot(parse_tile(tile), parse_tile(face), bool(hun), g.get("winning_slot") == i))
        groups.append(Group(tuple(slots), str(g["meld"]), bool(g["declared"]), bool(g["concealed"])))
    return tuple(groups)
