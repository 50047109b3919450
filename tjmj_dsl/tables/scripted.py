"""A scripted person at a table: a socket client that answers every ask (the tests'
and the load benchmark's player; it speaks only the protocol a page speaks).

`play_seat` connects to /play/ws/<room>, says hello with the seat's token and
answers each `ask` with a pick (random by default) until `game_end`; it
returns every message it received, so a test can look at all of them.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass
class SeatLog:
    """What one socket received (parsed), and the client's round-trip times (answer sent → next state)."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    answers: int = 0
    errors: int = 0
    waits: list[float] = field(default_factory=list)


Picker = Callable[[dict[str, Any], random.Random], int]


def random_pick(ask: dict[str, Any], r: random.Random) -> int:
    """A random legal answer (a win when there is one)."""
    menu = ask["menu"]
    if ask["kind"] == "act" and menu and menu[0] == {"type": "win", "tile": None}:
        return 0
    return r.randrange(len(menu))


async def play_seat(url: str, hello: dict[str, Any], pick: Picker | None = random_pick, seed: int = 0,
                    keep: bool = True, stop_after: int | None = None, log: SeatLog | None = None) -> SeatLog:
    """Play one seat (or watch, with hello {"type": "hello", "watch": true} and pick None) to the game's end.
    `stop_after`: leave after that many answers (a reload, a lost network)."""
    import websockets

    r = random.Random(seed)
    log = log if log is not None else SeatLog()
    async with websockets.connect(url, max_size=1 << 24, open_timeout=30) as ws:
        await ws.send(json.dumps(hello))
        sent_at: float | None = None
        async for text in ws:
            assert isinstance(text, str)
            msg = json.loads(text)
            if keep:
                log.messages.append(msg)
                log.raw.append(text)
            typ = msg.get("type")
            if typ == "error":
                log.errors += 1
            elif typ == "game_end":
                return log
            elif typ == "state":
                if sent_at is not None:
                    log.waits.append(time.perf_counter() - sent_at)
                    sent_at = None
                ask = msg.get("ask")
                if ask is not None and pick is not None:
                    if stop_after is not None and log.answers >= stop_after:
                        return log
                    choice = pick(ask, r)
                    log.answers += 1
                    sent_at = time.perf_counter()
                    await ws.send(json.dumps({"type": "answer", "hand": ask["hand"], "seq": ask["seq"], "choice": choice}))
    return log


async def create_room(base: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST /play/api/rooms (the room's JSON)."""
    import httpx

    async with httpx.AsyncClient(base_url=base, timeout=60) as c:
        r = await c.post("/play/api/rooms", json=body)
        r.raise_for_status()
        return r.json()  # type: ignore[no-any-return]


async def play_room(base: str, body: dict[str, Any], seed: int = 0, watch: bool = False
                    ) -> tuple[dict[str, Any], list[SeatLog], SeatLog | None]:
    """Create a room and play its person seats with scripted clients (and a spectator) to its end."""
    room = await create_room(base, body)
    ws = base.replace("http", "ws", 1) + f"/play/ws/{room['room']}"
    jobs = [play_seat(ws, {"type": "hello", "token": s["token"]}, seed=seed * 4 + s["seat"])
            for s in room["seats"] if s["token"]]
    if watch:
        jobs.append(play_seat(ws, {"type": "hello", "watch": True}, pick=None))
    logs = await asyncio.gather(*jobs)
    return room, list(logs[:len(logs) - watch]), (logs[-1] if watch else None)


async def play_seat_through(url: str, hello: dict[str, Any], seed: int = 0, patience: float = 120.0) -> SeatLog:
    """play_seat, reconnecting whenever the connection is lost (a server restarted), until the game ends;
    the logs joined, `errors` counting refusals only."""
    import websockets

    total = SeatLog()
    lost_at: float | None = None
    attempt = 0
    while True:
        try:
            await play_seat(url, hello, seed=seed * 1000 + attempt, log=total)
        except (OSError, websockets.exceptions.WebSocketException, asyncio.TimeoutError):
            lost_at = lost_at or time.monotonic()
            if time.monotonic() - lost_at > patience:
                raise
            attempt += 1
            await asyncio.sleep(0.2)
            continue
        lost_at = None
        if total.messages and total.messages[-1].get("type") == "game_end":
            return total
        attempt += 1
        await asyncio.sleep(0.2)  # closed by the server before the end (it is stopping): not a busy loop
