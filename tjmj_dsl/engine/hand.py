"""A hand as the rules see it: its tiles split into naturals and huns, its
groups (the tuples the expression language reads), and the request flags."""

from __future__ import annotations

from typing import Any

from ..tiles import RANK_OF, SUIT_OF  # tjmj:inline-drop
from .request import Request  # tjmj:inline-drop

PAIR, CHOW, PUNG, KONG = 0, 1, 2, 3
GROUP_KIND_NAMES = ("pair", "chow", "pung", "kong")


def next_kind(k: int, cycles: tuple[tuple[int, ...], ...]) -> int:
    """Suits wrap 9→1; honors follow the rule file's cycles."""
    if k < 27:
        return k - k % 9 + (k % 9 + 1) % 9
    for cyc in cycles:
        if k in cyc:
            return cyc[(cyc.index(k) + 1) % len(cyc)]
    return k


def hun_kinds_of(indicator: int, n: int, cycles: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """`indicator` and the kinds after it by next_kind, n in all, fewer when the order comes back
    to a kind already taken (a cycle shorter than n): the `run(k, n)` of the hun mapping."""
    out = [indicator]
    while len(out) < n:
        nk = next_kind(out[-1], cycles)
        if nk in out:
            break
        out.append(nk)
    return tuple(out)


def split_huns(tiles: tuple[int, ...], huns: set[int] | frozenset[int]) -> tuple[tuple[int, ...], int]:
    """The natural tiles as counts by kind, and how many hun tiles: what every search starts from."""
    counts = [0] * 34
    wild = 0
    for x in tiles:
        if x in huns:
            wild += 1
        else:
            counts[x] += 1
    return tuple(counts), wild


def make_group(kind: int, faces: tuple[int, ...], hunmask: tuple[bool, ...],
               declared: bool = False, concealed: bool = True, t_slot: int = -1) -> tuple:  # type: ignore[type-arg]
    f0 = faces[0]
    return (kind, faces, hunmask, declared, concealed, t_slot, sum(hunmask), SUIT_OF[f0], RANK_OF[f0])


def group_slots(g: tuple) -> list[tuple]:  # type: ignore[type-arg]
    """A group's tiles as (face, hun, is_t) — the `slots` of the expression language."""
    return [(f, g[2][i], i == g[5]) for i, f in enumerate(g[1])]


def same(a: Any, b: Any) -> bool:
    """== of the rules' language: two lists (a list or a tuple each: a literal is a tuple, sorted()
    a list) are equal when their items are. The interpreter and the generated scorers use this one."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def same_in(x: Any, xs: Any) -> bool:
    """`x in xs` of the rules' language: by `same`."""
    return any(same(x, y) for y in xs)


def wild_groups(chow: bool) -> tuple[tuple, tuple]:  # type: ignore[type-arg]
    """Every face a group made only of huns may take."""
    pairs = tuple(make_group(PAIR, (k, k), (True, True)) for k in range(34))
    melds = [make_group(PUNG, (k, k, k), (True, True, True)) for k in range(34)]
    if chow:
        melds += [make_group(CHOW, (k, k + 1, k + 2), (True, True, True)) for k in range(27) if k % 9 <= 6]
    return tuple(melds), pairs


class Hand:
    """What a request says, with the huns worked out: the names rules read."""

    __slots__ = ("indicator", "hun_kinds", "hun_set", "hun_suit", "t", "t_hun", "huns", "declared",
                 "kong_draw", "kong_chain", "flags", "counts", "suits", "concealed")
    indicator: int
    hun_kinds: tuple[int, ...]
    hun_set: frozenset[int]
    hun_suit: str
    t: int
    t_hun: bool
    huns: int
    declared: list[tuple]  # type: ignore[type-arg]
    kong_draw: str | None
    kong_chain: int  # the kongs in a row whose last replacement won: 0 without kong_draw
    flags: frozenset[str]
    counts: bytes  # by kind: the concealed tiles, t and the declared melds
    suits: list[str]
    concealed: tuple[int, ...]

    def count(self, k: int) -> int:
        return self.counts[k]


def copy_hand(h: Hand) -> Hand:
    """A copy of h whose fields may be set apart from h's."""
    hh = Hand()
    for name in Hand.__slots__:
        setattr(hh, name, getattr(h, name))
    return hh


def with_t(h: Hand, t: int) -> Hand:
    """h with t, a tile of the hand, as its winning tile (when the rules free it: tianhu/dihu)."""
    hh = copy_hand(h)
    hh.t, hh.t_hun = t, t in hh.hun_set
    return hh


def tally(kinds: tuple[int, ...]) -> list[int]:
    """How many of each of the 34 kinds `kinds` holds (a list counts fastest; a
    float kind raises TypeError, 34 or more IndexError)."""
    out = [0] * 34
    for k in kinds:
        out[k] = out[k] + 1
    return out


def new_hand(rules: Any, concealed: tuple[int, ...], melds: Any, t: int, indicator: int,
             kong_draw: str | None, flags: frozenset[str], counts13: bytes | None = None, kong_chain: int = 1) -> Hand:
    """The hand of 13 tiles `concealed` (before t), declared `melds` (objects
    with .type and .tile), won on t. `rules.hun_table` lists each indicator's hun kinds.
    counts13: the tally of `concealed` when the caller has it (the plain path keeps it per text).
    kong_chain: the request's (1 when absent); the hand's is 0 when it is not won on a replacement."""
    h = Hand()
    h.indicator = indicator
    h.hun_kinds, h.hun_set = kinds, hun_set = rules.hun_table[indicator]
    h.hun_suit = SUIT_OF[indicator]
    h.suits = rules.suits
    h.t = t
    h.t_hun = t in hun_set
    h.concealed = concealed = concealed + (t,)
    if counts13 is None:
        c: Any = tally(concealed)
    else:
        c = bytearray(counts13)
        c[t] += 1
    declared = []
    for m in melds:
        n = 3 if m.type == "pung" else 4
        c[m.tile] += n
        hun = m.tile in hun_set
        declared.append(make_group(PUNG if n == 3 else KONG, (m.tile,) * n, (hun,) * n, True, m.type == "concealed_kong"))
    h.counts = counts = bytes(c)  # the search's key (ValueError past 255 of a kind)
    h.declared = declared
    huns = 0
    for k in kinds:
        huns += counts[k]
    h.huns = huns
    h.kong_draw = kong_draw
    h.kong_chain = 0 if kong_draw is None else kong_chain
    h.flags = flags
    return h


def make_hand(rules: Any, req: Request, t: int) -> Hand:
    return new_hand(rules, req.concealed, req.melds, t, req.indicator, req.kong_draw, req.flags,
                    kong_chain=req.kong_chain)
