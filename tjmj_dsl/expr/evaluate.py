"""The reference interpreter of expressions: a direct walk of the AST."""

from __future__ import annotations

from typing import Any, Callable, Iterator

from ..engine.hand import same, same_in
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
        self._attr_tables: dict[int, Any] = {}
        self._steps: dict[type, Callable[[Any, dict[str, Any]], Any]] = {
            A.Num: self._num, A.Str: self._str, A.TileLit: self._tile, A.Name: self._name, A.Attr: self._attr,
            A.Call: self._call, A.Quant: self._quant, A.BinOp: self._binop, A.Neg: self._neg, A.BoolOp: self._boolop,
            A.Not: self._not, A.Compare: self._compare, A.IfElse: self._ifelse, A.ListLit: self._list}

    def eval(self, n: A.Node, env: dict[str, Any]) -> Any:
        step = self._steps.get(n.__class__)
        if step is None:
            raise TypeError(n)  # pragma: no cover
        return step(n, env)

    # one method per node type, found by the node's class (the walk visits every node of
    # every pattern for every decomposition: an isinstance chain per visit was most of it)

    def _num(self, n: A.Num, env: dict[str, Any]) -> Any:
        return n.value

    def _str(self, n: A.Str, env: dict[str, Any]) -> Any:
        return n.value

    def _tile(self, n: A.TileLit, env: dict[str, Any]) -> Any:
        return n.kind

    def _name(self, n: A.Name, env: dict[str, Any]) -> Any:
        if n.id in CONSTS:
            return CONSTS[n.id]
        return env[n.id]

    def _attr(self, n: A.Attr, env: dict[str, Any]) -> Any:
        obj = self.eval(n.obj, env)
        if obj is None:
            return None
        key = id(n.obj)
        table = self._attr_tables.get(key, self)
        if table is self:  # the attribute table of the object's checked type, looked up once
            table = self._attr_tables[key] = ATTRS_BY_TYPE.get(self.types.get(key, ANY).rstrip("?"))
        return table[n.name].fn(obj) if table is not None else attr_any(obj, n.name)

    def _call(self, n: A.Call, env: dict[str, Any]) -> Any:
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

    def _quant(self, n: A.Quant, env: dict[str, Any]) -> Any:
        dom = self.eval(n.domain, env)
        inner = dict(env)  # one scope for the loop, its variable rebound at each element

        def each() -> Iterator[Any]:
            for x in dom:
                inner[n.var] = x
                yield self.eval(n.body, inner)
        vals = each()
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

    def _binop(self, n: A.BinOp, env: dict[str, Any]) -> Any:
        a, b = self.eval(n.left, env), self.eval(n.right, env)
        if n.op == "+":
            return a + b
        if n.op == "-":
            return a - b
        if n.op == "*":
            return a * b
        return a // b if b else 0

    def _neg(self, n: A.Neg, env: dict[str, Any]) -> Any:
        return -self.eval(n.operand, env)

    def _boolop(self, n: A.BoolOp, env: dict[str, Any]) -> Any:
        if n.op == "and":
            return all(self.eval(i, env) for i in n.items)
        return any(self.eval(i, env) for i in n.items)

    def _not(self, n: A.Not, env: dict[str, Any]) -> Any:
        return not self.eval(n.operand, env)

    def _compare(self, n: A.Compare, env: dict[str, Any]) -> Any:
        a, b = self.eval(n.left, env), self.eval(n.right, env)
        op = n.op
        if op == "==":
            return same(a, b)
        if op == "!=":
            return not same(a, b)
        if op == "in":
            return same_in(a, b)
        if op == "notin":
            return not same_in(a, b)
        if a is None or b is None:
            return False
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]

    def _ifelse(self, n: A.IfElse, env: dict[str, Any]) -> Any:
        return self.eval(n.then, env) if self.eval(n.cond, env) else self.eval(n.other, env)

    def _list(self, n: A.ListLit, env: dict[str, Any]) -> Any:
        return [self.eval(i, env) for i in n.items]
