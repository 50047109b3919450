"""A scoring request: the JSONL mapping → a checked Request, or a RequestError
naming the field and what is wrong. Generic: no rule of any game is here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..tiles import NAMES, TileError, name, parse_tiles  # tjmj:inline-drop
from .contract import KONG_CHAIN_MAX, KONG_DRAWS, MELD_TYPES, REQUEST_FIELDS  # tjmj:inline-drop

FIELDS = REQUEST_FIELDS
_ONE_TILE = {n: k for k, n in enumerate(NAMES)}  # the canonical names, read without the parser


class RequestError(ValueError):
    """What is wrong with a request: a contract error `code`, the `field`
    (dotted: melds[0].type) and `pos`, the 0-based character inside it."""

    def __init__(self, message: str, field: str | None = None, pos: int | None = None, hint: str = "",
                 code: str = "bad_value") -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.pos = pos
        self.hint = hint
        self.code = code

    def error(self) -> dict:  # type: ignore[type-arg]
        """The contract's error object."""
        # None: no field; "" is a field's name (an unknown field named "")
        out: dict = {"code": self.code, "message": str(self), "field": self.field}  # type: ignore[type-arg]
        if self.pos is not None:
            out["position"] = self.pos
        return out

    def __str__(self) -> str:
        where = (self.field or "") + (f" (at character {self.pos + 1})" if self.pos is not None else "")
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
    kong_chain: int = 1  # the kongs in a row whose last replacement won (with kong_draw)
    flags: frozenset[str] = frozenset()  # the rule file's request flags that are true
    id: Any = None


def _tiles(value: Any, field: str) -> tuple[int, ...]:
    """A string of tiles, or a list of one-tile strings."""
    if value.__class__ is str:
        try:
            return tuple(parse_tiles(value))
        except TileError as e:
            raise RequestError(e.message, field, e.pos, e.hint, "bad_tile") from None
    if isinstance(value, list):
        return tuple(_tile(x, f"{field}[{i}]") for i, x in enumerate(value))
    raise RequestError(f"expected a string of tiles or a list of tiles, got {_json_type(value)}", field,
                       code="wrong_type")


def _tile(value: Any, field: str) -> int:
    k = _ONE_TILE.get(value) if value.__class__ is str else None
    if k is not None:
        return k
    if not isinstance(value, str):
        raise RequestError(f"expected one tile as a string, got {_json_type(value)}", field, code="wrong_type")
    try:
        ts = parse_tiles(value)
    except TileError as e:
        raise RequestError(e.message, field, e.pos, e.hint, "bad_tile") from None
    if len(ts) != 1:
        raise RequestError(f"expected one tile, found {len(ts)}", field, hint="e.g. \"7p\", \"E\" or \"五万\"",
                           code="bad_tile")
    return ts[0]


def _json_type(value: Any) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, tuple):  # from Python: the contract's arrays are lists
        return "a tuple (an array is a list)"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _bool(value: Any, field: str) -> bool:
    if value is None:
        return False
    if value is not True and value is not False:
        raise RequestError(f"expected true or false, got {value!r}", field, code="wrong_type")
    return value


