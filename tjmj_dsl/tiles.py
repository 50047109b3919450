"""The 34 tile kinds and their notation.

A kind is an int 0..33: 万 1-9 are 0-8, 饼 9-17, 条 18-26, then the honors
东南西北中发白 27-33. Knowing tiles is the Python's job; which of them are
huns, and what a pattern makes of them, is the rule file's.
"""

from __future__ import annotations

import re

from .engine.lasting import lasting, restart  # tjmj:inline-drop

SUITS = "mps"
HONOR_LETTERS = "ESWNCFP"  # 东 南 西 北 中 发 白, also 1z..7z
NUM_KINDS = 34

_SUIT_ALIASES = {"万": "m", "萬": "m", "筒": "p", "饼": "p", "餅": "p", "条": "s", "條": "s", "索": "s"}
_CN_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "伍": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_HONOR_ALIASES = {
    "东风": 27, "南风": 28, "西风": 29, "北风": 30, "红中": 31, "发财": 32, "白板": 33,
    "东": 27, "南": 28, "西": 29, "北": 30, "中": 31, "发": 32, "發": 32, "白": 33,
}
_HONOR_CN = "东南西北中发白"
_SUIT_CN = {"m": "万", "p": "饼", "s": "条"}


class TileError(ValueError):
    """A tile or hand string that cannot be read; `pos` is the 0-based offset."""

    def __init__(self, message: str, text: str, pos: int, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        self.pos = pos
        self.hint = hint

    def render(self) -> str:
        lines = [self.message, "  " + self.text, "  " + " " * _width(self.text[: self.pos]) + "^"]
        if self.hint:
            lines.append("hint: " + self.hint)
        return "\n".join(lines)


def _width(s: str) -> int:
    """Display width: CJK characters take two columns, so the caret lines up."""
    return sum(2 if ord(c) > 0x2E7F else 1 for c in s)


def kind(suit: str, rank: int) -> int:
    if suit == "z":
        return 27 + rank - 1
    return SUITS.index(suit) * 9 + rank - 1


SUIT_OF: tuple[str, ...] = tuple("m" * 9 + "p" * 9 + "s" * 9 + "z" * 7)  # by kind; honors are "z"
RANK_OF: tuple[int, ...] = tuple(list(range(1, 10)) * 3 + list(range(1, 8)))  # honors 1-7: E S W N C F P


def suit_of(k: int) -> str:
    return SUIT_OF[k]


def rank_of(k: int) -> int:
    return RANK_OF[k]


def name(k: int) -> str:
    """Canonical notation: `5m`, `9s`, and the honor letters `E`..`P`."""
    if not 0 <= k < NUM_KINDS:
        raise ValueError(f"no tile kind {k}")
    if k >= 27:
        return HONOR_LETTERS[k - 27]
    return f"{k % 9 + 1}{SUITS[k // 9]}"


def chinese(k: int) -> str:
    if k >= 27:
        return _HONOR_CN[k - 27]
    return f"{k % 9 + 1}{_SUIT_CN[SUITS[k // 9]]}"


ALL_KINDS: tuple[int, ...] = tuple(range(NUM_KINDS))
NAMES: tuple[str, ...] = tuple(name(k) for k in ALL_KINDS)

_ASCII_GROUP = re.compile(r"([1-9]+)([mpsz])")
_COMPACT_RE = re.compile(r"(?:[1-9]+[mps]|[ESWNCFP])*")  # e.g. 345m123sEEE77m45s
_COMPACT_RUN = re.compile(r"([1-9]+)([mps])|([ESWNCFP])")  # a run of one suit's digits, or an honor
_DIGIT_KINDS = {s: bytes.maketrans(b"123456789", bytes(range(9 * i, 9 * i + 9))) for i, s in enumerate("mps")}
_HONOR_KIND = {c: 27 + i for i, c in enumerate(HONOR_LETTERS)}
_COMPACT: dict[str, tuple[int, ...]] = lasting()  # compact text → kinds; bounded (see docs/reliability.md)
_COMPACT_KEY = 64  # longest text kept
_COMPACT_SIZE = 20_000  # entries before the cache starts over
FULL_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}


