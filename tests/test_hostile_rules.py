"""Class 1 of issue 13: no string of a rule file changes the meaning of any
generated file. Overlays put hostile text (newlines, quotes, triple quotes,
backslashes, Jinja braces, HTML, Markdown, NUL, lone surrogates, encoding
declarations) into every free-text field; every output must compile to the
same Python shape as with plain text, run without side effects, and render
the text inertly in Markdown. Hostile ids and names are refused."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import unicodedata
from html.parser import HTMLParser

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from conftest import run
from hostile import NO_OPTION_EXAMPLES, PAYLOADS, hostile_text, overlay_sets, shape, shown_texts
from tjmj_dsl import RuleError, Scorer
from tjmj_dsl.backends.codegen import load_generated
from tjmj_dsl.backends.codegen import generate_scorer
from tjmj_dsl.backends.docs import generate_rulebooks, generate_tests
from tjmj_dsl.backends.examples import Scorers
from tjmj_dsl.backends.jsgen import generate_dts, generate_js
from tjmj_dsl.known import rows_for
from tjmj_dsl.backends.outputs import outputs
from tjmj_dsl.passes.lower import lower
from tjmj_dsl.passes.resolve import apply_options, read

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = os.path.join(ROOT, "rules", "tianjin.yaml")
HAND = {"concealed": "123456789m1m2mEE", "draw": "5m", "indicator": "1m"}
_MD = MarkdownIt("commonmark").enable("table")
NODE = shutil.which("node") or shutil.which("nodejs")


def _overlay(tmp: str, sets: dict, name: str = "hostile", **extra: object) -> str:
    path = os.path.join(tmp, f"{name}.yaml")
    doc = {"extends": BASE, "name": name, **extra, "set": sets}
    with open(path, "w", encoding="utf-8") as f:
        f.write(yaml.safe_dump(doc, allow_unicode=False, sort_keys=False))
    return path


def _refusal(path: str) -> str:
    """What compiling the rule file at path says: it must refuse it, without a traceback."""
    with pytest.raises(RuleError) as e:
        outputs(path)
    text = e.value.render()
    assert "Traceback" not in text, text
    return text


def _md_shape(text: str) -> list:
    out = []
    for t in _MD.parse(text):
        out.append((t.type, t.tag, t.nesting))
        if t.type == "inline":
            kinds = [c.type for c in t.children or [] if c.type not in ("text", "softbreak")]
            out.append(tuple(kinds))
    return out


def _md_text(text: str) -> str:
    """Every piece of text a reader sees in the rendered Markdown, in order."""
    parts = []
    for t in _MD.parse(text):
        for c in t.children or []:
            if c.type in ("text", "code_inline"):
                parts.append(c.content)
    return " ".join(" ".join(parts).split())


class _Shape(HTMLParser):
    """An HTML document's tags (with attribute names) in order, and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, ...]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(("<", tag, *sorted(a for a, _ in attrs)))

    def handle_endtag(self, tag: str) -> None:
        self.tags.append((">", tag))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _html(text: str) -> _Shape:
    sh = _Shape()
    sh.feed(text)
    sh.close()
    return sh


_JS_TOKEN = re.compile(r"""//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`""", re.S)


def _js_shape(src: str) -> str:
    """JavaScript or TypeScript with each comment and string literal (scanned left to right, as a
    parser does) reduced to a marker: what a text inside them cannot change."""
    return _JS_TOKEN.sub(lambda m: "/**/" if m.group(0).startswith("/") else '""', src)


def _shape_of(rel: str, src: str) -> object:
    if rel.endswith((".mjs", ".ts")):
        return _js_shape(src)
    if rel.endswith(".py"):
        return shape(src)
    if rel.endswith(".md"):
        return _md_shape(src)
    if rel.endswith(".html"):
        return _html(src).tags
    return None


def _outputs(path: str) -> dict[str, str]:
    """The scorer, rulebooks and JS scorer of the default profile (what
    `outputs` writes for it; the other profiles are built the same way)."""
    res = read(path)
    rs = lower(apply_options(res))
    books = generate_rulebooks(res, rs, Scorers(res), [], path)
    return {"hostile/scorer.py": generate_scorer(rs), "hostile/rulebook.md": books["rulebook.md"],
            "hostile/rulebook.html": books["rulebook.html"], "hostile/scorer.mjs": generate_js(rs),
            "hostile/scorer.d.mts": generate_dts(rs)}


