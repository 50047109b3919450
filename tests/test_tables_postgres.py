"""The tables on a real PostgreSQL (started here from Debian's package): the same code as on
SQLite plays a game through the sockets, and a server killed mid-hand resumes from PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("psycopg")

import httpx  # noqa: E402

from tablekit import PlayServer, Postgres  # noqa: E402
from tjmj_dsl.game.replay import Replayer  # noqa: E402
from tjmj_dsl.tables.scripted import play_room, play_seat  # noqa: E402


@pytest.fixture(scope="module")
def pg() -> Any:
    p = Postgres()
    if p.skip:
        pytest.skip(p.skip)
    yield p
    p.stop()


def test_a_game_on_postgresql_plays_replays_and_survives_a_kill(pg: Postgres) -> None:
    s = PlayServer(pg.url, "--bot-pace", "0", "--table-rate", "100000", "--hands", "2").start()
    try:
        room, logs, _ = asyncio.run(play_room(s.base, {"seats": ["person", "person", "random", "value"], "hands": 3}))
        assert all(log.errors == 0 for log in logs)
        recs = [json.loads(x) for x in httpx.get(f"{s.base}/play/api/rooms/{room['room']}/records.jsonl").text.splitlines()]
        assert [r["hand"] for r in recs] == [0, 1, 2]
        rp = Replayer()
        for r in recs:
            rp.check(r)
        ws_url = s.link.split("#")[0].replace("http", "ws", 1).replace("/play/room/", "/play/ws/")
        token = s.link.split("#seat=")[1]
        first = asyncio.run(play_seat(ws_url, {"type": "hello", "token": token}, seed=5, stop_after=5))
        last = [m for m in first.messages if m["type"] == "state"][-1]
        s.kill9()
        s = PlayServer(pg.url, "--bot-pace", "0", "--table-rate", "100000", "--hands", "2", port=s.port).start()
        rest = asyncio.run(play_seat(ws_url, {"type": "hello", "token": token}, seed=6))
        again = next(m for m in rest.messages if m["type"] == "state")
        assert again["view"] == last["view"] and again["ask"]["menu"] == last["ask"]["menu"]
        assert rest.messages[-1]["type"] == "game_end"
    finally:
        s.stop()


def test_a_row_another_client_keeps_locked_is_an_error_in_seconds_not_a_hang(pg: Postgres) -> None:
    """A club operator's review: the store runs on the server's event loop, and a PostgreSQL that does not
    answer (here: another client keeps the rooms' table locked) froze every table without end. The store's
    statements now give up after the lock timeout (5 s): the write fails with the driver's error, which the
    tables take as an outage (the room set aside, the answer refused store_unavailable), and the store
    works again once the lock is gone."""
    import concurrent.futures
    import time

    import psycopg

    from tjmj_dsl.tables.store import SQLAlchemyError, Store
    store = Store(pg.url)
    try:
        store.add_room("lockedroom", {"hands": 1}, "0" * 64, [None] * 4)
        pool = concurrent.futures.ThreadPoolExecutor(1)
        try:
            with psycopg.connect(pg.url) as other:
                other.execute("LOCK TABLE tjmj_rooms IN ACCESS EXCLUSIVE MODE")  # held until this block ends
                t0 = time.monotonic()
                fut = pool.submit(store.set_status, "lockedroom", "stopped")
                with pytest.raises(SQLAlchemyError, match="lock timeout"):
                    fut.result(timeout=60)  # a hang fails the test here, after a minute
                took = time.monotonic() - t0
        finally:
            pool.shutdown(wait=True)  # the lock is gone: a write still waiting ends now
        assert 4 <= took < 20, took
        store.set_status("lockedroom", "stopped")  # the lock gone: the same store writes again
        assert store.status("lockedroom") == "stopped"
    finally:
        store.close()


def test_health_says_when_the_database_is_down_and_when_it_is_back(pg: Postgres) -> None:
    """An operator's review: /health said ok while PostgreSQL was down and every answer was refused
    store_unavailable. The tables' health (and `tjmj serve --tables`' /health) is 503 `unavailable` while the
    database does not answer, and ok again once it does; the server answers the while."""
    import time

    from fastapi.testclient import TestClient

    from tjmj_dsl.tables.app import TablesConfig, create_app
    with TestClient(create_app(TablesConfig(db=pg.url, pace=0))) as c:
        tables = c.app.state.tables  # type: ignore[attr-defined]
        first = c.get("/play/api/health")
        assert first.status_code == 200 and first.json()["status"] == "ok" and first.json()["database"] == "postgresql"
        assert set(first.json()) == {"status", "database", "rooms_playing"}
        c.post("/play/api/rooms", json={"seats": ["person", "random", "random", "random"], "hands": 1})
        tables._health = None  # a room more plays: counted by the next answer
        assert c.get("/play/api/health").json()["rooms_playing"] == first.json()["rooms_playing"] + 1
        pg.pause()
        try:
            tables._health = None  # the answer kept for 2 s, forgotten: the next asks the database
            t0 = time.monotonic()
            down = c.get("/play/api/health")
            assert down.status_code == 503 and down.json()["status"] == "unavailable", down.text
            assert time.monotonic() - t0 < 20
            assert "psycopg" not in down.text and "connection" not in down.text  # the driver's words stay out
            assert c.get("/play/api/config").status_code == 200
        finally:
            pg.resume()
        tables._health = None
        assert c.get("/play/api/health").json()["status"] == "ok"


def test_a_frozen_postgresql_holds_its_rooms_not_the_server(pg: Postgres) -> None:
    """An operator's review: a PostgreSQL that hangs without failing (its processes stopped, their connections
    open: no bound fires) froze every room, the pages, /health and the server's exit, the store being called on
    the event loop. Now a room of bots playing meets the freeze at its next write and waits; the server answers
    its pages and config at once and /health 503 within its wait, the room plays on after the thaw, and a
    server stopped during a freeze exits."""
    import time
    s = PlayServer(pg.url, "--bot-pace", "0", "--table-rate", "100000").start()
    try:
        room = httpx.post(f"{s.base}/play/api/rooms", json={"seats": ["random"] * 4, "hands": 0}).json()["room"]

        def finished() -> int:
            return int(httpx.get(f"{s.base}/play/api/rooms/{room}", timeout=5).json()["finished_hands"])

        def answers_while_frozen() -> None:
            time.sleep(0.5)  # the room's next write is under way, and waits
            t0 = time.monotonic()
            assert httpx.get(f"{s.base}/play/api/config", timeout=5).status_code == 200
            assert httpx.get(f"{s.base}/play", timeout=5).status_code == 200
            assert time.monotonic() - t0 < 2
            health = httpx.get(f"{s.base}/play/api/health", timeout=15)
            assert health.status_code == 503 and time.monotonic() - t0 < 10

        deadline = time.monotonic() + 30
        while finished() < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        pg.freeze()
        try:
            answers_while_frozen()
            before = finished()  # from memory: the room is held, not gone
        finally:
            pg.thaw()
        deadline = time.monotonic() + 30
        while finished() <= before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert finished() > before
        pg.freeze()
        try:
            answers_while_frozen()
            assert s.proc is not None
            t0 = time.monotonic()
            s.proc.terminate()
            s.proc.wait(15)  # a hang fails the test here
            assert time.monotonic() - t0 < 10
        finally:
            pg.thaw()
    finally:
        s.stop()
    from tjmj_dsl.tables.store import Store
    store = Store(pg.url)
    try:
        store.set_status(room, "stopped")  # not resumed, playing on, by the servers of the tests after this one
    finally:
        store.close()


def test_the_operators_own_connection_options_are_kept_beside_the_bounds(pg: Postgres, monkeypatch: Any) -> None:
    """A review: the bounds' `options` replaced the operator's own (`?options=-csearch_path=club` in the URL, or
    PGOPTIONS), and the club's rooms were looked for, and made, in another schema. The operator's options come
    after the bounds' (theirs win where both set one), a parameter the URL sets is left to it."""
    import psycopg

    from tjmj_dsl.tables.store import Store
    with psycopg.connect(pg.url, autocommit=True) as c:
        c.execute("CREATE SCHEMA IF NOT EXISTS club")
    store = Store(pg.url + "?options=-csearch_path%3Dclub%20-clock_timeout%3D7s&connect_timeout=3")
    try:
        with store.engine.connect() as c:
            from sqlalchemy import text
            assert c.execute(text("SHOW search_path")).scalar() == "club"
            assert c.execute(text("SHOW lock_timeout")).scalar() == "7s"  # theirs, after the bounds'
            assert c.execute(text("SHOW statement_timeout")).scalar() == "30s"  # the bounds' own, kept
        with psycopg.connect(pg.url) as c:
            assert c.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'club' "
                             "AND table_name = 'tjmj_rooms'").fetchone() == (1,)
    finally:
        store.close()
    monkeypatch.setenv("PGOPTIONS", "-csearch_path=club")
    store = Store(pg.url)
    try:
        with store.engine.connect() as c:
            from sqlalchemy import text
            assert c.execute(text("SHOW search_path")).scalar() == "club"
            assert c.execute(text("SHOW lock_timeout")).scalar() == "5s"
    finally:
        store.close()


