"""The value player's play, pinned: 504 decisions (discards, claims, kongs, wins) of four value
players over 12 hands of seed 33, recorded by tools/pin_value_decisions.py. A change meant to make
the player cheaper (issue 33, item 5) must leave every one of them, and so which hands it wins, as
they are; a change of its play on purpose re-pins them and says so."""

from __future__ import annotations

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from pin_value_decisions import HANDS, SEED, decisions  # noqa: E402


def test_value_player_decisions_are_the_pinned_ones() -> None:
    with open(os.path.join(ROOT, "tests", "data", "value_decisions.json"), encoding="utf-8") as f:
        pinned = json.load(f)
    assert pinned["seed"] == SEED and len(pinned["hands"]) == HANDS
    assert sum(len(h["decisions"]) for h in pinned["hands"]) >= 300
    got = decisions()
    for want, have in zip(pinned["hands"], got, strict=True):
        assert have["decisions"] == want["decisions"], f"hand {want['hand']}: the value player decides otherwise"
        assert (have["winner"], have["balances"]) == (want["winner"], want["balances"])
