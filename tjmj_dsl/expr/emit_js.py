"""Expressions → JavaScript source for the generated scorer.mjs: the same AST
and the same frame as the Python emitter (expr/emit.py), Python's meaning kept
where JavaScript's differs (the truth of an empty list, floor division, an
empty min/max, list equality). Names reach the same locals as in Python:
`h.<name>` for the hand, `v_<x>` for a quantifier's variable, `k_<kind>` in
the algebra, `d_<name>(h, melds, pair, groups, …)` for a definition."""

from __future__ import annotations

import json
from typing import Any

from ..inert import inert

from . import ast as A
from .emit import quantifier as _py_quantifier  # noqa: F401 - the Python counterpart, for readers
from .vocabulary import ANY, ATTRS_BY_TYPE, BOOL, INT, NONE, STR, TILE

# How each attribute reads a runtime value (engine_js/hand.mjs: a group is a
# Group object, a slot a [face, hun, is_t] array, a tile its kind number).
JS_ATTRS: dict[str, dict[str, str]] = {
    "group": {
        "is_pair": "({0}.kind === 0)",
        "is_chow": "({0}.kind === 1)",
        "is_pung": "({0}.kind === 2)",
        "is_kong": "({0}.kind === 3)",
        "is_meld": "({0}.kind !== 0)",
        "suit": "{0}.suit",
        "rank": "{0}.rank",
        "face": "{0}.faces[0]",
        "faces": "{0}.faces",
        "huns": "{0}.nhuns",
        "huns_besides_t": "({0}.nhuns - ({0}.tslot >= 0 && {0}.hunmask[{0}.tslot] ? 1 : 0))",
        "has_t": "({0}.tslot >= 0)",
        "t_face": "({0}.tslot >= 0 ? {0}.faces[{0}.tslot] : null)",
        "declared": "{0}.declared",
        "concealed": "{0}.concealed",
        "slots": "groupSlots({0})",
    },
    "slot": {"face": "{0}[0]", "hun": "{0}[1]", "is_t": "{0}[2]"},
    "tile": {"suit": "SUIT_OF[{0}]", "rank": "RANK_OF[{0}]"},
}
assert {t: set(a) for t, a in JS_ATTRS.items()} == {t: set(a) for t, a in ATTRS_BY_TYPE.items()}, \
    "every attribute of the vocabulary needs its JavaScript form"

VAR_CODE = {
    "true": "true", "false": "false", "none": "null",
    "melds": "melds", "pair": "pair", "groups": "groups",
    "fan": "fan", "kong_points": "kong_points",
}

# types whose values JavaScript compares with === as Python compares them with ==
_PRIMITIVE = {BOOL, INT, STR, TILE, NONE}
_QUANT_FN = {"count": "_count", "sum": "_sumOf", "product": "_productOf", "min": "_minOf", "max": "_maxOf"}


def js_string(s: str) -> str:
    """A JavaScript string literal for any text (JSON's escapes, and the two
    line separators JavaScript once treated as line ends)."""
    return js_literal_text(json.dumps(s, ensure_ascii=False))


def js_literal_text(text: str) -> str:
    """JSON text made safe to write into a .mjs file and an HTML <script>:
    every character that is not printable (the two line separators, a
    bidirectional override, which would make the code read otherwise than it
    runs, lone surrogates, which UTF-8 cannot hold) and `<` (so no `</script>`
    or `<!--` appears) as \\u escapes (a pair of them past U+FFFF)."""
    if text.isprintable() and "<" not in text:
        return text
    return "".join(c if c.isprintable() and c != "<" else _js_escape(c) for c in text)


def js_value(x: Any) -> str:
    """Plain data (str, int, bool, None, lists/tuples, dicts with str keys) as a JavaScript literal."""
    return js_literal_text(json.dumps(x, ensure_ascii=False))


def _js_escape(c: str) -> str:
    o = ord(c)
    if o < 0x10000:
        return "\\u%04x" % o
    o -= 0x10000
    return "\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF))


def js_comment(s: str) -> str:
    """Text made safe for a // comment and inside a /* */ or /** */ one
    (backends/safe.py's inert: no line end of any kind, no NUL or lone
    surrogate survives; and `*/`, which would end a block comment, is
    written `*\\/`)."""
    return inert(s).replace("*/", "*\\/")


def _primitive(t: str) -> bool:
    return t.rstrip("?") in _PRIMITIVE


