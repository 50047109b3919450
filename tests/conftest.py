"""Shared fixtures: scorers over the built-in rules, and a request builder."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from typing import Any

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tjmj_dsl import Scorer  # noqa: E402
from tjmj_dsl.cli import main  # noqa: E402
from tjmj_dsl.notation import parse_hand  # noqa: E402


def req(hand: str, indicator: str, **kw: Any) -> dict[str, Any]:
    """A request from the human notation: req("345m 123s EEE 77m 45s +6s", "7p")."""
    return {**parse_hand(hand), "indicator": indicator, **kw}


def run(args: list[str], stdin: str = "") -> tuple[int, str, str]:
    """Run the `tjmj` command in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    old_in = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(args)
            except SystemExit as e:
                code = int(e.code or 0)
    finally:
        sys.stdin = old_in
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="session")
def gen() -> Scorer:
    return Scorer()


@pytest.fixture(scope="session")
def interp() -> Scorer:
    return Scorer(backend="interpreter")


@pytest.fixture(scope="session", params=["generated", "interpreter"])
def both(request: pytest.FixtureRequest, gen: Scorer, interp: Scorer) -> Scorer:
    return gen if request.param == "generated" else interp
