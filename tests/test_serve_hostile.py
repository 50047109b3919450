"""`tjmj serve` against hostile clients (issue 34): each class of attack closed by a limit of
tjmj_dsl.guard, with members of the class generated here and sent to a real server on
127.0.0.1 (attackers connect from other loopback addresses, 127.0.0.2 and up, so that the
per-client limits tell them from the well-behaved client). Every refusal is the contract's JSON
shape; while attacks run, a well-behaved client's /health and /score are answered (a generous
functional bound, not a timing benchmark: benchmarks/attack.py measures)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import threading
import time
from typing import Any, Iterator

import pytest

from conftest import check_answer
from tests.test_serve import OK, Server

pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install -e '.[test]')")
pytest.importorskip("uvicorn", reason="the serve extra is not installed (pip install -e '.[test]')")

HEAD_TIMEOUT, BODY_TIMEOUT, KEEP_ALIVE = 1.0, 1.5, 1
PER_CLIENT, TOTAL, RULE_SETS, CPU = 4, 48, 3, 0.3
LIMITS = ("--head-timeout", str(HEAD_TIMEOUT), "--body-timeout", str(BODY_TIMEOUT), "--keep-alive", str(KEEP_ALIVE),
          "--max-client-connections", str(PER_CLIENT), "--max-connections", str(TOTAL),
          "--max-rule-sets", str(RULE_SETS), "--request-cpu", str(CPU))
GOOD_BOUND = 2.0  # seconds: a well-behaved client's answer while an attack runs (functional, generous)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    s = Server(*LIMITS)
    try:
        yield s
    finally:
        s.stop()
    log = s.proc.stderr.read().decode("utf-8", "replace")  # type: ignore[union-attr]
    assert "Traceback" not in log and "ERROR" not in log, log[-3000:]  # no attack fills the log with tracebacks


def connect(server: Server, src: str = "127.0.0.1", timeout: float = 10.0) -> socket.socket:
    """A connection to the server (on 127.0.0.1) from the loopback address `src`."""
    s = socket.socket()
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", server.port))
    return s


def read_all(s: socket.socket) -> bytes:
    """What the server sends until it closes the connection (or the socket's timeout)."""
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except (socket.timeout, ConnectionResetError):
        pass
    return out


def response(raw: bytes) -> tuple[int, dict[str, str], Any]:
    """(status, headers, JSON body) of the one HTTP response in `raw`."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].startswith("HTTP/1.1 "), raw[:200]
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
    n = int(headers["content-length"])
    if not headers.get("content-type", "").startswith("application/json"):
        return status, headers, body[:n]
    return status, headers, json.loads(body[:n])


def refused(raw: bytes, status: int, code: str) -> dict[str, Any]:
    """The refusal in `raw`: its status, the contract's shape, its code; the connection closed, and
    the answer says so (every refusal here, the guard's and the app's 413 alike)."""
    got, headers, a = response(raw)
    assert isinstance(a, dict), raw[:300]
    assert (got, a["error"]["code"]) == (status, code), (got, a)
    assert headers.get("connection") == "close", headers
    return check_answer(a)  # type: ignore[no-any-return]


def good_call(server: Server, method: str, path: str, body: Any = None) -> float:
    """A well-behaved client's request: its latency in seconds (its answer must be 200)."""
    t = time.monotonic()
    status, _, a = server.call(method, path, body)
    took = time.monotonic() - t
    assert status == 200, (status, a)
    return took


# --- the request's head: slow, large, many headers -------------------------------------------

SLOW_HEADS = {
    "nothing sent": [],
    "half a request line": [b"GET /hea"],
    "headers one byte at a time": [b"GET /health HTTP/1.1\r\n"] + [bytes([c]) for c in b"Host: localhost\r\nX-A: b"],
    "a header value that never ends": [b"POST /score HTTP/1.1\r\nHost: localhost\r\nX-Pad: "] + [b"a"] * 40,
}


@pytest.mark.parametrize("parts", SLOW_HEADS.values(), ids=SLOW_HEADS.keys())
def test_a_slow_head_is_cut_at_its_deadline(server: Server, parts: list[bytes]) -> None:
    s = connect(server, "127.0.0.2")
    t = time.monotonic()
    for p in parts:  # dribbled: each byte keeps a naive server waiting
        try:
            s.sendall(p)
        except OSError:
            break
        time.sleep(HEAD_TIMEOUT * 2 / max(len(parts), 1))
    raw = read_all(s)
    s.close()
    took = time.monotonic() - t
    assert took < HEAD_TIMEOUT * 2 + 3, took  # not held past the deadline (with the dribbling's own time)
    a = refused(raw, 408, "timeout")
    assert "head" in a["error"]["message"]


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_slow_body_is_cut_at_its_deadline(server: Server, chunked: bool) -> None:
    s = connect(server, "127.0.0.2")
    if chunked:
        s.sendall(b"POST /score HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"id\"\r\n")
    else:
        s.sendall(b"POST /score HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{\"id\": 1")
    t = time.monotonic()
    raw = read_all(s)
    s.close()
    assert time.monotonic() - t < BODY_TIMEOUT + 3
    a = refused(raw, 408, "timeout")
    assert "body" in a["error"]["message"]


def test_an_idle_keep_alive_connection_is_closed(server: Server) -> None:
    s = connect(server, "127.0.0.2")
    s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
    t = time.monotonic()
    raw = read_all(s)  # the answer, then nothing more is sent: the server closes
    s.close()
    assert raw.startswith(b"HTTP/1.1 200") and raw.count(b"HTTP/1.1") == 1
    assert KEEP_ALIVE - 0.2 < time.monotonic() - t < KEEP_ALIVE + 3


def _random_token(rng: random.Random, n: int) -> bytes:
    return bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz0123456789-") for _ in range(n))


def oversized_heads(seed: int = 34) -> list[tuple[str, bytes, int]]:
    """Generated heads over a limit: (what, the head, the status refusing it)."""
    rng = random.Random(seed)
    out = []
    for i in range(4):
        target = b"/score?" + _random_token(rng, 8192 + rng.randrange(1, 5000))
        out.append((f"request line {i}", b"GET " + target + b" HTTP/1.1\r\nHost: localhost\r\n\r\n", 414))
        one = b"X-" + _random_token(rng, 6) + b": " + _random_token(rng, 16384 + rng.randrange(0, 5000))
        out.append((f"one large header {i}", b"GET /health HTTP/1.1\r\nHost: localhost\r\n" + one + b"\r\n\r\n", 431))
        many = b"".join(b"X-%d-%s: %s\r\n" % (k, _random_token(rng, 4), _random_token(rng, 8))
                        for k in range(65 + rng.randrange(0, 200)))
        out.append((f"many headers {i}", b"GET /health HTTP/1.1\r\nHost: localhost\r\n" + many + b"\r\n", 431))
        big = b"".join(b"X-%d: %s\r\n" % (k, _random_token(rng, 400)) for k in range(45))
        out.append((f"headers over the head's size {i}", b"GET /health HTTP/1.1\r\nHost: localhost\r\n" + big + b"\r\n",
                    431))
    return out


@pytest.mark.parametrize("what, head, status", oversized_heads(), ids=[x[0] for x in oversized_heads()])
def test_an_oversized_head_is_refused_whatever_its_pieces(server: Server, what: str, head: bytes, status: int) -> None:
    rng = random.Random(what)
    s = connect(server, "127.0.0.3")
    i = 0
    try:
        while i < len(head):  # in random pieces: a limit must not depend on how the bytes arrive
            n = rng.choice([1, 7, 100, 1500, 65536])
            s.sendall(head[i:i + n])
            i += n
    except OSError:  # refused before the end: the server closed the connection
        pass
    raw = read_all(s)
    s.close()
    refused(raw, status, "too_large")


def test_heads_just_under_the_limits_are_served(server: Server) -> None:
    rng = random.Random(7)
    target = b"/health?" + _random_token(rng, 8000)
    s = connect(server)
    s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    assert response(read_all(s))[0] == 200  # the query string of a GET is not read (test_serve)
    s.close()
    many = b"".join(b"X-%d: %s\r\n" % (k, _random_token(rng, 20)) for k in range(60))
    s = connect(server)
    s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" + many + b"\r\n")
    assert response(read_all(s))[0] == 200
    s.close()


MALFORMED = {
    "content-length and chunked": b"POST /score HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\n"
                                  b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "two different content-lengths": b"POST /score HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\n"
                                     b"Content-Length: 4\r\n\r\nabcd",
    "a content-length that is not a number": b"POST /score HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1x\r\n\r\n",
    "a negative content-length": b"POST /score HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\n\r\n",
    "an unknown transfer-encoding last": b"POST /score HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked, gzip"
                                         b"\r\n\r\n",
    "a bad chunk size": b"POST /score HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    "not a request line": b"HELLO\r\n\r\n",
    "a bad version": b"GET /health HTTP/9.9\r\nHost: localhost\r\n\r\n",
    "a space in the target": b"GET /he alth HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "a header without a colon": b"GET /health HTTP/1.1\r\nHost: localhost\r\nnocolon\r\n\r\n",
    "a control character in a header": b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-A: a\x01b\r\n\r\n",
    "a space before the colon": b"GET /health HTTP/1.1\r\nHost : localhost\r\n\r\n",
    "binary": bytes(range(256)),
}


@pytest.mark.parametrize("raw", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_http_gets_the_json_refusal(server: Server, raw: bytes) -> None:
    s = connect(server, "127.0.0.3")
    try:
        s.sendall(raw)
    except OSError:
        pass
    out = read_all(s)
    s.close()
    refused(out, 400, "bad_request")


def test_requests_pipelined_past_the_bound_close_the_connection(server: Server) -> None:
    s = connect(server, "127.0.0.3")
    s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n" * 200)
    out = read_all(s)
    s.close()
    answered = out.count(b"HTTP/1.1 200")
    assert 1 <= answered <= 9, answered  # the first and those queued behind it (8), then closed


# --- connections --------------------------------------------------------------------------------

def test_one_client_may_hold_only_so_many_connections(server: Server) -> None:
    held = [connect(server, "127.0.0.4") for _ in range(PER_CLIENT)]
    try:
        extra = connect(server, "127.0.0.4")
        a = refused(read_all(extra), 429, "busy")
        assert str(PER_CLIENT) in a["error"]["message"]
        extra.close()
        good_call(server, "GET", "/health")  # another client is served meanwhile
    finally:
        for s in held:
            s.close()
    time.sleep(0.3)
    s = connect(server, "127.0.0.4")  # its connections closed, the client is served again
    s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    assert response(read_all(s))[0] == 200
    s.close()


def test_the_server_holds_only_so_many_connections_in_all(server: Server) -> None:
    held = []
    try:
        for i in range(TOTAL // PER_CLIENT):
            held += [connect(server, f"127.0.1.{i + 1}") for _ in range(PER_CLIENT)]
        extra = connect(server, "127.0.2.1")
        a = refused(read_all(extra), 503, "busy")
        assert str(TOTAL) in a["error"]["message"]
        extra.close()
    finally:
        for s in held:
            s.close()
    time.sleep(0.3)
    good_call(server, "GET", "/health")


# --- work ---------------------------------------------------------------------------------------

HEAVY = {"concealed": "4455566667mNNN", "draw": "5m", "indicator": "4m"}  # huns: some 0.15 ms to score
OPTION_SETS = [{"min_fan": m, "chan_points": c} for m in (1, 3) for c in (1, 2)] + [{"tianting": "on"}]


def test_a_request_names_only_so_many_option_sets(server: Server) -> None:
    body = [dict(OK, id=i, options=o) for i, o in enumerate(OPTION_SETS)]
    body += [dict(OK, id=10, options=OPTION_SETS[0]), dict(OK, id=11)]  # a set already named; none at all
    for as_jsonl in (False, True):
        text = "\n".join(json.dumps(x) for x in body) if as_jsonl else body
        status, _, out = server.call("POST", "/score/batch", text, {"Content-Type": "application/x-ndjson"}
                                     if as_jsonl else None)
        answers = [json.loads(x) for x in out.splitlines()] if as_jsonl else out
        assert status == 200 and [a["id"] for a in answers] == [x["id"] for x in body]
        codes = [(a.get("error") or {}).get("code") for a in answers]
        assert codes == [None] * RULE_SETS + ["work_budget"] * (len(OPTION_SETS) - RULE_SETS) + [None, None], codes
        assert all(check_answer(a) for a in answers)
        assert str(RULE_SETS) in answers[-3]["error"]["message"]


def test_a_request_gets_only_so_much_cpu(server: Server) -> None:
    # 10,000 requests take more than CPU seconds of a thread (0.3 s): the rest are refused, each with its id
    lines = [json.dumps(dict(HEAVY, id=i)) for i in range(10_000)]
    status, _, out = server.call("POST", "/score/batch", "\n".join(lines), {"Content-Type": "application/x-ndjson"})
    answers = [json.loads(x) for x in out.splitlines()]
    assert status == 200 and [a["id"] for a in answers] == list(range(10_000))
    codes = [(a.get("error") or {}).get("code") for a in answers]
    first = codes.index("work_budget")
    assert first > 0 and set(codes[first:]) == {"work_budget"} and set(codes[:first]) == {None}
    assert "CPU" in answers[-1]["error"]["message"] and check_answer(answers[-1])


def test_one_client_has_only_so_many_requests_worked_out_at_once(server: Server) -> None:
    lines = "\n".join(json.dumps(dict(HEAVY, id=i)) for i in range(10_000)).encode()
    req = (b"POST /score/batch HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-ndjson\r\n"
           b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(lines)) + lines
    conns = [connect(server, "127.0.0.5") for _ in range(4)]
    for s in conns:
        s.sendall(req)
    statuses = [response(read_all(s))[0] for s in conns]
    for s in conns:
        s.close()
    assert statuses.count(200) >= 2 and 429 in statuses, statuses  # two at once from one client; others refused


# --- who may call -------------------------------------------------------------------------------

def test_a_page_of_another_origin_makes_no_work(server: Server) -> None:
    evil = "http://evil.example"
    # a "simple" request, which a browser sends without a preflight: refused before any work
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        status, hdrs, a = server.call("POST", "/score", json.dumps(OK), {"Origin": evil, "Content-Type": ctype})
        assert status == 403 and check_answer(a)["error"]["code"] == "cors_refused" and "win" in a and not a["win"]
        assert "access-control-allow-origin" not in hdrs
    pre = {"Origin": evil, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    status, _, a = server.call("OPTIONS", "/score/batch", headers=pre)
    assert status == 403 and a["error"]["code"] == "cors_refused"
    for origin in ("null", "http://127.0.0.1", f"https://127.0.0.1:{server.port}", f"http://127.0.0.1:{server.port}.x",
                   f"http://localhost:{server.port + 1}"):
        assert server.call("POST", "/score", OK, {"Origin": origin})[0] == 403, origin
    # no Origin, but the browser says cross-site (an <img>, a no-cors fetch): refused, unless a navigation
    status, _, a = server.call("GET", "/rules", headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"})
    assert status == 403 and a["error"]["code"] == "cors_refused"
    assert server.call("GET", "/health", headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"})[0] == 200
    # the server's own pages (same origin: /docs) are served
    assert server.call("POST", "/score", OK, {"Origin": f"http://127.0.0.1:{server.port}"})[0] == 200
    assert server.call("POST", "/score", OK, {"Origin": f"http://localhost:{server.port}",
                                              "Host": f"localhost:{server.port}"})[0] == 200


def test_a_name_rebound_to_this_machine_is_refused(server: Server) -> None:
    # DNS rebinding: evil.example pointed at 127.0.0.1 is the page's own origin for the browser
    for host in (f"evil.example:{server.port}", "evil.example", "127.0.0.1.evil.example", "", "localhost.:1"):
        status, _, a = server.call("POST", "/score", OK, {"Host": host, "Origin": f"http://{host}"})
        assert status == 403 and check_answer(a)["error"]["code"] == "bad_host", host
    for host in (f"localhost:{server.port}", f"127.0.0.1:{server.port}", f"[::1]:{server.port}", "LOCALHOST"):
        assert server.call("GET", "/health", headers={"Host": host})[0] == 200, host


def _asgi_handshake(limits: Any, headers: list[tuple[bytes, bytes]], extension: bool) -> tuple[list[Any], bool]:
    """What the guard sends for a WebSocket handshake, and whether the app behind it was called."""
    from tjmj_dsl.guard import wrap
    called = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        called.append(scope)

    sent: list[Any] = []

    async def receive() -> Any:
        return {"type": "websocket.connect"}

    async def send(msg: Any) -> None:
        sent.append(msg)

    scope = {"type": "websocket", "scheme": "ws", "path": "/tables", "headers": headers,
             "extensions": {"websocket.http.response": {}} if extension else {}}
    asyncio.run(wrap(app, limits)(scope, receive, send))
    return sent, bool(called)


def test_a_cross_origin_websocket_handshake_is_refused() -> None:
    from tjmj_dsl.guard import Limits
    limits = Limits(cors_origins=("https://tables.example",))
    host = [(b"host", b"localhost:8000")]
    for ext in (True, False):
        sent, called = _asgi_handshake(limits, host + [(b"origin", b"http://evil.example")], ext)
        assert not called
        if ext:
            assert sent[0]["type"] == "websocket.http.response.start" and sent[0]["status"] == 403
            assert json.loads(sent[1]["body"])["error"]["code"] == "cors_refused"
        else:
            assert sent[0]["type"] == "websocket.close" and sent[0]["code"] == 1008
        sent, called = _asgi_handshake(limits, [(b"host", b"evil.example"), (b"origin", b"http://evil.example")], ext)
        assert not called and "bad_host" in json.dumps(str(sent))
    for origin in (b"https://tables.example", b"http://localhost:8000"):
        sent, called = _asgi_handshake(limits, host + [(b"origin", origin)], True)
        assert called and sent == []


# --- a well-behaved client while attacks run ----------------------------------------------------

def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Attack:
    """Threads attacking the server from loopback addresses other than 127.0.0.1 until stopped."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []
        self.sent = 0

    def run(self, fn: Any, *args: Any) -> None:
        t = threading.Thread(target=self._loop, args=(fn, *args), daemon=True)
        t.start()
        self.threads.append(t)

    def _loop(self, fn: Any, *args: Any) -> None:
        while not self.stop.is_set():
            try:
                fn(*args)
                self.sent += 1
            except OSError:
                time.sleep(0.01)

    def end(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=15)

    # the attacks
    def slowloris(self, src: str) -> None:
        conns = [connect(self.server, src, 2.0) for _ in range(PER_CLIENT)]
        try:
            for _ in range(20):
                if self.stop.is_set():
                    break
                for s in conns:
                    s.send(b"X")
                time.sleep(0.1)
        finally:
            for s in conns:
                s.close()

    def heavy_batch(self, src: str) -> None:
        lines = "\n".join(json.dumps(dict(HEAVY, id=i, options=OPTION_SETS[i % len(OPTION_SETS)] if i % 97 == 0 else None))
                          for i in range(9000)).encode()
        s = connect(self.server, src, 10.0)
        s.sendall(b"POST /score/batch HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-ndjson\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(lines) + lines)
        read_all(s)
        s.close()

    def big_heads(self, src: str) -> None:
        s = connect(self.server, src, 2.0)
        s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n" + b"X-A: " + b"a" * 60000 + b"\r\n\r\n")
        read_all(s)
        s.close()

    def waits_flood(self, src: str) -> None:
        # a hand whose waits take some 0.1 s (13 tiles, many of them huns)
        body = json.dumps({"concealed": "1112345678999m", "indicator": "4m"}).encode()
        s = connect(self.server, src, 10.0)
        for _ in range(10):
            s.sendall(b"POST /waits HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            s.recv(65536)
        s.close()

    def connection_flood(self, src: str) -> None:
        for _ in range(PER_CLIENT + 4):
            connect(self.server, src, 2.0).close()

    def big_bodies(self, src: str) -> None:
        s = connect(self.server, src, 5.0)
        s.sendall(b"POST /score/batch HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1048576\r\n\r\n" + b"[" * 60000)
        read_all(s)  # the rest never comes: held to the body deadline
        s.close()


class _Port:
    def __init__(self, port: int) -> None:
        self.port = port


def _attacks(port: int, seconds: float, count: Any) -> None:
    """Every attack at once for `seconds`, in a process of its own (its threads do not compete for
    the test process's interpreter with the well-behaved client it measures)."""
    attack = Attack(_Port(port))  # type: ignore[arg-type]
    for i in range(3):
        attack.run(attack.slowloris, f"127.0.3.{i + 1}")
    for i in range(2):
        attack.run(attack.heavy_batch, f"127.0.4.{i + 1}")
    attack.run(attack.big_heads, "127.0.5.1")
    attack.run(attack.connection_flood, "127.0.5.2")
    for i in range(4):
        attack.run(attack.big_bodies, f"127.0.6.{i + 1}")
    for i in range(2):
        for _ in range(3):
            attack.run(attack.waits_flood, f"127.0.7.{i + 1}")
    time.sleep(seconds)
    attack.end()
    count.value = attack.sent


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the server's memory from /proc (Linux)")
def test_a_well_behaved_client_is_served_while_attacks_run(server: Server) -> None:
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    count = ctx.Value("i", 0)
    attackers = ctx.Process(target=_attacks, args=(server.port, 6.0, count), daemon=True)
    attackers.start()
    latencies = []
    rss = []
    try:
        time.sleep(0.5)
        end = time.monotonic() + 5
        while time.monotonic() < end:
            latencies.append((good_call(server, "GET", "/health"), "health"))
            latencies.append((good_call(server, "POST", "/score", OK), "score"))
            rss.append(_rss_mb(server.proc.pid))
            time.sleep(0.05)
    finally:
        attackers.join(timeout=30)
        if attackers.is_alive():
            attackers.kill()
    assert count.value > 10  # the attacks did run
    assert max(latencies)[0] < GOOD_BOUND, (len(latencies), sorted(latencies)[-5:])
    assert max(rss) < 500, max(rss)  # memory bounded (the bodies being read: 64 MiB at most)


# --- the command's numbers ----------------------------------------------------------------------

BAD_NUMBERS = [["--port", "0"], ["--port", "65536"], ["--port", "-1"], ["--port", "80.5"], ["--port", "８０"],
               ["--workers", "0"], ["--workers", "1000"], ["--max-body", "0"], ["--max-body", "1e9"],
               ["--max-batch", "0"], ["--max-connections", "0"], ["--max-client-connections", "-3"],
               ["--keep-alive", "0"], ["--head-timeout", "nan"], ["--head-timeout", "inf"], ["--body-timeout", "0"],
               ["--request-cpu", "-1"], ["--max-rule-sets", "x"], ["--max-work", "99999999999999999999"],
               ["--cors-origin", "evil.example"], ["--cors-origin", "http://a.example/path"],
               # as every other command's numbers (tjmj_dsl.cli_args): ASCII digits, plain decimal
               ["--head-timeout", "\u0661"], ["--body-timeout", "1_0"], ["--request-cpu", "1e1"], ["--port", "+80"],
               ["--table-origin", "club.example"], ["--table-origin", "*"],  # the tables' check takes no *
               ["--max-rooms", "0"], ["--max-rooms", "-5"], ["--max-rooms", "\u0663"]]


@pytest.mark.parametrize("args", BAD_NUMBERS, ids=[" ".join(a) for a in BAD_NUMBERS])
def test_bad_numbers_are_usage_errors(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from tjmj_dsl.cli import build_parser
    with pytest.raises(SystemExit) as e:
        build_parser().parse_args(["serve", *args])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "error:" in err and args[0] in err and "Traceback" not in err


def test_good_numbers_make_the_limits() -> None:
    from tjmj_dsl.cli import build_parser
    from tjmj_dsl.guard import from_args
    args = build_parser().parse_args(["serve", "--port", "65535", "--max-client-connections", "3",
                                      "--head-timeout", "2.5", "--cors-origin", "https://a.example"])
    assert isinstance(args, argparse.Namespace) and args.port == 65535
    limits = from_args(args, "127.0.0.1")
    assert (limits.max_client_connections, limits.head_timeout, limits.cors_origins) == (3, 2.5, ("https://a.example",))
    assert "localhost" in (limits.allowed_hosts or ()) and from_args(args, "0.0.0.0").allowed_hosts is None


def test_an_answer_before_the_body_ends_closes_the_connection(server: Server) -> None:
    # a 413 by Content-Length: the 2 MB the client says it will send are neither read nor waited for
    s = connect(server, "127.0.0.6")
    s.sendall(b"POST /score HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2000000\r\n\r\n" + b" " * 1000)
    t = time.monotonic()
    a = refused(read_all(s), 413, "too_large")  # the app's answer, and the connection closed after it
    s.close()
    assert time.monotonic() - t < BODY_TIMEOUT and "2000000" in a["error"]["message"]


def test_the_bodies_being_read_are_bounded_in_all() -> None:
    """Large bodies being read hold their declared size (a chunked one the largest body) from a
    shared pool, a quarter of it for one client: past it a request is refused before its body is
    read; released once answered. A small body (one request) is never refused so."""
    from tjmj_dsl.guard import Limits, wrap
    from tjmj_dsl.guard.asgi import SMALL_BODY
    big = SMALL_BODY + 1
    limits = Limits(body_memory=4 * big + 10, max_body=2 * big)
    release = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    guarded = wrap(app, limits)

    async def call(client: str, headers: list[tuple[bytes, bytes]]) -> int:
        sent: list[Any] = []

        async def receive() -> Any:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(msg: Any) -> None:
            sent.append(msg)

        scope = {"type": "http", "scheme": "http", "method": "POST", "path": "/score", "client": (client, 1),
                 "headers": [(b"host", b"localhost")] + headers}
        await guarded(scope, receive, send)
        return int(sent[0]["status"])

    def length(n: int) -> list[tuple[bytes, bytes]]:
        return [(b"content-length", str(n).encode())]

    async def main() -> list[int]:
        held = [asyncio.ensure_future(call(f"10.0.0.{i}", length(big))) for i in range(4)]  # the pool, filled
        await asyncio.sleep(0.01)
        now = [await call("10.0.0.9", length(big)), await call("10.0.0.9", [(b"transfer-encoding", b"chunked")])]
        small = asyncio.ensure_future(call("10.0.0.9", length(SMALL_BODY)))  # one request: never refused so
        one = asyncio.ensure_future(call("10.0.0.0", length(big)))  # a client's own share: a quarter
        await asyncio.sleep(0.01)
        release.set()
        return now + [await one] + [await h for h in held] + [await small, await call("10.0.0.9", length(big))]

    assert asyncio.run(main()) == [503, 503, 503, 200, 200, 200, 200, 200, 200]


def test_a_cross_origin_websocket_handshake_is_refused_by_the_server(server: Server) -> None:
    """Over real HTTP (when uvicorn has a WebSocket library): a handshake from another origin's page
    gets a 403 with the JSON refusal, before any app sees it."""
    pytest.importorskip("websockets", reason="uvicorn has no WebSocket library here (websockets)")
    handshake = (b"GET /tables HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n")
    for extra, code in ((b"Origin: http://evil.example\r\n", "cors_refused"), (b"", "bad_host")):
        req = handshake.replace(b"Host: localhost", b"Host: evil.example") if code == "bad_host" else handshake
        s = connect(server, "127.0.0.7")
        s.sendall(req + extra + b"\r\n")
        status, _, a = response(read_all(s))
        s.close()
        assert status == 403 and isinstance(a, dict) and a["error"]["code"] == code, a


def test_a_table_origin_passes_the_guard_of_serve_tables() -> None:
    """`tjmj serve --tables --table-origin https://club.example` (docs/play/table.md: the public origin
    behind a proxy): the guard in front lets that origin's pages through to the tables (whose own
    check admits them); another origin's pages are still refused before any work."""
    from tjmj_dsl.guard.asgi import refused_origin
    from tjmj_dsl.serve import Config
    limits = Config(tables={"origins": ["https://club.example"]}).limits()
    scope = {"type": "http", "scheme": "http", "method": "POST"}
    for origin, refused in ((b"https://club.example", False), (b"https://evil.example", True)):
        why = refused_origin(limits, scope, {b"host": b"127.0.0.1:8000", b"origin": origin})
        assert (why is not None) == refused, (origin, why)
        assert why is None or why[1] == "cors_refused"


SAME_ORIGIN = [  # (Origin, Host, scheme): whether the page is the server's own, by the guard and the tables alike
    ("http://localhost", "localhost:80", "http", True), ("http://localhost:80", "localhost", "http", True),
    ("https://club.example", "club.example", "https", True), ("https://club.example", "club.example", "http", False),
    ("http://club.example", "club.example", "wss", False), ("http://[::1]:8000", "[::1]:8000", "ws", True),
    ("http://localhost:8001", "localhost:8000", "http", False), ("null", "localhost", "http", False),
]


@pytest.mark.parametrize("origin, host, scheme, own", SAME_ORIGIN)
def test_the_tables_and_the_guard_agree_on_a_servers_own_page(origin: str, host: str, scheme: str, own: bool) -> None:
    from tjmj_dsl.guard import Limits
    from tjmj_dsl.guard.asgi import refused_origin
    from tjmj_dsl.tables.app import origin_ok
    headers = {"origin": origin, "host": host}
    assert origin_ok(headers, (), scheme) == own
    limits = Limits(allowed_hosts=None)
    scope = {"type": "http", "scheme": scheme, "method": "POST"}
    assert (refused_origin(limits, scope, {k.encode(): v.encode() for k, v in headers.items()}) is None) == own


# --- behind a reverse proxy (--proxy) -----------------------------------------------------------

PROXY, OTHER = "127.0.0.9", "127.0.0.10"


def _create_room(server: Server, src: str, forwarded: str | None) -> tuple[int, Any]:
    """POST a room from the loopback address `src`, saying (as a proxy says) whom it forwards."""
    body = json.dumps({"seats": ["random"] * 4, "hands": 1}).encode()
    s = connect(server, src)
    head = (f"POST /play/api/rooms HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n")
    if forwarded is not None:
        head += f"X-Forwarded-For: {forwarded}\r\n"
    s.sendall(head.encode() + b"\r\n" + body)
    status, _, a = response(read_all(s))
    s.close()
    return status, a


def test_behind_a_named_proxy_each_forwarded_client_is_one_client() -> None:
    """A club behind nginx: every connection comes from the proxy's address. Without --proxy that address was
    one client for the whole club (its 32 connections and 16 rooms, everyone's); with it, the proxy's connections
    are not bounded as one client's and each room counts against the client the proxy forwards. A header from
    anyone else changes nothing: a client cannot pass for another by writing X-Forwarded-For."""
    s = Server("--tables", "--proxy", PROXY, "--rooms-per-client", "1", "--max-client-connections", "2")
    try:
        held = [connect(s, PROXY) for _ in range(3)]  # past the per-client bound: the proxy's are many clients'
        held[2].sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        assert response(read_all(held[2]))[0] == 200
        others = [connect(s, OTHER) for _ in range(2)]
        extra = connect(s, OTHER)
        refused(read_all(extra), 429, "busy")  # anyone else is one client, as before
        for c in held + others + [extra]:
            c.close()
        time.sleep(0.3)
        assert _create_room(s, PROXY, "10.1.1.1")[0] == 201
        status, a = _create_room(s, PROXY, "10.1.1.1")  # the same player again: their one room is playing
        assert (status, a["error"]["code"]) == (429, "too_many_rooms")
        assert _create_room(s, PROXY, "10.1.1.2")[0] == 201  # another player through the same proxy
        assert _create_room(s, PROXY, "192.0.2.7, 10.1.1.3")[0] == 201  # the address the proxy saw is the client's
        assert _create_room(s, OTHER, "10.1.1.4")[0] == 201
        status, a = _create_room(s, OTHER, "10.1.1.5")  # not a proxy: its header is not believed
        assert (status, a["error"]["code"]) == (429, "too_many_rooms")
    finally:
        s.stop()


def test_without_proxy_a_forwarded_header_is_ignored() -> None:
    s = Server("--tables", "--rooms-per-client", "1")
    try:
        assert _create_room(s, PROXY, "10.1.1.1")[0] == 201
        status, a = _create_room(s, PROXY, "10.1.1.2")
        assert (status, a["error"]["code"]) == (429, "too_many_rooms")
    finally:
        s.stop()


def test_the_names_a_server_answers_to() -> None:
    from tjmj_dsl.guard.limits import allowed_hosts
    loop = ("localhost", "127.0.0.1", "::1")
    assert allowed_hosts("127.0.0.1", None) == loop
    # a name given keeps the loopback ones (a proxy's or a health check's request to 127.0.0.1 was refused)
    assert allowed_hosts("127.0.0.1", ["Club.Example"]) == loop + ("club.example",)
    # the public page origin names the host the proxy passes on
    assert allowed_hosts("127.0.0.1", None, ["https://mahjong.club.example:8443"]) == loop + ("mahjong.club.example",)
    assert allowed_hosts("0.0.0.0", None, ["https://mahjong.club.example"]) is None  # every address: any name
    assert allowed_hosts("::", ["a.example"]) == loop + ("a.example",)


def test_behind_a_proxy_the_club_s_public_name_is_answered() -> None:
    """A club's nginx passes its public name as Host (docs/play/table.md): the server named by --table-origin
    answers to it, and still to the loopback names (a health check); another name stays refused. Following the
    docs, a seat's socket through nginx was refused (bad_host), and --allow-host then refused 127.0.0.1."""
    s = Server("--tables", "--table-origin", "https://mahjong.club.example")
    try:
        for host in ("mahjong.club.example", "mahjong.club.example:443", f"127.0.0.1:{s.port}", "localhost"):
            assert s.call("GET", "/health", headers={"Host": host})[0] == 200, host
        status, _, a = s.call("GET", "/health", headers={"Host": "evil.example"})
        assert status == 403 and a["error"]["code"] == "bad_host"
    finally:
        s.stop()
    s = Server("--allow-host", "club.example")
    try:
        for host in ("club.example", f"127.0.0.1:{s.port}"):
            assert s.call("GET", "/health", headers={"Host": host})[0] == 200, host
    finally:
        s.stop()
