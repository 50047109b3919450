"""The committed rules/schema.json is what tools/make_schema.py writes (it was once edited by hand and the
script left behind: the next run would have undone the edit)."""

from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_make_schema_reproduces_the_committed_schema(tmp_path: "os.PathLike[str]") -> None:
    os.mkdir(os.path.join(tmp_path, "rules"))  # the script writes rules/schema.json under its working directory
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "make_schema.py")], cwd=tmp_path, check=True)
    with open(os.path.join(tmp_path, "rules", "schema.json"), encoding="utf-8") as f:
        made = f.read()
    with open(os.path.join(ROOT, "rules", "schema.json"), encoding="utf-8") as f:
        assert made == f.read(), "run: python tools/make_schema.py"
