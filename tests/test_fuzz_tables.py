"""The adversarial pass over the table server (issue 34 item 7): what it found, each pinned by a
test, and a short run of its generators (benchmarks/fuzz_tables.py) against a real `tjmj play`."""

from __future__ import annotations

import json
import os
import random
from typing import Any, Iterator

import pytest
from fastapi.testclient import TestClient

from benchmarks.fuzz_tables import start_serve, start_server, surface_serve, surface_tables, surface_tables_ws
from tjmj_dsl.guard import Limits
from tjmj_dsl.guard.asgi import refused_origin
from tjmj_dsl.tables.app import TablesConfig, create_app

DEEP = [b"[" * 5000, b'{"a":' * 2000 + b"1" + b"}" * 2000]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = os.path.join(tmp_path_factory.mktemp("fuzz-tables"), "t.db")
    with TestClient(create_app(TablesConfig(db=db, pace=0, rate=1000, burst=1000))) as c:
        yield c


@pytest.fixture(scope="module")
def room(client: TestClient) -> dict[str, Any]:
    r = client.post("/play/api/rooms", json={"seats": ["person", "random", "random", "random"], "time_limit": 600})
    assert r.status_code == 201
    return dict(r.json())


def _head(s: Any) -> bytes:
    """The head of the answer on socket `s`, lower-cased: what came before the blank line (all
    that came, if the server closed first: the test then fails on it instead of waiting for ever)."""
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    return got.split(b"\r\n\r\n")[0].lower()


def _shape(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.json() == {"error": {"code": code, "message": r.json()["error"]["message"], "field": None}}


@pytest.mark.parametrize("body", DEEP)
def test_a_deeply_nested_room_request_is_refused_as_bad_json(client: TestClient, body: bytes) -> None:
    # was: RecursionError out of json.loads, a 500
    _shape(client.post("/play/api/rooms", content=body), 400, "invalid_json")


@pytest.mark.parametrize("body", DEEP)
def test_a_deeply_nested_stop_is_refused_and_stops_nothing(client: TestClient, room: dict[str, Any], body: bytes) -> None:
    _shape(client.post(f"/play/api/rooms/{room['room']}/stop", content=body), 400, "invalid_json")
    assert client.get(f"/play/api/rooms/{room['room']}").json()["status"] == "playing"


def test_a_deeply_nested_socket_message_is_refused_and_the_socket_goes_on(client: TestClient,
                                                                           room: dict[str, Any]) -> None:
    # was: the RecursionError ended the socket's handler with a traceback
    with client.websocket_connect(f"/play/ws/{room['room']}") as ws:
        ws.send_text("[" * 4000)
        m = json.loads(ws.receive_text())
        assert m["type"] == "error" and m["error"]["code"] == "malformed"
        ws.send_text(json.dumps({"type": "hello", "token": room["seats"][0]["token"]}))
        assert json.loads(ws.receive_text())["type"] == "welcome"
        assert json.loads(ws.receive_text())["type"] == "state"
        ws.send_text('[' * 2000 + '{"":' * 500)
        assert json.loads(ws.receive_text())["error"]["code"] == "malformed"
        ws.send_text('{"type": "ping"}')
        assert json.loads(ws.receive_text()) == {"type": "pong"}


@pytest.mark.parametrize("idx", ["²", "³", "¹"])
def test_a_hand_index_of_a_superscript_digit_is_not_found(client: TestClient, room: dict[str, Any], idx: str) -> None:
    # was: str.isdigit() holds for '²', int('²') raised: a 500
    _shape(client.get(f"/play/api/rooms/{room['room']}/hands/{idx}.json"), 404, "not_found")


def test_unknown_paths_and_methods_answer_the_contracts_error_shape(client: TestClient) -> None:
    # was: FastAPI's {"detail": "Not Found"}
    _shape(client.get("/play/api/rooms//hands/1.json"), 404, "not_found")
    _shape(client.get("/play/api/nothing"), 404, "not_found")
    _shape(client.delete("/play/api/rooms"), 405, "method_not_allowed")


def test_a_host_port_of_superscript_digits_is_refused_not_a_crash() -> None:
    # was: _split_host's int('²') raised in the guard: a 500 for any request with an Origin
    headers = {b"host": "127.0.0.1:²".encode("latin-1"), b"origin": b"http://127.0.0.1"}
    got = refused_origin(Limits(), {"type": "http", "scheme": "http"}, headers)
    assert got is not None and got[0] == 403


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    srv = start_server()
    yield srv
    srv.stop()


def test_generated_room_api_inputs_hold(server: Any) -> None:
    one = surface_tables(random.Random(34), server)
    for _ in range(300):
        one()
    assert server.proc.poll() is None


def test_generated_socket_inputs_hold(server: Any) -> None:
    one = surface_tables_ws(random.Random(7), server)
    for _ in range(60):
        one()
    assert server.proc.poll() is None


@pytest.fixture(scope="module")
def serve() -> Iterator[Any]:
    """`tjmj serve --tables` (benchmarks.fuzz_tables.start_serve): (its process, its port)."""
    proc, port = start_serve()
    yield proc, port
    proc.kill()
    proc.wait()


def test_generated_raw_http_to_serve_holds(serve: Any) -> None:
    # among them Host ports of superscript digits beside an Origin: a 500 before the guard's fix
    proc, port = serve
    one = surface_serve(random.Random(5), port)
    for _ in range(300):
        one()
    assert proc.poll() is None


def test_a_body_refused_unread_closes_its_connection_and_says_so(server: Any) -> None:
    # was: the 413 came without `Connection: close`, the server closed the connection anyway, and a
    # keep-alive client's next request on it was reset (httpx.ReadError, 5 in 44,170 fuzz inputs)
    import socket
    port = int(server.base.rsplit(":", 1)[1])
    body = b'{"names": ["' + b"x" * 20_000 + b'"]}'
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"POST /play/api/rooms HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % (port, len(body)) + body)
        head = _head(s)
    assert head.startswith(b"http/1.1 413") and b"\r\nconnection: close" in head, head


def test_serve_says_connection_close_with_a_413(serve: Any) -> None:
    # as the tables' room API: `tjmj serve` refused a body over --max-body without `Connection: close`
    import socket

    port = serve[1]
    body = b"[" + b" " * 1_100_000 + b"]"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"POST /score HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % (port, len(body)))
        try:
            s.sendall(body)
        except OSError:
            pass  # refused before the whole body went out
        head = _head(s)
    assert head.startswith(b"http/1.1 413") and b"\r\nconnection: close" in head, head


def test_a_request_refused_by_its_origin_says_connection_close(server: Any) -> None:
    # was: the guard's 403 (before the body is read) came without `Connection: close`, and the connection
    # was closed: the fuzz's keep-alive client had its next request reset (1 in 51,004 inputs)
    import socket
    port = int(server.base.rsplit(":", 1)[1])
    body = b'{"names": ["' + b"x" * 10_000 + b'"]}'
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"POST /play/api/rooms HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: http://evil.example\r\n"
                  b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (port, len(body)))
        head = _head(s)
    assert head.startswith(b"http/1.1 403") and b"\r\nconnection: close" in head, head
