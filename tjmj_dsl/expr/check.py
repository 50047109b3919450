"""Name and type checking. Returns the type of every node (by id) so the
interpreter and the emitter know which attribute table to read, and a list of
problems with offsets into the expression text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import did_you_mean
from . import ast as A
from .vocabulary import (ANY, BOOL, CHECKED_ATTRS, DECOMP_VARS, FUNCS, HAND_VARS, HUN_VARS, INT, NONE, QUANTS, STR,
                         TILE, TOTAL_VARS, elem, list_of)


@dataclass(frozen=True)
class Problem:
    start: int
    end: int
    message: str
    hint: str = ""
    code: str = "type"


@dataclass
class Env:
    """The names an expression may read: scope variables, definitions
    (name → param count) and quantifier-bound variables."""

    vars: dict[str, str]
    definitions: dict[str, int] = field(default_factory=dict)
    def_scope: dict[str, str] = field(default_factory=dict)  # definition → scope its body needs
    def_types: dict[str, str] = field(default_factory=dict)  # definition → the type of its body

    def bind(self, name: str, typ: str) -> "Env":
        return Env({**self.vars, name: typ}, self.definitions, self.def_scope, self.def_types)


def scope_vars(scope: str, kinds: tuple[str, ...] = (), flags: tuple[str, ...] = ()) -> dict[str, str]:
    """The names of a scope; the rule file's request flags are hand-level booleans."""
    hand = {**{k: v.type for k, v in HAND_VARS.items()}, **{f: BOOL for f in flags}}
    if scope == "hand":
        return hand
    if scope == "decomp":
        return {**hand, **{k: v.type for k, v in DECOMP_VARS.items()}}
    if scope == "total":
        return {**hand, **{k: v.type for k, v in TOTAL_VARS.items()}}
    if scope == "algebra":
        return {"true": BOOL, "false": BOOL, **{k: list_of(INT) for k in kinds}}
    if scope == "huns":  # the hun mapping: the indicator and hun.kinds (expr/vocabulary.py HUN_VARS)
        return {k: v.type for k, v in HUN_VARS.items()}
    if scope == "win":  # the winning condition: the algebra's lists of the claimed values, the fan, min_fan
        return {"true": BOOL, "false": BOOL, **{k: list_of(INT) for k in kinds}, "fan": INT, "min_fan": INT}
    raise ValueError(scope)


def _base(t: str) -> str:
    return t[:-1] if t.endswith("?") else t


def _compatible(a: str, b: str) -> bool:
    if ANY in (a, b):
        return True
    if a == NONE or b == NONE:
        return a.endswith("?") or b.endswith("?") or a == b
    a, b = _base(a), _base(b)
    if a == b:
        return True
    ea, eb = elem(a), elem(b)
    return ea is not None and eb is not None and _compatible(ea, eb)


