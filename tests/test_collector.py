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
    import gc, json, sys
    from benchmarks.bench import hands
    from tjmj_dsl import Scorer

    def walked():
        gc.collect(1)  # what the young collections leave for the next full one
        return sum(len(gc.get_referents(o)) for o in gc.get_objects())

    n, huns, first = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    reqs = hands(n, huns, 5)  # distinct winning hands
    scorer = Scorer()
    wins = sum(1 for r in reqs[:first] if scorer.score(r)["win"])
    after_first = walked()
    wins += sum(1 for r in reqs[first:] if scorer.score(r)["win"])
    print(json.dumps({"wins": wins, "after_first": after_first, "after_all": walked()}))
""")


def walked(n: int, huns: int, first: int) -> dict[str, int]:
    """SCRIPT's counts in a fresh process: n distinct winning hands with `huns` hun tiles."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(n), str(huns), str(first)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_tables_grown_while_scoring_are_not_walked_by_full_collections() -> None:
    got = walked(1500, 7, 300)
    got["after_300"], got["after_1500"] = got.pop("after_first"), got.pop("after_all")
    assert got["wins"] > 1000  # the hands are winning hands: the search really ran
    # before the tables were kept out of the collector's way: ~96,000 after 300 hands, ~188,000 after 1,500
    assert got["after_1500"] < 5_000, got
    assert got["after_1500"] - got["after_300"] < 2_000, got


def test_hun_free_tables_are_not_walked_by_full_collections() -> None:
    """The hands without huns have their own index (the parts' entries, built
    on a miss): the same count after 3,000 of them. Before their tables were
    built with the collector paused, it was ~4,200 after 3,000 hands and grew
    by ~2,000 over the last 2,500. The decomposition rows answers share are
    walked: a bounded set (a hand without huns has at most 220 distinct
    concealed groups, 84 chows, 68 pungs and 68 pairs by where the winning
    tile sits, ~4,400 references in all), most met in the first 500 hands."""
    got = walked(3000, 0, 500)
    assert got["wins"] > 2500  # winning hands: the search really ran
    assert got["after_all"] < 7_000, got  # ~2,300 before the rows were shared
    assert got["after_all"] - got["after_first"] < 1_000, got


GAME_SCRIPT = textwrap.dedent("""
    import gc, json, sys
    from tjmj_dsl.game.simulate import Spec, _rules, hand_summary

    def walked():
        gc.collect(1)  # what the young collections leave for the next full one
        return sum(len(gc.get_referents(o)) for o in gc.get_objects())

    spec = Spec(None, None, (), ("value",) * 4, 1, False)
    rules = _rules(spec)
    for h in range(5):
        hand_summary(rules, spec, h)
    gc.collect()
    gc.disable()
    for h in range(100, 120):
        hand_summary(rules, spec, h)
    cycles = gc.collect()  # what 20 hands left that only a collection frees
    gc.enable()
    for h in range(200, 500):
        hand_summary(rules, spec, h)
    print(json.dumps({"cycles": cycles, "after_325": walked()}))
""")


def test_played_hands_leave_no_cycles_and_their_tables_are_not_walked() -> None:
    """A hand of four value players: its table, views and the scorer's builders go as soon as the hand
    is over (before: ~670 objects a hand in cycles, the scorer's closures and the table's views, each
    freed only by a collection), and the shape's tables the value player fills are out of the full
    collections' way (before: ~160,000 references walked after 325 hands, growing with the hands)."""
    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONHASHSEED="0")
    out = subprocess.run([sys.executable, "-c", GAME_SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["cycles"] == 0, got
    assert got["after_325"] < 20_000, got  # ~4,700 now
