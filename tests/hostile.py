"""Hostile text for the fuzz tests: strings that would break out of a Python
comment, string or docstring, a Jinja template, a Markdown table or HTML."""

from __future__ import annotations

import ast
import itertools
from typing import Any

from hypothesis import strategies as st

PAYLOADS = [
    "\n", "\r", "\r\n", "\n__import__('os').system('touch PWNED')\n", '"""', "'''", "\\", "\\n", "'", '"',
    "{{ 7*7 }}", "{% raw %}", "{#", "<script>alert(1)</script>", "<!--", "-->", "|", "||", "`", "```",
    "\x00", "\ud800", "\udfff", "\u2028", "\u2029", "\x0c", "\x1b[31m", "# -*- coding: utf-7 -*-",
    "coding=latin-1", "+AAo-", "*", "_", "[x](javascript:alert(1))", "![x](http://e/x.png)", "#", "- ",
    "1. ", "> ", "&amp;", "&lt;", "$", "~~", "\t", "    ", "天津", "\U0001f004", "\ufeff", "\u202e",
    "*/", "/*", "</script", "${x}", "\u2028//",
]

def visible(text: str) -> str:
    """What a rendered document can show of a text: one line, with what it
    cannot show (control characters, NUL, lone surrogates) replaced."""
    t = "".join(c if c.isprintable() else ("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF or c == "\x00" else " ") for c in text)
    return " ".join(t.split())


# a field that renders as nothing changes a document's shape (an empty list item), not its meaning: keep some text
hostile_text = st.lists(st.one_of(st.sampled_from(PAYLOADS), st.text(max_size=6)), min_size=1, max_size=6).map(
    "".join).filter(lambda t: bool(visible(t)))

# every free-text field of the built-in rules an overlay can set (path → value)
TEXT_PATHS = [
    "title",
    "patterns.long.name", "patterns.long.gloss", "patterns.long.description", "patterns.long.source",
    "patterns.su.description", "patterns.zhuo5.name",
    "patterns.shuanghun.conflicts",  # a list: set whole below
    "request_rules.indicator_on_wall.message", "request_rules.indicator_on_wall.source",
    "options.jin_gang.name", "options.jin_gang.description", "options.jin_gang.source",
    "options.score_table.choices.coins.description",
    "profiles.seed-001.description",
    "pattern_kinds.add", "request_flags.tianhu", "sources.seed-000", "kong_names.concealed", "outcome_names.chan",
]
# the fields the rulebook of the default profile shows
SHOWN = {"title", "patterns.long.name", "patterns.long.description", "patterns.su.description", "patterns.zhuo5.name",
         "patterns.shuanghun.conflicts", "request_rules.indicator_on_wall.message", "options.jin_gang.name",
         "options.jin_gang.description", "profiles.seed-001.description", "pattern_kinds.add", "patterns.long.aka",
         "patterns.long.examples", "kong_names.concealed", "outcome_names.chan"}


def _option_ids() -> list[str]:
    import os

    import yaml
    base = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "rules", "tianjin.yaml")
    with open(base, encoding="utf-8") as f:
        return [k for k, v in yaml.safe_load(f)["options"].items() if "examples" in v]


# The options' examples each build a scorer for every choice while the rulebook
# is made (seconds): the fuzz overlays drop them, and put their text elsewhere.
NO_OPTION_EXAMPLES = {f"options.{o}.examples": None for o in _option_ids()}


def overlay_sets(texts: list[str]) -> dict[str, Any]:
    """A `set:` mapping putting hostile texts into every free-text field."""
    out: dict[str, Any] = dict(NO_OPTION_EXAMPLES)
    it = itertools.cycle(texts)
    for p in TEXT_PATHS:
        t = _fit(p, next(it))
        if p.endswith("conflicts"):
            out[p] = [{"with": "long", "unless": "any(s in suits: long_apart_in(s))", "description": t}]
        else:
            out[p] = t
    out["patterns.long.aka"] = [_fit("aka", next(it)), _fit("aka", next(it))]
    out["patterns.long.examples"] = [{"hand": "123s 456s 78s EEE 55m +9s", "indicator": "7p", "patterns": ["long", "su"],
                                      "fan": 8, "note": next(it)}]
    return out


NAMES_40 = ("patterns.long.name", "patterns.zhuo5.name", "kong_names.concealed", "aka")  # the schema's bound


def _fit(path: str, text: str) -> str:
    """A text within its field's bound (a name: 40 characters), its two ends kept: a payload at each end stays."""
    most = 40 if path in NAMES_40 else 100 if path in ("title", "options.jin_gang.name") else None
    return text if most is None or len(text) <= most else text[:most // 2] + text[-(most // 2):]


def shown_texts(sets: dict[str, Any]) -> list[str]:
    """The texts of `overlay_sets` that the default profile's rulebook shows."""
    out = []
    for p, v in sets.items():
        if p in SHOWN:
            out.extend([c.get("description", c.get("note")) for c in v] if p.endswith(("conflicts", "examples"))
                       else v if isinstance(v, list) else [v])
    return out


def shape(py_source: str) -> str:
    """The AST of Python source with every string constant blanked: two
    sources of the same shape differ only in the text of their literals."""
    tree = ast.parse(py_source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
    return ast.dump(tree, include_attributes=False)
