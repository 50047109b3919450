"""Issue 34 item 2: a rule file `tjmj check --strict` accepts plays. Three classes of rule
files that compile and then broke `tjmj simulate` (and settle): a score table whose total
leaves what settle() takes, a settlement whose payments for an outcome the table makes
leave exact integers (or an outcome rule refusing one), a request rule refusing a hand the
table builds. Members of each class are generated from the built-in rules; each must be
refused by check with a positioned `unplayable` warning, or play hands whose settlements
all answer."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tempfile

import pytest
import yaml

from tjmj_dsl import RuleError, Scorer
from tjmj_dsl.analysis.rulecheck import check_file
from tjmj_dsl.diagnostics import Diagnostic
from tjmj_dsl.engine.contract import MAX_EXACT, MAX_TOTAL
from tjmj_dsl.game.simulate import Spec, run
from tjmj_dsl.notation import parse_hand
from tjmj_dsl.schemas import outcome_schema

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = os.path.join(ROOT, "rules", "tianjin.yaml")
MIN_FAN = 2  # the built-in rules' least winning fan
HANDS = 60  # hands each accepted member plays (the engine builds pungs, kongs and 杠开 wins in that many)
PLAYERS = ("random", "value", "random", "value")
# one profile: check searches once, simulate plays what check checked
ONE_PROFILE = {"replace": ["profiles"], "profiles": {"main": {"description": "the one profile", "options": {}}},
               "default_profile": "main"}


def _write(tmp: str, doc: dict, name: str = "member") -> str:
    path = os.path.join(tmp, f"{name}.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(yaml.safe_dump({"extends": BASE, "name": name, **ONE_PROFILE, **doc}, allow_unicode=True,
                               sort_keys=False))
    return path


def _unplayable(path: str) -> list:
    """check's unplayable warnings (a compile error: its diagnostics), each positioned in a file."""
    try:
        report = check_file(path)
    except RuleError as e:
        assert e.diagnostics and all(d.pos is not None and d.pos.line > 0 for d in e.diagnostics)
        return list(e.diagnostics)
    found = [w for w in report.warnings if w.code == "unplayable"]
    for w in found:
        assert w.pos is not None and w.pos.line > 0 and w.pos.file, w
    return found


def _plays_or_is_refused(path: str, seed: int) -> None:
    """The class's promise: check refuses the file at a place, with a witness that shows it, or the
    table plays it and every hand's outcome settles (simulate settles each hand with the scorer's
    settle(), as /settle does)."""
    found = _unplayable(path)
    if found:
        if isinstance(found[0], Diagnostic) and found[0].code == "unplayable":
            _witness_holds(path, found[0].message)
        return
    summaries, _ = run(Spec(path, None, (), PLAYERS, seed, False), HANDS)
    assert len(summaries) == HANDS
    assert all(sum(s["balances"]) == 0 for s in summaries)


def _witness_holds(path: str, message: str) -> None:
    """The hand or outcome a warning names is refused as it says (asked of the scorer anew)."""
    sc = Scorer(path)
    if " refuses the outcome " in message:
        outcome = json.loads(message.split(" refuses the outcome ")[1].split(", which the table can make")[0])
        assert sc.settle(outcome).get("error"), message
        return
    if "a hand read as" in message:  # a reading's values, no concrete hand found: nothing to ask
        return
    m = re.search(r"the hand (.+?) \(indicator (\w+)((?:, [a-z_]+(?: \w+)?)*)(?:\)|:)", message)
    assert m, message
    req = {**parse_hand(m.group(1)), "indicator": m.group(2)}
    for part in filter(None, m.group(3).split(", ")):
        k, _, v = part.partition(" ")
        req[k] = v if v else True
    table = re.search(r"score table (\w+) shows", message)
    if table and table.group(1) != "separate":  # a table the profile does not use: scored where it is in force
        sc = Scorer(path, None, {"score_table": table.group(1)})
    got = sc.score(req)
    if "request rule" in message:
        rid = message.split("request rule ")[1].split(" ")[0]
        assert got["error"]["code"] == rid, (message, got)
    elif "is refused" in message:  # the probes of play's own settings (game/rules.py refused_plays)
        assert got.get("error"), (message, got)
    else:
        assert got["win"] and not MIN_FAN <= got["total"] <= MAX_TOTAL, (message, got)


# ---- the generators: members of each class, from a seeded generator (each template once,
# its constants drawn), so every run tries the same members and a failure names its member ----

TABLES = ["fan - {a}", "{a} - fan", "fan * {b}", "fan / {a}", "fan - {a} * len(declared)", "fan + kong_points - {a}",
          "fan / (huns - {a})", "fan * {b} if kong_draw != none else fan", "fan - huns", "fan * {b} if tianhu else fan",
          "fan + {a}"]