def parse_request(data: Any, need_draw: bool = True, flags: tuple[str, ...] = (), copies: int = 4) -> Request:
    """Read a request mapping. Field names are exact (the contract's, and the
    rule file's boolean `flags`); unknown ones are errors, so a typo never
    silently changes a score. `null` means absent."""
    if not isinstance(data, dict):
        raise RequestError(f"a request is a JSON object, got {_json_type(data)}", code="not_object")
    for k in data:
        if not isinstance(k, str):
            raise RequestError(f"field names are text, not {_short(k)}", code="wrong_type")
        if k not in FIELDS and k not in flags:
            known = FIELDS + tuple(flags)
            near = [f for f in known if _close(k, f)]
            raise RequestError(f"unknown field {_short(k)}", k[:60], code="unknown_field",
                               hint=f"did you mean {near[0]!r}?" if near else "fields are " + ", ".join(known))
    c_in = data.get("concealed")
    if c_in is None:
        raise RequestError("missing", "concealed", code="missing_field",
                           hint='the tiles in hand before the winning tile, e.g. "345m123sEEE77m45s"')
    i_in = data.get("indicator")
    if i_in is None:
        raise RequestError("missing", "indicator", code="missing_field",
                           hint="the flipped tile that names the huns, e.g. \"7p\"")
    concealed = _tiles(c_in, "concealed")
    melds_in = data.get("melds")
    melds: tuple[Meld, ...] = ()
    if melds_in:
        if not isinstance(melds_in, list):
            raise RequestError("expected a list of {\"type\": …, \"tile\": …}", "melds", code="wrong_type")
        out: list[Meld] = []
        for i, m in enumerate(melds_in):
            f = f"melds[{i}]"
            if not isinstance(m, dict) or set(m) - {"type", "tile"} or m.get("type") is None or m.get("tile") is None:
                raise RequestError('expected {"type": "pung"|"kong"|"concealed_kong", "tile": "5p"}', f,
                                   code="wrong_type" if not isinstance(m, dict) else
                                   ("unknown_field" if set(m) - {"type", "tile"} else "missing_field"))
            if not isinstance(m["type"], str) or m["type"] not in MELD_TYPES:
                raise RequestError(f"unknown meld type {m['type']!r}", f + ".type", hint="one of " + ", ".join(MELD_TYPES))
            out.append(Meld(m["type"], _tile(m["tile"], f + ".tile")))
        melds = tuple(out)
    elif melds_in is not None and melds_in != []:
        raise RequestError("expected a list of {\"type\": …, \"tile\": …}", "melds", code="wrong_type")
    draw_in = data.get("draw")
    draw = None if draw_in is None else _tile(draw_in, "draw")
    if need_draw and draw is None:
        raise RequestError("missing", "draw", code="missing_field",
                           hint="the winning tile; `waits` takes a request without it")
    if not need_draw and draw is not None:
        raise RequestError("a waits request has no draw", "draw", code="unexpected_field",
                           hint="leave out draw to list the tiles that win")
    kd = data.get("kong_draw")
    if kd is not None and (not isinstance(kd, str) or kd not in KONG_DRAWS):
        raise RequestError(f"unknown kong_draw {_short(kd)}", "kong_draw", hint="null, or one of " + ", ".join(KONG_DRAWS),
                           code="bad_value" if isinstance(kd, str) else "wrong_type")
    kc = data.get("kong_chain")
    if kc is not None:
        kong_chain_error(kc, kd)
    req = Request(
        concealed=concealed, melds=melds, draw=draw,
        indicator=_tile(i_in, "indicator"), kong_draw=kd, kong_chain=1 if kc is None else kc,
        flags=frozenset(f for f in flags if _bool(data.get(f), f)) if flags else frozenset(), id=data.get("id"),
    )
    check_tiles(req.concealed, req.melds, req.draw, copies)
    return req


def kong_chain_error(kc: Any, kd: Any) -> None:
    """A RequestError for a kong_chain (not None) that is not a count from 1 to KONG_CHAIN_MAX or comes without
    kong_draw."""
    if kc.__class__ is not int:
        raise RequestError(f"expected a count from 1 to {KONG_CHAIN_MAX}, got {_short(kc)}", "kong_chain",
                           code="wrong_type")
    if not 1 <= kc <= KONG_CHAIN_MAX:
        raise RequestError(f"expected a count from 1 to {KONG_CHAIN_MAX}, got {_short(kc)}", "kong_chain",
                           hint="the kongs made in a row, the winning tile replacing the last")
    if kd is None:
        raise RequestError("kong_chain without kong_draw", "kong_chain", code="unexpected_field",
                           hint="a chain of kongs ends in a win on a replacement tile: set kong_draw too, "
                                "or leave out kong_chain")


