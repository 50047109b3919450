"""The plain data both backends hand to engine/: pattern tables,
claim bindings, the algebra's render plan (expr/plan.py). One function, so the interpreter
and the generated scorer cannot differ in them."""

from __future__ import annotations

from typing import Any

from ..expr import ast as A
from ..expr.check import Checker, Env, scope_vars
from ..expr.plan import algebra_plan
from ..ir import RuleSet


def static_tables(rs: RuleSet) -> dict[str, Any]:
    ids = tuple(p.id for p in rs.patterns)
    index = {pid: i for i, pid in enumerate(ids)}
    requires = tuple(sum(1 << index[r] for r in p.requires) for p in rs.patterns)
    conflicts = tuple((index[p.id], index[c.other]) for p in rs.patterns for c in p.conflicts)
    return {
        "info": {"name": rs.name, "profile": rs.profile, "sha256": rs.source_sha256, "options": dict(rs.overrides)},
        "request_messages": {r.id: r.message for r in rs.request_rules},
        "name": rs.name,
        "profile": rs.profile,
        "choices": dict(rs.choices),
        "option_values": {o.id: tuple(o.choices) for o in rs.options},
        "hun_count": rs.hun_count,
        "cycles": rs.cycles,
        "huns": rs.hun_table,  # indicator kind → its hun kinds (hun.huns, evaluated when compiled)
        "chow": rs.chow,
        "copies": rs.copies,
        "suits": list(rs.suits),
        "flags": tuple(f for f, _ in rs.flags),
        "min_fan": rs.min_fan,
        "kong_points": dict(rs.kong_points),
        "ids": ids,
        "names": tuple(p.name for p in rs.patterns),
        "kinds": rs.kinds,
        "kind_of": tuple(p.kind for p in rs.patterns),
        "values": tuple(p.value for p in rs.patterns),
        "requires": requires,
        "conflicts": conflicts,
        "plan": algebra_plan(rs.algebra.ast),
        # the winning condition (win_when) as a plan over the claimed kinds, fan and min_fan; None: fan >= min_fan
        "win_plan": algebra_plan(rs.win_when.ast) if rs.win_when is not None else None,
        "win_text": rs.win_when.text if rs.win_when is not None else "",
    }


def expression_types(rs: RuleSet) -> dict[int, str]:
    """Re-check every expression of a rule set for the type of each node."""
    types: dict[int, str] = {}
    defs = {d.name: len(d.params) for d in rs.definitions}

    def run(e: Any, scope: str, extra: dict[str, str] | None = None) -> None:
        if e is None:
            return
        ch = Checker(Env({**scope_vars(scope, rs.kinds, tuple(f for f, _ in rs.flags)), **(extra or {})},
                         defs if scope != "algebra" else {}))
        ch.check(e.ast)
        types.update(ch.types)

    for d in rs.definitions:
        run(d.body, "decomp", {p: "any" for p in d.params})
    for p in rs.patterns:
        run(p.when, "decomp")
        for c in p.conflicts:
            run(c.unless, "decomp")
    run(rs.algebra, "algebra")
    run(rs.win_when, "win")
    run(rs.free_when, "hand")
    run(rs.total, "total")
    for r in rs.request_rules:
        run(r.error_when, "hand")
    return types
