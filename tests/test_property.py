"""The generated scorer and the reference interpreter agree on random hands
(every field of the result), and results are internally consistent."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readings import same_answer
from tjmj_dsl import Scorer
from tjmj_dsl.engine.hand import hun_kinds_of
from tjmj_dsl.tiles import NAMES, format_tiles

CYCLES = ((27, 28, 29, 30), (31, 32, 33))
SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def requests(draw: Any, min_huns: int = 0, max_huns: int = 3) -> dict[str, Any]:
    """Mostly winning-shaped hands: random melds and pair, some tiles turned
    into hun tiles, some declared melds, sometimes 杠开/天和/地和."""
    indicator = draw(st.integers(0, 33))
    huns = hun_kinds_of(indicator, 2, CYCLES)
    n_declared = draw(st.sampled_from([0, 0, 0, 1, 1, 2]))
    groups: list[list[int]] = []
    for _ in range(4):
        if draw(st.booleans()):
            s = draw(st.sampled_from([0, 9, 18])) + draw(st.integers(0, 6))
            groups.append([s, s + 1, s + 2])
        else:
            groups.append([draw(st.integers(0, 33))] * 3)
    groups.append([draw(st.integers(0, 33))] * 2)
    melds = []
    declared_kinds = []
    for g in groups[:n_declared]:
        if g[0] == g[1] and g[0] not in huns:
            typ = draw(st.sampled_from(["pung", "kong", "concealed_kong"]))
            melds.append({"type": typ, "tile": NAMES[g[0]]})
            declared_kinds.append(typ)
        else:
            k = draw(st.integers(0, 33))
            typ = draw(st.sampled_from(["kong", "concealed_kong"]))
            melds.append({"type": typ, "tile": NAMES[k]})
            declared_kinds.append(("hun" if k in huns else typ))
    tiles = [t for g in groups[len(melds):] for t in g]
    n_h = draw(st.integers(min_huns, max_huns))
    for i in draw(st.lists(st.integers(0, len(tiles) - 1), min_size=n_h, max_size=n_h, unique=True)) if n_h <= len(tiles) else []:
        tiles[i] = draw(st.sampled_from(huns))
    if draw(st.integers(0, 9)) == 0:  # now and then a hand that need not win
        tiles[draw(st.integers(0, len(tiles) - 1))] = draw(st.integers(0, 33))
    t_index = draw(st.integers(0, len(tiles) - 1))
    t = tiles.pop(t_index)
    req: dict[str, Any] = {"id": draw(st.integers(0, 10**6)), "concealed": format_tiles(sorted(tiles)), "melds": melds,
                           "draw": NAMES[t], "indicator": NAMES[indicator]}
    kinds = [k for k in declared_kinds if k != "pung"]
    if kinds and draw(st.booleans()):
        req["kong_draw"] = {"kong": "exposed", "concealed_kong": "concealed", "hun": "hun"}[draw(st.sampled_from(kinds))]
    if not melds and draw(st.integers(0, 5)) == 0:
        req[draw(st.sampled_from(["tianhu", "dihu"]))] = True
    return req


def _agree(gen: Scorer, interp: Scorer, request: dict[str, Any]) -> dict[str, Any]:
    """The same answer from both (tests/readings.py: the decomposition shown may be another true reading)."""
    return same_answer(request, gen.score(request), interp.score(request))


@settings(max_examples=1500, **SETTINGS)
@given(requests(0, 3))
def test_generated_agrees_with_interpreter(gen: Scorer, interp: Scorer, request: dict[str, Any]) -> None:
    r = _agree(gen, interp, request)
    _consistent(r)


@settings(max_examples=50, **SETTINGS)
@given(requests(4, 6))
def test_generated_agrees_with_interpreter_many_huns(gen: Scorer, interp: Scorer, request: dict[str, Any]) -> None:
    _consistent(_agree(gen, interp, request))


@settings(max_examples=6, **SETTINGS)
@given(requests(7, 8))
def test_generated_agrees_with_interpreter_most_huns(gen: Scorer, interp: Scorer, request: dict[str, Any]) -> None:
    _consistent(_agree(gen, interp, request))


@settings(max_examples=40, **SETTINGS)
@given(requests(0, 2))
def test_waits_agree_and_match_score(gen: Scorer, interp: Scorer, request: dict[str, Any]) -> None:
    request = {k: v for k, v in request.items() if k not in ("draw", "tianhu", "dihu")}
    answer = gen.waits(request)
    assert answer == interp.waits(request)
    a = answer["waits"]
    if "error" not in answer:
        for w in a:  # each wait, scored as a draw, is that win
            r = gen.score(dict(request, draw=w["tile"]))
            assert r["win"] and r["fan"] == w["fan"] and r["patterns"] == w["patterns"]
        listed = {w["tile"] for w in a}
        for k in NAMES:  # and no other draw wins (waits skips draws that cannot make a shape)
            if k not in listed:
                assert not interp.score(dict(request, draw=k))["win"], k


def _consistent(r: dict[str, Any]) -> None:
    if r.get("error"):
        assert r["reason"] == "invalid_request" and not r["win"]
        return
    if r["fan"] == 0:
        assert r["reason"] == "no_winning_shape" and not r["win"]
        return
    # the formula's right-hand side is the fan; a win needs the minimum fan (2)
    assert r["formula"].endswith(f"= {r['fan']}")
    assert r["win"] == (r["fan"] >= 2)


# Rule sets that take the mask search's other paths: 对对 reads the AND of the
# melds' masks (all(g in melds: ...)), which differs from reading to reading;
# a pattern under `not` makes the rules non-monotone (no dominance pruning, no
# bounded join, every aggregate scored). Test overlays, not Tianjin rules.
OVERLAY = """\
extends: {base}
name: {name}
patterns:
  {pid}:
    name: {pid}
    kind: mul
    value: 2
    when: "{when}"
    description: A test overlay, not a Tianjin rule.
    source: tests/test_property.py (test overlay)
"""
OVERLAYS = (("all_pungs_demo", "duidui", "all(g in melds: g.is_pung or g.is_kong)"),
            ("not_monotone_demo", "wuchi", "not any(g in melds: g.is_chow)"))


@pytest.fixture(scope="module")
def other_rules(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Scorer, Scorer]]:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = []
    for name, pid, when in OVERLAYS:
        path = tmp_path_factory.mktemp("rules") / f"{name}.yaml"
        path.write_text(OVERLAY.format(base=os.path.join(root, "rules", "tianjin.yaml"), name=name, pid=pid, when=when),
                        encoding="utf-8")
        out.append((Scorer(str(path)), Scorer(str(path), backend="interpreter")))
    return out


def test_other_rule_shapes_take_the_paths_they_should(other_rules: list[tuple[Scorer, Scorer]]) -> None:
    (all_pungs, _), (not_monotone, _) = other_rules
    assert all_pungs._rules.reads_and and all_pungs._rules.monotone
    assert not not_monotone._rules.monotone


@settings(max_examples=100, **SETTINGS)
@given(requests(0, 3))
def test_other_rule_shapes_agree_with_interpreter(other_rules: list[tuple[Scorer, Scorer]], request: dict[str, Any]) -> None:
    for gen, interp in other_rules:
        _agree(gen, interp, request)
