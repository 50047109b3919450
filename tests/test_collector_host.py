"""Building a scorer settles the collector (runtime.settle_collector) but
leaves a program's own frozen objects frozen: a server that froze its heap
before forking workers (so that the collector never touches, and copies,
those pages) must not find it unfrozen and collected by a library."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = textwrap.dedent("""
    import gc, weakref
    from tjmj_dsl import Scorer
    from tjmj_dsl.engine import runtime

    class Node:
        pass

    def frozen_garbage():
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle: only the collector frees it
        gc.freeze()  # the program's: from now on the collector leaves it alone
        return weakref.ref(a)

    {before}
    ref = frozen_garbage()
    runtime._SETTLED[0] = float("-inf")  # the next build settles: not skipped as too soon after the last
    Scorer().score({{"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}})
    Scorer(options={{"min_fan": 2}})
    gc.collect()
    print("alive" if ref() is not None else "collected")
""")


def _run(before: str) -> str:
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(before=before)], cwd=ROOT, capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_what_the_program_froze_first_stays_frozen() -> None:
    assert _run("") == "alive"


def test_what_the_program_froze_after_a_scorer_was_built_stays_frozen() -> None:
    assert _run("Scorer()") == "alive"
