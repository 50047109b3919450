"""Classes 5 and 7 of issue 13 for files and hands: YAML bombs, deep nesting,
tags, complex keys, files that are not UTF-8, directories and devices named
by `extends:`/`known_values:`, and the hand notation (full-width and other
Unicode digits, any text): a positioned diagnostic or a TileError, never a
traceback, never unbounded time or memory, never an echo of a foreign file."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run
from tjmj_dsl import RuleError, Scorer
from tjmj_dsl.compiler import load_rules
from tjmj_dsl.notation import parse_hand
from tjmj_dsl.source.files import MAX_FILE_BYTES
from tjmj_dsl.source.located import MAX_EXPANDED, MAX_NODES, load
from tjmj_dsl.tiles import TileError, parse_tiles

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = os.path.join(ROOT, "rules", "tianjin.yaml")


def _file(tmp: str, text: str | bytes, name: str = "r.yaml") -> str:
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def _refused(path: str, *words: str) -> str:
    with pytest.raises(RuleError) as e:
        load_rules(path)
    text = e.value.render()
    assert "Traceback" not in text
    for w in words:
        assert w in text, text
    return text


def test_a_billion_laughs_stops_at_the_limit_quickly(tmp_path: str) -> None:
    rows = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi"):
        rows.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    t = time.monotonic()
    _refused(_file(str(tmp_path), "\n".join(rows) + "\n"), f"{MAX_NODES:,} values")
    assert time.monotonic() - t < 30


def test_one_long_text_repeated_by_aliases_stops_at_the_limit(tmp_path: str) -> None:
    # an audit's file: 36 KB (a 20,000-character text and 4,000 aliases of it) made 462 MB of rulebook;
    # values are few (4,001), so the values' limit alone let it through
    text = "rulebook:\n  tiles: [&a \"" + "A" * 20_000 + "\", " + ", ".join(["*a"] * 4000) + "]\n"
    assert len(text) < 40_000
    _refused(_file(str(tmp_path), text), f"{MAX_EXPANDED:,} characters", "r.yaml:2:")
    # the same text a few times is fine (the limit is on the text, twice a file's)
    few = "rulebook:\n  tiles: [&a \"" + "A" * 20_000 + "\", " + ", ".join(["*a"] * 40) + "]\n"
    assert load(str(_file(str(tmp_path), few, "few.yaml")), few).data["rulebook"]["tiles"][-1] == "A" * 20_000


@pytest.mark.parametrize("text, words", [
    ("a: " + "[" * 5000 + "]" * 5000 + "\n", ["nest"]),
    ("a: " + "{x: " * 100 + "1" + "}" * 100 + "\n", ["nest"]),
    ("a: 1\n---\nb: 2\n", ["one YAML document"]),
    ("a: !!python/object/apply:os.system [echo hi]\n", ["tag"]),
    ("a: !!binary aGk=\n", ["tag"]),
    ("? [x, y]\n: 1\n", ["plain name"]),
    ("? {x: 1}\n: 1\n", ["plain name"]),
    ("a: 1\na: 2\n", ["appears twice"]),
    ("a: *nope\n", ["alias"]),
    ("\ufeffformat: tjmj-rules/1\n- x\n", ["YAML"]),
])
def test_malformed_yaml_is_a_positioned_diagnostic(tmp_path: str, text: str, words: list[str]) -> None:
    _refused(_file(str(tmp_path), text), *words)


def test_keys_are_read_as_written(tmp_path: str) -> None:
    doc = load("k.yaml", "4: a\n'on': b\nnull: c\n1.5: d\ntrue: e\n")
    assert doc.data == {"4": "a", "on": "b", "null": "c", "1.5": "d", "true": "e"}
    with pytest.raises(RuleError) as e:  # a key YAML 1.1 reads as true is an error, as a value is
        load("k.yaml", "a: 1\non: b\n")
    assert [(d.code, d.pos.line) for d in e.value.diagnostics] == [("yaml-bool", 2)]


@pytest.mark.parametrize("what, make, words", [
    ("a directory", lambda d: d, ["is a directory"]),
    ("a device", lambda d: "/dev/zero", ["not a regular file"]),
    ("a file too big", lambda d: _file(d, "a: 1\n" + "#" * (MAX_FILE_BYTES + 1), "big.yaml"), ["at most"]),
    ("not UTF-8", lambda d: _file(d, b"format: tjmj-rules/1\nname: \xff\xfe\n", "latin.yaml"), ["not UTF-8", "line 2"]),
    ("not a rule file", lambda d: _file(d, "root:x:0:0:root:/root:/bin/bash\nsecret: hunter2\n", "passwd"),
     ["not a tjmj rule file"]),
    ("JSON", lambda d: os.path.join(ROOT, "rules", "schema.json"), ["not a tjmj rule file"]),
])
def test_extends_names_something_that_is_not_a_rule_file(tmp_path: str, what: str, make: Any, words: list[str]) -> None:
    if what == "a device" and not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    target = make(str(tmp_path))
    over = _file(str(tmp_path), f"extends: {target}\n", "over.yaml")
    text = _refused(over, "over.yaml:1:10", *words)
    assert "hunter2" not in text and "root:x" not in text  # nothing of the foreign file is shown


def test_known_values_names_something_that_is_not_a_known_values_file(tmp_path: str) -> None:
    secret = _file(str(tmp_path), "password: hunter2\n", "secret.yaml")
    for target, words in ((secret, ["not a known-values file"]), (str(tmp_path), ["is a directory"]),
                          (os.path.join(str(tmp_path), "none.yaml"), ["no file"])):
        over = _file(str(tmp_path), f"extends: {BASE}\nknown_values: {target}\n", "over.yaml")
        code, _, err = run(["check", over])
        assert code == 1 and "over.yaml:2:" in err and "Traceback" not in err and "hunter2" not in err
        for w in words:
            assert w in err, err


@pytest.mark.parametrize("text, words", [
    ("extends: " + BASE + "\nset: [1, 2]\n", ["set: is a mapping"]),
    ("extends: " + BASE + "\noptions:\n  min_fan: 3\n", ["min_fan"]),
    ("extends: " + BASE + "\nprofiles:\n  seed-001: []\n", ["seed-001"]),
    ("extends: [1]\n", ["extends names a rule file"]),
    ("extends: " + BASE + "\nset:\n  patterns.su: 1\n", ["patterns"]),
])
def test_malformed_sections_are_diagnostics(tmp_path: str, text: str, words: list[str]) -> None:
    _refused(_file(str(tmp_path), text), *words)


def test_an_extends_loop_and_a_long_chain(tmp_path: str) -> None:
    a = _file(str(tmp_path), "extends: b.yaml\n", "a.yaml")
    _file(str(tmp_path), "extends: a.yaml\n", "b.yaml")
    _refused(a, "a cycle of extends: 'a.yaml' → 'b.yaml' → 'a.yaml'")  # b does not extend itself (once said so)
    _refused(_file(str(tmp_path), "extends: s.yaml\n", "s.yaml"), "extends itself")
    x = _file(str(tmp_path), "extends: y.yaml\n", "x.yaml")
    _file(str(tmp_path), "extends: z.yaml\n", "y.yaml")
    _file(str(tmp_path), "extends: x.yaml\n", "z.yaml")
    _refused(x, "a cycle of extends: 'x.yaml' → 'y.yaml' → 'z.yaml' → 'x.yaml'")
    prev = BASE
    for i in range(12):
        prev = _file(str(tmp_path), f"extends: {prev}\n", f"c{i}.yaml")
    _refused(prev, "overlays extend one another")


def test_full_width_and_other_unicode_digits_in_hands() -> None:
    assert parse_tiles("３４５ｍ１２３ｓＥＥＥ") == parse_tiles("345m123sEEE")
    assert parse_hand("３４５ｍ　１２３ｓ　ＥＥＥ　７７ｍ　４５ｓ　［５５５ｐ］　＋６ｓ") == parse_hand("345m 123s EEE 77m 45s [555p] +6s")
    for bad in ("٣٤٥m", "²m", "𝟓m", "5\u0663m"):
        with pytest.raises(TileError):
            parse_tiles(bad)
    code, out, err = run(["score", "３４５ｍ １２３ｓ ＥＥＥ ７７ｍ ４５ｓ ＋６ｓ", "-i", "７ｐ"])
    assert code == 0 and "WIN: fan 2" in out


@settings(max_examples=600, deadline=None)
@given(st.one_of(st.text(max_size=40), st.text(alphabet="123456789mpszESWNCFP []()+０１２３４５ｍｐ五万白板٣\x00\ud800", max_size=40)))
def test_fuzz_the_hand_notation(text: str) -> None:
    try:
        out = parse_hand(text)
    except TileError as e:
        assert 0 <= e.pos <= len(text)
        e.render()
        return
    assert set(out) <= {"concealed", "melds", "draw"}


@pytest.mark.parametrize("call", [
    lambda s: s.score({5: 1}),
    lambda s: s.score({"concealed": ["3m"] * 13, "draw": "5m", "indicator": "1m"}),
    lambda s: s.score({"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "melds": [["pung", "5p"]]}),
    lambda s: s.score(None),
    lambda s: s.score([1]),
    lambda s: s.waits({(1, 2): 3}),
    lambda s: s.score_tiles([0] * 13, 5, 9, melds=[("pung",)]),
    lambda s: s.score_tiles([0] * 13, 5, 9, melds=[("pung", 5, 6)]),
    lambda s: s.score_tiles([0] * 13, 5, 9, melds=[5]),
    lambda s: s.score_tiles([0] * 13, 5, 9, melds=[(["pung"], 5)]),
    lambda s: s.score_tiles([0] * 13, 5, 9, flags=[["tianhu"]]),
    lambda s: s.score_tiles([0] * 13, 5, 9, flags=5),
    lambda s: s.score_tiles([0] * 13, 5, 9, kong_draw=["hun"]),
    lambda s: s.score_tiles(None, 5, 9),
    lambda s: s.score_tiles([0] * 13, 5.0, 9),
    lambda s: s.score_tiles([True] * 13, 5, 9),
])
def test_the_api_never_raises_for_a_bad_request(gen: Scorer, call: Any) -> None:
    res = call(gen)
    if isinstance(res, dict):
        assert res["reason"] == "invalid_request" and res["error"]
    else:
        assert res.reason == "invalid_request" and res.error