_PLAIN: dict[str, dict[str, str]] = {}


def _plain(tmp: str) -> dict[str, str]:
    """The outputs with plain text in every field (computed once)."""
    if not _PLAIN:
        files = _outputs(_overlay(tmp, overlay_sets(["plain text"])))
        _PLAIN["shapes"] = {k: _shape_of(k, v) for k, v in files.items()}  # type: ignore[misc]
    return _PLAIN["shapes"]


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(hostile_text, min_size=1, max_size=8))
@example(texts=["\U0003c831\ufa1b"])  # an unassigned astral code point, then a compatibility ideograph (found by hypothesis)
def test_hostile_text_in_every_field_is_inert(texts: list[str], tmp_path_factory: pytest.TempPathFactory) -> None:
    d = str(tmp_path_factory.mktemp("hostile"))
    plain = _plain(d)
    sets = overlay_sets(texts)
    try:
        files = _outputs(_overlay(d, sets))
    except RuleError as e:  # libyaml refuses an escaped lone surrogate ("\uD800"): refused is fine too
        assert any(0xD800 <= ord(c) <= 0xDFFF for t in texts for c in t), e.render()
        assert "YAML" in e.render()
        return
    assert set(files) == set(plain)
    for rel, src in files.items():
        src.encode("utf-8")  # writable: no lone surrogate reached the file
        # the same code and documents: only the text inside literals (and the documents' text) may differ
        assert _shape_of(rel, src) == plain[rel], rel
    # compared in one normal form on both sides: a compatibility ideograph (U+FA1B) is kept as written in
    # the documents, and NFC of the text alone would look for U+798F there
    seen_md = unicodedata.normalize("NFC", _md_text(files["hostile/rulebook.md"]))
    seen_html = unicodedata.normalize("NFC", " ".join("".join(_html(files["hostile/rulebook.html"]).text).split()))
    for t in shown_texts(sets):  # the documents show the text's words (their markup was checked above)
        for word in re.findall(r"\w+", unicodedata.normalize("NFC", t)):
            assert word in seen_md and word in seen_html, (t, word)
    cwd = os.getcwd()
    os.chdir(d)
    try:
        mod = load_generated(files["hostile/scorer.py"])
        assert mod.score(HAND)["fan"] == 28
        if NODE:  # the JavaScript scorer parses, imports without side effects and scores the same
            with open("scorer.mjs", "w", encoding="utf-8") as f:
                f.write(files["hostile/scorer.mjs"])
            out = subprocess.run([NODE, "--input-type=module", "-e",
                                  f"import {{score}} from './scorer.mjs'; console.log(JSON.stringify(score({json.dumps(HAND)})))"],
                                 capture_output=True, text=True, timeout=120)
            assert out.returncode == 0, out.stderr[-2000:]
            assert json.loads(out.stdout)["fan"] == 28
        assert not os.path.exists("PWNED")
    finally:
        os.chdir(cwd)


def test_every_payload_in_every_place(tmp_path: str) -> None:
    """Every payload, deterministically (hypothesis may not draw each): at the
    start and the end of a text, spread over the fields."""
    base = _outputs(_overlay(str(tmp_path), overlay_sets(["x"]), name="base"))
    # (an escaped lone surrogate is refused by libyaml itself: tests/test_safe_text.py covers the filters with them)
    texts = [p + "x" + p for p in PAYLOADS if not any(0xD800 <= ord(c) <= 0xDFFF for c in p)]
    per = len(overlay_sets(["x"]))
    for i in range(0, len(texts), per):
        files = _outputs(_overlay(str(tmp_path), overlay_sets(texts[i:i + per]), name="base"))
        for rel, src in files.items():
            assert _shape_of(rel, src) == _shape_of(rel, base[rel]), (rel, texts[i:i + per])
    s = Scorer(_overlay(str(tmp_path), {"request_rules.indicator_on_wall.message": '"); import os #\n\x00'}, name="m"))
    r = s.score({"concealed": "7p7p7p7p123m456s99sE", "draw": "E", "indicator": "7p"})
    assert r["error"]["message"] == '"); import os #\n\x00'