class JsEmitter:
    # the target's syntax for the atom planner (passes/atoms.py)
    FOLD, FOLDED = r"_bit\(\(([\d +*]+)\), ", "_bit({}, "

    def __init__(self, types: dict[int, str], definitions: set[str], kinds: tuple[str, ...] = (),
                 flags: tuple[str, ...] = ()) -> None:
        self.types = types
        self.definitions = definitions
        self.kinds = set(kinds)
        self.flags = set(flags)

    # -- hooks for passes/atoms.py --------------------------------------------------------
    def bit_test(self, src: str, idx: str) -> str:
        return f"_bit(({idx}), {src})"

    def bool_join(self, op: str, parts: list[str]) -> str:
        return "(" + (" || " if op == "or" else " && ").join(parts) + ")"

    def indexed_quantifier(self, op: str, body: str, var: str, dom: str) -> str:
        return self._quant(op, body, f"(v_{var}, i_{var})", dom)

    def cond(self, n: A.Node, bound: frozenset[str] = frozenset()) -> str:
        return self.truth(n, bound)

    def quant_body(self, op: str, n: A.Node, bound: frozenset[str]) -> str:
        return self.truth(n, bound) if op in ("any", "all", "count") else self.emit(n, bound)

    # -- expressions ------------------------------------------------------------------------
    def primitive(self, t: str) -> bool:
        """Values of type t compare with === as Python compares them with ==."""
        return _primitive(t)

    def type_of(self, n: A.Node) -> str:
        return self.types.get(id(n), ANY)

    def truth(self, n: A.Node, bound: frozenset[str] = frozenset()) -> str:
        """n as a JavaScript boolean with Python's truth (an empty list is false)."""
        code = self.emit(n, bound)
        return code if self.type_of(n) == BOOL else f"_truthy({code})"

    def _quant(self, op: str, body: str, params: str, dom: str) -> str:
        if op in ("any", "all"):
            return f"{dom}.{'some' if op == 'any' else 'every'}({params} => {body})"
        return f"{_QUANT_FN[op]}({dom}, {params} => {body})"

    def emit(self, n: A.Node, bound: frozenset[str] = frozenset()) -> str:  # noqa: C901 - one case per node type
        e = self.emit
        if isinstance(n, A.Num):
            return str(n.value)
        if isinstance(n, A.Str):
            return js_string(n.value)
        if isinstance(n, A.TileLit):
            return str(n.kind)
        if isinstance(n, A.Name):
            if n.id in bound:
                return f"v_{n.id}"
            if n.id in self.kinds:
                return f"k_{n.id}"
            if n.id in self.flags:
                return f"h.flags.has({js_string(n.id)})"
            return VAR_CODE.get(n.id, f"h.{n.id}")
        if isinstance(n, A.Attr):
            obj = e(n.obj, bound)
            ot = self.type_of(n.obj)
            table = JS_ATTRS.get(ot.rstrip("?"))
            if table is None:
                return f"_attrAny({obj}, {js_string(n.name)})"
            code = table[n.name].format(obj)
            if ot.endswith("?"):
                return f"({obj} === null ? null : {code})"
            return code
        if isinstance(n, A.Call):
            args = [e(a, bound) for a in n.args]
            if n.func in self.definitions:
                return f"d_{n.func}(h, melds, pair, groups, {', '.join(args)})"
            if n.func == "count":
                return f"h.counts[{args[0]}]"
            if n.func == "next":
                return f"nextKind({args[0]}, RULES.cycles)"
            if n.func == "len":  # a text's length in code points, as Python counts (JavaScript's .length: UTF-16 units)
                t = self.type_of(n.args[0])
                return f"{args[0]}.length" if t.startswith("list") else f"_len({args[0]})"
            fn = {"sorted": "_sorted", "sum": "_sum", "product": "_product", "min": "_min", "max": "_max"}[n.func]
            return f"{fn}({', '.join(args)})"
        if isinstance(n, A.Quant):
            inner = bound | {n.var}
            body = self.quant_body(n.op, n.body, inner)
            return self._quant(n.op, body, f"(v_{n.var})", e(n.domain, bound))
        if isinstance(n, A.BinOp):
            if n.op == "/":
                return f"_div({e(n.left, bound)}, {e(n.right, bound)})"
            return f"({e(n.left, bound)} {n.op} {e(n.right, bound)})"
        if isinstance(n, A.Neg):
            return f"(-{e(n.operand, bound)})"
        if isinstance(n, A.BoolOp):
            return "(" + (" && " if n.op == "and" else " || ").join(self.truth(i, bound) for i in n.items) + ")"
        if isinstance(n, A.Not):
            return f"(!{self.truth(n.operand, bound)})"
        if isinstance(n, A.Compare):
            a, b = e(n.left, bound), e(n.right, bound)
            ta, tb = self.type_of(n.left), self.type_of(n.right)
            if n.op in ("in", "notin"):
                elem = tb.rstrip("?")
                elem = elem[5:-1] if elem.startswith("list[") else ANY
                code = f"{b}.includes({a})" if self.primitive(elem) and self.primitive(ta) else f"_in({a}, {b})"
                return code if n.op == "in" else f"(!{code})"
            if n.op in ("==", "!="):
                if self.primitive(ta) and self.primitive(tb):
                    return f"({a} {n.op}= {b})"
                return f"_eq({a}, {b})" if n.op == "==" else f"(!_eq({a}, {b}))"
            if {ta, tb} <= {INT, TILE}:  # neither side can be none: a plain comparison
                return f"({a} {n.op} {b})"
            return f"_cmp({a}, {js_string(n.op)}, {b})"
        if isinstance(n, A.IfElse):
            return f"({self.truth(n.cond, bound)} ? {e(n.then, bound)} : {e(n.other, bound)})"
        if isinstance(n, A.ListLit):
            return "[" + ", ".join(e(i, bound) for i in n.items) + "]"
        raise TypeError(n)  # pragma: no cover
