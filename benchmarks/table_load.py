"""The tables under load (issue 32, item 8): many tables of four scripted socket clients.

Part 1 (timings): a table server in this process (uvicorn in a thread, the
tables' own settings), the clients in a second process (asyncio,
`websockets`), T tables of four scripted persons playing H hands each.
Reported: the server's time per answered action (from the answer read off the
socket to every socket's message queued: Tables.timings), the clients'
round trip (answer sent to next state), memory per open table (this process's
resident memory with the tables dealt, less before, over T), errors (refusals
a client got) and lost hands (hands asked for less records stored).

Part 2 (restart): a `tjmj play` server process, the same load; the server is
killed with SIGKILL while the tables play and started again on the same
database and port; the clients reconnect and play on. Reported: hands stored,
records that replay, errors.

    python benchmarks/table_load.py                 # 100 tables, 2 hands each
    python benchmarks/table_load.py --tables 20 --hands 1 --skip-restart
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import httpx

CLIENTS = r'''
import asyncio, json, sys, time
from tjmj_dsl.tables.scripted import create_room, play_seat_through
base, tables, hands, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
async def table(i):
    room = await create_room(base, {"seats": ["person"] * 4, "hands": hands, "time_limit": 600})
    ws = base.replace("http", "ws", 1) + "/play/ws/" + room["room"]
    logs = await asyncio.gather(*[play_seat_through(ws, {"type": "hello", "token": s["token"]}, seed=i * 4 + s["seat"])
                                  for s in room["seats"]])
    return room["room"], [l.errors for l in logs], [w for l in logs for w in l.waits], sum(l.answers for l in logs)
async def main():
    t0 = time.time()
    got = await asyncio.gather(*[table(i) for i in range(tables)])
    json.dump({"seconds": time.time() - t0, "rooms": [g[0] for g in got], "errors": sum(sum(g[1]) for g in got),
               "rtt": sorted(w for g in got for w in g[2]), "answers": sum(g[3] for g in got)}, open(out, "w"))
asyncio.run(main())
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def pct(xs: list[float], p: float) -> float:
    return xs[min(len(xs) - 1, int(len(xs) * p))] * 1e3 if xs else float("nan")


def replay_all(base: str, rooms: list[str], hands: int) -> tuple[int, int, int]:
    """(records stored, records that replay, hands lost)."""
    from tjmj_dsl.game.replay import ReplayDiff, Replayer
    rp = Replayer()
    stored = ok = lost = 0
    for r in rooms:
        lines = httpx.get(f"{base}/play/api/rooms/{r}/records.jsonl", timeout=60).text.splitlines()
        stored += len(lines)
        lost += max(0, hands - len(lines))
        for line in lines:
            try:
                rp.check(json.loads(line))
                ok += 1
            except ReplayDiff as e:
                print("  DIFFERS:", e)
    return stored, ok, lost


def part1(tables: int, hands: int, tmp: str) -> None:
    import uvicorn

    from tjmj_dsl.tables.app import TablesConfig, create_app
    app = create_app(TablesConfig(db=os.path.join(tmp, "load.sqlite3"), pace=0, rate=1e5, burst=100000,
                                  max_rooms=10_000, rooms_per_client=10_000))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", ws_per_message_deflate=False,
                                           backlog=4096))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    rss0 = rss_mb()
    out = os.path.join(tmp, "clients1.json")
    clients = subprocess.Popen([sys.executable, "-c", CLIENTS, base, str(tables), str(hands), out])
    tabs = app.state.tables
    peak = rss0
    open_peak = 0
    while clients.poll() is None:
        time.sleep(0.5)
        n = len(tabs.live_rooms())
        if n >= open_peak:
            open_peak, peak = n, max(peak, rss_mb())
    res = json.load(open(out))
    t = sorted(tabs.timings)
    stored, ok, lost = replay_all(base, res["rooms"], hands)
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    print(f"part 1: {tables} tables x 4 clients x {hands} hands: {res['seconds']:.1f} s, {res['answers']} answers "
          f"({res['answers'] / res['seconds']:.0f}/s)")
    print(f"  server time per answered action: p50 {pct(t, 0.5):.2f} ms, p99 {pct(t, 0.99):.2f} ms, max {pct(t, 1.0):.1f} ms "
          f"({len(t)} answers)")
    print(f"  client round trip (answer sent -> next state): p50 {pct(res['rtt'], 0.5):.1f} ms, "
          f"p99 {pct(res['rtt'], 0.99):.1f} ms")
    print(f"  memory: {rss0:.0f} MB before, {peak:.0f} MB with {open_peak} tables open: "
          f"{(peak - rss0) / max(open_peak, 1) * 1024:.0f} KB a table")
    print(f"  errors {res['errors']}, hands stored {stored} of {tables * hands}, lost {lost}, replay OK {ok}")
    print(f"  server process CPU: user {cpu.ru_utime:.1f} s, system {cpu.ru_stime:.1f} s")
    server.should_exit = True


def part2(tables: int, hands: int, tmp: str, kill_after: float) -> None:
    db = os.path.join(tmp, "restart.sqlite3")
    port = free_port()
    base = f"http://127.0.0.1:{port}"

    def start() -> subprocess.Popen[bytes]:
        p = subprocess.Popen([sys.executable, "-m", "tjmj_dsl.cli", "play", "--no-browser", "--db", db, "--port", str(port),
                              "--bot-pace", "0", "--table-rate", "100000"], stdout=subprocess.DEVNULL,
                             start_new_session=True)
        for _ in range(600):
            try:
                httpx.get(base + "/play/api/config", timeout=5)
                return p
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    server = start()
    out = os.path.join(tmp, "clients2.json")
    clients = subprocess.Popen([sys.executable, "-c", CLIENTS, base, str(tables), str(hands), out])
    time.sleep(kill_after)
    if clients.poll() is not None:
        print("part 2: the load ended before the kill; raise --hands")
    os.kill(server.pid, signal.SIGKILL)
    server.wait()
    t0 = time.time()
    server = start()
    print(f"part 2: killed with SIGKILL after {kill_after:.0f} s of load; started again in {time.time() - t0:.1f} s")
    clients.wait()
    try:
        res = json.load(open(out))
        stored, ok, lost = replay_all(base, res["rooms"], hands)
        print(f"  {tables} tables x 4 clients x {hands} hands: {res['seconds']:.1f} s in all, errors {res['errors']}, "
              f"hands stored {stored} of {tables * hands}, lost {lost}, replay OK {ok}")
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--kill-after", type=float, default=20.0, help="seconds of load before the SIGKILL (part 2)")
    ap.add_argument("--skip-restart", action="store_true")
    ap.add_argument("--skip-timings", action="store_true")
    a = ap.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        if not a.skip_timings:
            part1(a.tables, a.hands, tmp)
        if not a.skip_restart:
            part2(a.tables, a.hands, tmp, a.kill_after)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
