"""Imports flow one way: no module of tjmj_dsl imports, directly or through others, a module
that imports it — counting imports inside functions and under TYPE_CHECKING (tools/import_graph.py)."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
from import_graph import circles, graph  # noqa: E402


def test_the_detector_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_late_imports() -> None:
    edges = graph()
    assert "tjmj_dsl.backends.outputs" in edges["tjmj_dsl.api"]  # imported inside compile_rules


def test_no_import_circle_in_the_package() -> None:
    found = circles(graph())
    assert found == [], "import circles: " + "; ".join(" ↔ ".join(c) for c in found)