class Checker:
    """`attrs` and `funcs` default to the hand vocabulary; the settlement
    passes its own (seats and kongs, pow and others)."""

    def __init__(self, env: Env, attrs: dict[str, Any] | None = None, funcs: dict[str, Any] | None = None) -> None:
        self.env = env
        self.attrs: dict[str, Any] = CHECKED_ATTRS if attrs is None else attrs
        self.funcs: dict[str, Any] = FUNCS if funcs is None else funcs
        self.types: dict[int, str] = {}
        self.problems: list[Problem] = []

    def err(self, n: A.Node, msg: str, hint: str = "", start: int | None = None, end: int | None = None,
            code: str = "type") -> None:
        self.problems.append(Problem(n.span.start if start is None else start, n.span.end if end is None else end,
                                     msg, hint, code))

    def check(self, n: A.Node, env: Env | None = None) -> str:
        t = self._check(n, env or self.env)
        self.types[id(n)] = t
        return t

    def want_bool(self, n: A.Node, env: Env, what: str) -> None:
        t = self.check(n, env)
        if t not in (BOOL, ANY):
            self.err(n, f"{what} must be true or false, this is {_a(t)}", bool_hint(t))

    def want_int(self, n: A.Node, env: Env, what: str) -> None:
        t = self.check(n, env)
        if t not in (INT, ANY):
            self.err(n, f"{what} must be a number, this is {_a(t)}", int_hint(t))

    def _check(self, n: A.Node, env: Env) -> str:  # noqa: C901 - one case per node type
        if isinstance(n, A.Num):
            return INT
        if isinstance(n, A.Str):
            return STR
        if isinstance(n, A.TileLit):
            return TILE
        if isinstance(n, A.Name):
            if n.id in env.vars:
                return env.vars[n.id]
            if n.id in env.definitions or n.id in self.funcs:
                self.err(n, f"{n.id!r} is a function: call it with ( )", f"{n.id}(…)", code="name")
                return ANY
            self.err(n, f"unknown name {n.id!r}", did_you_mean(n.id, set(env.vars) | set(env.definitions))
                     or "names: " + ", ".join(sorted(env.vars)), code="name")
            return ANY
        if isinstance(n, A.Attr):
            ot = _base(self.check(n.obj, env))
            if ot == ANY:
                known = {a for tbl in self.attrs.values() for a in tbl}
                if n.name not in known:
                    self.err(n, f"no attribute {n.name!r}", did_you_mean(n.name, known), n.name_span.start, n.name_span.end,
                             code="name")
                    return ANY
                types = {tbl[n.name].type for tbl in self.attrs.values() if n.name in tbl}
                return types.pop() if len(types) == 1 else ANY
            table = self.attrs.get(ot)
            if table is None:
                self.err(n, f"a {ot} has no attributes", start=n.name_span.start, end=n.name_span.end)
                return ANY
            if n.name not in table:
                self.err(n, f"a {ot} has no attribute {n.name!r}",
                         did_you_mean(n.name, list(table)) or f"{ot} attributes: " + ", ".join(table),
                         n.name_span.start, n.name_span.end, code="name")
                return ANY
            return table[n.name].type
        if isinstance(n, A.Call):
            if n.func in env.definitions:
                want = env.definitions[n.func]
                if len(n.args) != want:
                    self.err(n, f"{n.func} takes {want} argument(s), given {len(n.args)}", start=n.func_span.start,
                             end=n.func_span.end, code="arity")
                for a in n.args:
                    self.check(a, env)
                return env.def_types.get(n.func, ANY)
            f = self.funcs.get(n.func)
            if f is None:
                self.err(n, f"unknown function {n.func!r}",
                         did_you_mean(n.func, set(self.funcs) | set(env.definitions)), n.func_span.start, n.func_span.end,
                         code="name")
                for a in n.args:
                    self.check(a, env)
                return ANY
            if len(n.args) != len(f.params):
                self.err(n, f"{n.func} takes {len(f.params)} argument(s), given {len(n.args)}",
                         start=n.func_span.start, end=n.func_span.end, code="arity")
            for a, p in zip(n.args, f.params):
                at = self.check(a, env)
                if not _compatible(at, p):
                    self.err(a, f"{n.func} wants {p}, this is {at}")
            if n.func == "sorted" and n.args:
                return self.types.get(id(n.args[0]), ANY)
            return f.ret
        if isinstance(n, A.Quant):
            dt = self.check(n.domain, env)
            et = elem(_base(dt))
            if et is None:
                self.err(n.domain, f"{n.op}(… in X: …) needs a list, this is {dt}")
                et = ANY
            inner = env.bind(n.var, et)
            if n.op in ("any", "all", "count"):
                self.want_bool(n.body, inner, f"the body of {n.op}")
                return BOOL if n.op != "count" else INT
            if n.op not in QUANTS:  # pragma: no cover - grammar limits ops
                self.err(n, f"unknown quantifier {n.op}")
            self.want_int(n.body, inner, f"the body of {n.op}")
            return INT
        if isinstance(n, A.BinOp):
            self.want_int(n.left, env, f"the left side of {n.op}")
            self.want_int(n.right, env, f"the right side of {n.op}")
            return INT
        if isinstance(n, A.Neg):
            self.want_int(n.operand, env, "the operand of -")
            return INT
        if isinstance(n, A.BoolOp):
            for i in n.items:
                self.want_bool(i, env, f"each side of `{n.op}`")
            return BOOL
        if isinstance(n, A.Not):
            self.want_bool(n.operand, env, "the operand of `not`")
            return BOOL
        if isinstance(n, A.Compare):
            lt = self.check(n.left, env)
            rt = self.check(n.right, env)
            if n.op in ("in", "notin"):
                et = elem(_base(rt))
                if et is None:
                    self.err(n.right, f"'in' needs a list on its right, this is {rt}")
                elif not _compatible(lt, et):
                    self.err(n, f"a {lt} is never in a list of {et}")
            elif n.op in ("==", "!="):
                if not _compatible(lt, rt):
                    self.err(n, f"comparing a {lt} with a {rt} is always {'false' if n.op == '==' else 'true'}",
                             _compare_hint(lt, rt))
            else:
                for side, t in ((n.left, lt), (n.right, rt)):
                    if t not in (INT, ANY):
                        self.err(side, f"{n.op} compares numbers, this is {t}")
            return BOOL
        if isinstance(n, A.IfElse):
            self.want_bool(n.cond, env, "the condition")
            then_t = self.check(n.then, env)
            other_t = self.check(n.other, env)
            if {then_t, other_t} == {INT, BOOL}:  # each backend would read the mixed value its own way
                self.err(n, "the two branches of `… if … else …` must be alike: this one gives a number or "
                         "true or false", "a number in both (1 if c else 0), or a truth value in both")
            return then_t if then_t == other_t else ANY
        if isinstance(n, A.ListLit):
            ts = {self.check(i, env) for i in n.items}
            return list_of(ts.pop()) if len(ts) == 1 else list_of(ANY)
        raise TypeError(n)  # pragma: no cover


def _a(t: str) -> str:
    """A type for a sentence: "an int", "a list[group]", "true or false"."""
    if t == BOOL:
        return "true or false"
    if t.endswith("?"):
        return _a(t[:-1]) + " or none"
    return ("an " if t[:1] in "aeiou" else "a ") + t


def bool_hint(t: str) -> str:
    """How to turn a value of type t into a truth value."""
    if t.startswith("list["):
        return "a list is not a truth value: len(xs) > 0, or any(x in xs: …)"
    if _base(t) == INT:
        return "compare the number: huns > 0, len(declared) == 0"
    return "compare it: x == y, x != none"


def int_hint(t: str) -> str:
    if t == BOOL:
        return "a truth value is not a number: count(x in xs: …) counts, (1 if c else 0) converts"
    return ""


def _compare_hint(a: str, b: str) -> str:
    if STR in (_base(a), _base(b)) and TILE in (_base(a), _base(b)):
        return 'suits are strings ("m"); tiles are written 5m, E or 1z'
    return ""


def definition_uses(body: A.Node) -> set[str]:
    """Names of definitions a body calls (for cycle checks)."""
    return {n.func for n in A.walk(body) if isinstance(n, A.Call)}
