"""The scorer's tables stay out of the garbage collector's way.

A full collection walks every entry of every container the collector tracks,
and lands on whichever call is running. The search's tables grow while a
process scores (hundreds of thousands of entries); if the collector tracks
them, each full collection walks them all (it cost ~47 ms after 20,000 7-hun
hands). Here a fresh process builds a Scorer, scores 1,500 distinct 7-hun
hands and counts what young collections leave for the next full one: the
references held by every object still tracked. That count must stay small
and must not grow with the tables. Not a timing: a count of objects.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = textwrap.dedent("""
    import gc, json
    from benchmarks.bench import hands
    from tjmj_dsl import Scorer

    def walked():
        gc.collect(1)  # what the young collections leave for the next full one
        return sum(len(gc.get_referents(o)) for o in gc.get_objects())

    reqs = hands(1500, 7, 5)  # distinct winning hands, 7 huns each
    scorer = Scorer()
    wins = sum(1 for r in reqs[:300] if scorer.score(r)["win"])
    after_300 = walked()
    wins += sum(1 for r in reqs[300:] if scorer.score(r)["win"])
    print(json.dumps({"wins": wins, "after_300": after_300, "after_1500": walked()}))
""")


def test_tables_grown_while_scoring_are_not_walked_by_full_collections() -> None:
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["wins"] > 1000  # the hands are winning hands: the search really ran
    # before the tables were kept out of the collector's way: ~96,000 after 300 hands, ~188,000 after 1,500
    assert got["after_1500"] < 5_000, got
    assert got["after_1500"] - got["after_300"] < 2_000, got
