"""The package ships py.typed: its annotations must hold (mypy)."""

from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_mypy_is_clean() -> None:
    res = subprocess.run([sys.executable, "-m", "mypy", "tjmj_dsl", "--ignore-missing-imports", "--no-error-summary"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
