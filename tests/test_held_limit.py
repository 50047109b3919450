"""A hostile review: a rule file whose patterns all hold on one hand made the scorer try every subset of
them (49 patterns: 2^51 subsets; one `tjmj score` ran for hours and `check` and `compile` never ended).
Past MAX_HELD (16) patterns holding on one reading the scorer refuses the hand (too_many_patterns), and
`check` and `compile` refuse the rule file at the pattern past the limit. Each command runs as a
process with a time limit, so that a return of the old search fails here rather than hangs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from tjmj_dsl import Scorer
from tjmj_dsl.engine.contract import MAX_HELD

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT_S = 300  # seconds a command may take here (the old search: hours)
# 1111m 23m 567p 789s 5s +5s holds 提溜 and 素 of the built-in rules, and every xN below
HAND = {"concealed": "1111m23m567p789s5s", "draw": "5s", "indicator": "9p"}


def many(tmp_path: Any, n: int) -> str:
    """The built-in rules and n patterns more that all hold when four 1m are held."""
    pats = "".join(f"  x{i}:\n    name: X{i}\n    kind: add\n    value: 1\n    when: 'count(1m) == 4'\n"
                   "    description: d\n    source: s\n" for i in range(n))
    path = tmp_path / f"many{n}.yaml"
    path.write_text(f"extends: builtin:tianjin\nname: many\npatterns:\n{pats}", encoding="utf-8")
    return str(path)


def tjmj(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", *args], capture_output=True, text=True,
                          timeout=LIMIT_S, cwd=ROOT)


def test_the_limit_is_sixteen() -> None:
    assert MAX_HELD == 16  # the figure docs/reliability.md and the contract's error text state


def test_a_hand_holding_more_than_the_limit_is_refused_by_every_entry_point(tmp_path: Any) -> None:
    path = many(tmp_path, 49)
    sc = Scorer(path)
    said = "51 patterns hold on one reading of this hand; the scorer weighs at most 16 together"
    res = sc.score({**HAND, "id": 7})
    assert res["reason"] == "invalid_request" and res["id"] == 7 and res["error"]["code"] == "too_many_patterns"
    assert res["error"]["message"].startswith(said) and res["error"]["field"] is None
    full = sc.score({**HAND, "melds": []})  # not the plain path
    assert full["error"] == res["error"]
    c = sc.score_tiles([0, 0, 0, 0, 1, 2, 13, 14, 15, 24, 25, 26, 22], 22, 17)
    assert not c.win and c.reason == "invalid_request" and c.error is not None and c.error.startswith(said)
    w = sc.waits({"concealed": HAND["concealed"], "indicator": "9p"})
    assert w["waits"] == [] and w["error"]["code"] == "too_many_patterns"
    batch = "\n".join(json.dumps(r) for r in (HAND, {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}))
    p = subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", "score", "--jsonl", "--rules", path], input=batch + "\n",
                       capture_output=True, text=True, timeout=LIMIT_S, cwd=ROOT)
    first, second = (json.loads(x) for x in p.stdout.splitlines())
    assert first["error"] == res["error"] and second["win"] is True, p.stderr  # the batch answers every line


def test_a_hand_holding_sixteen_is_scored(tmp_path: Any) -> None:
    # 提溜 and 素 and 14 more: 16 hold, every subset is tried; each xN adds 1 and 素 doubles (提溜, a base, is not
    # shown: the algebra sums add when there is one)
    res = Scorer(many(tmp_path, 14)).score(HAND)
    assert res["win"] is True and res["patterns"] == ["su"] + [f"x{i}" for i in range(14)] and res["fan"] == 14 * 2, res


def test_check_and_compile_refuse_the_rule_file_at_the_pattern_past_the_limit(tmp_path: Any) -> None:
    path = many(tmp_path, 49)
    # the 17th pattern holding: 提溜, 素, x0 … x14; x14's `when` is line 4 + 7 * 14 + 4 of the file
    where = f"{path}:106:11: error: 51 patterns can hold on one reading of a hand (tiliu, su, x0,"
    for args in (["check", path], ["compile", path, "--out", str(tmp_path / "out")]):
        p = tjmj(*args)
        assert p.returncode == 1 and where in p.stderr, (args, p.stderr[-2000:])
        assert "the scorer weighs at most 16 together" in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.py"))


def test_explain_says_it(tmp_path: Any) -> None:
    p = tjmj("explain", "1111m 23m 567p 789s 5s +5s", "-i", "9p", "--rules", many(tmp_path, 49), "--json")
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr[-2000:]
    got = json.loads(p.stdout)
    assert got["error"]["code"] == "too_many_patterns"
    assert got["explain"]["error"].startswith("51 patterns hold on one reading of this hand")


def test_a_table_that_builds_such_a_hand_stops_saying_so(tmp_path: Any) -> None:
    # simulate does not run check: the engine meets the refusal at a win it offers, and stops with it named as
    # the contract's error (not as a request rule of the file)
    p = tjmj("simulate", "--rules", many(tmp_path, 49), "--hands", "2000", "--players", "value,value,value,value")
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert "the scorer refused the table's score request for seat " in p.stderr
    assert ": error too_many_patterns (" in p.stderr and "patterns hold on one reading of this hand" in p.stderr
