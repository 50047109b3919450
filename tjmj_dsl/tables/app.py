"""The tables over HTTP and WebSocket (docs/table-protocol.md): the room API, the
page's files and one socket per seat (or spectator), on FastAPI.

`mount(app, config)` adds them to an application (`tjmj serve` calls it;
`tjmj play` builds an application of its own with it). Each room has a
driver task: it answers for the bot seats after the room's pace, and for a
person past the time limit with the documented default; a person's answer
comes in on the socket. Each room's game is touched under its own asyncio
lock, and every answer is stored before it is played (game.py). Each seat's
socket gets its own view (computed for it), spectators the public facts
(views.py): the hidden information is never serialized for a socket that
may not see it.

Every input is hostile: a message is at most MAX_MESSAGE bytes, a socket may
send RATE messages a second (a burst of BURST); each refusal is the
contract's error shape and changes nothing; a socket refused MAX_REFUSALS
times is closed. Cross-site requests are refused by their Origin.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import string
import sys
import time
from collections import OrderedDict
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator, Callable, TypeVar

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse, Response, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect

from ..engine.runtime import JSON_SPACE, dumps_answer, loads_request
from ..game.bot import view_json
from ..guard.asgi import same_origin
from ..guard.limits import client_key
from ..inert import lone_surrogate_at
from ..game.step import Ask
from .game import BOTS, EXTERNAL, PERSON, Game, Step, default_choice, token_hash
from .offloop import OffLoop, in_daemon_thread
from .rulesets import RoomError, RuleSets, rule_names
from .schemas import client_message_schema
from .stepper import greenlet
from .store import SQLAlchemyError, Store
from .views import public_json

STATIC = Path(__file__).with_name("static")
MAX_MESSAGE = 4096  # bytes of one socket message
RATE = 10.0  # socket messages a second, on average
BURST = 20  # ... and at once
MAX_REFUSALS = 50  # refusals before a socket is closed
MAX_BODY = 16_384  # bytes of a room API body
MAX_HANDS = 64
TIME_LIMITS = (1.0, 600.0)
SEAT_SOCKETS = 8  # sockets one seat may have open (tabs, devices)
SPECTATORS = 32  # spectator sockets per room
PUBLIC_ASKS = ("act", "zuozhuang", "lazhuang")  # questions whose asking tells nothing hidden (whose turn, the bets)
T = TypeVar("T")
# a room's id: letters and digits (an id from token_urlsafe began with "-" one time in 64, and an operator's
# `--stop-room ID` then read it as an option)
ROOM_ID_CHARS = string.ascii_letters + string.digits


def _fields_by_type() -> dict[str, tuple[str, ...]]:
    """The fields of each client message, read from its schema (schemas/table-client-message.schema.json, one
    object per type or kind of hello): any other is refused."""
    out: dict[str, tuple[str, ...]] = {}
    for v in client_message_schema()["oneOf"]:
        typ = v["properties"]["type"]["const"]
        out[typ] = out.get(typ, ()) + tuple(k for k in v["properties"] if k not in out.get(typ, ()))
    return out


_FIELDS = _fields_by_type()


def _fields_wrong(msg: dict[str, Any]) -> dict[str, Any] | None:
    """An error for a client message with a field its type does not have (or a hello both watching and seated)."""
    known = _FIELDS.get(msg["type"])
    if known is None:
        return None  # an unknown type is said where the type is read
    for k in msg:
        if k not in known:
            return _err("malformed", f"unknown field {str(k)[:40]!r} in a {msg['type']}; its fields: {', '.join(known)}",
                        str(k)[:40])
    if msg["type"] == "hello" and "token" in msg and "watch" in msg:
        return _err("malformed", "a hello has a seat's token or watch: true, not both", "watch")
    return None


def _answered(text: str) -> str:
    """A state of before a question the viewer may not know of, as a socket coming then is shown it: the
    viewer's own question in it (the discard that the hidden question is about) has been answered, so it
    is not offered again (its answer would be refused as stale); the table still waits on that seat."""
    msg = json.loads(text)
    if msg.get("ask") is None:
        return text
    msg["ask"] = None
    return json.dumps(msg, ensure_ascii=False)


def _hidden_from(ask: Ask | None, viewer: int | None) -> bool:
    """Whether the open question is one the viewer (a seat, None: a spectator) may not know is asked."""
    return ask is not None and ask.seat != viewer and ask.kind not in PUBLIC_ASKS
BOT_RUN = 64  # bot moves made at once (pace 0) before the loop serves others
SWITCH_INTERVAL = 0.0002  # seconds: see Tables.start
ENDED = 1024  # summaries of rooms over kept in memory
OUTBOX = 256  # messages waiting for a slow socket before it is closed
CSP = ("default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
       "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


@dataclass(frozen=True)
class TablesConfig:
    """What the operator chose: the database, the rule files rooms may use, the bots' pace."""

    db: str | None = None
    rules: tuple[str | None, ...] = (None,)
    pace: float = 0.6  # seconds a bot waits before it answers (0: at once)
    bot_command: tuple[str, ...] | None = None  # the `external` bot's program (the operator's, never a user's)
    origins: tuple[str, ...] = ()  # origins allowed beside the server's own
    max_rooms: int = 1000  # open rooms at once
    default_time_limit: float = 60.0
    rate: float = RATE  # socket messages a second (scripted clients of a test or benchmark are given more)
    burst: int = BURST
    hello_timeout: float = 10.0  # seconds a socket may take to say hello before it is closed
    rooms_per_client: int = 16  # rooms one client address may have playing at once (max_rooms is the server's)
    max_bots: int = 64  # `external` bot processes running at once, every room's (each a program of ~10 MB or more)
    idle_stop: float = 600.0  # a room no socket has been connected to for this long is stopped after its hand
    game_hands: int = 1000  # the most hands a game "until stopped" plays (0: no end): what one room may store


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    # the contract's writer: valid UTF-8 whatever the text holds (a lone surrogate escaped)
    return Response(dumps_answer(data), status_code=status, media_type="application/json", headers=headers)


def _err(code: str, message: str, field: str | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "field": field}}