def parse_tiles(text: str) -> list[int]:
    """Read a run of tiles: `345m123sEEE`, `1z`, `五万`, `7筒 9条 白板`.

    Digits take the suit letter that follows them (`345m` is three tiles).
    Spaces are ignored. Raises TileError with the offending offset.
    """
    fast = _COMPACT.get(text)
    if fast is not None:
        return list(fast)
    if not isinstance(text, str):
        raise TileError(f"expected text, got {type(text).__name__}", "", 0)
    if _COMPACT_RE.fullmatch(text):  # the common compact form: its runs read whole, no aliases
        out_fast: list[int] = []
        for digits, suit, honor in _COMPACT_RUN.findall(text):
            if honor:
                out_fast.append(_HONOR_KIND[honor])
            else:  # a suit's digits: their bytes are the kinds
                out_fast += digits.encode().translate(_DIGIT_KINDS[suit])
        if len(text) <= _COMPACT_KEY:  # a hand is short; a long string is not kept
            if len(_COMPACT) >= _COMPACT_SIZE:
                restart(_COMPACT)
            _COMPACT[text] = tuple(out_fast)
        return out_fast
    if any("\uff01" <= c <= "\uff5e" for c in text):  # full-width ３４５ｍ (an IME's) is 345m: same positions
        text = text.translate(FULL_WIDTH)
        if _COMPACT_RE.fullmatch(text):
            return parse_tiles(text)
    out: list[int] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c.isspace() or c == ",":
            i += 1
            continue
        m = _ASCII_GROUP.match(text, i)
        if m and not (m.group(2) == "z" and any(d in "089" for d in m.group(1))):
            digits, suit = m.group(1), m.group(2)
            for j, d in enumerate(digits):
                r = int(d)
                if suit == "z" and r > 7:
                    raise TileError(f"no honor tile {d}z", text, i + j, "honors are 1z..7z (东南西北中发白)")
                out.append(kind(suit, r))
            i = m.end()
            continue
        if c in HONOR_LETTERS:
            out.append(27 + HONOR_LETTERS.index(c))
            i += 1
            continue
        if "0" <= c <= "9" or c in _CN_DIGITS:
            r = int(c) if "0" <= c <= "9" else _CN_DIGITS[c]
            if i + 1 < n and text[i + 1] in _SUIT_ALIASES and r >= 1:
                out.append(kind(_SUIT_ALIASES[text[i + 1]], r))
                i += 2
                continue
            if "0" <= c <= "9":
                j = i
                while j < n and "0" <= text[j] <= "9":
                    j += 1
                if j < n and text[j] in "mpsz":
                    bad = next(k for k in range(i, j) if text[k] == "0" or (text[j] == "z" and text[k] in "89"))
                    if text[j] == "z":
                        raise TileError(f"no honor tile {text[bad]}z", text, bad, "honors are 1z..7z (东南西北中发白)")
                    raise TileError(f"no tile {text[bad]}{text[j]}", text, bad, "ranks are 1 to 9")
                if j < n and not text[j].isspace():
                    raise TileError(
                        f"{text[j]!r} is not a suit", text, j,
                        "after the digits write m (万), p (饼/筒), s (条) or z (honors 1z-7z)",
                    )
                raise TileError(
                    f"digit {c!r} has no suit after it", text, i,
                    "write the suit letter after the digits: 5m (万), 5p (饼/筒), 5s (条), 1z..7z (honors)",
                )
        for alias in sorted(_HONOR_ALIASES, key=len, reverse=True):
            if text.startswith(alias, i):
                out.append(_HONOR_ALIASES[alias])
                i += len(alias)
                break
        else:
            raise TileError(
                f"{c!r} is not a tile", text, i,
                "tiles are 1-9 with m/p/s (345m), honors E S W N C F P or 1z-7z, or Chinese (五万, 7筒, 白板)",
            )
    return out


def parse_tile(text: str) -> int:
    """Exactly one tile."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise TileError(f"expected one tile, found {len(tiles)}", text, 0, "write one tile, e.g. 7p or E or 五万")
    return tiles[0]


def format_tiles(kinds: list[int] | tuple[int, ...]) -> str:
    """Compact notation, suits grouped in input order of first appearance: `345m123sEEE`."""
    out: list[str] = []
    run_suit = ""
    run: list[str] = []
    for k in kinds:
        s = suit_of(k)
        if s == "z":
            if run:
                out.append("".join(run) + run_suit)
                run = []
            out.append(HONOR_LETTERS[k - 27])
            run_suit = ""
            continue
        if s != run_suit and run:
            out.append("".join(run) + run_suit)
            run = []
        run_suit = s
        run.append(str(rank_of(k)))
    if run:
        out.append("".join(run) + run_suit)
    return "".join(out)
