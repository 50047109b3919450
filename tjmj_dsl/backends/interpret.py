"""The reference interpreter: a `rules` object for engine/ whose
predicates walk the AST. Simple on purpose; the generated scorer must agree
with it on every hand."""

from __future__ import annotations

from typing import Any

from ..engine import runtime
from ..engine import search
from ..engine.hand import Hand, next_kind
from ..expr.evaluate import CONSTS, Interpreter
from ..expr.vocabulary import HAND_VARS
from ..ir import Expr, RuleSet
from .settlement import interpreted_settlement
from .tables import expression_types, static_tables


class InterpretedRules:
    chow: bool
    flags: tuple[str, ...]
    kong_points: dict[str, int]

    def __init__(self, rs: RuleSet) -> None:
        self.ruleset = rs
        for k, v in static_tables(rs).items():
            setattr(self, k, v)
        runtime.prepare(self)
        self.settlement = interpreted_settlement(rs)
        self.best = search.best_of  # the reference enumerates every decomposition
        defs = {d.name: (d.params, d.body.ast) for d in rs.definitions}
        self._i = Interpreter(expression_types(rs), defs, {"next": lambda k: next_kind(k, rs.cycles)})
        self._unless = [(c.unless.ast if c.unless is not None else None) for p in rs.patterns for c in p.conflicts]
        self._kind_idx = {k: [(i, p.value) for i, p in enumerate(rs.patterns) if p.kind == k] for k in rs.kinds}

    def _hand_env(self, h: Hand) -> dict[str, Any]:
        env = {name: getattr(h, name) for name in HAND_VARS if name not in CONSTS}
        env["hun_kinds"] = list(h.hun_kinds)
        for f in self.flags:  # type: ignore[attr-defined]
            env[f] = f in h.flags
        return env

    def _funcs(self, h: Hand) -> None:
        self._i.funcs["count"] = lambda k: h.counts[k]

    def request_errors(self, h: Hand) -> list[str]:
        self._funcs(h)
        env = self._hand_env(h)
        return [r.id for r in self.ruleset.request_rules if self._i.eval(r.error_when.ast, env)]

    request_errors_plain = request_errors  # the reference: every rule, whatever the hand
    free_t_plain = True  # and free_t asked of every hand

    def free_t(self, h: Hand) -> bool:
        if self.ruleset.free_when is None:
            return False
        self._funcs(h)
        return bool(self._i.eval(self.ruleset.free_when.ast, self._hand_env(h)))

    def _denv(self, h: Hand, melds: list, pair: Any, groups: list) -> dict[str, Any]:  # type: ignore[type-arg]
        self._funcs(h)
        env = self._hand_env(h)
        env.update(melds=melds, pair=pair, groups=groups)
        return env

    def holds(self, h: Hand, melds: list, pair: Any, groups: list) -> int:  # type: ignore[type-arg]
        env = self._denv(h, melds, pair, groups)
        m = 0
        for i, p in enumerate(self.ruleset.patterns):
            if self._i.eval(p.when.ast, env):
                m |= 1 << i
        return m

    def unless(self, h: Hand, melds: list, pair: Any, groups: list) -> int:  # type: ignore[type-arg]
        env = self._denv(h, melds, pair, groups)
        m = 0
        for j, u in enumerate(self._unless):
            if u is not None and self._i.eval(u, env):
                m |= 1 << j
        return m

    def fan(self, mask: int) -> int:
        env = {k: [v for i, v in items if mask >> i & 1] for k, items in self._kind_idx.items()}
        return int(self._i.eval(self.ruleset.algebra.ast, env))

    def total(self, h: Hand, fan: int, table: Expr | None = None) -> int:
        """What the score table in force (or `table`, another of the file's) shows for fan."""
        self._funcs(h)
        env = self._hand_env(h)
        env["fan"] = fan
        env["kong_points"] = self.kong_points.get(h.kong_draw, 0) if h.kong_draw else 0  # type: ignore[attr-defined]
        return int(self._i.eval((table or self.ruleset.total).ast, env))


def interpreter(rs: RuleSet) -> InterpretedRules:
    return InterpretedRules(rs)


def score(rules: InterpretedRules, request: Any) -> dict[str, Any]:
    return runtime.score_request(rules, request)


def waits(rules: InterpretedRules, request: Any) -> Any:
    return runtime.waits_request(rules, request)