RULES = ["any(g in declared: g.is_pung)", "len(declared) > {n}", 'kong_draw == "concealed"', "huns > {h}",
         "dihu and huns > {n}", "any(g in declared: g.is_kong and g.concealed)", "count(indicator) > 3",
         "tianhu and dihu", "kong_draw != none and len(declared) > {n}",
         "count(5m) == 4", "count(1z) == 2 and huns == 0"]  # tile counts: beyond the search's abstraction
OUTCOME_RULES = [None, "chan", "len(kongs) > {n}", "total > {t}", "zuozhuang", "dealer.lazhuang > 0",
                 'any(k in kongs: k.type == "concealed")']


def _table(i: int) -> str:
    rng = random.Random(f"table {i}")
    return TABLES[i].format(a=rng.randrange(7), b=rng.choice([1, 2, 1000, 10**7, 10**9]))


def _request_rule(i: int) -> str:
    rng = random.Random(f"request rule {i}")
    return RULES[i].format(n=rng.randrange(4), h=rng.randrange(2, 4))


KNOBS = [("play.base_unit", [1, 3, 10**12, 10**14, 10**15]), ("play.lazhuang_max", [0, 2, 6, 40]),
         ("kong_points.concealed", [2, 5, 10**9, 10**13])]


def _settlement(i: int) -> dict:
    """An outcome rule of the list (or none), and one knob of the settlement set to a drawn value."""
    rng = random.Random(f"settlement {i}")
    rule = OUTCOME_RULES[i]
    knob, values = KNOBS[i % len(KNOBS)]
    doc: dict = {"set": {knob: rng.choice(values)}}
    if rule:
        doc["settlement"] = {"outcome_rules": {"house_refusal": {
            "error_when": rule.format(n=rng.randrange(4), t=rng.choice([2, 50, 10**6])), "field": "chan",
            "message": "not at this house"}}}
    return doc


