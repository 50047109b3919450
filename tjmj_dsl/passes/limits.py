"""How much work an expression asks for, so that a rule file cannot make one
decomposition cost without bound: definitions that call each other twice at
each level (2^40 calls), quantifiers nested over long lists.

The cost of an expression is the number of nodes evaluated for one
decomposition, a definition's call costing its body's cost and a
quantifier its body's cost times the length of its list (known for the
language's lists: 4 melds, 5 groups, 3 suits…, a list literal's items; 34
otherwise, the number of tile kinds). Saturates at CAP: the numbers stay small."""

from __future__ import annotations

from ..expr import ast as A

# Steps for one decomposition. `check` evaluates a rule's expressions for some 30,000 hands
# (its searches), so these bound how long checking a file can take (7 s for the built-in
# rules, 19 s for an overlay at 13,000 steps together), where 1,000,000 steps for each
# expression let four quantifiers nested over lists of 20 pass and take `check` some twenty minutes.
MAX_COST = 10_000  # one expression (the built-in rules' costliest takes 545)
MAX_TOTAL_COST = 20_000  # every expression of a rule set together (the built-in rules' take 1,749)
# Patterns in one rule set: each is evaluated on every decomposition of every hand `check` searches, and
# tried against the others; `check` of the built-in rules' 15 takes some 9 s, of 55 some 50 s, and of 175 it
# ran past 8 minutes (a hostile review), though each pattern's expression was cheap.
MAX_PATTERNS = 64
MAX_OUTCOME_COST = 1_000_000  # one settlement expression, for one outcome (evaluated once an outcome)
CAP = MAX_OUTCOME_COST * 10
_SIZES = {"melds": 4, "groups": 5, "declared": 4, "suits": 3, "hun_kinds": 4,
          "seats": 4, "kongs": 16, "rounds": 34}  # the settlement's lists: four seats, at most 16 kongs and 34 go-rounds
_ATTR_SIZES = {"slots": 4, "faces": 4, "discards": 4}
_UNKNOWN = 34


def _add(*xs: int) -> int:
    return min(CAP, sum(xs))


def _mul(a: int, b: int) -> int:
    return min(CAP, a * b)


def size(n: A.Node) -> int:
    """At most how many items the list `n` holds."""
    if isinstance(n, A.ListLit):
        return len(n.items)
    if isinstance(n, A.Name):
        return _SIZES.get(n.id, _UNKNOWN)
    if isinstance(n, A.Attr):
        return _ATTR_SIZES.get(n.name, _UNKNOWN)
    if isinstance(n, A.Call) and n.func == "sorted" and n.args:
        return size(n.args[0])
    if isinstance(n, A.Call) and n.func == "others":
        return 3
    if isinstance(n, A.BinOp) and n.op == "+":
        return min(CAP, size(n.left) + size(n.right))
    if isinstance(n, A.IfElse):
        return max(size(n.then), size(n.other))
    return _UNKNOWN


def cost(n: A.Node, defs: dict[str, int]) -> int:
    """The steps to evaluate n once (definitions' costs in `defs`)."""
    if isinstance(n, A.Quant):
        return _add(1, cost(n.domain, defs), _mul(size(n.domain), cost(n.body, defs)))
    own = defs.get(n.func, 0) if isinstance(n, A.Call) else 0
    return _add(1, own, *(cost(c, defs) for c in A.children(n)))


def definition_costs(bodies: dict[str, A.Node], uses: dict[str, set[str]]) -> dict[str, int]:
    """Each definition's cost, callees first (a definition in a cycle, which
    is reported elsewhere, costs its body alone)."""
    out: dict[str, int] = {}
    state: dict[str, int] = {}
    for root in bodies:
        stack = [root]
        while stack:  # no recursion: a chain of definitions may be long
            name = stack[-1]
            if state.get(name) == 2:
                stack.pop()
                continue
            if not state.get(name):
                state[name] = 1
                stack.extend(m for m in uses.get(name, ()) if m in bodies and not state.get(m))
                continue
            out[name] = cost(bodies[name], out)
            state[name] = 2
            stack.pop()
    return out


