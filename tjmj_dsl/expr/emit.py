"""Expressions → Python source for the generated scorer. Each name maps to a
local of the generated function (see backends/codegen.py for the frame)."""

from __future__ import annotations

from . import ast as A
from .vocabulary import ANY, ATTRS_BY_TYPE, BOOL, elem

# How a scope variable is reached from generated code.
VAR_CODE = {
    "true": "True", "false": "False", "none": "None",
    "melds": "melds", "pair": "pair", "groups": "groups",
    "fan": "fan", "kong_points": "kong_points",
}


def quantifier(op: str, body: str, gen: str) -> str:
    """A quantifier as a Python generator expression; `gen` is its `for` clause."""
    if op in ("any", "all"):
        return f"{op}({body} {gen})"
    if op == "count":
        return f"sum(1 {gen} if {body})"
    if op == "sum":
        return f"sum({body} {gen})"
    if op == "product":
        return f"_prod({body} {gen})"
    return f"{op}(({body} {gen}), default=0)"


class Emitter:
    # the target's syntax for the atom planner (passes/atoms.py): a bit test, a
    # constant bit position folded in it, tests joined, a quantifier with its index
    FOLD, FOLDED = r">> \(([\d +*]+)\)", ">> {}"

    def bit_test(self, src: str, idx: str) -> str:
        return f"({src} >> ({idx}) & 1 == 1)"

    def bool_join(self, op: str, parts: list[str]) -> str:
        return "(" + f" {op} ".join(parts) + ")"

    def indexed_quantifier(self, op: str, body: str, var: str, dom: str) -> str:
        return quantifier(op, body, f"for i_{var}, v_{var} in enumerate({dom})")

    def cond(self, n: A.Node, bound: frozenset[str] = frozenset()) -> str:
        """n where a condition is read (Python's own truth: the code as it is)."""
        return self.emit(n, bound)

    def quant_body(self, op: str, n: A.Node, bound: frozenset[str]) -> str:
        """The body of a quantifier `op`."""
        return self.emit(n, bound)

    def __init__(self, types: dict[int, str], definitions: set[str], kinds: tuple[str, ...] = (),
                 flags: tuple[str, ...] = ()) -> None:
        self.types = types
        self.definitions = definitions
        self.kinds = set(kinds)
        self.flags = set(flags)

    def _is_bool(self, n: A.Node) -> bool:
        """n's value is a truth value (its type says so): `and`/`or` need no bool() around it."""
        return self.types.get(id(n), ANY) == BOOL

    def emit(self, n: A.Node, bound: frozenset[str] = frozenset()) -> str:  # noqa: C901
        e = self.emit
        if isinstance(n, A.Num):
            return str(n.value)
        if isinstance(n, A.Str):
            return repr(n.value)
        if isinstance(n, A.TileLit):
            return f"{n.kind}"
        if isinstance(n, A.Name):
            if n.id in bound:
                return f"v_{n.id}"
            if n.id in self.kinds:
                return f"k_{n.id}"
            if n.id in self.flags:
                return f"({n.id!r} in h.flags)"
            return VAR_CODE.get(n.id, f"h.{n.id}")
        if isinstance(n, A.Attr):
            obj = e(n.obj, bound)
            ot = self.types.get(id(n.obj), ANY).rstrip("?")
            table = ATTRS_BY_TYPE.get(ot)
            if table is None:
                return f"_attr_any({obj}, {n.name!r})"
            code = table[n.name].py.format(obj)
            if self.types.get(id(n.obj), "").endswith("?"):
                return f"(None if {obj} is None else {code})"
            return code
        if isinstance(n, A.Call):
            args = [e(a, bound) for a in n.args]
            if n.func in self.definitions:
                return f"d_{n.func}(h, melds, pair, groups, {', '.join(args)})"
            if n.func == "count":
                return f"h.counts[{args[0]}]"
            if n.func == "next":
                return f"next_kind({args[0]}, RULES.cycles)"
            if n.func == "product":
                return f"_prod({args[0]})"
            if n.func in ("min", "max"):
                return f"{n.func}({args[0]}, default=0)"
            return f"{n.func}({', '.join(args)})"
        if isinstance(n, A.Quant):
            inner = bound | {n.var}
            body = e(n.body, inner)
            dom = e(n.domain, bound)
            return quantifier(n.op, body, f"for v_{n.var} in {dom}")
        if isinstance(n, A.BinOp):
            if n.op == "/":
                return f"_div({e(n.left, bound)}, {e(n.right, bound)})"
            return f"({e(n.left, bound)} {n.op} {e(n.right, bound)})"
        if isinstance(n, A.Neg):
            return f"(-{e(n.operand, bound)})"
        if isinstance(n, A.BoolOp):  # a truth value, as JavaScript's: never an operand itself
            return "(" + f" {n.op} ".join(e(i, bound) if self._is_bool(i) else f"bool({e(i, bound)})"
                                         for i in n.items) + ")"
        if isinstance(n, A.Not):
            return f"(not {e(n.operand, bound)})"
        if isinstance(n, A.Compare):
            a, b = e(n.left, bound), e(n.right, bound)
            ta, tb = self.types.get(id(n.left), ANY), self.types.get(id(n.right), ANY)
            # a list may be a list or a tuple here (a literal is a tuple, sorted() a list, the hand's lists
            # either): lists compare by their items, as the interpreter and the JavaScript scorer compare them
            if n.op in ("in", "notin"):
                code = (f"same_in({a}, {b})" if _may_be_list(ta) or _may_be_list(elem(tb.rstrip("?")) or ANY)
                        else f"({a} in {b})")
                return code if n.op == "in" else f"(not {code})"
            if n.op in ("==", "!="):
                if _may_be_list(ta) or _may_be_list(tb):
                    return f"same({a}, {b})" if n.op == "==" else f"(not same({a}, {b}))"
                return f"({a} {n.op} {b})"
            if {ta, tb} <= {"int", "tile"}:  # neither side can be none: a plain comparison
                return f"({a} {n.op} {b})"
            return f"_cmp({a}, {n.op!r}, {b})"
        if isinstance(n, A.IfElse):
            return f"({e(n.then, bound)} if {e(n.cond, bound)} else {e(n.other, bound)})"
        if isinstance(n, A.ListLit):
            items = [e(i, bound) for i in n.items]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        raise TypeError(n)  # pragma: no cover


def _may_be_list(t: str) -> bool:
    """A value of type t may be a list (compared by engine.hand.same: by its items, in a list or a tuple)."""
    return elem(t.rstrip("?")) is not None
