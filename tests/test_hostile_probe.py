"""Found by a black-box probe of the promises of docs/reliability.md (issue 13),
after the hostile-input work: each test states a promise that once failed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from tjmj_dsl import RuleError, Scorer
from tjmj_dsl.backends.jsgen import generate_dts, generate_js
from tjmj_dsl.compiler import load_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = os.path.join(ROOT, "rules", "tianjin.yaml")
NODE = shutil.which("node") or shutil.which("nodejs")
WIN = {"id": 1, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}
LONG = {"id": 1, "concealed": "123s456s78sEEE55m", "draw": "9s", "indicator": "7p"}  # 素龙: long × su


def _write(tmp_path, name: str, text: str) -> str:
    p = tmp_path / f"{name}.yaml"
    p.write_text(text.replace("BASE", json.dumps(BASE)), encoding="utf-8")
    return str(p)


def _refused_by_check(path: str, says: str) -> None:
    """`tjmj check` refuses the file, for the reason `says` (not for some other mistake of the test's file)."""
    out = subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", "check", path], capture_output=True, text=True, timeout=600)
    assert out.returncode != 0 and says in out.stdout + out.stderr, out.stdout + out.stderr


def _strip_ts_comments_and_strings(src: str) -> str:
    code = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    code = re.sub(r"//[^\n]*", "", code)
    return re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', code)


# ---- class 1: injection ---------------------------------------------------------------------

def test_pattern_name_cannot_end_the_dts_doc_comment(tmp_path):
    path = _write(tmp_path, "dts", 'extends: BASE\nname: dts\nset:\n'
                  '  patterns.long.name: "龙 */ export const pwned: number; /*"\n')  # a name: 40 characters at most
    dts = generate_dts(load_rules(path))
    assert "pwned" not in _strip_ts_comments_and_strings(dts)


# ---- class 6: check accepts exactly what compiles and runs ------------------------------------

def test_request_flag_named_like_a_request_field(tmp_path):
    path = _write(tmp_path, "flag_id", "extends: BASE\nname: flag_id\nrequest_flags:\n  id: a flag named id\n")
    _refused_by_check(path, "a request flag named 'id' would be the request's own field 'id'")


def test_check_refuses_profiles_that_share_a_folder(tmp_path):
    path = _write(tmp_path, "coll", "extends: BASE\nname: coll\nreplace: [profiles]\nprofiles:\n"
                  "  x-y: {description: first, options: {score_table: separate}}\n"
                  "  x_y: {description: second, options: {score_table: coins}}\n"
                  "  main: {description: main, options: {score_table: separate}}\ndefault_profile: main\n")
    _refused_by_check(path, "profiles 'x-y' and 'x_y' would both be written to the folder x_y/")


def test_profile_folder_does_not_shadow_a_generated_module(tmp_path):
    path = _write(tmp_path, "shadow", "extends: BASE\nname: shadow\nreplace: [profiles]\nprofiles:\n"
                  "  scorer: {description: s, options: {score_table: coins}}\n"
                  "  main: {description: main, options: {score_table: separate}}\ndefault_profile: main\n")
    _refused_by_check(path, "a profile named 'scorer' would be written to the folder scorer/")


# ---- class 3: loose types in a rule file ------------------------------------------------------

@pytest.mark.parametrize("text, meant", [("010", 10), ("1:00", None), ("1_0", None)])
def test_yaml11_integer_forms_are_not_silently_converted(tmp_path, text, meant):
    path = _write(tmp_path, "y11", f"extends: BASE\nname: y11\nset:\n  patterns.long.value: {text}\n")
    try:
        res = Scorer(rules=path).score(dict(LONG))
    except RuleError as e:  # refused with a diagnostic: the promise holds
        assert "is a number YAML readers disagree on" in e.render(), e.render()
        return
    assert meant is not None and res["fan"] == meant * 2, res["formula"]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("value", ["9007199254740993", "999999999999999", "10000000000"])
def test_big_rule_integers_score_the_same_in_python_and_js(tmp_path, value):
    """Past 15 digits a rule-file number is refused; so is a value that some hand (every ×2 and ×4
    claimed with it: ×16,384, and ×8 a 金杠's points in the coins table) would carry past 2^53 - 1;
    below that both targets agree."""
    path = _write(tmp_path, "big", f"extends: BASE\nname: big\nset:\n  patterns.long.value: {value}\n")
    try:
        rs = load_rules(path)
    except RuleError as e:
        if len(value) > 15:
            assert "has more than 15 digits" in e.render(), e.render()
        else:
            assert int(value) * 16384 * 8 > 2**53 - 1 and "2^53 - 1" in e.render(), e.render()
        return
    assert int(value) * 16384 * 8 <= 2**53 - 1
    py = Scorer(rules=path).score(dict(LONG))
    (tmp_path / "scorer.mjs").write_text(generate_js(rs), encoding="utf-8")
    out = subprocess.run([NODE, "--input-type=module", "-e",
                          f"import {{score, toJson}} from {json.dumps(str(tmp_path / 'scorer.mjs'))};"
                          f"console.log(toJson(score({json.dumps(LONG)})))"],
                         capture_output=True, text=True, timeout=120)
    js = json.loads(out.stdout)
    assert (js["fan"], js["total"]) == (py["fan"], py["total"])


def test_cli_option_value_with_spaces_follows_the_one_rule():
    bare = ["score", "345m 123s EEE 456s 9m +7p", "-i", "7p", "--json"]  # a bare 提溜: wins only under min_fan 1
    with pytest.raises(RuleError):
        Scorer(options={"min_fan": " 1"})
    out = subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", *bare, "--option", "min_fan= 1"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "min_fan" in out.stderr, out.stdout[:200]
