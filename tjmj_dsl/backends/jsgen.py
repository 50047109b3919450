"""Core IR → the standalone JavaScript scorer (generated/<profile>/scorer.mjs,
one ES module, no dependencies) and its types (scorer.d.mts). The second
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

from ..engine import contract
from ..expr.emit_js import JS_ATTRS, JsEmitter, js_comment, js_string, js_value
from ..expr.vocabulary import HAND_VARS, elem
from ..ir import RuleSet
from ..passes.atoms import NotAtomic, atom_tests
from .codegen import _env
from .safe import word
from .tables import expression_types, static_tables

# Inlined into every scorer.mjs, in this order (each module's imports name the ones before it).
INLINED = ("pyjson.mjs", "tiles.mjs", "request.mjs", "hand.mjs", "expr.mjs", "search.mjs", "result.mjs",
           "runtime.mjs", "settle.mjs", "notation.mjs")
WIDE = 31  # from this many atom bits on, a group mask is a BigInt
WIDE_PATTERNS = 30  # past this many patterns (or conflicts), pattern masks are BigInts


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


def contract_js() -> list[tuple[str, str]]:
    """The contract's declarations (engine/contract.py) the runtime reads, as JavaScript constants."""
    names = ("CONTRACT", "MELD_TYPES", "KONG_DRAWS", "KONG_CHAIN_MAX", "REQUEST_FIELDS", "REFUSED", "SEATS", "KONG_TYPES",
             "OUTCOME_FIELDS", "OUTCOME_KONG_FIELDS", "OUTCOME_ROUND_FIELDS", "MAX_ROUNDS", "MAX_TOTAL",
             "MAX_HELD")
    return [(n, js_value(getattr(contract, n))) for n in names]


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


def _hkey_lines(terms: list[str], counts: bool) -> list[str]:
    """The body of _hkey: the hand-level terms of the pattern tests as one key.
    When they are all booleans (as the Tianjin rules' are) the key is a small
    int, one bit each, found in a Map without building and hashing a string;
    otherwise a string naming each value (and the counts when a test reads them)."""
    if not terms:
        return ["return " + ('h.counts.join(",")' if counts else "0") + ";"]
    out = ["const " + ", ".join(f"a{i} = {c}" for i, c in enumerate(terms)) + ";"]
    if len(terms) <= 30 and not counts:
        out.append("if (" + " && ".join(f'typeof a{i} === "boolean"' for i in range(len(terms))) + ") {")
        out.append("  return " + " + ".join(f"(a{i} ? {1 << i} : 0)" for i in range(len(terms))) + ";")
        out.append("}")
    out.append("return `" + "|".join(["${_key(a%d)}" % i for i in range(len(terms))]
                                     + (["${h.counts.join(\",\")}"] if counts else [])) + "`;")
    return out


_LAST: list[tuple[RuleSet, str]] = []  # the last rule set generated and its module: the rulebook embeds the same text


def generate_js(rs: RuleSet) -> str:
    """scorer.mjs for one rule set and profile."""
    if _LAST and _LAST[0][0] is rs:
        return _LAST[0][1]
    text = _generate_js(rs)
    _LAST[:] = [(rs, text)]
    return text


