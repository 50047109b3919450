"""Core IR → the standalone generated scorer (jinja2). Deterministic: sorted
data, no timestamps; the header names the source and its sha256."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Any

import jinja2

from ..engine.contract import CONTRACT
from ..expr.emit import Emitter
from ..expr.vocabulary import ATTRS_BY_TYPE, HAND_VARS, elem
from ..ir import RuleSet
from ..passes.atoms import NotAtomic, plan_atoms
from .settlement import settlement_code
from .tables import expression_types, static_tables

# Inlined into every scorer, in this order: one source of truth for tiles,
# requests and the decomposition engine.
INLINED = ("tiles.py", "engine/contract.py", "engine/request.py", "engine/hand.py", "engine/search.py",
           "engine/result.py", "engine/runtime.py", "engine/settle.py")
DROP = "# tjmj:inline-drop"


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("tjmj_dsl.backends", "templates"),
        keep_trailing_newline=True, trim_blocks=False, lstrip_blocks=False,
        autoescape=False, undefined=jinja2.StrictUndefined)


def _inline() -> tuple[list[str], list[tuple[str, str]]]:
    imports: set[str] = set()
    bodies = []
    pkg = resources.files("tjmj_dsl")
    for name in INLINED:
        src = pkg.joinpath(name).read_text(encoding="utf-8")
        keep = []
        for line in src.splitlines():
            if line.rstrip().endswith(DROP) or line.startswith("from __future__"):
                continue
            if re.match(r"^(import |from \S+ import )", line):
                imports.add(line)
                continue
            keep.append(line)
        bodies.append((name, "\n".join(keep).strip("\n")))
    return sorted(imports), bodies


def _any_attrs() -> list[tuple[str, str]]:
    out = []
    for typ, table in sorted(ATTRS_BY_TYPE.items()):
        for attr, a in sorted(table.items()):
            out.append((repr((typ, attr)), a.py.format("o")))
    return out


def generate_scorer(rs: RuleSet) -> str:
    types = expression_types(rs)
    em = Emitter(types, {d.name for d in rs.definitions}, rs.kinds, tuple(f for f, _ in rs.flags))
    tables = static_tables(rs)
    imports, inlined = _inline()
    patterns = [{"id": p.id, "name": p.name, "bit": 1 << i, "code": em.emit(p.when.ast)}
                for i, p in enumerate(rs.patterns)]
    unless = []
    j = 0
    for p in rs.patterns:
        for c in p.conflicts:
            unless.append({"what": f"{p.id} with {c.other}", "bit": 1 << j,
                           "code": em.emit(c.unless.ast) if c.unless is not None else "False"})
            j += 1
    kind_items = [(k, repr(tuple((i, p.value) for i, p in enumerate(rs.patterns) if p.kind == k))) for k in rs.kinds]
    table_lines = [(k, repr(v)) for k, v in tables.items()]
    try:
        plan, agg_patterns, agg_unless, gmask_body, gmask_ctx_body = plan_atoms(rs)
        def key_of(names: list[str]) -> str:
            """A hashable tuple of the hand-level values `names`: values fixed by the rules left out."""
            parts = []
            for c in names:
                if c in dict(rs.flags):
                    parts.append(f"({c!r} in h.flags), ")
                elif not HAND_VARS[c].fixed:
                    parts.append(f"tuple(h.{c}), " if elem(HAND_VARS[c].type) else f"h.{c}, ")
            return "(" + "".join(parts) + ("bytes(h.counts), " if plan.uses_count else "") + ")"
        masks = {"nbits": plan.nbits, "gmask_body": gmask_body, "gmask_ctx_body": gmask_ctx_body,
                 "ctx_atoms": any(a.ctx for a in plan.atoms), "monotone": plan.monotone, "reads_and": plan.reads_and,
                 "ctx": key_of(plan.context), "hkey": "(" + "".join(f"{c}, " for c in plan.hand_terms) + ("bytes(h.counts), " if plan.count_in_tests else "") + ")",
                 "patterns": [{"id": p.id, "bit": 1 << i, "code": c} for i, (p, c) in enumerate(zip(rs.patterns, agg_patterns))],
                 "unless": [{"bit": 1 << j, "code": c} for j, c in enumerate(agg_unless)]}
    except NotAtomic as e:
        masks = {"why_not": str(e)}
    return _env().get_template("scorer.py.j2").render(
        contract=CONTRACT, source=rs.source_file, sha256=rs.source_sha256, name=rs.name, title=rs.title, profile=rs.profile,
        choices=", ".join(f"{k}={v}" for k, v in rs.choices), imports=imports, inlined=inlined,
        any_attrs=_any_attrs(),
        definitions=[{"name": d.name, "params": d.params, "text": d.body.text, "code": em.emit(d.body.ast, frozenset(d.params))}
                     for d in rs.definitions],
        request_rules=[{"id": r.id, "id_repr": repr(r.id), "code": em.emit(r.error_when.ast)} for r in rs.request_rules],
        free_t=em.emit(rs.free_when.ast) if rs.free_when is not None else "False",
        patterns=patterns, unless=unless, kind_items=kind_items, algebra=em.emit(rs.algebra.ast),
        total=em.emit(rs.total.ast), tables=table_lines,
        masks=masks, settlement=settlement_code(rs),
    )


def load_generated(source: str, name: str = "tjmj_generated_scorer") -> Any:
    """Execute generated scorer source as a fresh module (the CLI scores this way)."""
    import types as _t
    mod = _t.ModuleType(name)
    mod.__dict__["__name__"] = name
    import sys
    sys.modules[name] = mod  # dataclasses need the module registered
    try:
        exec(compile(source, f"<{name}>", "exec"), mod.__dict__)  # noqa: S102 - our own generated code
    finally:
        sys.modules.pop(name, None)
    return mod