# ---- how large a value can be ----
# Every backend must hold a fan and a total exactly: JavaScript's numbers hold
# integers exactly up to 2^53 - 1, and Python will not write an integer of more
# than 4,300 digits as text. The algebra and the score tables are bounded from
# the patterns' values (an upper bound: every pattern of a kind claimed at once).

_SATURATE = 2**64
_CONSTANTS = {"true": 1, "false": 1, "none": 0}
# what a hand can hold, for any rules: 14 tiles and a tile more for each of 4 kongs, so no count, length or
# number of huns passes 18; no number the vocabulary gives of a tile or a group (a rank, a kind, a group's
# huns) passes 33
HAND_TILES = 18
HAND_NAMES = {"huns": HAND_TILES}
_ATTR_TOP = 33
_ITEMS = {"groups": 5, "melds": 4, "declared": 4, "suits": 3}  # the hand's lists of known length, at most


def value_bound(n: A.Node, names: dict[str, int], lists: dict[str, tuple[int, int]]) -> int | None:
    """At most how large |v| can be for n and for every number computed on the way to
    it (a comparison's sides, a condition, a divisor: each must be exact too), or None
    when this cannot tell. `names`: the bound of each integer name; `lists`: each list
    name's (items, largest |item|). A truth value counts 1."""
    def b(x: A.Node) -> int | None:
        if isinstance(x, A.Num):
            return min(_SATURATE, abs(x.value))
        if isinstance(x, A.Name):
            return names.get(x.id, _CONSTANTS.get(x.id))
        if isinstance(x, (A.Compare, A.BoolOp, A.Not)):
            # a truth value (each backend writes one); the numbers it compares must be exact too
            # (a side this cannot bound, such as kong_draw or a tile, is no number of concern here)
            return max([1, *(p for p in map(b, A.children(x)) if p is not None)])
        if isinstance(x, A.IfElse):
            cond, then, other = b(x.cond), b(x.then), b(x.other)
            return None if then is None or other is None else max(then, other, cond or 0)
        if isinstance(x, (A.Neg, A.BinOp)):
            parts = [b(c) for c in A.children(x)]
            if any(p is None for p in parts):
                return None
            if isinstance(x, A.Neg):
                return parts[0]
            left, right = parts
            if x.op == "*":
                return max(left, right, min(_SATURATE, left * right))  # type: ignore[operator, type-var]
            if x.op == "/":
                return max(left, right)  # type: ignore[type-var]  # floor division by a nonzero integer (by 0: 0)
            return min(_SATURATE, left + right)  # type: ignore[operator]
        if isinstance(x, A.Attr):  # a tile's or a group's number (a truth value counts 1)
            return _ATTR_TOP
        if isinstance(x, A.Quant):  # over a hand's tiles or groups: at most HAND_TILES items
            body = b(x.body)
            if x.op in ("any", "all"):
                return max(1, body or 0)
            if x.op == "count":
                return HAND_TILES
            if body is None:
                return None
            if x.op == "sum":
                return min(_SATURATE, HAND_TILES * body)
            if x.op in ("min", "max"):
                return body
            items = _ITEMS.get(x.domain.id) if isinstance(x.domain, A.Name) else (
                4 if isinstance(x.domain, A.Attr) and x.domain.name in ("faces", "slots") else None)
            if items is not None:  # a product over a short list the hand gives: its length is known
                return min(_SATURATE, max(1, body) ** items)
            return None  # over any other list: a bound of 18 factors would refuse reasonable rules
        if isinstance(x, A.Call) and x.func in ("count", "len") and not (
                len(x.args) == 1 and isinstance(x.args[0], A.Name) and x.args[0].id in lists):
            return HAND_TILES if x.func == "count" or not isinstance(x.args[0], A.ListLit) else len(x.args[0].items)
        if isinstance(x, A.Call) and len(x.args) == 1 and isinstance(x.args[0], A.Name) and x.args[0].id in lists:
            count, top = lists[x.args[0].id]
            if x.func == "sum":
                return min(_SATURATE, count * top)
            if x.func == "product":
                return min(_SATURATE, max(1, top) ** min(count, 64)) if top > 1 else 1
            if x.func == "len":
                return count
            if x.func in ("min", "max"):
                return top
        return None
    return b(n)


def bound_text(v: int) -> str:
    """A bound as a message says it."""
    return "more than 2^64" if v >= _SATURATE else f"{v:,}"
