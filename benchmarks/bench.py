"""Benchmark: the generated scorer (score_tiles, score, the JSONL batch), the
reference interpreter and the `mahjong` package's
HandCalculator.estimate_hand_value, in one run, on the same random winning
hands; `tjmj score --jsonl` through a pipe; then hands/s by hun count, the
worst 7-hun hand, 7-hun hands in a long-running process with the garbage
collector running, waits, and compile time. Not a test: run it and read the
numbers.

    pip install -e ".[bench]" && python benchmarks/bench.py [--quick]
"""

from __future__ import annotations

import argparse
import gc
import json
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
from tjmj_dsl.tiles import NAMES, format_tiles, parse_tile, parse_tiles  # noqa: E402

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


def rounds(fns: dict[str, tuple[Callable[[Any], Any], list[Any]]], reps: int) -> dict[str, list[float]]:
    """hands/s of each function in each of `reps` rounds, the functions taking
    turns within a round: on a shared machine a slow spell then hits all of
    them, and the ratios are taken round by round."""
    out: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(reps):
        for k, (fn, items) in fns.items():
            t = time.perf_counter()
            for x in items:
                fn(x)
            out[k].append(len(items) / (time.perf_counter() - t))
    return out


def timed(fn: Callable[..., Any], items: list[Any], star: bool = True, collector: bool = False) -> list[tuple[float, Any]]:
    """(seconds, item) for one call of fn on each item. The collector is paused
    while timing (unless `collector`): a full collection walks every object of
    the process, whoever made it, and lands on whichever call is running; it
    runs untimed after the set and is measured on its own."""
    out = []
    if not collector:
        gc.disable()
    try:
        for x in items:
            t = time.perf_counter()
            fn(*x) if star else fn(x)
            out.append((time.perf_counter() - t, x))
    finally:
        gc.enable()
    gc.collect()
    return out


def typed(req: dict[str, Any]) -> tuple[tuple[int, ...], int, int]:
    return tuple(parse_tiles(req["concealed"])), parse_tile(req["draw"]), parse_tile(req["indicator"])


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

    def prepare(reqs: list[dict[str, Any]]) -> None:
        """Convert the tiles of requests before they are timed."""
        for r in reqs:
            cache[id(r)] = convert(r)
    score.prepare = prepare  # type: ignore[attr-defined]
    return score


