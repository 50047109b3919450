"""Classes 4 and 5 of issue 13 for the JSONL batch: every line gets exactly one
strict-JSON answer, in order, flushed, whatever the line and the locale's
encoding; `tjmj score --jsonl` and a generated scorer run as a program behave
alike; a closed pipe, Ctrl-C and lines past the limits end nothing badly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from typing import Any

from tjmj_dsl.engine.runtime import MAX_LINE, MAX_NESTING, answer_line, read_lines

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCORER = os.path.join(ROOT, "generated", "tianjin", "scorer.py")
COMMANDS = {
    "cli": [sys.executable, "-m", "tjmj_dsl.cli", "score", "--jsonl"],
    "generated": [sys.executable, "-S", "-I", SCORER],  # no site-packages: the module stands alone
}
GOOD = b'{"id": %s, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}'


def _strict(line: str) -> dict:
    def no(x: str) -> None:
        raise AssertionError(f"not strict JSON: {x}")
    out = json.loads(line, parse_constant=no)
    assert isinstance(out, dict)
    return out


def _run(cmd: list[str], data: bytes, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    e = dict(os.environ, **(env or {}))
    e["PYTHONPATH"] = ROOT
    return subprocess.run(cmd, input=data, capture_output=True, env=e, timeout=120, cwd=ROOT)


HOSTILE_LINES = [
    GOOD % b"1",
    b"[" * 5000 + b"]" * 5000,                                 # deep nesting
    b'{"id": ' + b"[" * 200 + b"]" * 200 + b', "concealed": "1m"}',
    GOOD % b'"\\ud800"',                                        # a lone surrogate in the id
    GOOD % b"NaN",
    GOOD % b"1e400",
    GOOD % b"-Infinity",
    b"\xff\xfe not utf-8 \x80",
    b"x" * (MAX_LINE + 10),                                     # past the line limit
    b"",                                                        # blank: no answer
    b"5",
    b'"just a string"',
    b'{"id": "\xe5\xa4\xa9", "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "profile": null}',
    b'{"id": 9, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "options": {"min_fan": 1.0}}',
    b'{"id": 10, "concealed": "\xef\xbc\x93\xef\xbc\x94\xef\xbc\x95m123sEEE77m45s", "draw": "6s", "indicator": "7p"}',
    b'{"id": 11, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "options": {"tianting": true}}',
    b'{"5": 1}',
    GOOD % b'"a\\u2028b\\u2029c\\u0085d"',                      # line breaks to str.splitlines, escaped in the line
    GOOD % b'"\xe2\x80\xa8"',                                     # and raw (UTF-8) in a JSON string
    b'{"id": 14, "oops\xe2\x80\xa9": 1}',                            # echoed in a refusal's message and field
    GOOD % b"12",
]
EXPECTED_IDS = [1, None, None, "\ud800", None, None, None, None, None, None, None, "天", 9, 10, 11, None,
                "a\u2028b\u2029c\x85d", "\u2028", 14, 12]


@pytest.mark.parametrize("which", COMMANDS)
@pytest.mark.parametrize("encoding", [None, "ascii", "latin-1"])
def test_every_hostile_line_gets_one_strict_answer_in_order(which: str, encoding: str | None) -> None:
    env = {"PYTHONIOENCODING": encoding} if encoding else {}
    res = _run(COMMANDS[which], b"\n".join(HOSTILE_LINES) + b"\n", env)
    assert res.returncode == 0, res.stderr.decode("utf-8", "replace")
    assert res.stderr == b""
    lines = res.stdout.decode("utf-8").splitlines()  # UTF-8 whatever the locale says; one line an answer, to
    # splitlines too: U+0085, U+2028 and U+2029 are written as escapes
    out = [_strict(x) for x in lines]
    assert [o["id"] for o in out] == EXPECTED_IDS
    assert out[0]["win"] and out[-1]["win"] and out[11]["win"]
    assert all(o["contract"] == 2 and "rules" in o for o in out)
    by_id = {str(o["id"]): o for o in out if o["id"] is not None}
    assert "min_fan" in by_id["9"]["error"]["message"] and "decimal" in by_id["9"]["error"]["message"]
    assert by_id["10"]["win"]  # full-width digits read as digits
    assert "tianting" in by_id["11"]["error"]["message"] and "boolean" in by_id["11"]["error"]["message"]
    errors = [o.get("error") or {} for o in out]
    codes = [e.get("code") for e in errors]
    assert codes[1] == codes[2] == "not_json" and "nested more than 64 deep" in errors[1]["message"]
    # NaN and ±Infinity (1e400 is read as Infinity, as JavaScript reads it) have no JSON text: the id cannot be echoed
    assert codes[4] == codes[5] == codes[6] == "bad_value" and errors[4]["field"] == "id"
    assert codes[7] == "not_utf8" and errors[7]["position"] == 0
    assert codes[8] == "too_large" and f"longer than {MAX_LINE} bytes" in errors[8]["message"]
    assert codes[9] == codes[10] == "not_object"
    assert codes[18] == "unknown_field" and errors[18]["field"] == "oops\u2029"
    assert "\\u2028" in res.stdout.decode("utf-8") and not {"\x85", "\u2028", "\u2029"} & set(res.stdout.decode("utf-8"))


def test_a_rule_files_names_reach_a_line_as_escapes(tmp_path: Any) -> None:
    # a pattern named with line breaks (a rule file is anyone's): the plain request's answer, written from
    # pieces kept per claim, is the text of the answer's mapping, one line to every reader
    from tjmj_dsl.api import Scorer
    from tjmj_dsl.engine.runtime import dumps_answer
    rules = tmp_path / "names.yaml"
    rules.write_text('extends: builtin:tianjin\nset:\n  patterns.su.name: "素\\u2028\\u0085\\u2029"\n', encoding="utf-8")
    req = {"id": 1, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}
    res = _run(COMMANDS["cli"] + ["--rules", str(rules)], ((json.dumps(req) + "\n") * 2).encode())
    lines = res.stdout.decode("utf-8").splitlines()
    answer = Scorer(rules=str(rules)).score(req)
    assert answer["names"] == ["提溜", "素\u2028\x85\u2029"]
    assert lines == [dumps_answer(answer)] * 2


def test_the_cli_and_the_generated_scorer_answer_alike() -> None:
    data = b"\n".join(HOSTILE_LINES) + b"\n"
    a = [_strict(x) for x in _run(COMMANDS["cli"], data).stdout.decode().splitlines()]
    b = [_strict(x) for x in _run(COMMANDS["generated"], data).stdout.decode().splitlines()]
    assert len(a) == len(b)
    for x, y in zip(a, b):
        # the CLI picks the rules per line, the generated scorer refuses other rules: only those errors differ
        if x.get("error") and y.get("error") and y["error"]["code"] in ("rules_mismatch", "bad_option"):
            continue
        if "waits" in y:  # a line without draw is a waits request to the generated scorer, a score one to `score --jsonl`
            continue
        assert x == y


@pytest.mark.parametrize("which", COMMANDS)
def test_each_answer_is_flushed_for_a_co_process(which: str) -> None:
    e = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.Popen(COMMANDS[which], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, cwd=ROOT)
    try:
        assert p.stdin is not None and p.stdout is not None
        for i in range(3):  # one line in, wait for its answer: a deadlock fails the timeout below
            p.stdin.write(GOOD % str(i).encode() + b"\n")
            p.stdin.flush()
            line = p.stdout.readline()
            assert _strict(line.decode())["id"] == i
    finally:
        p.kill()
        p.wait(timeout=30)


@pytest.mark.parametrize("which", COMMANDS)
def test_a_closed_pipe_ends_the_batch_quietly(which: str) -> None:
    e = dict(os.environ, PYTHONPATH=ROOT)
    # Ctrl-C as a terminal sends it: a test run started in the background of a shell without job control
    # (as a CI script may be) has SIGINT ignored, and a child would inherit that
    p = subprocess.Popen(COMMANDS[which], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, cwd=ROOT,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(GOOD % b"1" + b"\n")
    p.stdin.flush()
    p.stdout.readline()
    p.stdout.close()  # `| head -1`
    try:
        for _ in range(200):
            p.stdin.write(GOOD % b"2" + b"\n")
        p.stdin.close()
    except BrokenPipeError:
        pass
    err = p.stderr.read() if p.stderr else b""
    assert p.wait(timeout=60) == 0 and b"Traceback" not in err and b"Error" not in err, err


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT")
@pytest.mark.parametrize("which", COMMANDS)
def test_ctrl_c_is_a_clean_exit(which: str) -> None:
    e = dict(os.environ, PYTHONPATH=ROOT)
    # Ctrl-C as a terminal sends it: a test run started in the background of a shell without job control
    # (as a CI script may be) has SIGINT ignored, and a child would inherit that
    p = subprocess.Popen(COMMANDS[which], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, cwd=ROOT,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(GOOD % b"1" + b"\n")
    p.stdin.flush()
    p.stdout.readline()  # it is up and waiting for the next line
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and b"Traceback" not in err and b"interrupted" in err


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.binary(max_size=300), st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")),
                 st.recursive(st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=10),
                              lambda xs: st.lists(xs, max_size=4) | st.dictionaries(
                                  st.sampled_from(["id", "concealed", "draw", "indicator", "melds", "options", "profile",
                                                   "kong_draw", "tianhu", "x"]) | st.text(max_size=5), xs, max_size=6),
                              max_leaves=20).map(lambda v: json.dumps(v).encode())))
def test_fuzz_one_jsonl_line(gen_module: object, line: bytes) -> None:
    """Any line: exactly one strict-JSON answer (or none for a blank line), never an exception."""
    import io
    mod: Any = gen_module

    def refuse(i: Any, e: Any) -> Any:
        return mod.refusal(mod.RULES, i, e)
    got = list(read_lines(io.BytesIO(line.replace(b"\n", b" ") + b"\n")))
    assert len(got) == 1
    out = answer_line(got[0], mod.score, refuse)
    if out is None:
        assert not got[0].strip()
        return
    res = _strict(out)
    assert set(res) >= {"contract", "rules", "id", "win", "fan", "total", "patterns", "formula"}


def test_nesting_limit_is_what_the_docs_say() -> None:
    import io
    ok = b'{"id": ' + b"[" * (MAX_NESTING - 1) + b"]" * (MAX_NESTING - 1) + b"}\n"
    bad = b'{"id": ' + b"[" * MAX_NESTING + b"]" * MAX_NESTING + b"}\n"
    for data, refused in ((ok, False), (bad, True)):
        out = answer_line(next(read_lines(io.BytesIO(data))), lambda d: {"id": d.get("id"), "error": {"code": "scored"}},
                          lambda i, e: {"id": i, "error": e})
        assert out is not None and (json.loads(out)["error"]["code"] == "not_json") == refused


def test_line_limit_is_what_the_docs_say() -> None:
    import io
    req = GOOD % b"1"
    fits = req + b" " * (MAX_LINE - len(req))  # MAX_LINE bytes before the newline
    for line, refused in ((fits, False), (fits + b" ", True), (fits + b" " * 3 * MAX_LINE, True)):
        for data, n in ((line + b"\n" + req, 2), (line, 1)):  # followed by a line, or the last without its newline
            out = list(read_lines(io.BytesIO(data)))
            assert len(out) == n and out[1:] == [req.decode()][:n - 1]  # the next line is read whole after a long one
            ans = answer_line(out[0], lambda d: {"id": d.get("id")}, lambda i, e: {"id": i, "error": e})
            assert ans is not None and ("error" in json.loads(ans)) == refused, (len(data), ans[:100])


_JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                            lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                                        max_size=4), max_leaves=12)


def _by_json_loads(text: str) -> tuple[Any, Any]:
    """What loads_request answered when it was json.loads and nothing else (the reference)."""
    try:
        return json.loads(text), None
    except ValueError as e:
        return None, {"code": "not_json", "message": f"not JSON: {e}", "field": None, "position": getattr(e, "pos", 0)}


@settings(max_examples=400, deadline=None)
@given(value=_JSON_VALUES, before=st.sampled_from(["", " ", "\ufeff", "x", "\t"]),
       after=st.sampled_from(["", " ", "\n", "x", ",1", "}", "]", "\x00", "{}"]), cut=st.integers(0, 40))
def test_a_line_reads_as_json_loads_reads_it(value: Any, before: str, after: str, cut: int) -> None:
    """loads_request's fast reader (json's C scanner, called directly) gives json.loads's value, or
    json.loads's own refusal (message and position) for everything else: whitespace or a BOM
    before, data after, a text cut short, NaN and Infinity."""
    from tjmj_dsl.engine.runtime import loads_request
    whole = before + json.dumps(value) + after
    for text in (whole, whole[:cut]):
        got, want = loads_request(text), _by_json_loads(text)
        assert got[1] == want[1], text
        assert json.dumps(got[0]) == json.dumps(want[0]), text  # NaN != NaN: compared as text


REPEATED = [  # (line, the repeated key's position in the line as sent, or None: no key repeated)
    (b'{"id": 1, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "concealed": "1m"}', 77),
    (b'   {"id": 2, "id": 3, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}', 13),
    (b'{"id": 4, "\\u0069d": 5, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}', 10),
    (b'{"id": 6, "options": {"min_fan": 2, "min_fan": 1}, "concealed": "345m123sEEE77m45s", "draw": "6s", '
     b'"indicator": "7p"}', 36),
    (b'{"id": "a:b\\":c", "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "options": {}}', None),
    (b'{"id": 7, "id": 8', None),  # not JSON at all: its syntax error, as for any such text
]


@pytest.mark.parametrize("which", COMMANDS)
def test_a_key_repeated_in_one_object_is_refused_where_it_stands(which: str) -> None:
    # json.loads keeps the last of a repeated key: the second "concealed" would have been scored silently
    res = _run(COMMANDS[which], b"\n".join(line for line, _ in REPEATED) + b"\n")
    out = [_strict(x) for x in res.stdout.decode("utf-8").splitlines()]
    assert len(out) == len(REPEATED), res.stderr
    for (line, pos), answer in zip(REPEATED, out):
        if pos is None:
            continue
        err = answer["error"]
        assert err["code"] == "not_json" and err["position"] == pos, (line, err)
        key = line[pos:].split(b":")[0].decode()
        assert f"the key {json.loads(key)!r} is repeated in its object" in err["message"]
        assert err["message"].endswith(f"line 1 column {pos + 1} (char {pos})")
    assert out[4]["win"] and out[4]["id"] == 'a:b":c'  # colons in a string are no keys
    assert out[5]["error"]["message"].startswith("not JSON: Expecting ',' delimiter")


@settings(max_examples=300, deadline=None)
@given(keys=st.lists(st.text(max_size=4), min_size=2, max_size=6), data=st.data())
def test_the_first_repeated_key_is_found_at_its_place(keys: list[str], data: Any) -> None:
    from tjmj_dsl.engine.runtime import loads_request
    i = data.draw(st.integers(0, len(keys) - 1))
    keys = keys + [keys[i]]  # the last key repeats an earlier one
    inner = data.draw(st.booleans())
    pieces = []
    head = '{"x": [1, "::"], "y": ' if inner else ""
    for n, k in enumerate(keys):
        pieces.append(("{" if n == 0 else ", ") + json.dumps(k) + ': "v:' + str(n) + '"')
    body = "".join(pieces) + "}"
    text = head + body + ("}" if inner else "")
    first = next(n for n, k in enumerate(keys) if k in keys[:n])  # the first key seen before in its object
    at = len(head) + len("".join(pieces[:first])) + (0 if first == 0 else 2)
    got, err = loads_request(text)
    assert got is None and err["position"] == at, (text, err)
    unique = list(dict.fromkeys(keys))  # each key once: read as json.loads reads it
    text = "{" + ", ".join(json.dumps(k) + ': "v:1"' for k in unique) + "}"
    assert loads_request(text) == (dict.fromkeys(unique, "v:1"), None)
