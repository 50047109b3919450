"""The reference interpreter of expressions: a direct walk of the AST."""

from __future__ import annotations

from typing import Any, Callable

from . import ast as A
from .vocabulary import ANY, ATTRS_BY_TYPE, GROUP_ATTRS, SLOT_ATTRS, TILE_ATTRS

CONSTS = {"true": True, "false": False, "none": None}


def attr_any(x: Any, name: str) -> Any:
    """Attribute of a value whose type was not known when checking."""
    if isinstance(x, int):
        return TILE_ATTRS[name].fn(x)
    if len(x) == 3:
        return SLOT_ATTRS[name].fn(x)
    return GROUP_ATTRS[name].fn(x)


def _prod(xs: Any) -> int:
    p = 1
    for x in xs:
        p *= x
    return p


class Interpreter:
    """Evaluates checked expressions. `funcs` gives count() and next();
    `definitions` maps a name to (params, body)."""

    def __init__(self, types: dict[int, str], definitions: dict[str, tuple[tuple[str, ...], A.Node]],
                 funcs: dict[str, Callable[..., Any]]) -> None:
        self.types = types
        self.definitions = definitions
        self.funcs = funcs

    def eval(self, n: A.Node, env: dict[str, Any]) -> Any:  # noqa: C901 - one case per node type
        if isinstance(n, A.Num):
            return n.value
        if isinstance(n, A.Str):
            return n.value
        if isinstance(n, A.TileLit):
            return n.kind
        if isinstance(n, A.Name):
            if n.id in CONSTS:
                return CONSTS[n.id]
            return env[n.id]
        if isinstance(n, A.Attr):
            obj = self.eval(n.obj, env)
            ot = self.types.get(id(n.obj), ANY).rstrip("?")
            if obj is None:
                return None
            table = ATTRS_BY_TYPE.get(ot)
            return table[n.name].fn(obj) if table is not None else attr_any(obj, n.name)
        if isinstance(n, A.Call):
            args = [self.eval(a, env) for a in n.args]
            if n.func in self.definitions:
                params, body = self.definitions[n.func]
                return self.eval(body, {**env, **dict(zip(params, args))})
            if n.func == "len":
                return len(args[0])
            if n.func == "sorted":
                return sorted(args[0])
            if n.func == "sum":
                return sum(args[0])
            if n.func == "product":
                return _prod(args[0])
            if n.func == "min":
                return min(args[0]) if args[0] else 0
            if n.func == "max":
                return max(args[0]) if args[0] else 0
            return self.funcs[n.func](*args)
        if isinstance(n, A.Quant):
            dom = self.eval(n.domain, env)
            vals = (self.eval(n.body, {**env, n.var: x}) for x in dom)
            if n.op == "any":
                return any(vals)
            if n.op == "all":
                return all(vals)
            if n.op == "count":
                return sum(1 for v in vals if v)
            if n.op == "sum":
                return sum(vals)
            if n.op == "product":
                return _prod(vals)
            return (min if n.op == "min" else max)(vals, default=0)
        if isinstance(n, A.BinOp):
            a, b = self.eval(n.left, env), self.eval(n.right, env)
            if n.op == "+":
                return a + b
            if n.op == "-":
                return a - b
            if n.op == "*":
                return a * b
            return a // b if b else 0
        if isinstance(n, A.Neg):
            return -self.eval(n.operand, env)
        if isinstance(n, A.BoolOp):
            if n.op == "and":
                return all(self.eval(i, env) for i in n.items)
            return any(self.eval(i, env) for i in n.items)
        if isinstance(n, A.Not):
            return not self.eval(n.operand, env)
        if isinstance(n, A.Compare):
            a, b = self.eval(n.left, env), self.eval(n.right, env)
            op = n.op
            if op == "==":
                return a == b
            if op == "!=":
                return a != b
            if op == "in":
                return a in b
            if op == "notin":
                return a not in b
            if a is None or b is None:
                return False
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        if isinstance(n, A.IfElse):
            return self.eval(n.then, env) if self.eval(n.cond, env) else self.eval(n.other, env)
        if isinstance(n, A.ListLit):
            return [self.eval(i, env) for i in n.items]
        raise TypeError(n)  # pragma: no cover
