"""Requests: the JSONL fields, exact; bad ones get an error naming the field;
the rule file's request rules refuse hands that cannot exist."""

from __future__ import annotations

import hashlib
import os
from typing import Any

import pytest

from conftest import req
from tjmj_dsl import Scorer

OK = {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}


def test_good_request(both: Scorer) -> None:
    r = both.score(dict(OK, id="a1"))
    assert r["id"] == "a1" and r["win"] and r["fan"] == 2 and r.get("error") is None


@pytest.mark.parametrize("change, field, code, position, words", [
    ({"concealed": "345m123sEEE77m4s"}, "concealed", "tile_count", None, "12 tiles"),
    ({"concealed": "345m123sEEE77m45x"}, "concealed", "bad_tile", 16, "'x' is not a suit"),
    ({"concealed": ["3m", "4m", "5x"]}, "concealed[2]", "bad_tile", 1, "'x' is not a suit"),
    ({"concealed": ["3m", "45m"]}, "concealed[1]", "bad_tile", None, "expected one tile, found 2"),
    ({"concealed": ["3m", 4]}, "concealed[1]", "wrong_type", None, "expected one tile as a string, got a number"),
    ({"draw": None}, "draw", "missing_field", None, "missing"),
    ({"draw": "6s7s"}, "draw", "bad_tile", None, "expected one tile"),
    ({"indicator": "0p"}, "indicator", "bad_tile", 0, "no tile 0p"),
    ({"indicator": None}, "indicator", "missing_field", None, "missing"),
    ({"kong_draw": "open"}, "kong_draw", "bad_value", None, "unknown kong_draw"),
    ({"tianhu": "yes"}, "tianhu", "wrong_type", None, "expected true or false"),
    ({"melds": [{"type": "chow", "tile": "5p"}]}, "melds[0].type", "bad_value", None, "unknown meld type"),
    ({"melds": [{"type": "pung"}]}, "melds[0]", "missing_field", None, "expected {"),
    ({"melds": "5555p"}, "melds", "wrong_type", None, "expected a list"),
    ({"concealed": 345}, "concealed", "wrong_type", None, "expected a string of tiles or a list of tiles"),
    ({"concealed": "5555m123sEEE7m45s", "draw": "5m"}, "concealed", "too_many_copies", None, "5 tiles of 5m"),
    ({"dra": "6s"}, "dra", "unknown_field", None, "did you mean 'draw'?"),
    ({"": True}, "", "unknown_field", None, "unknown field ''"),  # a field named "": its name, not null (an audit's)
])
def test_malformed_requests_name_the_field(both: Scorer, change: dict[str, Any], field: str, code: str,
                                           position: int | None, words: str) -> None:
    data = {k: v for k, v in {**OK, **change}.items() if v is not None}
    r = both.score(dict(data, id=7))
    assert r["id"] == 7 and r["win"] is False and r["reason"] == "invalid_request"
    assert (r["fan"], r["total"], r["patterns"], r["names"], r["formula"]) == (0, 0, [], [], "")
    e = r["error"]
    assert (e["code"], e["field"], e.get("position")) == (code, field, position), e
    assert e["message"].startswith(field) and words in e["message"], e


def test_tiles_as_a_list_score_as_the_string(both: Scorer) -> None:
    as_list = dict(OK, concealed=["3m", "4m", "5m", "1s", "2s", "3s", "E", "E", "E", "7m", "7m", "4s", "5s"])
    a, b = both.score(as_list), both.score(OK)
    assert a == b and a["win"] and a["fan"] == 2
    assert both.score(dict(as_list, concealed=["三万", "4m", "5m", "1s", "2s", "3s", "东", "1z", "E", "7m", "7m", "4s",
                                               "5s"])) == b


def test_null_means_absent(both: Scorer) -> None:
    r = both.score(dict(OK, melds=None, kong_draw=None, tianhu=None, id=None, profile=None, options=None))
    assert r == both.score(OK) and r["id"] is None


