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
from tjmj_dsl.engine import runtime, settle  # noqa: E402
from tjmj_dsl.notation import parse_hand  # noqa: E402
from tjmj_dsl.schemas import schemas  # noqa: E402

_VALIDATORS: dict[str, Any] = {}


def check_answer(answer: Any, kind: str | None = None) -> Any:
    """Hold an answer to its JSON Schema (score-result or waits-result; by its
    shape unless `kind` says): every answer the suite sees goes through here."""
    import jsonschema
    if not _VALIDATORS:
        for name, s in schemas().items():
            _VALIDATORS[name] = jsonschema.Draft202012Validator(s)
    if kind is None:
        kind = "score-result"
        if isinstance(answer, dict) and "waits" in answer:
            kind = "waits-result"
        elif isinstance(answer, dict) and "balances" in answer:
            kind = "settle-result"
        elif isinstance(answer, dict) and "explanation" in answer:
            kind = "explain-result"
    errors = sorted(_VALIDATORS[kind].iter_errors(answer), key=lambda e: list(e.absolute_path))
    assert not errors, f"{kind} breaks its schema: {errors[0].message} at {list(errors[0].absolute_path)}: {answer}"
    return answer


@pytest.fixture(scope="session", autouse=True)
def answers_follow_the_schemas() -> Any:
    """Every score/waits/settle answer the suite produces (Scorer, CLI,
    interpreter) is validated against schemas/ as it is made."""
    score, waits, settle_in = runtime.score_request, runtime.waits_request, settle.settle_in
    runtime.score_request = lambda rules, data: check_answer(score(rules, data), "score-result")  # type: ignore[assignment]
    runtime.waits_request = lambda rules, data: check_answer(waits(rules, data), "waits-result")  # type: ignore[assignment]
    settle.settle_in = lambda rules, data: check_answer(settle_in(rules, data), "settle-result")  # type: ignore[assignment]
    yield
    runtime.score_request, runtime.waits_request, settle.settle_in = score, waits, settle_in


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
    # JSON answers (--json, --jsonl) follow the contract; lines end at "\n" (--json prints an answer as json.dumps
    # writes it, which may hold a U+2028; --jsonl writes it as an escape)
    for line in out.getvalue().split("\n"):
        if args and args[0] in ("score", "waits", "explain") and line.startswith("{"):
            check_answer(__import__("json").loads(line))
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


@pytest.fixture(scope="session")
def gen_module() -> Any:
    """The committed generated scorer of the default profile, as a module."""
    from generated.tianjin import scorer
    return scorer
