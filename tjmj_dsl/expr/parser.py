"""Text → AST, with lark (LALR, positions kept). Syntax errors become
ExprError with the offset of the offending character."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from lark import Lark, Token, Tree, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .. import tiles
from . import ast as A


class ExprError(Exception):
    """An error inside one expression: offsets are into the expression text."""

    def __init__(self, message: str, start: int, end: int | None = None, hint: str = "", code: str = "expr") -> None:
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = end if end is not None else start + 1
        self.hint = hint
        self.code = code


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = resources.files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True)


_TOKEN_WORDS = {
    "RPAR": "')'", "LPAR": "'('", "COLON": "':'", "COMMA": "','", "LSQB": "'['", "RSQB": "']'",
    "NAME": "a name", "NUMBER": "a number", "TILE": "a tile", "STRING": "a string", "DOT": "'.'",
    "COMPOP": "a comparison", "ADDOP": "'+' or '-'", "MULOP": "'*'", "IN": "'in'", "IF": "'if'",
    "ELSE": "'else'", "AND": "'and'", "OR": "'or'", "NOT": "'not'", "QUANT": "a quantifier",
    "$END": "the end", "MINUS": "'-'",
}


def _expected(exp: set[str]) -> str:
    words = sorted({_TOKEN_WORDS.get(e, e) for e in exp})
    if len(words) > 6:
        words = words[:6] + ["…"]
    return ", ".join(words)


MAX_TEXT = 100_000  # characters of one expression
MAX_DEPTH = 64  # nesting of the expression tree (a long + or * chain counts as a balanced tree)
MAX_DIGITS = 15  # digits of a number literal
_CACHED = 500  # texts up to this long are memoised (a rule file's are about 100): the cache stays small


def parse(text: str) -> A.Node:
    """Expression text → AST. Bounded: MAX_TEXT characters, numbers of at most
    MAX_DIGITS digits, trees at most MAX_DEPTH deep once a chain of + (or of *)
    is balanced, so every later pass (checker, interpreter, emitter, Python's
    own parser) works on a shallow tree; past a limit, an ExprError. Memoised
    for short texts: ASTs are frozen, and a rule file is lowered once per
    profile and option set with the same texts."""
    return _parse_cached(text) if len(text) <= _CACHED else _parse(text)


@lru_cache(maxsize=1024)
def _parse_cached(text: str) -> A.Node:
    return _parse(text)


def _parse(text: str) -> A.Node:
    if len(text) > MAX_TEXT:
        raise ExprError(f"the expression is {len(text):,} characters long; at most {MAX_TEXT:,}", MAX_TEXT,
                        hint="name parts of it in `definitions`")
    deep = _too_deep_bracket(text)
    if deep is not None:  # before the parser: 49,000 nested parentheses took it 98 s, and make no tree node each
        raise ExprError(f"brackets nested more than {MAX_DEPTH} deep", deep, deep + 1,
                        hint="name parts of it in `definitions`")
    try:
        tree = _parser().parse(text)
    except UnexpectedCharacters as e:
        pos = e.pos_in_stream or 0
        raise ExprError(f"unexpected character {text[pos]!r}", pos,
                        hint="operators are and or not == != < <= > >= in + - * and quantifiers any(x in xs: …)") from None
    except UnexpectedToken as e:
        tok = e.token
        if tok.type == "$END":
            raise ExprError("the expression ends too early", len(text), hint=f"expected {_expected(e.expected)}") from None
        pos = tok.start_pos if tok.start_pos is not None else 0
        raise ExprError(f"unexpected {str(tok)!r}", pos, pos + max(1, len(str(tok))),
                        hint=f"expected {_expected(e.expected)}") from None
    except UnexpectedEOF as e:
        raise ExprError("the expression ends too early", len(text), hint=f"expected {_expected(set(e.expected))}") from None
    except UnexpectedInput as e:  # pragma: no cover - other lark errors
        raise ExprError(str(e).splitlines()[0], getattr(e, "pos_in_stream", 0) or 0) from None
    node = _build_all(tree)
    _check_depth(node)
    return node


def _too_deep_bracket(text: str) -> int | None:
    """The offset of the first ( or [ nested more than MAX_DEPTH deep (outside quotes), or None."""
    if text.count("(") + text.count("[") <= MAX_DEPTH:
        return None
    depth = 0
    quote = ""
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "([":
            depth += 1
            if depth > MAX_DEPTH:
                return i
        elif c in ")]":
            depth -= 1
    return None


class _Chain:
    """Operands of a run of one associative operator (+ or *), balanced when used."""

    __slots__ = ("op", "items")

    def __init__(self, op: str, items: list[A.Node]) -> None:
        self.op = op
        self.items = items


def _done(x: "A.Node | _Chain") -> A.Node:
    """A finished node: a chain becomes a balanced tree of BinOps."""
    if not isinstance(x, _Chain):
        return x
    items = x.items
    while len(items) > 1:
        nxt: list[A.Node] = [A.BinOp(A.Span(items[i].span.start, items[i + 1].span.end), x.op, items[i], items[i + 1])
                             for i in range(0, len(items) - 1, 2)]
        if len(items) % 2:
            nxt.append(items[-1])
        items = nxt
    return items[0]


def _build_all(root: Tree | Token) -> A.Node:
    """The lark tree → AST without recursion (a hostile expression may nest
    thousands deep before the depth check can say so)."""
    built: dict[int, A.Node | _Chain] = {}
    stack: list[tuple[Tree | Token, bool]] = [(root, False)]
    while stack:
        t, ready = stack.pop()
        if isinstance(t, Tree) and not ready:
            stack.append((t, True))
            for c in t.children:
                if isinstance(c, Tree):
                    stack.append((c, False))
                elif isinstance(c, Token) is False and c is not None:  # pragma: no cover
                    raise TypeError(c)
            continue
        built[id(t)] = _build(t, built)  # type: ignore[arg-type]
    return _done(built[id(root)])


def _check_depth(root: A.Node) -> None:
    deepest, at = 0, root
    stack = [(root, 1)]
    while stack:
        n, d = stack.pop()
        if d > deepest:
            deepest, at = d, n
        if d > MAX_DEPTH:
            raise ExprError(f"the expression nests more than {MAX_DEPTH} levels deep", n.span.start, max(n.span.end, n.span.start + 1),
                            hint="name parts of it in `definitions`, or write a long chain with one operator (a + b + c …)")
        stack.extend((c, d + 1) for c in A.children(n))


def _span(x: Tree | Token) -> A.Span:
    if isinstance(x, Token):
        return A.Span(x.start_pos or 0, x.end_pos or 0)
    m = x.meta
    if getattr(m, "empty", True):
        return A.Span(0, 0)
    return A.Span(m.start_pos, m.end_pos)


def _build(t: Tree, built: dict[int, "A.Node | _Chain"]) -> "A.Node | _Chain":  # noqa: C901 - one case per rule
    """One node from its children, already built (`built` by id)."""
    sp = _span(t)
    d = t.data
    c = t.children

    def b(x: Tree | Token | None) -> A.Node:
        return _done(built[id(x)])

    if d == "number":
        digits = str(c[0])
        if len(digits) > MAX_DIGITS:
            raise ExprError(f"the number {digits[:20]}… has more than {MAX_DIGITS} digits", sp.start, sp.end)
        return A.Num(sp, int(digits))
    if d == "string":
        return A.Str(sp, str(c[0])[1:-1])
    if d == "tile":
        return A.TileLit(sp, tiles.parse_tile(str(c[0])), str(c[0]))
    if d == "name":
        return A.Name(sp, str(c[0]))
    if d == "list_":
        return A.ListLit(sp, tuple(b(x) for x in c if x is not None))
    if d == "attr":
        return A.Attr(sp, b(c[0]), str(c[1]), _span(c[1]))
    if d == "args":  # read by its call
        return _Chain(",", [])
    if d == "call":
        args = c[1].children if c[1] is not None else []
        return A.Call(sp, str(c[0]), tuple(b(a) for a in args), _span(c[0]))
    if d == "quant":
        return A.Quant(sp, str(c[0]), str(c[1]), b(c[2]), b(c[3]))
    if d == "binop":
        op = "*" if str(c[1]) == "×" else str(c[1])
        left = built[id(c[0])]
        if op in ("+", "*"):  # associative on numbers and lists: a run of them is kept flat, then balanced
            if isinstance(left, _Chain) and left.op == op:
                left.items.append(b(c[2]))
                return left
            return _Chain(op, [_done(left), b(c[2])])
        return A.BinOp(sp, op, _done(left), b(c[2]))
    if d in ("and_", "or_"):
        return A.BoolOp(sp, d[:-1], tuple(b(x) for x in c))
    if d == "not_":
        return A.Not(sp, b(c[0]))
    if d == "neg":
        return A.Neg(sp, b(c[0]))
    if d == "compare":
        return A.Compare(sp, str(c[1]), b(c[0]), b(c[2]))
    if d == "isin":
        return A.Compare(sp, "in", b(c[0]), b(c[1]))
    if d == "notin":
        return A.Compare(sp, "notin", b(c[0]), b(c[1]))
    if d == "ifelse":
        return A.IfElse(sp, b(c[1]), b(c[0]), b(c[2]))
    raise TypeError(f"unknown tree {d}")  # pragma: no cover
