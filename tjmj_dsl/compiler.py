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


_READ: dict[tuple[str, str], tuple[tuple[tuple[str, float], ...], Resolved]] = {}


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def read_rules(path: str | None = None) -> Resolved:
    """The resolved document of a rule file; read again only when one of its files changed
    (a check compiles every profile and option value from one reading). Callers never
    change it: apply_options works on a copy."""
    path = path or builtin_rules_path()
    key = (os.path.abspath(path), display_name(path))
    got = _READ.get(key)
    if got is not None and all(_mtime(p) == m for p, m in got[0]):
        return got[1]
    res = read(path, display_name(path))
    if len(_READ) > 64:
        _READ.clear()
    _READ[key] = (tuple((p, _mtime(p)) for p in res.paths), res)
    return res


def load_rules(path: str | None = None, profile: str | None = None, options: dict[str, Any] | None = None,
               where: Pos | None = None) -> RuleSet:
    """Compile a rule file for one profile (and option overrides) to the IR.
    Raises RuleError with every diagnostic."""
    return lower(apply_options(read_rules(path), profile, options, where))


def profiles(path: str | None = None) -> list[str]:
    data = read_rules(path).data
    return list((data.get("profiles") or {}))
