"""Typed AST of the expression language. Every node carries its span in the
expression text, so the checker can point into the rule file."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Span:
    start: int  # offset in the expression text
    end: int


@dataclass(frozen=True)
class Node:
    span: Span = field(compare=False, repr=False)


@dataclass(frozen=True)
class Num(Node):
    value: int = 0


@dataclass(frozen=True)
class Str(Node):
    value: str = ""


@dataclass(frozen=True)
class TileLit(Node):
    kind: int = 0
    text: str = ""


@dataclass(frozen=True)
class Name(Node):
    id: str = ""


@dataclass(frozen=True)
class Attr(Node):
    obj: Node = None  # type: ignore[assignment]
    name: str = ""
    name_span: Span = field(default=Span(0, 0), compare=False, repr=False)


@dataclass(frozen=True)
class Call(Node):
    func: str = ""
    args: tuple[Node, ...] = ()
    func_span: Span = field(default=Span(0, 0), compare=False, repr=False)


@dataclass(frozen=True)
class Quant(Node):
    """any/all/count/sum/product/min/max(var in domain: body)."""

    op: str = ""
    var: str = ""
    domain: Node = None  # type: ignore[assignment]
    body: Node = None  # type: ignore[assignment]


@dataclass(frozen=True)
class BinOp(Node):
    op: str = ""  # + - * /
    left: Node = None  # type: ignore[assignment]
    right: Node = None  # type: ignore[assignment]


@dataclass(frozen=True)
class BoolOp(Node):
    op: str = ""  # and / or
    items: tuple[Node, ...] = ()


@dataclass(frozen=True)
class Not(Node):
    operand: Node = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Neg(Node):
    operand: Node = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Compare(Node):
    op: str = ""  # == != < <= > >= in notin
    left: Node = None  # type: ignore[assignment]
    right: Node = None  # type: ignore[assignment]


@dataclass(frozen=True)
class IfElse(Node):
    cond: Node = None  # type: ignore[assignment]
    then: Node = None  # type: ignore[assignment]
    other: Node = None  # type: ignore[assignment]


@dataclass(frozen=True)
class ListLit(Node):
    items: tuple[Node, ...] = ()


def children(n: Node) -> tuple[Node, ...]:
    if isinstance(n, Attr):
        return (n.obj,)
    if isinstance(n, Call):
        return n.args
    if isinstance(n, Quant):
        return (n.domain, n.body)
    if isinstance(n, (BinOp, Compare)):
        return (n.left, n.right)
    if isinstance(n, BoolOp):
        return n.items
    if isinstance(n, (Not, Neg)):
        return (n.operand,)
    if isinstance(n, IfElse):
        return (n.cond, n.then, n.other)
    if isinstance(n, ListLit):
        return n.items
    return ()


def walk(n: Node):  # type: ignore[no-untyped-def]
    yield n
    for c in children(n):
        yield from walk(c)


def show(n: Node) -> str:
    """A canonical printer, used by golden tests and the rulebook."""
    if isinstance(n, Num):
        return str(n.value)
    if isinstance(n, Str):
        return repr(n.value).replace("'", '"')
    if isinstance(n, TileLit):
        return n.text
    if isinstance(n, Name):
        return n.id
    if isinstance(n, Attr):
        return f"{show(n.obj)}.{n.name}"
    if isinstance(n, Call):
        return f"{n.func}({', '.join(show(a) for a in n.args)})"
    if isinstance(n, Quant):
        return f"{n.op}({n.var} in {show(n.domain)}: {show(n.body)})"
    if isinstance(n, BinOp):
        return f"({show(n.left)} {n.op} {show(n.right)})"
    if isinstance(n, BoolOp):
        return "(" + f" {n.op} ".join(show(i) for i in n.items) + ")"
    if isinstance(n, Not):
        return f"not {show(n.operand)}"
    if isinstance(n, Neg):
        return f"-{show(n.operand)}"
    if isinstance(n, Compare):
        op = "not in" if n.op == "notin" else n.op
        return f"({show(n.left)} {op} {show(n.right)})"
    if isinstance(n, IfElse):
        return f"({show(n.then)} if {show(n.cond)} else {show(n.other)})"
    if isinstance(n, ListLit):
        return "[" + ", ".join(show(i) for i in n.items) + "]"
    raise TypeError(n)
