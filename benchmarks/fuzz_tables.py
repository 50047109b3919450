"""The table server's surfaces for benchmarks/fuzz.py (issue 34 item 7): the room API over HTTP
(`tables`) and the WebSocket messages (`tables-ws`), sent to a real `tjmj play --no-browser` on
127.0.0.1 with its own database, every request bounded by a timeout.

What must hold, and is checked for each input: no 5xx, every refusal the contract's error shape
({"error": {"code", "message", "field"}}, on a socket {"type": "error", "code", "message", "field"}),
no traceback in an answer, a refused answer changes nothing (no `state` follows it), and no socket
ever receives another seat's concealed tiles, the wall, the seed or the deal before a hand ends.
"""

from __future__ import annotations

import atexit
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.hostile import PAYLOADS
from tests.tablekit import PlayServer, free_port

TIMEOUT = 10.0  # seconds: any one request or socket read
SEATS = ["person", "random", "value", "defensive", "bot", "", None, 0, ["person"], {"a": 1}]
HIDDEN_KEYS = {"wall", "seed", "deal"}


def start_server() -> PlayServer:
    d = tempfile.mkdtemp(prefix="tjmj-fuzz-tables-")
    atexit.register(shutil.rmtree, d, True)  # run after the server's stop (registered later, run first)
    srv = PlayServer(os.path.join(d, "t.db"), "--bot-pace", "0", "--table-rate", "10000", "--time-limit", "600").start()
    atexit.register(srv.stop)
    return srv


def _hostile(rng: random.Random) -> Any:
    return rng.choice([None, True, False, 0, -1, 1.5, 2**70, "", "x" * rng.randrange(1, 200), rng.choice(PAYLOADS),
                       [], {}, [None] * 4, {"$ne": 1}, "\u202e\u0000", "person"])


def _nested(rng: random.Random) -> bytes:
    n = rng.choice([50, 900, 1100, 3000, 6000])
    return rng.choice([b"[" * n + b"]" * n, b'{"a":' * n + b"1" + b"}" * n, b"[" * n])


