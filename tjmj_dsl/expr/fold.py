"""Which expressions are false for every plain hand: a hand with no declared
meld, not won on a kong's replacement tile and with no request flag set (what
most requests are). The code generator leaves such request rules out of the
test the plain path runs on such a hand (engine/runtime.py's _request_errors_of),
so it is checked only against the rules that can refuse it. Generic: it knows
the hand's vocabulary (`declared`, `kong_draw`, the flags), no rule of any game."""

from __future__ import annotations

from typing import Any

from . import ast as A

_UNKNOWN = object()  # a value that depends on the hand's tiles


def false_for_plain_hands(n: A.Node, flags: frozenset[str]) -> bool:
    """Whether n is false for every plain hand (False when it cannot tell)."""
    return _fold(n, flags) is False


def _fold(n: A.Node, flags: frozenset[str]) -> Any:  # noqa: C901 - one case per node
    """n's value on a plain hand, or _UNKNOWN."""
    if isinstance(n, A.Num):
        return n.value
    if isinstance(n, A.Str):
        return n.value
    if isinstance(n, A.Name):
        if n.id in flags:
            return False
        return {"declared": [], "kong_draw": None, "true": True, "false": False, "none": None}.get(n.id, _UNKNOWN)
    if isinstance(n, A.ListLit):
        items = [_fold(x, flags) for x in n.items]
        return _UNKNOWN if any(x is _UNKNOWN for x in items) else items
    if isinstance(n, A.Not):
        v = _fold(n.operand, flags)
        return _UNKNOWN if v is _UNKNOWN else not v
    if isinstance(n, A.BoolOp):
        vals = [_fold(x, flags) for x in n.items]
        stop = n.op != "and"  # `and` stops at a false item, `or` at a true one
        if any(v is not _UNKNOWN and bool(v) is stop for v in vals):
            return stop
        return _UNKNOWN if any(v is _UNKNOWN for v in vals) else not stop
    if isinstance(n, A.IfElse):
        c = _fold(n.cond, flags)
        return _UNKNOWN if c is _UNKNOWN else _fold(n.then if c else n.other, flags)
    if isinstance(n, A.Compare):
        left, right = _fold(n.left, flags), _fold(n.right, flags)
        if left is _UNKNOWN or right is _UNKNOWN:
            return _UNKNOWN
        if n.op in ("==", "!="):
            return (left == right) is (n.op == "==")
        if n.op in ("in", "notin"):
            return isinstance(right, list) and (left in right) is (n.op == "in")
        if isinstance(left, int) and isinstance(right, int):
            return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[n.op]
        return _UNKNOWN
    if isinstance(n, A.Call) and n.func == "len" and len(n.args) == 1:
        v = _fold(n.args[0], flags)
        return len(v) if isinstance(v, list) else _UNKNOWN
    if isinstance(n, A.Quant) and _fold(n.domain, flags) == []:  # over no item
        return {"any": False, "all": True, "count": 0, "sum": 0, "product": 1}.get(n.op, _UNKNOWN)
    return _UNKNOWN
