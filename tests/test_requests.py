"""Requests: the JSONL fields, exact; bad ones get an error naming the field;
the rule file's request rules refuse hands that cannot exist."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import req
from tjmj_dsl import Scorer

OK = {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}


def test_good_request(both: Scorer) -> None:
    r = both.score(dict(OK, id="a1"))
    assert r["id"] == "a1" and r["win"] and r["fan"] == 2 and r.get("error") is None


@pytest.mark.parametrize("change, field, words", [
    ({"concealed": "345m123sEEE77m4s"}, "concealed", "12 tiles"),
    ({"concealed": "345m123sEEE77m45x"}, "concealed", "'x' is not a suit"),
    ({"draw": None}, "draw", "missing"),
    ({"draw": "6s7s"}, "draw", "expected one tile"),
    ({"indicator": "0p"}, "indicator", "no tile 0p"),
    ({"kong_draw": "open"}, "kong_draw", "unknown kong_draw"),
    ({"tianhu": "yes"}, "tianhu", "expected true or false"),
    ({"melds": [{"type": "chow", "tile": "5p"}]}, "melds[0].type", "unknown meld type"),
    ({"melds": "5555p"}, "melds", "expected a list"),
    ({"concealed": 345}, "concealed", "expected a string of tiles"),
    ({"concealed": "5555m123sEEE7m45s", "draw": "5m"}, "concealed", "5 tiles of 5m"),
    ({"dra": "6s"}, "dra", "did you mean 'draw'?"),
])
def test_malformed_requests_name_the_field(both: Scorer, change: dict[str, Any], field: str, words: str) -> None:
    data = {k: v for k, v in {**OK, **change}.items() if v is not None}
    r = both.score(dict(data, id=7))
    assert r["id"] == 7 and r["win"] is False and r["reason"] == "invalid_request"
    assert r["error"].startswith(field), r["error"]
    assert words in r["error"]


def test_not_a_mapping(both: Scorer) -> None:
    r = both.score(["345m"])  # type: ignore[arg-type]
    assert r["reason"] == "invalid_request" and "JSON object" in r["error"]


@pytest.mark.parametrize("request_, words", [
    # the indicator stays face up on the wall: at most 3 of its kind (reading §2, §8)
    (req("7p7p7p7p 123s EEE 456s +9m", "7p"), "at most 3"),
    # two huns + a discarded hun may not pong (reading §2)
    (req("345m 123s 77m 45s [888p] +6s", "7p"), "pung of hun tiles"),
    # 天和/地和 are the first draw: no meld before (seed 001: 暗杠, 补杠后胡牌, 不算天胡)
    (req("345m 123s 77m 45s [5555p] +6s", "7p", tianhu=True), "first draw"),
    (req("345m 123s EEE 77m 45s +6s", "7p", tianhu=True, dihu=True), "not both"),
    # 杠开 needs the winner's own kong of that kind among the melds
    (req("345m 123s EEE 77m 45s +6s", "7p", kong_draw="exposed"), "exposed kong"),
    (req("345m 123s 77m 45s [5555p] +6s", "7p", kong_draw="concealed"), "concealed kong"),
    (req("345m 123s 77m 45s (5555p) +6s", "7p", kong_draw="hun"), "金杠"),
    # 天听 is a variant, off by default
    (req("345m 123s EEE 77m 45s +6s", "7p", tianting=True), "天听"),
])
def test_request_rules_refuse_impossible_hands(both: Scorer, request_: dict[str, Any], words: str) -> None:
    r = both.score(request_)
    assert r["reason"] == "invalid_request" and words in r["error"], r


def test_request_rules_allow_the_legal_neighbours(both: Scorer) -> None:
    # three of the indicator's kind are fine; a kong of huns (金杠) is allowed by default
    assert both.score(req("7p7p7p 123s EEE 456s 9m +9m", "7p")).get("error") is None
    assert both.score(req("345m 123s 77m 45s (8888p) +6s", "7p", kong_draw="hun")).get("error") is None
    assert both.score(req("345m 123s 77m 45s [8888p] +6s", "7p", kong_draw="hun")).get("error") is None


def test_waits_request_has_no_draw(both: Scorer) -> None:
    r = both.waits(dict(OK))
    assert isinstance(r, dict) and r["error"].startswith("draw")
    w = both.waits({"concealed": "345m123sEEE77m45s", "indicator": "7p"})
    assert [x["tile"] for x in w] == ["3s", "6s"]


def test_waits_refuses_a_hand_no_draw_can_make_legal(both: Scorer) -> None:
    r = both.waits({"concealed": "345m123s77m45s", "melds": [{"type": "pung", "tile": "8p"}], "indicator": "7p"})
    assert isinstance(r, dict) and "pung of hun tiles" in r["error"]
