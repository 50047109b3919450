"""Benchmark of the JavaScript target: the generated scorer.mjs's `score` under
node beside the generated Python scorer's `score` (request in, result with
decomposition and formula out), on the same hands as benchmarks/bench.py
(hun-free and 7-hun winning hands), in one run, after the same untimed passes
on both sides; then the 7-hun hands at first sight in fresh node processes,
and the worst of them. Not a test.

    python benchmarks/bench_js.py [--quick]

The rounds alternate between the sides (Python, node, Python, node, ...) and
each round's ratio is taken on its own: on a shared machine a slow spell then
hits both sides; the median of the rounds is reported, with their range."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.bench import hands  # noqa: E402
from tjmj_dsl import Scorer  # noqa: E402

SCORER = os.path.join(ROOT, "generated", "tianjin", "scorer.mjs")
WORKER = os.path.join(ROOT, "benchmarks", "bench_js.mjs")
WARM = 20  # untimed passes over a set before its rounds, the same on both sides: node compiles hot code as it
# runs, in the background, and on a busy machine its throughput still climbs after 10 passes (Python's does not move)
PASSES = 3  # passes over the set in one timed Python round: a round long enough to time (~50 ms)
NODE_PASSES = 30  # the same for node, about ten times faster: a round of about the same length


class Node:
    """A node worker holding the generated scorer.mjs (see bench_js.mjs)."""

    def __init__(self, node: str) -> None:
        self.p = subprocess.Popen([node, WORKER, SCORER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, **msg: Any) -> Any:
        assert self.p.stdin is not None and self.p.stdout is not None
        self.p.stdin.write(json.dumps(msg, ensure_ascii=False) + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def close(self) -> None:
        assert self.p.stdin is not None
        self.p.stdin.close()
        self.p.wait(timeout=60)


def python_round(score: Any, items: list[dict[str, Any]]) -> tuple[float, float]:
    """(hands/s by the wall clock, hands/s by this process's CPU time)."""
    t = time.perf_counter()
    c = time.process_time()
    for _ in range(PASSES):
        for h in items:
            score(h)
    n = PASSES * len(items)
    return n / (time.perf_counter() - t), n / (time.process_time() - c)


def first_sight(node: str, sets: dict[str, list[dict[str, Any]]]) -> tuple[list[float], list[float]]:
    """In a fresh node process: the sets before the 7-hun one scored once (untimed, as
    bench.py's per-hun run leaves its tables), then each 7-hun hand once, timed:
    (ms by the wall clock, ms of CPU time)."""
    w = Node(node)
    try:
        for name, hs in sets.items():
            w.ask(cmd="load", set=name, hands=hs)
            if name != "7 huns":
                w.ask(cmd="warm", set=name)
        got = w.ask(cmd="first_sight", set="7 huns")
        return list(got["ms"]), list(got["cpu_ms"])
    finally:
        w.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer hands and rounds")
    a = ap.parse_args()
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        sys.exit("node is not installed (Debian package `nodejs`)")
    n, reps, procs = (100, 3, 2) if a.quick else (400, 9, 4)
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"python {sys.version.split()[0]}, node {version}, {os.cpu_count()} cpu(s); {n} hands per set, {reps} rounds\n")

    gen = Scorer()
    sets = {"hun-free": hands(n, 0, 1), "7 huns": hands(n // 2, 7, 17)}
    w = Node(node)
    try:
        res: dict[str, dict[str, list[float]]] = {}
        for name, hs in sets.items():
            w.ask(cmd="load", set=name, hands=hs)
            for _ in range(WARM):  # untimed passes on each side: every cache warm, node's compiler done
                for h in hs:
                    gen.score(h)
                w.ask(cmd="warm", set=name)
            r: dict[str, list[float]] = {"py": [], "js": [], "py_cpu": [], "js_cpu": []}
            for _ in range(reps):
                wall, cpu = python_round(gen.score, hs)
                r["py"].append(wall)
                r["py_cpu"].append(cpu)
                got = w.ask(cmd="round", set=name, passes=NODE_PASSES)
                r["js"].append(got["hands_per_s"])
                r["js_cpu"].append(got["cpu_hands_per_s"])
            res[name] = r
    finally:
        w.close()
    print("score(request) → result with decomposition and formula (hands/s, median of the rounds;")
    print("by the wall clock, and by each process's own CPU time):")
    for name, r in res.items():
        for clock, py_k, js_k in (("wall", "py", "js"), ("cpu", "py_cpu", "js_cpu")):
            ratios = [j / p for j, p in zip(r[js_k], r[py_k])]
            print(f"  {name:9} {clock:4}  python {statistics.median(r[py_k]):9.0f}   node {statistics.median(r[js_k]):9.0f}"
                  f"   node/python = {statistics.median(ratios):.1f}x (rounds {min(ratios):.1f}x-{max(ratios):.1f}x)")

    # the same hands as bench.py's per-hun run (2 and 4 huns before the 7) leave their tables
    before = {"hun-free": sets["hun-free"], "2 huns": hands(n, 2, 12), "4 huns": hands(n, 4, 14),
              "7 huns": hands(n // 2, 7, 17)}
    runs = [first_sight(node, before) for _ in range(procs)]
    print("\nnode score on the 7-hun hands at first sight (each hand once, after the hun-free, 2- and 4-hun sets,")
    print("each on its own turn of the event loop; garbage collection and node's compiler threads included):")
    for label, k in (("wall", 0), ("cpu", 1)):
        single = runs[0][k]
        least = sorted(min(ts) for ts in zip(*(r[k] for r in runs)))
        worst = max(range(len(single)), key=lambda i: single[i])
        h = before["7 huns"][worst]
        other = "cpu" if k == 0 else "wall"
        print(f"  {label:4} a single process: median {statistics.median(single):.3f} ms, worst {single[worst]:.3f} ms"
              f" ({h['concealed']} +{h['draw']}, indicator {h['indicator']}; its {other} {runs[0][1 - k][worst]:.3f} ms)")
        print(f"  {label:4} each hand's least over {procs} fresh processes: median {statistics.median(least):.3f} ms,"
              f" 99th percentile {least[int(.99 * len(least))]:.3f} ms, worst {least[-1]:.3f} ms")
    print("  (a hand whose wall time is far above its cpu time waited for a core; cpu counts the process's")
    print("  compiler and collector threads too, so a hand that shares its turn with a compilation pays for it)")

if __name__ == "__main__":
    main()
