"""Core IR → the standalone generated scorer (jinja2). Deterministic: sorted
data, no timestamps; the header names the source and its sha256."""

from __future__ import annotations

import itertools
import re
from functools import lru_cache
from importlib import resources
from typing import Any

import jinja2

from ..engine.contract import CONTRACT
from ..expr.emit import Emitter
from ..expr.fold import false_for_plain_hands
from ..expr.vocabulary import ATTRS_BY_TYPE, HAND_VARS, elem
from ..ir import RuleSet
from ..passes.atoms import NotAtomic, plan_atoms
from .settlement import settlement_code
from . import safe
from .safe import Code, py
from .tables import expression_types, static_tables

# Inlined into every scorer, in this order: one source of truth for tiles,
# requests and the decomposition engine.
INLINED = ("engine/lasting.py", "tiles.py", "engine/contract.py", "engine/shared.py", "engine/request.py", "engine/hand.py", "engine/search.py",
           "engine/result.py", "engine/runtime.py", "engine/settle.py")
DROP = "# tjmj:inline-drop"


@lru_cache(maxsize=3)
def _env(kind: str = "python") -> jinja2.Environment:
    """The template environment for Python (or Markdown) outputs: every `{{ }}`
    goes through safe.finalize_* (see safe.py), so rule-file text cannot be
    spliced in unescaped. "js": the JavaScript templates, whose values jsgen
    makes safe itself (js_string, js_value, js_comment)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("tjmj_dsl.backends", "templates"),
        keep_trailing_newline=True, trim_blocks=False, lstrip_blocks=False,
        autoescape=False, undefined=jinja2.StrictUndefined,
        finalize={"python": safe.finalize_python, "markdown": safe.finalize_markdown}.get(kind))
    env.filters.update(py=safe.py, comment=safe.comment, docstring=safe.docstring, label=safe.label, md=safe.md,
                       code=safe.code)
    return env


@lru_cache(maxsize=1)
def _inline() -> tuple[list[Code], list[tuple[Code, Code]]]:
    """The engine's modules as inlined into every scorer (read once per process)."""
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
        bodies.append((Code(name), Code("\n".join(keep).strip("\n"))))
    return [Code(i) for i in sorted(imports)], bodies


def _any_attrs() -> list[tuple[Code, Code]]:
    out = []
    for typ, table in sorted(ATTRS_BY_TYPE.items()):
        for attr, a in sorted(table.items()):
            out.append((py((typ, attr)), Code(a.py.format("o"))))
    return out


