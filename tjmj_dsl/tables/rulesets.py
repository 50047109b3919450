"""The rule sets rooms may use: the operator's list, never a file a web user names.

Each rule file is read once at start; a room names a rule set by its name,
a profile the file declares and options among the file's declared values;
the compiled GameRules of each (name, profile, options) are kept.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from ..api import Scorer
from ..diagnostics import RuleError
from ..game.rules import GameRules, GameRulesError, game_rules

CACHED = 32  # compiled choices of options kept beside each rule file's defaults (0.4 to 1 MB and 0.1 s each)


class RoomError(ValueError):
    """A room request refused: code, message and the field at fault (the contract's error shape)."""

    def __init__(self, code: str, message: str, field: str | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.field, self.status = code, message, field, status

    def json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "field": self.field}}


def rule_names(rules: GameRules) -> dict[str, dict[str, str]]:
    """What the rule file calls each kind of kong, each fact of an outcome and each request flag
    (kong_names, outcome_names, request_flags), and which flag a declaration of ready sets
    (play.ready_declaration_flag, "" for none): the page's labels for them, never its own."""
    rs = rules.scorer.ruleset
    return {"kong": dict(rs.kong_names), "outcome": dict(rs.outcome_names), "flag": dict(rs.flags),
            "play": {"ready_declaration": rules.ready_declaration_flag}}


def _first_line(e: Exception) -> str:
    text = e.render() if isinstance(e, RuleError) else str(e)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    first = lines[0] if lines else str(e)
    return first.split(": error: ", 1)[-1]


class RuleSets:
    """Rule files by their rule set's name (None: the built-in rules)."""

    def __init__(self, files: list[str | None] | tuple[str | None, ...] = (None,)) -> None:
        self.files: dict[str, str | None] = {}
        self.sha256: dict[str, str] = {}  # the rule file(s) as read at start: a choice compiled later must be of them
        self.info: dict[str, dict[str, Any]] = {}
        # compiled rules by (rule set, profile, options): each file's defaults kept, other choices the CACHED
        # most recently used (a room holds its own; a client naming new options each time grew it for ever)
        self.cache: OrderedDict[tuple[str, str, str], GameRules] = OrderedDict()
        self.pinned: set[tuple[str, str, str]] = set()
        for path in files or (None,):
            scorer = Scorer(path)
            rs = scorer.ruleset
            try:  # rules `check` passes (an `unplayable` warning silenced) that the engine cannot play: said now
                played = game_rules(scorer)
            except GameRulesError as e:
                raise GameRulesError(f"{path or 'the built-in rules'}: the game engine cannot play this rule set: {e}") from None
            if rs.name in self.files:  # a room names its rule set: two files of one name, and one would be shadowed
                raise GameRulesError(f"{path or 'the built-in rules'}: its rule set is named {rs.name!r}, as "
                                     f"{self.files[rs.name] or 'the built-in rules'} is: give each --table-rules "
                                     "file a name of its own (name: in the file)")
            default = (rs.name, rs.profile, json.dumps({}, sort_keys=True))
            self.cache[default] = played
            self.pinned.add(default)
            self.files[rs.name] = path
            self.sha256[rs.name] = played.sha256
            self.info[rs.name] = {
                "name": rs.name, "profiles": [p for p, _ in rs.profiles], "default_profile": rs.profile,
                "options": {o.id: {"values": list(o.choices), "default": o.default} for o in rs.options},
            }
            # the page's labels, as the rule file words them (option names, pattern names and English glosses)
            for o in rs.options:
                self.info[rs.name]["options"][o.id].update(name=o.name, description=o.description)
            self.info[rs.name]["patterns"] = [{"id": p.id, "name": p.name, "gloss": p.gloss} for p in rs.patterns]
        self.default = next(iter(self.files))

    def rules(self, name: str, profile: str | None, options: dict[str, Any]) -> GameRules:
        """The compiled rules of a room (RoomError naming the field at fault; a name the request gave is
        shown cut to 40 characters, as the room API shows every value it refuses)."""
        if name not in self.files:
            raise RoomError("invalid_request", f"no rule set {name[:40]!r} here; rule sets: {', '.join(self.files)}", "rules")
        info = self.info[name]
        prof = info["default_profile"] if profile is None else profile  # "" is no profile's name
        if prof not in info["profiles"]:
            raise RoomError("invalid_request", f"no profile {prof[:40]!r}; profiles: {', '.join(info['profiles'])}", "profile")
        for k, v in options.items():
            if k not in info["options"]:
                raise RoomError("invalid_request", f"no option {k[:40]!r}; options: {', '.join(info['options'])}",
                                f"options.{k[:40]}")
            if not isinstance(v, (str, int)) or isinstance(v, bool) or str(v) not in map(str, info["options"][k]["values"]):
                raise RoomError("invalid_request", f"option {k!r}: {json.dumps(v)[:40]} is not one of "
                                + ", ".join(map(str, info["options"][k]["values"])), f"options.{k}")
        key = (name, prof, json.dumps(options, sort_keys=True))
        got = self.cache.get(key)
        if got is None:
            try:
                got = game_rules(Scorer(self.files[name], prof, dict(options) or None))
            except (RuleError, GameRulesError) as e:
                raise RoomError("invalid_request", _first_line(e), "options") from None
            if got.sha256 != self.sha256[name]:
                # the file was edited on disk since the start (a review's finding: rooms made with other options
                # than the defaults got the new text, the page's config and the defaults' rooms the old one)
                raise RoomError("rules_unavailable", f"the rule set {name[:40]!r} changed on disk since this server "
                                f"started (sha256 {self.sha256[name][:16]}…, now {got.sha256[:16]}…): restart the server "
                                "to play the new rules", "rules", 409)
            self.cache[key] = got
            while len(self.cache) > CACHED + len(self.pinned):
                old = next(k for k in self.cache if k not in self.pinned)
                del self.cache[old]
        self.cache.move_to_end(key)
        return got
