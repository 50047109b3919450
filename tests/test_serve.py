"""`tjmj serve` as a real server: started as a subprocess on a free local port,
every endpoint called with good and bad input over real HTTP, then stopped.
Every answer follows its schema, a refusal is the same object a JSONL line
gets, and nothing a client sends makes a 500."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any, Iterator

import jsonschema
import pytest

from conftest import check_answer, run
from tests.test_readme import SERVED
from tjmj_dsl import Scorer
from tjmj_dsl.engine.runtime import MAX_LINE

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install -e '.[test]')")
pytest.importorskip("uvicorn", reason="the serve extra is not installed (pip install -e '.[test]')")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OK = {"id": 1, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}
ORIGIN = "http://client.example"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A `tjmj serve` subprocess on a free port; call() speaks HTTP/1.1 to it."""

    def __init__(self, *args: str) -> None:
        self.port = free_port()
        # a data folder of its own: `serve --tables` keeps its games in the user's one by default, and rooms of
        # another test (or run) would be resumed there, counting against their client's cap
        self.data = tempfile.mkdtemp(prefix="tjmj-serve-test-")
        env = dict(os.environ, PYTHONPATH=ROOT, XDG_DATA_HOME=self.data)
        self.proc = subprocess.Popen([sys.executable, "-m", "tjmj_dsl.cli", "serve", "--port", str(self.port), *args],
                                     cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"tjmj serve exited: {self.proc.stderr.read().decode()}")  # type: ignore[union-attr]
            try:
                if self.call("GET", "/health")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise AssertionError("tjmj serve did not answer /health within 120 s")
            time.sleep(0.2)

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
             chunked: bool = False) -> tuple[int, dict[str, str], Any]:
        """(status, headers, the JSON answer or the text); a 5xx fails the test."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            data = body if isinstance(body, (bytes, str)) or body is None else json.dumps(body)
            if isinstance(data, str):
                data = data.encode("utf-8")
            h = dict(headers or {})
            if chunked:
                conn.putrequest(method, path)
                for k, v in {**h, "Transfer-Encoding": "chunked"}.items():
                    conn.putheader(k, v)
                conn.endheaders()
                for i in range(0, len(data or b""), 65536):
                    part = (data or b"")[i:i + 65536]
                    conn.send(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                conn.send(b"0\r\n\r\n")
            else:
                conn.request(method, path, body=data, headers=h)
            res = conn.getresponse()
            raw = res.read()
            hdrs = {k.lower(): v for k, v in res.getheaders()}
        finally:
            conn.close()
        assert res.status < 500, (res.status, raw[:500])
        text = raw.decode("utf-8")
        if hdrs.get("content-type", "").startswith("application/json") and method != "HEAD":  # HEAD: no body
            return res.status, hdrs, json.loads(text)
        return res.status, hdrs, text

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)
        shutil.rmtree(self.data, ignore_errors=True)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    s = Server("--cors-origin", ORIGIN, "--max-body", "65536", "--max-batch", "50")
    try:
        yield s
    finally:
        s.stop()
    assert s.proc.returncode is not None


def jsonl_answer(line: str, cmd: str = "score") -> dict[str, Any]:
    """What `tjmj score --jsonl` answers for one line: the HTTP refusal must be the same."""
    code, out, _ = run([cmd, "--jsonl"], line + "\n")
    assert code == 0
    return json.loads(out)  # type: ignore[no-any-return]


def test_health_and_rules(server: Server) -> None:
    status, _, h = server.call("GET", "/health")
    assert status == 200 and h["status"] == "ok" and h["contract"] == 2 and h["rules"] == Scorer().rules_info
    status, _, r = server.call("GET", "/rules")
    assert status == 200 and r["rules"]["profile"] == "seed-001"
    assert [p["name"] for p in r["profiles"]] == ["seed-001", "seed-000-fan", "seed-000-coins"]
    assert {f["name"] for f in r["request_flags"]} == {"tianhu", "dihu", "tianting"}
    assert {o["id"]: o["value"] for o in r["options"]}["min_fan"] == 2
    assert r["limits"] == {"max_body": 65536, "max_batch": 50, "max_request": 65536} and r["settlement"] is True


def test_score_answers_as_the_library_does(server: Server) -> None:
    status, hdrs, a = server.call("POST", "/score", OK)
    assert status == 200 and hdrs["content-type"].startswith("application/json")
    assert check_answer(a) == Scorer().score(OK) and a["win"] and a["fan"] == 2
    status, _, a = server.call("POST", "/score", {"concealed": "345m123sEEE456s9m", "draw": "7p", "indicator": "7p"})
    assert status == 200 and a["reason"] == "below_min_fan"  # a hand that does not win is an answer, not an error


@pytest.mark.parametrize("body, code, status", [
    (b'{"id": 1, "concealed": "345m123sEEE77m45s"', "not_json", 400),
    (b"", "not_json", 400),
    (b"\xff\xfe{}", "not_utf8", 400),
    (b"[1, 2]", "not_object", 400),
    (b'{"id": NaN, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}', "bad_value", 400),
    (b'{"id": 1e400, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}', "bad_value", 400),
    (b"[" * 60_000, "not_json", 400),
    (b'{"id": 1, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "draw": "9s"}', "not_json", 400),
    (json.dumps(dict(OK, concealed="345m123sEEE77m45x")).encode(), "bad_tile", 400),
    (json.dumps(dict(OK, concealed=["3m", 4])).encode(), "wrong_type", 400),
    (json.dumps(dict(OK, dra="6s")).encode(), "unknown_field", 400),
    (json.dumps(dict(OK, profile="seed-002")).encode(), "unknown_profile", 400),
    (json.dumps(dict(OK, options={"jin_gang": "9"})).encode(), "bad_option", 400),
    (json.dumps(dict(OK, options={"nope": 1})).encode(), "unknown_option", 400),
    (json.dumps(dict(OK, concealed="7p7p7p7p123sEEE456s", draw="9m")).encode(), "indicator_on_wall", 400),
])
def test_bad_score_requests_get_4xx_and_the_clis_refusal(server: Server, body: bytes, code: str, status: int) -> None:
    got_status, _, a = server.call("POST", "/score", body)
    assert got_status == status and check_answer(a)["error"]["code"] == code, a
    if b"\n" not in body and b"[" * 1000 not in body:  # the same line through `tjmj score --jsonl`
        line = body.decode("utf-8", "replace") if code != "not_utf8" else None
        if line and line.strip():
            assert a == jsonl_answer(line)


def test_a_lone_surrogate_id_is_answered_as_json(server: Server) -> None:
    status, _, a = server.call("POST", "/score", b'{"id": "\\ud800", "concealed": "1m", "draw": "6s", "indicator": "7p"}')
    assert status == 400 and a["id"] == "\ud800" and a["error"]["code"] == "tile_count"


def test_bodies_over_the_limit_are_refused(server: Server) -> None:
    big = json.dumps(dict(OK, id="x" * 70_000))
    status, _, a = server.call("POST", "/score", big)
    assert status == 413 and check_answer(a)["error"]["code"] == "too_large" and "65536" in a["error"]["message"]
    status, _, a = server.call("POST", "/score", big, chunked=True)  # no Content-Length: counted as it comes
    assert status == 413 and a["error"]["code"] == "too_large"
    status, _, a = server.call("POST", "/score", json.dumps(dict(OK, id="x" * 60_000)), chunked=True)
    assert status == 200 and a["win"]


def test_waits(server: Server) -> None:
    req = {"id": "w", "concealed": "345m123sEEE77m45s", "indicator": "7p"}
    status, _, a = server.call("POST", "/waits", req)
    assert status == 200 and check_answer(a, "waits-result") == Scorer().waits(req)
    assert [w["tile"] for w in a["waits"]] == ["3s", "6s"]
    status, _, a = server.call("POST", "/waits", OK)
    assert status == 400 and a["waits"] == [] and a["error"]["code"] == "unexpected_field"
    assert a == jsonl_answer(json.dumps(OK), "waits")
    status, _, a = server.call("POST", "/waits", b"nope")
    assert status == 400 and check_answer(a, "waits-result")["error"]["code"] == "not_json" and "win" not in a


def test_explain(server: Server) -> None:
    status, _, a = server.call("POST", "/explain", OK)
    assert status == 200 and check_answer(a, "explain-result")["fan"] == 2
    used = {p["id"] for p in a["explanation"]["patterns"] if p["used"]}
    assert used == {"tiliu", "su"} and a["explanation"]["algebra"]
    status, _, a = server.call("POST", "/explain", dict(OK, draw="9z"))
    assert status == 400 and a["error"]["code"] == "bad_tile" and "explanation" not in a


def test_explain_of_many_huns_is_the_scorers_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    # 7 huns: the reference interpreter takes seconds on it (it has no time bound), so /explain answers by
    # the generated scorer; the service's explain must not build an interpreter at all
    from tjmj_dsl import api
    from tjmj_dsl.service import Service
    req = {"id": 7, "concealed": "4455566667mNNN", "draw": "5m", "indicator": "4m"}

    def no_interpreter(*_: Any) -> Any:
        raise AssertionError("explain built the reference interpreter")

    monkeypatch.setattr(api, "interpreter", no_interpreter)
    service = Service()
    a = service.answerer("explain")(req)
    b = service.answerer("explain")(dict(req, profile="seed-000-coins"))
    assert {k: v for k, v in a.items() if k != "explanation"} == Scorer().score(req)
    assert a["win"] and {p["id"] for p in a["explanation"]["patterns"] if p["used"]} == set(a["patterns"])
    assert b["rules"]["profile"] == "seed-000-coins" and b["explanation"]["score_table"] == "coins"


def test_settle(server: Server) -> None:
    o = {"id": "h", "dealer": 0, "zuozhuang": True, "lazhuang": [0, 0, 1, 2], "winner": None, "chan": True}
    status, _, a = server.call("POST", "/settle", o)
    assert status == 200 and check_answer(a, "settle-result") == Scorer().settle(o)
    assert a["balances"] == [-14, 2, 4, 8]
    status, _, a = server.call("POST", "/settle", {"dealer": 0, "winner": None, "lazhuang": [0, 3, 0, 0]})
    assert status == 400 and a["error"]["code"] == "lazhuang_max" and a["payments"] == []
    status, _, a = server.call("POST", "/settle", b"[]")
    assert status == 400 and check_answer(a, "settle-result")["error"]["code"] == "not_object"


def test_per_request_profile_and_options(server: Server) -> None:
    req = {"concealed": "345m123s77m45s", "melds": [{"type": "concealed_kong", "tile": "5p"}], "draw": "6s",
           "indicator": "7p", "kong_draw": "concealed"}
    assert server.call("POST", "/score", req)[2]["total"] == 4
    a = server.call("POST", "/score", dict(req, profile="seed-000-coins"))[2]
    assert a["total"] == 10 and a["rules"]["profile"] == "seed-000-coins"
    a = server.call("POST", "/score", dict(OK, concealed="345m123sEEE456s9m", draw="7p", options={"min_fan": 1}))[2]
    assert a["win"] and a["rules"]["options"] == {"min_fan": 1}


def test_batch_as_a_json_array_and_as_jsonl(server: Server) -> None:
    items = [OK, 3, dict(OK, id=2, concealed="bad"), dict(OK, id=4, profile="seed-000-coins")]
    status, _, a = server.call("POST", "/score/batch", items)
    assert status == 200 and [x["id"] for x in a] == [1, None, 2, 4]
    assert [x.get("error", {}).get("code") for x in a] == [None, "not_object", "bad_tile", None]
    for x in a:
        check_answer(x)
    status, _, a = server.call("POST", "/score/batch", b'[{"id": NaN, "concealed": "1m"}, {"id": 2}]')
    assert status == 200 and [x["error"]["code"] for x in a] == ["bad_value", "missing_field"] and a[0]["id"] is None
    lines = json.dumps(OK).encode() + b"\nnot json\n\n\xff\n" + json.dumps(dict(OK, id=5)).encode() + b"\n"
    status, hdrs, text = server.call("POST", "/score/batch", lines, {"Content-Type": "application/x-ndjson"})
    assert status == 200 and hdrs["content-type"].startswith("application/x-ndjson")
    got = [check_answer(json.loads(x)) for x in text.splitlines()]
    assert [x["id"] for x in got] == [1, None, None, 5]
    assert [x.get("error", {}).get("code") for x in got] == [None, "not_json", "not_utf8", None]


def test_a_batch_is_jsonl_when_its_type_or_first_line_says_so(server: Server) -> None:
    second = json.dumps(dict(OK, id=2)).encode()
    # JSONL whose first request is an array: each line answered, as `tjmj score --jsonl` answers them
    status, hdrs, text = server.call("POST", "/score/batch", b"[1]\n" + second)
    assert status == 200 and hdrs["content-type"].startswith("application/x-ndjson")
    got = [json.loads(x) for x in text.splitlines()]
    assert [(x["id"], x.get("error", {}).get("code")) for x in got] == [(None, "not_object"), (2, None)]
    assert got == [jsonl_answer("[1]"), jsonl_answer(second.decode())]
    # a one-line array sent as JSONL is one line of JSONL (its type says so)
    status, hdrs, text = server.call("POST", "/score/batch", json.dumps([OK]), {"Content-Type": "application/x-ndjson"})
    assert status == 200 and json.loads(text)["error"]["code"] == "not_object"
    # a pretty-printed array is an array
    status, _, a = server.call("POST", "/score/batch", json.dumps([OK, dict(OK, id=2)], indent=2))
    assert status == 200 and [x["id"] for x in a] == [1, 2]
    # a request nested as deep as a line may be is answered in an array too (each on its own)
    deep = dict(OK, id=3, x=json.loads("[" * 62 + "]" * 62))
    assert jsonl_answer(json.dumps(deep))["error"]["code"] == "unknown_field"
    status, _, a = server.call("POST", "/score/batch", [OK, deep])
    assert status == 200 and [x.get("error", {}).get("code") for x in a] == [None, "unknown_field"]


def test_a_request_is_held_to_the_size_of_a_line_by_every_way_in() -> None:
    big = dict(OK, id="x" * 70_000)  # under the body limit (1 MiB), over a line's (64 KiB)
    line = jsonl_answer(json.dumps(big))
    assert line["error"]["code"] == "too_large"
    server = Server()
    try:
        status, _, a = server.call("POST", "/score", big)
        assert status == 413 and a["error"]["code"] == "too_large" and a["id"] is None
        assert server.call("POST", "/waits", dict(big, draw=None))[0] == 413
        status, _, a = server.call("POST", "/score/batch", [OK, big, dict(OK, id=3)])
        assert status == 200 and [x.get("error", {}).get("code") for x in a] == [None, "too_large", None]
        assert a[0] == server.call("POST", "/score", OK)[2]
        # an item is measured as its text in the body, as a line is (a review: re-written, a compact item
        # grew past the limit and an escaped one shrank under it)
        compact = ('{"concealed":"345m123sEEE77m45s","draw":"6s","indicator":"7p","id":['
                   + ",".join(["1"] * 29_900) + "]}")
        escaped = json.dumps(dict(OK, id="\u00e9" * 12_000), ensure_ascii=True)
        assert 55_000 < len(compact) < MAX_LINE < len(escaped) and len(json.dumps(json.loads(compact))) > MAX_LINE
        ways = [server.call("POST", "/score", x)[2].get("error", {}).get("code") for x in (compact, escaped)]
        lines = [jsonl_answer(x).get("error", {}).get("code") for x in (compact, escaped)]
        status, _, a = server.call("POST", "/score/batch", "[" + compact + ", " + escaped + "]")
        assert ways == lines == [x.get("error", {}).get("code") for x in a] == [None, "too_large"]
        # a long batch (its client looked at while it is answered): every answer, in order
        many = [dict(OK, id=i) if i % 3 else {"id": i, "draw": "6s"} for i in range(700)]
        status, _, a = server.call("POST", "/score/batch", many)
        assert status == 200 and [x["id"] for x in a] == list(range(700))
        assert [x.get("error", {}).get("code") for x in a[:3]] == ["missing_field", None, None]
        status, _, text = server.call("POST", "/score/batch", "\n".join(json.dumps(x) for x in many),
                                      {"Content-Type": "application/x-ndjson"})
        assert status == 200 and [json.loads(x) for x in text.splitlines()] == a
    finally:
        server.stop()


def test_a_not_json_position_is_in_the_text_as_sent(server: Server) -> None:
    body = '   {"id": 1,'
    status, _, a = server.call("POST", "/score", body)
    assert status == 400 and a["error"]["position"] == 12
    assert jsonl_answer(body)["error"] == a["error"]
    status, _, text = server.call("POST", "/score/batch", body + "\n" + json.dumps(OK))
    assert json.loads(text.splitlines()[0])["error"] == a["error"]


@pytest.mark.parametrize("around", ["\x1c", "\x0c", "\x0b", "\u00a0", "\u3000", "\u0085"])
def test_only_jsons_whitespace_surrounds_a_request_in_a_line_and_a_body_alike(server: Server, around: str) -> None:
    # an audit's finding: a JSONL line was stripped as Python strips text (a form feed, U+3000 ...), a body
    # was read as JSON: `\x1c{...}` was scored as a line and refused as a body. Both now refuse it, alike.
    for body in (around + json.dumps(OK), json.dumps(OK) + around):
        status, _, a = server.call("POST", "/score", body)
        assert status == 400 and a["error"]["code"] == "not_json"
        assert jsonl_answer(body)["error"] == a["error"]
        status, _, text = server.call("POST", "/score/batch", body + "\n" + json.dumps(OK),
                                      {"Content-Type": "application/x-ndjson"})
        assert [json.loads(x).get("error") for x in text.splitlines()] == [a["error"], None]
    status, _, a = server.call("POST", "/score", " \t\r\n" + json.dumps(OK) + "\r\n\t ")  # JSON's own whitespace
    assert status == 200 and a["win"] and jsonl_answer(" \t\r" + json.dumps(OK) + "\r\t ")["win"]


def test_a_client_gone_before_its_body_ends_is_no_error() -> None:
    # an audit's finding: a body cut short by its client (Content-Length 100, 8 bytes sent, closed)
    # was logged as an error with a traceback, as often as any client liked
    s = Server()
    try:
        for path in ("/score", "/score/batch", "/waits"):
            conn = socket.create_connection(("127.0.0.1", s.port))
            conn.sendall(f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n".encode() + b'{"id": 1')
            conn.close()
        time.sleep(1.0)
        assert s.call("POST", "/score", OK)[0] == 200
    finally:
        s.stop()
    log = s.proc.stderr.read().decode("utf-8", "replace")  # type: ignore[union-attr]
    assert "Traceback" not in log and "ClientDisconnect" not in log and "ERROR" not in log, log[-2000:]


def test_an_array_item_that_is_not_json_this_scorer_reads_is_refused_on_its_own(server: Server) -> None:
    # an audit's finding: a repeated key (or nesting past 64) in one item of a JSON array sank the whole batch
    deep = "[" * 64 + "]" * 64
    body = '[{"id": 1, "id": 2}, ' + json.dumps(OK) + ', {"id": 3, "x": ' + deep + "}]"
    status, _, a = server.call("POST", "/score/batch", body)
    assert status == 200 and len(a) == 3 and a[1]["win"] and a[1]["id"] == 1
    line = jsonl_answer('{"id": 1, "id": 2}')
    assert a[0]["error"] == line["error"] and line["error"]["position"] == 10  # the second "id"
    assert a[2]["error"]["code"] == "not_json" and "nested" in a[2]["error"]["message"]
    assert server.call("POST", "/score/batch", b"[1,")[0] == 400  # not JSON at all: the batch is refused


def test_an_array_item_past_what_python_json_reads_is_refused_on_its_own(server: Server) -> None:
    # a fuzzing campaign's finding: an item nested past Python's recursion limit, or an integer past its
    # digits limit, made the whole (valid JSON) body one 400 not_json, while the same lines as JSONL were
    # answered one by one
    deep = '{"id": 3, "x": ' + "[" * 3000 + "]" * 3000 + "}"
    big = '{"id": ' + "9" * 4301 + ', "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}'
    for bad in (deep, big):
        status, _, a = server.call("POST", "/score/batch", "[" + json.dumps(OK) + ", " + bad + ", " + json.dumps(OK) + "]")
        assert status == 200 and len(a) == 3 and a[0]["win"] and a[2]["win"], a
        assert a[1]["error"] == jsonl_answer(bad)["error"]  # as the line would be answered
    assert server.call("POST", "/score/batch", "[" + deep + ", 1")[0] == 400  # still not one array: refused whole


def test_batch_limits(server: Server) -> None:
    status, _, a = server.call("POST", "/score/batch", [OK] * 51)
    assert status == 413 and a["error"]["code"] == "too_large" and "50" in a["error"]["message"]
    status, _, a = server.call("POST", "/score/batch", "\n".join([json.dumps(OK)] * 51))
    assert status == 413 and a["error"]["code"] == "too_large"
    status, _, a = server.call("POST", "/score/batch", b"[1,")
    assert status == 400 and a["error"]["code"] == "not_json"
    assert len(server.call("POST", "/score/batch", [OK] * 50)[2]) == 50


def test_cors_for_the_configured_origin_only(server: Server) -> None:
    pre = {"Origin": ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    status, hdrs, _ = server.call("OPTIONS", "/score", headers=pre)
    assert status == 200 and hdrs["access-control-allow-origin"] == ORIGIN
    status, hdrs, _ = server.call("POST", "/score", OK, {"Origin": ORIGIN})
    assert status == 200 and hdrs["access-control-allow-origin"] == ORIGIN
    status, hdrs, a = server.call("POST", "/score", OK, {"Origin": "http://elsewhere.example"})
    assert status == 403 and "access-control-allow-origin" not in hdrs  # refused before any work (issue 34)
    assert check_answer(a)["error"]["code"] == "cors_refused"
    status, hdrs, a = server.call("OPTIONS", "/score", headers=dict(pre, Origin="http://elsewhere.example"))
    assert status == 403 and "access-control-allow-origin" not in hdrs
    assert check_answer(a)["error"]["code"] == "cors_refused" and "origin" in a["error"]["message"]
    # the refusal names the options that allow an origin: the JSON API's and the tables' (a club behind a proxy)
    assert "--cors-origin" in a["error"]["message"] and "--table-origin" in a["error"]["message"]


def test_unknown_paths_and_methods_are_json_errors(server: Server) -> None:
    status, _, a = server.call("GET", "/nope")
    assert status == 404 and check_answer(a)["error"]["code"] == "not_found" and a["contract"] == 2
    status, hdrs, a = server.call("GET", "/score")
    assert status == 405 and check_answer(a)["error"]["code"] == "method_not_allowed" and "POST" in hdrs["allow"]
    # in the shape of the path's answers (an audit's finding: /waits and /settle got a score answer's fields)
    status, _, a = server.call("GET", "/waits")
    assert status == 405 and a["waits"] == [] and "win" not in a and a["error"]["code"] == "method_not_allowed"
    status, _, a = server.call("GET", "/settle")
    assert status == 405 and a["payments"] == [] and "win" not in a and a["error"]["code"] == "method_not_allowed"
    status, _, a = server.call("POST", "/score/", OK)  # no redirect to follow
    assert status == 404 and a["error"]["code"] == "not_found"
    assert server.call("HEAD", "/health")[0] == 200 and server.call("HEAD", "/rules")[0] == 200
    # a query string is not read: refused, never silently nothing
    status, _, a = server.call("POST", "/score?profile=seed-000-coins", OK)
    assert status == 400 and (a["error"]["code"], a["error"]["field"]) == ("unknown_field", "query.profile")
    assert server.call("POST", "/score/batch?x=1", [OK])[0] == 400
    assert server.call("GET", "/health?x=1")[0] == 200  # GET reads none either; nothing in it can be lost


def test_openapi_carries_the_schemas(server: Server) -> None:
    status, _, doc = server.call("GET", "/openapi.json")
    assert status == 200 and doc["openapi"].startswith("3.1")
    assert set(doc["paths"]) == {"/score", "/score/batch", "/waits", "/explain", "/settle", "/rules", "/health"}
    comps = doc["components"]["schemas"]
    refs = set(re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', json.dumps(doc)))
    assert refs <= set(comps), refs - set(comps)
    root = {"components": doc["components"]}
    jsonschema.Draft202012Validator.check_schema(dict(root, **comps["ScoreResult"]))

    def holds(name: str, x: Any) -> bool:
        return jsonschema.Draft202012Validator(dict(root, **{"$ref": f"#/components/schemas/{name}"})).is_valid(x)

    assert holds("ScoreRequest", OK) and not holds("ScoreRequest", dict(OK, tianhuu=True))
    assert holds("ScoreResult", server.call("POST", "/score", OK)[2])
    assert holds("ScoreResult", server.call("POST", "/score", b"nope")[2])
    assert holds("WaitsResult", server.call("POST", "/waits", {"concealed": "345m123sEEE77m45s", "indicator": "7p"})[2])
    assert holds("ExplainResult", server.call("POST", "/explain", OK)[2])
    assert not holds("ScoreResult", dict(server.call("POST", "/score", OK)[2], patterns=["nope"]))
    # a request under its own options gets patterns and refusals of those options: the document takes them
    a = server.call("POST", "/score", dict(OK, tianting=True, options={"tianting": "on"}))[2]
    assert "tianting" in a["patterns"] and holds("ScoreResult", a)
    status, _, a = server.call("POST", "/score", dict(OK, tianhu=True, options={"tianhu": "off"}))
    assert status == 400 and a["error"]["code"] == "tianhu_off" and holds("ScoreResult", a)


@pytest.mark.parametrize("cmd, expected", SERVED, ids=[c[0][:60] for c in SERVED])
def test_readme_curl_example(server: Server, cmd: str, expected: str) -> None:
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed (Debian package curl)")
    assert "localhost:8000" in cmd
    res = subprocess.run(["bash", "-c", cmd.replace("localhost:8000", f"localhost:{server.port}")], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert (res.stdout + res.stderr).rstrip("\n") == expected.rstrip("\n")


def test_two_workers_answer(tmp_path: Any) -> None:
    """Two workers answer; and with no --cors-origin a browser's preflight is refused as one
    (cors_refused, no origin allowed), not answered 405 as an unknown method."""
    s = Server("--workers", "2")
    try:
        for i in range(20):
            status, _, a = s.call("POST", "/score", dict(OK, id=i))
            assert status == 200 and a["id"] == i and a["fan"] == 2
        pre = {"Origin": ORIGIN, "Access-Control-Request-Method": "POST"}
        status, hdrs, a = s.call("OPTIONS", "/score", headers=pre)
        assert status == 403 and "access-control-allow-origin" not in hdrs
        assert check_answer(a)["error"]["code"] == "cors_refused"
        status, hdrs, a = s.call("POST", "/score", OK, {"Origin": ORIGIN})  # no work for another origin's page
        assert status == 403 and "access-control-allow-origin" not in hdrs and a["error"]["code"] == "cors_refused"
    finally:
        s.stop()


def test_bad_rules_stop_the_server_before_it_listens(tmp_path: Any) -> None:
    res = subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", "serve", "--port", str(free_port()), "--profile",
                          "seed-002"], cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 1 and "no profile 'seed-002'" in res.stderr and "Traceback" not in res.stderr


def test_openapi_examples_are_the_served_rules_answers(tmp_path: Any) -> None:
    """Serving other rules, the OpenAPI document's result examples are those rules' answers to the
    example requests (named by them), not the built-in rules'; serving the built-in rules, the
    examples kept with them."""
    from tjmj_dsl.serve import Config, create_app
    from tjmj_dsl.schemas import contract_examples
    club = tmp_path / "club.yaml"
    club.write_text(f"extends: {os.path.join(ROOT, 'rules', 'tianjin.yaml')}\nname: club\nset:\n  options.min_fan.default: 1\n"
                    "  patterns.su.name: 素的\n", encoding="utf-8")
    comps = create_app(Config(rules=str(club))).openapi()["components"]["schemas"]
    win = comps["ScoreResult"]["examples"][0]
    assert win["rules"]["name"] == "club" and win["names"] == ["提溜", "素的"] and win["fan"] == 2
    assert comps["ScoreResult"]["examples"][1]["win"] is True  # a bare 提溜 wins at min fan 1
    assert all(x["rules"]["name"] == "club" for k in ("ScoreResult", "WaitsResult", "ExplainResult", "SettleResult")
               for x in comps[k]["examples"])
    built_in = create_app(Config()).openapi()["components"]["schemas"]
    assert built_in["ScoreResult"]["examples"] == contract_examples()["score-result"]
    # an overlay that keeps the name (it says name: tianjin; a file named so without a name is
    # tianjin_overlay, never its base's folder) is other rules all the same
    (tmp_path / "same").mkdir()
    twin = tmp_path / "same" / "tianjin.yaml"
    twin.write_text(f"extends: {os.path.join(ROOT, 'rules', 'tianjin.yaml')}\nname: tianjin\n"
                    "set:\n  options.min_fan.default: 1\n", encoding="utf-8")
    twin_ex = create_app(Config(rules=str(twin))).openapi()["components"]["schemas"]["ScoreResult"]["examples"]
    assert twin_ex[1]["rules"]["name"] == "tianjin" and twin_ex[1]["win"] is True
    # the built-in rules with another option in force: their answers too (a bare 提溜 wins at min fan 1)
    min1 = create_app(Config(options={"min_fan": "1"})).openapi()["components"]["schemas"]
    assert min1["ScoreResult"]["examples"][1]["win"] is True
    assert min1["ScoreResult"]["examples"][1]["rules"]["options"] == {"min_fan": 1}
    # a request example naming a profile the served rules lack is left out: each one kept is valid
    house = create_app(Config(rules=os.path.join(ROOT, "examples", "house.yaml"))).openapi()["components"]
    root = {"components": house}
    for name in ("ScoreRequest", "WaitsRequest", "SettleOutcome"):
        v = jsonschema.Draft202012Validator(dict(root, **{"$ref": f"#/components/schemas/{name}"}))
        assert all(v.is_valid(x) for x in house["schemas"][name].get("examples", [])), name
    assert not any(x.get("profile") == "seed-000-coins" for x in house["schemas"]["ScoreRequest"]["examples"])


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads the server's CPU time from /proc (Linux)")
def test_a_batch_stops_when_its_client_goes(server: Server) -> None:
    """A batch of lines each naming new options (each compiles a scorer, ~0.1 s) is not worked out
    for a client that has closed the connection: the server's CPU goes quiet within a moment (it
    went on for minutes). Work, not speed: the server is busy for seconds or idle."""
    import itertools
    values = {"min_fan": [1, 3], "hun_kinds": [1, 3], "tianting": ["on", "off"], "subenlong": ["on", "off"],
              "first_draw_multiplier": [5, 6, 7, 8], "chan_points": [1, 2]}
    sets = list(itertools.product(*values.values()))[:50]
    body = "\n".join(json.dumps(dict(OK, options=dict(zip(values, s)))) for s in sets).encode()
    s = socket.create_connection(("127.0.0.1", server.port))
    s.sendall(b"POST /score/batch HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-ndjson\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body) + body)
    time.sleep(0.5)
    s.close()
    time.sleep(1.0)  # the service looks every 0.2 s
    before = _cpu_seconds(server.proc.pid)
    time.sleep(2.0)
    assert _cpu_seconds(server.proc.pid) - before < 0.5
    assert server.call("GET", "/health")[0] == 200


def test_a_failure_inside_the_server_is_said_without_its_text(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """An operator's review: with the tables' database down, a 500 answer carried the driver's error text (the
    database's host and port) to whoever asked. The answer names the failure's type; the text is in the log."""
    from fastapi.testclient import TestClient

    from tjmj_dsl.serve import Config, create_app

    from tjmj_dsl.service import Service

    def broken(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise ConnectionError('connection to server at "db.internal" (10.0.0.7), port 5432 failed')
    monkeypatch.setattr(Service, "rules_document", broken)
    with TestClient(create_app(Config()), raise_server_exceptions=False) as c:
        r = c.get("/rules")
    assert r.status_code == 500
    err = r.json()["error"]
    assert err["code"] == "internal_error" and "db.internal" not in r.text and "5432" not in r.text
    assert err["message"] == "the server failed on this request (ConnectionError); its log says why"
    assert "db.internal" in capsys.readouterr().err  # the operator's log has it
