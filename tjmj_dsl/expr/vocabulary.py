"""What names and attributes mean: one table read by the checker, the
interpreter and the Python emitter, so the three cannot drift apart.

This is generic mahjong vocabulary (groups, slots, tiles, huns). It names no
Tianjin pattern; the rule file builds patterns from it.

Runtime shapes (shared with engine/hand.py):
  group = (kind, faces, hunmask, declared, concealed, t_slot, nhuns, suit, rank)
  kind: 0 pair, 1 chow, 2 pung, 3 kong; faces: tuple of tile kinds; hunmask:
  tuple of bools (that tile is a hun tile); t_slot: index of the winning tile
  or -1; suit: "m" "p" "s" "z"; rank: rank of the lowest face.
  slot  = (face, hun, is_t)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

# the generated scorer inlines tiles.py and engine/, so the templates
# below may name these directly
from ..engine.hand import group_slots
from ..tiles import RANK_OF, SUIT_OF

BOOL, INT, STR, TILE, GROUP, SLOT, NONE, ANY = "bool", "int", "str", "tile", "group", "slot", "none", "any"


def list_of(t: str) -> str:
    return f"list[{t}]"


def elem(t: str) -> str | None:
    return t[5:-1] if t.startswith("list[") else (ANY if t == ANY else None)


@dataclass(frozen=True)
class Attr:
    type: str
    doc: str
    py: str  # Python template, {0} is the object
    fn: Callable[[Any], Any]






GROUP_ATTRS: dict[str, Attr] = {
    "is_pair": Attr(BOOL, "the group is the pair", "({0}[0] == 0)", lambda g: g[0] == 0),
    "is_chow": Attr(BOOL, "a run of three in one suit", "({0}[0] == 1)", lambda g: g[0] == 1),
    "is_pung": Attr(BOOL, "three of a kind (not a kong)", "({0}[0] == 2)", lambda g: g[0] == 2),
    "is_kong": Attr(BOOL, "four of a kind", "({0}[0] == 3)", lambda g: g[0] == 3),
    "is_meld": Attr(BOOL, "a chow, pung or kong (not the pair)", "({0}[0] != 0)", lambda g: g[0] != 0),
    "suit": Attr(STR, '"m", "p", "s", or "z" for honors', "{0}[7]", lambda g: g[7]),
    "rank": Attr(INT, "rank of the lowest face (1-9; honors 1-7)", "{0}[8]", lambda g: g[8]),
    "face": Attr(TILE, "the lowest face (the tile of a pung or pair)", "{0}[1][0]", lambda g: g[1][0]),
    "faces": Attr(list_of(TILE), "the faces of all its tiles, lowest first", "list({0}[1])", lambda g: list(g[1])),
    "huns": Attr(INT, "how many of its tiles are hun tiles", "{0}[6]", lambda g: g[6]),
    "huns_besides_t": Attr(INT, "hun tiles in it other than the winning tile",
                           "({0}[6] - ({0}[5] >= 0 and {0}[2][{0}[5]]))",
                           lambda g: g[6] - int(g[5] >= 0 and g[2][g[5]])),
    "has_t": Attr(BOOL, "the winning tile is in it", "({0}[5] >= 0)", lambda g: g[5] >= 0),
    "t_face": Attr(TILE + "?", "the face the winning tile stands for in it, or none",
                   "({0}[1][{0}[5]] if {0}[5] >= 0 else None)", lambda g: g[1][g[5]] if g[5] >= 0 else None),
    "declared": Attr(BOOL, "a meld declared before the win (pung or kong)", "{0}[3]", lambda g: g[3]),
    "concealed": Attr(BOOL, "not exposed: formed in hand, or a concealed kong", "{0}[4]", lambda g: g[4]),
    "slots": Attr(list_of(SLOT), "its tiles, each with face, hun, is_t", "group_slots({0})", group_slots),
}

SLOT_ATTRS: dict[str, Attr] = {
    "face": Attr(TILE, "the face this tile stands for", "{0}[0]", lambda s: s[0]),
    "hun": Attr(BOOL, "this tile is a hun tile", "{0}[1]", lambda s: s[1]),
    "is_t": Attr(BOOL, "this is the winning tile", "{0}[2]", lambda s: s[2]),
}

TILE_ATTRS: dict[str, Attr] = {
    "suit": Attr(STR, '"m", "p", "s" or "z"', "SUIT_OF[{0}]", lambda t: SUIT_OF[t]),
    "rank": Attr(INT, "1-9 (honors 1-7 in the order E S W N C F P)", "RANK_OF[{0}]", lambda t: RANK_OF[t]),
}

ATTRS_BY_TYPE = {GROUP: GROUP_ATTRS, SLOT: SLOT_ATTRS, TILE: TILE_ATTRS}


@dataclass(frozen=True)
class Derived:
    """An attribute the language defines by one of its own expressions, `it` being the
    object: the compiler writes the expression in its place (expr/derived.py), so the
    interpreter, the emitter and the mask search only ever see the plain vocabulary."""

    type: str
    doc: str
    expr: str


DERIVED_ATTRS: dict[str, dict[str, Derived]] = {
    SLOT: {
        "own": Derived(BOOL, "this tile stands for its own face: a natural tile; the winning tile standing for its "
                       "own kind; another hun tile standing for a hun kind (any of the hand's hun tiles may sit in "
                       "any hun slot but the winning tile's)",
                       "not it.hun or (it.face == t if it.is_t else it.face in hun_kinds)"),
    },
}

# what the checker accepts: the attributes and the derived ones
CHECKED_ATTRS = {typ: {**table, **DERIVED_ATTRS.get(typ, {})} for typ, table in ATTRS_BY_TYPE.items()}


@dataclass(frozen=True)
class Var:
    type: str
    doc: str
    fixed: bool = False  # the same for every hand under one rule set (no cache key needs it)


# Names a request rule, a pattern, the algebra or the score table may read.
HAND_VARS: dict[str, Var] = {
    "true": Var(BOOL, "true"),
    "false": Var(BOOL, "false"),
    "none": Var(NONE, "no value (e.g. kong_draw when the win is not after a kong)"),
    "suits": Var(list_of(STR), 'the numbered suits of the tile set: ["m", "p", "s"]', fixed=True),
    "indicator": Var(TILE, "the flipped tile that names the huns"),
    "hun_kinds": Var(list_of(TILE), "the hun kinds, the indicator's first"),
    "hun_suit": Var(STR, "the suit of the indicator"),
    "t": Var(TILE, "the winning tile"),
    "t_hun": Var(BOOL, "the winning tile is a hun tile"),
    "huns": Var(INT, "hun tiles among the hand's tiles, declared melds included"),
    "declared": Var(list_of(GROUP), "the melds declared before the win"),
    "kong_draw": Var(STR + "?", 'none, or the kind of kong whose replacement tile won: "exposed", "concealed", "hun"'),
    "kong_chain": Var(INT, "how many kongs the winner made in a row, each right after the previous one's replacement "
                           "tile, the winning tile replacing the last (1 for a single kong; 0 when kong_draw is none)"),
}

DECOMP_VARS: dict[str, Var] = {
    "melds": Var(list_of(GROUP), "the four melds of the decomposition, declared ones included"),
    "pair": Var(GROUP, "the pair of the decomposition"),
    "groups": Var(list_of(GROUP), "the four melds and the pair"),
}

TOTAL_VARS: dict[str, Var] = {
    "fan": Var(INT, "the hand's fan"),
    "kong_points": Var(INT, "points of the kong whose replacement tile won (0 if none)"),
}


@dataclass(frozen=True)
class Func:
    params: tuple[str, ...]
    ret: str
    doc: str


FUNCS: dict[str, Func] = {
    "len": Func((ANY,), INT, "length of a list"),
    "count": Func((TILE,), INT, "how many tiles of this kind the hand holds (declared melds included)"),
    "sorted": Func((ANY,), ANY, "the list sorted"),
    "sum": Func((list_of(INT),), INT, "sum of a list of numbers"),
    "product": Func((list_of(INT),), INT, "product of a list of numbers (1 for none)"),
    "min": Func((list_of(INT),), INT, "least of a list"),
    "max": Func((list_of(INT),), INT, "greatest of a list"),
    "next": Func((TILE,), TILE, "the next kind in the hun order (suits wrap 9→1; winds and dragons cycle)"),
}

# The hun mapping (`hun.huns`): one expression of the indicator, evaluated for each of the 34
# kinds when the rules are compiled; its value, a list of kinds (the indicator's first), is
# that indicator's hun kinds. It reads these names and functions only.
HUN_VARS: dict[str, Var] = {
    "true": Var(BOOL, "true"),
    "false": Var(BOOL, "false"),
    "indicator": Var(TILE, "the flipped tile, one of the 34 kinds in turn"),
    "kinds": Var(INT, "hun.kinds: how many kinds a rule counts from the indicator (option hun_kinds sets it)"),
}

HUN_FUNCS: dict[str, Func] = {
    "len": Func((list_of(ANY),), INT, "length of a list"),
    "next": FUNCS["next"],
    "run": Func((TILE, INT), list_of(TILE), "k and the kinds after it by next(), n in all (fewer when the order "
                "comes back to k: a cycle shorter than n)"),
    "cycle": Func((TILE,), list_of(TILE), "every kind of k's order, from k on: the nine of its suit for a suit tile, "
                  "its cycle of hun.cycles for an honor (all four winds, all three dragons)"),
}

QUANTS = {
    "any": "true if the body holds for some element",
    "all": "true if the body holds for every element",
    "count": "how many elements the body holds for",
    "sum": "sum of the body over the elements",
    "product": "product of the body over the elements",
    "min": "least value of the body (0 for none)",
    "max": "greatest value of the body (0 for none)",
}