@pytest.mark.parametrize("i", range(len(TABLES)))
def test_a_score_table_check_accepts_gives_totals_settle_takes(i: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _plays_or_is_refused(_write(tmp, {"score_tables": {"separate": _table(i)}}), i)


@pytest.mark.parametrize("i", range(len(OUTCOME_RULES)))
def test_a_settlement_check_accepts_settles_every_outcome_the_table_makes(i: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _plays_or_is_refused(_write(tmp, _settlement(i)), i)


@pytest.mark.parametrize("i", range(len(RULES)))
def test_a_request_rule_check_accepts_refuses_no_hand_the_table_builds(i: int) -> None:
    doc = {"request_rules": {"house_rule": {"error_when": _request_rule(i), "message": "not at this house"}}}
    with tempfile.TemporaryDirectory() as tmp:
        _plays_or_is_refused(_write(tmp, doc), i)


# ---- members of each class, said where they break ----------------------------------------------------

@pytest.mark.parametrize("doc, line_of, says", [
    ({"score_tables": {"separate": "fan - 2"}}, "fan - 2", "score table separate shows 0 for"),
    ({"score_tables": {"separate": "fan / 0"}}, "fan / 0", "score table separate shows 0 for"),
    ({"score_tables": {"separate": "fan * 100000000"}}, "fan * 100000000", "and a win's total is a whole number"),
    ({"request_rules": {"no_pungs": {"error_when": "any(g in declared: g.is_pung)", "message": "no"}}},
     "any(g in declared: g.is_pung)", "request rule no_pungs refuses"),
    ({"set": {"play.base_unit": 10**14}}, None, "payment rule win refuses the outcome"),
    ({"settlement": {"outcome_rules": {"no_chan": {"error_when": "chan", "field": "chan", "message": "no"}}}},
     "error_when: chan", "outcome rule no_chan refuses the outcome"),
    # a value of an option no profile chooses, which `tjmj simulate --option` plays
    ({"options": {"chan_points": {"values": [1, 2, 10**14]}}, "set": {"play.base_unit": 100}}, None,
     "with option chan_points=100000000000000: payment rule chan refuses the outcome"),
])
def test_each_class_is_said_at_its_rule_with_a_hand_or_an_outcome(tmp_path, doc: dict, line_of: str | None,
                                                                  says: str) -> None:
    path = _write(str(tmp_path), doc)
    found = _unplayable(path)
    assert found and says in found[0].message, found
    if line_of is not None:  # at the overlay's own line (the base's payment rule is the place otherwise)
        lines = open(path, encoding="utf-8").read().splitlines()
        assert found[0].pos.file.endswith("member.yaml") and line_of in lines[found[0].pos.line - 1]
    if "request rule" in says:  # the witness is a hand the rule really refuses
        hand = found[0].message.split(" refuses the hand ")[1]
        assert "[" in hand and "+" in hand


def test_the_built_in_rules_and_the_examples_are_playable() -> None:
    for path in [None] + sorted(os.path.join(ROOT, "examples", f) for f in os.listdir(os.path.join(ROOT, "examples"))
                                if f.endswith(".yaml")):  # examples/check-codes/ shows check's warnings: unplayable too
        assert not _unplayable(path), path


def test_simulate_meeting_a_refusal_says_the_rule_and_the_hand_in_one_line(tmp_path) -> None:
    """Without check's warning heeded, simulate stops with one line naming the rule and the hand."""
    path = _write(str(tmp_path), {"request_rules": {"no_pungs": {"error_when": "any(g in declared: g.is_pung)",
                                                                 "message": "no pungs here"}}})
    out = subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", "simulate", "--hands", "200", "--rules", path],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("tjmj: error:") and "rule no_pungs" in last and "indicator" in last and "+" in last


def test_simulate_meeting_a_settlement_refusal_names_the_outcome_and_the_hand(tmp_path) -> None:
    path = _write(str(tmp_path), {"score_tables": {"separate": "fan - 5"}})
    out = subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", "simulate", "--hands", "100", "--rules", path],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert "settlement refused the table's outcome" in last and "winner's hand" in last and "score table separate" in last


# ---- one range for a total, everywhere ------------------------------------------------------------------

def test_settle_takes_totals_from_min_fan_to_max_total_and_the_schema_says_so() -> None:
    sc = Scorer()
    win = {"dealer": 0, "winner": 1}
    assert not sc.settle({**win, "total": MAX_TOTAL}).get("error")
    assert sc.settle({**win, "total": MAX_TOTAL + 1})["error"]["field"] == "total"
    assert sc.settle({**win, "total": 1})["error"]["field"] == "total"  # below min_fan (2)
    schema = json.dumps(outcome_schema())
    assert f'"maximum": {MAX_TOTAL}' in schema
    assert MAX_TOTAL < MAX_EXACT


# ---- a win is what the winning condition says (win_when), not the least fan -----------------------------

def test_a_hand_the_winning_condition_refuses_is_not_a_win_to_check(tmp_path) -> None:
    """win_when fan >= 3: a fan-2 hand does not win, so its total 0 is never settled; the table plays."""
    path = _write(str(tmp_path), {"set": {"win_when": "fan >= 3"}, "score_tables": {"separate": "3 * fan - 6"}})
    assert not _unplayable(path)
    _plays_or_is_refused(path, 5)


def test_a_win_below_min_fan_that_the_winning_condition_allows_is_said(tmp_path) -> None:
    """win_when fan >= 1: a fan-1 hand wins, and its total 1 is below min_fan (2), which settle() refuses."""
    path = _write(str(tmp_path), {"set": {"win_when": "fan >= 1"}, "score_tables": {"separate": "fan"}})
    found = _unplayable(path)
    assert found and "score table separate shows 1 for" in found[0].message, found
    _witness_holds(path, found[0].message)


def test_the_refused_situations_hands_are_made_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """refused_table_hands makes a situation's concrete hands only once the situation passes its
    tests (what the table makes), and stops at the first the scorer refuses: on the built-in
    rules, most situations the search finds never need one. Counted, not timed: a check made
    every situation's every hand first (11,082 for the default profile, a third of its time)."""
    from tjmj_dsl.analysis import plays
    from tjmj_dsl.analysis.witness import analyse
    from tjmj_dsl.backends.examples import Scorers
    from tjmj_dsl.compiler import load_rules, read_rules
    made = [0]
    real = plays._concrete_hands

    def counted(*args, **kw):  # type: ignore[no-untyped-def]
        for req in real(*args, **kw):
            made[0] += 1
            yield req
    monkeypatch.setattr(plays, "_concrete_hands", counted)
    res = read_rules(None)
    rs = load_rules(None)
    module = Scorers(res).get(rs.profile or "")[1]
    an = analyse(rs, rules=module.RULES)
    assert plays.refused_table_hands(rs, an, module) == []  # the built-in rules refuse no hand the table makes
    situations = len(an.search.refused_hands)
    every = sum(1 for (tr, hcl, ds, kd, fs) in an.search.refused_hands for _ in real(rs, tr, hcl, ds, kd, fs))
    swept = made[0]
    assert situations > 100 and every > 10_000, (situations, every)
    assert swept < every / 4, (swept, every)