def test_health_is_unavailable_while_the_answers_cannot_be_written(pg: Postgres) -> None:
    """A review: /health's probe read (SELECT 1) answered while a client kept the answers' table locked and every
    answer's write failed; rooms resumed on its word froze the server at their first write. The probe writes an
    answer and rolls it back: unavailable while the table is locked, ok once it is free, nothing stored."""
    import time

    import psycopg
    from fastapi.testclient import TestClient

    from tjmj_dsl.tables.app import TablesConfig, create_app
    with TestClient(create_app(TablesConfig(db=pg.url, pace=0))) as c:
        tables = c.app.state.tables  # type: ignore[attr-defined]
        assert c.get("/play/api/health").json()["status"] == "ok"
        with psycopg.connect(pg.url) as other:
            other.execute("LOCK TABLE tjmj_answers IN SHARE MODE")  # reads go on, writes wait
            tables._health = None
            got = c.get("/play/api/health")
            assert got.status_code == 503 and got.json()["status"] == "unavailable", got.text
        # the probe that met the lock may end after it is gone (its lock timeout and the request's wait are both
        # 5 s): a look then still gets its failure, and the next one finds the table free (a flake on a loaded
        # machine, the same as the SQLite test polls for)
        deadline = time.monotonic() + 15
        while True:
            tables._health = None
            if c.get("/play/api/health").json()["status"] == "ok" or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert c.get("/play/api/health").json()["status"] == "ok"
        with psycopg.connect(pg.url) as q:
            assert q.execute("SELECT count(*) FROM tjmj_answers WHERE room = ''").fetchone() == (0,)
