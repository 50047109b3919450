"""How long `tjmj compile` takes, and where the time goes (a script, not a test).

Each round runs, in fresh processes taking turns:
  reference  import tjmj and compile rules/tianjin.yaml's default profile to its IR
             (load_rules): the unit the others are measured in
  check      `tjmj compile --check` against the committed generated/ (the combination
             table read from its cache, every witness re-scored)
  cold       `tjmj compile --out EMPTY_DIR` (no cache: the witness search runs)
and reports each one's CPU time (user + system of the child) and its ratio to the
reference of the same round; the median of the rounds. --phases then times the parts
of one in-process `compile --check` (wall clock, single run).

    python benchmarks/bench_compile.py [--rounds 3] [--phases]
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable


def cpu_of(args: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def rounds(n: int) -> None:
    rows: dict[str, list[float]] = collections.defaultdict(list)
    for i in range(n):
        with tempfile.TemporaryDirectory() as tmp:
            ref = cpu_of([PY, "-c", "from tjmj_dsl.compiler import load_rules; load_rules()"])
            check = cpu_of([PY, "-m", "tjmj_dsl.cli", "compile", "--check"])
            cold = cpu_of([PY, "-m", "tjmj_dsl.cli", "compile", "--out", os.path.join(tmp, "gen")])
        rows["reference"].append(ref)
        rows["check"].append(check)
        rows["cold"].append(cold)
        rows["check/reference"].append(check / ref)
        rows["cold/reference"].append(cold / ref)
        print(f"round {i + 1}: reference {ref:.2f} s, compile --check {check:.2f} s ({check / ref:.1f}x), "
              f"cold compile {cold:.2f} s ({cold / ref:.1f}x)  [CPU seconds]")
    print("median: " + ", ".join(f"{k} {statistics.median(v):.2f}{'x' if '/' in k else ' s'}" for k, v in rows.items()))


def phases() -> None:
    acc: collections.Counter[str] = collections.Counter()
    calls: collections.Counter[str] = collections.Counter()

    def wrap(mod: Any, name: str, label: str) -> None:
        f: Callable[..., Any] = getattr(mod, name)

        def timed(*a: Any, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                acc[label] += time.perf_counter() - t
                calls[label] += 1
        setattr(mod, name, timed)

    t0 = time.perf_counter()
    from tjmj_dsl.backends import combinations, docs, examples, outputs
    from tjmj_dsl.backends.book import combos
    acc["import"] = time.perf_counter() - t0
    wrap(examples, "lower", "scorers: lower (with schema validation)")
    wrap(examples, "generate_scorer", "scorers: generate")
    wrap(examples, "load_generated", "scorers: load")
    wrap(outputs, "read_rules", "read the rule file")
    wrap(outputs, "rows_of", "read the known values")
    wrap(docs, "run_examples", "rulebook: run the examples (scorers built on the way)")
    wrap(docs, "build", "rulebook: build the document")
    wrap(outputs.combinations, "verdicts", "combinations: cache read and checked")
    wrap(combinations, "check", "combinations: witnesses re-scored")
    wrap(outputs.combos, "section", "combinations: the chapter")
    del combos
    t = time.perf_counter()
    outputs.write_outputs(None, os.path.join(ROOT, "generated"), check=True)
    total = time.perf_counter() - t
    print(f"\none in-process compile --check: {total:.2f} s wall (+ import {acc['import']:.2f} s); parts, overlapping:")
    for k, v in acc.most_common():
        if k != "import":
            print(f"  {v:6.2f} s  {calls[k]:4d} call(s)  {k}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--phases", action="store_true")
    a = ap.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpu(s), load average {os.getloadavg()[0]:.1f}")
    rounds(a.rounds)
    if a.phases:
        phases()


if __name__ == "__main__":
    main()