def generate_scorer(rs: RuleSet) -> str:
    types = expression_types(rs)
    flag_names = frozenset(f for f, _ in rs.flags)
    em = Emitter(types, {d.name for d in rs.definitions}, rs.kinds, tuple(f for f, _ in rs.flags))
    tables = static_tables(rs)
    imports, inlined = _inline()
    def code(n: Any, bound: frozenset[str] = frozenset()) -> Code:
        return Code(em.emit(n, bound))

    patterns = [{"id": p.id, "name": p.name, "bit": 1 << i, "code": code(p.when.ast)}
                for i, p in enumerate(rs.patterns)]
    unless = []
    j = 0
    for p in rs.patterns:
        for c in p.conflicts:
            unless.append({"what": f"{p.id} with {c.other}", "bit": 1 << j,
                           "code": code(c.unless.ast) if c.unless is not None else Code("False")})
            j += 1
    kind_items = [(k, py(tuple((i, p.value) for i, p in enumerate(rs.patterns) if p.kind == k))) for k in rs.kinds]
    table_lines = [(k, py(v)) for k, v in tables.items()]
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
        masks = {"nbits": plan.nbits, "gmask_body": Code(gmask_body), "gmask_ctx_body": Code(gmask_ctx_body),
                 "ctx_atoms": any(a.ctx for a in plan.atoms), "monotone": plan.monotone, "reads_and": plan.reads_and,
                 "ctx": Code(key_of(plan.context)),
                 "hkey": Code("(" + "".join(f"{c}, " for c in plan.hand_terms) + ("bytes(h.counts), " if plan.count_in_tests else "") + ")"),
                 "patterns": [{"id": p.id, "bit": 1 << i, "code": Code(c)} for i, (p, c) in enumerate(zip(rs.patterns, agg_patterns))],
                 "unless": [{"bit": 1 << j, "code": Code(c)} for j, c in enumerate(agg_unless)]}
    except (NotAtomic, RecursionError) as e:  # a tree too deep once inlined: enumerate instead
        masks = {"why_not": str(e)}
    return _env().get_template("scorer.py.j2").render(
        contract=CONTRACT, source=rs.source_file, sha256=rs.source_sha256, name=rs.name, title=rs.title, profile=rs.profile,
        choices=", ".join(f"{k}={v}" for k, v in rs.choices), imports=imports, inlined=inlined,
        any_attrs=_any_attrs(),
        definitions=[{"name": d.name, "params": d.params, "text": d.body.text, "code": code(d.body.ast, frozenset(d.params))}
                     for d in rs.definitions],
        request_rules=[{"id": r.id, "id_repr": py(r.id), "code": code(r.error_when.ast),
                        "plain": not false_for_plain_hands(r.error_when.ast, flag_names)}
                       for r in rs.request_rules],
        free_t=code(rs.free_when.ast) if rs.free_when is not None else Code("False"),
        free_t_plain=rs.free_when is not None and not false_for_plain_hands(rs.free_when.ast, flag_names),
        patterns=patterns, unless=unless, kind_items=kind_items, algebra=code(rs.algebra.ast),
        total=code(rs.total.ast), tables=table_lines,
        masks=masks, settlement=Code(settlement_code(rs)),
    )


_MODULE_IDS = itertools.count(1)
_ENGINE_MARK = "\n# ---- inlined from "
_RULES_MARK = "\n# ---- the rules, compiled from "
_ENGINE_CODE: dict[tuple[int, str, str], Any] = {}  # (first line, text of the inlined engine) → its code object


def _code(source: str, name: str) -> list[Any]:
    """The code objects of a scorer's source, in order. The inlined engine is the same text
    in every scorer of a compiler: it is compiled once per process, the header and the
    rules' part each time (with the first's `from __future__` flags, at their own lines)."""
    import __future__
    start, end = source.find(_ENGINE_MARK), source.find(_RULES_MARK)
    if not 0 < start < end:
        return [compile(source, f"<{name}>", "exec")]
    flags = __future__.annotations.compiler_flag
    head, engine, rules = source[:start], source[start:end], source[end:]
    first = head.count("\n")
    key = (first, name, engine)
    code = _ENGINE_CODE.get(key)
    if code is None:
        if len(_ENGINE_CODE) > 4:
            _ENGINE_CODE.clear()
        code = _ENGINE_CODE[key] = compile("\n" * first + engine, f"<{name}>", "exec", flags, dont_inherit=True)
    return [compile(head, f"<{name}>", "exec"), code,
            compile("\n" * (first + engine.count("\n")) + rules, f"<{name}>", "exec", flags, dont_inherit=True)]


def load_generated(source: str, name: str = "tjmj_generated_scorer") -> Any:
    """Execute generated scorer source as a fresh module (the CLI scores this
    way): the same as exec of the whole text, its parts run in order in one
    namespace (_code). Each module gets a name of its own (`name_N`), registered in
    sys.modules while it runs (dataclasses look their module up), so scorers
    built at once from several threads never share or clobber a slot."""
    import sys
    import types as _t
    unique = f"{name}_{next(_MODULE_IDS)}"  # itertools.count is atomic under the GIL
    mod = _t.ModuleType(unique)
    sys.modules[unique] = mod
    try:
        for code in _code(source, name):  # compiled as <name>: the engine's code object is shared
            exec(code, mod.__dict__)  # noqa: S102 - our own generated code
    finally:
        sys.modules.pop(unique, None)
    return mod
