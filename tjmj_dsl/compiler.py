"""The pipeline: rule file → resolved document → core IR."""

from __future__ import annotations

import os
from typing import Any

from .diagnostics import Pos
from .ir import RuleSet
from .passes.lower import lower
from .passes.resolve import Resolved, apply_options, read

from .source.files import rules_file


def builtin_rules_path() -> str:
    return rules_file("tianjin.yaml")


def display_name(path: str) -> str:
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else path


def read_rules(path: str | None = None) -> Resolved:
    path = path or builtin_rules_path()
    return read(path, display_name(path))


def load_rules(path: str | None = None, profile: str | None = None, options: dict[str, Any] | None = None,
               where: Pos | None = None) -> RuleSet:
    """Compile a rule file for one profile (and option overrides) to the IR.
    Raises RuleError with every diagnostic."""
    return lower(apply_options(read_rules(path), profile, options, where))


def profiles(path: str | None = None) -> list[str]:
    data = read_rules(path).data
    return list((data.get("profiles") or {}))
