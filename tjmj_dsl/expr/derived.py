"""Derived attributes (vocabulary.DERIVED_ATTRS) written out: `x.own` becomes the
expression that defines it, with `it` replaced by `x`. Run on a checked
expression, so a misspelt or misplaced attribute was already reported where
the user wrote it."""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any

from . import ast as A
from .check import Problem
from .parser import parse
from .vocabulary import DERIVED_ATTRS

_BY_NAME = {name: d for table in DERIVED_ATTRS.values() for name, d in table.items()}


@lru_cache(maxsize=None)
def _template(name: str) -> A.Node:
    return parse(_BY_NAME[name].expr)


def _free(n: A.Node) -> set[str]:
    if isinstance(n, A.Name):
        return {n.id}
    if isinstance(n, A.Quant):
        return _free(n.domain) | (_free(n.body) - {n.var})
    out: set[str] = set()
    for c in A.children(n):
        out |= _free(c)
    return out


def _place(n: A.Node, obj: A.Node, span: A.Span) -> A.Node:
    """The template with `it` replaced by obj, every node given the attribute's span."""
    if isinstance(n, A.Name) and n.id == "it":
        return obj
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(n):
        v = getattr(n, f.name)
        if isinstance(v, A.Node):
            changes[f.name] = _place(v, obj, span)
        elif isinstance(v, tuple) and v and isinstance(v[0], A.Node):
            changes[f.name] = tuple(_place(x, obj, span) for x in v)
        elif isinstance(v, A.Span):
            changes[f.name] = span
    return dataclasses.replace(n, **changes)


def expand(n: A.Node, problems: list[Problem], bound: frozenset[str] = frozenset()) -> A.Node:
    """n with every derived attribute written out. A name the definition reads that a
    quantifier around it rebinds is a problem (the attribute would read the wrong value)."""
    if not any(isinstance(x, A.Attr) and x.name in _BY_NAME for x in A.walk(n)):
        return n  # nothing to write out (the usual case): the same tree
    if isinstance(n, A.Attr) and n.name in _BY_NAME:
        obj = expand(n.obj, problems, bound)
        tmpl = _template(n.name)
        clash = sorted((_free(tmpl) - {"it"}) & bound)
        if clash:
            problems.append(Problem(n.name_span.start, n.name_span.end,
                                    f".{n.name} reads {', '.join(clash)}, which a quantifier around it rebinds",
                                    f"rename the quantifier's variable {clash[0]!r}", "name"))
        return _place(tmpl, obj, n.span)
    if isinstance(n, A.Quant):
        return dataclasses.replace(n, domain=expand(n.domain, problems, bound),
                                   body=expand(n.body, problems, bound | {n.var}))
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(n):
        v = getattr(n, f.name)
        if isinstance(v, A.Node):
            changes[f.name] = expand(v, problems, bound)
        elif isinstance(v, tuple) and v and isinstance(v[0], A.Node):
            changes[f.name] = tuple(expand(x, problems, bound) for x in v)
    return dataclasses.replace(n, **changes) if changes else n