@pytest.mark.parametrize("payload", ["*/", "\n", "\u2028", "</script", "-->", '"""', "\\"])
def test_a_comment_ending_text_in_every_field_at_once(tmp_path: str, payload: str) -> None:
    """Each text that ends a comment or a literal in some output, in every free-text field at once
    (so it reaches every place: the .d.mts doc comments, the .mjs // comments, docstrings...)."""
    base = _outputs(_overlay(str(tmp_path), overlay_sets(["x"]), name="base"))
    files = _outputs(_overlay(str(tmp_path), overlay_sets([f"x {payload} export const pwned = 1; {payload} x"]), name="base"))
    for rel, src in files.items():
        assert _shape_of(rel, src) == _shape_of(rel, base[rel]), (rel, payload)


def test_hostile_known_values_file(tmp_path: str) -> None:
    """The known-values file is input too: its texts reach the generated tests
    (ids, comments) and the rulebook's table."""
    def known(text: str) -> str:
        path = os.path.join(str(tmp_path), "k.known.yaml")
        row = {"item": text, "name": text, "variant": text, "printed": 2, "hand": "345m 123s EEE 77m 45s +6s",
               "indicator": "7p", "patterns": ["tiliu", "su"]}
        wrong = dict(row, printed=3, erratum={"value": 2, "why": text})
        doc = {"format": "tjmj-known/1", "tables": [{"id": "t", "title": text, "source": text, "profile": "seed-001",
                                                      "rows": [row, wrong]}]}
        with open(path, "w", encoding="utf-8") as f:
            f.write(yaml.safe_dump(doc, allow_unicode=False))
        return path

    def gen(text: str) -> dict[str, str]:
        known(text)
        path = _overlay(str(tmp_path), dict(NO_OPTION_EXAMPLES), name="k", known_values="k.known.yaml")
        res = read(path)
        rs = lower(apply_options(res))
        rows = rows_for(path, rs.profile)
        books = generate_rulebooks(res, rs, Scorers(res), rows, path)
        return {"k/test_known_values.py": generate_tests(rs, rows), "k/rulebook.md": books["rulebook.md"],
                "k/rulebook.html": books["rulebook.html"]}

    base = gen("plain")
    plain_payloads = [p for p in PAYLOADS if not any(0xD800 <= ord(c) <= 0xDFFF for c in p)]
    for i in range(0, len(plain_payloads), 16):
        text = "".join("a" + p + "b" for p in plain_payloads[i:i + 16])
        files = gen(text)
        for rel, src in files.items():
            assert _shape_of(rel, src) == _shape_of(rel, base[rel]), rel
    # a printed value that is not an integer is refused, not truncated
    path = known("x")
    with open(path, encoding="utf-8") as f:
        body = f.read().replace("printed: 2", "printed: 2.5", 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(body)
    with pytest.raises(RuleError) as e:
        rows_for(_overlay(str(tmp_path), {}, name="k", known_values="k.known.yaml"), "seed-001")
    assert "is not of type integer" in e.value.render()


@pytest.mark.parametrize("where, key", [
    ("request_rules", "x\nimport os\n#"),
    ("request_rules", "Bad-Id"),
    ("score_tables", "a b"),
    ("profiles", "../../../x"),
    ("profiles", "p/q"),
    ("pattern_kinds", "k\n"),
    ("patterns", "p;import os"),
    ("request_flags", "f\""),
    ("play", "a\nb"),
])
def test_hostile_ids_are_refused_with_a_position(tmp_path: str, where: str, key: str) -> None:
    body = {
        "request_rules": {"error_when": "false", "message": "m"},
        "score_tables": "fan",
        "profiles": {"description": "d"},
        "pattern_kinds": "doc",
        "patterns": {"name": "n", "kind": "mul", "value": 2, "when": "false", "description": "", "source": ""},
        "request_flags": "doc",
        "play": 1,
    }[where]
    path = os.path.join(str(tmp_path), "ids.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(yaml.safe_dump({"extends": BASE, where: {key: body}}, allow_unicode=True))
    assert "ids.yaml:" in _refusal(path)


EVIL_NAME = "x\n    return 0\nimport os; os.system('touch PWNED')\ndef _z(o):\n    #"


def test_a_rotation_named_as_code_is_refused_and_its_name_never_ends_a_comment(tmp_path: str) -> None:
    # an audit's file: a rotation (and the dealer_rotation naming it) whose name closes the comment the
    # settlement's code writes it in, and runs a command at import
    path = os.path.join(str(tmp_path), "rot.yaml")
    doc = {"extends": BASE, "name": "rot",
           "options": {"dealer_rotation": {"default": "evil", "choices": {
               "evil": {"description": "e", "set": {"play.dealer_rotation": EVIL_NAME}}}}},
           "settlement": {"rotations": {EVIL_NAME: {"name": "r", "next_dealer": "dealer", "description": "d",
                                                    "source": "s"}}}}
    with open(path, "w", encoding="utf-8") as f:
        f.write(yaml.safe_dump(doc, allow_unicode=True))
    text = _refusal(path)
    assert "rot.yaml:" in text and "does not match" in text
    assert not os.path.exists("PWNED") and not os.path.exists(os.path.join(str(tmp_path), "PWNED"))
    # the code generator itself (whatever the schema lets through) keeps a name on its comment's line,
    # and refuses a payment or definition name that is not a plain word
    import ast
    import dataclasses
    from tjmj_dsl.backends.safe import UnsafeText
    from tjmj_dsl.backends.settlement import settlement_code
    rs = lower(apply_options(read(BASE)))
    st = rs.settlement
    assert st is not None
    code = settlement_code(dataclasses.replace(rs, settlement=dataclasses.replace(
        st, rotation=dataclasses.replace(st.rotation, id=EVIL_NAME))))
    tree = ast.parse(code)
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert "_z" not in {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert code == settlement_code(rs).replace(f"# {st.rotation.id}:", "# " + " ".join(EVIL_NAME.split()) + ":")
    pay = st.payments[0]
    with pytest.raises(UnsafeText):
        settlement_code(dataclasses.replace(rs, settlement=dataclasses.replace(
            st, payments=(dataclasses.replace(pay, id="p(o):\n    import os\ndef q"),) + st.payments[1:])))


@pytest.mark.parametrize("sets, words", [
    ({"algebra": "(sum(add) if len(add) > 0 else sum(base)) * product(mul)" + " * 999999999999999" * 300},
     ["big.yaml:", "algebra"]),
    ({"patterns.long.value": 10**12}, ["algebra", "worth up to 1000000000000", "big.yaml:"]),  # 10^12 × 4^7, every
    # ×4 claimed: said at the overlay's value (an audit's finding: at the base file's algebra, which the overlay left)
    ({"score_tables.coins": "(fan + 1) * kong_points * 1000000000000"}, ["big.yaml:", "score table coins"]),
    # a review's bypasses: numbers on the way (a comparison's sides, a divisor), and `or` around the value
    ({"algebra": "((sum(add) if len(add) > 0 else sum(base)) * product(mul)) + (1 if 999999999999999 * "
                 "999999999999999 + 1 > 999999999999999 * 999999999999999 else 0)"}, ["big.yaml:", "algebra"]),
    ({"algebra": "((sum(add) if len(add) > 0 else sum(base)) * product(mul)) / (999999999999999 * "
                 "999999999999999 + 1 - 999999999999999 * 999999999999999)"}, ["big.yaml:", "algebra"]),
    ({"algebra": "(((sum(add) if len(add) > 0 else sum(base)) * product(mul)" + " * 999999999999999" * 300
                 + " if true else false) or false) if true else 0"}, ["big.yaml:", "algebra"]),
    # an audit's: a pattern's test (Python said it held, JavaScript not), a request rule, a table reading huns
    ({"patterns.su.when": "999999999999999 * 999999999999999 + 1 > 999999999999999 * 999999999999999"},
     ["big.yaml:", "`when` of pattern su"]),
    ({"request_rules.tianhu_or_dihu.error_when": "sum(g in declared: g.rank * 999999999999999) * 999999999 > 0"},
     ["big.yaml:", "request rule tianhu_or_dihu"]),
    ({"score_tables.coins": "fan * 999999999999999 * huns * huns * huns * huns + 1"}, ["big.yaml:", "score table coins"]),
    ({"patterns.su.when": "product(g in groups: g.rank * 1000) > 5"}, ["big.yaml:", "`when` of pattern su"]),
])
def test_a_value_no_backend_holds_exactly_is_refused_with_a_position(tmp_path: str, sets: dict, words: list) -> None:
    # an audit's file made the scorer raise while writing a fan of more than 4,300 digits (a traceback from
    # check and compile); JavaScript's numbers hold integers exactly only up to 2^53 - 1
    text = _refusal(_overlay(str(tmp_path), sets, name="big"))
    assert all(w in text for w in words) and "2^53 - 1" in text, text


def test_controls_and_bidi_overrides_reach_no_document_code_or_terminal(tmp_path: str) -> None:
    # an audit's files: a U+202E after a pattern's name reversed the formula after it in the rulebook
    # (4×2×2 = 16 read 61 = 2×2×4); ESC sequences in a name set the terminal's title, cleared it and wrote
    # its clipboard; NUL and ESC were kept in the documents; `$…$` is mathematics on GitHub
    evil = "本混\u202e\x1b]0;T\x07\x1b[2J\x00\u2066$x$\x85"
    path = _overlay(str(tmp_path), {"patterns.benhun.name": evil}, name="ctl")
    files = _outputs(path)
    bad = set("\u202e\u2066\x1b\x07\x00\x85")
    for rel, text in files.items():
        if rel.endswith((".md", ".html", ".mjs", ".d.mts")):
            assert not bad & set(text), (rel, sorted(bad & set(text)))
    assert "本混" in files["hostile/rulebook.md"] and "\\$x\\$" in files["hostile/rulebook.md"]
    assert "\\u202e" in files["hostile/scorer.mjs"]  # the name itself kept, as an escape
    code, out, _ = run(["score", "123456789m 1m2m EE +5m", "-i", "1m", "--rules", path])
    assert code == 0 and "本混" in out and not bad & set(out)
    code, out, _ = run(["score", "123456789m 1m2m EE +5m", "-i", "1m", "--rules", path, "--json"])
    assert json.loads(out)["names"][-1] == evil  # the data is the data: JSON carries the name as written


@pytest.mark.parametrize("sets, words", [
    ({"name": "con"}, ["'con'", "Windows keeps for a device"]),
    ({"profiles.NUL": {"description": "d"}}, ["NUL", "Windows keeps for a device"]),
])
def test_a_folder_windows_cannot_make_is_refused(tmp_path: str, sets: dict, words: list) -> None:
    path = os.path.join(str(tmp_path), "w.yaml")
    doc: dict = {"extends": BASE, "name": "w"}
    for k, v in sets.items():
        if k.startswith("profiles."):
            doc["profiles"] = {k.split(".", 1)[1]: v}
        else:
            doc[k] = v
    with open(path, "w", encoding="utf-8") as f:
        f.write(yaml.safe_dump(doc, allow_unicode=True))
    with pytest.raises(RuleError) as e:
        outputs(path)
    text = e.value.render()
    assert "w.yaml:" in text and all(w in text for w in words), text
    # an overlay named by its file, con.yaml, writes to con_/
    con = os.path.join(str(tmp_path), "con.yaml")
    with open(con, "w", encoding="utf-8") as f:
        f.write(f"extends: {BASE}\n")
    assert {k.split("/")[0] for k in outputs(con) if "/" in k} == {"con_"}


def test_an_if_else_giving_a_number_or_a_truth_value_is_refused(tmp_path: str) -> None:
    # a review's finding: such an algebra was typed "any"; Python's `or` then gave the number where JavaScript
    # gave true (fan 28 in one, true in the other)
    algebra = "(((sum(add) if len(add) > 0 else sum(base)) * product(mul) if true else false) or false) if true else 0"
    text = _refusal(_overlay(str(tmp_path), {"algebra": algebra}, name="mixed"))
    assert "mixed.yaml:" in text and "must be alike" in text


def test_the_ids_an_option_may_bring_include_a_whole_section_it_sets(tmp_path: str) -> None:
    # a review's finding: an option's choice may set the whole `patterns` section; the ids it brings are in
    # the service's OpenAPI enumerations only if RuleSet.any_pattern_ids knows them
    base = read(BASE).data
    pats = dict(base["patterns"], xinlong=dict(base["patterns"]["long"], name="新龙", examples=[], near_misses=[]))
    rules = {"outcome_rules": dict(base["settlement"].get("outcome_rules") or {},
                                   xinrule={"error_when": "false", "message": "m", "source": "s"})}
    path = os.path.join(str(tmp_path), "ids.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(yaml.safe_dump({"extends": BASE, "name": "ids", "options": {"more": {
            "name": "m", "description": "d", "default": "off", "source": "s", "acts_on": "scoring", "choices": {
                "off": {"description": "o"},
                "on": {"description": "n", "set": {"patterns": pats, "settlement": {**base["settlement"], **rules}}}}}}},
            allow_unicode=True))
    rs = lower(apply_options(read(path)))
    assert "xinlong" in rs.any_pattern_ids and "xinrule" in rs.any_rule_ids
    assert "xinlong" not in [p.id for p in rs.patterns]  # not in force under the default choice


