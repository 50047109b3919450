"""The worked examples of docs/design/check-codes.md, written from examples/check-codes/ and from
what `tjmj check` really prints for each (run in-process, the repository's path taken out of it).

    python tools/check_codes_page.py          # rewrite the page's part between the two markers
    python tools/check_codes_page.py --check  # exit 1 when the page is not what the files print

tests/test_check_codes_examples.py runs the same checks and fails when the page is stale."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # this repository's tjmj_dsl, not another installed one
PAGE = os.path.join(ROOT, "docs", "design", "check-codes.md")
DIR = "examples/check-codes"
BEGIN = "<!-- check-codes examples: written by tools/check_codes_page.py from examples/check-codes/; do not edit -->"
END = "<!-- end of check-codes examples -->"


@dataclass(frozen=True)
class Case:
    code: str
    subject: str  # what the warning names (its silence: subject, or the row / entry it is about)
    files: tuple[str, ...]  # the overlay (and a file it names), under examples/check-codes/; () for the built-in rules
    answer: tuple[str, ...] = ()  # the form that passes `tjmj check --strict`
    how: str = ""  # what the answer does, one sentence
    also: tuple[str, ...] = ()  # the other codes the overlay cannot help printing (said in its comment)


CASES = (
    Case("never-claimed", "tiantinghundiao", ("never-claimed.yaml",), ("never-claimed.silenced.yaml",),
         "The pattern is meant for a club that turns 天听 on: the warning is answered with that reason."),
    Case("unproven", "sanyao", ("unproven.yaml",), ("unproven.fixed.yaml",),
         "Fixed rather than silenced: an example hand that claims the pattern proves it can be claimed "
         "(the search scores the rule file's examples), and answers no-example too.", ("no-example",)),
    Case("no-fan-change", "duidui", ("no-fan-change.yaml",), ("no-fan-change.silenced.yaml",),
         "The club wants 对对胡 to count only beside another `add`: the warning is answered with that reason. "
         "Otherwise give it a `mul` value, or a kind of its own in `pattern_kinds:`, as the hint says."),
    Case("option-no-change", "jin_gang=4", ("option-no-change.yaml",), ("option-no-change.silenced.yaml",),
         "Answered with the reason; the profile's change to the base's examples (example-inherited), and the "
         "option value it cannot take (刮大风's three hun kinds: option-broken), are answered beside it.",
         ("example-inherited", "option-broken")),
    Case("option-broken", "score_table=double", ("option-broken.yaml",), ("option-broken.silenced.yaml",),
         "Answered while the table is written; the real fix is `score_tables: {double: \"fan * 2\"}` and a result "
         "under `double` in the option's example.", ("no-example",)),
    Case("bets-constant", "lazhuang_most", ("bets-constant.yaml",), ("bets-constant.fixed.yaml",),
         "Fixed rather than silenced: the limit reads the game so far (the pulls each seat made), as option "
         "lazhuang_game=capped writes it; the overlay's own limit leaving that option's examples out "
         "(example-inherited), and making its other values impossible to choose (option-broken), are answered "
         "beside it.", ("example-inherited", "option-broken")),
    Case("play-value-unmatched", "exposed_kong_payer=discarer", ("play-value-unmatched.yaml",),
         ("play-value-unmatched.fixed.yaml",),
         "Fixed rather than silenced: the value spelt as the settlement compares it. The house option's lack of an "
         "example of its own (no-example) is answered beside it.", ("no-example",)),
    Case("no-example", "duidui", ("no-example.yaml",), ("no-example.silenced.yaml",),
         "One entry answers both warnings (one code, one subject); examples/duidui.yaml shows the better fix: "
         "an example and a near miss."),
    Case("example-inherited", "examples", ("example-inherited.yaml",), ("example-inherited.silenced.yaml",),
         "Expected of a variant that changes values: answered, saying what changed."),
    Case("unplayable", "game", ("unplayable.yaml",), ("unplayable.silenced.yaml",),
         "Answered for a scorer-only rule file; `tjmj simulate` still refuses these rules."),
    Case("disagree", "club-card:1:素捉5", ("disagree.yaml", "disagree.known.yaml"),
         ("disagree.fixed.yaml", "disagree.fixed.known.yaml"),
         "Not silenceable: the row is marked with an `erratum:` (the value the rules give, and why the print is "
         "wrong), and becomes an expected note."),
    Case("silence-unused", "never-claimed.zhuo5", ("silence-unused.yaml",), (),
         "Not silenceable: remove the entry (or correct its code and subject to the ones `tjmj check` prints)."),
    Case("erratum", "", (), (),
         "A note, not a warning: `--strict` passes. The built-in rules' known values mark six rows of the seeds' "
         "printed tables; disagree.fixed.yaml above marks one of its own."),
)


def run_check(files: tuple[str, ...], strict: bool = False) -> tuple[int, str]:
    """`tjmj check [--strict] FILE` in this process: (exit code, what it prints, stdout then stderr), the
    repository's own path taken out (a path prints as from the repository's root)."""
    from tjmj_dsl.cli import main
    args = ["check"] + (["--strict"] if strict else []) + ([os.path.join(ROOT, DIR, files[0])] if files else [])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as e:
            code = int(e.code or 0)
    text = out.getvalue() + err.getvalue()
    return code, text.replace(ROOT + os.sep, "").replace(os.sep, "/")


def command(files: tuple[str, ...], strict: bool = False) -> str:
    return "tjmj check" + (" --strict" if strict else "") + (f" {DIR}/{files[0]}" if files else "")


def _files(files: tuple[str, ...]) -> list[str]:
    out = []
    for f in files:
        with open(os.path.join(ROOT, DIR, f), encoding="utf-8") as fh:
            text = fh.read()
        out += [f"[{DIR}/{f}](../../{DIR}/{f}):", "", "```yaml", text.rstrip("\n"), "```", ""]
    return out


def section(case: Case, printed: str, answered: str | None) -> str:
    """The page's part for one code, from the files and what check printed for them."""
    out = [f"### {case.code}", ""]
    if case.files:
        out += _files(case.files)
    else:
        out += ["The built-in rules (rules/tianjin.yaml and its known values, rules/tianjin.known.yaml):", ""]
    out += [f"`{command(case.files)}` prints:", "", "```text", printed.rstrip("\n"), "```", ""]
    if case.answer:
        out += [case.how, ""] + _files(case.answer)
        out += [f"`{command(case.answer, True)}` prints:", "", "```text", (answered or "").rstrip("\n"), "```", ""]
    else:
        out += [case.how, ""]
    return "\n".join(out)


