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


@lru_cache(maxsize=4096)
def parse(text: str) -> A.Node:
    """The AST of an expression (memoised: ASTs are frozen, and a rule file
    is lowered once per profile and option set with the same texts)."""
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
    return _build(tree)


def _span(x: Tree | Token) -> A.Span:
    if isinstance(x, Token):
        return A.Span(x.start_pos or 0, x.end_pos or 0)
    m = x.meta
    if getattr(m, "empty", True):
        return A.Span(0, 0)
    return A.Span(m.start_pos, m.end_pos)


def _build(t: Tree | Token) -> A.Node:
    if isinstance(t, Token):  # pragma: no cover - grammar wraps tokens
        raise TypeError(t)
    sp = _span(t)
    d = t.data
    c = t.children
    if d == "number":
        return A.Num(sp, int(str(c[0])))
    if d == "string":
        return A.Str(sp, str(c[0])[1:-1])
    if d == "tile":
        return A.TileLit(sp, tiles.parse_tile(str(c[0])), str(c[0]))
    if d == "name":
        return A.Name(sp, str(c[0]))
    if d == "list_":
        return A.ListLit(sp, tuple(_build(x) for x in c if x is not None))
    if d == "attr":
        return A.Attr(sp, _build(c[0]), str(c[1]), _span(c[1]))
    if d == "call":
        args = c[1].children if c[1] is not None else []
        return A.Call(sp, str(c[0]), tuple(_build(a) for a in args), _span(c[0]))
    if d == "quant":
        return A.Quant(sp, str(c[0]), str(c[1]), _build(c[2]), _build(c[3]))
    if d == "binop":
        op = "*" if str(c[1]) == "×" else str(c[1])
        return A.BinOp(sp, op, _build(c[0]), _build(c[2]))
    if d in ("and_", "or_"):
        return A.BoolOp(sp, d[:-1], tuple(_build(x) for x in c))
    if d == "not_":
        return A.Not(sp, _build(c[0]))
    if d == "neg":
        return A.Neg(sp, _build(c[0]))
    if d == "compare":
        return A.Compare(sp, str(c[1]), _build(c[0]), _build(c[2]))
    if d == "isin":
        return A.Compare(sp, "in", _build(c[0]), _build(c[1]))
    if d == "notin":
        return A.Compare(sp, "notin", _build(c[0]), _build(c[1]))
    if d == "ifelse":
        return A.IfElse(sp, _build(c[1]), _build(c[0]), _build(c[2]))
    raise TypeError(f"unknown tree {d}")  # pragma: no cover
