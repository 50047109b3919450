"""Benchmark of the game engine: simulated hands per second with random and
with value players, on one process and with --jobs 2, each beside a
reference measured in the same run (the generated scorer's score_tiles on a
fixed hun-free hand, in interleaved rounds), and the value player's win rate
and balance against three random players and against three value players.
Not a test: run it and read the numbers.

    pip install -e . && python benchmarks/bench_game.py [--quick]
    python benchmarks/bench_game.py --instructions   # instructions per hand, by valgrind (any load)
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import statistics
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tjmj_dsl import Scorer  # noqa: E402
from tjmj_dsl.game.simulate import Spec, _rules, run, summarize  # noqa: E402
from tjmj_dsl.tiles import parse_tile, parse_tiles  # noqa: E402

REF_HAND = (parse_tiles("345m123sEEE77m45s"), parse_tile("6s"), parse_tile("7p"))


def reference(scorer: Scorer, n: int = 3000) -> float:
    """score_tiles calls per second on one hun-free hand (warm caches): the yardstick of this machine, now."""
    c, d, i = REF_HAND
    f = scorer.score_tiles
    t0 = time.perf_counter()
    for _ in range(n):
        f(c, d, i)
    return n / (time.perf_counter() - t0)


def hands_per_second(spec: Spec, hands: int, jobs: int, start: int) -> tuple[float, float]:
    """(hands per second of wall time, hands per second of this process's CPU time; for one job the
    second is steadier on a shared machine: time spent waiting for a core is not counted)."""
    c0 = time.process_time()
    _, secs = run(spec, hands, jobs, start=start)
    cpu = time.process_time() - c0
    return hands / secs, (hands / cpu if jobs == 1 and cpu else float("nan"))


def _child(what: str, n: int) -> None:
    """What runs under valgrind: warm-up, then n hands of `what` players (or n score_tiles calls)."""
    if what == "score_tiles":
        sc = Scorer()
        c, d, i = REF_HAND
        for _ in range(100):
            sc.score_tiles(c, d, i)
        for _ in range(n):
            sc.score_tiles(c, d, i)
        return
    from tjmj_dsl.game.simulate import hand_summary
    spec = Spec(None, None, (), (what,) * 4, 1, False)
    rules = _rules(spec)
    for h in range(100):
        hand_summary(rules, spec, h)
    for h in range(1000, 1000 + n):
        hand_summary(rules, spec, h)


def _instructions(what: str, n: int) -> float:
    """Instructions per hand (or call): valgrind's count for n, minus its count for 0."""
    counts = []
    for k in (0, n):
        out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                              os.path.abspath(__file__), "--child", what, str(k)], capture_output=True, text=True)
        m = re.search(r"Collected : (\d+)", out.stderr)
        if not m:
            raise SystemExit(f"valgrind gave no count: {out.stderr[-300:]}")
        counts.append(int(m.group(1)))
    return (counts[1] - counts[0]) / n


def instructions() -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (Debian package valgrind)")
    ref = _instructions("score_tiles", 20000)
    print(f"score_tiles on the yardstick hand: {ref / 1000:.1f} k instructions a call")
    for what, n in (("random", 200), ("value", 40)):
        per = _instructions(what, n)
        print(f"{what} ×4: {per / 1e6:.2f} M instructions a hand = {per / ref:.0f} score_tiles calls "
              f"({1000 * ref / per:.2f} hands per 1000 calls)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer hands and rounds")
    ap.add_argument("--instructions", action="store_true", help="count instructions with valgrind instead of timing")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return _child(args.child[0], int(args.child[1]))
    if args.instructions:
        return instructions()
    rounds = 2 if args.quick else 3
    n_random, n_value, n_rates = (300, 40, 200) if args.quick else (1500, 200, 1000)
    scorer = Scorer()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the start")
    speeds: dict[str, list[tuple[float, float, float]]] = {}
    cases = [("random ×4, 1 job", ("random",) * 4, n_random, 1), ("random ×4, --jobs 2", ("random",) * 4, n_random, 2),
             ("value ×4, 1 job", ("value",) * 4, n_value, 1), ("value ×4, --jobs 2", ("value",) * 4, n_value, 2)]
    for _, players, _, _ in cases:
        _rules(Spec(None, None, (), players, 1, False))  # compile before timing
    run(Spec(None, None, (), ("value",) * 4, 1, False), 20, 1)  # warm the shape and claim caches
    for r in range(rounds):
        for name, players, n, jobs in cases:
            ref = reference(scorer)
            hps, cpu = hands_per_second(Spec(None, None, (), players, 1, False), n, jobs, start=r * n)
            speeds.setdefault(name, []).append((hps, cpu, hps / ref * 1000))
    print()
    print(f"| players | hands/s (median of {rounds} rounds) | range | hands per CPU second (1 job) "
          "| hands per 1000 score_tiles calls (same run) |")
    print("|---|---|---|---|---|")
    for name, xs in speeds.items():
        hps = [x for x, _, _ in xs]
        cpu = [c for _, c, _ in xs]
        ratio = [y for _, _, y in xs]
        cpu_text = f"{statistics.median(cpu):,.0f}" if cpu[0] == cpu[0] else "—"
        print(f"| {name} | {statistics.median(hps):,.0f} | {min(hps):,.0f}–{max(hps):,.0f} | {cpu_text} | "
              f"{statistics.median(ratio):.2f} |")
    print()
    print(f"win rates ({n_rates} hands each, seed 1; hand i is dealt by seat i mod 4):")
    print("| table | seat 0 wins | seat 0 mean balance | all wins | drawn |")
    print("|---|---|---|---|---|")
    for label, players in (("value vs 3 random", ("value", "random", "random", "random")),
                           ("value vs 3 value", ("value",) * 4),
                           ("random vs 3 random", ("random",) * 4),
                           ("random vs 3 value", ("random", "value", "value", "value"))):
        spec = Spec(None, None, (), players, 1, False)
        summ, _ = run(spec, n_rates, 2)
        st = summarize(spec, summ, _rules(spec))
        print(f"| {label} | {100 * st['seat_win_rate'][0]:.1f}% | {st['mean_balance'][0]:+.2f} | "
              f"{100 * st['win_rate']:.1f}% | {100 * st['drawn_rate']:.1f}% |")
    print(f"\nload average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")


if __name__ == "__main__":
    main()