def room_body(rng: random.Random) -> bytes:
    """A room request: valid, a valid one with a field made hostile, random JSON, deep nesting or bytes."""
    body: dict[str, Any] = {"seats": ["person", "random", "value", "random"], "hands": rng.randrange(0, 4),
                            "time_limit": rng.choice([1, 30, 600]), "names": [rng.choice(["Ann", None]), None, None, None]}
    r = rng.random()
    if r < 0.15:
        return json.dumps(body).encode()
    if r < 0.6:
        k = rng.choice(["seats", "hands", "time_limit", "names", "profile", "options", "rules", "x" * 100, "\u0000"])
        if k == "seats" and rng.random() < 0.5:
            body[k] = [rng.choice(SEATS) for _ in range(rng.choice([0, 3, 4, 4, 5]))]
        elif k == "names" and rng.random() < 0.5:
            body[k] = [rng.choice([None, "", "a" * 41, "\u202e", "\x07", "名字", rng.choice(PAYLOADS)]) for _ in range(4)]
        elif k == "options" and rng.random() < 0.6:
            body[k] = {rng.choice(["min_fan", "hun_kinds", "su_value", "x", "__proto__"]): _hostile(rng)}
        elif k == "time_limit" and rng.random() < 0.5:
            return json.dumps(body).replace('"time_limit": ' + json.dumps(body["time_limit"]),
                                            '"time_limit": ' + rng.choice(["NaN", "Infinity", "-Infinity", "1e999", "0.999"])).encode()
        else:
            body[k] = _hostile(rng)
        return json.dumps(body, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
    if r < 0.75:
        return _nested(rng)
    if r < 0.85:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
    if r < 0.9:
        return b'{"seats": ["person","random","random","random"], "names": ["' + b"x" * 20_000 + b'"]}'
    return json.dumps(_hostile(rng)).encode()


def _refusal(r: httpx.Response) -> None:
    assert r.status_code < 500, (r.status_code, r.text[:300])
    assert "Traceback" not in r.text, r.text[:300]
    if r.status_code >= 400:
        assert "error" in r.json(), (r.request.url, r.status_code, r.text[:300])
        e = r.json()["error"]
        assert set(e) == {"code", "message", "field"} and isinstance(e["code"], str), r.text[:300]


def surface_tables(rng: random.Random, srv: PlayServer | None = None) -> Callable[[], None]:
    """The room API: hostile room requests, room ids, hand indexes and stop tokens."""
    srv = srv or start_server()
    http = httpx.Client(base_url=srv.base, timeout=TIMEOUT)
    made = http.post("/play/api/rooms", json={"seats": ["person", "random", "random", "random"], "hands": 1}).json()
    room, owner = made["room"], made["owner_token"]
    ids = [room, "", "x" * 65, "../config", "%00", "名", room + "x", "a" * 64, "%2e%2e"]

    def one() -> None:
        k = rng.randrange(6)
        if k <= 1:
            headers = {"content-type": rng.choice(["application/json", "text/plain", b"x/\xe9"])}
            if rng.random() < 0.1:
                headers["origin"] = rng.choice(["http://evil.example", "null", "http://127.0.0.1:1"])
            r = http.post("/play/api/rooms", content=room_body(rng), headers=headers)
            _refusal(r)
            if r.status_code == 201:
                got = r.json()
                assert len(got["seats"]) == 4 and got["room"] and got["owner_token"]
                # stop it again, so that the server's rooms stay few
                _refusal(http.post(f"/play/api/rooms/{got['room']}/stop", json={"token": got["owner_token"]}))
        elif k == 2:
            rid = rng.choice(ids + [_text_id(rng)])
            _refusal(http.get(f"/play/api/rooms/{rid}"))
            _refusal(http.get(f"/play/api/rooms/{rid}/records.jsonl"))
        elif k == 3:
            idx = rng.choice(["0", "1", "-1", "²", "٣", "1e3", "9" * 7, "00", "", "%20", "0x1"])
            r = http.get(f"/play/api/rooms/{rng.choice(ids)}/hands/{idx}.json")
            _refusal(r)
        elif k == 4:  # a stop with anything but the owner's token changes nothing
            before = http.get(f"/play/api/rooms/{room}").json()["status"]
            tok = rng.choice([None, "", owner[:-1], owner + "x", owner.upper(), 1, [owner], {"token": owner}, "x" * 5000])
            body = rng.choice([json.dumps({"token": tok}).encode(), _nested(rng), b"", b"null"])
            r = http.post(f"/play/api/rooms/{room}/stop", content=body)
            _refusal(r)
            assert r.status_code >= 400, r.text[:200]
            assert http.get(f"/play/api/rooms/{room}").json()["status"] == before
        else:
            _refusal(http.get("/play/api/config"))
    return one


def _text_id(rng: random.Random) -> str:
    return "".join(rng.choice("abcXYZ09_-.~%名\u202e") for _ in range(rng.randrange(1, 80)))


# ---------------------------------------------------------------- the socket

def check_message(m: dict[str, Any], seat: int | None) -> None:
    """What a socket of `seat` (None: a spectator) may receive: the contract's error shape, and nothing hidden."""
    assert isinstance(m, dict) and isinstance(m.get("type"), str), m
    if m["type"] == "error":
        assert set(m) == {"type", "error"} and set(m["error"]) == {"code", "message", "field"}, m
        assert isinstance(m["error"]["code"], str), m
        return
    if m["type"] in ("hand_end", "game_end"):  # the hand is over: its record is everyone's
        return
    text = json.dumps(m)
    assert "Traceback" not in text
    assert not (_keys(m) & HIDDEN_KEYS), sorted(_keys(m) & HIDDEN_KEYS)
    if m["type"] == "state":
        v, p = m.get("view"), m.get("public")
        if seat is None:
            assert v is None and m.get("ask") is None, "a spectator got a seat's view"
        else:
            assert p is None and (v is None or v["seat"] == seat), "a seat got another's view"
        events = (v or p or {}).get("events", [])
        for e in events:
            if e["type"] in ("draw", "concealed_kong") and e["seat"] != seat:
                assert e.get("tile") is None, f"seat {seat} sees seat {e['seat']}'s {e['type']}"
        if v is not None:
            for s, melds in enumerate(v["melds"]):
                for md in melds:
                    if s != seat and md["type"] == "concealed_kong":
                        assert md["tile"] is None
        if m.get("ask") is not None:
            assert seat is not None and m["waiting"]["seat"] == seat
    if m["type"] == "welcome":
        assert m["seat"] == seat


def _keys(x: Any) -> set[str]:
    if isinstance(x, dict):
        out = set(x)
        for v in x.values():
            out |= _keys(v)
        return out
    if isinstance(x, list):
        out = set()
        for v in x:
            out |= _keys(v)
        return out
    return set()


def ws_message(rng: random.Random, seat_token: str, ask: dict[str, Any] | None) -> str | bytes:
    r = rng.random()
    if r < 0.3 and ask is not None:  # an answer near the open question: right, stale, out of range, wrong type
        msg = {"type": "answer", "hand": ask["hand"], "seq": ask["seq"], "choice": 0}
        field = rng.choice(["hand", "seq", "choice", None, None])
        if field is not None:
            msg[field] = rng.choice([msg[field] - 1, msg[field] + 1, -1, 10**6, 2**70, "0", None, 0.0, True, [0]])
        return json.dumps(msg)
    if r < 0.45:
        return json.dumps({"type": rng.choice(["waits", "ping", "hello", "stop", "answer", "WAITS", "", "\u0000"]),
                           rng.choice(["token", "watch", "seat", "x"]): _hostile(rng)})
    if r < 0.55:
        return _nested(rng).decode()
    if r < 0.65:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
    if r < 0.7:
        return json.dumps({"type": "answer", "x": "y" * 5000})
    if r < 0.8:
        return rng.choice(PAYLOADS)
    return json.dumps({"type": "answer", "hand": _hostile(rng), "seq": _hostile(rng), "choice": _hostile(rng),
                       "seat": rng.randrange(4), "token": seat_token})


class Sock:
    """One client socket: each message followed by a ping, its replies read up to the pong."""

    def __init__(self, url: str, seat: int | None) -> None:
        self.ws = connect(url, open_timeout=TIMEOUT, close_timeout=2, max_size=2**22).__enter__()  # kept open
        self.seat = seat
        self.ask: dict[str, Any] | None = None
        self.hello = False

    def round(self, data: str | bytes) -> list[dict[str, Any]]:
        """Send, then a ping; the replies up to the ping's. Before the hello every message but a hello
        that succeeds has exactly one reply, an error, and so has the ping (hello_first)."""
        if isinstance(data, str):  # a lone surrogate cannot go on the wire as text: its UTF-8 replacement does
            data = data.encode("utf-8", "replace").decode("utf-8")
        self.ws.send(data)
        self.ws.send('{"type": "ping"}')
        out: list[dict[str, Any]] = []
        before = not self.hello
        try:
            answering = json.loads(data).get("type") == "answer"
        except (ValueError, AttributeError, RecursionError):  # not JSON, not an object, nested too deep
            answering = False
        while True:
            m = json.loads(self.ws.recv(timeout=TIMEOUT))
            check_message(m, self.seat)
            if m["type"] == "pong":
                if answering and self.ask is not None and not any(x["type"] in ("error", "state") for x in out):
                    # taken (an answer refused is always told): the question is answered, though no state may come
                    # while the table asks a question this seat may not know of (a claim of another seat)
                    self.ask = None
                return out
            if m["type"] == "welcome":
                self.hello = True
            elif m["type"] == "state":
                self.ask = m.get("ask")
            out.append(m)
            if before and not self.hello and len(out) == 2:
                assert out[1]["type"] == "error" and out[1]["error"]["code"] == "hello_first", out
                return out[:1]

    def close(self) -> None:
        self.ws.close()


def surface_tables_ws(rng: random.Random, srv: PlayServer | None = None) -> Callable[[], None]:
    """The socket: hellos with right, wrong and other seats' tokens, spectators, answers (right, stale, out
    of range, mistyped, for no seat), deep nesting, bytes, oversized messages, floods, many sockets."""
    srv = srv or start_server()
    http = httpx.Client(base_url=srv.base, timeout=TIMEOUT)
    ws_base = srv.base.replace("http://", "ws://")

    def new_room() -> tuple[str, list[str | None]]:
        got = http.post("/play/api/rooms", json={"seats": ["person", "random", "person", "value"], "hands": 0,
                                                 "time_limit": 600}).json()
        return got["room"], [s["token"] for s in got["seats"]]

    state: dict[str, Any] = {"room": None, "tokens": [], "used": 0}

    def one() -> None:
        if state["room"] is None or state["used"] > 40:
            if state["room"] is not None:
                http.post(f"/play/api/rooms/{state['room']}/stop", json={"token": "nobody"})
            state["room"], state["tokens"] = new_room()
            state["used"] = 0
        state["used"] += 1
        room, tokens = state["room"], state["tokens"]
        k = rng.random()
        if k < 0.08:  # a flood without waiting: refused as flood or closed, never a crash
            with connect(f"{ws_base}/play/ws/{room}", open_timeout=TIMEOUT, close_timeout=2) as ws:
                for _ in range(rng.choice([30, 80])):
                    ws.send(rng.choice(['{"type":"ping"}', "x", "[" * 3000]))
                try:
                    while True:
                        check_message(json.loads(ws.recv(timeout=2)), None)
                except (TimeoutError, ConnectionClosed):
                    pass
            return
        if k < 0.12:  # many sockets of one seat at once, half of them left without a word
            socks = []
            try:
                for _ in range(12):
                    socks.append(connect(f"{ws_base}/play/ws/{room}", open_timeout=TIMEOUT, close_timeout=1).__enter__())
                for s in socks[::2]:
                    s.send(json.dumps({"type": "hello", "token": tokens[0]}))
                for s in socks[::2]:
                    m = json.loads(s.recv(timeout=TIMEOUT))
                    assert m["type"] in ("welcome", "error"), m
                    check_message(m, 0 if m["type"] == "welcome" else None)
            finally:
                for s in socks:
                    s.close()
            return
        if k < 0.16:  # half-open sockets (a handshake begun and left) and a reconnect storm of one seat
            port = int(srv.base.rsplit(":", 1)[1])
            raws = [socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) for _ in range(5)]
            for r in raws:
                r.sendall(f"GET /play/ws/{room} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n".encode())
            for _ in range(10):
                with connect(f"{ws_base}/play/ws/{room}", open_timeout=TIMEOUT, close_timeout=1) as ws:
                    ws.send(json.dumps({"type": "hello", "token": tokens[0]}))
                    check_message(json.loads(ws.recv(timeout=TIMEOUT)), 0)
            for r in raws:
                r.close()
            assert http.get("/play/api/config").status_code == 200
            return
        who = rng.choice([0, 2, None, "wrong", "none"])
        path = rng.choice([room] * 8 + ["nosuchroom", "x" * 70, "%00"])
        sock = Sock(f"{ws_base}/play/ws/{path}", who if isinstance(who, int) else None)
        try:
            if path != room:
                m = json.loads(sock.ws.recv(timeout=TIMEOUT))
                assert m["type"] == "error" and m["error"]["code"] == "not_found", m
                return
            if who is None:
                hello: dict[str, Any] = {"type": "hello", "watch": True}
            elif who == "wrong":
                hello = {"type": "hello", "token": rng.choice([tokens[0][:-1] + "A", "", "x" * 65, tokens[1], 5])}
            elif who == "none":
                hello = {"type": rng.choice(["answer", "waits", "ping"])}
            else:
                hello = {"type": "hello", "token": tokens[who]}
            got = sock.round(json.dumps(hello))
            for _ in range(rng.randrange(1, 8)):
                tok = tokens[2 if sock.seat == 0 else 0] or ""
                msg = ws_message(rng, tok, sock.ask)
                ask_before = sock.ask
                got = sock.round(msg)
                refused = any(m["type"] == "error" for m in got)
                if refused and ask_before is not None:  # the table waits for this seat: a refusal changes nothing
                    assert not any(m["type"] in ("state", "hand_end") for m in got), (msg[:200], got[:3])
                    assert sock.ask == ask_before
        except ConnectionClosed:
            pass  # closed by the server (too many refusals, a slow reader): allowed, never a crash
        finally:
            sock.close()
    return one




