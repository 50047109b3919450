"""A long JSONL batch of mixed lines for the memory-bound checks (the test's
100,000 lines and benchmarks/fuzz.py's longer runs): hands with and without
huns, distinct option sets (valid and not), distinct ids, malformed, deeply
nested and oversized lines."""

from __future__ import annotations

import json
import random
from typing import Any, Iterator

from tests.reqgen import random_request

VALID_SETS: list[dict[str, Any]] = [
    {"min_fan": m, "hun_kinds": k, "score_table": t, "jin_gang": j}
    for m in (1, 2, 3) for k in (1, 2, 3) for t in ("separate", "fan_with_kong", "coins") for j in ("4", "8", "forbidden")
]


def lines(n: int, seed: int = 1, valid_sets: int = 12, distinct_bad: int = 3000, long_every: int = 5000,
          scored: float = 0.8, with_options: float = 0.1) -> Iterator[bytes]:
    """n lines: a share `with_options` (1 in 10) with a valid option set (cycling through
    `valid_sets` of them, more than a batch keeps compiled), 1 in 10 with one
    of `distinct_bad` option sets that no rules declare, every `long_every`-th
    past the line limit, some deeply nested, some not JSON or not UTF-8; of the
    rest a share `scored` of new plain requests to score (hun-free mostly), the
    others refused before scoring but each with something new to keep (an id
    of up to 2 kB, an unknown option's name, a profile's): quick to answer, so
    the suite's batch is long and fast."""
    rng = random.Random(seed)
    sets = VALID_SETS[:valid_sets]
    for i in range(n):
        r = rng.random()
        if long_every and i % long_every == long_every - 1:
            yield b'{"id": %d, "concealed": "' % i + b"1m" * 40_000 + b'"}'
        elif r < with_options:
            opts = sets[i % len(sets)]
            req = random_request(rng, hun_kinds=opts["hun_kinds"], max_huns=2)
            req["options"] = opts
            yield json.dumps(req).encode()
        elif r < 0.1:  # (when with_options is under 0.1) plain requests instead
            yield json.dumps(random_request(rng, max_huns=0)).encode()
        elif r < 0.2:
            req = random_request(rng, max_huns=0)
            req["options"] = {"min_fan": 100 + i % distinct_bad}
            yield json.dumps(req).encode()
        elif r < 0.205:
            yield b"[" * 100 + b"]" * 100
        elif r < 0.21:
            yield rng.choice([b"not json", b"\xff\xfe\x00", b'{"id": NaN}', b"{}", b"[]", b'{"id": "\\ud800"}'])
        elif r < 0.21 + 0.79 * scored:
            yield json.dumps(random_request(rng, max_huns=0 if r < 0.9 else 2)).encode()
        else:
            req = random_request(rng, max_huns=0)
            what = rng.choice((0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 3))
            if what == 0:  # a new id, and no indicator
                req["id"] = f"{i}-" + "x" * rng.randrange(2000)
                req.pop("indicator", None)
            elif what == 1:
                req["options"] = {f"option_{i}": 1}
            elif what == 2:
                req["profile"] = f"profile-{i}"
            else:
                req[f"field_{i}"] = True
            yield json.dumps(req).encode()
