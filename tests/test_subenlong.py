"""素本龙 (option subenlong): a 本混龙 holding exactly one tile of each hun kind, each
standing for its own face (seed 000: 素本龙 / 素本伍龙, twice 本混龙). The values
below are worked out by hand from that sentence and the algebra ((add) × mul):
本混龙 is 4 × 2, 素本龙 doubles it, 捉5 adds 3 before the doubling.

The hands tell apart readings that differ only in which hun tile stands for
which face: the winning tile's slot is the one hun slot whose tile is known."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tjmj_dsl import Scorer
from tjmj_dsl.tiles import NAMES, format_tiles

from conftest import req

ON = {"subenlong": "on"}


@pytest.fixture(scope="module")
def gen() -> Scorer:
    return Scorer(options=ON)


@pytest.fixture(scope="module")
def interp() -> Scorer:
    return Scorer(options=ON, backend="interpreter")


@pytest.mark.parametrize("hand, indicator, fan, patterns", [
    # the winning 6m hun may stand for 5m (捉5) only if the 5m hun stands for 6m: not 素本龙 (14);
    # each hun as itself is 本混龙 + 素本龙 without 捉5 (16): the better reading
    ("123m 4m 5m 789m EEE 2p2p +6m", "5m", 16, ["long", "benhun", "subenlong"]),
    # the winning 5m hun stands for itself in 4-5-6: 素本伍龙, (3 + 4) × 2 × 2
    ("123m 4m 6m 789m EEE 2p2p +5m", "5m", 28, ["zhuo5", "long", "benhun", "subenlong"]),
    ("123m 4m 6m 789m EEE 2p2p +5m", "4m", 28, ["zhuo5", "long", "benhun", "subenlong"]),
    # two 5m and no 6m: not one tile of each hun kind
    ("123m 4m 5m 5m 789m EEE 2p +2p", "5m", 8, ["long", "benhun"]),
    # one of each, as themselves, a natural winning tile
    ("123m 4m 5m 6m 789m EEE 2p +2p", "5m", 16, ["long", "benhun", "subenlong"]),
    # the 1m and 9m huns (indicator 9m) as themselves: the hun kinds wrap 9 → 1
    ("123m 456m 78m 9m EEE 2p +2p", "9m", 16, ["long", "benhun", "subenlong"]),
    # no hun at all: 龙 and 素, no 本混 (the 龙 is not in the hun suit)
    ("123p 456p 789p EEE 2s +2s", "5m", 8, ["long", "su"]),
])
def test_subenlong_hands(gen: Scorer, interp: Scorer, hand: str, indicator: str, fan: int, patterns: list[str]) -> None:
    for s in (gen, interp):
        r = s.score(req(hand, indicator))
        assert (r["fan"], r["patterns"]) == (fan, patterns), (s.backend, r["formula"], r["decomposition"])
        if "subenlong" in r["patterns"]:
            _huns_as_themselves(r)


def _huns_as_themselves(r: dict[str, Any]) -> None:
    """A reading claiming 素本龙 shows every hun tile standing for its own face."""
    for g in r["decomposition"]:
        for face, tile, hun in zip(g["faces"], g["tiles"], g["huns"]):
            if hun:
                assert face == tile, r["decomposition"]


def test_the_generated_scorer_does_not_remember_counts_from_an_earlier_hand() -> None:
    """The claim of an aggregate is cached per hand-level key; a test that counts tiles
    (count(k) for each hun kind) must put the counts in that key. Two hands with the same
    readings but other counts, scored in both orders by fresh scorers."""
    a = req("123m 4m5m6m 789m EEE 2p +2p", "5m")  # one 5m, one 6m: 素本龙
    b = req("123m 4m5m5m 789m EEE 2p +2p", "5m")  # two 5m standing for 5m and 6m: not
    for first, second in ((a, b), (b, a)):
        s = Scorer(options=ON)
        s.score(first)
        assert s.score(second)["fan"] == (16 if second is a else 8)


@st.composite
def dragon_hands(draw: Any) -> dict[str, Any]:
    """A 龙 in the hun suit, a free meld and pair, 1-3 of its tiles turned into hun tiles."""
    suit = draw(st.sampled_from([0, 9, 18]))
    indicator = suit + draw(st.integers(0, 8))
    huns = [indicator, suit + (indicator - suit + 1) % 9]
    groups = [[suit + r, suit + r + 1, suit + r + 2] for r in (0, 3, 6)]
    other = draw(st.integers(0, 33))
    groups.append([other] * 3)
    pair = draw(st.integers(0, 33))
    groups.append([pair] * 2)
    tiles = [t for g in groups for t in g]
    for i in draw(st.lists(st.integers(0, 8), min_size=1, max_size=3, unique=True)):
        tiles[i] = draw(st.sampled_from(huns))
    t = tiles.pop(draw(st.integers(0, len(tiles) - 1)))
    if max(tiles.count(k) + (t == k) for k in set(tiles)) > 4 or tiles.count(indicator) + (t == indicator) > 3:
        tiles = [suit + (k - suit + 2) % 9 if k == indicator else k for k in tiles]
    return {"concealed": format_tiles(sorted(tiles)), "draw": NAMES[t], "indicator": NAMES[indicator]}


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(dragon_hands())
def test_subenlong_generated_agrees_with_interpreter(gen: Scorer, interp: Scorer, request: dict[str, Any]) -> None:
    a, b = gen.score(request), interp.score(request)
    a.pop("decomposition", None)
    db = b.pop("decomposition", None)
    assert a == b, request
    if "subenlong" in b["patterns"]:
        _huns_as_themselves({**b, "decomposition": db})
