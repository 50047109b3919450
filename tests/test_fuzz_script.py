"""benchmarks/fuzz.py, the long fuzzing and differential run behind
docs/reliability.md, still runs: a few seconds of every part of it. (A
refactor once left it calling surfaces it no longer defined, and nothing
failed until the next long run.)"""

from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_every_part_of_the_long_run_runs_briefly() -> None:
    out = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "fuzz.py"), "--seconds", "1",
                          "--surfaces", "hand,jsonl,rules,overlay", "--differential", "40", "--stream", "3000",
                          "--valid-sets", "3", "--bad-sets", "200"],
                         cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    table = out.stdout
    for surface in ("hand", "jsonl", "rules", "overlay"):
        row = next(line for line in table.splitlines() if line.startswith(f"| {surface} |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert int(cells[1].replace(",", "")) > 0 and cells[2] == "0" and cells[3] == "0", row
    assert "0 mismatches" in table and "Differential: " in table
    assert "→ 3,000 answers, exit 0" in table


def test_the_long_javascript_differential_runs_briefly() -> None:
    """benchmarks/js_differential.py starts as its docstring says (it once stopped at an import only
    pytest could resolve) and compares a few hundred lines."""
    import shutil

    import pytest
    if not (shutil.which("node") or shutil.which("nodejs")):
        pytest.skip("node is not installed (Debian package `nodejs`; tools/setup_test_deps.py installs it)")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "js_differential.py"), "--requests", "300",
                          "--waits", "30", "--seed", "5"], cwd=ROOT, capture_output=True, text=True, timeout=900,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    assert "seed-001: 300 lines, the same answers" in out.stdout and "seed-001 waits: 30 lines" in out.stdout


def test_the_fuzz_run_judges_two_backends_as_the_differential_does(tmp_path: object) -> None:
    """An overlay under which the two backends show different, equally good readings of a sample hand
    (the same patterns claimed: either reading may be shown) is no crash of the rule-file surfaces."""
    import importlib.util

    from tjmj_dsl import Scorer
    spec = importlib.util.spec_from_file_location("fuzz_script", os.path.join(ROOT, "benchmarks", "fuzz.py"))
    assert spec is not None and spec.loader is not None
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    path = os.path.join(str(tmp_path), "overlay.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"extends: {os.path.join(ROOT, 'rules', 'tianjin.yaml')!r}\nset:\n  patterns.long.when: tianhu\n")
    hand = fuzz.HANDS[0]
    g, i = Scorer(path).score(hand), Scorer(path, backend="interpreter").score(hand)
    assert g["decomposition"] != i["decomposition"] and g["patterns"] == i["patterns"]  # the case itself
    fuzz._backends_agree(path, Scorer)
