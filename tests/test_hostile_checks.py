"""Class 6 of issue 13: `check` accepts exactly what compiles and runs. Rule
files that used to pass `check` and then compile to a broken scorer (a block
scalar body, a repeated parameter, a definition named like a built-in, very
long or deep expressions, huge numbers, definitions that double at each
level) are refused with a position, or compile to a scorer that agrees with
the interpreter. The overlay fuzz target lives here too."""

from __future__ import annotations

import os
import time

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tjmj_dsl import RuleError, Scorer
from tjmj_dsl.compiler import load_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = os.path.join(ROOT, "rules", "tianjin.yaml")
HANDS = [
    {"concealed": "123456789m1m2mEE", "draw": "5m", "indicator": "1m"},
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"},
    {"concealed": "345m123sEEE456s9m", "draw": "7p", "indicator": "7p"},
    {"concealed": "11122233344455m", "draw": "5m", "indicator": "E"},
]


def _write(tmp: str, doc: dict, name: str = "o.yaml") -> str:
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(yaml.safe_dump({"extends": BASE, **doc}, allow_unicode=True, width=10**6))
    return path


def _agree(path: str) -> None:
    """Both backends build and give the same answers."""
    g, i = Scorer(path), Scorer(path, backend="interpreter")
    for h in HANDS:
        assert g.score(h) == i.score(h), h


def _refused(path: str, *words: str) -> str:
    with pytest.raises(RuleError) as e:
        load_rules(path)
    text = e.value.render()
    assert "o.yaml:" in text and "Traceback" not in text, text
    for w in words:
        assert w in text, text
    return text


