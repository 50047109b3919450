"""The repository stands alone: no file of it points at a path outside it
(the sources are cited by name in the rule file, not by a path)."""

from __future__ import annotations

import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# a path into the workplace's shared folder, the reading that lived there, or an absolute home
OUTSIDE = re.compile(r"(\.\./shared\b|\bshared/(seeds|spec|design)\b|rules-reading|/work/|/home/|/tmp/bash_jobs)")


def _repo_files() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                             text=True, timeout=60, check=True).stdout.split("\n")
        files = [f for f in out if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if not d.startswith(".") and not d.endswith(".egg-info") and d != "__pycache__"]
            files += [os.path.relpath(os.path.join(root, n), ROOT) for n in names]
    return sorted(f for f in files if not f.startswith(".venv/"))


def test_no_file_points_outside_the_repository() -> None:
    bad = []
    for rel in _repo_files():
        path = os.path.join(ROOT, rel)
        if rel == "tests/test_self_contained.py" or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        for i, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                bad.append(f"{rel}:{i}: {line.strip()[:120]}")
    assert not bad, "\n".join(bad)


def test_the_rule_file_cites_its_sources_by_name() -> None:
    import yaml
    with open(os.path.join(ROOT, "rules", "tianjin.yaml"), encoding="utf-8") as f:
        data = yaml.safe_load(f)
    assert set(data["sources"]) == {"seed-000", "seed-001"}
    assert "天津麻将游戏规则" in data["sources"]["seed-000"] and "游戏说明" in data["sources"]["seed-001"]
    # every decision the sources left open is written down, and every erratum
    for key in ("best_decomposition", "shuanghun_apart", "indicator_on_wall", "gangkai_own_kong",
                "no_kong_beside_shuanghun_zhuo5_long"):
        assert key in data["decisions"], key
    assert {"tianhu_max", "gangkai_shuanghun_benhun_zhuo5_long", "coins_hundiao_without_kong",
            "coins_benhun_zhuo5_long_concealed", "coins_item_3_twice"} <= set(data["errata"])
