"""Examples cannot lie: every example hand of the rule file is scored by the
generated scorer (the module `tjmj compile` writes, built in memory) under
the profile and options it names, and what it says must be what the example
states. A difference is an error at the example's line and column (a warning,
and the example is left out, when it was written in an overlay's base file).

`tjmj check` also warns about a pattern without an example or a near miss,
and an option value whose result no example tells apart from the default."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..diagnostics import Diagnostic, Pos, RuleError, did_you_mean
from ..expr.bets import offer
from ..game.facts import GameFacts
from ..ir import Example, Expect, RuleSet
from ..passes.lower import lower
from ..passes.resolve import Resolved, apply_options
from .codegen import generate_scorer, load_generated

# options whose effect is on the game engine alone: no score or settlement tells their values apart
ENGINE_ONLY = ("play",)


class Scorers:
    """The generated scorer of one resolved rule file, per profile and option
    overrides, built once (a rule set is lowered and its scorer executed)."""

    def __init__(self, res: Resolved) -> None:
        self.res = res
        profiles = list(res.data.get("profiles") or {})
        self.default_profile: str = str(res.data.get("default_profile") or (profiles[0] if profiles else ""))
        self._cache: dict[Any, tuple[RuleSet, Any]] = {}
        self._by_choices: dict[Any, tuple[RuleSet, Any]] = {}
        self._answers: dict[tuple[int, str], dict[str, Any]] = {}  # (scorer, request) → its answer

    def get(self, profile: str, options: dict[str, Any] | None = None, where: Pos | None = None) -> tuple[RuleSet, Any]:
        key = (profile, tuple(sorted((str(k), repr(v)) for k, v in (options or {}).items())))
        got = self._cache.get(key)
        if got is None:
            resolved = apply_options(self.res, profile or None, dict(options or {}), where)
            # scorers are shared by every profile and options that pick the same choices (settle() is
            # compiled into the scorer too, so play and settlement choices count)
            scoring = tuple((k, repr(v)) for k, v in resolved.choices.items())
            got = self._by_choices.get(scoring)
            if got is None:
                rs = lower(resolved)
                got = self._by_choices[scoring] = (rs, load_generated(generate_scorer(rs), "tjmj_example_scorer"))
            self._cache[key] = got
        return got

    def score(self, profile: str, options: dict[str, Any], request: dict[str, Any], where: Pos | None = None) -> dict[str, Any]:
        """The scorer's answer (each request scored once per scorer: the book shows a hand
        in several chapters)."""
        mod = self.get(profile, options, where)[1]
        key = (id(mod), json.dumps(request, sort_keys=True, ensure_ascii=False, default=repr))
        got = self._answers.get(key)
        if got is None:
            got = self._answers[key] = dict(mod.score(dict(request)))
        return dict(got)

    def settle(self, profile: str, options: dict[str, Any], outcome: dict[str, Any], where: Pos | None = None) -> dict[str, Any]:
        """settle() of the generated scorer: who pays whom after the hand."""
        return dict(self.get(profile, options, where)[1].settle(dict(outcome)))

    def bets(self, profile: str, options: dict[str, Any], request: dict[str, Any], where: Pos | None = None) -> dict[str, Any]:
        """What the table offers before the deal under the facts of the game so far (expr/bets.offer)."""
        rs = self.get(profile, options, where)[0]
        return offer(rs.bets, dict(rs.play), GameFacts.from_json(request["game"]), int(request["dealer"]),
                     bool(request["zuozhuang"]))

    def run(self, ex: Example, profile: str, options: dict[str, Any]) -> dict[str, Any]:
        if ex.kind == "bets":
            return self.bets(profile, options, ex.request, ex.pos)
        if ex.kind == "outcome":
            return self.settle(profile, options, ex.request, ex.pos)
        return self.score(profile, options, ex.request, ex.pos)


@dataclass(frozen=True)
class Scored:
    """An example with what the scorer said: (value, result) per option value,
    or one ("", result) for any other example."""

    example: Example
    results: tuple[tuple[str, dict[str, Any]], ...]


def _value_key(v: Any) -> str:
    return ("on" if v else "off") if isinstance(v, bool) else str(v)


def _option_value(rs: RuleSet, oid: str, key: str) -> Any:
    """The option value a results key names (the YAML key may be "4" for 4)."""
    for o in rs.options:
        if o.id == oid:
            for c in o.choices:
                if _value_key(c) == key:
                    return c
    return key


def error_text(got: dict[str, Any]) -> str:
    """The message of a refusal (the contract's error object, or a plain text)."""
    err = got.get("error")
    return str(err.get("message", "")) if isinstance(err, dict) else str(err or "")


def mismatches(ex: Example, expect: Expect, got: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, what differs) for each thing the example states that the scorer does not say."""
    out: list[tuple[str, str]] = []
    refused = got.get("reason") == "invalid_request"
    if ex.kind == "bets":
        if expect.may_zuozhuang is not None and expect.may_zuozhuang != got["may_zuozhuang"]:
            out.append(("may_zuozhuang", "the table asks the dealer to sit (zuozhuang), the example says it does not"
                        if got["may_zuozhuang"] else "the table does not ask the dealer to sit (zuozhuang), the example "
                                                     "says it does"))
        if expect.lazhuang_most is not None and list(expect.lazhuang_most) != got["lazhuang_most"]:
            out.append(("lazhuang_most", f"the seats may pull (lazhuang) {got['lazhuang_most']} times, "
                                         f"not {list(expect.lazhuang_most)}"))
        return out
    if ex.kind == "outcome":
        if expect.refused != refused:
            out.append(("refused", f"settle() refuses it: {error_text(got)}" if refused
                        else "the example says the outcome is refused, but settle() pays it"))
        elif not refused:
            if expect.balances is not None and list(expect.balances) != list(got["balances"]):
                out.append(("balances", f"settle() gives the balances {got['balances']}, not {list(expect.balances)}"))
            if expect.next_dealer is not None and expect.next_dealer != got["next_dealer"]:
                out.append(("next_dealer", f"settle() passes the deal to seat {got['next_dealer']}, not {expect.next_dealer}"))
        return out
    if expect.refused != refused:
        out.append(("refused", f"the scorer refuses it: {error_text(got)}" if refused
                    else "the example says the request is refused, but the scorer scores it"))
        return out
    if refused:
        return out
    if expect.patterns is not None and sorted(expect.patterns) != sorted(got["patterns"]):
        out.append(("patterns", f"the scorer claims [{', '.join(got['patterns'])}], not [{', '.join(expect.patterns)}]"))
    if expect.fan is not None and expect.fan != got["fan"]:
        out.append(("fan", f"the scorer gives fan {got['fan']} ({got.get('formula') or 'no shape'}), not {expect.fan}"))
    if expect.total is not None and expect.total != got["total"]:
        out.append(("total", f"the score table shows {got['total']}, not {expect.total}"))
    win = True if expect.win is None else expect.win
    if win != got["win"]:
        out.append(("win", "the hand wins" if got["win"] else f"the hand does not win ({got.get('reason')}: {got.get('message', '')})"))
    if ex.role == "example" and ex.owner not in got["patterns"]:
        out.append(("patterns", f"an example of {ex.owner} must claim it; the scorer claims [{', '.join(got['patterns'])}]"))
    if ex.role == "near_miss" and ex.owner in got["patterns"]:
        out.append(("patterns", f"a near miss of {ex.owner} must not claim it, but the scorer does"))
    return out


def run_examples(rs: RuleSet, scorers: Scorers) -> tuple[list[Scored], list[Diagnostic]]:
    """Score every example of `rs` under its profile; check what each states."""
    scored: list[Scored] = []
    diags: list[Diagnostic] = []
    for ex in rs.prose.examples:
        results = []
        problems: list[Diagnostic] = []
        sev = "warning" if ex.inherited else "error"
        code = "example-inherited" if ex.inherited else "example"
        for key, expect in ex.expect:
            opts = dict(ex.options)
            profile = rs.profile
            if ex.role == "option":
                # an option's examples are scored under the default profile (the same in every rulebook)
                opts[ex.owner] = _option_value(rs, ex.owner, key)
                profile = scorers.default_profile
            try:
                got = scorers.run(ex, profile, opts)
            except RuleError as e:
                problems.extend(Diagnostic(sev, code, f"example of {ex.owner}: {d.message}", ex.pos, d.hint)
                                for d in e.diagnostics)
                continue
            known = [p.id for p in scorers.get(profile, opts)[0].patterns]  # under the example's own options
            unknown = [p for p in (expect.patterns or ()) if p not in known]
            if unknown:  # a misspelt id: said so, not as patterns the scorer does not claim
                problems.append(Diagnostic(sev, code, f"example of {ex.owner}: no pattern {unknown[0]!r}",
                                           expect.where("patterns", ex.pos) if ex.pos else None,
                                           did_you_mean(unknown[0], known) or "the patterns: " + ", ".join(known)))
                continue
            results.append((key, got))
            for fld, msg in mismatches(ex, expect, got):
                under = f" under {ex.owner}={key}" if ex.role == "option" else ""
                problems.append(Diagnostic(sev, code, f"example of {ex.owner}{under} (profile {rs.profile}): {msg}",
                                           expect.where(fld, ex.pos) if ex.pos else None,
                                           (f"the hand is {ex.hand!r}; fix the hand or what the example says" if ex.kind == "hand"
                                            else "fix the game's facts or what the example says" if ex.kind == "bets"
                                            else "fix the outcome or what the example says")))
        diags.extend(problems)
        if not problems:
            scored.append(Scored(ex, tuple(results)))
    return scored, diags


def coverage_warnings(res: Resolved, rs: RuleSet) -> list[Diagnostic]:
    """A pattern without an example or a near miss; an option without an
    example, or a value that no example tells apart from the default."""
    data = res.data
    out: list[Diagnostic] = []
    ex = rs.prose.examples
    for pid, p in (data.get("patterns") or {}).items():
        for role, key, what in (("example", "examples", "an example"), ("near_miss", "near_misses", "a near miss")):
            if not any(e.owner == pid and e.role == role for e in ex):
                out.append(Diagnostic("warning", "no-example", f"pattern {pid} has no {what[2:] if what.startswith('a ') else what[3:]}",
                                      res.where(("patterns", pid), True),
                                      f"add `{key}:` with {what}: a hand, its indicator, and the patterns and fan the scorer gives",
                                      pid))
    for o in rs.options:
        mine = [e for e in ex if e.owner == o.id and e.role == "option"]
        if o.acts_on in ENGINE_ONLY and not mine:
            continue
        if not mine:
            out.append(Diagnostic("warning", "no-example", f"option {o.id} has no example",
                                  res.where(("options", o.id), True),
                                  "add `examples:` with a hand and `results:` for each value (value → patterns, fan, total)",
                                  o.id))
            continue
        default = _value_key(o.default)
        for c in o.choices:
            k = _value_key(c)
            if k == default:
                continue
            if not any(dict(e.expect).get(k) is not None and dict(e.expect).get(default) is not None
                       and _said(dict(e.expect)[k]) != _said(dict(e.expect)[default]) for e in mine):
                out.append(Diagnostic("warning", "no-example", f"option {o.id}: no example shows what {k} changes",
                                      res.where(("options", o.id, "examples"), True),
                                      f"give an example whose results under {k} and {default} differ", o.id))
    return out


def _said(e: Expect) -> tuple[Any, ...]:
    return (e.refused, e.win, e.fan, e.total, tuple(sorted(e.patterns)) if e.patterns is not None else None,
            e.balances, e.next_dealer, e.may_zuozhuang, e.lazhuang_most)
