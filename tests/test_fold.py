"""The request rules a plain hand (no declared meld, no kong_draw, no flag set) cannot trigger
are left out of the plain path's test: the folding that finds them, and the scorer agreeing with
the full test on every plain hand."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest

from reqgen import random_request
from tjmj_dsl import Scorer
from tjmj_dsl.engine import runtime
from tjmj_dsl.expr.fold import false_for_plain_hands
from tjmj_dsl.expr.parser import parse

FLAGS = frozenset({"tianhu", "dihu", "tianting"})
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("text, false", [
    ("any(g in declared: g.is_pung)", True),
    ("(tianhu or dihu) and (len(declared) > 0 or kong_draw != none)", True),
    ('kong_draw == "exposed" and not any(g in declared: g.is_kong)', True),
    ("tianhu", True),
    ("tianhu and tianting", True),
    ("count(indicator) > 3", False),  # the tiles decide
    ("not tianhu", False),  # true for every plain hand: kept
    ("len(declared) == 0", False),
    ("all(g in declared: g.is_pung)", False),  # all of nothing is true
    ("count(g in declared: g.is_pung) > 0 or huns > 7", False),
    ("count(g in declared: g.is_pung) > 0 and huns > 7", True),
    ("huns > 7 and kong_draw != none", True),
    ("(1 if tianhu else 0) > 0", True),
    ("kong_draw in [\"exposed\"]", True),
    ("kong_draw not in [\"exposed\"]", False),
    ("d(x)", False),  # a definition's call: not looked into
])
def test_what_is_false_for_every_plain_hand(text: str, false: bool) -> None:
    assert false_for_plain_hands(parse(text), FLAGS) is false


def test_the_plain_test_refuses_as_the_full_one_on_every_plain_hand() -> None:
    s = Scorer()
    rules = s._rules
    rng = random.Random(7)
    seen = 0
    for _ in range(3000):
        r = random_request(rng)
        h = runtime._plain_hand(rules, r) if isinstance(r, dict) else None
        if h is None or h.flags or h.kong_draw is not None:
            continue
        seen += 1
        assert rules.request_errors_plain(h) == rules.request_errors(h), r
        assert rules.free_t_plain or not rules.free_t(h), r
    assert seen > 500
    assert rules.free_t_plain is False  # 天和/地和 free the winning tile: each needs its flag
    # four of the indicator: the one built-in rule a plain hand can meet, in both
    r = s.score({"concealed": "7777p123s456s88m9m", "draw": "9m", "indicator": "7p"})
    assert r["error"]["code"] == "indicator_on_wall"


def test_a_winning_tile_freed_for_plain_hands_is_still_freed(tmp_path: Any) -> None:
    """A pattern freeing the winning tile on a hand with no flag: the plain path still asks."""
    path = tmp_path / "free.yaml"
    path.write_text(f"extends: {os.path.join(ROOT, 'rules', 'tianjin.yaml')}\nname: free\nset:\n"
                    "  patterns.tianhu.when: \"not dihu\"\n", encoding="utf-8")
    # won on 东: no 捉5; with any tile free, the 5万 of 456万 is taken as the winning tile (捉5)
    req = {"concealed": "123p456m789s11sEE", "draw": "E", "indicator": "C"}
    fixed = Scorer().score(req)
    assert fixed["win"] and "zhuo5" not in fixed["patterns"] and "tianhu" not in fixed["patterns"]
    for backend in ("generated", "interpreter"):
        got = Scorer(str(path), backend=backend).score(req)
        assert "tianhu" in got["patterns"] and "zhuo5" in got["patterns"] and got["winning_tile"] == "5m", (backend, got)
        assert got["fan"] > fixed["fan"]


def test_a_rule_that_refuses_every_plain_hand_is_kept(tmp_path: Any) -> None:
    path = tmp_path / "strict.yaml"
    path.write_text(f"extends: {os.path.join(ROOT, 'rules', 'tianjin.yaml')}\nname: strict\nset:\n"
                    "  request_rules.tianhu_or_dihu.error_when: \"not tianhu\"\n", encoding="utf-8")
    for backend in ("generated", "interpreter"):
        r = Scorer(str(path), backend=backend).score({"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"})
        assert r["error"]["code"] == "tianhu_or_dihu", backend
