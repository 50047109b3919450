"""Golden tests of the error messages: `tjmj check` on each broken rule file in
tests/golden/ must print exactly the .txt beside it (file:line:col, the line,
a caret, a hint; every error at once; no traceback).
Run with TJMJ_UPDATE_GOLDEN=1 to rewrite the .txt files after a deliberate change."""

from __future__ import annotations

import contextlib
import glob
import io
import os

import pytest

from tjmj_dsl.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*.yaml")))


def run_check(path: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["check", os.path.relpath(path, ROOT)])
    finally:
        os.chdir(cwd)
    return code, out.getvalue() + err.getvalue()


@pytest.mark.parametrize("path", CASES, ids=[os.path.basename(c) for c in CASES])
def test_golden_error_messages(path: str) -> None:
    code, text = run_check(path)
    assert code == 1
    assert "Traceback" not in text
    golden = path[:-5] + ".txt"
    if os.environ.get("TJMJ_UPDATE_GOLDEN"):
        with open(golden, "w", encoding="utf-8") as f:
            f.write(text)
    with open(golden, encoding="utf-8") as f:
        assert text == f.read()


def test_there_are_golden_cases() -> None:
    assert len(CASES) >= 4