def case_section(case: Case) -> str:
    """Run check on the case's files (and --strict on its answer) and write its part of the page."""
    return section(case, run_check(case.files)[1], run_check(case.answer, True)[1] if case.answer else None)


def generated(sections: list[str]) -> str:
    return "\n".join([BEGIN, "", *sections, END])


def page_with(sections: list[str]) -> str:
    with open(PAGE, encoding="utf-8") as f:
        text = f.read()
    head, sep, rest = text.partition(BEGIN)
    if not sep:
        raise SystemExit(f"{PAGE}: no line {BEGIN!r} to write after")
    _, sep, tail = rest.partition(END)
    if not sep:
        raise SystemExit(f"{PAGE}: no line {END!r} after {BEGIN!r}")
    return head + generated(sections) + tail


def main(argv: list[str]) -> int:
    sections = [case_section(c) for c in CASES]
    text = page_with(sections)
    with open(PAGE, encoding="utf-8") as f:
        old = f.read()
    if "--check" in argv:
        if text != old:
            print(f"{os.path.relpath(PAGE, ROOT)} is stale: run python tools/check_codes_page.py", file=sys.stderr)
            return 1
        print(f"{os.path.relpath(PAGE, ROOT)} is up to date")
        return 0
    if text != old:
        with open(PAGE, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        print(f"wrote {os.path.relpath(PAGE, ROOT)}")
    else:
        print("nothing changed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
