"""The JavaScript target under real node: the generated known-value vectors of
every profile, and a differential test that sends the same random request
lines (0-7 huns, declared melds, kong draws, flags, options, waits, malformed
lines) through the generated scorer.py and scorer.mjs and requires the same
JSON text on every line. Skipped only where node cannot be found (Debian's
`nodejs` package; tools/setup-test-deps.sh installs it)."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from typing import Any

import pytest

from conftest import run
from tests.jsdiff import outcome_lines, request_lines, waits_lines
from tjmj_dsl import Scorer
from tjmj_dsl.api import compile_rules
from tjmj_dsl.backends.codegen import generate_scorer, load_generated
from tjmj_dsl.backends.jsgen import generate_js
from tjmj_dsl.cli import _lines
from tjmj_dsl.compiler import load_rules
from tjmj_dsl.engine.runtime import MAX_LINE, jsonl, loads_request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(ROOT, "generated", "tianjin")
PROFILES = {"seed-001": GEN, "seed-000-fan": os.path.join(GEN, "seed_000_fan"),
            "seed-000-coins": os.path.join(GEN, "seed_000_coins")}
OPTIONS = {"min_fan": [1, 2, 3, "2"], "tianting": ["on", "off"], "hun_kinds": [1, 2, 3], "score_table": ["coins"]}
NODE = shutil.which("node") or shutil.which("nodejs")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (Debian package `nodejs`)")


def python_answers(scorer_py: str, data: bytes) -> list[str]:
    """The JSONL answers of the generated Python scorer, lines decoded as `tjmj score --jsonl` decodes them."""
    with open(scorer_py, encoding="utf-8") as f:
        mod = load_generated(f.read(), "tjmj_js_diff_peer")

    def one(r: Any) -> Any:  # as the module run as a program answers
        return mod.waits(r) if isinstance(r, dict) and r.get("draw") is None else mod.score(r)
    return list(jsonl(_lines(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")), one,
                      lambda i, e: mod.refusal(mod.RULES, i, e)))


def node_answers(scorer_mjs: str, data: bytes) -> list[str]:
    assert NODE is not None
    out = subprocess.run([NODE, scorer_mjs], input=data, capture_output=True, timeout=600, check=True)
    return out.stdout.decode("utf-8").splitlines()


def assert_same(py: list[str], js: list[str], lines: list[bytes]) -> None:
    """Every answer the same JSON text (both write a lone surrogate, from a \\ud800 escape in
    a request, as its \\u escape: UTF-8 cannot carry it)."""
    assert len(py) == len(js), (len(py), len(js))
    bad = [(i, a, b) for i, (a, b) in enumerate(zip(py, js)) if a != b]
    assert not bad, f"{len(bad)} of {len(py)} answers differ; first: {bad[0]}"


def run_both(directory: str, lines: list[bytes]) -> list[str]:
    data = b"\n".join(lines) + b"\n"
    py = python_answers(os.path.join(directory, "scorer.py"), data)
    js = node_answers(os.path.join(directory, "scorer.mjs"), data)
    assert_same(py, js, lines)
    return py


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_known_values_under_node(profile: str) -> None:
    test = os.path.join(PROFILES[profile], "test_known_values.mjs")
    assert NODE is not None
    out = subprocess.run([NODE, "--test", test], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "# fail 0" in out.stdout and "# pass 0" not in out.stdout


def test_ten_thousand_random_requests_answer_alike() -> None:
    lines = request_lines(2024, 10000, list(PROFILES), OPTIONS)
    answers = run_both(GEN, lines)
    kinds = [json.loads(a) for a in answers]
    # the lines reach every kind of answer
    assert sum(1 for r in kinds if r.get("win")) > 2000
    assert sum(1 for r in kinds if r.get("reason") == "below_min_fan") > 50
    assert sum(1 for r in kinds if r.get("reason") == "no_winning_shape") > 300
    assert sum(1 for r in kinds if r.get("reason") == "invalid_request") > 500
    assert sum(1 for r in kinds if "waits" in r) > 150
    codes = [r["error"]["code"] for r in kinds if r.get("error")]
    messages = [r["error"]["message"] for r in kinds if r.get("error")]
    assert sum(1 for m in messages if m.startswith("id: NaN, Infinity")) >= 10  # refused, not written as NaN
    assert sum(1 for m in messages if m.endswith("nested more than 64 deep")) >= 1
    for code in ("not_json", "not_utf8", "not_object", "unknown_field", "missing_field", "wrong_type", "bad_tile",
                 "bad_value", "tile_count", "too_many_copies", "rules_mismatch", "unknown_option", "indicator_on_wall"):
        assert codes.count(code) >= 3, code
    shown = [r for r in kinds if r.get("decomposition")]
    assert sum(1 for r in shown if sum(h for g in r["decomposition"] for h in g["huns"]) >= 6) > 100


# score()/waits() called with plain objects, as JavaScript callers make them (JSON.parse's,
# literals): the JSONL runner hands the module Maps, these take the module's other reading path
PLAIN_CALLER = r"""
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
const m = await import(pathToFileURL(process.argv[1]).href);
const plain = (x) => {
  if (x instanceof Map) {
    const o = {};
    for (const [k, v] of x) Object.defineProperty(o, k, { value: plain(v), enumerable: true, writable: true, configurable: true });
    return o;
  }
  return Array.isArray(x) ? x.map(plain) : x;
};
for await (const line of createInterface({ input: process.stdin })) {
  const r = plain(m.parseJson(line));
  const isObject = r !== null && typeof r === "object" && Object.getPrototypeOf(r) === Object.prototype;
  process.stdout.write(m.toJson(isObject && (r.draw ?? null) === null ? m.waits(r) : m.score(r)) + "\n");
}
"""


def test_plain_objects_answer_as_python() -> None:
    """The same random requests as plain objects (not the runner's Maps) through score()/waits()."""
    def no_constants(name: str) -> Any:
        raise ValueError(name)
    lines = []
    for line in request_lines(99, 4000, list(PROFILES), OPTIONS):
        try:  # the runner's own refusals (not JSON, NaN ids, nesting, long lines) are tested above
            json.loads(line.decode("utf-8"), parse_constant=no_constants)
        except (ValueError, RecursionError):
            continue
        if len(line) > MAX_LINE or loads_request(line.decode("utf-8").strip())[1] is not None:
            continue
        lines.append(line)
    data = b"\n".join(lines) + b"\n"
    py = python_answers(os.path.join(GEN, "scorer.py"), data)
    assert NODE is not None
    out = subprocess.run([NODE, "--input-type=module", "-e", PLAIN_CALLER, os.path.join(GEN, "scorer.mjs")], input=data,
                         capture_output=True, timeout=600, check=True)
    assert_same(py, out.stdout.decode("utf-8").splitlines(), lines)
    answers = [json.loads(a) for a in py]
    assert sum(1 for r in answers if r.get("win")) > 800 and sum(1 for r in answers if r.get("error")) > 200


@pytest.mark.parametrize("profile", ["seed-000-fan", "seed-000-coins"])
def test_other_profiles_answer_alike(profile: str) -> None:
    run_both(PROFILES[profile], request_lines(7, 600, list(PROFILES), OPTIONS))


def test_not_json_after_leading_space_is_placed_in_the_line_as_sent() -> None:
    # only JSON's whitespace (space, tab, CR) is a line's margin: U+3000 and a form feed are its text
    lines = [b'   {"id": 1,', b'\t[1,', "\u3000\u3000{".encode(), b'  {"id": 12345678901234567890123' + b"4" * 4300 + b"}",
             b' {"concealed": "1m"} x', b'\x0c', '{"id": 1}\u3000'.encode(), b' \r {"id": 1,']
    answers = [json.loads(a) for a in run_both(GEN, lines)]
    assert [a["error"]["position"] for a in answers] == [12, 4, 0, 9, 21, 0, 9, 12]  # 9: where the long integer starts
    assert "line 1 column 13 (char 12)" in answers[0]["error"]["message"]


def test_a_repeated_key_is_refused_alike() -> None:
    # json.loads and JSON.parse keep the last of a repeated key: both readers refuse it, at the same place
    from test_jsonl_hostile import REPEATED
    lines = [line for line, _ in REPEATED] + [b'{"\\u00e9": 1, "\xc3\xa9": 2}', '{"𝄞": {"x": 1}, "𝄞": 2}'.encode()]
    answers = [json.loads(a) for a in run_both(GEN, lines)]
    assert [a.get("error", {}).get("position") for a in answers] == [pos for _, pos in REPEATED[:4]] + [None, 17, 14, 16]
    assert "the key '𝄞' is repeated" in answers[-1]["error"]["message"]


def test_an_integer_past_what_python_reads_is_refused_where_it_stands_alike() -> None:
    # an audit's finding: a 5,001-digit number was refused at position 0 with Python's own advice
    # ("use sys.set_int_max_str_digits()"); both readers now say where it stands and how long it is
    big = "9" * 5001
    lines = [('{"id": %s, "concealed": "1m"}' % big).encode(),
             ('  {"concealed": "x\\"%s", "id": -%s}' % ("9" * 5000, "1" * 4301)).encode(),  # digits in a string skipped
             ('{"id": %s.5, "concealed": "1m"}' % big).encode(),  # a float: read (as infinity or a large number)
             ('{"id": 1, "x": [%s]}' % ("1" * 4300)).encode()]  # 4,300 digits: read
    answers = [json.loads(a) for a in run_both(GEN, lines)]
    assert answers[0]["error"] == {"code": "not_json", "field": None, "position": 7, "message": (
        "not JSON this scorer reads: an integer of 5,001 digits (at most 4,300): line 1 column 8 (char 7)")}
    pos = lines[1].decode().index("-1")
    assert answers[1]["error"]["position"] == pos and "an integer of 4,301 digits" in answers[1]["error"]["message"]
    assert answers[2]["error"]["code"] != "not_json" and answers[3]["error"]["code"] != "not_json"


def test_a_line_starting_with_nul_is_not_taken_for_the_readers_own_marks() -> None:
    # an audit's finding: the JavaScript runner marked a line it could not take with a leading NUL, so a
    # line that began so was read as one (an empty error code, or its own text as the code)
    lines = [b"\x00", b"\x00too_large", b"  \x00not_utf8@7", b'\x00{"concealed": "1m"}', b"\xff"]
    answers = [json.loads(a) for a in run_both(GEN, lines)]
    assert [a["error"]["code"] for a in answers] == ["not_json"] * 4 + ["not_utf8"]


def test_line_breaks_beyond_ascii_are_written_as_escapes_alike() -> None:
    # U+0085, U+2028, U+2029 split a line for Python's splitlines: both scorers write their \\u escapes
    good = b'{"id": %s, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}'
    lines = [good % b'"a\\u2028b\\u2029c\\u0085d"', good % b'"\xe2\x80\xa8"', b'{"id": 3, "oops\xc2\x85": 1}']
    answers = [json.loads(a) for a in run_both(GEN, lines)]
    assert [a["id"] for a in answers] == ["a\u2028b\u2029c\x85d", "\u2028", 3]
    assert answers[2]["error"]["field"] == "oops\x85"


def test_own_profile_and_options_refusals_are_worded_alike_by_every_way_in() -> None:
    # an audit's finding: the standalone scorers and the Scorer refused the same options in other words
    plain = {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}
    reqs = [dict(plain, options={"min_fan": 2.0}), dict(plain, options={"nope": 1}), dict(plain, profile=1),
            dict(plain, options={"min_fan": "2.0"}), dict(plain, options=[1])]
    lines = [json.dumps(r).encode() for r in reqs]
    standalone = [json.loads(a) for a in run_both(GEN, lines)]
    code, out, _ = run(["score", "--jsonl"], "\n".join(x.decode() for x in lines) + "\n")
    assert code == 0 and [json.loads(x)["error"] for x in out.splitlines()] == [a["error"] for a in standalone]
    assert [a["error"]["message"] for a in standalone[:3]] == [
        "options.min_fan: 2.0 is a decimal number; the values are 1, 2, 3", "options.nope: no option 'nope'",
        "profile: expected a profile name"]


def test_waits_on_a_thousand_hands_answer_alike() -> None:
    answers = run_both(GEN, waits_lines(11, 1000))
    waits = [json.loads(a) for a in answers]
    assert sum(1 for w in waits if w.get("waits")) > 300


# Rule sets that take the search's other paths (test overlays, not Tianjin rules):
# the AND of the melds' masks, a pattern under `not` (no pruning), a count over
# the melds (no mask search: every decomposition enumerated), and options that
# widen the masks past 52 bits (BigInt aggregates).
OVERLAY = """\
extends: {base}
name: {name}
patterns:
  {pid}:
    name: {pid}
    kind: mul
    value: 2
    when: "{when}"
    description: A test overlay, not a Tianjin rule.
    source: tests/test_js.py (test overlay)
"""
OVERLAYS = (("all_pungs_demo", "duidui", "all(g in melds: g.is_pung or g.is_kong)"),
            ("not_monotone_demo", "wuchi", "not any(g in melds: g.is_chow)"),
            ("counting_demo", "sanshun", "count(g in melds: g.is_chow) >= 3"))


def write_both(tmp_path: Any, text: str, name: str) -> tuple[Any, str, str]:
    """An overlay's rule file `text` as name.yaml, and the two scorers `tjmj compile` writes for its
    default profile in tmp_path/out/name: (its rule set, its path, the scorers' folder)."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    rs = load_rules(str(path))
    d = tmp_path / "out" / name
    d.mkdir(parents=True)
    (d / "scorer.py").write_text(generate_scorer(rs), encoding="utf-8")
    (d / "scorer.mjs").write_text(generate_js(rs), encoding="utf-8")
    return rs, str(path), str(d)


@pytest.mark.parametrize("name, pid, when", OVERLAYS, ids=[o[0] for o in OVERLAYS])
def test_other_rule_shapes_answer_alike(tmp_path: Any, name: str, pid: str, when: str) -> None:
    # the two scorers `tjmj compile` writes for the default profile, alone: the rulebook and its
    # combination table (a witness search that, without the mask search, scores thousands of
    # hands by enumerating decompositions) are tested elsewhere and compared here by no line
    _, _, d = write_both(tmp_path, OVERLAY.format(base=os.path.join(ROOT, "rules", "tianjin.yaml"), name=name, pid=pid,
                                                  when=when), name)
    text = open(os.path.join(d, "scorer.mjs"), encoding="utf-8").read()
    assert ("enumerates decompositions" in text) == (pid == "sanshun")
    # enumerating every decomposition of a many-hun hand is slow on both sides: fewer huns there
    run_both(d, request_lines(3, 300, list(PROFILES), OPTIONS, max_huns=7 if pid != "sanshun" else 3))


LIST_EQUALITY = """\
extends: {base}
name: list_equality
set:
  patterns.p1: {{name: p1, kind: mul, value: 3, when: "declared == []", description: d, source: s}}
  patterns.p2: {{name: p2, kind: mul, value: 5, when: "sorted(hun_kinds) == hun_kinds", description: d, source: s}}
  patterns.p3: {{name: p3, kind: mul, value: 7, when: "pair.faces in [[pair.face, pair.face]]", description: d, source: s}}
  patterns.p4: {{name: p4, kind: mul, value: 11, when: "any(a in melds: count(b in melds: b == a) >= 2)",
                description: d, source: s}}
"""


def test_lists_and_groups_compare_by_their_items_in_every_backend(tmp_path: Any) -> None:
    # an audit's finding: the generated Python wrote list literals as tuples, so `declared == []` never held
    # there (it did in JavaScript and the interpreter); JavaScript compared two groups by identity, so two
    # identical chows were not equal there (they are in Python)
    _, path, d = write_both(tmp_path, LIST_EQUALITY.format(base=os.path.join(ROOT, "rules", "tianjin.yaml")), "eq")
    reqs = [{"id": 1, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"},  # 1×2 ×3 ×5 ×7
            {"id": 2, "concealed": "123m123m456sEEE7m", "draw": "7m", "indicator": "5p"},  # two 123m: ×11 too
            {"id": 3, "concealed": "345m123s77m45s", "melds": [{"type": "pung", "tile": "E"}], "draw": "6s",
             "indicator": "7p"}]  # a declared pung: no ×3
    answers = [json.loads(a) for a in run_both(d, [json.dumps(r).encode() for r in reqs])]
    assert [a["fan"] for a in answers] == [210, 2310, 70]
    interp = Scorer(path, backend="interpreter")
    assert [interp.score(r)["fan"] for r in reqs] == [210, 2310, 70]


TEXTS = """\
extends: {base}
name: texts
set:
  patterns.p1: {{name: p1, kind: mul, value: 3, when: "len('\U0001f004') == 1", description: d, source: s}}
  patterns.p2: {{name: p2, kind: mul, value: 5, when: "sorted(['\U0001f004', '\uff00']) == ['\uff00', '\U0001f004']",
                description: d, source: s}}
  patterns.p3: {{name: p3, kind: mul, value: 7, when: "len('\U0001f004\U0001f004x') == 4", description: d, source: s}}
  patterns.p4: {{name: p4, kind: mul, value: 11, when: "sorted(['a\U0001f004', 'a']) == ['a', 'a\U0001f004']",
                description: d, source: s}}
"""


def test_texts_are_counted_and_sorted_by_code_point_in_every_backend(tmp_path: Any) -> None:
    # an audit's finding: JavaScript counted and ordered texts by UTF-16 units (len of a character past
    # U+FFFF was 2; it sorted before U+FF00), Python by code points: the two scorers disagreed
    _, path, d = write_both(tmp_path, TEXTS.format(base=os.path.join(ROOT, "rules", "tianjin.yaml")), "texts")
    req = {"id": 1, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}  # 1×2, then ×3 ×5 ×11
    answers = [json.loads(a) for a in run_both(d, [json.dumps(req).encode()])]
    assert answers[0]["fan"] == 2 * 3 * 5 * 11 and Scorer(path, backend="interpreter").score(req)["fan"] == 330


def test_a_payment_past_what_every_backend_holds_is_refused_alike(tmp_path: Any) -> None:
    # an audit's finding: with play.base_unit 10000003 a settlement's payments passed 2^53 and JavaScript's
    # balances (rounded) no longer summed to 0; both now refuse the outcome with the same error
    rs, _, d = write_both(tmp_path, f"extends: {os.path.join(ROOT, 'rules', 'tianjin.yaml')}\nname: bu\nset:\n"
                                    "  play.base_unit: 10000003\n", "bu")
    big = {"id": 1, "dealer": 0, "winner": 1, "total": 999_999_999, "lazhuang": [0, 2, 0, 0], "zuozhuang": True}
    small = dict(big, id=2, total=2)
    mod = load_generated(generate_scorer(rs))
    a, b = mod.settle(big), mod.settle(small)
    assert a["error"]["code"] == "settlement_failed" and "2^53 - 1" in a["error"]["message"] and a["payments"] == []
    assert "error" not in b and sum(b["balances"]) == 0
    out = subprocess.run([NODE or "node", "--input-type=module", "-e",
                          f"import {{settle}} from {json.dumps(os.path.join(d, 'scorer.mjs'))}; "
                          f"for (const o of {json.dumps([big, small])}) console.log(JSON.stringify(settle(o)))"],
                         capture_output=True, text=True, timeout=120, check=True)
    assert [json.loads(x) for x in out.stdout.splitlines()] == [a, b]


# The runtime's packed aggregates (a small int with the pair's field cut to the bits a
# pair can set) against the full layout, on random melds and pairs: the same unpacked
# masks, bit counts, order and covering, so the search reads and orders them alike
PACKED_AGGREGATES = r"""
import { pathToFileURL } from "node:url";
const { aggOps } = await import(pathToFileURL(process.argv[1] + "/tjmj_dsl/engine_js/search.mjs").href);
let seed = 7;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
let checked = 0;
for (const [nbits, readsAnd, pairs] of [[12, false, 0b100000010001], [8, true, 0b10010010], [24, false, 0x7400], [13, true, 0b1]]) {
  const packed = aggOps(nbits, readsAnd, pairs), full = aggOps(nbits, readsAnd, null);
  if (packed.zero !== 0 || typeof packed.or(1, 2) !== "number") throw new Error("not packed");
  const one = (A, melds, pair) => {
    let x = A.zero;
    for (const b of melds) x = A.or(x, A.fromMeld(b));
    return pair === null ? x : A.or(x, A.fromPair(pair));
  };
  const pick = () => {
    const melds = Array.from({ length: rnd(5) }, () => rnd(2 ** nbits));
    let pair = null;
    if (rnd(3)) { pair = 0; for (let b = 0; b < nbits; b++) if ((pairs >> b) & 1 && rnd(2)) pair |= 1 << b; }
    return [melds, pair];
  };
  for (let i = 0; i < 3000; i++) {
    const [m1, p1] = pick(), [m2, p2] = pick();
    const a = one(packed, m1, p1), b = one(packed, m2, p2), A = one(full, m1, p1), B = one(full, m2, p2);
    const same = (u, v) => JSON.stringify(u) === JSON.stringify(v);
    if (!same(packed.unpack(a), full.unpack(A))) throw new Error(`unpack ${m1} ${p1}`);
    if (packed.pop(a) !== full.pop(A)) throw new Error("pop");
    if (Math.sign(packed.cmp(a, b)) !== Math.sign(full.cmp(A, B))) throw new Error("order");
    if ((packed.andNot(a, b) === 0) !== (full.andNot(A, B) === full.zero)) throw new Error("cover");
    if (!same(packed.unpack(packed.or(a, b)), full.unpack(full.or(A, B)))) throw new Error("or");
    const na = (x, A0) => A0.na ? A0.pop(A0.and(x, A0.na)) : 0;
    if (na(a, packed) !== na(A, full)) throw new Error("na");
    checked++;
  }
}
console.log("ok", checked);
"""


def test_packed_aggregates_keep_the_full_layouts_order() -> None:
    assert NODE is not None
    out = subprocess.run([NODE, "--input-type=module", "-e", PACKED_AGGREGATES, ROOT], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.split() == ["ok", "12000"], out.stderr[-2000:]


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A profile with subenlong and tianting on: 27 atom bits and the AND of the melds, 81-bit aggregates."""
    path = tmp_path_factory.mktemp("rules") / "wide.yaml"
    path.write_text(f"extends: {os.path.join(ROOT, 'rules', 'tianjin.yaml')}\nname: wide\ndefault_profile: wide\n"
                    "profiles:\n  wide:\n    description: a test profile\n    options: {subenlong: \"on\", tianting: \"on\"}\n",
                    encoding="utf-8")
    out = tmp_path_factory.mktemp("out")
    compile_rules(str(path), str(out))
    return str(out / "wide")


def test_wide_masks_answer_alike(wide: str) -> None:
    with open(os.path.join(wide, "scorer.mjs"), encoding="utf-8") as f:
        assert "readsAnd: true" in f.read()
    run_both(wide, request_lines(5, 600, list(PROFILES), OPTIONS))


def test_a_claim_is_not_reused_across_counts(wide: str) -> None:
    """素本龙 needs one tile of each hun kind (seed 000): after 123s46s789sEEE55m +5s (16: 龙 × 本混 × 素本龙)
    the same melds with two 9条 and no 1条 are not 素本龙 (8), though their aggregate masks are the same."""
    lines = [json.dumps({"concealed": c, "draw": "5s", "indicator": "9s"}).encode()
             for c in ("123s46s789sEEE55m", "9s23s46s789sEEE55m", "123s46s789sEEE55m")]
    answers = [json.loads(a) for a in run_both(wide, lines)]
    assert [(a["fan"], a["patterns"]) for a in answers] == [(16, ["long", "benhun", "subenlong"]), (8, ["long", "benhun"]),
                                                            (16, ["long", "benhun", "subenlong"])]


def test_settle_answers_alike() -> None:
    """settle() of both modules on the same outcomes, valid and not, under options that change payments."""
    assert NODE is not None
    script = ("const { settle, parseJson, toJson } = await import(process.argv[1]);\n"
              "const lines = (await import('node:fs')).readFileSync(0, 'utf8').split('\\n').filter(Boolean);\n"
              "process.stdout.write(lines.map((l) => toJson(settle(parseJson(l)))).join('\\n') + '\\n');\n")
    for directory, seed in ((GEN, 1), (PROFILES["seed-000-coins"], 2), (PROFILES["seed-000-fan"], 3)):
        lines = outcome_lines(seed, 1000)
        with open(os.path.join(directory, "scorer.py"), encoding="utf-8") as f:
            mod = load_generated(f.read(), "tjmj_js_settle_peer")
        py = [json.dumps(mod.settle(json.loads(line)), ensure_ascii=False) for line in lines]
        out = subprocess.run([NODE, "--input-type=module", "-e", script, os.path.join(directory, "scorer.mjs")],
                             input="\n".join(lines), capture_output=True, text=True, timeout=300, check=True)
        assert_same(py, out.stdout.splitlines(), [])
        answers = [json.loads(a) for a in py]
        assert sum(1 for a in answers if a.get("payments")) > 300 and sum(1 for a in answers if a.get("error")) > 50


def test_a_power_past_exact_is_refused_alike(tmp_path: Any) -> None:
    """A settlement power past 2^53 - 1 is refused (settlement_failed, the same text) by both modules,
    without working it out: powers of powers grew without bound in Python (six levels of pow(2, 63):
    gigabytes, then MemoryError) and became Infinity in JavaScript; three levels here (2^250,047)."""
    assert NODE is not None
    path = tmp_path / "powx.yaml"
    path.write_text(f"extends: {json.dumps(os.path.join(ROOT, 'rules', 'tianjin.yaml'))}\nname: powx\nset:\n"
                    "  settlement.payments.win.amount: \"total * pow(2, total) * (0 if pow(pow(pow(2, 63), 63), 63) > 0 "
                    "else 1)\"\n", encoding="utf-8")
    compile_rules(str(path), str(tmp_path / "out"))
    directory = tmp_path / "out" / "powx"
    script = ("const { settle, parseJson, toJson } = await import(process.argv[1]);\n"
              "const lines = (await import('node:fs')).readFileSync(0, 'utf8').split('\\n').filter(Boolean);\n"
              "process.stdout.write(lines.map((l) => toJson(settle(parseJson(l)))).join('\\n') + '\\n');\n")
    lines = [json.dumps({"dealer": 0, "winner": 1, "total": 4}), json.dumps({"dealer": 0, "winner": None})]
    with open(directory / "scorer.py", encoding="utf-8") as f:
        mod = load_generated(f.read(), "tjmj_js_pow_peer")
    py = [json.dumps(mod.settle(json.loads(line)), ensure_ascii=False) for line in lines]
    out = subprocess.run([NODE, "--input-type=module", "-e", script, str(directory / "scorer.mjs")],
                         input="\n".join(lines), capture_output=True, text=True, timeout=300, check=True)
    assert_same(py, out.stdout.splitlines(), [])
    won, drawn = (json.loads(a) for a in py)
    assert won["error"]["code"] == "settlement_failed" and "OverflowError: a power past 2^53 - 1" in won["error"]["message"]
    assert drawn["payments"] == [] and "error" not in drawn  # no win: the amount is never worked out


def test_jsonl_runner_answers_each_line_as_it_comes() -> None:
    """A co-process: each answer is written (flushed) before the next request is sent."""
    assert NODE is not None
    p = subprocess.Popen([NODE, os.path.join(GEN, "scorer.mjs")], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert p.stdin is not None and p.stdout is not None
    try:
        for i, line in enumerate([b'{"id": 1, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}',
                                  b"not json", b'{"id": 3, "concealed": "345m123sEEE77m45s", "indicator": "7p"}']):
            p.stdin.write(line + b"\n")
            p.stdin.flush()
            answer = json.loads(p.stdout.readline())
            if i == 0:
                assert (answer["id"], answer["win"], answer["fan"], answer["formula"]) == (1, True, 2, "1×2 = 2")
            elif i == 1:
                assert answer["reason"] == "invalid_request" and answer["error"]["code"] == "not_json"
            else:
                assert [w["tile"] for w in answer["waits"]] == ["3s", "6s"]
    finally:
        p.stdin.close()
        p.wait(timeout=30)
    assert p.returncode == 0


def test_jsonl_runner_exits_quietly_when_the_reader_goes() -> None:
    """`node scorer.mjs < big.jsonl | head -1`: the reader closes the pipe; the runner stops, exit 0, nothing on stderr."""
    assert NODE is not None
    line = b'{"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}\n'
    p = subprocess.Popen([NODE, os.path.join(GEN, "scorer.mjs")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    assert p.stdin is not None and p.stdout is not None and p.stderr is not None
    p.stdin.write(line * 2000)
    p.stdin.flush()
    assert json.loads(p.stdout.readline())["win"] is True
    p.stdout.close()  # the reader goes away; the runner is still writing
    try:
        p.stdin.write(line * 20000)
        p.stdin.close()
    except BrokenPipeError:
        pass  # it may have stopped reading already
    assert p.wait(timeout=60) == 0
    assert p.stderr.read() == b""


def test_jsonl_runner_waits_for_a_slow_reader() -> None:
    """A reader that falls behind: every answer arrives, in order, none lost."""
    assert NODE is not None
    lines = [json.dumps({"id": i, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}).encode()
             for i in range(30000)]
    p = subprocess.Popen([NODE, os.path.join(GEN, "scorer.mjs")], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out, _ = p.communicate(b"\n".join(lines) + b"\n", timeout=300)
    answers = out.decode().splitlines()
    assert p.returncode == 0 and [json.loads(a)["id"] for a in answers] == list(range(30000))


def test_the_module_reads_plain_objects_and_shows_results_as_the_cli() -> None:
    script = ("import { score, parseHand, showResult } from " + json.dumps(os.path.join(GEN, "scorer.mjs")) + ";\n"
              "console.log(showResult(score({...parseHand('123456789m 1m2m EE +5m'), indicator: '1m'})));\n"
              "console.log(showResult(score({...parseHand('345m 123s EEE 456s 9m +7p'), indicator: '7p'})));\n"
              "try { parseHand('12x'); } catch (e) { console.log(e.message, e.pos); }\n")
    assert NODE is not None
    out = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60, check=True)
    # the README's command-line examples of these hands
    assert out.stdout.splitlines() == [
        "WIN: fan 28, total 28   (3+4)×2×2 = 28   捉5(zhuo5) 龙(long) 双混吊(shuanghun) 本混(benhun)",
        "  1m 2m 3m  |  4m 5m 6m  |  4m=1m 5m* 6m=2m  |  7m 8m 9m  |  E E   (huns: 1m 2m; * = winning tile 5m)",
        "no win: fan 1, total 0   1 = 1   提溜(tiliu)",
        "  reason: below_min_fan: fan 1 is below the 2 needed to win",
        "  3m 4m 5m  |  1s 2s 3s  |  4s 5s 6s  |  E E E  |  9m 9m=7p*   (huns: 7p 8p; * = winning tile 7p)",
        "'x' is not a suit 2",
    ]


def test_readme_javascript_examples_run(tmp_path: Any) -> None:
    """Every ```js block of the README runs under node from the repository root (its asserts hold)."""
    from docs_text import docs_text
    blocks = re.findall(r"```js\n(.*?)```", docs_text(), re.S)
    assert blocks
    assert NODE is not None
    for i, block in enumerate(blocks):
        path = os.path.join(ROOT, f".readme_example_{i}.mjs")
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(block)
            out = subprocess.run([NODE, path], cwd=ROOT, capture_output=True, text=True, timeout=60)
        finally:
            os.remove(path)
        assert out.returncode == 0, block + out.stderr


def test_the_types_name_every_export() -> None:
    """scorer.d.mts declares exactly the functions scorer.mjs exports, and the request flags of its rules."""
    assert NODE is not None
    script = f"const m = await import({json.dumps(os.path.join(GEN, 'scorer.mjs'))}); console.log(Object.keys(m).sort().join(' '))"
    out = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60, check=True)
    with open(os.path.join(GEN, "scorer.d.mts"), encoding="utf-8") as f:
        dts = f.read()
    assert sorted(re.findall(r"^export function (\w+)\(", dts, re.M)) == out.stdout.split()
    for flag in ("tianhu", "dihu", "tianting"):
        assert f"  {flag}?: boolean | null;" in dts


TSC = shutil.which("tsc")
TS_GOOD = """import { score, waits, settle, parseHand, showResult, type ScoreResult, type PatternId } from "./scorer.mjs";
const r: ScoreResult = score({ concealed: "123456789m1m2mEE", draw: "5m", indicator: "1m" });
const fan: number = r.fan;
const ids: PatternId[] = r.patterns;
const code: string | undefined = r.error?.code;
const tiles: string[] = waits({ concealed: "345m123sEEE77m45s", indicator: "7p" }).waits.map((w) => w.tile);
const balances: number[] = settle({ dealer: 0, winner: 2, total: 4, lazhuang: [0, 0, 1, 0] }).balances;
const text: string = showResult(score({ ...parseHand("345m 123s EEE 77m 45s +6s"), indicator: "7p" }));
export { fan, ids, code, tiles, balances, text };
"""
TS_BAD = """import { score } from "./scorer.mjs";
const r = score({ concealed: "123456789m1m2mEE", draw: "5m", indicator: "1m" });
const fan: string = r.fan;
const wrong = score({ concealed: "123456789m1m2mEE", draw: "5m", indicater: "1m" });
export { fan, wrong };
"""


@pytest.mark.skipif(TSC is None, reason="tsc is not installed (Debian package `node-typescript`; tools/setup_test_deps.py installs it)")
def test_typescript_finds_and_checks_the_types(tmp_path: Any) -> None:
    """A TypeScript program importing scorer.mjs type-checks under --strict with scorer.d.mts, the
    declaration file TypeScript looks for beside an .mjs (it never reads a scorer.d.ts there), and
    misuses are errors: the types are found, not `any`."""
    assert TSC is not None
    for name in ("scorer.mjs", "scorer.d.mts"):
        shutil.copy(os.path.join(GEN, name), tmp_path / name)
    flags = ["--strict", "--noEmit", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022"]
    (tmp_path / "good.mts").write_text(TS_GOOD, encoding="utf-8")
    (tmp_path / "bad.mts").write_text(TS_BAD, encoding="utf-8")
    out = subprocess.run([TSC, *flags, "good.mts"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    out = subprocess.run([TSC, *flags, "bad.mts"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    errors = re.findall(r"bad\.mts\((\d+),\d+\): error (TS\d+)", out.stdout)
    assert {line for line, _ in errors} == {"3", "4"} and "TS7016" not in out.stdout, out.stdout


def test_the_rulebook_embeds_its_scorer_safely(tmp_path: Any) -> None:
    """rulebook.html holds its profile's scorer.mjs as its one inline module script, allowed by the page's
    Content-Security-Policy through that script's sha256; a rule-file string cannot end the script."""
    import base64
    import hashlib
    evil = "</script><img src=x onerror=f()><!--"  # a name: 40 characters at most
    path = tmp_path / "evil.yaml"
    path.write_text(f"extends: {os.path.join(ROOT, 'rules', 'tianjin.yaml')}\nname: evil\n"
                    f"set:\n  patterns.long.name: {json.dumps(evil)}\n", encoding="utf-8")
    compile_rules(str(path), str(tmp_path / "out"))
    page = (tmp_path / "out" / "evil" / "rulebook.html").read_text(encoding="utf-8")
    module = (tmp_path / "out" / "evil" / "scorer.mjs").read_text(encoding="utf-8")
    assert page.count("<script") == 1 and page.count("</script>") == 1
    script = page.split('<script type="module">')[1].split("</script>")[0]
    assert script.startswith(module.replace("</", "<\\/").replace("<!--", "<\\!--"))
    assert "<\\/script><img" in script and "<!--" not in script
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
    assert f"script-src &#x27;sha256-{digest}&#x27;" in csp and "unsafe-inline" not in csp.split("script-src")[1]


def test_a_field_named_nothing_is_named_alike() -> None:
    # an audit's finding: an unknown field named "" was reported as field null (no field) by both scorers
    ok = '"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"'
    lines = [("{" + ok + ', "": true}').encode(), b'{"": 1}', ("{" + ok + "}").encode()]
    answers = [json.loads(a) for a in run_both(GEN, lines)]
    assert [a.get("error", {}).get("field", "-") for a in answers] == ["", "", "-"]
    assert answers[1]["error"]["code"] == "unknown_field"


def test_a_hand_holding_more_patterns_than_weighed_is_refused_alike(tmp_path: Any) -> None:
    """A hostile review: 49 patterns that all held on one hand made each scorer try 2^51 subsets (one
    score ran for hours). Past MAX_HELD (16) patterns holding on one reading, both refuse the hand
    (too_many_patterns, the same text), score and waits alike, at once; a hand holding fewer is scored."""
    pats = "".join(f"  x{i}:\n    name: X{i}\n    kind: add\n    value: 1\n    when: 'count(1m) == 4'\n"
                   "    description: d\n    source: s\n" for i in range(49))
    _, _, d = write_both(tmp_path, f"extends: {json.dumps(os.path.join(ROOT, 'rules', 'tianjin.yaml'))}\n"
                                   f"name: held\npatterns:\n{pats}", "held")
    lines = [json.dumps(r).encode() for r in (
        {"id": 1, "concealed": "1111m23m567p789s5s", "draw": "5s", "indicator": "9p"},
        {"id": 2, "concealed": "1111m 23m 567p 789s 5s", "draw": "5s", "indicator": "9p", "melds": []},
        {"id": 3, "concealed": "1111m23m567p789s5s", "indicator": "9p"},
        {"id": 4, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"})]
    got = [json.loads(a) for a in run_both(d, lines)]
    for a in got[:3]:
        assert a["reason"] == "invalid_request" and a["error"]["code"] == "too_many_patterns", a
        assert "patterns hold on one reading of this hand; the scorer weighs at most 16 together" in a["error"]["message"]
    assert got[3]["win"] is True and got[3]["patterns"] == ["tiliu", "su"], got[3]
