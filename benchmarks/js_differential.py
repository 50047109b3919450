"""The long differential campaign of the JavaScript target: many more random
request lines than the suite's test (tests/test_js.py sends 10,000 requests and
1,000 waits hands), through the generated scorer.py and scorer.mjs of every
profile, every answer compared as JSON text. Not a test: run it before a
release, or after touching tjmj_dsl/engine_js/ or the JavaScript emitter.

    pip install -e ".[test]" && python benchmarks/js_differential.py [--requests 100000] [--waits 10000] [--seed 1]

Prints how many lines of each kind were compared and the first difference;
exit status 1 when any answer differs."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(1, os.path.join(ROOT, "tests"))  # tests/test_js.py imports its neighbours as pytest lets it

from tests.jsdiff import request_lines, waits_lines  # noqa: E402
from tests.test_js import NODE, OPTIONS, PROFILES, assert_same, node_answers, python_answers  # noqa: E402

CHUNK = 20_000  # lines per pair of processes


def compare(directory: str, lines: list[bytes]) -> list[str]:
    """The Python answers, after asserting node's are the same text."""
    out: list[str] = []
    for i in range(0, len(lines), CHUNK):
        part = lines[i:i + CHUNK]
        data = b"\n".join(part) + b"\n"
        py = python_answers(os.path.join(directory, "scorer.py"), data)
        assert_same(py, node_answers(os.path.join(directory, "scorer.mjs"), data), part)
        out += py
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=100_000, help="random request lines for the default profile")
    ap.add_argument("--waits", type=int, default=10_000, help="waits hands")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if NODE is None:
        sys.exit("node is not installed (Debian package `nodejs`)")
    t = time.time()
    failed = False
    runs = [(name, PROFILES[name], request_lines(a.seed + i, a.requests if name == "seed-001" else a.requests // 10,
                                                 list(PROFILES), OPTIONS)) for i, name in enumerate(sorted(PROFILES))]
    runs.append(("seed-001 waits", PROFILES["seed-001"], waits_lines(a.seed + 100, a.waits)))
    for name, directory, lines in runs:
        try:
            answers = [json.loads(x) for x in compare(directory, lines)]
        except AssertionError as e:
            print(f"{name}: {len(lines)} lines: DIFFERENT: {str(e)[:2000]}")
            failed = True
            continue
        kinds = {"win": sum(1 for r in answers if r.get("win")),
                 "refused": sum(1 for r in answers if r.get("reason") == "invalid_request"),
                 "no shape": sum(1 for r in answers if r.get("reason") == "no_winning_shape"),
                 "below min fan": sum(1 for r in answers if r.get("reason") == "below_min_fan"),
                 "waits answers": sum(1 for r in answers if "waits" in r)}
        print(f"{name}: {len(lines)} lines, the same answers ({', '.join(f'{k} {v}' for k, v in kinds.items())})")
    print(f"{time.time() - t:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
