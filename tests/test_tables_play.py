"""The tables through a real `tjmj play` server and real socket clients: no message
leaks what its seat may not see over whole hands; 1,000 hands played by scripted
clients all replay; a server killed with SIGKILL mid-hand resumes where it was."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("websockets")

import httpx  # noqa: E402

from tablekit import PlayServer, hands_after, hidden, keys_of  # noqa: E402
from tjmj_dsl.game.replay import Replayer  # noqa: E402
from tjmj_dsl.tables.schemas import table_schemas  # noqa: E402
from tjmj_dsl.tables.scripted import SeatLog, play_room, play_seat  # noqa: E402

SEAT_STATE = {"type", "hand", "status", "balances", "view", "concealed", "public", "waiting", "ask"}
VIEW = {"hand", "seat", "dealer", "indicator", "hun_kinds", "tiles", "drawn", "melds", "discards", "last_discard",
        "live_left", "zuozhuang", "lazhuang", "xianggong", "ready", "events"}
PUBLIC = {"hand", "dealer", "indicator", "hun_kinds", "concealed", "melds", "discards", "last_discard", "live_left",
          "zuozhuang", "lazhuang", "xianggong", "ready", "events"}
SECRET_KEYS = {"wall", "deal", "seed", "dice"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: Any) -> Any:
    s = PlayServer(str(tmp_path_factory.mktemp("tables") / "t.sqlite3"), "--bot-pace", "0", "--table-rate", "100000")
    s.start()
    yield s
    s.stop()


def check_seat_log(log: SeatLog, seat: int | None, records: dict[int, dict[str, Any]]) -> int:
    """Every state a socket received holds what its seat may see of the hand then, nothing more:
    its own tiles (as the record's deal and events make them), the others' draws and concealed
    kongs without their tiles, no wall, deal, dice or seed until the hand is over. The states checked."""
    ended: set[int] = set()
    checked = 0
    import jsonschema
    schema = jsonschema.Draft202012Validator(table_schemas()["table-server-message"])
    for raw, m in zip(log.raw, log.messages):
        schema.validate(m)
        if m["type"] == "hand_end":
            ended.add(m["hand"])
            continue
        if m["type"] != "state" or m.get("view") is None and m.get("public") is None:
            continue
        h = m["hand"]
        rec = records[h]
        assert h not in ended
        assert rec["seed"] not in raw  # the seed only in the hand's record, once the hand is over
        assert not keys_of(m) & SECRET_KEYS
        assert set(m) == SEAT_STATE
        truth = hands_after(rec)
        if seat is None:
            v = m["public"]
            assert m["view"] is None and m["ask"] is None and set(v) == PUBLIC
        else:
            v = m["view"]
            assert m["public"] is None and set(v) == VIEW and v["seat"] == seat
            if m["ask"] is not None:
                assert m["waiting"]["seat"] == seat
        w = m["waiting"]
        if w is not None and w["kind"] in ("claim", "declare_ready"):  # whose pair, whose ready hand: the seat's own only
            assert w["seat"] == seat
        if w is not None and w["seat"] is None:
            assert w == {"seat": None, "kind": None, "deadline": None, "time_left": None}
        k = len(v["events"])
        assert v["events"] == [hidden(e, seat) for e in rec["events"][:k]]
        if v["indicator"] is not None:  # dealt: the seat's own tiles are the record's, the counts everyone's
            counts = [sum(c.values()) for c in truth[k]]
            assert (m["concealed"] if seat is not None else v["concealed"]) == counts
            if seat is not None:
                assert Counter(v["tiles"]) == truth[k][seat]
                for s in range(4):
                    for meld in v["melds"][s]:
                        if s != seat and meld["type"] == "concealed":
                            assert meld["tile"] is None
        else:
            assert v["live_left"] is None and (seat is None or v["tiles"] == [])
        checked += 1
    return checked


def records_of(logs: list[SeatLog]) -> dict[int, dict[str, Any]]:
    return {m["hand"]: m["record"] for log in logs for m in log.messages if m["type"] == "hand_end"}


def test_no_socket_learns_what_its_seat_may_not_see(server: PlayServer) -> None:
    async def main() -> list[Any]:
        return await asyncio.gather(
            play_room(server.base, {"seats": ["person"] * 4, "hands": 3}, seed=1, watch=True),
            play_room(server.base, {"seats": ["person", "value", "person", "random"], "hands": 3}, seed=2, watch=True))

    for room, logs, watcher in asyncio.run(main()):
        records = records_of(logs)
        assert sorted(records) == [0, 1, 2]
        seats = [s["seat"] for s in room["seats"] if s["token"]]
        total = 0
        for seat, log in zip(seats, logs):
            assert log.errors == 0
            total += check_seat_log(log, seat, records)
        assert watcher is not None
        total += check_seat_log(watcher, None, records)
        assert total > 100
        for h, rec in records.items():  # the record a socket got is the one stored for download
            got = httpx.get(f"{server.base}/play/api/rooms/{room['room']}/hands/{h}.json").json()
            assert got == rec


def test_a_thousand_hands_through_the_sockets_all_replay(server: PlayServer) -> None:
    tables, hands = 25, 40
    body = {"seats": ["person", "random", "random", "random"], "hands": hands}

    async def main() -> list[Any]:
        return await asyncio.gather(*[play_room(server.base, body, seed=i) for i in range(tables)])

    t0 = time.time()
    got = asyncio.run(main())
    print(f"\n{tables * hands} hands in {time.time() - t0:.0f} s")
    rp = Replayer()
    n = 0
    for room, logs, _ in got:
        assert all(log.errors == 0 for log in logs)
        text = httpx.get(f"{server.base}/play/api/rooms/{room['room']}/records.jsonl", timeout=60).text
        recs = [json.loads(x) for x in text.splitlines()]
        assert [r["hand"] for r in recs] == list(range(hands))
        for r in recs:
            rp.check(r)
            n += 1
    assert n >= 1000


def test_a_server_killed_mid_hand_resumes_where_it_was(tmp_path: Any) -> None:
    db = str(tmp_path / "t.sqlite3")
    s = PlayServer(db, "--bot-pace", "0", "--table-rate", "100000", "--hands", "2").start()
    ws_url = s.link.split("#")[0].replace("http", "ws", 1).replace("/play/room/", "/play/ws/")
    token = s.link.split("#seat=")[1]
    rid = s.link.split("/play/room/")[1].split("#")[0]
    try:
        first = asyncio.run(play_seat(ws_url, {"type": "hello", "token": token}, seed=3, stop_after=7))
        last = [m for m in first.messages if m["type"] == "state"][-1]
        assert last["ask"] is not None
        s.kill9()
        s2 = PlayServer(db, "--bot-pace", "0", "--table-rate", "100000", "--hands", "2", port=s.port).start()
        try:
            async def look() -> dict[str, Any]:
                import websockets
                async with websockets.connect(ws_url) as ws:
                    await ws.send(json.dumps({"type": "hello", "token": token}))
                    json.loads(await ws.recv())
                    return json.loads(await ws.recv())  # type: ignore[no-any-return]
            again = asyncio.run(look())
            assert again["view"] == last["view"]
            assert again["ask"]["menu"] == last["ask"]["menu"] and again["ask"]["seq"] == last["ask"]["seq"]
            rest = asyncio.run(play_seat(ws_url, {"type": "hello", "token": token}, seed=4))
            assert rest.errors == 0 and rest.messages[-1]["type"] == "game_end"
            recs = [json.loads(x) for x in
                    httpx.get(f"{s2.base}/play/api/rooms/{rid}/records.jsonl").text.splitlines()]
            assert [r["hand"] for r in recs] == [0, 1]
            rp = Replayer()
            for r in recs:
                rp.check(r)
            # the bots went on as they would have without the kill: a hand is its seed and its answers,
            # and each stored bot answer is the one a fresh bot gives when asked the same questions
            check_bots_from_store(db, rid)
        finally:
            s2.stop()
    finally:
        s.stop()


def check_bots_from_store(db: str, rid: str) -> None:
    from tjmj_dsl.game.players import make_player
    from tjmj_dsl.game.seeds import rng
    from tjmj_dsl.game.step import Stepper
    from tjmj_dsl.tables.game import bot_choice
    from tjmj_dsl.tables.rulesets import RuleSets
    from tjmj_dsl.tables.store import Store

    store = Store(db)
    row = store.room(rid)
    assert row is not None
    rules = RuleSets().rules(row.config["rules"], row.config["profile"], row.config["options"])
    for h in store.hands(rid):
        st = Stepper(rules, [None] * 4, seed=h.seed, hand=h.idx, dealer=h.dealer)
        bots = [None if k == "person" else make_player(k) for k in row.config["seats"]]
        for s, b in enumerate(bots):
            if b is not None:
                b.begin(st.view(s), rng(h.seed, h.idx, "player", s))
        for seq, seat, choice in store.answers(rid, h.idx):
            ask = st.ask
            assert ask is not None and ask.seq == seq and ask.seat == seat
            if bots[seat] is not None:
                assert bot_choice(bots[seat], ask, st) == choice
            st.answer(choice, seq)
        assert st.ask is None and h.record is not None
        assert h.record["result"]["balances"] == st.result.settlement["balances"]  # type: ignore[union-attr]
    store.close()


_ = random


def test_tjmj_serve_serves_the_tables_beside_the_contract(tmp_path: Any) -> None:
    import subprocess
    import sys

    from tablekit import free_port
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m", "tjmj_dsl.cli", "serve", "--tables", "--db", str(tmp_path / "s.sqlite3"),
                             "--bot-pace", "0", "--port", str(port)], stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                httpx.get(base + "/health", timeout=5)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        health = httpx.get(base + "/health").json()  # the tables' database is part of the server's health
        assert health["status"] == "ok" and health["tables"] == {"status": "ok", "database": "sqlite", "rooms_playing": 0}
        score = httpx.post(base + "/score", json={"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"})
        assert score.status_code == 200 and score.json()["win"] is True
        room = httpx.post(base + "/play/api/rooms", json={"seats": ["value", "random", "value", "random"], "hands": 1}).json()
        for _ in range(600):
            info = httpx.get(f"{base}/play/api/rooms/{room['room']}").json()
            if info["status"] == "over":
                break
            time.sleep(0.05)
        assert info["status"] == "over"
        Replayer().check(httpx.get(f"{base}/play/api/rooms/{room['room']}/hands/0.json").json())
    finally:
        proc.terminate()
        proc.wait(20)


@pytest.mark.parametrize("command", ["serve --tables", "play --no-browser"])
def test_a_database_that_cannot_be_opened_is_one_line_before_any_server(command: str, tmp_path: Any) -> None:
    """An unreachable PostgreSQL (its password not shown) or a file that cannot be made: one line, exit 1, no server
    started and no traceback (uvicorn printed its start-up traceback twice and went on waiting)."""
    import subprocess
    import sys

    from tablekit import free_port
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for db, said in ((f"postgresql://tjmj:hunter2@127.0.0.1:{free_port()}/tjmj", "postgresql://tjmj:***@127.0.0.1"),
                     (str(blocker / "games.sqlite3"), str(blocker))):
        run = subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", *command.split(), "--db", db, "--port", str(free_port())],
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 1, run.stderr
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tjmj: error: cannot open the games' database ")
        assert said in lines[0] and "hunter2" not in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("command, missing, extra", [("play --no-browser", "sqlalchemy", "play"),
                                                     ("serve --tables", "sqlalchemy", "play"),
                                                     ("serve", "fastapi", "serve")])
def test_a_missing_extra_names_the_install_command_that_works_in_the_clone(command: str, missing: str,
                                                                           extra: str) -> None:
    """Without its extra, each server command names the module missing and `pip install -e '.[EXTRA]'` (tjmj is
    installed from its clone; `pip install 'tjmj[play]'` asked an index that has no tjmj)."""
    import subprocess
    import sys
    code = (f"import sys; sys.modules[{missing!r}] = None; from tjmj_dsl.cli import main; "
            f"sys.exit(main({command.split()!r}))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1, run.stderr
    assert f"({missing} is missing): pip install -e '.[{extra}]'" in run.stderr and "Traceback" not in run.stderr, \
        run.stderr


def test_play_on_a_port_in_use_is_one_line(tmp_path: Any) -> None:
    """`tjmj play --port N` with N taken printed Python's traceback (`tjmj serve` says one line, exit 3)."""
    import socket
    import subprocess
    import sys
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", "play", "--no-browser", "--port", str(port),
                              "--db", str(tmp_path / "t.sqlite3")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 3, run.stderr
    assert run.stderr.strip() == f"tjmj: error: cannot listen on 127.0.0.1:{port}: Address already in use", run.stderr
