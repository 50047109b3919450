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
