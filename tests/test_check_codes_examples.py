"""Every code of `tjmj check` has a worked example (docs/design/check-codes.md, from examples/check-codes/):
the overlay makes `tjmj check` print that code (and subject), and no other code but the ones its comment
names; its answer (a `silence:` entry, or the fix) passes `--strict`; and the page shows what check prints
for both today (tools/check_codes_page.py writes it: the page cannot go stale)."""

from __future__ import annotations

import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from check_codes_page import BEGIN, CASES, DIR, END, PAGE, Case, run_check, section  # noqa: E402


def _page() -> str:
    with open(PAGE, encoding="utf-8") as f:
        return f.read()


def _codes(printed: str) -> list[str]:
    """The code of every warning check printed (its last line says it)."""
    return re.findall(r"^code: ([a-z-]+)", printed, re.M)


@pytest.mark.parametrize("case", CASES, ids=[c.code for c in CASES])
def test_the_example_prints_its_code_its_answer_passes_strict_and_the_page_shows_both(case: Case) -> None:
    code, printed = run_check(case.files)
    assert code == 0, printed
    if case.code == "erratum":  # a note of the known values, not a warning: one line each, said to be expected
        notes = [line for line in printed.splitlines() if " note: " in line]
        assert notes and all(line.endswith("(a known erratum of the printed table: expected)") for line in notes)
        assert _codes(printed) == [] and run_check(case.files, strict=True)[0] == 0
    else:
        codes = _codes(printed)
        assert case.code in codes and set(codes) <= {case.code, *case.also}, printed
        assert set(case.also) <= set(codes), printed  # the comment's companions are there, as it says
        assert "warning(s))" in printed.splitlines()[-1]
        if case.code in ("disagree", "silence-unused"):  # no subject to silence: the fix is named instead
            assert f"code: {case.code} (not silenceable: fix it as the hint says)" in printed
            assert case.subject in printed
        else:
            line = f"code: {case.code}, subject: {case.subject}; to accept it on purpose, add to the rule file: " \
                   f"silence: {{{case.code}: {{{case.subject}: \"why\"}}}}"
            assert line in printed, printed
    answered = None
    if case.answer:
        code, answered = run_check(case.answer, strict=True)
        assert code == 0 and _codes(answered) == [] and answered.splitlines()[-1].endswith(")"), answered
        if case.code == "disagree":  # marked: now an expected note (code erratum)
            assert "(a known erratum of the printed table: expected)" in answered
        elif not case.answer[0].endswith(".fixed.yaml"):  # silenced (not fixed): listed as a note with its reason
            assert f"note: silenced {case.code} {case.subject}: " in answered, answered
    # the page shows these very files and outputs (else: python tools/check_codes_page.py)
    assert section(case, printed, answered) in _page(), f"{PAGE} is stale for {case.code}: run python tools/check_codes_page.py"


def test_every_code_of_the_page_has_its_example_and_every_example_file_is_shown() -> None:
    page = _page()
    table = re.findall(r"^\| `([a-z-]+)` \|", page, re.M)
    assert table and [c.code for c in CASES] == table  # one example per code, in the tables' order
    part = page.split(BEGIN, 1)[1].split(END, 1)[0]
    assert re.findall(r"^### (\S+)$", part, re.M) == table  # no section of a code that has gone
    used = {f for c in CASES for f in c.files + c.answer}
    assert sorted(used) == sorted(os.listdir(os.path.join(ROOT, DIR)))
    for f in used:
        with open(os.path.join(ROOT, DIR, f), encoding="utf-8") as fh:
            head = fh.readline()
        assert head.startswith("# "), f"{f}: starts with a comment saying what it shows"
