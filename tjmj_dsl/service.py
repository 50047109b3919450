"""Answering requests under their own profile/options, whatever carries them:
the JSONL batch of the CLI and the HTTP service share this module, so a line
and a POST body get the same answer (and the same refusal)."""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

from .api import Scorers
from .engine.contract import CONTRACT

KINDS = ("score", "waits", "explain", "settle")
def explanation(sc: Any, answer: dict[str, Any]) -> dict[str, Any]:
    """How the answer came about, by the rule set in force: every pattern with
    its predicate and whether the formula used it, the algebra and the score table."""
    rs = sc.ruleset
    shown = set(answer.get("patterns") or [])
    return {
        "min_fan": rs.min_fan,
        "patterns": [{"id": p.id, "name": p.name, "kind": p.kind, "value": p.value, "when": p.when.text,
                      "used": p.id in shown} for p in rs.patterns],
        "algebra": rs.algebra.text,
        "score_table": rs.score_table,
        "total": rs.total.text,
    }


class Service:
    """The rules in force (a rule file, a profile, options) and the answers to
    every kind of request under them or under the request's own profile/options."""

    def __init__(self, rules: str | None = None, profile: str | None = None,
                 options: dict[str, Any] | None = None) -> None:
        self.base = Scorers(rules).get(profile, dict(options or {}))  # RuleError for bad rules/profile/options

    def refuse(self, kind: str, request_id: Any, error: dict[str, Any]) -> dict[str, Any]:
        """A refusal in the shape of `kind`'s answer, under the rules in force."""
        if kind == "waits":
            return self.base.waits_refusal(request_id, error)
        if kind == "settle":
            return self.base.settle_refusal(request_id, error)
        return self.base.refusal(request_id, error)

    def answerer(self, kind: str) -> Callable[[Any], dict[str, Any]]:
        """The function answering one request mapping of `kind` ("score", "waits",
        "explain", "settle"; "auto": waits when the request has no draw, else score)."""
        base = self.base

        def one(data: Any) -> dict[str, Any]:
            k = kind
            if k == "auto":
                k = "waits" if isinstance(data, dict) and data.get("draw") is None else "score"
            if k == "waits":
                return base.waits(data)  # the scorer answers a request's own profile/options itself
            if k == "settle":
                return base.settle(data)
            if k == "score":
                return base.score(data)
            # explain: the score answer (by the generated scorer, whose time is bounded: the reference
            # interpreter's is not, and one hand of many huns would hold a server for seconds) and how the
            # rules in force make it
            sc, data, error = base.for_request(data)
            if error is not None:
                return self.refuse(k, data.get("id"), error)
            answer: dict[str, Any] = sc.score(data)
            if "error" not in answer:
                answer["explanation"] = explanation(sc, answer)
            return answer

        return one

    def texter(self, kind: str) -> Callable[[Any], str | None] | None:
        """For a batch of `kind` ("score", "auto"): the answer's JSON line
        written straight by the scorer in force (runtime.score_text) for a
        plain score request, None for any other request (answerer(kind)
        answers it); None for the other kinds."""
        if kind not in ("score", "auto"):
            return None
        from .engine.runtime import score_text
        rules = self.base._rules
        return partial(score_text, rules)  # a call in C, not a Python frame, per line

    def rules_document(self, limits: dict[str, Any] | None = None) -> dict[str, Any]:
        """The rules in force for a client: what produced the answers, the
        profiles, the options with their choices, the request flags, the patterns."""
        rs = self.base.ruleset
        choices = dict(rs.choices)
        doc: dict[str, Any] = {
            "contract": CONTRACT,
            "rules": self.base.rules_info,
            "title": rs.title,
            "profiles": [{"name": p, "description": d} for p, d in rs.profiles],
            "options": [{"id": o.id, "name": o.name, "description": o.description, "choices": list(o.choices),
                         "default": o.default, "value": choices.get(o.id), "acts_on": o.acts_on} for o in rs.options],
            "request_flags": [{"name": f, "meaning": m} for f, m in rs.flags],
            "patterns": [{"id": p.id, "name": p.name, "kind": p.kind, "value": p.value} for p in rs.patterns],
            "min_fan": rs.min_fan,
            "score_table": rs.score_table,
            "settlement": rs.settlement is not None,
        }
        if limits:
            doc["limits"] = limits
        return doc
