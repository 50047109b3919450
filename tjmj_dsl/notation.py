"""The human hand notation of the CLI and the known-values table.

    345m 123s EEE 77m 45s [5555p] (9999s) +6s

Loose tiles are the concealed hand; `[555p]` is an exposed pung, `[5555p]` an
exposed kong, `(5555p)` a concealed kong; `+6s` is the winning tile (drawn).
Tiles as in tiles.py: 1-9 with m/p/s, honors E S W N C F P or 1z-7z, Chinese.
"""

from __future__ import annotations

from typing import Any

from .tiles import FULL_WIDTH, TileError, format_tiles, name, parse_tiles


def format_hand(req: dict[str, Any]) -> str:
    """A request in this notation: `345m 123s [5555p] +6s` (no `+` part when it has no draw)."""
    parts = [req["concealed"]] if req.get("concealed") else []
    for m in req.get("melds") or []:
        t = parse_tiles(m["tile"])[0]
        n = 3 if m["type"] == "pung" else 4
        body = format_tiles([t] * n)
        parts.append(f"({body})" if m["type"] == "concealed_kong" else f"[{body}]")
    if req.get("draw"):
        parts.append("+" + req["draw"])
    return " ".join(parts)


def parse_hand(text: str) -> dict[str, Any]:
    """Notation → the request fields concealed, melds, draw (draw may be absent).
    Raises TileError pointing into `text`."""
    if not isinstance(text, str):
        raise TileError(f"expected a hand as text, got {type(text).__name__}", "", 0)
    text = text.translate(FULL_WIDTH)  # ［５５５ｐ］ ＋６ｓ: the same positions
    concealed: list[int] = []
    melds: list[dict[str, str]] = []
    draw: int | None = None
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if c in "[(":
            close = "]" if c == "[" else ")"
            j = text.find(close, i)
            if j < 0:
                raise TileError(f"{c!r} is not closed", text, i, f"close the meld with {close!r}: [5555p]")
            body = _tiles_at(text, i + 1, j)
            if len(set(body)) != 1 or len(body) not in ((3, 4) if c == "[" else (4,)):
                raise TileError("a declared meld is 3 or 4 of one tile; a concealed kong is 4", text, i,
                                "[555p] pung, [5555p] exposed kong, (5555p) concealed kong")
            kind = "concealed_kong" if c == "(" else ("pung" if len(body) == 3 else "kong")
            melds.append({"type": kind, "tile": name(body[0])})
            i = j + 1
            continue
        if c == "+":
            j = i + 1
            while j < n and not text[j].isspace() and text[j] not in "[(+":
                j += 1
            ts = _tiles_at(text, i + 1, j)
            if len(ts) != 1 or draw is not None:
                raise TileError("one winning tile after '+'", text, i, "e.g. +6s")
            draw = ts[0]
            i = j
            continue
        j = i
        while j < n and not text[j].isspace() and text[j] not in "[(+":
            j += 1
        concealed.extend(_tiles_at(text, i, j))
        i = j
    out: dict[str, Any] = {"concealed": format_tiles(concealed), "melds": melds}
    if draw is not None:
        out["draw"] = name(draw)
    return out


def _tiles_at(text: str, start: int, end: int) -> list[int]:
    try:
        return parse_tiles(text[start:end])
    except TileError as e:
        raise TileError(e.message, text, start + e.pos, e.hint) from None
