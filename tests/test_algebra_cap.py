"""A cap on the fan (封顶), written in the algebra as a house writes it: `min([..., 16])` or `16 if x > 16 else x`.
A designer's review found that the first type-checked and then died with a traceback in every command (the
formula's render plan had no list), and that the second scored right but showed no pattern at all (a branch's
patterns were not counted as used when the condition read them). The answers are worked out by hand: the hand
of docs/use/cli.md, 捉5 龙 双混吊 本混, is (3+4)×2×2 = 28 uncapped."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from conftest import run
from tjmj_dsl import Scorer

BASE = "(sum(add) if len(add) > 0 else sum(base)) * product(mul) * product(wait)"
BIG = {"concealed": "123456789m1m2mEE", "draw": "5m", "indicator": "1m"}  # 28 uncapped
SMALL = {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}  # 提溜 素: 1×2 = 2
CAPS = {"min_list": f"min([{BASE}, 16])", "if_else": f"16 if {BASE} > 16 else {BASE}"}


def _overlay(tmp_path: Any, algebra: str) -> str:
    path = tmp_path / "cap.yaml"
    path.write_text(f'extends: builtin:tianjin\nname: cap\nalgebra: "{algebra}"\n', encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("form", sorted(CAPS))
def test_a_capped_fan_keeps_its_patterns_and_says_the_cap(tmp_path: Any, form: str) -> None:
    sc = Scorer(_overlay(tmp_path, CAPS[form]))
    big = sc.score(BIG)
    assert (big["win"], big["fan"], big["total"]) == (True, 16, 16)
    assert big["patterns"] == ["zhuo5", "long", "shuanghun", "benhun"]  # the patterns that reached the cap
    small = sc.score(SMALL)
    assert (small["fan"], small["patterns"]) == (2, ["tiliu", "su"])
    if form == "min_list":
        assert big["formula"] == "min((3+4)×2×2, 16) = 16"
        assert small["formula"] == "min(1×2, 16) = 2"
    else:  # the branch taken is shown; its condition's patterns are listed
        assert big["formula"] == "16 = 16" and small["formula"] == "1×2 = 2"
    # the uncapped rules as they were
    plain = Scorer().score(BIG)
    assert (plain["fan"], plain["formula"]) == (28, "(3+4)×2×2 = 28")


@pytest.mark.parametrize("form", sorted(CAPS))
def test_a_capped_fan_answers_alike_in_python_and_javascript(tmp_path: Any, form: str) -> None:
    from test_js import NODE, run_both
    from tests.jsdiff import request_lines
    if NODE is None:
        pytest.skip("node is not installed (Debian package nodejs)")
    out = tmp_path / "out"
    code, _, err = run(["compile", _overlay(tmp_path, CAPS[form]), "--out", str(out)])
    assert code == 0, err
    lines = [json.dumps(r).encode() for r in (BIG, SMALL)] + request_lines(7, 400, [], {})
    answers = [json.loads(a) for a in run_both(os.path.join(str(out), "cap"), lines)]
    assert answers[0]["fan"] == 16 and answers[0]["patterns"] == ["zhuo5", "long", "shuanghun", "benhun"]
    assert sum(1 for a in answers if a.get("fan") == 16 and a.get("win")) >= 1


def test_an_algebra_the_formula_cannot_show_is_an_error_at_the_algebra(tmp_path: Any) -> None:
    code, out, err = run(["check", _overlay(tmp_path, "sum(add) + count(x in add: x > 1)")])
    text = out + err
    assert code == 1 and "Traceback" not in text
    assert "cap.yaml:3:10: error: algebra: the algebra cannot use Quant here" in text, text
    assert "min([..., 16])" in text  # the hint names what it can take
