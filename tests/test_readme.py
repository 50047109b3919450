"""The README's examples are run: every ```console command must print what the
README shows, every ```python block must run (its asserts hold), and the
vocabulary table must be the one the code has."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tjmj_dsl.backends.docs import vocabulary_markdown

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from docs_text import docs_text

README = docs_text()  # the README and the site's pages: the examples are run wherever they live


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, re.S)


def _console_cases() -> list[tuple[str, str]]:
    cases = []
    for block in _blocks("console"):
        cmd, out = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if cmd is not None:
                    cases.append((cmd, "\n".join(out)))
                cmd, out = line[2:], []
            else:
                out.append(line)
        if cmd is not None:
            cases.append((cmd, "\n".join(out)))
    return cases


# `curl` examples need a running `tjmj serve`: tests/test_serve.py runs them against one
CONSOLE = [c for c in _console_cases() if not c[0].startswith("curl ")]
SERVED = [c for c in _console_cases() if c[0].startswith("curl ")]


@pytest.mark.parametrize("cmd, expected", CONSOLE, ids=[c[0][:60] for c in CONSOLE])
def test_readme_console_example(cmd: str, expected: str) -> None:
    env = dict(os.environ)
    # `tjmj` is the installed console script; run the same entry point from this checkout
    shim = os.path.join(ROOT, ".pytest_cache", "bin")
    os.makedirs(shim, exist_ok=True)
    # written aside and renamed into place: a test running beside this one (pytest -n) may be running the shim
    part = os.path.join(shim, f"tjmj.{os.getpid()}")
    with open(part, "w") as f:
        f.write(f'#!/bin/sh\nexec "{sys.executable}" -m tjmj_dsl.cli "$@"\n')
    os.chmod(part, 0o755)
    os.replace(part, os.path.join(shim, "tjmj"))
    env["PATH"] = shim + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = ROOT
    res = subprocess.run(["bash", "-c", cmd], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert (res.stdout + res.stderr).rstrip("\n") == expected.rstrip("\n")


@pytest.mark.parametrize("block", _blocks("python"))
def test_readme_python_example(block: str) -> None:
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})  # noqa: S102
    finally:
        os.chdir(cwd)


def test_readme_vocabulary_is_current() -> None:
    start = README.index("<!-- vocabulary:start -->\n") + len("<!-- vocabulary:start -->\n")
    end = README.index("<!-- vocabulary:end -->")
    assert README[start:end] == vocabulary_markdown()


def test_readme_has_the_two_commands_and_ci_runs_the_test_one() -> None:
    cmds = _blocks("sh")
    assert len(cmds) >= 2 and "tjmj compile" in cmds[0] and "pytest" in cmds[1]
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci = f.read()
    assert cmds[1].strip() in ci
    assert "tjmj compile --check" in ci


RECIPES = [b for b in _blocks("yaml") if b.startswith("# examples/")]


def test_readme_has_the_four_recipes() -> None:
    assert {b.split()[1] for b in RECIPES} >= {"examples/house.yaml", "examples/duidui.yaml",
                                               "examples/menqing_bonus.yaml", "examples/long_option.yaml"}


@pytest.mark.parametrize("block", RECIPES, ids=[b.split()[1] for b in RECIPES])
def test_readme_recipe_is_its_file_and_passes_strict_check(block: str) -> None:
    """The recipe as printed is the file in examples/, and `tjmj check --strict` passes it
    (its scored example is a console block above, run by test_readme_console_example)."""
    from conftest import run
    path = block.split()[1]
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        assert f.read() == block
    code, out, err = run(["check", "--strict", os.path.join(ROOT, path)])
    assert code == 0, out + err