@pytest.mark.parametrize("sets, words", [
    # an audit's findings: each passed `check` and changed nothing, or the game, silently
    ({"melds.pung": False}, ["must be true", "only chows may be turned off"]),
    ({"melds.kong": False}, ["must be true", "only chows may be turned off"]),
    ({"hun.cycles": []}, ["no cycle holds E S W N C F P", "one hun kind fewer"]),
    ({"hun.cycles": [["E", "E"]]}, ["E is in this cycle already", "no cycle holds S W N C F P"]),
    ({"hun.cycles": [["E", "S", "W", "N"], ["C", "F", "P"], ["1m", "2m"]]}, ["1m is a suit tile"]),
    ({"hun.cycles": [["E", "S", "W", "N"], ["C", "F", "P", "E"]]}, ["E is in another cycle already"]),
    ({"extends": "other.yaml"}, ["extends is how an overlay is read, not a rule `set:` changes"]),
])
def test_settings_the_engine_would_not_honour_are_refused(tmp_path: str, sets: dict, words: list) -> None:
    text = _refusal(_overlay(str(tmp_path), sets, name="unheld"))
    assert all(w in text for w in words) and "unheld.yaml:" in text, text


def test_honors_may_each_be_their_own_cycle(tmp_path: str) -> None:
    # one cycle per dragon: a dragon indicator names one hun kind, as the file says (not silently)
    path = _overlay(str(tmp_path), {"hun.cycles": [["E", "S", "W", "N"], ["C"], ["F"], ["P"]]}, name="own")
    s = Scorer(path)
    hand = {"concealed": "345m123sEEE77m45s", "draw": "6s"}
    assert s.score(dict(hand, indicator="C"))["hun_kinds"] == ["C"]
    assert s.score(dict(hand, indicator="N"))["hun_kinds"] == ["N", "E"]


