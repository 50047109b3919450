"""Tests that can never hold, seen from the expression alone: the range of every
number it compares. `count(g in groups: g.is_pair) == 7` never holds (a reading
has five groups), whatever the hand and however the rules are searched."""

from __future__ import annotations

from ..expr import ast as A
from ..ir import RuleSet

Range = tuple[int, int]


def _sizes(rs: RuleSet) -> dict[str, Range]:
    """How many items each list of the vocabulary can hold."""
    return {"melds": (4, 4), "groups": (5, 5), "declared": (0, 4), "suits": (len(rs.suits), len(rs.suits)),
            "hun_kinds": (min(len(r) for r in rs.hun_table), rs.hun_count)}


def int_range(n: A.Node, rs: RuleSet) -> Range | None:
    """The least and greatest value of an int expression, or None when not known."""
    sizes = _sizes(rs)
    if isinstance(n, A.Num):
        return n.value, n.value
    if isinstance(n, A.Name) and n.id == "huns":
        return 0, rs.copies * rs.hun_count
    if isinstance(n, A.Call) and n.func == "len" and n.args:
        arg = n.args[0]
        if isinstance(arg, A.Name) and arg.id in sizes:
            return sizes[arg.id]
        if isinstance(arg, A.ListLit):
            return len(arg.items), len(arg.items)
        return None
    if isinstance(n, A.Call) and n.func == "count":
        return 0, rs.copies
    if isinstance(n, A.Quant) and n.op == "count":
        dom = n.domain
        if isinstance(dom, A.Name) and dom.id in sizes:
            return 0, sizes[dom.id][1]
        if isinstance(dom, A.ListLit):
            return 0, len(dom.items)
        return None
    if isinstance(n, A.BinOp) and n.op in "+-*":
        a, b = int_range(n.left, rs), int_range(n.right, rs)
        if a is None or b is None:
            return None
        if n.op == "+":
            return a[0] + b[0], a[1] + b[1]
        if n.op == "-":
            return a[0] - b[1], a[1] - b[0]
        ends = [x * y for x in a for y in b]
        return min(ends), max(ends)
    return None


def never(n: A.Node, rs: RuleSet) -> str:
    """Why the test n can never hold ("" when it may)."""
    if isinstance(n, A.Name) and n.id == "false":
        return "it is `false`"
    if isinstance(n, A.BoolOp):
        whys = [never(i, rs) for i in n.items]
        if n.op == "and":
            return next((w for w in whys if w), "")
        return "; ".join(whys) if all(whys) else ""
    if isinstance(n, A.Compare) and n.op in ("==", "!=", "<", "<=", ">", ">="):
        a, b = int_range(n.left, rs), int_range(n.right, rs)
        if a is None or b is None:
            return ""
        possible = {"==": a[0] <= b[1] and b[0] <= a[1], "!=": not (a[0] == a[1] == b[0] == b[1]),
                    "<": a[0] < b[1], "<=": a[0] <= b[1], ">": a[1] > b[0], ">=": a[1] >= b[0]}[n.op]
        if possible:
            return ""
        return f"{_say(n.left, a)} and {_say(n.right, b)}, so `{A.show(n)}` never holds"
    return ""


def _say(n: A.Node, r: Range) -> str:
    text = A.show(n)
    if r[0] == r[1]:
        return f"{text} is {r[0]}" if not isinstance(n, A.Num) else f"the other side is {r[0]}"
    return f"{text} is from {r[0]} to {r[1]}"
