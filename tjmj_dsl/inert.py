"""Inert text: what a comment, a docstring or a one-line label may hold of
any string (from a rule file, a file name). Used by every code generator
(backends/safe.py for Python, expr/emit_js.py for JavaScript); and `shown`,
what a document or a terminal may show of one."""

from __future__ import annotations

from typing import Any


def inert(text: Any, quotes: bool = False) -> str:
    """Text with nothing that can end a line or a comment: printable
    characters only (newlines, NUL, lone surrogates, separators become
    escapes); with `quotes`, quotes and backslashes escaped too, for a
    docstring (where the escapes read back as the text)."""
    s = str(text)
    special = "\\\"'" if quotes else ""
    if s.isprintable() and not any(c in s for c in special):
        return s
    return "".join(c if c.isprintable() and c not in special else _escape(c) for c in s)


def _escape(c: str) -> str:
    o = ord(c)
    if c in "\\\"'":
        return "\\x%02x" % o
    return "\\x%02x" % o if o < 0x100 else ("\\u%04x" % o if o < 0x10000 else "\\U%08x" % o)


def shown(text: Any) -> str:
    """What a document (Markdown, HTML) or a terminal shows of a text: its
    printable characters; every other one (a control character such as ESC,
    a bidirectional override or isolate, which would reorder the numbers
    after it, a line separator) as a space, NUL and lone surrogates as U+FFFD."""
    s = str(text)
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() else ("\ufffd" if c == "\x00" or 0xD800 <= ord(c) <= 0xDFFF else " ")
                   for c in s)


def lone_surrogate_at(data: Any) -> str | None:
    """Where JSON data read from outside holds a lone surrogate (a valid `"\\ud800"` escape, but no
    text: no UTF-8 writes it, nothing can hash or store it): the path of the string ("a/0/b"; a key's
    mapping for a key; "(top)" for the data itself), or None. Walked without recursion."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        x, where = stack.pop()
        if isinstance(x, str):
            if _has_lone_surrogate(x):
                return where or "(top)"
        elif isinstance(x, dict):
            for k, v in x.items():
                if isinstance(k, str) and _has_lone_surrogate(k):  # said at its mapping: the path names no such key
                    return where or "(top)"
                stack.append((v, f"{where}/{k}" if where else str(k)))
        elif isinstance(x, list):
            stack.extend((v, f"{where}/{i}" if where else str(i)) for i, v in enumerate(x))
    return None


def _has_lone_surrogate(text: str) -> bool:
    return not text.isascii() and any("\ud800" <= c <= "\udfff" for c in text)
