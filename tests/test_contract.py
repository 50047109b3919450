"""The JSON contract: the committed schemas are the ones contract.py gives,
their examples are what the scorer answers, the README's tables and JSON are
current and valid, and the schemas agree with the request parser."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings

from conftest import check_answer
from tests.test_readme import CONSOLE, SERVED
from tests.test_property import SETTINGS, requests
from tjmj_dsl import Scorer, load_rules
from tjmj_dsl.service import Service
from tjmj_dsl.schemas import contract_examples, contract_markdown, example_requests, render, schemas

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERIC = schemas()
BUILTIN = schemas(load_rules())
EXAMPLES = contract_examples()
EXAMPLE_REQUESTS = example_requests()
from docs_text import docs_text

README = docs_text()  # the README and the site's pages


def valid(schema: dict[str, Any], x: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(x)


@pytest.mark.parametrize("name", sorted(GENERIC))
def test_committed_schemas_are_current(name: str) -> None:
    with open(os.path.join(ROOT, "schemas", f"{name}.schema.json"), encoding="utf-8") as f:
        assert f.read() == render(GENERIC[name]), "run: python tools/make_schemas.py"


@pytest.mark.parametrize("name", sorted(GENERIC))
def test_schemas_are_2020_12_and_their_examples_hold(name: str) -> None:
    for s in (GENERIC[name], BUILTIN[name]):
        assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        jsonschema.Draft202012Validator.check_schema(s)
        assert s["examples"]
        for ex in s["examples"]:
            assert valid(s, ex), ex


def test_every_example_carries_the_placeholder_sha256() -> None:
    """No example carries the sha256 of some past text of the rules (the bot's asks did): each
    rules object in any schema's examples has the examples' one placeholder."""
    from tjmj_dsl.schemas import examples_rules
    placeholder = examples_rules()["sha256"]
    seen = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            if isinstance(x.get("rules"), dict) and "sha256" in x["rules"]:
                seen.append(x["rules"]["sha256"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    for name in sorted(GENERIC):
        walk(GENERIC[name]["examples"])
    assert len(seen) > 10 and set(seen) == {placeholder}, set(seen)


@pytest.mark.parametrize("name", ["score-result", "waits-result", "explain-result", "settle-result"])
def test_result_examples_are_what_the_scorer_answers(name: str) -> None:
    sc = Scorer()
    answer = {"score-result": sc.score, "waits-result": sc.waits, "settle-result": sc.settle,
              "explain-result": Service().answerer("explain")}[name]
    for request, example in zip(EXAMPLE_REQUESTS[name], EXAMPLES[name], strict=True):
        got = check_answer(answer(request), name)
        assert re.fullmatch("[0-9a-f]{64}", got["rules"]["sha256"])
        got["rules"]["sha256"] = example["rules"]["sha256"]  # the example's is a placeholder
        if "explanation" in example:  # the example shows two of the patterns
            shown = example["explanation"]["patterns"]
            assert all(p in got["explanation"]["patterns"] for p in shown)
            assert len(got["explanation"]["patterns"]) > len(shown)
            got["explanation"]["patterns"] = shown
        assert got == example


def test_the_examples_show_every_kind_of_answer() -> None:
    """The examples file is data anyone may edit: whatever it holds, a client reading the schemas
    sees a win, a hand below the minimum, a refused tile with its position, a refusal by a request
    rule of the rules in force, waits and a refused waits request, payments and a refused outcome."""
    rules = load_rules()
    score = EXAMPLES["score-result"]
    assert any(r["win"] for r in score)
    assert any(r.get("reason") == "below_min_fan" for r in score)
    assert any(r.get("error", {}).get("position") is not None for r in score)
    assert any(r.get("error", {}).get("code") in {q.id for q in rules.request_rules} for r in score)
    assert any(r["waits"] for r in EXAMPLES["waits-result"]) and any("error" in r for r in EXAMPLES["waits-result"])
    settled = EXAMPLES["settle-result"]
    assert any(r["payments"] for r in settled) and any("error" in r for r in settled)
    assert all(r["rules"]["name"] == rules.name for k in EXAMPLE_REQUESTS for r in EXAMPLES[k])


def test_played_records_follow_the_record_schema() -> None:
    from tjmj_dsl.game.players import make_player
    from tjmj_dsl.game.rules import game_rules
    from tjmj_dsl.game.session import play, record
    rules = game_rules(Scorer())
    v = jsonschema.Draft202012Validator(GENERIC["record"])
    won = 0
    for hand in range(6):
        names = ["value", "random", "value", "random"]
        rec = record(rules, 11, hand, play(rules, 11, hand, [make_player(n) for n in names]), names)
        v.validate(rec)
        if rec["result"]["score"] is not None:
            won += 1
            broken = json.loads(json.dumps(rec))
            del broken["result"]["score"]["result"]["contract"]  # the answer inside is held to score-result
            assert not v.is_valid(broken)
    assert won


def test_outcome_examples_are_settled() -> None:
    for outcome in EXAMPLES["settle-outcome"]:
        answer = check_answer(Scorer().settle(outcome))
        assert "error" not in answer and answer["id"] == outcome["id"], answer


@pytest.mark.parametrize("name", ["score-request", "waits-request"])
def test_request_examples_are_answered(name: str) -> None:
    one = Service().answerer("score" if name == "score-request" else "waits")
    for request in EXAMPLES[name]:
        answer = check_answer(one(request))
        assert "error" not in answer and answer["id"] == request["id"], answer


def test_readme_contract_tables_are_current() -> None:
    start = README.index("<!-- contract:start -->\n") + len("<!-- contract:start -->\n")
    assert README[start:README.index("<!-- contract:end -->")] == contract_markdown(load_rules())


def _readme_json() -> list[Any]:
    """Every JSON object the README shows: ```json blocks, and the lines of
    console blocks that are JSON answers."""
    out = []
    for block in re.findall(r"```json\n(.*?)```", README, re.S):
        out.append(json.loads(block))
    for cmd, shown in CONSOLE + SERVED:
        if "| cut" in cmd:
            continue
        for line in shown.splitlines():
            if line.startswith("{"):  # a JSON answer (curl -w may print the status after it)
                out.append(json.JSONDecoder().raw_decode(line.replace('"…"', '"' + "0" * 64 + '"'))[0])
    return out


def test_every_json_answer_in_the_readme_follows_its_schema() -> None:
    shown = _readme_json()
    assert len(shown) >= 3
    bot = {}
    for name in ("bot-ask", "bot-reply"):  # the bot protocol's messages, shown on the bots page
        with open(os.path.join(ROOT, "schemas", f"{name}.schema.json"), encoding="utf-8") as f:
            bot[name] = json.load(f)
    for x in shown:
        if "contract" in x:
            check_answer(x)
        elif "protocol" in x or set(x) == {"choice"}:
            assert valid(bot["bot-ask"], x) or valid(bot["bot-reply"], x), x
        else:
            assert valid(GENERIC["score-request"], x) or valid(GENERIC["waits-request"], x), x


@settings(max_examples=300, **SETTINGS)
@given(requests(0, 4))
def test_requests_the_parser_takes_are_valid_by_the_schema(request: dict[str, Any]) -> None:
    assert valid(BUILTIN["score-request"], request) and valid(GENERIC["score-request"], request)
    w = {k: v for k, v in request.items() if k != "draw"}
    assert valid(BUILTIN["waits-request"], w) and valid(GENERIC["waits-request"], w)


OK = {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}


@pytest.mark.parametrize("change", [
    {"concealed": 345}, {"concealed": ["3m", 4]}, {"concealed": None}, {"indicator": None}, {"draw": 6},
    {"melds": "5555p"}, {"melds": [{"type": "chow", "tile": "5p"}]}, {"melds": [{"type": "pung"}]},
    {"kong_draw": "open"}, {"tianhu": "yes"}, {"options": [1]}, {"profile": 1},
])
def test_requests_the_schema_refuses_the_parser_refuses(change: dict[str, Any]) -> None:
    bad = {k: v for k, v in {**OK, **change}.items() if v is not None or k not in ("concealed", "indicator")}
    assert not valid(GENERIC["score-request"], bad) and not valid(BUILTIN["score-request"], bad)
    answer = Service().answerer("score")(bad)
    assert answer["reason"] == "invalid_request", answer


def test_the_builtin_schemas_know_the_rules() -> None:
    s = BUILTIN["score-request"]
    assert not valid(s, dict(OK, tianhuu=True)) and valid(GENERIC["score-request"], dict(OK, tianhuu=True))
    assert valid(s, dict(OK, options={"min_fan": 1, "tianting": "on"})) and not valid(s, dict(OK, options={"x": 1}))
    assert not valid(s, dict(OK, profile="seed-002"))
    r = Scorer().score(dict(OK, concealed="7p7p7p7p123sEEE456s", draw="9m"))
    assert r["error"]["code"] == "indicator_on_wall" and valid(BUILTIN["score-result"], r)
    assert not valid(BUILTIN["score-result"], dict(r, patterns=["nope"]))