def test_a_block_scalar_body_compiles(tmp_path: str) -> None:
    text = yaml.safe_dump({"extends": BASE}) + (
        'definitions:\n  "long_in(s)": |\n    all(r in [1, 4, 7]:\n      any(g in melds: g.is_chow and g.suit == s and g.rank == r))\n')
    path = os.path.join(str(tmp_path), "o.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    _agree(path)
    assert Scorer(path).score(HANDS[0])["fan"] == 28


def test_a_repeated_parameter_is_refused(tmp_path: str) -> None:
    _refused(_write(str(tmp_path), {"definitions": {"same(x, x)": "x == x"}}), "parameter 'x'")


@pytest.mark.parametrize("name", ["sum", "len", "count", "any", "min", "next", "sorted", "product", "huns", "melds",
                                  "true", "add", "tianhu"])
def test_a_definition_named_like_a_builtin_or_a_name_is_refused(tmp_path: str, name: str) -> None:
    path = _write(str(tmp_path), {"definitions": {f"{name.lower()}(x)": "x"}})
    _refused(path, name.lower())


def test_long_chains_compile_and_agree(tmp_path: str) -> None:
    """300 terms (Python's parser stops at 200 nested parentheses; the old
    emitter nested one pair per term), a product and an `and` as long (the
    product's factors 1 but one: 300 factors of huns + 1 could reach 19^300,
    which JavaScript cannot hold, and is refused)."""
    when = ("(" + " + ".join(["huns"] * 300) + " == 0) and " + " * ".join(["(huns + 1)"] + ["1"] * 299) + " == 1 and "
            + " and ".join(["true"] * 300))
    _agree(_write(str(tmp_path), {"set": {"patterns.su.when": when}}))


@pytest.mark.parametrize("when, words", [
    ("huns in " + "[" * 500 + "1" + "]" * 500, ["nest"]),
    ("not " * 500 + "true", ["nest"]),
    ("huns - " * 500 + "huns == 0", ["nest"]),
    ("huns == " + "9" * 5000, ["number"]),
    ("huns == 1" + " " * 200_000, ["long"]),
    # an audit's: parentheses make no tree node, so 49,000 nested ones passed the depth limit (check took 98 s)
    ("(" * 49_000 + "huns" + ")" * 49_000 + " == 0", ["nested more than 64 deep"]),
])
def test_deep_or_huge_expressions_are_refused_with_a_position(tmp_path: str, when: str, words: list[str]) -> None:
    _refused(_write(str(tmp_path), {"set": {"patterns.su.when": when}}), *words)


def test_definitions_that_double_at_each_level_stay_fast(tmp_path: str) -> None:
    defs = {"d0(x)": "x"}
    for i in range(1, 40):
        defs[f"d{i}(x)"] = f"d{i - 1}(x) + d{i - 1}(x)"
    path = _write(str(tmp_path), {"definitions": defs, "set": {"patterns.su.when": "d39(huns) == 0"}})
    t = time.monotonic()
    text = _refused(path, "steps for one decomposition")  # 2^39 calls for every decomposition: refused, not run
    assert time.monotonic() - t < 60
    assert "o.yaml:" in text
    # a few levels are fine, and the two backends agree
    few = {k: v for k, v in defs.items() if int(k[1:].split("(")[0]) <= 6}
    _agree(_write(str(tmp_path), {"definitions": few, "set": {"patterns.su.when": "d6(huns) == 0"}}))


def test_quantifiers_nested_over_long_lists_are_refused(tmp_path: str) -> None:
    body = "huns == 0"
    for v in "abcde":
        body = f"any({v} in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]: {body})"
    _refused(_write(str(tmp_path), {"set": {"patterns.su.when": body}}), "steps for one decomposition")


def _nested(*lengths: int, body: str = "huns == 0") -> str:
    """Quantifiers nested over number lists of these lengths, outermost first."""
    for i, n in reversed(list(enumerate(lengths))):
        body = f"any(v{i} in [{', '.join(str(k) for k in range(1, n + 1))}]: {body})"
    return body


@pytest.mark.parametrize("lengths", [(20, 20, 20), (20, 20, 20, 20)])
def test_three_or_four_quantifiers_nested_over_twenty_are_refused(tmp_path: str, lengths: tuple[int, ...]) -> None:
    """An audit's: about 33,000 and 665,000 steps for one decomposition passed the old limit of
    1,000,000, and `check` then took some 70 s and twenty minutes (it evaluates a hand-level
    test for some 30,000 hands of its searches). Both are now refused before anything runs."""
    path = _write(str(tmp_path), {"set": {"patterns.su.when": _nested(*lengths)}})
    _refused(path, "more than 10,000 steps for one decomposition", "quantifiers nested over long lists")


def test_the_rules_expressions_together_are_bounded(tmp_path: str) -> None:
    """Two expressions each within the limit for one (about 9,300 steps) but over the limit for
    all of them together: refused, at the costlier of the two, naming both figures."""
    one = _nested(20, 20, 5)
    two = "(" + _nested(20, 20, 5, body="huns == 1") + ") and pair.huns >= 1"
    load_rules(_write(str(tmp_path), {"set": {"patterns.su.when": one}}))  # one alone is fine
    text = _refused(_write(str(tmp_path), {"set": {"patterns.su.when": one, "patterns.hundiao.when": two}}),
                    "expressions together take more than 20,000 steps for one decomposition", "the costliest")
    line = next(i for i, x in enumerate(open(os.path.join(str(tmp_path), "o.yaml"), encoding="utf-8"), 1)
                if "patterns.hundiao.when" in x)
    assert f"o.yaml:{line}:" in text, text


EXPRS = st.recursive(
    st.sampled_from(["huns", "1", "0", "true", "false", "t", "5m", "none", "kong_draw", "len(melds)", "hun_suit", '"m"',
                     "pair.huns", "count(t)", "tianhu"]),
    lambda xs: st.one_of(
        st.tuples(xs, st.sampled_from(["+", "-", "*", "/", "==", "!=", "<", ">=", "and", "or", "in"]), xs).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"),
        xs.map(lambda x: f"not {x}"),
        xs.map(lambda x: f"any(g in melds: g.huns == {x})"),
        xs.map(lambda x: f"count(g in groups: {x})"),
        st.tuples(xs, xs, xs).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.lists(xs, max_size=3).map(lambda t: "[" + ", ".join(t) + "]"),
    ), max_leaves=12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(when=st.one_of(EXPRS, st.text(max_size=30)), value=st.one_of(st.integers(-3, 10), st.sampled_from([2.0, "2", True, None])))
def test_fuzz_an_overlay(tmp_path_factory: pytest.TempPathFactory, when: str, value: object) -> None:
    """Any overlay of a pattern: refused with a position, or both backends build and agree."""
    d = str(tmp_path_factory.mktemp("o"))
    path = _write(d, {"set": {"patterns.hundiao.when": when, "patterns.hundiao.value": value}})
    try:
        load_rules(path)
    except RuleError as e:
        assert "Traceback" not in e.render() and e.diagnostics
        return
    _agree(path)


def _entries_with_required_keys() -> list[tuple[str, str, str]]:
    """(section, entry, key): for each section whose entries have required keys, its
    first and last entry with each such key (the class: a required key left out)."""
    import json
    with open(os.path.join(ROOT, "rules", "schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    with open(BASE, encoding="utf-8") as f:
        data = yaml.safe_load(f)
    out = []
    for section, spec in schema["properties"].items():
        entry = spec.get("additionalProperties")
        if not isinstance(entry, dict) or not entry.get("required") or not isinstance(data.get(section), dict):
            continue
        ids = list(data[section])
        for eid in sorted({ids[0], ids[-1]}):
            out += [(section, eid, key) for key in entry["required"] if key in data[section][eid]]
    return out


@pytest.mark.parametrize("section,entry,key", _entries_with_required_keys())
def test_a_required_key_left_out_is_a_diagnostic(tmp_path: str, section: str, entry: str, key: str) -> None:
    """Found by benchmarks/fuzz.py: a pattern without `when` got past the schema's error
    into lowering (KeyError), which read the expression from the file, not from the
    stand-in the schema's error left. Every required key, left out, is a positioned error."""
    with open(BASE, encoding="utf-8") as f:
        data = yaml.safe_load(f)
    del data[section][entry][key]
    path = os.path.join(str(tmp_path), "o.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(yaml.safe_dump(data, allow_unicode=True, width=10**6))
    text = _refused(path, key)
    assert entry in text or section in text, text
