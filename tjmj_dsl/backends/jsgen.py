"""Core IR → the standalone JavaScript scorer (generated/<profile>/scorer.mjs,
one ES module, no dependencies) and its types (scorer.d.ts). The second
target beside codegen.py: the same expression ASTs through the JavaScript
emitter (expr/emit_js.py), the same group atoms (passes/atoms.py), and the
runtime of engine_js/ written once and inlined, as codegen.py inlines engine/.
Deterministic: sorted data, no timestamps; the header names the source and
its sha256."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

from ..expr.emit_js import JS_ATTRS, JsEmitter, js_comment, js_string
from ..expr.vocabulary import HAND_VARS, elem
from ..ir import RuleSet
from ..passes.atoms import NotAtomic, atom_tests
from .codegen import _env
from .tables import expression_types, static_tables

# Inlined into every scorer.mjs, in this order (each module's imports name the ones before it).
INLINED = ("pyjson.mjs", "tiles.mjs", "request.mjs", "hand.mjs", "expr.mjs", "search.mjs", "result.mjs",
           "runtime.mjs", "notation.mjs")
WIDE = 31  # from this many atom bits on, a group mask is a BigInt


def js_value(x: Any) -> str:
    """Plain data (str, int, bool, None, lists/tuples, dicts with str keys) as a JavaScript literal."""
    return json.dumps(x, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _py_str(x: Any) -> str:
    return str(x)


@lru_cache(maxsize=1)
def _inline() -> tuple[tuple[str, str], ...]:
    """The runtime modules without their import lines and `export` keywords."""
    pkg = resources.files("tjmj_dsl").joinpath("engine_js")
    out = []
    for name in INLINED:
        keep = []
        for line in pkg.joinpath(name).read_text(encoding="utf-8").splitlines():
            if line.startswith("import ") or re.match(r"^export \{.*\};$", line):
                continue
            keep.append(line[len("export "):] if line.startswith("export ") else line)
        out.append((name, "\n".join(keep).strip("\n")))
    return tuple(out)


def _key_code(names: list[str], flags: set[str], uses_count: bool) -> str:
    """A string naming the hand-level values `names` (values fixed by the rules left out)."""
    parts = []
    for c in names:
        if c in flags:
            parts.append(f"h.flags.has({js_string(c)})")
        elif not HAND_VARS[c].fixed:
            parts.append(f"_key(h.{c})" if elem(HAND_VARS[c].type) else f"h.{c}")
    if uses_count:
        parts.append("h.counts.join(\",\")")
    return "`" + "|".join("${" + p + "}" for p in parts) + "`"


def generate_js(rs: RuleSet) -> str:
    types = expression_types(rs)
    flags = tuple(f for f, _ in rs.flags)
    em = JsEmitter(types, {d.name for d in rs.definitions}, rs.kinds, flags)
    tables = static_tables(rs)
    patterns = [{"id": js_comment(p.id), "name": js_comment(p.name), "bit": f"{1 << i}n", "code": em.cond(p.when.ast)}
                for i, p in enumerate(rs.patterns)]
    unless: list[dict[str, str]] = []
    for p in rs.patterns:
        for c in p.conflicts:
            unless.append({"what": js_comment(f"{p.id} with {c.other}"), "bit": f"{1 << len(unless)}n",
                           "code": em.cond(c.unless.ast) if c.unless is not None else "false"})
    kind_items = [(k, js_value([[i, p.value] for i, p in enumerate(rs.patterns) if p.kind == k])) for k in rs.kinds]
    try:
        plan, agg_patterns, agg_unless, atoms = atom_tests(rs, JsEmitter)
        wide = plan.nbits > WIDE
        bit = (lambda b: f"{b}n") if wide else str

        def body(ctx: bool) -> list[dict[str, Any]]:
            return [{"var": "pair" if a.var == "pair" else "v_" + a.var,
                     "tests": [(t, bit(b)) for t, b in a.tests]} for a in atoms if a.ctx == ctx]
        masks: dict[str, Any] = {
            "nbits": plan.nbits, "zero": "0n" if wide else "0", "gmask": body(False), "gmask_ctx": body(True),
            "ctx_atoms": any(a.ctx for a in plan.atoms), "monotone": plan.monotone, "reads_and": plan.reads_and,
            "ctx": _key_code(plan.context, set(flags), plan.uses_count),
            "hkey": "`" + "|".join("${_key(" + c + ")}" for c in plan.hand_terms) + "`",
            "patterns": [{"id": js_comment(p.id), "bit": f"{1 << i}n", "code": c} for i, (p, c) in enumerate(zip(rs.patterns, agg_patterns))],
            "unless": [{"bit": f"{1 << j}n", "code": c} for j, c in enumerate(agg_unless)]}
    except NotAtomic as e:
        masks = {"why_not": js_comment(str(e))}
    data = {
        "name": js_value(tables["name"]), "profile": js_value(tables["profile"]),
        "choiceStr": js_value({k: _py_str(v) for k, v in tables["choices"].items()}),
        "choiceRepr": js_value({k: repr(v) for k, v in tables["choices"].items()}),
        "hunCount": js_value(tables["hun_count"]), "cycles": js_value(tables["cycles"]),
        "chow": js_value(tables["chow"]), "copies": js_value(tables["copies"]), "suits": js_value(tables["suits"]),
        "flags": js_value(tables["flags"]), "minFan": js_value(tables["min_fan"]),
        "kongPoints": js_value(tables["kong_points"]), "ids": js_value(tables["ids"]),
        "names": js_value(tables["names"]), "kinds": js_value(tables["kinds"]), "kindOf": js_value(tables["kind_of"]),
        "values": js_value(tables["values"]),
        "requires": "[" + ", ".join(f"{r}n" for r in tables["requires"]) + "]",
        "conflicts": js_value(tables["conflicts"]), "plan": js_value(tables["plan"]),
    }
    return _env().get_template("scorer.mjs.j2").render(
        source=js_comment(rs.source_file), sha256=rs.source_sha256, name=js_comment(rs.name),
        title=js_comment(rs.title), profile=js_comment(rs.profile or "(none)"),
        choices=js_comment(", ".join(f"{k}={v}" for k, v in rs.choices)), inlined=_inline(),
        any_attrs=[(t, a, code.format("o")) for t, table in sorted(JS_ATTRS.items()) for a, code in sorted(table.items())],
        definitions=[{"name": d.name, "params": d.params, "text": js_comment(d.body.text),
                      "code": em.emit(d.body.ast, frozenset(d.params))} for d in rs.definitions],
        request_rules=[{"id": js_comment(r.id), "code": em.cond(r.error_when.ast), "message": js_string(r.message)}
                       for r in rs.request_rules],
        free_t=em.cond(rs.free_when.ast) if rs.free_when is not None else "false",
        patterns=patterns, unless=unless, kind_items=kind_items, algebra=em.emit(rs.algebra.ast),
        total=em.emit(rs.total.ast), data=data, masks=masks)


def generate_dts(rs: RuleSet) -> str:
    flags = [f for f, _ in rs.flags]
    return _env().get_template("scorer.d.ts.j2").render(
        source=js_comment(rs.source_file), sha256=rs.source_sha256, name=js_comment(rs.name),
        profile=js_comment(rs.profile or "(none)"), flags=flags,
        patterns=[(p.id, js_comment(p.name)) for p in rs.patterns])


def generate_js_tests(rs: RuleSet, rows: list[Any]) -> str:
    """The known-value rows as a node:test file beside scorer.mjs."""
    cases = [{"id": js_value(r.id), "request": js_value(dict(sorted(r.request.items()))), "expected": r.expected,
              "patterns": js_value(list(r.patterns)), "printed": r.printed, "why": js_comment(r.why)}
             for r in rows if r.request is not None]
    return _env().get_template("test_known_values.mjs.j2").render(
        source=js_comment(rs.source_file), sha256=rs.source_sha256, profile=js_comment(rs.profile or "(none)"), cases=cases)
