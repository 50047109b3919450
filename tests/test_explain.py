"""`tjmj explain` searched by the generated scorer: the readings it tells apart are
the reference interpreter's, the interpreter only reads the values shown, and a
hand of many huns is explained without walking the interpreter over its readings."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

from conftest import run
from reqgen import random_request
from tjmj_dsl.analysis import explain as E
from tjmj_dsl.api import Scorer
from tjmj_dsl.backends.interpret import InterpretedRules
from tjmj_dsl.engine import runtime, search
from tjmj_dsl.engine.request import RequestError, parse_request

SEVEN_HUNS = ["explain", "888999m456p5667s +9m", "-i", "8m"]  # 202,263 readings


def _hand(sc: Scorer, req: dict[str, Any]) -> Any:
    rules = sc._rules
    q = parse_request(req, True, rules.flags, rules.copies)
    h = runtime.make_hand(rules, q, q.draw)
    if rules.request_errors(h):
        return None
    return runtime.best_claim(rules, h)[2]


def test_the_distinct_readings_are_the_interpreters(gen: Scorer, interp: Scorer) -> None:
    # every (claim, patterns held) the interpreter finds on some reading is found on one
    # aggregate of the generated scorer's, and nothing else: hands with 0-4 huns, declared melds, flags
    rng = random.Random(20261201)
    checked = 0
    while checked < 100:
        req = random_request(rng, max_huns=4, malformed=0)
        try:
            bh = _hand(interp, req)
        except RequestError:
            continue
        if bh is None:
            continue
        every, walked, complete = E._walk(interp._rules, [bh], E.MAX_READINGS)  # each reading tested
        got, walked2, complete2 = E._walk(gen._rules, [bh], E.MAX_READINGS)  # one test per aggregate
        assert complete and complete2 and walked == walked2 == len(every) >= len(got), req
        assert {(k, held) for k, _, held, _ in got} == {(k, held) for k, _, held, _ in every}, req
        checked += 1


def _verdicts(how: dict[str, Any]) -> Any:
    """What explain says of each pattern, without the values read on the reading shown (two
    searches may list the same reading's groups in another order) or the other reading's text."""
    return {**how, "patterns": [{k: v for k, v in e.items() if k != "values"} | (
        {"other": {k: v for k, v in e["other"].items() if k != "reading"}} if "other" in e else {})
        for e in how["patterns"]]}


def test_explain_answers_alike_either_way_on_hands_without_ties(gen: Scorer, interp: Scorer) -> None:
    # where the best claim has one reading, the interpreter alone and the generated search with the
    # interpreter's values say the same of every pattern
    rng = random.Random(7)
    compared = 0
    for _ in range(800):
        req = random_request(rng, max_huns=3, malformed=0)
        try:
            bh = _hand(gen, req)
        except RequestError:
            continue
        if bh is None:
            continue
        if sum(1 for _ in itertools.islice(search.placed_readings(gen._rules, bh), 301)) > 300:
            continue  # a slow walk for the interpreter
        readings = E._walk(interp._rules, [bh], 300)[0]
        best = max((k for k, _, _, _ in readings), default=None)
        if best is None or sum(1 for k, _, _, _ in readings if k == best) != 1:
            continue  # no shape, or a tie
        slow = E.explain(interp._rules, req)
        fast = E.explain(interp._rules, req, fast=gen._rules)
        assert _verdicts(fast) == _verdicts(slow), req
        compared += 1
    assert compared > 100


def test_the_reference_interpreter_reads_one_reading_only(monkeypatch: Any, gen: Scorer, interp: Scorer) -> None:
    calls = []
    real = InterpretedRules.holds

    def counted(self: Any, *a: Any) -> int:
        calls.append(1)
        return real(self, *a)

    monkeypatch.setattr(InterpretedRules, "holds", counted)
    req = {"concealed": "888999m456p5667s", "draw": "9m", "indicator": "8m"}
    how = E.explain(interp._rules, req, fast=gen._rules)
    assert len(calls) == 1  # the reading shown: not one test per reading of 202,263
    by_id = {e["id"]: e for e in how["patterns"]}
    assert how["fan"] == 6 and by_id["zhuo5"]["status"] == "claimed" and by_id["shuanghun"]["status"] == "claimed"
    assert by_id["su"]["status"] == "not_held" and by_id["su"]["values"] == {"huns": "7"}
    assert by_id["long"]["status"] == "other_reading" and by_id["long"]["other"]["fan"] == 4  # 1s-3s all huns


def test_past_the_limit_a_pattern_seen_nowhere_is_unexamined(gen: Scorer, interp: Scorer) -> None:
    req = {"concealed": "888999m456p5667s", "draw": "9m", "indicator": "8m"}
    how = E.explain(interp._rules, req, fast=gen._rules, limit=10)
    by_id = {e["id"]: e for e in how["patterns"]}
    assert by_id["long"]["status"] == "unexamined" and "first 10 readings" in by_id["long"]["why"]
    assert by_id["zhuo5"]["status"] == "claimed"  # the reading shown is the search's, not the walk's
    assert how["readings"] == {"walked": 10, "complete": False}
    assert all(e["status"] != "other_reading" or "(among the first 10 readings)" in e["why"] for e in how["patterns"])
    slow = E.explain(interp._rules, {"concealed": "123m456m789m123p5p", "draw": "5p", "indicator": "1s"}, limit=0)
    assert all(e["status"] in ("claimed", "dropped", "unexamined") for e in slow["patterns"])


def test_the_command_explains_a_seven_hun_hand() -> None:
    code, out, err = run(SEVEN_HUNS)
    assert code == 0, err
    assert out.startswith("WIN: fan 6, total 6") and "✔ shuanghun" in out and "↷ long" in out
    code, out, _ = run(SEVEN_HUNS + ["--json"])
    got = json.loads(out)
    assert got["fan"] == 6 and got["explain"]["fan"] == 6


def test_rules_the_mask_search_cannot_follow_are_explained_by_their_readings(tmp_path: Any) -> None:
    # a pattern counting groups: the generated scorer enumerates decompositions (no aggregate masks), and
    # explain walks its readings with the generated tests instead (it raised AttributeError)
    path = tmp_path / "counting.yaml"
    path.write_text('extends: builtin:tianjin\nname: counting\npatterns:\n  sanshun:\n    name: sanshun\n'
                    '    kind: mul\n    value: 2\n    when: "count(g in melds: g.is_chow) >= 3"\n'
                    '    description: a test overlay\n    source: tests/test_explain.py\n', encoding="utf-8")
    code, out, err = run(["explain", "123m 456m 789m EE 23p +4p", "-i", "5s", "--rules", str(path), "--json"])
    assert code == 0, err
    how = json.loads(out)["explain"]
    by_id = {e["id"]: e for e in how["patterns"]}
    assert how["fan"] == 16 and by_id["sanshun"]["status"] == "claimed" and by_id["long"]["status"] == "claimed"
    assert by_id["zhuo5"]["status"] == "not_held"


def test_a_free_winning_tile_is_explained_over_every_choice_of_it(gen: Scorer, interp: Scorer) -> None:
    # 地和 frees the winning tile: 6m as t scores best (8), but with 2m as t the hand is 双混吊 (a review's
    # hand); it was `not_held`, the walk having seen the best t's readings only
    req = {"concealed": "22245889m89p456s", "draw": "6m", "indicator": "8m", "dihu": True}
    for fast in (gen._rules, None):
        how = E.explain(interp._rules, req, fast=fast)
        by_id = {e["id"]: e for e in how["patterns"]}
        assert by_id["shuanghun"]["status"] == "other_reading", by_id["shuanghun"]
        assert "2m*" in by_id["shuanghun"]["other"]["reading"]
        assert how["readings"]["complete"] is True


def test_explain_json_is_an_explain_answer() -> None:
    """`tjmj explain --json` answers in the contract's explain shape (explain-result schema:
    `explanation` unless refused, as POST /explain), the walk under `explain`; a refusal too."""
    import os

    import jsonschema
    with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schemas",
                           "explain-result.schema.json"), encoding="utf-8") as f:
        v = jsonschema.Draft202012Validator(json.load(f))
    code, out, _ = run(["explain", "345m 123s EEE 77m 45s +6s", "-i", "7p", "--json"])
    d = json.loads(out)
    assert code == 0 and d["win"] and d["explanation"]["patterns"] and d["explain"]["patterns"]
    v.validate(d)
    code, out, _ = run(["explain", "345m 123s EEE 77m 45s +6s", "-i", "7x", "--json"])
    d = json.loads(out)
    assert code == 1 and d["error"]["field"] == "indicator" and "explanation" not in d
    v.validate(d)


def test_waits_refuses_a_winning_tile_instead_of_dropping_it() -> None:
    """waits lists the tiles that win 13 tiles: a +tile is a mistake said, not dropped (the
    JSON route refuses `draw` too)."""
    code, out, err = run(["waits", "345m 123s EEE 77m 45s +9p", "-i", "7p"])
    assert code == 2 and out == "" and "+9p" in err
    code, out, _ = run(["waits", "345m 123s EEE 77m 45s", "-i", "7p"])
    assert code == 0 and out.split()[0] == "3s"


def test_a_pattern_of_an_equal_reading_is_not_called_less(gen: Scorer, interp: Scorer) -> None:
    # an audit's finding: a pattern claimed by another reading of the same fan, put second by the tie
    # decision (双混吊 is shown, not the equal 混吊 reading), was said to be claimed "for fan 2, less than 2"
    req = {"concealed": "3p4p5p6p6p6p7p1s2s3s9sSS", "draw": "1s", "indicator": "6p"}
    how = E.explain(interp._rules, req, fast=gen._rules)
    by_id = {e["id"]: e for e in how["patterns"]}
    assert by_id["shuanghun"]["status"] == "claimed" and by_id["hundiao"]["status"] == "other_reading"
    assert by_id["hundiao"]["other"]["fan"] == how["fan"] == 2
    assert "less than" not in by_id["hundiao"]["why"] and "the same fan" in by_id["hundiao"]["why"]
    lower = E.explain(interp._rules, {"concealed": "888999m456p5667s", "draw": "9m", "indicator": "8m"}, fast=gen._rules)
    assert "less than 6" in {e["id"]: e for e in lower["patterns"]}["long"]["why"]
