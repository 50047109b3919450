"""The algebra's render plan: an algebra (or a winning condition) expression as nested tuples that
engine/result.py's render and engine_js/result.mjs's render evaluate. In expr/, beside the AST it reads,
so that the lowering pass (which refuses a winning condition the plan cannot take) and the backends
(which hand the plan to the engines) both call it without one importing the other."""

from __future__ import annotations

from typing import Any

from . import ast as A


def algebra_plan(n: A.Node, what: str = "the algebra") -> tuple[Any, ...]:
    """The algebra (or the winning condition, `what`) as nested tuples for engine.result.render and
    engine_js render. Raises ValueError naming `what` for a construct the plan cannot take."""
    if isinstance(n, A.Num):
        return ("num", n.value)
    if isinstance(n, A.Name):
        if n.id in ("true", "false"):
            return ("num", int(n.id == "true"))
        return ("kind", n.id)
    if isinstance(n, A.Call):
        return ("agg", n.func, algebra_plan(n.args[0], what))
    if isinstance(n, A.ListLit):  # min([..., 16]): a cap (封顶); each item an expression of the plan
        return ("list", tuple(algebra_plan(i, what) for i in n.items))
    if isinstance(n, A.IfElse):
        return ("if", algebra_plan(n.cond, what), algebra_plan(n.then, what), algebra_plan(n.other, what))
    if isinstance(n, A.BinOp):
        return ("bin", n.op, algebra_plan(n.left, what), algebra_plan(n.right, what))
    if isinstance(n, A.Not):
        return ("not", algebra_plan(n.operand, what))
    if isinstance(n, A.Neg):
        return ("neg", algebra_plan(n.operand, what))
    if isinstance(n, A.BoolOp):
        return ("bool", n.op, tuple(algebra_plan(i, what) for i in n.items))
    if isinstance(n, A.Compare):
        return ("cmp", n.op, algebra_plan(n.left, what), algebra_plan(n.right, what))
    raise ValueError(f"{what} cannot use {type(n).__name__} here")
