"""An arm of a study: rules (a rule file and the files it extends, carried as
text so that a worker on another machine compiles the same rules), a profile
and options. `PROFILE_OR_OPTIONS` on the command line is comma-separated:
NAME=VALUE items are options, one other item a profile of the rule file or an
overlay file (a house pattern: a path ending .yaml/.yml, or another existing file that is not a profile's
name; a name that is both is refused)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..api import Scorer
from ..game.rules import GameRules, game_rules
from ..game.ship import bundle_sha, rule_files, written

MAX_ARMS = 16  # the base and at most 15 variants: each costs a full run
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


class ArmError(ValueError):
    """An arm that cannot be read, said with the part of the command it comes from."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Arm:
    name: str
    files: tuple[tuple[str, str], ...]  # (path relative to the bundle's root, text), every file the rules read
    top: str  # the file compiled (relative to the root)
    profile: str | None
    options: tuple[tuple[str, str], ...]
    spec: str  # as written on the command line
    shown: tuple[str, ...] = ()  # the files as the report names them (shown_files)

    @property
    def bundle_sha(self) -> str:
        return bundle_sha(self.files)


def parse_arm(name: str, spec: str, rules: str | None, field: str) -> Arm:
    """An arm from `PROFILE_OR_OPTIONS` over the rule file `rules` (None: the built-in one). Its
    profile and options are compiled and checked for play by compile_arm, before any hand."""
    if not name or not set(name) <= NAME_CHARS or len(name) > 40:
        raise ArmError(field, f"a variant's NAME is 1-40 of a-z A-Z 0-9 _ - . (it labels the report's plots, which "
                              f"keep to ASCII), not {name!r}")
    options: dict[str, str] = {}
    other: list[str] = []
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        if "=" in item:
            k, v = item.split("=", 1)
            if not k or k in options:
                raise ArmError(field, f"option {k!r} named twice or empty in {spec!r}")
            options[k] = v
        else:
            other.append(item)
    if len(other) > 1:
        raise ArmError(field, f"one profile or overlay file at most, not {', '.join(other)}")
    path, profile = rules, None
    if other:
        o = other[0]
        if o.endswith((".yaml", ".yml")):
            path = o
        elif o in _profiles(rules):
            if os.path.isfile(o):  # which one was meant cannot be known: a file read silently surprised
                raise ArmError(field, f"{o!r} is a profile of the rules and a file here: write ./{o} for the file, "
                                      f"or rename it")
            profile = o
        elif os.path.isfile(o):
            path = o
        else:
            profile = o  # not a profile: said by the compile, with the profiles there are
    if path is not None and path != rules:  # an overlay file (a house pattern): checked as `tjmj check` checks it
        from ..analysis.rulecheck import check_file
        check_file(path)  # every profile and its examples; errors raise RuleError
    files, top = rule_files(path)
    return Arm(name, files, top, profile, tuple(sorted(options.items())), spec, shown_files(path))


def shown_files(path: str | None) -> tuple[str, ...]:
    """The rule files of `path` (None: the built-in one) as a report names them, the same wherever they lie:
    each relative to the folder of the file read (as files name the ones they extend), a built-in file another
    extends as builtin:NAME. (Relative to the files' common folder, an overlay beside a checkout's built-in file
    was named by both paths from the root: another machine's report differed, and it told the folders.)"""
    from ..compiler import read_rules
    from ..passes.resolve import BUILTIN, BUILTINS
    from ..source.files import rules_file
    res = read_rules(path)
    paths = [os.path.abspath(p) for p in res.paths]
    top = os.path.abspath(res.top_path) if res.top_path else paths[-1]
    builtin = {}
    for b in BUILTINS:
        try:
            builtin[os.path.realpath(rules_file(f"{b}.yaml"))] = BUILTIN + b
        except (ImportError, OSError):  # pragma: no cover - an installation without its data
            pass
    return tuple(builtin[os.path.realpath(p)] if p != top and os.path.realpath(p) in builtin
                 else os.path.relpath(p, os.path.dirname(top)).replace(os.sep, "/") for p in paths)


def _profiles(rules: str | None) -> frozenset[str]:
    """The names of the rule file's profiles (none when it cannot be read: the compile says why)."""
    from ..compiler import read_rules
    from ..diagnostics import RuleError
    try:
        got = read_rules(rules).data.get("profiles")
    except (RuleError, OSError, ValueError):
        return frozenset()
    return frozenset(got) if isinstance(got, dict) else frozenset()


_COMPILED: dict[tuple[str, str, Any, Any], GameRules] = {}


def compile_arm(arm: Arm) -> GameRules:
    """The arm's rules compiled (once per process) from its text, written to files by game/ship.py for the compile."""
    key = (arm.bundle_sha, arm.top, arm.profile, arm.options)
    got = _COMPILED.get(key)
    if got is None:
        with written(arm.files, arm.top) as path:
            got = _COMPILED[key] = game_rules(Scorer(path, arm.profile, dict(arm.options) or None))
    return got
