"""Benchmark: the generated scorer, the reference interpreter and the `mahjong`
package's HandCalculator.estimate_hand_value, in one run, on the same random
winning hands; then hands/s by hun count, the worst 7-hun hand, waits, and
compile time. Not a test: run it and read the numbers.

    pip install -e ".[bench]" && python benchmarks/bench.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from typing import Any, Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.handgen import random_shape  # noqa: E402
from tjmj_dsl import Scorer  # noqa: E402
from tjmj_dsl.engine.hand import hun_kinds_of  # noqa: E402
from tjmj_dsl.tiles import NAMES, format_tiles  # noqa: E402

CYCLES = ((27, 28, 29, 30), (31, 32, 33))


def winning_hand(rng: random.Random, huns: int, indicator: int) -> dict[str, Any] | None:
    """Four random melds and a pair, no declared melds; `huns` of the tiles
    replaced by hun tiles (or, for huns=0, a hand holding no hun kind)."""
    hk = hun_kinds_of(indicator, 2, CYCLES)
    tiles = [t for g in random_shape(rng) for t in g]
    if huns == 0 and any(t in hk for t in tiles):
        return None
    idx = rng.sample(range(14), huns) if huns else []
    for i in idx:
        tiles[i] = rng.choice(hk)
    counts = [tiles.count(k) for k in range(34)]
    if max(counts) > 4 or counts[indicator] > 3 or sum(tiles.count(k) for k in hk) != huns:
        return None
    rng.shuffle(tiles)
    t = tiles.pop()
    return {"concealed": format_tiles(sorted(tiles)), "draw": NAMES[t], "indicator": NAMES[indicator]}


def hands(n: int, huns: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    while len(out) < n:
        h = winning_hand(rng, huns, rng.randrange(34))
        if h is not None:
            out.append(h)
    return out


def rate(fn: Callable[[dict[str, Any]], Any], items: list[dict[str, Any]], reps: int) -> float:
    """Hands per second, the median of `reps` passes over the items."""
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        for x in items:
            fn(x)
        times.append(time.perf_counter() - t)
    return len(items) / statistics.median(times)


def mahjong_peer() -> Callable[[dict[str, Any]], Any] | None:
    try:
        from mahjong.hand_calculating.hand import HandCalculator
        from mahjong.hand_calculating.hand_config import HandConfig
    except ImportError:
        return None
    calc = HandCalculator()
    config = HandConfig(is_tsumo=True)
    from tjmj_dsl.tiles import parse_tile, parse_tiles

    def convert(req: dict[str, Any]) -> tuple[list[int], int]:
        used = [0] * 34
        out = []
        for k in parse_tiles(req["concealed"]) + [parse_tile(req["draw"])]:
            out.append(k * 4 + used[k])
            used[k] += 1
        return out, out[-1]

    cache: dict[int, tuple[list[int], int]] = {}

    def score(req: dict[str, Any]) -> Any:
        key = id(req)
        if key not in cache:
            cache[key] = convert(req)
        tiles, win = cache[key]
        return calc.estimate_hand_value(tiles, win, config=config)

    return score


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer hands and repetitions")
    a = ap.parse_args()
    n, reps = (100, 3) if a.quick else (400, 5)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpu(s); {n} hands per set, median of {reps} passes\n")

    t = time.perf_counter()
    from tjmj_dsl.api import compile_rules  # noqa: F401
    from tjmj_dsl.backends.outputs import outputs
    outputs(None)
    compile_s = time.perf_counter() - t
    gen = Scorer()
    ref = Scorer(backend="interpreter")

    plain = hands(n, 0, 1)
    peer = mahjong_peer()
    for h in plain[:20]:  # warm both sides' caches alike
        gen.score(h)
    g = rate(gen.score, plain, reps)
    r = rate(ref.score, plain, max(1, reps // 2))
    print("hun-free winning hands (hands/s):")
    print(f"  generated scorer      {g:10.0f}")
    print(f"  reference interpreter {r:10.0f}   generated/interpreter = {g / r:.1f}x")
    if peer is not None:
        for h in plain[:20]:
            peer(h)
        m = rate(peer, plain, reps)
        print(f"  mahjong estimate_hand_value {m:10.0f}   generated/mahjong = {g / m:.1f}x")
    else:
        print("  mahjong not installed (pip install -e '.[bench]')")

    print("\ngenerated scorer by hun tiles in the hand (hands/s, median ms, max ms):")
    worst: tuple[float, dict[str, Any]] = (0.0, {})
    for k in (0, 2, 4, 7):
        hs = hands(n if k < 7 else max(40, n // 4), k, 10 + k)
        per = []
        for h in hs:
            t = time.perf_counter()
            gen.score(h)
            per.append(time.perf_counter() - t)
            if k == 7 and per[-1] > worst[0]:
                worst = (per[-1], h)
        print(f"  {k} huns: {len(hs) / sum(per):10.0f}   {statistics.median(per) * 1000:7.3f}   {max(per) * 1000:8.2f}")
    if worst[1]:
        again = []
        for _ in range(5):
            t = time.perf_counter()
            gen.score(worst[1])
            again.append(time.perf_counter() - t)
        print(f"  worst 7-hun hand found: {worst[1]['concealed']} +{worst[1]['draw']} (indicator {worst[1]['indicator']}):"
              f" first {worst[0] * 1000:.2f} ms, then median {statistics.median(again) * 1000:.2f} ms")

    print("\nwaits on 13-tile hands (ms per hand: median, max):")
    rng = random.Random(7)
    ws = []
    for h in hands(max(40, n // 4), 0, 99) + hands(max(40, n // 4), 2, 98):
        q = {k: v for k, v in h.items() if k != "draw"}
        t = time.perf_counter()
        gen.waits(q)
        ws.append(time.perf_counter() - t)
    del rng
    print(f"  {statistics.median(ws) * 1000:.2f} ms, {max(ws) * 1000:.2f} ms")
    print(f"\ncompile rules/tianjin.yaml, every profile and output: {compile_s:.2f} s")


if __name__ == "__main__":
    main()
