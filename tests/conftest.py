"""Shared fixtures: scorers over the built-in rules, and a request builder."""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tjmj_dsl import Scorer  # noqa: E402
from tjmj_dsl.notation import parse_hand  # noqa: E402


def req(hand: str, indicator: str, **kw: Any) -> dict[str, Any]:
    """A request from the human notation: req("345m 123s EEE 77m 45s +6s", "7p")."""
    return {**parse_hand(hand), "indicator": indicator, **kw}


@pytest.fixture(scope="session")
def gen() -> Scorer:
    return Scorer()


@pytest.fixture(scope="session")
def interp() -> Scorer:
    return Scorer(backend="interpreter")


@pytest.fixture(scope="session", params=["generated", "interpreter"])
def both(request: pytest.FixtureRequest, gen: Scorer, interp: Scorer) -> Scorer:
    return gen if request.param == "generated" else interp
