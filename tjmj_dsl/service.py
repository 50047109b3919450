"""Answering requests under their own profile/options, whatever carries them:
the JSONL batch of the CLI and the HTTP service share this module, so a line
and a POST body get the same answer (and the same refusal)."""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from functools import partial
from typing import Any, Callable

from .diagnostics import RuleError
from .engine.contract import CONTRACT
from .engine.request import RequestError

KINDS = ("score", "waits", "explain", "settle")
MAX_SCORERS = 32  # compiled scorers kept per process (one per distinct profile/options asked for)
MAX_FAILED = 256  # bad (profile, options) remembered with their error, so they are not compiled again


class Scorers:
    """Compiled scorers per (profile, options) of one rule file, built on first
    use. The rule file is read once; options are keyed in canonical form
    (engine.request.option_value: "2" and 2 are one scorer). Bounded: the
    MAX_SCORERS most recently used are kept (each holds a compiled module and
    its tables), and the MAX_FAILED most recent bad (profile, options) keep their
    error, so a batch of many option sets, or one bad set on every line,
    neither grows memory nor compiles again."""

    def __init__(self, rules: str | None, backend: str = "generated") -> None:
        self.rules = rules
        self.backend = backend
        self.cache: OrderedDict[Any, Any] = OrderedDict()
        self.failed: OrderedDict[Any, RuleError] = OrderedDict()
        self._res: Any = None

    def resolved(self) -> Any:
        """The rule file, read and resolved once."""
        if self._res is None:
            from .compiler import read_rules
            self._res = read_rules(self.rules)
        return self._res

    def get(self, profile: str | None, options: dict[str, Any] | None, backend: str | None = None) -> Any:
        """The scorer for a profile and options; RuleError if they are not the rules'."""
        from .api import Scorer
        from .diagnostics import Pos
        from .passes.resolve import canonical_options
        backend = backend or self.backend
        raw = (profile, _raw_key(options), backend)
        if raw in self.failed:
            self.failed.move_to_end(raw)
            raise self.failed[raw]
        try:
            canon = canonical_options(self.resolved(), options or {}, Pos("<options>", 1, 1))
            key = (profile, tuple(sorted(canon.items())), backend)
            sc = self.cache.get(key)
            if sc is None:
                sc = Scorer._of(self.resolved(), profile, canon, backend)
                self.cache[key] = sc
                while len(self.cache) > MAX_SCORERS:
                    self.cache.popitem(last=False)
            else:
                self.cache.move_to_end(key)
            return sc
        except RuleError as e:
            self.failed[raw] = e
            while len(self.failed) > MAX_FAILED:
                self.failed.popitem(last=False)
            raise


def _raw_key(options: dict[str, Any] | None) -> str:
    """A short exact key for options as given (any JSON), for remembering a failure."""
    try:
        text = json.dumps(options, sort_keys=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(options)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def options_error(e: RuleError) -> dict[str, Any]:
    """The contract's error object for a request whose profile/options do not compile."""
    d = e.diagnostics[0]
    code = {"profile": "unknown_profile", "option": "unknown_option"}.get(d.code, "bad_option")
    field = "profile" if d.code == "profile" else "options"
    return {"code": code, "message": "; ".join(x.message + (f" ({x.hint})" if x.hint else "") for x in e.diagnostics),
            "field": field}


def explanation(sc: Any, answer: dict[str, Any]) -> dict[str, Any]:
    """How the answer came about, by the reference interpreter's rule set: every
    pattern with its predicate and whether the formula used it, the algebra and the score table."""
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
        self.scorers = Scorers(rules)
        self.profile = profile
        self.options = dict(options or {})
        self.base = self.scorers.get(profile, self.options)  # raises RuleError for bad rules/profile/options

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
            sc = base
            # not a mapping: the scorer says what it is, as a generated scorer run as a program does
            prof, opts = (data.get("profile"), data.get("options")) if isinstance(data, dict) else (None, None)
            if isinstance(data, dict) and (prof is not None or opts is not None or k == "explain"):
                if opts is not None and not isinstance(opts, dict):
                    return self.refuse(k, data.get("id"), RequestError(
                        "expected a mapping of option names to values", "options", code="wrong_type").error())
                if prof is not None and not isinstance(prof, str):
                    return self.refuse(k, data.get("id"), RequestError(
                        "expected a profile name", "profile", code="wrong_type").error())
                try:
                    sc = self.scorers.get(prof if prof is not None else self.profile,
                                          {**self.options, **{o: v for o, v in (opts or {}).items() if v is not None}},
                                          "interpreter" if k == "explain" else None)
                except RuleError as e:
                    return self.refuse(k, data.get("id"), options_error(e))
                if "profile" in data or "options" in data:  # sc is compiled with them
                    data = {f: v for f, v in data.items() if f not in ("profile", "options")}
            if k == "waits":
                return sc.waits(data)  # type: ignore[no-any-return]
            if k == "settle":
                return sc.settle(data)  # type: ignore[no-any-return]
            answer: dict[str, Any] = sc.score(data)
            if k == "explain" and "error" not in answer:
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
