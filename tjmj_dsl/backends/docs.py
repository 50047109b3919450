"""Core IR (+ known values) → the generated tests and the rulebook."""

from __future__ import annotations


from ..expr.vocabulary import DECOMP_VARS, FUNCS, GROUP_ATTRS, HAND_VARS, QUANTS, SLOT_ATTRS, TILE_ATTRS
from ..ir import RuleSet
from ..known import Row
from ..tiles import name as tile_name
from .codegen import _env


def generate_tests(rs: RuleSet, rows: list[Row]) -> str:
    cases = []
    impossible = []
    for r in rows:
        if r.request is None:
            impossible.append({"id": r.id, "printed": r.printed, "why": r.why})
            continue
        cases.append({"id": r.id, "request": repr(dict(sorted(r.request.items()))),
                      "expected": r.expected, "patterns": list(r.patterns), "printed": r.printed, "why": r.why})
    return _env().get_template("test_known_values.py.j2").render(rs=rs, cases=cases, impossible=impossible)


def generate_rulebook(rs: RuleSet, rows: list[Row], source: str) -> str:
    hun_example = "7p → huns 7p, 8p"
    return _env().get_template("rulebook.md.j2").render(
        rs=rs, rows=rows, source=source, choices=dict(rs.choices), hun_example=hun_example,
        kong_points=dict(rs.kong_points), cycles=[" → ".join(tile_name(k) for k in c) for c in rs.cycles],
        hand_vars=HAND_VARS, decomp_vars=DECOMP_VARS, group_attrs=GROUP_ATTRS, slot_attrs=SLOT_ATTRS,
        tile_attrs=TILE_ATTRS, funcs=FUNCS, quants=QUANTS)


def vocabulary_markdown() -> str:
    """The expression language's names, for the README (kept in sync by a test)."""
    out = ["| name | type | meaning |", "|---|---|---|"]
    for k, v in {**HAND_VARS, **DECOMP_VARS}.items():
        out.append(f"| `{k}` | {v.type} | {v.doc} |")
    out.append("| each of the rule file's `request_flags` | bool | what the request says of how the hand was won |")
    out.append("")
    out.append("| attribute | of | type | meaning |")
    out.append("|---|---|---|---|")
    for of, table in (("group", GROUP_ATTRS), ("slot", SLOT_ATTRS), ("tile", TILE_ATTRS)):
        for k, a in table.items():
            out.append(f"| `.{k}` | {of} | {a.type} | {a.doc} |")
    out.append("")
    out.append("| function | meaning |")
    out.append("|---|---|")
    for k, f in FUNCS.items():
        out.append(f"| `{k}({', '.join(f.params)})` | {f.doc} |")
    for k, d in QUANTS.items():
        out.append(f"| `{k}(x in xs: body)` | {d} |")
    return "\n".join(out) + "\n"



def settle_vocabulary_markdown() -> str:
    """The settlement's names, for the README (kept in sync by a test)."""
    from ..expr.settle import BOUND, KONG_ATTRS, SEAT_ATTRS, SETTLE_FUNCS, SETTLE_VARS
    out = ["| name | type | meaning |", "|---|---|---|"]
    for k, v in SETTLE_VARS.items():
        out.append(f"| `{k}` | {v.type} | {v.doc} |")
    for k, doc in BOUND.items():
        out.append(f"| `{k}` | seat | {doc} |")
    out += ["", "| attribute | of | type | meaning |", "|---|---|---|---|"]
    for of, table in (("seat", SEAT_ATTRS), ("kong", KONG_ATTRS)):
        for k, a in table.items():
            out.append(f"| `.{k}` | {of} | {a.type} | {a.doc} |")
    out += ["", "| function | meaning |", "|---|---|"]
    for k, f in SETTLE_FUNCS.items():
        out.append(f"| `{k}({', '.join(f.params)})` | {f.doc} |")
    out.append("| `any/all/count/sum/product/min/max(x in xs: body)` | as in the patterns |")
    return "\n".join(out) + "\n"
