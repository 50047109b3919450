"""What a spectator sees: the table's public facts, built from those alone.

`public_json` constructs (it does not filter a full view): every field is
one that all four seats see — discards, declared melds (a concealed kong's
tile withheld), the indicator once flipped, the bets, how many concealed
tiles each seat holds, and the events with every draw and concealed kong's
tile withheld. A seat's own screen is the bot protocol's view (game/bot.py
view_json), computed for that seat.
"""

from __future__ import annotations

from typing import Any

from ..game.record import event_json
from ..game.rules import REQUEST_MELD_TYPES
from ..game.table import Table
from ..tiles import NAMES

_HIDDEN = ("draw", "concealed_kong")


def public_json(t: Table, hand: int) -> dict[str, Any]:
    """The table as everyone sees it."""
    dealt = t.dealt
    last = t.last_discard
    return {
        "hand": hand, "dealer": t.dealer,
        "indicator": NAMES[t.indicator] if dealt else None,
        "hun_kinds": [NAMES[k] for k in t.hun_kinds] if dealt else None,
        "concealed": [sum(t.counts[s]) for s in range(4)],
        "melds": [[{"type": REQUEST_MELD_TYPES[m[0]], "tile": None if m[0] == "concealed" else NAMES[m[1]]}
                   for m in t.melds[s]] for s in range(4)],
        "discards": [[NAMES[k] for k in t.discards[s]] for s in range(4)],
        "last_discard": {"seat": last[0], "tile": NAMES[last[1]]} if last is not None else None,
        "live_left": t.wall.live_left if dealt else None,
        "zuozhuang": t.zuozhuang, "lazhuang": list(t.lazhuang),
        "xianggong": list(t.xianggong), "ready": list(t.ready),
        "events": [event_json(s, typ, tile, extra, hidden=typ in _HIDDEN) for s, typ, tile, extra in t.events],
    }