# ---------------------------------------------------------------- tjmj serve over raw HTTP

def start_serve() -> tuple[subprocess.Popen[bytes], int]:
    """`tjmj serve --tables` on a free port of 127.0.0.1, its own database; stopped at exit."""
    port = free_port()
    d = tempfile.mkdtemp(prefix="tjmj-fuzz-serve-")
    atexit.register(shutil.rmtree, d, True)  # after the kill below (registered later, run first)
    proc = subprocess.Popen([sys.executable, "-m", "tjmj_dsl.cli", "serve", "--port", str(port), "--tables", "--db",
                             os.path.join(d, "s.db"), "--bot-pace", "0", "--head-timeout", "2", "--body-timeout", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    atexit.register(proc.kill)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc, port
        except httpx.HTTPError:
            time.sleep(0.3)
    raise RuntimeError("tjmj serve did not start")


PATHS = ["/score", "/waits", "/explain", "/settle", "/score/batch", "/health", "/play/api/rooms", "/nothing", "/score?x=1",
         "//score", "/score/", "/%00", "/play/api/rooms/x/hands/².json"]
REQ = {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}


def http_request(rng: random.Random, port: int) -> bytes:
    """A raw HTTP/1.1 request: odd methods, paths, Host and Origin headers, lengths and bodies."""
    r = rng.random()
    if r < 0.5:
        body = json.dumps(REQ if rng.random() < 0.5 else [REQ] * rng.randrange(4)).encode()
    elif r < 0.7:
        body = _nested(rng)[:rng.choice([100, 4000, 20000])]
    elif r < 0.8:
        body = json.dumps(_hostile(rng)).encode()
    else:
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
    method = rng.choice([b"POST"] * 6 + [b"GET", b"PUT", b"OPTIONS", b"HEAD", b"DELETE", b"P\xc3\xb6ST"])
    host = f"127.0.0.1:{port}".encode() if rng.random() < 0.6 else rng.choice([b"127.0.0.1:\xb2", b"localhost", b"[::1]:" + str(port).encode(),
                       b"evil.example", b"127.0.0.1:99999999", b"127.0.0.1:", b""])
    headers = [b"Host: " + host, b"Content-Type: " + rng.choice([b"application/json", b"text/plain", b"\xff"])]
    if rng.random() < 0.3:
        headers.append(b"Origin: " + rng.choice([b"http://127.0.0.1", b"null", b"http://evil.example",
                                                 b"http://127.0.0.1:" + str(port).encode(), b"http://[::1", b"\xb2"]))
    length = rng.random()
    if length < 0.8:
        headers.append(b"Content-Length: " + str(len(body)).encode())
    elif length < 0.9:
        headers.append(b"Content-Length: " + rng.choice([b"-1", b"\xb2", b"1e3", b"99999999999999999999", b"0, 5"]))
    else:
        headers.append(b"Transfer-Encoding: chunked")
        body = hex(len(body))[2:].encode() + b"\r\n" + body + b"\r\n0\r\n\r\n"
    if rng.random() < 0.1:
        headers.append(rng.choice([b"X-" + b"a" * 9000 + b": 1", b"Bad Header: 1", b"Connection: close"]))
    path = (rng.choice(PATHS[:5]) if rng.random() < 0.6 else rng.choice(PATHS)).encode()
    return method + b" " + path + b" HTTP/1.1\r\n" + b"\r\n".join(headers) + b"\r\nConnection: close\r\n\r\n" + body


def _read_all(s: socket.socket) -> bytes:
    out = b""
    while True:
        try:
            chunk = s.recv(65536)
        except (TimeoutError, ConnectionResetError):
            return out
        if not chunk:
            return out
        out += chunk


def surface_serve(rng: random.Random, port: int | None = None) -> Callable[[], None]:
    """`tjmj serve`: raw HTTP requests; each answered (or the connection closed) in time, never a 5xx,
    a JSON answer's refusal in the contract's shape."""
    if port is None:
        port = start_serve()[1]

    def one() -> None:
        data = http_request(rng, port)
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
            s.settimeout(TIMEOUT)
            try:
                s.sendall(data)
            except (BrokenPipeError, ConnectionResetError):
                return  # refused before the whole request was sent (its head too large): allowed
            got = _read_all(s)
        if not got:
            return  # closed without an answer (a head past the limit, a malformed start): allowed
        head, _, body = got.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        assert status < 500, got[:400]
        assert b"Traceback" not in got and b"internal_error" not in got, got[:400]
        if status >= 400 and not data.startswith(b"HEAD "):  # a HEAD's answer has no body
            e = json.loads(body)["error"]  # every refusal is JSON (was: checked only when it began with '{')
            assert {"code", "message", "field"} <= set(e), body[:300]
    return one


__all__ = ["surface_tables", "surface_tables_ws", "surface_serve", "start_server", "start_serve", "check_message", "room_body"]
