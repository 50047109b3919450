"""The value player's cost, before and after a change: two source trees (each with its .venv, or
the running Python), measured in turns in one run. Not a test: run it and read the numbers.

- hands per CPU second of `tjmj simulate --players value,value,value,value --hands N --seed 1`
  in each tree (a child process's CPU time, less that of the same command with one hand: the
  start-up), beside the `mahjong` package's estimate_hand_value calls per CPU second on the
  scorer benchmark's hands, measured between the runs (pip install -e .[bench]);
- with --instructions, valgrind's instruction count of a value hand in each tree, as
  bench_game.py --instructions counts it (100 warm-up hands, then hands 1000.., minus the same
  run with none; PYTHONHASHSEED=0).

    python benchmarks/bench_value.py OLD_TREE NEW_TREE [--hands 2000] [--rounds 3] [--instructions]

An old tree is made with `git worktree add` or `git archive REV | tar -x -C DIR`.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))


def python_of(tree: str) -> str:
    venv = os.path.join(tree, ".venv", "bin", "python")
    return venv if os.path.exists(venv) else sys.executable


def child_cpu(tree: str, hands: int) -> float:
    """CPU seconds of one `tjmj simulate` run in `tree`."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([python_of(tree), "-m", "tjmj_dsl.cli", "simulate", "--players", "value,value,value,value",
                    "--hands", str(hands), "--seed", "1"], cwd=tree, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=dict(os.environ, PYTHONHASHSEED="0"))
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def instructions(tree: str, n: int = 40) -> float:
    """Instructions a value hand in `tree` (its bench_game.py's child, under callgrind)."""
    counts = []
    for k in (0, n):
        out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", python_of(tree),
                              os.path.join(tree, "benchmarks", "bench_game.py"), "--child", "value", str(k)],
                             cwd=tree, capture_output=True, text=True, env=dict(os.environ, PYTHONHASHSEED="0"))
        m = re.search(r"Collected : (\d+)", out.stderr)
        if not m:
            raise SystemExit(f"valgrind gave no count: {out.stderr[-300:]}")
        counts.append(int(m.group(1)))
    return (counts[1] - counts[0]) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--instructions", action="store_true")
    args = ap.parse_args()
    trees = {"before": os.path.abspath(args.old), "after": os.path.abspath(args.new)}
    if args.instructions:
        got = {k: instructions(t) for k, t in trees.items()}
        for k, v in got.items():
            print(f"{k}: {v / 1e6:.2f} M instructions a value hand")
        print(f"after/before {got['after'] / got['before']:.3f}")
    from bench import hands, mahjong_peer
    peer = mahjong_peer()
    reqs = hands(2000, 0, 1000)
    if peer is not None:
        peer.prepare(reqs)  # type: ignore[attr-defined]

    def mahjong_rate() -> float:
        assert peer is not None
        t = time.process_time()
        for r in reqs:
            peer(r)
        return len(reqs) / (time.process_time() - t)

    rates: dict[str, list[float]] = {k: [] for k in trees}
    mj: list[float] = []
    for _ in range(args.rounds):
        for k, tree in trees.items():
            if peer is not None:
                mj.append(mahjong_rate())
            start = child_cpu(tree, 1)
            rates[k].append(args.hands / (child_cpu(tree, args.hands + 1) - start))
    if peer is not None:
        mj.append(mahjong_rate())
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    m = statistics.median(mj) if mj else float("nan")
    if mj:
        print(f"mahjong estimate_hand_value: {m:,.0f} calls per CPU second (median of {len(mj)}, {min(mj):,.0f}-{max(mj):,.0f})")
    for k, xs in rates.items():
        v = statistics.median(xs)
        print(f"{k}: {v:,.1f} value hands per CPU second (rounds {', '.join(f'{x:.1f}' for x in xs)})"
              + (f"; {1000 * v / m:.2f} hands per 1000 mahjong calls" if mj else ""))
    print(f"after/before {statistics.median(rates['after']) / statistics.median(rates['before']):.2f}x")


if __name__ == "__main__":
    main()