def test_not_a_mapping(both: Scorer) -> None:
    r = both.score(["345m"])  # type: ignore[arg-type]
    assert r["reason"] == "invalid_request" and r["error"]["code"] == "not_object"
    assert "JSON object" in r["error"]["message"] and r["id"] is None


def test_every_answer_says_what_produced_it(both: Scorer) -> None:
    r = both.score(OK)
    assert r["contract"] == 2
    assert r["rules"]["name"] == "tianjin" and r["rules"]["profile"] == "seed-001" and r["rules"]["options"] == {}
    with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "rules", "tianjin.yaml"),
              "rb") as f:
        assert r["rules"]["sha256"] == hashlib.sha256(f.read()).hexdigest()
    for bad in (dict(OK, concealed="1m"), "not a request"):
        assert both.score(bad)["rules"] == r["rules"]  # type: ignore[arg-type]
    w = both.waits({"concealed": "345m123sEEE77m45s", "indicator": "7p"})
    assert w["contract"] == 2 and w["rules"] == r["rules"]
    r["rules"]["options"]["x"] = 1  # an answer is the caller's to change
    assert both.score(OK)["rules"]["options"] == {}


def test_options_on_top_of_the_profile_are_named() -> None:
    # set on top of the profile and different from it: named; the profile's own value: not
    assert Scorer(options={"min_fan": 1}).score(OK)["rules"]["options"] == {"min_fan": 1}
    assert Scorer(options={"min_fan": 2}).score(OK)["rules"]["options"] == {}
    r = Scorer(profile="seed-000-coins", options={"jin_gang": "8", "score_table": "coins"}).score(OK)
    assert r["rules"]["profile"] == "seed-000-coins" and r["rules"]["options"] == {"jin_gang": "8"}


@pytest.mark.parametrize("request_, words", [
    # the indicator stays face up on the wall: at most 3 of its kind (rulebook §2, decision indicator_on_wall)
    (req("7p7p7p7p 123s EEE 456s +9m", "7p"), "at most 3"),
    # two huns + a discarded hun may not pong (rulebook §2)
    (req("345m 123s 77m 45s [888p] +6s", "7p"), "pung of hun tiles"),
    # 天和/地和 are the first draw: no meld before (seed 001: 暗杠, 补杠后胡牌, 不算天胡)
    (req("345m 123s 77m 45s [5555p] +6s", "7p", tianhu=True), "first draw"),
    (req("345m 123s EEE 77m 45s +6s", "7p", tianhu=True, dihu=True), "not both"),
    # 杠开 needs the winner's own kong of that kind among the melds
    (req("345m 123s EEE 77m 45s +6s", "7p", kong_draw="exposed"), "exposed kong"),
    (req("345m 123s 77m 45s [5555p] +6s", "7p", kong_draw="concealed"), "concealed kong"),
    (req("345m 123s 77m 45s (5555p) +6s", "7p", kong_draw="hun"), "金杠"),
    (req("345m 123s 77m 45s [8888p] +6s", "7p", kong_draw="hun"), "金杠"),  # three huns + a discarded hun: a 明杠
    # 天听 is a variant, off by default
    (req("345m 123s EEE 77m 45s +6s", "7p", tianting=True), "天听"),
])
def test_request_rules_refuse_impossible_hands(both: Scorer, request_: dict[str, Any], words: str) -> None:
    r = both.score(request_)
    assert r["reason"] == "invalid_request" and words in r["error"]["message"], r
    # the code is the id of the rule file's request rule that refuses the hand
    assert r["error"]["field"] is None and r["error"]["code"] in RULE_IDS, r


RULE_IDS = {"indicator_on_wall", "no_hun_pung", "first_draw_no_melds", "tianhu_or_dihu", "exposed_kong_drawn",
            "concealed_kong_drawn", "hun_kong_drawn", "tianting_off", "tianhu_and_tianting",
            "tianting_keeps_the_dealt_tiles"}


