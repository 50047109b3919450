"""Random scoring requests for the long-running checks (threads, memory,
benchmarks/fuzz.py): mostly winning shapes with 0-7 huns, declared melds,
kong draws and request flags, and now and then a malformed one."""

from __future__ import annotations

import json
import random
from typing import Any

from tests.handgen import random_shape
from tjmj_dsl.engine.hand import hun_kinds_of
from tjmj_dsl.tiles import NAMES, format_tiles

CYCLES = ((27, 28, 29, 30), (31, 32, 33))
FLAGS = ("tianhu", "dihu", "tianting")
MALFORMED = [
    {"concealed": "345m123sEEE77m45x", "draw": "6s", "indicator": "7p"},
    {"concealed": "345m123sEEE77m45s", "draw": "6s"},
    {"concealed": "345m", "draw": "6s", "indicator": "7p"},
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "kong_draw": "sideways"},
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "melds": [{"type": "pung"}]},
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "tianhu": "yes"},
    {"concealed": "5555m123sEEE7m45s", "draw": "5m", "indicator": "7p"},
    {"concealed": 345, "draw": "6s", "indicator": "7p"},
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "unknown": 1},
]


def random_request(rng: random.Random, hun_kinds: int = 2, max_huns: int = 7, malformed: float = 0.03) -> dict[str, Any]:
    """One request; `hun_kinds` must be the rules' (the huns are placed by it)."""
    if rng.random() < malformed:
        return dict(rng.choice(MALFORMED))
    indicator = rng.randrange(34)
    huns = hun_kinds_of(indicator, hun_kinds, CYCLES)
    groups = random_shape(rng)
    melds: list[dict[str, str]] = []
    kinds: list[str] = []
    for g in groups[: rng.choice((0, 0, 0, 1, 1, 2, 3))]:
        if g[0] == g[1]:
            typ = rng.choice(("pung", "kong", "concealed_kong"))
        else:  # a chow cannot be declared: a kong of some kind instead
            typ = rng.choice(("kong", "concealed_kong"))
            g[:] = [rng.randrange(34)] * 3
        melds.append({"type": typ, "tile": NAMES[g[0]]})
        kinds.append("hun" if g[0] in huns and typ != "pung" else {"pung": "pung", "kong": "exposed",
                                                                    "concealed_kong": "concealed"}[typ])
    tiles = [t for g in groups[len(melds):] for t in g]
    for i in rng.sample(range(len(tiles)), min(len(tiles), rng.randint(0, max_huns))):
        tiles[i] = rng.choice(huns)
    if rng.random() < 0.1:
        tiles[rng.randrange(len(tiles))] = rng.randrange(34)
    t = tiles.pop(rng.randrange(len(tiles)))
    req: dict[str, Any] = {"id": rng.randrange(10**9), "concealed": format_tiles(sorted(tiles)), "melds": melds,
                           "draw": NAMES[t], "indicator": NAMES[indicator]}
    kongs = [k for k in kinds if k != "pung"]
    if kongs and rng.random() < 0.5:
        req["kong_draw"] = rng.choice(kongs)
    if not melds and rng.random() < 0.1:
        req[rng.choice(FLAGS)] = True
    return req


def line(req: dict[str, Any]) -> str:
    return json.dumps(req, ensure_ascii=False)