def test_a_line_break_in_a_name_forges_no_line_of_the_terminals_output(tmp_path: str) -> None:
    # an audit's finding: a pattern named "素\nWIN: fan 999" printed a line of its own under `tjmj score`
    path = _overlay(str(tmp_path), {"patterns.su.name": "素\nWIN: fan 999", "options.tianting.name": "天听\nx: y"},
                    name="nl")
    for cmd in (["score", "345m 123s EEE 77m 45s +6s", "-i", "7p"], ["explain", "345m 123s EEE 77m 45s +6s", "-i", "7p"],
                ["variants"]):
        code, out, err = run([*cmd, "--rules", path])
        assert code == 0, err
        lines = out.splitlines()
        assert not [x for x in lines if x.startswith(("WIN: fan 999", "x: y"))], out
    assert "素 WIN: fan 999(su)" in run(["score", "345m 123s EEE 77m 45s +6s", "-i", "7p", "--rules", path])[1]


def test_a_product_over_the_groups_that_stays_exact_is_taken(tmp_path: str) -> None:
    # the bound on a product over a list the hand gives (5 groups, 4 melds, 3 suits) is its length, not 18
    path = _overlay(str(tmp_path), {"patterns.su.when": "product(g in groups: g.rank) > 5 and product(s in suits: 7) > 1"},
                    name="prod")
    r = Scorer(path).score({"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"})
    assert "su" in r["patterns"]  # ranks 3, 1, 4, 1 (E) and 7: 84 > 5