def loads(raw: str | bytes) -> Any:
    """A body or message read as the JSON contract reads a request (engine/runtime.loads_request: nesting
    bounded, a key repeated in one object refused where it stands), and no text in it holding a lone
    surrogate (valid JSON, `"\\ud800"`, but no text: it can be neither hashed as a token nor written back
    in an answer). Anything else is a ValueError saying what is wrong."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"not UTF-8 (byte {e.start})") from None
    data, err = loads_request(raw.strip(JSON_SPACE))
    if err is not None:
        msg = str(err["message"])
        for lead in ("not JSON this scorer reads: ", "not JSON: "):
            msg = msg.removeprefix(lead)
        raise ValueError(msg)
    if lone_surrogate_at(data) is not None:
        raise ValueError("a text holds a lone surrogate (\\ud800-\\udfff alone), which is not text")
    return data


def origin_ok(headers: Any, allowed: tuple[str, ...], scheme: str) -> bool:
    """No Origin (not a browser), the server's own (the Host it was sent to, over `scheme`: the
    guard's own test of it), or one the operator allowed. Behind the guard, which admits the
    tables' origins beside --cors-origin's, this keeps the latter off the tables."""
    origin = headers.get("origin")
    if origin is None or origin in allowed:
        return True
    return same_origin(origin.strip(), "https" if scheme in ("https", "wss") else "http", headers.get("host") or "")


class Conn:
    """One socket: its seat (None: a spectator), its outbox and its message budget."""

    def __init__(self, ws: WebSocket, seat: int | None) -> None:
        self.ws, self.seat = ws, seat
        self.out: asyncio.Queue[str | int | None] = asyncio.Queue(maxsize=OUTBOX)
        self.writer: asyncio.Task[None] | None = None
        self.closed = False

    def send(self, msg: dict[str, Any] | str) -> None:
        if self.closed:
            return
        text = msg if isinstance(msg, str) else json.dumps(msg, ensure_ascii=False)
        try:
            self.out.put_nowait(text)
        except asyncio.QueueFull:  # a socket that does not read is closed, not waited for
            self.closed = True
            if self.writer is not None:
                self.writer.cancel()
            asyncio.get_running_loop().create_task(self._close())

    async def _close(self) -> None:
        try:
            await self.ws.close(1008)
        except Exception:  # noqa: BLE001 - already gone
            pass

    def end(self, code: int) -> None:
        """Close the socket with `code` once what it was sent before is written."""
        if not self.closed:
            self.closed = True
            try:
                self.out.put_nowait(code)
            except asyncio.QueueFull:
                if self.writer is not None:
                    self.writer.cancel()
                asyncio.get_running_loop().create_task(self._close())

    async def write(self) -> None:
        try:
            while True:
                text = await self.out.get()
                if text is None or isinstance(text, int):
                    await self.ws.close(1008 if text is None else text)
                    return
                await self.ws.send_text(text)
        except Exception:  # noqa: BLE001 - the socket is gone; its reader ends it
            return


class Bucket:
    """A token bucket: `take` is False once the socket sends faster than RATE (bursts of BURST)."""

    def __init__(self, rate: float = RATE, burst: int = BURST) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.at = self.burst, time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass
class Live:
    """A room being played: its game, lock, sockets and driver."""

    game: Game
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    conns: set[Conn] = field(default_factory=set)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    deadline: float | None = None
    task: asyncio.Task[None] | None = None
    waits: dict[int, tuple[Any, dict[str, Any]]] = field(default_factory=dict)  # per seat: (position, its answer)
    # per viewer (a seat, None: the spectators), the last state it was shown: while a question it may not know
    # of is open (another seat's claim or tianting), it is shown nothing new, and a socket that comes then
    # gets this one (else a reconnection, or a new socket, would tell that such a question is open)
    shown: dict[int | None, str] = field(default_factory=dict)
    # (hand, answers played, deadline) when a state was last made while the open question was one every viewer
    # may know of: a viewer's first socket coming while a question it may not know of is open is shown the
    # state of then, made again (`past_state`), as a viewer connected all along was
    public_mark: tuple[int, int, float | None] | None = None
    client: str | None = None  # the address that made it (None: unknown, counted for no one)
    alone_since: float = field(default_factory=time.time)  # when its last socket left (or it began without one)
    idle: bool = False  # stopped for want of anyone watching: with no socket, its people's questions are not waited for


class Tables:
    """Every room of one server."""

    def __init__(self, config: TablesConfig) -> None:
        self.config = config
        self.rulesets = RuleSets(list(config.rules))
        self.store = Store(config.db)
        self.db = OffLoop()  # every call to the store, on one thread of its own (offloop.py says why)
        self._resuming: dict[str, asyncio.Task[Live | None]] = {}  # rooms being read from the store, each once
        self._late = 0  # reads a request gave up on (past STORE_WAIT) still waiting for the store
        self._making = asyncio.Lock()  # one room made at a time: the caps are counted with no write under way
        self.live: dict[str, Live] = {}
        self.ended: OrderedDict[str, dict[str, Any]] = OrderedDict()  # summaries of rooms over (ENDED at most)
        self.bots = list(BOTS) + ([EXTERNAL] if config.bot_command else [])
        self.started = False
        self.timings: list[float] = []  # seconds the server took over each person's answer (benchmarks read it)
        self._health: tuple[float, dict[str, Any]] | None = None  # (when, the last probe's answer)
        self._probe: asyncio.Future[None] | None = None  # the probe running, shared by every health request
        self.aside: set[str] = set()  # rooms set aside for a database that failed: resumed once it answers again
        self._retry: asyncio.Task[None] | None = None  # the task that tries them (while there are any)
        self._aside_failures = 0  # rooms set aside so far (the retry backs off while this grows)

    # ------------------------------------------------------------ health

    HEALTH_FRESH = 2.0  # seconds a health probe's answer is given again: a flood of /health costs the database nothing
    HEALTH_WAIT = 5.0  # seconds a health request waits for the probe before it says unavailable
    # seconds a request waits for a read of the store (a room not in memory, a record) before it is answered 503
    # store_unavailable: the read goes on, and one asked again meanwhile waits for the same read of a room
    STORE_WAIT = 10.0

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """fn(*args) of the store for a request: RoomError store_unavailable (503) past STORE_WAIT (an operator's
        review: while a database hung, a look at a room not in memory or a record waited for as long), and at
        once while a read that went past it is still waiting (a client told to try again does not queue read
        after read behind the hung one, to be made before the rooms' writes once it answers)."""
        self._not_late()
        return await self._waited(asyncio.ensure_future(self.db(fn, *args)))

    def _not_late(self) -> None:
        if self._late:
            raise RoomError("store_unavailable", f"the server's database has not answered a read for more than "
                            f"{self.STORE_WAIT:g} s: try again in a while", None, 503)

    async def _waited(self, fut: asyncio.Future[T]) -> T:
        """fut, waited for at most STORE_WAIT; past it counted late until it ends (its outcome then read, so a
        read that fails late is not logged as an exception never retrieved)."""
        try:
            return await asyncio.wait_for(asyncio.shield(fut), self.STORE_WAIT)
        except asyncio.TimeoutError:
            self._late += 1
            fut.add_done_callback(self._late_done)
            raise RoomError("store_unavailable", f"the server's database did not answer in {self.STORE_WAIT:g} s: "
                            "try again in a while", None, 503) from None

    def _late_done(self, fut: asyncio.Future[Any]) -> None:
        self._late -= 1
        if not fut.cancelled():
            fut.exception()  # read: whoever asked was answered 503 already

    async def health(self) -> dict[str, Any]:
        """Whether the database could store an answer now (Store.ping, probed in a thread, the event loop free while
        it waits: one probe at a time, its answer kept HEALTH_FRESH seconds) and how many rooms play: a club's monitor, or its load
        balancer, learns of an outage before a player does (an operator's review: /health said ok while every
        answer was refused store_unavailable)."""
        now = time.monotonic()
        if self._health is not None and now - self._health[0] < self.HEALTH_FRESH:
            return self._health[1]
        probe = self._probe
        if probe is None:  # forgotten when it ends, not when a request waiting on it goes (a client that hangs up
            # then asks again does not start a probe a time while the database keeps one waiting)
            probe = self._probe = in_daemon_thread(self.store.ping)
            probe.add_done_callback(self._probe_done)
        try:  # a database that hangs (a stuck disk, a stopped process) is unavailable after HEALTH_WAIT
            await asyncio.wait_for(asyncio.shield(probe), self.HEALTH_WAIT)
            ok = True
        except Exception:  # noqa: BLE001 - any driver's error is the database unreachable (its words stay out)
            ok = False
        got = {"status": "ok" if ok else "unavailable", "database": "sqlite" if self.store.sqlite else "postgresql",
               "rooms_playing": len(self.live)}
        self._health = (time.monotonic(), got)
        return got

    def _probe_done(self, probe: asyncio.Future[None]) -> None:
        if self._probe is probe:
            self._probe = None
        if not probe.cancelled():
            probe.exception()  # read: a failed probe nobody waited for is not reported as never retrieved

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        """Resume every open room of the database."""
        if self.started:
            return
        self.started = True
        if greenlet is None:  # hands on threads (game/step.py): each answer hands the table's thread the
            # GIL and takes it back; at the default 5 ms switch interval a busy loop makes that handoff wait
            sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
        opened = await self.db(self.store.open_rooms)
        resumed = 0
        for room_id in opened:
            try:
                await self._resume(room_id)
                resumed += 1
            except Exception as e:  # noqa: BLE001 - one broken room does not keep the others down
                print(f"tjmj tables: room {room_id} cannot be resumed: {e} (its owner's stop ends it: POST "
                      f"/play/api/rooms/{room_id}/stop with the owner token; or the operator's, with this server's "
                      f"--db (and --tables): --stop-room {room_id})", file=sys.stderr, flush=True)
        if opened:  # what the operator's restart brought back, and from where
            print(f"tjmj tables: {resumed} of {len(opened)} open room(s) resumed from {self.store.shown_url()}",
                  file=sys.stderr, flush=True)

    async def _resume(self, room_id: str) -> Live | None:
        """The room read from the store and played on (None: no such room), as long as the store takes (the
        server's own resumes: one given up would leave its room neither set aside nor live)."""
        return await asyncio.shield(self._resume_task(room_id))  # a caller gone does not stop the others' reading

    def _resume_task(self, room_id: str) -> asyncio.Task[Live | None]:
        """The reading of a room from the store: one however many ask for it meanwhile (two pages opening a room
        the server had not in memory gave it two drivers)."""
        task = self._resuming.get(room_id)
        if task is None:
            task = self._resuming[room_id] = asyncio.get_running_loop().create_task(self._load(room_id))
            task.add_done_callback(lambda _: self._resuming.pop(room_id, None))  # no other is made while it is there
        return task

    async def _load(self, room_id: str) -> Live | None:
        live = self.live.get(room_id)
        if live is not None:
            return live
        row = await self.db(self.store.room, room_id)
        if row is None:
            return None
        c = row.config
        # a room is resumed only under the rules it was made under: its stored answers are picks from their
        # menus (a rule file edited, or left out of --table-rules, between two runs of the server)
        try:
            rules = self.rulesets.rules(c["rules"], c["profile"], c["options"])
        except RoomError as e:
            raise RoomError("rules_unavailable", f"room {room_id}'s rule set {str(c['rules'])[:40]!r} cannot be built "
                            f"here now ({e.message}); the room is kept, unplayed, until the server has it again",
                            None, 409) from None
        made = c.get("sha256")  # rooms made before the rules' sha256 was stored have none to compare
        if made is not None and made != rules.sha256:
            raise RoomError("rules_unavailable", f"the rule set {str(c['rules'])[:40]!r} changed since room {room_id} was "
                            f"made (sha256 {made[:16]}…, now {rules.sha256[:16]}…); the room is kept, unplayed, until "
                            "the server has those rules again", None, 409)
        try:
            game = await Game.load(self.store, row, rules, self.config.bot_command, self.config.game_hands, self.db)
        except RuntimeError as e:  # its stored answers do not follow the hand: said, never played on
            raise RoomError("room_unplayable", f"room {room_id} cannot be resumed: {e}", None, 409) from None
        live = Live(game, client=c.get("client") or None)  # rooms made before it was stored count for no one
        self.live[room_id] = live
        self._set_deadline(live)
        live.task = asyncio.get_running_loop().create_task(self._drive(live))
        return live

    RETRY_ASIDE = 5.0  # seconds between two looks at the database for the rooms set aside (the least)
    RETRY_MOST = 60.0  # ... and the most, after looks whose rooms failed again (a room back at most this late)

    async def _resume_aside(self) -> None:
        """While rooms are set aside: once the database answers again (asked in a thread, as health does), they
        are resumed where the store has it, their bots playing on with nobody having to look (an operator's
        review: a room of bots set aside in an outage stayed out until someone opened it, or the server was
        restarted). A probe can answer while writes still fail (a lock held: SQLite reads on), and a resumed
        room's failing write holds the event loop for the lock's timeout, so a look resumes one room, then
        twice as many at each look after which none failed again (looked at 5 s after), and after a look
        after which one did the next waits twice as long, up to RETRY_MOST (a review measured a held lock
        freezing the server most of the time). A page asking for such a room meanwhile is told to come back."""
        backoff, wait, batch, resumed, mark = self.RETRY_ASIDE, self.RETRY_ASIDE, 1, 0, 0
        try:
            while self.aside:
                await asyncio.sleep(wait)
                wait = backoff
                if resumed:  # how the rooms resumed at the last look fared since
                    resumed = 0
                    if self._aside_failures > mark:  # too early: one try a longer while from now
                        backoff = wait = min(backoff * 2, self.RETRY_MOST)
                        batch = 1
                        continue
                    backoff, batch = self.RETRY_ASIDE, min(batch * 2, 1 << 16)
                self._health = None  # a fresh probe: not an answer kept from before
                if (await self.health())["status"] != "ok":
                    continue
                mark = self._aside_failures
                for room_id in sorted(self.aside):
                    if room_id in self.live:
                        self.aside.discard(room_id)
                        continue
                    if resumed >= batch:
                        break
                    resumed += 1
                    self.aside.discard(room_id)
                    try:
                        await self._resume(room_id)
                    except SQLAlchemyError:
                        self.aside.add(room_id)
                        self._aside_failures += 1
                        break  # down again: the next look tries the rest
                    except Exception as e:  # noqa: BLE001 - a room that cannot be resumed is said, as at a start
                        print(f"tjmj tables: room {room_id} cannot be resumed: {e}", file=sys.stderr, flush=True)
                if resumed:
                    wait = self.RETRY_ASIDE  # how they fare is known after the least wait
        finally:
            self._retry = None

    async def stop(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
        for task in list(self._resuming.values()):
            task.cancel()
        for live in self.live.values():
            if live.task is not None:
                live.task.cancel()
        for live in self.live.values():
            live.game.close()
        self.db.close()
        self.store.close()

    # ------------------------------------------------------------ rooms

    async def create(self, body: Any, client: str = "") -> dict[str, Any]:
        """A new room from the API's request (RoomError naming the field at fault); `client`: the address it came
        from (the guard's per-client limits key on it too), which may have rooms_per_client playing at once."""
        client = client_key(client)
        if not isinstance(body, dict):
            raise RoomError("invalid_request", "a room request is a JSON object", None)
        known = {"rules", "profile", "options", "seats", "names", "hands", "time_limit"}
        for k in body:
            if k not in known:
                raise RoomError("invalid_request", f"unknown field {str(k)[:40]!r}; fields: {', '.join(sorted(known))}", str(k)[:40])
        name = body.get("rules", self.rulesets.default)
        if not isinstance(name, str):
            raise RoomError("invalid_request", "rules is a rule set's name", "rules")
        profile = body.get("profile")
        if profile is not None and not isinstance(profile, str):
            raise RoomError("invalid_request", "profile is a profile's name", "profile")
        options = body.get("options")
        options = {} if options is None else options  # absent or null: none; anything else must be an object
        if not isinstance(options, dict):
            raise RoomError("invalid_request", "options is an object of option: value", "options")
        seats = body.get("seats")
        if not isinstance(seats, list) or len(seats) != 4:
            raise RoomError("invalid_request", "seats lists four seats: person or a bot (" + ", ".join(self.bots) + ")",
                            "seats")
        for i, k in enumerate(seats):
            if k != PERSON and k not in self.bots:
                raise RoomError("invalid_request", f"seat {i}: {json.dumps(k)[:40]} is not person or a bot ("
                                + ", ".join(self.bots) + ")", f"seats[{i}]")
        names = body.get("names")
        names = [None] * 4 if names is None else names
        if not isinstance(names, list) or len(names) != 4:
            raise RoomError("invalid_request", "names lists four names (null for none)", "names")
        for i, n in enumerate(names):
            if n is not None and (not isinstance(n, str) or not 0 < len(n) <= 40 or not n.isprintable()):
                raise RoomError("invalid_request", "a name is 1 to 40 printable characters", f"names[{i}]")
        hands = body.get("hands", 8)
        if hands.__class__ is not int or not 0 <= hands <= MAX_HANDS:
            raise RoomError("invalid_request", f"hands is 1 to {MAX_HANDS}, or 0 (until stopped)", "hands")
        limit = body.get("time_limit", self.config.default_time_limit)
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not TIME_LIMITS[0] <= limit <= TIME_LIMITS[1]:
            raise RoomError("invalid_request", f"time_limit is {TIME_LIMITS[0]:g} to {TIME_LIMITS[1]:g} seconds", "time_limit")
        async with self._making:
            return await self._make(name, profile, options, seats, names, hands, limit, client)

    async def _make(self, name: str, profile: str | None, options: dict[str, Any], seats: list[str],
                    names: list[str | None], hands: int, limit: float, client: str) -> dict[str, Any]:
        # the caps before the rules: compiling a new choice of options costs the loop ~0.1 s, not for a client
        # that may not have the room
        if len(self.live_rooms()) >= self.config.max_rooms:
            raise RoomError("too_many_rooms", f"this server plays at most {self.config.max_rooms} rooms at once", None, 429)
        mine = sum(1 for live in self.live_rooms() if live.client == client)
        if mine >= self.config.rooms_per_client:
            raise RoomError("too_many_rooms", f"one client may have at most {self.config.rooms_per_client} rooms playing "
                            "at once (stop one with its owner token)", None, 429)
        wanted = seats.count(EXTERNAL)
        if wanted:
            running = sum(len(lv.game.processes) for lv in self.live.values())
            if running + wanted > self.config.max_bots:
                raise RoomError("too_many_bots", f"this server runs at most {self.config.max_bots} external bots at once "
                                f"({running} running); a room of the built-in bots ({', '.join(BOTS)}) can be made",
                                "seats", 429)
        rules = self.rulesets.rules(name, profile, options)
        room_id = "".join(secrets.choice(ROOM_ID_CHARS) for _ in range(16))  # 95 bits
        tokens = [secrets.token_urlsafe(24) if k == PERSON else None for k in seats]
        owner = secrets.token_urlsafe(24)
        shown = [n if n is not None else (f"seat {i + 1}" if seats[i] == PERSON else f"{seats[i]} bot")
                 for i, n in enumerate(names)]
        config = {"rules": name, "sha256": rules.sha256, "profile": rules.profile, "options": dict(options), "seats": list(seats),
                  "names": shown, "hands": hands, "time_limit": float(limit),
                  "client": client}  # whose rooms it counts among when resumed (the caps outlive a restart)
        await self.db(self.store.add_room, room_id, config, token_hash(owner),
                      [token_hash(t) if t else None for t in tokens])
        row = await self.db(self.store.room, room_id)
        assert row is not None
        game = Game(self.store, row, rules, self.config.bot_command, self.config.game_hands, self.db)
        await game.start_hand()
        live = Live(game, client=client)
        self.live[room_id] = live
        self._set_deadline(live)
        live.task = asyncio.get_running_loop().create_task(self._drive(live))
        return {"room": room_id,
                "seats": [{"seat": i, "kind": seats[i], "name": shown[i], "token": tokens[i],
                           "link": f"/play/room/{room_id}#seat={tokens[i]}" if tokens[i] else None} for i in range(4)],
                "owner_token": owner, "spectator": f"/play/room/{room_id}#watch"}

    def live_rooms(self) -> list[Live]:
        """The rooms playing (by their status: between two hands, while the first's end is stored, a room has no
        question open and is playing all the same)."""
        return [lv for lv in self.live.values() if lv.game.status in ("playing", "stopping")]

    def summary(self, live: Live) -> dict[str, Any]:
        g = live.game
        return {"room": g.id, "rules": {"name": g.rules.name, "profile": g.rules.profile, "sha256": g.rules.sha256,
                                        "options": dict(g.rules.options)},
                "seats": self._seats(live), "hands": g.hands_wanted, "time_limit": g.config["time_limit"],
                "status": g.status, "hand": g.hand if g.status in ("playing", "stopping") else -1,
                "finished_hands": g.finished, "balances": list(g.balances)}

    def _seats_changed(self, live: Live, but: Conn | None = None) -> None:
        """Who is connected, to every socket but `but` (a seat's first socket came, or its last one left)."""
        msg = json.dumps({"type": "seats", "seats": self._seats(live)}, ensure_ascii=False)
        for c in live.conns:
            if c is not but:
                c.send(msg)

    def _seats(self, live: Live) -> list[dict[str, Any]]:
        g = live.game
        on = {c.seat for c in live.conns}
        return [{"seat": s, "kind": g.kinds[s], "name": g.names[s], "connected": s in on} for s in range(4)]

    async def stop_unplayed(self, room_id: str, body: Any) -> str | None:
        """A room that cannot be resumed here (its rules changed or gone, its answers no longer following its
        hand) stopped by its owner's token, unplayed: the hands it finished are kept, and no start tries it again.
        Its status after (a game over stays over), or None: not the owner's token."""
        row = await self.db(self.store.room, room_id)
        tok = body.get("token") if isinstance(body, dict) else None
        if row is None or not isinstance(tok, str) or not secrets.compare_digest(row.owner_hash, token_hash(tok)):
            return None
        if row.status not in ("playing", "stopping"):
            return row.status
        await self.db(self.store.set_status, room_id, "stopped")
        return "stopped"

    async def get(self, room_id: str) -> Live | None:
        """The room, live; one not in memory read from the store as a resumed room is (with its driver,
        which plays an open game on and drops a finished one from memory again)."""
        if not isinstance(room_id, str) or len(room_id) > 64:
            return None
        live = self.live.get(room_id)
        if live is not None:
            return live
        if room_id in self.aside:  # resumed by the retry alone, at its pace: each look from a page resumed it, and
            # its failing write held the event loop again (a review: 4 pages polling froze the server 20 s of 30)
            raise RoomError("store_unavailable", "this room is set aside while the server's database fails; it plays on "
                            "by itself once the database answers: try again in a while", None, 503)
        if room_id not in self._resuming:
            self._not_late()
        return await self._waited(self._resume_task(room_id))  # a request's look: 503 past STORE_WAIT

    def _evict(self, live: Live) -> None:
        """A game over with no socket left is dropped from memory (the store has it; `get` reads it again). Not one
        between two hands, its first's end being stored (no question open, still playing: a review found such a
        room dropped by its last socket leaving, its driver playing on unseen and a second one started by the
        next look), nor one whose answer is under way."""
        if live.game.ask is None and live.game.status in ("over", "stopped") and not live.conns \
                and not live.lock.locked() and self.live.get(live.game.id) is live:
            self.ended[live.game.id] = self.summary(live)  # it will not change: asked again, it is not read again
            while len(self.ended) > ENDED:
                self.ended.popitem(last=False)
            live.game.close()
            del self.live[live.game.id]

    async def stored_summary(self, room_id: str) -> dict[str, Any] | None:
        """The summary of a room over or stopped read from the store alone, without its rules (None: no such
        room, or one still playing): a game that ended is shown as it ended though its rule file was edited since
        (a review's finding: it answered 409 rules_unavailable, after its owner's stop too). Kept as ended."""
        row = await self.read(self.store.room, room_id)
        if row is None or row.status in ("playing", "stopping"):
            return None
        c = row.config
        finished, balances, options = 0, [0, 0, 0, 0], dict(c.get("options") or {})
        for h in await self.read(self.store.hands, room_id):
            if h.status == "done" and h.record is not None:
                finished += 1
                balances = [a + b for a, b in zip(balances, h.record["result"]["balances"])]
                options = dict(h.record["rules"]["options"])  # every option's value, as the record names them
        got = {"room": room_id, "rules": {"name": c["rules"], "profile": c["profile"], "sha256": c.get("sha256"),
                                          "options": options},
               "seats": [{"seat": s, "kind": c["seats"][s], "name": c["names"][s], "connected": False} for s in range(4)],
               "hands": c["hands"], "time_limit": c["time_limit"], "status": row.status, "hand": -1,
               "finished_hands": finished, "balances": balances}
        self.ended[room_id] = got
        while len(self.ended) > ENDED:
            self.ended.popitem(last=False)
        return got

    def ended_summary(self, room_id: str) -> dict[str, Any] | None:
        """The summary of a room over and out of memory, as it was when it left (reading its game again parses
        every hand's record: seconds for a room of bots that played thousands)."""
        got = self.ended.get(room_id)
        if got is not None:
            self.ended.move_to_end(room_id)
        return got

    # ------------------------------------------------------------ playing

    def _set_deadline(self, live: Live) -> None:
        ask = live.game.ask
        live.deadline = (time.time() + float(live.game.config["time_limit"])
                         if ask is not None and not live.game.is_bot(ask.seat) else None)

    async def _drive(self, live: Live) -> None:
        """Answer for the bots (after the pace) and for people out of time, until the game ends."""
        g = live.game
        pace = self.config.pace
        try:
            while True:
                ask = g.ask
                if ask is None:
                    async with live.lock:  # an answer under way ends first (between two hands, while the first's
                        ask = g.ask  # end is stored, no question is open: the game is not over for that)
                if ask is None:  # the game is over: nothing of it stays in memory but for its sockets
                    self._evict(live)
                    return
                if not live.conns and g.status == "playing" and time.time() - live.alone_since > self.config.idle_stop:
                    async with live.lock:  # nobody has watched it for a while (bots playing until stopped): it ends
                        await g.stop()  # after this hand
                        live.idle = True
                if g.is_bot(ask.seat) and pace == 0 and g.kinds[ask.seat] != EXTERNAL:
                    async with live.lock:  # bots at once: a run of their moves, stored and shown together
                        steps: list[Step] = []
                        while len(steps) < BOT_RUN and g.ask is not None and g.is_bot(g.ask.seat) \
                                and g.kinds[g.ask.seat] != EXTERNAL:
                            steps.append(await g.bot_answer(durable=False))
                        await g.flush()
                        for step in steps[:-1]:
                            self._told(live, step)
                        self._after(live, steps[-1])
                    await asyncio.sleep(0)
                    continue
                if g.is_bot(ask.seat):
                    if ask.kind in PUBLIC_ASKS:  # a claim or tianting question at once: a pause would tell of it
                        await asyncio.sleep(pace)
                    async with live.lock:
                        if g.ask is ask:
                            if g.kinds[ask.seat] == EXTERNAL:  # a process: waited for off the loop
                                step = await g.answer(await asyncio.to_thread(g.bot_pick), ask.seq)
                            else:
                                step = await g.bot_answer()
                            self._after(live, step)
                    continue
                live.changed.clear()
                now = time.time()
                left = (live.deadline or now) - now
                if not live.conns and g.status == "playing":  # the idle check is not put off until the deadline
                    left = min(left, max(live.alone_since + self.config.idle_stop - now, 0.0) + 0.01)
                elif not live.conns and live.idle:  # stopped with nobody there: its hand ends at once, by the defaults
                    left = 0.0  # (a review: an abandoned room held its place for a time limit per question)
                try:
                    await asyncio.wait_for(live.changed.wait(), max(left, 0.0))
                except TimeoutError:
                    due = live.deadline is None or time.time() >= live.deadline or (live.idle and not live.conns)
                    if due:  # (else the wait ended for the idle check, at the loop's top)
                        async with live.lock:
                            if g.ask is ask:
                                self._after(live, await g.answer(default_choice(ask), ask.seq))
        except asyncio.CancelledError:
            raise
        except SQLAlchemyError as e:  # the database unreachable: the room is not over (the store says where it is)
            print(f"tjmj tables: room {g.id} set aside, the database failing: {type(e).__name__}: {e}", file=sys.stderr,
                  flush=True)
            self._set_aside(live)
        except Exception as e:  # noqa: BLE001 - an external bot breaking its protocol, or a bug: the room stops,
            # the server goes on
            print(f"tjmj tables: room {g.id} stopped: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            await self._failed(live)

    def _set_aside(self, live: Live) -> None:
        """A room whose store failed (a database down) leaves memory as a killed server's would, without being
        marked: every answer it acted on is stored, so the next look at it (a socket, a GET, a restart) resumes it
        where the store has it. Its sockets are told, and closed with 1013 (try again later). A review found such
        rooms stopped in memory while the database, which the stop could not reach, still said playing."""
        g = live.game
        try:
            g.close()
        except Exception as e:  # noqa: BLE001 - its processes are ended as far as they can be
            print(f"tjmj tables: room {g.id}: closing it: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        if self.live.get(g.id) is live:
            del self.live[g.id]
        self.aside.add(g.id)
        self._aside_failures += 1
        if self._retry is None:
            self._retry = asyncio.get_running_loop().create_task(self._resume_aside())
        err = json.dumps({"type": "error", "error": _err("store_unavailable", "the server cannot reach its database: "
                                                         "this room is set aside, nothing it played is lost; "
                                                         "reconnect in a while", None)["error"]})
        for c in list(live.conns):
            c.send(err)
            c.end(1013)

    async def _failed(self, live: Live) -> None:
        """A room its driver cannot go on with ends, stopped, its open hand unplayed: stored so, its bots' processes
        ended, and its sockets told (the reason stays in the server's log: a bot's words may hold its tiles). It
        stayed `playing` with no one driving it, its sockets waiting for ever and its place counted in the caps."""
        g = live.game
        try:
            g.close()
        except Exception as e:  # noqa: BLE001 - its processes are ended as far as they can be
            print(f"tjmj tables: room {g.id}: closing it: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        g.status = "stopped"
        try:
            await self.db(g.store.set_status, g.id, "stopped")
        except SQLAlchemyError as e:  # the database failing too: stopped in memory, resumed from it
            print(f"tjmj tables: room {g.id}: its stop not stored: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        err = json.dumps({"type": "error", "error": _err("room_failed", "the server cannot go on with this room (its "
                                                         "log says why): it is stopped, its finished hands kept", None)["error"]})
        end = json.dumps(self._game_end(live))
        for c in live.conns:
            c.send(err)
            c.send(end)
        self._evict(live)

    def _after(self, live: Live, step: Step) -> None:
        """Tell every socket what the answer led to."""
        self._set_deadline(live)
        live.changed.set()
        self._told(live, step)
        self._broadcast(live)

    def _told(self, live: Live, step: Step) -> None:
        """A hand's end and the game's, to every socket."""
        g = live.game
        if step.record is not None:
            msg = json.dumps({"type": "hand_end", "hand": step.record["hand"], "record": step.record,
                              "balances": step.balances,
                              "download": f"/play/api/rooms/{g.id}/hands/{step.record['hand']}.json"}, ensure_ascii=False)
            for c in live.conns:
                c.send(msg)
        if step.over:
            msg = json.dumps(self._game_end(live))
            for c in live.conns:
                c.send(msg)

    @staticmethod
    def _game_end(live: Live) -> dict[str, Any]:
        g = live.game
        return {"type": "game_end", "status": g.status, "hands": g.finished, "balances": list(g.balances),
                "download": f"/play/api/rooms/{g.id}/records.jsonl"}

    def _broadcast(self, live: Live) -> None:
        """The state, to every socket whose viewer may know the open question (see Live.shown). Kept for
        every viewer that ever had a socket, so that one that comes back is shown nothing newer."""
        made: dict[int | None, str | None] = {}
        g = live.game
        if g.ask is None or g.ask.kind in PUBLIC_ASKS:
            live.public_mark = (g.hand, len(g.trail), live.deadline)
        for key in {c.seat for c in live.conns} | set(live.shown):
            if _hidden_from(g.ask, key):
                made[key] = None
            else:
                made[key] = live.shown[key] = json.dumps(self.state(live, key), ensure_ascii=False)
        for c in live.conns:
            text = made[c.seat]
            if text is not None:
                c.send(text)

    def shown_state(self, live: Live, seat: int | None) -> str:
        """The state a socket coming now is shown: while a question its viewer may not know of is open,
        the last state the viewer was shown, or (its first socket) the state of before that question, made
        again; else the state now."""
        if _hidden_from(live.game.ask, seat):
            text = live.shown.get(seat) or self.past_state(live, seat)
            if text is not None:
                live.shown[seat] = text
                return _answered(text)
            # no state of before: only a hand with no question every viewer may know of before it (none the engine asks)
        text = json.dumps(self.state(live, seat), ensure_ascii=False)
        if not _hidden_from(live.game.ask, seat):
            live.shown[seat] = text
        return text

    def past_state(self, live: Live, seat: int | None) -> str | None:
        """The state made when the open question was last one every viewer may know of (Live.public_mark; a
        room resumed from the store: its last such question), the hand dealt again and its answers replayed
        up to then: what a viewer connected all along was last shown. None if the hand had no such question."""
        g = live.game
        mark = live.public_mark
        if mark is None or mark[0] != g.hand:  # no state made this hand since the room was (re)loaded
            last = next((i for i in range(len(g.trail) - 1, -1, -1) if g.trail[i][3] in PUBLIC_ASKS), None)
            if last is None:
                return None
            mark = (g.hand, last, None if g.is_bot(g.trail[last][2]) else live.deadline)
        st = g.replayed(mark[1])
        try:
            ask = st.ask
            number = 0 if ask is None else 1 + sum(1 for _, _, s, _ in g.trail[:mark[1]] if s == ask.seat)
            return json.dumps(self._state(live, st, number, mark[2], seat), ensure_ascii=False)
        finally:
            st.close()

    def state(self, live: Live, seat: int | None) -> dict[str, Any]:
        """The `state` message for a seat (None: a spectator): only what that seat may see."""
        return self._state(live, live.game.stepper, live.game.number, live.deadline, seat)

    def _state(self, live: Live, st: Any, number: int, deadline: float | None, seat: int | None) -> dict[str, Any]:
        """The state of the hand `st` (the one being played, or one replayed), its open question
        numbered `number` among its seat's, a person's answer due at `deadline`."""
        g = live.game
        ask: Ask | None = st.ask if st is not None else None
        msg: dict[str, Any] = {"type": "state", "hand": g.hand, "status": g.status, "balances": list(g.balances),
                               "view": None, "concealed": None, "public": None, "waiting": None, "ask": None}
        if st is None:
            return msg
        if seat is not None:  # the seat's own view, and how many concealed tiles each seat holds
            msg["view"] = view_json(st.view(seat), g.hand)
            msg["concealed"] = [sum(c) for c in st.table.counts]
        else:
            msg["public"] = public_json(st.table, g.hand)
        if ask is not None:
            bot = g.is_bot(ask.seat)
            left = None if bot or deadline is None else round(max(deadline - time.time(), 0.0), 1)
            # a claim or a tianting question tells what the asked seat holds (a pair of the discard, a
            # ready hand): the others are not sent a state while one is open (_broadcast), and a socket
            # coming then is shown the state of before it (shown_state); only a hand with no question
            # every viewer may know of before it would give the masked wait below
            if not _hidden_from(ask, seat):
                msg["waiting"] = {"seat": ask.seat, "kind": ask.kind, "deadline": None if bot else deadline,
                                  "time_left": left}
            else:
                msg["waiting"] = {"seat": None, "kind": None, "deadline": None, "time_left": None}
            if ask.seat == seat and not bot:
                msg["ask"] = {"hand": g.hand, "seq": number, "kind": ask.kind, "menu": ask.menu,
                              "deadline": deadline, "time_left": left}
        return msg

    def waits(self, live: Live, seat: int) -> dict[str, Any]:
        """Learner mode: the seat's waits now, and per discard of an open `act` ask the waits it leaves."""
        g = live.game
        st = g.stepper
        out: dict[str, Any] = {"type": "waits", "hand": g.hand, "waits": [], "discards": []}
        if st is None or not st.table.dealt:
            return out
        # asked again of the same position (a page reloaded, a client that repeats itself): the answer
        # already worked out, so each seat costs the scorer one answer per move, however often it asks
        ask = g.ask
        position = (g.hand, len(st.table.events), ask.seq if ask is not None else None)
        got = live.waits.get(seat)
        if got is not None and got[0] == position:
            return got[1]
        v = view_json(st.view(seat), g.hand)
        scorer = g.rules.scorer
        melds = v["melds"][seat]
        base = {"indicator": v["indicator"], "melds": melds}

        def ask_waits(tiles: list[str]) -> list[Any]:
            got = scorer.waits({**base, "concealed": "".join(tiles)})
            return list(got.get("waits") or []) if isinstance(got, dict) and not got.get("error") else []

        tiles = list(v["tiles"])
        if (len(tiles) + 3 * len(melds)) % 3 == 1:
            out["waits"] = ask_waits(tiles)
        if ask is not None and ask.seat == seat and ask.kind == "act":
            seen: set[str] = set()
            for m in ask.menu:
                if m["type"] == "discard" and m["tile"] not in seen:
                    seen.add(m["tile"])
                    rest = list(tiles)
                    rest.remove(m["tile"])
                    out["discards"].append({"tile": m["tile"], "waits": ask_waits(rest)})
        live.waits[seat] = (position, out)
        return out

    async def on_answer(self, live: Live, seat: int, msg: dict[str, Any]) -> dict[str, Any] | None:
        """A person's answer: an error message, or None (stored, played and told to every socket)."""
        t0 = time.perf_counter()
        for k in ("hand", "seq", "choice"):
            if msg.get(k).__class__ is not int:
                return _err("malformed", f"{k} is an integer", k)
        async with live.lock:
            g = live.game
            ask = g.ask
            if g.status not in ("playing", "stopping") or ask is None:
                return _err("room_over", "the game is over", None)
            if ask.seat != seat or g.is_bot(seat):
                return _err("not_your_turn", "no question is open for this seat", None)
            if msg["hand"] != g.hand:
                return _err("stale", f"hand {msg['hand']} is not the hand being played (hand {g.hand})", "hand")
            if msg["seq"] != g.number:  # the seat's own count of its questions (Game.number)
                return _err("stale", f"question {msg['seq']} is not the open one (question {g.number})", "seq")
            if not 0 <= msg["choice"] < len(ask.menu):
                return _err("bad_choice", f"choice {msg['choice']} is not an index of the menu (0 to {len(ask.menu) - 1})",
                            "choice")
            played = len(g.trail)
            try:
                step = await g.answer(msg["choice"], ask.seq)
            except SQLAlchemyError as e:
                if len(g.trail) > played:  # stored and played, the hand's end not stored (a review: said "not taken",
                    # the room then stuck with no question): set aside as the driver does, resumed from the store
                    print(f"tjmj tables: room {g.id} set aside, the database failing: {type(e).__name__}: {e}",
                          file=sys.stderr, flush=True)
                    if live.task is not None:
                        live.task.cancel()
                    self._set_aside(live)
                    return None
                # not stored, so not played: the question stays open (a review: the socket died with a traceback in
                # the log at each try)
                print(f"tjmj tables: room {g.id}: an answer not stored: {type(e).__name__}: {e}", file=sys.stderr,
                      flush=True)
                return _err("store_unavailable", "the server cannot reach its database: your answer is not taken; "
                            "send it again in a while", None)
            self._after(live, step)
        self.timings.append(time.perf_counter() - t0)
        if len(self.timings) > 1_000_000:
            del self.timings[:500_000]
        return None

    # ------------------------------------------------------------ the socket

    async def socket(self, ws: WebSocket, room_id: str) -> None:
        if not origin_ok(ws.headers, self.config.origins, ws.url.scheme):
            await ws.close(code=1008)  # before accept: the handshake is refused (HTTP 403)
            return
        await self.start()
        try:
            live = await self.get(room_id)
        except RoomError as e:  # a room whose rules this server cannot give it now: said, and the socket closed
            await ws.accept()
            await ws.send_text(json.dumps({"type": "error", "error": e.json()["error"]}))
            await ws.close(code=1013 if e.code == "store_unavailable" else 4409)  # 1013: try again later
            return
        if live is None:
            await ws.accept()
            await ws.send_text(json.dumps({"type": "error", "error": _err("not_found", "no such room", None)["error"]}))
            await ws.close(code=4404)
            return
        await ws.accept()
        bucket = Bucket(self.config.rate, self.config.burst)
        refused = 0
        conn: Conn | None = None
        pending = Conn(ws, None)  # errors before the hello go out through it
        pending.writer = asyncio.get_running_loop().create_task(pending.write())
        try:
            while True:
                if conn is None:  # a socket that says nothing holds a connection: the hello has a deadline
                    try:
                        event = await asyncio.wait_for(ws.receive(), self.config.hello_timeout)
                    except TimeoutError:
                        pending.send({"type": "error", **_err("hello_late", f"no hello within {self.config.hello_timeout:g} s",
                                                              None)})
                        await asyncio.sleep(0.05)
                        await ws.close(code=1008)
                        return
                else:
                    event = await ws.receive()
                if event["type"] == "websocket.disconnect":
                    return
                raw = event.get("text")
                if raw is None:
                    data = event.get("bytes") or b""
                    size = len(data)
                    raw = None
                else:
                    size = len(raw.encode("utf-8")) if len(raw) * 4 > MAX_MESSAGE else len(raw)
                out = conn or pending
                err: dict[str, Any] | None = None
                msg: Any = None
                if not bucket.take():
                    err = _err("flood", f"more than {self.config.rate:g} messages a second", None)
                elif size > MAX_MESSAGE:
                    err = _err("too_large", f"a message is at most {MAX_MESSAGE} bytes", None)
                elif raw is None:
                    err = _err("malformed", "messages are JSON text", None)
                else:
                    try:
                        msg = loads(raw)
                    except ValueError as e:
                        err = _err("malformed", f"not JSON: {str(e)[:80]}", None)
                    else:
                        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
                            err = _err("malformed", "a message is a JSON object with a type", "type")
                        else:
                            err = _fields_wrong(msg)
                if err is None:
                    typ = msg["type"]
                    if conn is None:
                        if typ != "hello":
                            err = _err("hello_first", "the first message is a hello", "type")
                        else:
                            got = await self._hello(live, ws, msg, pending)
                            if isinstance(got, Conn):
                                conn = got
                                continue
                            err = got
                    elif typ == "hello":
                        err = _err("malformed", "hello is sent once", "type")
                    elif typ == "ping":
                        conn.send({"type": "pong"})
                        continue
                    elif typ == "answer":
                        if conn.seat is None:
                            err = _err("not_seated", "a spectator does not answer", None)
                        else:
                            err = await self.on_answer(live, conn.seat, msg)
                    elif typ == "waits":
                        if conn.seat is None:
                            err = _err("not_seated", "a spectator has no hand", None)
                        else:
                            async with live.lock:
                                conn.send(self.waits(live, conn.seat))
                    else:
                        err = _err("malformed", f"unknown type {typ[:40]!r}", "type")
                if err is not None:
                    out.send({"type": "error", **err})
                    refused += 1
                    if refused >= MAX_REFUSALS:
                        await asyncio.sleep(0.05)
                        await ws.close(code=1008)
                        return
        except WebSocketDisconnect:
            return
        finally:
            if conn is not None:
                live.conns.discard(conn)
                if not live.conns:
                    live.alone_since = time.time()
                if conn.seat is not None and not any(c.seat == conn.seat for c in live.conns):
                    self._seats_changed(live)  # the seat's last socket left: the others see it offline
                if conn.writer is not None:
                    conn.writer.cancel()
                self._evict(live)
            if pending.writer is not None:
                pending.writer.cancel()

    async def _hello(self, live: Live, ws: WebSocket, msg: dict[str, Any], pending: Conn) -> Conn | dict[str, Any]:
        g = live.game
        seat: int | None
        if "watch" in msg and msg["watch"] is not True:  # a spectator says watch: true; a seat says nothing of it
            return _err("malformed", f"watch is true (a spectator), not {json.dumps(msg['watch'])[:20]}", "watch")
        if msg.get("watch") is True and "token" not in msg:
            seat = None
            if sum(1 for c in live.conns if c.seat is None) >= SPECTATORS:
                return _err("too_many", f"a room takes at most {SPECTATORS} spectators", None)
        else:
            tok = msg.get("token")
            if not isinstance(tok, str) or not 0 < len(tok) <= 64:
                return _err("bad_token", "token is the seat link's token", "token")
            seat = g.seat_of(tok)
            if seat is None:
                return _err("bad_token", "no seat of this room has this token", "token")
            if sum(1 for c in live.conns if c.seat == seat) >= SEAT_SOCKETS:
                return _err("too_many", f"a seat takes at most {SEAT_SOCKETS} sockets", None)
        conn = Conn(ws, seat)
        conn.out = pending.out  # what was queued before the hello goes first
        if pending.writer is not None:
            pending.writer.cancel()
            pending.writer = None
        conn.writer = asyncio.get_running_loop().create_task(conn.write())
        async with live.lock:
            first = seat is not None and not any(c.seat == seat for c in live.conns)
            live.conns.add(conn)
            if first:
                self._seats_changed(live, conn)  # the others see the seat connected
            conn.send({"type": "welcome", "room": g.id, "seat": seat, "rules": self.summary(live)["rules"],
                       "names": rule_names(g.rules),
                       "seats": self._seats(live), "hands": g.hands_wanted, "time_limit": g.config["time_limit"]})
            conn.send(self.shown_state(live, seat))
            if g.status in ("over", "stopped"):  # a socket that came back after the end is told it again
                conn.send(self._game_end(live))
        return conn


# ---------------------------------------------------------------- HTTP


def mount(app: FastAPI, config: TablesConfig, on_start: Any = None) -> Tables:
    """Add the tables (the page, the room API, the socket) to an application; rooms resume at start,
    then `on_start(tables)` (a coroutine function) runs."""
    tables = Tables(config)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        async with inner(a) as state:
            await tables.start()
            if on_start is not None:
                await on_start(tables)
            try:
                yield state
            finally:
                await tables.stop()

    app.router.lifespan_context = lifespan
    app.state.tables = tables

    async def on_store_error(request: Request, exc: Exception) -> Response:
        # the database down while a request read it (a room's status, its records): said as a socket says it, 503
        # (a review found 500 internal_error with a traceback under serve, and plain text under play); the
        # driver's words stay in the log
        print(f"tjmj tables: {request.method} {request.url.path[:80]}: the database failed: {type(exc).__name__}",
              file=sys.stderr, flush=True)
        return _json(_err("store_unavailable", "the server cannot reach its database: try again in a while", None), 503,
                     {"Retry-After": "5"})
    app.add_exception_handler(SQLAlchemyError, on_store_error)
    page_headers = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                    "Cache-Control": "no-cache"}

    # the page's files, by name: a name asked for is looked up here, never made into a path (a NUL byte, a
    # `..`, a link or a name too long for the system is simply not one of them)
    files = {p.name: p for p in STATIC.iterdir() if p.is_file()} if STATIC.is_dir() else {}

    def page(name: str = "index.html") -> Response:
        path = files.get(name)
        if path is None:
            if name == "index.html":
                return Response("<!doctype html><meta charset=utf-8><title>tjmj</title>"
                                "<p>The table page is not installed (tjmj_dsl/tables/static/ is missing). "
                                "The room API is at /play/api/config.</p>", media_type="text/html", headers=page_headers)
            return _json(_err("not_found", "no such file", None), 404)
        return FileResponse(path, headers=page_headers)

    # the page and its files answer HEAD too (a link checker's, a cache's)
    @app.api_route("/play", methods=["GET", "HEAD"], include_in_schema=False)
    async def play_page() -> Response:
        return page()

    @app.api_route("/play/room/{room_id}", methods=["GET", "HEAD"], include_in_schema=False)
    async def room_page(room_id: str) -> Response:
        return page()

    @app.api_route("/play/static/{name:path}", methods=["GET", "HEAD"], include_in_schema=False)
    async def static(name: str) -> Response:
        return page(name)

    @app.api_route("/play/api/health", methods=["GET", "HEAD"], include_in_schema=False)
    async def api_health() -> Response:
        got = await tables.health()
        return _json(got, 200 if got["status"] == "ok" else 503)

    @app.get("/play/api/config", include_in_schema=False)
    async def api_config() -> Response:
        return _json({"rules": list(tables.rulesets.info.values()), "bots": tables.bots,
                      "limits": {"hands": MAX_HANDS, "until_stopped": config.game_hands, "time_limit": list(TIME_LIMITS),
                                 "default_time_limit": config.default_time_limit, "message_bytes": MAX_MESSAGE,
                                 "messages_per_second": config.rate},
                      "pace": config.pace})

    async def json_body(request: Request) -> Any:
        if not origin_ok(request.headers, config.origins, request.url.scheme):
            raise RoomError("forbidden_origin", "a request from another site's page is refused", None, 403)
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
            raise RoomError("too_large", f"a body is at most {MAX_BODY} bytes", None, 413)
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise RoomError("too_large", f"a body is at most {MAX_BODY} bytes", None, 413)
        try:
            return loads(raw)
        except ValueError as e:
            raise RoomError("invalid_json", f"the body is not JSON: {str(e)[:80]}", None) from None

    def refused(e: RoomError) -> Response:
        # a body refused unread (413) leaves the rest of it on the connection, which the server then closes:
        # `Connection: close` says so, or a keep-alive client sends its next request into a reset
        # (a 503 says when to try again, as a failing database's does)
        return _json(e.json(), e.status, {"Connection": "close"} if e.status == 413 else
                     {"Retry-After": "5"} if e.status == 503 else None)

    @app.post("/play/api/rooms", include_in_schema=False)
    async def create_room(request: Request) -> Response:
        try:
            body = await json_body(request)
            await tables.start()
            return _json(await tables.create(body, request.client.host if request.client else ""), 201)
        except RoomError as e:
            return refused(e)

    @app.get("/play/api/rooms/{room_id}", include_in_schema=False)
    async def room_info(room_id: str) -> Response:
        if room_id not in tables.live and (ended := tables.ended_summary(room_id)) is not None:
            return _json(ended)
        try:
            live = await tables.get(room_id)
        except RoomError as e:  # a room whose rules this server cannot give it now: shown if it ended
            try:
                stored = await tables.stored_summary(room_id) if e.code in ("rules_unavailable", "room_unplayable") \
                    else None
            except RoomError as again:  # the store not answering meanwhile
                return refused(again)
            return _json(stored) if stored is not None else refused(e)
        if live is None:
            return _json(_err("not_found", "no such room", None), 404)
        return _json(tables.summary(live))

    @app.post("/play/api/rooms/{room_id}/stop", include_in_schema=False)
    async def stop_room(room_id: str, request: Request) -> Response:
        body: Any = None
        try:
            body = await json_body(request)
            if not isinstance(body, dict) or not isinstance(body.get("token"), str):  # malformed: no token to refuse
                raise RoomError("invalid_request", 'a stop request is {"token": the owner token}', "token")
            live = await tables.get(room_id)
        except RoomError as e:
            status = await tables.stop_unplayed(room_id, body) if e.code in ("rules_unavailable", "room_unplayable") else None
            return _json({"room": room_id, "status": status}) if status is not None else refused(e)
        if live is None:
            return _json(_err("not_found", "no such room", None), 404)
        if not live.game.is_owner(body["token"]):
            return _json(_err("forbidden", "only the room's owner token stops it", "token"), 403)
        async with live.lock:
            was = live.game.status
            await live.game.stop()
            if live.game.status != was:  # the players see at once that this hand is the last (not at the next move)
                tables._broadcast(live)
        return _json({"room": room_id, "status": live.game.status})

    @app.get("/play/api/rooms/{room_id}/hands/{idx}.json", include_in_schema=False)
    async def hand_record(room_id: str, idx: str) -> Response:
        if not idx.isascii() or not idx.isdigit() or len(idx) > 6:
            return _json(_err("not_found", "no such hand", None), 404)
        try:
            rec = await tables.read(tables.store.record, room_id, int(idx)) if len(room_id) <= 64 else None
        except RoomError as e:
            return refused(e)
        if rec is None:
            return _json(_err("not_found", "no such finished hand", None), 404)
        return _json(rec, headers={"Content-Disposition": f'attachment; filename="tjmj-{room_id}-hand-{idx}.json"'})

    @app.get("/play/api/rooms/{room_id}/records.jsonl", include_in_schema=False)
    async def game_records(room_id: str) -> Response:
        try:
            if len(room_id) > 64 or await tables.read(tables.store.room, room_id) is None:
                return _json(_err("not_found", "no such room", None), 404)
        except RoomError as e:
            return refused(e)
        # streamed as stored, a batch of rows at a time, off the loop (a game of thousands of hands is tens of MB)
        return StreamingResponse(tables.store.record_lines(room_id), media_type="application/x-ndjson",
                                 headers={"Content-Disposition": f'attachment; filename="tjmj-{room_id}.jsonl"'})

    @app.websocket("/play/ws/{room_id}")
    async def ws(websocket: WebSocket, room_id: str) -> None:
        await tables.socket(websocket, room_id)

    return tables


def create_app(config: TablesConfig, on_start: Any = None) -> FastAPI:
    """An application of the tables alone (`tjmj play`)."""
    app = FastAPI(title="tjmj tables", docs_url=None, redoc_url=None, openapi_url=None, redirect_slashes=False)

    @app.exception_handler(StarletteHTTPException)
    async def on_http_error(request: Request, exc: StarletteHTTPException) -> Response:
        # an unknown path or method: the contract's error shape, as every other refusal (not {"detail": ...})
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "invalid_request")
        return _json(_err(code, f"{request.method} {request.url.path[:100]}: {exc.detail}", None), exc.status_code,
                     dict(exc.headers or {}))

    mount(app, config, on_start)
    return app


def mount_config(app: FastAPI, data: dict[str, Any]) -> Tables:
    """`tjmj serve --tables`: the tables from the serve configuration's JSON (each worker rebuilds it)."""
    d = dict(data)
    d["rules"] = tuple(d.get("rules") or (None,))
    d["origins"] = tuple(d.get("origins") or ())
    if d.get("bot_command") is not None:
        d["bot_command"] = tuple(d["bot_command"])
    return mount(app, TablesConfig(**d))


__all__ = ["TablesConfig", "Tables", "mount", "create_app", "origin_ok"]
