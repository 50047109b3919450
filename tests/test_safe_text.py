"""backends/safe.py, the only way text reaches a generated file: each filter
keeps any string (lone surrogates, NUL, line breaks, quotes included) inert in
its context, and the templates' finalize hook refuses raw text."""

from __future__ import annotations

import ast
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from hostile import PAYLOADS, visible
from tjmj_dsl.backends.safe import Code, UnsafeText, code, comment, docstring, finalize_markdown, finalize_python, label, md, py

_MD = MarkdownIt("commonmark").enable("table")
texts = st.one_of(st.text(), st.lists(st.sampled_from(PAYLOADS), max_size=5).map("".join))
PEP263 = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


@settings(max_examples=300, deadline=None)
@given(texts)
def test_comment_is_one_inert_line_and_round_trips_in_a_docstring(s: str) -> None:
    c = comment(s)
    assert c.isprintable()
    tree = ast.parse(f"x = 1  # {c}\ny = 2\n")
    assert len(tree.body) == 2
    assert ast.literal_eval(f'"""{docstring(s)}"""') == s  # a docstring holds exactly the text


@settings(max_examples=300, deadline=None)
@given(texts)
def test_label_cannot_declare_an_encoding_or_end_a_comment(s: str) -> None:
    lab = label(s)
    assert lab.isprintable() and "--" not in lab and not PEP263.match("# " + lab)
    if lab != s:  # the JSON string of the name (where two lone surrogates in a row read back as their pair)
        assert json.loads(lab) == s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda xs: st.lists(xs, max_size=3).map(tuple) | st.dictionaries(st.text(max_size=3), xs, max_size=3),
                    max_leaves=10))
def test_py_is_a_literal_of_the_same_value(v: object) -> None:
    assert ast.literal_eval(py(v)) == v


def test_py_refuses_what_is_not_plain_data() -> None:
    for bad in (1.5, float("nan"), b"x", {1, 2}, object()):
        with pytest.raises(UnsafeText):
            py(bad)


def _inline_text(src: str) -> tuple[list[str], str]:
    toks = _MD.parse(src)
    kinds = [t.type for t in toks]
    inline = [c for t in toks for c in (t.children or [])]
    return kinds, "".join(c.content for c in inline if c.type in ("text", "code_inline", "softbreak"))


@settings(max_examples=300, deadline=None)
@given(texts.filter(lambda s: bool(visible(s))))
def test_md_renders_exactly_the_text_in_a_paragraph_a_list_and_a_table(s: str) -> None:
    m = md(s)
    want = visible(s).replace("\x00", "\ufffd")
    kinds, text = _inline_text(m)
    assert kinds == ["paragraph_open", "inline", "paragraph_close"] and text == want
    kinds, text = _inline_text("- " + m)
    assert kinds == ["bullet_list_open", "list_item_open", "paragraph_open", "inline", "paragraph_close",
                     "list_item_close", "bullet_list_close"] and text == want
    toks = _MD.parse(f"| a | b |\n|---|---|\n| {m} | x |\n")
    cells = [t for t in toks if t.type == "td_open"]
    assert len(cells) == 2
    body = [t for t in toks if t.type == "inline"][2]
    assert "".join(c.content for c in body.children or []) == want
    assert "<" not in _MD.render(m).replace("<p>", "").replace("</p>", "")


@settings(max_examples=300, deadline=None)
@given(texts.filter(lambda s: bool(visible(s).strip())))
def test_code_span_holds_exactly_the_text(s: str) -> None:
    want = visible(s).replace("\x00", "\ufffd")
    toks = _MD.parse(code(s))
    spans = [c for t in toks for c in (t.children or []) if c.type == "code_inline"]
    assert len(spans) == 1 and spans[0].content == want
    toks = _MD.parse(f"| a | b |\n|---|---|\n| {code(s, True)} | x |\n")
    assert len([t for t in toks if t.type == "td_open"]) == 2
    spans = [c for t in toks for c in (t.children or []) if c.type == "code_inline"]
    assert len(spans) == 1 and spans[0].content == want


def test_finalize_refuses_raw_text_and_keeps_what_was_made_safe() -> None:
    assert finalize_python("zhuo5") == "zhuo5" and finalize_python(3) == "3"
    assert finalize_python(Code("a\nb")) == "a\nb"
    for raw in ("a b", "x\nimport os", "'", "", "a-b", 1.5, None):
        with pytest.raises(UnsafeText):
            finalize_python(raw)
    assert finalize_markdown("<b>") == "&lt;b&gt;" and finalize_markdown(None) == ""
