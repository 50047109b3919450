"""A scoring request: the JSONL mapping → a checked Request, or a RequestError
naming the field and what is wrong. Generic: no rule of any game is here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..tiles import TileError, name, parse_tiles  # tjmj:inline-drop

MELD_TYPES = ("pung", "kong", "concealed_kong")
KONG_DRAWS = ("exposed", "concealed", "hun")
FIELDS = ("id", "concealed", "melds", "draw", "indicator", "kong_draw", "profile", "options")


class RequestError(ValueError):
    """What is wrong with a request, and where (`field`, `pos` inside it)."""

    def __init__(self, message: str, field: str = "", pos: int | None = None, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.pos = pos
        self.hint = hint

    def __str__(self) -> str:
        where = self.field + (f" (at character {self.pos + 1})" if self.pos is not None else "")
        out = f"{where}: {self.message}" if where else self.message
        return out + (f" (hint: {self.hint})" if self.hint else "")


@dataclass(frozen=True)
class Meld:
    type: str  # pung | kong | concealed_kong
    tile: int


@dataclass(frozen=True)
class Request:
    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    draw: int | None
    indicator: int
    kong_draw: str | None = None
    flags: frozenset[str] = frozenset()  # the rule file's request flags that are true
    id: Any = None


def _tiles(value: Any, field: str) -> list[int]:
    if not isinstance(value, str):
        raise RequestError(f"expected a string of tiles, got {type(value).__name__}", field)
    try:
        return parse_tiles(value)
    except TileError as e:
        raise RequestError(e.message, field, e.pos, e.hint) from None


def _tile(value: Any, field: str) -> int:
    ts = _tiles(value, field)
    if len(ts) != 1:
        raise RequestError(f"expected one tile, found {len(ts)}", field, hint="e.g. \"7p\", \"E\" or \"五万\"")
    return ts[0]


def _bool(value: Any, field: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise RequestError(f"expected true or false, got {value!r}", field)
    return value


def parse_request(data: Any, need_draw: bool = True, flags: tuple[str, ...] = (), copies: int = 4) -> Request:
    """Read a request mapping. Field names are exact (the fixed ones, and the
    rule file's boolean `flags`); unknown ones are errors, so a typo never
    silently changes a score."""
    if not isinstance(data, dict):
        raise RequestError(f"a request is a JSON object, got {type(data).__name__}")
    known = FIELDS + tuple(flags)
    for k in data:
        if k not in known:
            near = [f for f in known if _close(k, f)]
            raise RequestError(f"unknown field {k!r}", k, hint=f"did you mean {near[0]!r}?" if near else "fields are " + ", ".join(known))
    if "concealed" not in data:
        raise RequestError("missing", "concealed", hint='the tiles in hand before the winning tile, e.g. "345m123sEEE77m45s"')
    if "indicator" not in data:
        raise RequestError("missing", "indicator", hint="the flipped tile that names the huns, e.g. \"7p\"")
    concealed = _tiles(data["concealed"], "concealed")
    melds_in = data.get("melds") or []
    if not isinstance(melds_in, list):
        raise RequestError("expected a list of {\"type\": …, \"tile\": …}", "melds")
    melds: list[Meld] = []
    for i, m in enumerate(melds_in):
        f = f"melds[{i}]"
        if not isinstance(m, dict) or set(m) - {"type", "tile"} or "type" not in m or "tile" not in m:
            raise RequestError('expected {"type": "pung"|"kong"|"concealed_kong", "tile": "5p"}', f)
        if m["type"] not in MELD_TYPES:
            raise RequestError(f"unknown meld type {m['type']!r}", f + ".type", hint="one of " + ", ".join(MELD_TYPES))
        melds.append(Meld(m["type"], _tile(m["tile"], f + ".tile")))
    draw_in = data.get("draw")
    draw = None if draw_in is None else _tile(draw_in, "draw")
    if need_draw and draw is None:
        raise RequestError("missing", "draw", hint="the winning tile; `waits` takes a request without it")
    if not need_draw and draw is not None:
        raise RequestError("a waits request has no draw", "draw", hint="leave out draw to list the tiles that win")
    kd = data.get("kong_draw")
    if kd is not None and kd not in KONG_DRAWS:
        raise RequestError(f"unknown kong_draw {kd!r}", "kong_draw", hint="null, or one of " + ", ".join(KONG_DRAWS))
    req = Request(
        concealed=tuple(concealed), melds=tuple(melds), draw=draw,
        indicator=_tile(data["indicator"], "indicator"), kong_draw=kd,
        flags=frozenset(f for f in flags if _bool(data.get(f), f)), id=data.get("id"),
    )
    check_tiles(req.concealed, req.melds, req.draw, copies)
    return req


def check_tiles(concealed: tuple[int, ...], melds: Any, draw: int | None, copies: int) -> None:
    """The hand's size and the number of copies of each kind (RequestError if wrong)."""
    if len(melds) > 4:
        raise RequestError(f"{len(melds)} declared melds; a hand has at most 4", "melds")
    want = 13 - 3 * len(melds)
    if len(concealed) != want:
        raise RequestError(
            f"{len(concealed)} tiles; with {len(melds)} declared meld(s) the hand holds {want} before the winning tile",
            "concealed", hint="a kong counts as one meld of 3 plus one extra tile; do not list declared melds here")
    counts = [0] * 34
    for k in concealed:
        counts[k] += 1
    if draw is not None:
        counts[draw] += 1
    for m in melds:
        counts[m.tile] += 3 if m.type == "pung" else 4
    if max(counts) > copies:
        k = next(k for k, c in enumerate(counts) if c > copies)
        raise RequestError(f"{counts[k]} tiles of {name(k)}; there are only {copies}", "concealed")


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, for did-you-mean hints (here and in diagnostics)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _close(a: str, b: str) -> bool:
    return abs(len(a) - len(b)) <= 2 and edit_distance(a, b) <= 2