def hun_sets(n: int) -> list[tuple[int, list[tuple[tuple[int, ...], int, int]]]]:
    """The per-hun-count sets, in the order the main run scores them: (huns, hands)."""
    return [(k, [typed(h) for h in hands(n if k < 7 else n // 2, k, 10 + k)]) for k in (0, 2, 4, 7)]


def first_sight_child(n: int) -> None:
    """In a fresh process: the hands the main run scores before its 7-hun set
    (untimed), then that set timed hand by hand; the times as JSON on stdout."""
    import json
    gen = Scorer()
    for h in hands(n, 0, 1):
        gen.score_tiles(*typed(h))
    for k, hs in hun_sets(n):
        if k == 7:
            print(json.dumps([t for t, _ in timed(gen.score_tiles, hs)]))
        else:
            for h in hs:
                gen.score_tiles(*h)


def first_sight_least(n: int, runs: int) -> list[float]:
    """Each 7-hun hand's least first-sight time over `runs` fresh processes:
    a slow spell of this machine during one run does not count against a hand."""
    import json
    import subprocess
    per_run = [json.loads(subprocess.run([sys.executable, __file__, "--first-sight-child", str(n)], check=True,
                                         capture_output=True, text=True).stdout) for _ in range(runs)]
    return [min(ts) for ts in zip(*per_run)]


def jsonl_batch() -> Callable[[list[str]], None]:
    """The loop `tjmj score --jsonl` runs, in process: JSON lines in, JSON lines out."""
    from tjmj_dsl.engine.runtime import jsonl
    from tjmj_dsl.service import Service
    service = Service()
    one, texter = service.answerer("score"), service.texter("score")

    def refuse(i: Any, e: Any) -> Any:
        return service.refuse("score", i, e)

    def run(lines: list[str]) -> None:
        for _ in jsonl(lines, one, refuse, texter):
            pass
    return run


def distinct_rounds(n: int, sets: int, seen: int = 0) -> dict[str, list[float]]:
    """hands/s on n distinct hun-free hands, each scored once, in `sets` sets
    (other hands each), and `mahjong` on the same hands (their tiles converted
    before timing), taking turns within a set. seen=0: score_tiles, score and
    the JSONL batch each by a new scorer (its tables empty); seen=N: by one
    scorer (and one batch) that scored N other distinct hands first, as a
    service that has run for a while meets a hand it never saw."""
    peer = mahjong_peer()
    out: dict[str, list[float]] = {"score_tiles": [], "score": [], "jsonl": [], "mahjong": []}
    kept: dict[str, Any] = {}
    old: set[tuple[str, str, str]] = set()
    if seen:
        kept = {"score_tiles": Scorer(), "score": Scorer(), "jsonl": jsonl_batch()}
        before = hands(seen, 0, 5000)
        old = {(h["concealed"], h["draw"], h["indicator"]) for h in before}
        for h in before:
            kept["score_tiles"].score_tiles(*typed(h))
            kept["score"].score(h)
        kept["jsonl"]([json.dumps(h) for h in before])
    for s in range(sets):
        reqs = [h for h in hands(n + n // 4, 0, 1000 + s) if (h["concealed"], h["draw"], h["indicator"]) not in old][:n]
        tiles = kept.get("score_tiles") or Scorer()
        one = kept.get("score") or Scorer()
        batch = kept.get("jsonl") or jsonl_batch()
        sides = {"score_tiles": (lambda x: tiles.score_tiles(*x), [typed(h) for h in reqs]),
                 "score": (one.score, reqs),
                 "jsonl": (batch, [[json.dumps(dict(h, id=i)) for i, h in enumerate(reqs)]])}
        if peer is not None:
            peer.prepare(reqs)  # type: ignore[attr-defined]
            sides["mahjong"] = (peer, reqs)
        for k, side in sides.items():
            got = rounds({k: side}, 1)[k][0]
            out[k].append(got * len(reqs) if k == "jsonl" else got)
    return out


def jsonl_pipe(reqs: list[dict[str, Any]]) -> float:
    """Lines/s of `tjmj score --jsonl` in its own process, fed through a pipe:
    from its first answer to its last (its start-up, compiling the rules, is not counted)."""
    import subprocess
    import threading
    data = "".join(json.dumps(dict(r, id=i)) + "\n" for i, r in enumerate(reqs)).encode()
    p = subprocess.Popen([sys.executable, "-m", "tjmj_dsl.cli", "score", "--jsonl"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=ROOT))
    assert p.stdin is not None and p.stdout is not None

    def feed() -> None:
        assert p.stdin is not None
        p.stdin.write(data)
        p.stdin.close()
    threading.Thread(target=feed, daemon=True).start()
    first = p.stdout.readline()
    t = time.perf_counter()
    rest = p.stdout.read()
    secs = time.perf_counter() - t
    p.wait()
    got = 1 + rest.count(b"\n")
    if got != len(reqs) or b'"error"' in first + rest:
        raise SystemExit(f"tjmj score --jsonl answered {got} of {len(reqs)} lines, or refused some")
    return (got - 1) / secs


def long_running_child(n: int, collector: bool = True) -> None:
    """In a fresh process, as a service runs: a Scorer, then n distinct 7-hun
    requests scored one after another with the collector left as Python sets
    it (or, for the comparison, switched off); the times of each call and of
    each collection as JSON on stdout."""
    reqs = hands(n, 7, 31)
    gen = Scorer()
    if not collector:
        gc.disable()
    pauses: list[tuple[int, float]] = []
    start = [0.0]

    def watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            start[0] = time.perf_counter()
        else:
            pauses.append((info["generation"], time.perf_counter() - start[0]))
    gc.callbacks.append(watch)
    times = []
    for r in reqs:
        t = time.perf_counter()
        gen.score(r)
        times.append(time.perf_counter() - t)
    gc.callbacks.remove(watch)
    print(json.dumps({"times": times, "pauses": pauses}))


def long_running(n: int, collector: bool = True) -> dict[str, Any]:
    """long_running_child's figures: over all n calls, and over those after the first 1,000 (the
    process warmed up: its tables hold the parts most hands share)."""
    import subprocess
    args = [sys.executable, __file__, "--long-running-child", str(n)] + ([] if collector else ["--no-collector"])
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    ts = sorted(out["times"])
    late = sorted(out["times"][1000:]) or ts
    gcs = {g: sum(1 for gg, _ in out["pauses"] if gg == g) for g in (0, 1, 2)}
    longest = {g: max((d for gg, d in out["pauses"] if gg == g), default=0.0) for g in (0, 1, 2)}
    return {"median": ts[len(ts) // 2], "p99": ts[int(0.99 * len(ts))], "max": ts[-1],
            "late_p99": late[int(0.99 * len(late))], "late_max": late[-1],
            "gcs": f"{gcs[0]} young, {gcs[1]} middle, {gcs[2]} full",
            "longest_by_gen": longest}


def print_long_running(long_n: int) -> None:
    """The long-running process with the collector as Python sets it, then the same hands with it off."""
    for collector in (True, False):
        lr = long_running(long_n, collector)
        how = "the collector running as Python sets it" if collector else "the collector switched off (the same hands)"
        by = lr["longest_by_gen"]
        print(f"  a long-running process (a new Scorer, then {long_n} distinct 7-hun hands scored one after another by"
              f" score(), {how}): median {lr['median'] * 1000:.3f} ms, 99th percentile {lr['p99'] * 1000:.3f},"
              f" max {lr['max'] * 1000:.2f} ms; after the first 1,000 hands 99th percentile {lr['late_p99'] * 1000:.3f},"
              f" max {lr['late_max'] * 1000:.2f} ms"
              + (f"; collections during it: {lr['gcs']} (longest young {by[0] * 1000:.2f}, middle {by[1] * 1000:.2f},"
                 f" full {by[2] * 1000:.2f} ms)" if collector else ""))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer hands and repetitions")
    ap.add_argument("--first-sight-child", type=int, metavar="N", help=argparse.SUPPRESS)
    ap.add_argument("--long-running-child", type=int, metavar="N", help=argparse.SUPPRESS)
    ap.add_argument("--no-collector", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--long-running-only", action="store_true",
                    help="only the long-running process, with the collector and without")
    a = ap.parse_args()
    if a.first_sight_child:
        first_sight_child(a.first_sight_child)
        return
    if a.long_running_child:
        long_running_child(a.long_running_child, not a.no_collector)
        return
    if a.long_running_only:
        print_long_running(2000 if a.quick else 20_000)
        return
    n, reps = (100, 3) if a.quick else (400, 7)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpu(s); {n} hands per set, {reps} rounds\n")

    t = time.perf_counter()
    from tjmj_dsl.api import compile_rules  # noqa: F401
    from tjmj_dsl.backends.outputs import outputs
    outputs(None)
    compile_s = time.perf_counter() - t
    gen = Scorer()
    ref = Scorer(backend="interpreter")

    plain = hands(n, 0, 1)
    plain_typed = [typed(h) for h in plain]  # converted once, as the peer's tiles are
    peer = mahjong_peer()
    for h, ht in zip(plain, plain_typed):  # one untimed pass: every side's caches warm alike
        gen.score(h)
        gen.score_tiles(*ht)
        if peer is not None:
            peer(h)
    batch = jsonl_batch()
    lines = [json.dumps(dict(h, id=i)) for i, h in enumerate(plain)]
    batch(lines)
    fns: dict[str, tuple[Callable[[Any], Any], list[Any]]] = {
        "score_tiles": (lambda x: gen.score_tiles(*x), plain_typed),
        "score": (gen.score, plain),
        "jsonl": (batch, [lines]),
    }
    if peer is not None:
        fns["mahjong"] = (peer, plain)
    res = rounds(fns, reps)
    res["jsonl"] = [x * len(lines) for x in res["jsonl"]]  # lines/s (one item: the whole batch)
    med = {k: statistics.median(v) for k, v in res.items()}
    r = rounds({"ref": (ref.score, plain)}, 1)["ref"][0]
    print("hun-free winning hands (hands/s, median of the rounds):")
    print(f"  generated score_tiles (typed fast path) {med['score_tiles']:9.0f}")
    print(f"  generated score (request in, result with display out) {med['score']:9.0f}")
    print(f"  JSONL batch in process, as tjmj score --jsonl answers it (lines/s) {med['jsonl']:9.0f}")
    print(f"  reference interpreter score {r:9.0f}   score/interpreter = {med['score'] / r:.1f}x")
    if peer is not None:
        def ratio(k: str) -> str:
            rs = [a / b for a, b in zip(res[k], res["mahjong"])]
            return f"{statistics.median(rs):.1f}x (rounds {min(rs):.1f}x-{max(rs):.1f}x)"
        print(f"  mahjong estimate_hand_value {med['mahjong']:9.0f}")
        print(f"  score_tiles/mahjong = {ratio('score_tiles')}; score/mahjong = {ratio('score')}")
        print(f"  JSONL lines/mahjong hands = {ratio('jsonl')}")
    else:
        print("  mahjong not installed (pip install -e '.[bench]')")
    for seen in (0, 30_000):
        dist = distinct_rounds(n * 5, reps, seen)
        by = "a new scorer (its tables empty)" if not seen else f"a scorer that scored {seen} other distinct hands first"
        print(f"\n{n * 5} distinct hun-free hands, each scored once by {by}, {reps} sets of other hands"
              f" (hands/s, median of the sets):")
        for k, label in (("score_tiles", "generated score_tiles"), ("score", "generated score"),
                         ("jsonl", "JSONL batch in process (lines/s)"), ("mahjong", "mahjong estimate_hand_value")):
            if dist[k]:
                extra = ""
                if k != "mahjong" and dist["mahjong"]:
                    rs = [a / b for a, b in zip(dist[k], dist["mahjong"])]
                    extra = f"   /mahjong = {statistics.median(rs):.2f}x (sets {min(rs):.2f}x-{max(rs):.2f}x)"
                print(f"  {label} {statistics.median(dist[k]):9.0f}{extra}")
    print(f"  tjmj score --jsonl through a pipe, {n * 25} distinct hun-free hands: "
          f"{jsonl_pipe(hands(n * 25, 0, 77)):.0f} lines/s (from its first answer to its last; one process, one core)")

    print("\nscore_tiles by hun tiles in the hand, each hand scored once, at first sight (tables left by")
    print("the hands before it), the collector paused while timing (hands/s, median ms, max ms):")
    worst: tuple[float, Any] = (0.0, None)
    for k, hs in hun_sets(n):
        per = timed(gen.score_tiles, hs)
        if k == 7:
            worst = max(per)
        print(f"  {k} huns: {len(per) / sum(t for t, _ in per):10.0f}   {statistics.median(t for t, _ in per) * 1000:7.3f}"
              f"   {max(t for t, _ in per) * 1000:8.2f}")
    if worst[1]:
        c, d, i = worst[1]
        again = statistics.median(t for t, _ in timed(gen.score_tiles, [worst[1]] * 5))
        cold = timed(Scorer().score_tiles, [worst[1]])[0][0]
        print(f"  worst 7-hun hand: {format_tiles(list(c))} +{NAMES[d]} (indicator {NAMES[i]}): first sight"
              f" {worst[0] * 1000:.2f} ms, again {again * 1000:.2f} ms; as the first hand of a new scorer {cold * 1000:.2f} ms")
    # the collector's share: the same kind of hands (another set) with the collector running,
    # and what one full collection over this process's objects costs
    per = timed(gen.score_tiles, [typed(h) for h in hands(n // 4, 7, 27)], collector=True)
    t = time.perf_counter()
    gc.collect()
    full = time.perf_counter() - t
    print(f"  with the collector running (other 7-hun hands): median {statistics.median(t for t, _ in per) * 1000:.3f} ms,"
          f" max {max(t for t, _ in per) * 1000:.2f} ms; a full collection of this process's"
          f" {len(gc.get_objects())} tracked objects takes {full * 1000:.1f} ms")

    print_long_running(2000 if a.quick else 20_000)
    if not a.quick:
        least = sorted(first_sight_least(n, 4))
        print(f"  the same 7-hun hands at first sight, each its least time over 4 fresh processes: median"
              f" {statistics.median(least) * 1000:.3f} ms, 90th percentile {least[int(.9 * len(least))] * 1000:.3f},"
              f" 99th {least[int(.99 * len(least))] * 1000:.3f}, worst {least[-1] * 1000:.2f} ms")

    print("\nwaits on 13-tile hands, each hand once, the collector paused while timing (ms per hand: median, max):")
    qs = [{k: v for k, v in h.items() if k != "draw"} for h in hands(max(40, n // 4), 0, 99) + hands(max(40, n // 4), 2, 98)]
    ws = [t for t, _ in timed(gen.waits, qs, star=False)]
    print(f"  {statistics.median(ws) * 1000:.2f} ms, {max(ws) * 1000:.2f} ms")
    print(f"\ncompile rules/tianjin.yaml, every profile and output: {compile_s:.2f} s")


if __name__ == "__main__":
    main()