def check_tiles(concealed: tuple[int, ...], melds: Any, draw: int | None, copies: int) -> None:
    """The hand's size and the number of copies of each kind (RequestError if wrong)."""
    if len(melds) > 4:
        raise RequestError(f"{len(melds)} declared melds; a hand has at most 4", "melds", code="too_many_melds")
    want = 13 - 3 * len(melds)
    if len(concealed) != want:
        raise RequestError(
            f"{len(concealed)} tiles; with {len(melds)} declared meld(s) the hand holds {want} before the winning tile",
            "concealed", hint="a kong counts as one meld of 3 plus one extra tile; do not list declared melds here",
            code="tile_count")
    counts = [0] * 34
    for k in concealed:
        counts[k] += 1
    if draw is not None:
        counts[draw] += 1
    for m in melds:
        counts[m.tile] += 3 if m.type == "pung" else 4
    if max(counts) > copies:
        k = next(k for k, c in enumerate(counts) if c > copies)
        raise RequestError(f"{counts[k]} tiles of {name(k)}; there are only {copies}", "concealed",
                           code="too_many_copies")


def option_value(value: Any, declared: Any) -> Any:
    """The declared value of an option that `value` names: the value itself
    (same JSON type: a string as a string, an integer as an integer, a boolean
    as a boolean), or its text, since the command line gives text ("3" names 3,
    "true" names true) and a number names the choice spelt with it (4 names
    "4"). A float never names anything, not even 3.0 for 3, nor does a boolean
    name "on"/"off" or 1: such a value is refused, never converted. Raises
    ValueError saying why."""
    for d in declared:
        if type(d) is type(value) and d == value:
            return d
    for d in declared:
        if isinstance(value, str) and not isinstance(d, str) and _text(d) == value:
            return d
        if isinstance(d, str) and type(value) is int and str(value) == d:
            return d
    shown = ", ".join(_text(d) if not isinstance(d, str) else repr(d) for d in declared)
    if isinstance(value, float):
        why = f"{value!r} is a decimal number; the values are {shown}"
    elif isinstance(value, bool):
        why = f"{_text(value)} is a boolean; the values are {shown}"
    elif isinstance(value, (list, dict)) or value is None:
        why = f"expected one of {shown}, got {type(value).__name__ if value is not None else 'null'}"
    else:
        why = f"{_short(value)} is not one of {shown}"
    raise ValueError(why)


def _text(v: Any) -> str:
    """A value as the command line writes it: true/false, 3, text."""
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _short(x: Any, n: int = 60) -> str:
    r = repr(x)
    return r if len(r) <= n else r[: n - 1] + "…"


def edit_distance(a: str, b: str, cap: int = 1 << 30) -> int:
    """Levenshtein distance, for did-you-mean hints (here and in diagnostics);
    past `cap` it answers cap + 1, working only the band |i - j| <= cap (a
    hint only asks whether a word is within 2 or 3 edits: fast on any word)."""
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    over = cap + 1
    if cap < len(a) + len(b):  # each character the other word lacks costs an edit: most words stop here
        in_a, in_b = set(a), set(b)
        if sum(c not in in_b for c in a) > cap or sum(c not in in_a for c in b) > cap:
            return over
    n = len(b)
    prev = [j if j <= cap else over for j in range(n + 1)]
    for i, ca in enumerate(a, 1):
        lo, hi = max(1, i - cap), min(n, i + cap)
        cur = [over] * (n + 1)
        cur[0] = i if i <= cap else over
        best = cur[0]
        for j in range(lo, hi + 1):
            d = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != b[j - 1]))
            cur[j] = d if d <= cap else over
            if d < best:
                best = d
        if best > cap:
            return over
        prev = cur
    return prev[-1]


def _close(a: str, b: str) -> bool:
    return edit_distance(a, b, 2) <= 2
