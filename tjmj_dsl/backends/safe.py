"""The only ways text reaches a generated file.

A rule file is untrusted: none of its strings may change the meaning of the
code, tests or docs generated from it. The templates are rendered with a
`finalize` hook that refuses any interpolated value that is not one of:
  - `Code`: text an emitter built (expression code, reprs of data), or
  - a plain word of letters, digits and _ (pattern ids, kinds, hashes), or
  - an int;
so a raw string cannot be spliced into Python by mistake. Rule-file text goes
through one of the filters below: `py` (a Python literal), `comment`
(inert text for a `#` comment), `docstring`, `label` (a file name in a
header), and for Markdown `md` (escaped inline text) and `code` (a code span).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..inert import inert, shown

WORD = re.compile(r"[A-Za-z0-9_]+")  # an identifier, a number, a hash: nothing that can change what is around it
_SAFE_LABEL = re.compile(r"[A-Za-z0-9_./+@ -]*")  # no ':' '=' (PEP 263), no '--' (an HTML comment's end)


class UnsafeText(ValueError):
    """A template tried to emit text that no filter made safe (a bug in tjmj, not in the rule file)."""


class Code(str):
    """Text that is safe to emit as is: built by tjmj, not copied from a rule file."""

    __slots__ = ()


def py(value: Any) -> Code:
    """A Python literal of plain data (str, int, bool, None, and tuples, lists,
    dicts of those); anything else is refused rather than emitted."""
    _check_literal(value, 0)
    return Code(repr(value))


def _check_literal(v: Any, depth: int) -> None:
    if depth > 50:
        raise UnsafeText("data nested too deeply for a literal")
    if v is None or isinstance(v, (bool, int, str)):
        return
    if isinstance(v, (tuple, list)):
        for x in v:
            _check_literal(x, depth + 1)
        return
    if isinstance(v, dict):
        for k, x in v.items():
            _check_literal(k, depth + 1)
            _check_literal(x, depth + 1)
        return
    raise UnsafeText(f"cannot emit a {type(v).__name__} as a literal")


def word(text: Any) -> Code:
    """A rule-file name used as (part of) an identifier: only when it is a plain word
    (the schema makes it one; this refuses, as the templates' hook does, if it is not)."""
    s = str(text)
    if not WORD.fullmatch(s):
        raise UnsafeText(f"{s[:40]!r} is not a plain word")
    return Code(s)


def comment(text: Any) -> Code:
    """Inert text for a `#` comment."""
    return Code(inert(text))


def docstring(text: Any) -> Code:
    """Inert text for a docstring: it reads back as exactly `text`."""
    return Code(inert(text, quotes=True))


def label(text: Any) -> Code:
    """A file name for a header line: as is when plain, else a JSON string with
    ':' '=' '-' '>' escaped too (a header must not read as an encoding
    declaration or end an HTML comment)."""
    s = str(text)
    if _SAFE_LABEL.fullmatch(s) and "--" not in s:
        return Code(s)
    out = json.dumps(s, ensure_ascii=True)
    for c in ":=->":
        out = out.replace(c, "\\u%04x" % ord(c))
    return Code(out)


def finalize_python(value: Any) -> Any:
    """The finalize hook of the Python templates."""
    if isinstance(value, Code):
        return value
    if isinstance(value, bool) or isinstance(value, int):
        return str(value)
    if isinstance(value, str) and WORD.fullmatch(value):
        return value
    raise UnsafeText(f"refusing to splice {value!r} into generated code; use a filter (py, comment)")


# ---- Markdown ----

_MD_PUNCT = set("\\`*_[]<>|~#!&$")


def md(text: Any) -> Code:
    """Inline Markdown text that renders as exactly these characters: no HTML,
    links, emphasis, code, table cells or new blocks."""
    s = " ".join(shown(str(text)).split())  # one line: control characters and line breaks become spaces
    out = []
    for i, c in enumerate(s):
        if c == "_" and 0 < i < len(s) - 1 and s[i - 1].isalnum() and s[i + 1].isalnum():
            out.append(c)  # inside a word `_` cannot start or end emphasis: kong_draw stays readable
        elif c == "&":
            out.append("&amp;")
        elif c == "<":
            out.append("&lt;")
        elif c == ">":
            out.append("&gt;")
        elif c == "|":
            out.append("\\|")
        elif c in _MD_PUNCT:
            out.append("\\" + c)
        else:
            out.append(c)
    res = "".join(out)
    m = re.match(r"(\d+)([.)])|([-+=])", res)  # would start a list or heading at the start of a block
    if m:
        i = m.end() - 1
        res = res[:i] + "\\" + res[i:]
    return Code(res)


def code(text: Any, cell: bool = False) -> Code:
    """A Markdown code span holding exactly `text` (in a table cell, `|` is escaped as GFM asks)."""
    s = " ".join(shown(str(text)).split())
    longest = max((len(r) for r in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s.strip() else ""
    if cell:
        s = s.replace("|", "\\|")
    return Code(f"{fence}{pad}{s}{pad}{fence}")


def finalize_markdown(value: Any) -> Any:
    """The finalize hook of the Markdown templates: every string is escaped
    unless a filter made it (md, code)."""
    if isinstance(value, Code):
        return value
    if isinstance(value, bool) or isinstance(value, int):
        return str(value)
    if value is None:
        return ""
    return md(value)