def _generate_js(rs: RuleSet) -> str:
    types = expression_types(rs)
    flags = tuple(f for f, _ in rs.flags)
    wide_masks = max(len(rs.patterns), sum(len(p.conflicts) for p in rs.patterns)) > WIDE_PATTERNS
    pbit = (lambda i: f"{1 << i}n") if wide_masks else (lambda i: str(1 << i))
    em = JsEmitter(types, {d.name for d in rs.definitions}, rs.kinds, flags)
    tables = static_tables(rs)
    patterns = [{"id": js_comment(p.id), "name": js_comment(p.name), "bit": pbit(i), "code": em.cond(p.when.ast)}
                for i, p in enumerate(rs.patterns)]
    unless: list[dict[str, str]] = []
    for p in rs.patterns:
        for c in p.conflicts:
            unless.append({"what": js_comment(f"{p.id} with {c.other}"), "bit": pbit(len(unless)),
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
            "ctx_bits": "null" if wide else str(sum({b for a in atoms if a.ctx for _, b in a.tests})),
            "ctx": _key_code(plan.context, set(flags), plan.uses_count),
            "hkey": _hkey_lines(plan.hand_terms, plan.count_in_tests),
            "patterns": [{"id": js_comment(p.id), "bit": pbit(i), "code": c} for i, (p, c) in enumerate(zip(rs.patterns, agg_patterns))],
            "unless": [{"bit": pbit(j), "code": c} for j, c in enumerate(agg_unless)]}
    except NotAtomic as e:
        masks = {"why_not": js_comment(str(e))}
    data = {
        "info": js_value(tables["info"]), "requestMessages": js_value(tables["request_messages"]),
        "name": js_value(tables["name"]), "profile": js_value(tables["profile"]),
        "choices": js_value(tables["choices"]),
        "choiceRepr": js_value({k: repr(v) for k, v in tables["choices"].items()}),
        "optionValues": js_value({k: list(v) for k, v in tables["option_values"].items()}),
        "hunCount": js_value(tables["hun_count"]), "cycles": js_value(tables["cycles"]),
        "huns": js_value(tables["huns"]),
        "chow": js_value(tables["chow"]), "copies": js_value(tables["copies"]), "suits": js_value(tables["suits"]),
        "flags": js_value(tables["flags"]), "minFan": js_value(tables["min_fan"]),
        "kongPoints": js_value(tables["kong_points"]), "ids": js_value(tables["ids"]),
        "names": js_value(tables["names"]), "kinds": js_value(tables["kinds"]), "kindOf": js_value(tables["kind_of"]),
        "values": js_value(tables["values"]),
        "requires": "[" + ", ".join(f"{r}n" if wide_masks else str(r) for r in tables["requires"]) + "]",
        "wideMasks": "true" if wide_masks else "false",
        "conflicts": js_value(tables["conflicts"]), "plan": js_value(tables["plan"]),
        "winPlan": js_value(tables["win_plan"]), "winText": js_value(tables["win_text"]),
    }
    return _env("js").get_template("scorer.mjs.j2").render(
        source=js_comment(rs.source_file), sha256=rs.source_sha256, name=js_comment(rs.name),
        title=js_comment(rs.title), profile=js_comment(rs.profile or "(none)"),
        choices=js_comment(", ".join(f"{k}={v}" for k, v in rs.choices)), inlined=_inline(),
        any_attrs=[(t, a, code.format("o")) for t, table in sorted(JS_ATTRS.items()) for a, code in sorted(table.items())],
        definitions=[{"name": d.name, "params": d.params, "text": js_comment(d.body.text),
                      "code": em.emit(d.body.ast, frozenset(d.params))} for d in rs.definitions],
        request_rules=[{"id": js_string(r.id), "code": em.cond(r.error_when.ast)} for r in rs.request_rules],
        contract=contract_js(), contract_version=contract.CONTRACT,
        free_t=em.cond(rs.free_when.ast) if rs.free_when is not None else "false",
        patterns=patterns, unless=unless, kind_items=kind_items, algebra=em.emit(rs.algebra.ast),
        total=em.emit(rs.total.ast), data=data, masks=masks, settlement=settlement_js(rs), mzero="0n" if wide_masks else "0",
        has_bit="((s >> BigInt(i)) & 1n) === 1n" if wide_masks else "((s >>> i) & 1) === 1")


def generate_dts(rs: RuleSet) -> str:
    flags = [f for f, _ in rs.flags]
    return _env("js").get_template("scorer.d.mts.j2").render(
        source=js_comment(rs.source_file), sha256=rs.source_sha256, name=js_comment(rs.name),
        profile=js_comment(rs.profile or "(none)"), flags=flags, contract=contract.CONTRACT,
        patterns=[(p.id, js_comment(p.name)) for p in rs.patterns])


def generate_js_tests(rs: RuleSet, rows: list[Any]) -> str:
    """The known-value rows as a node:test file beside scorer.mjs."""
    cases = [{"id": js_value(r.id), "request": js_value(dict(sorted(r.request.items()))), "expected": r.expected,
              "patterns": js_value(list(r.patterns)), "printed": r.printed, "why": js_comment(r.why)}
             for r in rows if r.request is not None]
    return _env("js").get_template("test_known_values.mjs.j2").render(
        source=js_comment(rs.source_file), sha256=rs.source_sha256, profile=js_comment(rs.profile or "(none)"), cases=cases)


def settlement_js(rs: RuleSet) -> str:
    """The settlement as JavaScript for scorer.mjs (as backends/settlement.py writes
    it for Python): functions over the outcome `o`, and `_SETTLEMENT` (null when
    the rules have none)."""
    st = rs.settlement
    if st is None:
        return "const _SETTLEMENT = null;\n"
    from ..expr.settle import amount_terms
    from ..expr.settle_js import JsSettleEmitter
    from .settlement import settlement_types
    play = dict(st.play)
    em = JsSettleEmitter(settlement_types(st), play, {d.name for d in st.definitions})
    out: list[str] = []
    for d in st.definitions:
        params = "".join(f", v_{word(n)}" for n, _ in d.params)
        out += ["", f"function sd_{word(d.name)}(o{params}) {{", f"  // {js_comment(d.body.text)}",
                f"  return {em.emit(d.body.ast, frozenset(n for n, _ in d.params))};", "}"]
    out += ["", "function _settleChecks(o) {", "  const out = [];"]
    for r in st.outcome_rules:
        out.append(f"  if ({em.cond(r.error_when.ast)}) out.push([{js_string(r.id)}, {js_string(r.field)}, {js_string(r.message)}]);")
    out += ["  return out;", "}"]
    entries = []
    for i, p in enumerate(st.payments):
        fn = f"_pay{i}"
        bound = frozenset([p.var] if p.var else [])
        inner = bound | {"payer", "payee"}
        terms = ", ".join(em.emit(t, inner) for t in amount_terms(p.amount.ast))
        items = em.emit(p.items.ast) if p.items is not None and p.var else "[null]"
        var = f"v_{word(p.var)}" if p.items is not None and p.var else "_item"
        index = "_i" if p.items is not None and p.var else "null"
        out += ["", f"function {fn}(o) {{", f"  // {js_comment(p.id)}: {js_comment(p.amount.text)}",
                "  const out = [];", "  const skipped = [];", f"  const items = {items};",
                "  for (let _i = 0; _i < items.length; _i++) {", f"    const {var} = items[_i];"]
        if p.when is not None:
            out += [f"    if (!({em.cond(p.when.ast, bound)})) {{", f"      skipped.push({index});", "      continue;", "    }"]
        out += [f"    for (const v_payer of seatList({em.emit(p.payer.ast, bound)})) {{",
                f"      for (const v_payee of seatList({em.emit(p.payee.ast, bound)})) {{",
                f"        if (v_payer !== v_payee) out.push([v_payer, v_payee, {em.emit(p.amount.ast, inner)}, [{terms}]]);",
                "      }", "    }", "  }", "  return [out, skipped];", "}"]
        entries.append(f"[{js_string(p.id)}, {js_string(p.reason)}, {js_string(p.amount.text)}, {js_value(p.terms)}, "
                       f"{js_string(p.when.text if p.when else '')}, {fn}]")
    out += ["", "function _nextDealer(o) {", f"  // {js_comment(st.rotation.id)}: {js_comment(st.rotation.next_dealer.text)}",
            f"  return {em.emit(st.rotation.next_dealer.ast)};", "}", "",
            "const _SETTLEMENT = {", f"  play: {js_value(play)},", f"  scoreTable: {js_string(rs.score_table)},",
            "  checks: _settleChecks,", "  nextDealer: _nextDealer,", "  payments: ["]
    out += [f"    {e}," for e in entries]
    out += ["  ],", "};"]
    return "\n".join(out).lstrip("\n") + "\n"