def test_tianhu_is_the_dealers_and_tianting_a_non_dealers(both: Scorer) -> None:
    # under 天听 (option tianting=on): 天和 and 天听 together are refused, 地和 and 天听 are a hand (16 = 1×2×4×2)
    on = {"options": {"tianting": "on"}}
    r = both.score({**req("345m 123s EEE 77m 45s +6s", "7p", tianhu=True, tianting=True), **on})
    assert r["reason"] == "invalid_request" and r["error"]["code"] == "tianhu_and_tianting", r
    r = both.score({**req("345m 123s EEE 77m 45s +6s", "7p", dihu=True, tianting=True), **on})
    assert r["win"] and r["fan"] == 16 and r["patterns"] == ["tiliu", "su", "dihu", "tianting"], r


def test_a_tianting_hand_keeps_the_dealt_tiles(both: Scorer) -> None:
    # 天听: declared on the dealt 13, no tile changed after (seed-000 此后不能换张): a pong or a kong's
    # replacement cannot be part of a 天听 hand; the same hand without them is 素提溜 × 天听 = 4
    on = {"options": {"tianting": "on"}}
    for r in (req("345m 77m 45s [111s] [EEE] +6s", "7p", tianting=True),
              req("345m 123s 77m 45s (EEEE) +6s", "7p", tianting=True, kong_draw="concealed")):
        a = both.score({**r, **on})
        assert a["reason"] == "invalid_request" and a["error"]["code"] == "tianting_keeps_the_dealt_tiles", a
    a = both.score({**req("345m 123s EEE 77m 45s +6s", "7p", tianting=True), **on})
    assert a["win"] and a["fan"] == 4 and a["patterns"] == ["tiliu", "su", "tianting"], a


def test_request_rules_allow_the_legal_neighbours(both: Scorer) -> None:
    # three of the indicator's kind are fine; a kong of huns (金杠 concealed, 明杠 exposed) is allowed by default
    assert both.score(req("7p7p7p 123s EEE 456s 9m +9m", "7p")).get("error") is None
    assert both.score(req("345m 123s 77m 45s (8888p) +6s", "7p", kong_draw="hun")).get("error") is None
    assert both.score(req("345m 123s 77m 45s [8888p] +6s", "7p", kong_draw="exposed")).get("error") is None


def test_waits_request_has_no_draw(both: Scorer) -> None:
    r = both.waits(dict(OK, id="w"))
    assert r["id"] == "w" and r["waits"] == [] and r["reason"] == "invalid_request"
    assert r["error"]["code"] == "unexpected_field" and r["error"]["field"] == "draw"
    w = both.waits({"concealed": "345m123sEEE77m45s", "indicator": "7p", "draw": None})
    assert [x["tile"] for x in w["waits"]] == ["3s", "6s"] and "error" not in w
    assert w["waits"][0] == {"tile": "3s", "fan": 2, "total": 2, "patterns": ["tiliu", "su"], "names": ["提溜", "素"],
                             "formula": "1×2 = 2"}


def test_waits_refuses_a_hand_no_draw_can_make_legal(both: Scorer) -> None:
    r = both.waits({"concealed": "345m123s77m45s", "melds": [{"type": "pung", "tile": "8p"}], "indicator": "7p"})
    assert r["waits"] == [] and "pung of hun tiles" in r["error"]["message"] and r["error"]["code"] == "no_hun_pung"


def test_a_python_tuple_is_named_as_such(both: Scorer) -> None:
    # the contract's arrays are lists; a tuple from Python was refused as "got an array", which it asked for
    r = both.score({"concealed": ("3m",) * 13, "draw": "6s", "indicator": "7p"})
    assert r["error"]["code"] == "wrong_type" and r["error"]["field"] == "concealed"
    assert r["error"]["message"].endswith("got a tuple (an array is a list)")
