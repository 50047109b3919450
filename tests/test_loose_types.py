"""Class 3 of issue 13: no silently wrong answer from loose types. One rule
for option values everywhere (Scorer options, --option, JSONL options,
profiles, defaults): a value names a declared value as itself or as its text;
a float or a boolean never stands for an integer or a choice; null means
absent. Integers in the rule file are integers: 3.0 is refused, never
replaced by a default."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
import yaml

from conftest import run
from tjmj_dsl import RuleError, Scorer
from tjmj_dsl.compiler import load_rules
from tjmj_dsl.engine.request import option_value

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = os.path.join(ROOT, "rules", "tianjin.yaml")
BARE = {"concealed": "345m123sEEE456s9m", "draw": "7p", "indicator": "7p"}  # a bare 提溜: fan 1
PLAIN = {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}


def _overlay(tmp: str, sets: dict[str, Any]) -> str:
    path = os.path.join(tmp, "o.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(yaml.safe_dump({"extends": BASE, "set": sets}))
    return path


@pytest.mark.parametrize("path, value", [
    ("options.hun_kinds.default", 3.0), ("patterns.long.value", 4.0), ("options.min_fan.default", 1.0),
    ("kong_points.exposed", 1.0), ("patterns.hundiao.value", True), ("options.first_draw_multiplier.values", [4, 5.0]),
    ("options.tianting.default", False), ("options.min_fan.default", "1.0"),
])
def test_a_rule_file_number_that_is_not_an_integer_is_refused(tmp_path: str, path: str, value: Any) -> None:
    with pytest.raises(RuleError) as e:
        load_rules(_overlay(str(tmp_path), {path: value}))
    text = e.value.render()
    assert "o.yaml:" in text, text


@pytest.mark.parametrize("value, declared, named", [
    (1, (1, 2, 3), 1), ("1", (1, 2, 3), 1), ("4", ("forbidden", "4", "8"), "4"), (4, ("forbidden", "4", "8"), "4"),
    ("on", ("off", "on"), "on"), (True, (True, False), True), ("true", (True, False), True),
])
def test_option_value_names_a_declared_value(value: Any, declared: tuple[Any, ...], named: Any) -> None:
    got = option_value(value, declared)
    assert got == named and type(got) is type(named)


@pytest.mark.parametrize("value, declared, why", [
    (1.0, (1, 2, 3), "decimal"), (True, (1, 2, 3), "boolean"), (True, ("off", "on"), "boolean"),
    (1, (True, False), "not one of"), ("01", (1, 2, 3), "not one of"), ("ON", ("off", "on"), "not one of"),
    (4.0, ("forbidden", "4", "8"), "decimal"), ([1], (1, 2), "list"), ({}, (1, 2), "dict"),
])
def test_option_value_refuses_loose_values(value: Any, declared: tuple[Any, ...], why: str) -> None:
    with pytest.raises(ValueError) as e:
        option_value(value, declared)
    assert why in str(e.value)


def test_the_api_the_command_line_and_jsonl_take_options_alike() -> None:
    for opts in ({"min_fan": 1}, {"min_fan": "1"}):
        assert Scorer(options=opts).score(BARE)["win"]
    for opts in ({"min_fan": 1.0}, {"min_fan": True}, {"tianting": True}, {"jin_gang": 4.5}):
        with pytest.raises(RuleError):
            Scorer(options=opts)
    hand = ["score", "345m 123s EEE 456s 9m +7p", "-i", "7p", "--json"]
    assert json.loads(run(hand + ["--option", "min_fan=1"])[1])["win"]
    code, _, err = run(hand + ["--option", "min_fan=1.0"])
    assert code == 1 and "option 'min_fan'" in err
    lines = [dict(BARE, id=i, options=o) for i, o in enumerate([{"min_fan": 1}, {"min_fan": "1"}, {"min_fan": 1.0},
                                                                 {"min_fan": True}, {"min_fan": None}, None])]
    _, out, _ = run(["score", "--jsonl"], "\n".join(json.dumps(x) for x in lines))
    res = [json.loads(x) for x in out.splitlines()]
    assert [r["win"] for r in res] == [True, True, False, False, False, False]
    assert "decimal" in res[2]["error"]["message"] and "boolean" in res[3]["error"]["message"]
    assert "error" not in res[4] and res[4]["reason"] == "below_min_fan"  # null: the default (2)


def test_null_means_absent_in_jsonl() -> None:
    lines = [dict(PLAIN, id=1, kong_draw=None, profile=None),
             dict(PLAIN, id=2, options={"min_fan": None})]
    _, out, _ = run(["score", "--jsonl", "--profile", "seed-000-coins", "--option", "min_fan=3"],
                    "\n".join(json.dumps(x) for x in lines))
    a, b = [json.loads(x) for x in out.splitlines()]
    # profile null keeps --profile (coins), options null keeps --option (min_fan 3: fan 2 does not win)
    assert (a["win"], a["reason"]) == (False, "below_min_fan") and (b["win"], b["reason"]) == (False, "below_min_fan")
    _, out, _ = run(["score", "--jsonl", "--profile", "seed-000-coins"], json.dumps(dict(PLAIN, profile=None)))
    assert json.loads(out)["win"]
    # null is "absent" for an option there is; a name there is not is refused, null or not
    _, out, _ = run(["score", "--jsonl", "--option", "min_fan=3"],
                    "\n".join(json.dumps(dict(PLAIN, id=i, options=o)) for i, o in
                              enumerate([{"min_fan": None}, {"min_fn": None}, {"min_fan": None, "nope": None}])))
    res = [json.loads(x) for x in out.splitlines()]
    assert res[0]["reason"] == "below_min_fan"  # --option's 3 kept
    assert [(r["error"]["code"], r["error"]["field"]) for r in res[1:]] == [("unknown_option", "options.min_fn"),
                                                                          ("unknown_option", "options.nope")]
    assert "min_fan" in res[1]["error"]["message"]  # did you mean


def test_the_generated_scorer_reads_request_options_by_the_same_rule(gen_module: Any) -> None:
    s = gen_module.score
    assert s(dict(PLAIN, options={"min_fan": "2", "jin_gang": 4}, profile=None))["win"]
    assert "decimal" in s(dict(PLAIN, options={"min_fan": 2.0}))["error"]["message"]
    assert "boolean" in s(dict(PLAIN, options={"tianting": False}))["error"]["message"]
    assert "compiled with min_fan=2" in s(dict(PLAIN, options={"min_fan": 1}))["error"]["message"]
    assert s(dict(PLAIN, options={"min_fan": None}))["win"]
    assert s(dict(PLAIN, options={"min_fn": None}))["error"]["field"] == "options.min_fn"


def test_one_scorer_per_canonical_option_set_and_bounded_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    from tjmj_dsl import api
    from tjmj_dsl.passes import resolve
    calls = {"n": 0}
    real = resolve.canonical_options

    def counting(*a: Any, **k: Any) -> Any:
        calls["n"] += 1
        return real(*a, **k)
    monkeypatch.setattr(resolve, "canonical_options", counting)
    sc = api.Scorers(None)
    a = sc.get(None, {"min_fan": 1})
    assert sc.get(None, {"min_fan": "1"}) is a and len(sc.cache) == 1
    for _ in range(50):  # one bad option on every line: checked once, then remembered
        with pytest.raises(RuleError):
            sc.get(None, {"min_fan": 1.5})
    assert calls["n"] == 3
    for i in range(300):
        with pytest.raises(RuleError):
            sc.get(None, {"nope": i})
    assert len(sc.failed) <= api.MAX_FAILED
    with pytest.raises(RuleError):  # a long bad profile name is remembered by its hash, not kept whole
        sc.get("p" * 100_000, None)
    assert max(len(repr(k)) for k in sc.failed) < 200
    from tjmj_dsl.api import Scorer as S
    monkeypatch.setattr(S, "_of", classmethod(lambda cls, *a: object()))  # the cache, not the compiler, is tested here
    for m in (1, 2, 3):
        for k in (1, 2, 3):
            for t in ("separate", "fan_with_kong", "coins"):
                for j in ("4", "8"):
                    sc.get(None, {"min_fan": m, "hun_kinds": k, "score_table": t, "jin_gang": j})
    assert len(sc.cache) == api.MAX_SCORERS
