"""A player in another process, written in any language: the bot protocol (tjmj-bot/1).

The table asks, the bot answers, over the bot's standard input and output:
each ask is one JSON object on one line, and the bot answers each with one
JSON object on one line, {"choice": i}, i the index of its pick in the ask's
menu. The asks are the Player interface's questions (zuozhuang, lazhuang,
declare_ready, act, claim); each carries everything the seat may see (its
SeatView as JSON), so a bot keeps no state it cannot rebuild, and the menu of
legal answers, so a bot never has to know the rules to stay legal. Whatever
the bot writes to standard error passes through. The protocol's JSON Schemas:
schemas/bot-ask.schema.json and schemas/bot-reply.schema.json.

Why asks with a whole view rather than an event stream (mjai's way): a bot
in any language is then a loop of "read a line, pick, write a line", and it
cannot fall out of step with the table; the view holds every discard in
order, so a bot that wants the history has it.

A bot is input like any other: an answer that is not one line of JSON (at
most MAX_REPLY bytes), names no index of the menu, comes later than the
timeout, or never comes because the bot exited, stops the game with a
BotError saying which seat, which ask and what was wrong; nothing is guessed
for a bot. So does a line that arrives while no ask is waiting for one (ahead
of its ask, or a second answer to one): it is never taken as the answer to a
later ask. A bot is started by its argument list (no shell) once per process
that plays and asked hand after hand; it should exit when its input ends.

Everything a bot starts ends with it, whether it exits, is killed or
lingers: on Linux it runs under a keeper (game/keeper.py, a child subreaper
that kills every descendant the bot leaves, one in a session of its own
too); elsewhere in a process group of its own, killed as a group.
"""

from __future__ import annotations

import atexit
import json
import os
import pathlib
import queue
import select
import shutil
import signal
import subprocess
import sys
import threading
from typing import IO, Any, BinaryIO

from ..engine.runtime import dumps_answer, loads_request
from ..tiles import NAMES
from .record import EVENT_TYPES, event_json
from .rules import REQUEST_MELD_TYPES
from .table import Action, SeatView

PROTOCOL = "tjmj-bot/1"
ASKS = ("zuozhuang", "lazhuang", "declare_ready", "act", "claim")
ACTION_TYPES = ("discard", "win", "concealed_kong", "added_kong", "pong", "kong", "pass")
MAX_REPLY = 65_536  # bytes of one answer line; an answer is about 15
UNREAD = 16  # asks waiting to be written (beyond the pipe's buffer), and answers read ahead, held at most
DEFAULT_TIMEOUT = 10.0  # seconds a bot may take over one answer
KEEPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keeper.py")


class _Early(bytes):
    """A line the reader read while no ask was waiting for it."""


def keeper_usable() -> bool:
    """A bot runs under the keeper (game/keeper.py) where Linux's child subreaper and /proc are."""
    return sys.platform.startswith("linux") and os.path.isdir("/proc/self") and bool(sys.executable)


class _Turn:
    """Whose line it is: asks written and answers taken, counted. A line read when every written
    ask has its answer is no answer (it came ahead of its ask, or is a second one)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.done = threading.Condition(self.lock)  # told when a write of an ask returns
        self.sent = 0  # asks counted to be sent (by ask())
        self.written = 0  # asks whose writing has begun (by the writer)
        self.writing = False  # an ask's write has begun and not returned: its bytes may not be in the pipe yet
        self.taken = 0  # lines taken as answers
        self.in_line = False  # the reader has begun a line and not ended it
        self.asks: IO[bytes] | None = None  # the bot's input: an ask still in it is unread

    def answer_due(self) -> bool:
        """Whether a line beginning now answers an ask (under the lock): an ask is sent and
        written, and the bot has read all of it (nothing left in its input's pipe). While the
        ask's write is under way an empty pipe says nothing (its bytes may not be there yet):
        the write is waited for (the bot reads, or is killed by the ask's timeout: it returns)."""
        if self.taken >= self.sent or self.taken >= self.written:
            return False
        while True:
            asks = self.asks
            try:
                if asks is None or asks.closed:
                    return True
                if _unread(asks.fileno()) > 0:
                    return False  # bytes of its ask the bot has not read
            except ValueError:  # closed meanwhile by the writer (the bot's input ended)
                return True
            if not self.writing:
                return True
            self.done.wait()

    def send(self, fd: int) -> bool:
        """Count an ask sent, unless the bot has written anything no ask waited for (a line begun,
        or bytes waiting in its output: written before this ask): False then."""
        with self.lock:
            if self.in_line or _unread(fd) > 0:
                return False
            self.sent += 1
            return True


def _unread(fd: int) -> int:
    """Bytes waiting in a pipe (FIONREAD; 0 where it cannot be asked)."""
    try:
        import fcntl
        import termios
        buf = bytearray(4)
        fcntl.ioctl(fd, termios.FIONREAD, buf)
        return int.from_bytes(buf, sys.byteorder)
    except (ImportError, OSError, AttributeError):
        return 0


class BotError(RuntimeError):
    """A bot broke the protocol (or could not be started): the message says which seat and ask."""


def action_json(a: Action) -> dict[str, Any]:
    """A menu action as the protocol shows it: {"type", "tile"} (tile null for win and pass), the
    record's event words plus pass."""
    return {"type": a[0], "tile": NAMES[a[1]] if a[1] is not None else None}


def view_json(view: SeatView, hand: int | None = None) -> dict[str, Any]:
    """What the seat may see, as JSON: its own tiles (with the one just drawn), every seat's melds
    (a request's meld objects; another seat's concealed kong without its tile) and discards in order,
    the indicator and hun kinds (null before the deal: the bets come before the flip), the bets,
    who is xiaoxianggong and who declared ready, and the hand's events so far as a record writes
    them (another seat's draws and concealed kongs without their tile)."""
    t = view._t  # noqa: SLF001 - the view's table, read here as the view reads it
    s = view.seat
    last = view.last_discard
    ind, huns = view.indicator, view.hun_kinds  # None before the deal (SeatView: the bets come before the flip)
    return {
        "hand": hand, "seat": s, "dealer": view.dealer,
        "indicator": NAMES[ind] if ind is not None else None,
        "hun_kinds": [NAMES[k] for k in huns] if huns is not None else None,
        "tiles": [NAMES[k] for k in view.hand()],
        "drawn": NAMES[view.drawn] if view.drawn is not None else None,
        "melds": [[{"type": REQUEST_MELD_TYPES[m[0]], "tile": NAMES[m[1]] if seat == s or m[0] != "concealed" else None}
                   for m in t.melds[seat]] for seat in range(4)],
        "discards": [[NAMES[k] for k in view.discards(seat)] for seat in range(4)],
        "last_discard": {"seat": last[0], "tile": NAMES[last[1]]} if last is not None else None,
        "live_left": view.live_left, "zuozhuang": view.zuozhuang, "lazhuang": list(view.lazhuang),
        "xianggong": [view.xianggong(seat) for seat in range(4)],
        "ready": [view.declared_ready(seat) for seat in range(4)],
        # as the record writes them, what this seat cannot see hidden
        "events": [event_json(seat, typ, tile, extra, hidden=seat != s and typ in ("draw", "concealed_kong"))
                   for seat, typ, tile, extra in t.events],
    }


class BotProcess:
    """One running bot: started at its first ask, asked one question at a time. Any breach of the
    protocol ends it (killed, with whatever it started) and raises BotError."""

    def __init__(self, command: list[str] | tuple[str, ...], label: str = "the bot", timeout: float = DEFAULT_TIMEOUT) -> None:
        if not command:
            raise BotError(f"{label}: no command")
        self.command = list(command)
        self.label = label
        self.timeout = timeout
        self.seq = 0
        self.hand: int | None = None  # the hand of its last ask
        self.pid = os.getpid()  # a forked worker never writes to its parent's bot
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._asks: queue.Queue[bytes | None] = queue.Queue()
        self._reader: threading.Thread | None = None
        self._turn = _Turn()
        self.kept = False  # started under the keeper
        self.extra: bytes | None = None  # a line the bot wrote beyond its answers, found as it was closed

    def _popen(self) -> subprocess.Popen[bytes]:
        """The bot started, under the keeper where it can be (which says whether the bot started)."""
        pipes: dict[str, Any] = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "bufsize": 0,
                                 "start_new_session": True}
        if not keeper_usable():
            self.kept = False
            return subprocess.Popen(self.command, **pipes)
        r, w = os.pipe()
        try:
            proc = subprocess.Popen([sys.executable, "-I", "-S", KEEPER, str(w), *self.command], pass_fds=(w,), **pipes)
        finally:
            os.close(w)
        try:
            said = b""
            while True:  # `ok`, or why the bot could not be started, then the end
                part = os.read(r, 4096)
                if not part:
                    break
                said += part
        finally:
            os.close(r)
        if said != b"ok":
            proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()
            raise OSError(0, said.decode("utf-8", "replace") or f"its keeper ended (status {proc.returncode})")
        self.kept = True
        return proc

    def _start(self) -> subprocess.Popen[bytes]:
        if shutil.which(self.command[0]) is None:  # said at once, as Popen says it
            why = "Permission denied" if os.path.exists(self.command[0]) and "/" in self.command[0] else "No such file or directory"
            raise BotError(f"{self.label}: cannot start {' '.join(self.command)!r}: {why}")
        try:  # a session of its own: a bot started through a wrapper (sh, npx) ends with all it started
            proc = self._popen()
        except OSError as e:
            raise BotError(f"{self.label}: cannot start {' '.join(self.command)!r}: {e.strerror or e}") from None
        assert proc.stdout is not None and proc.stdin is not None
        # both ways bounded: a bot that answers ahead, or does not read its asks, holds no more than these
        self._lines, self._asks = queue.Queue(maxsize=UNREAD), queue.Queue(maxsize=UNREAD)
        self._turn = _Turn()
        self._turn.asks = proc.stdin
        self._reader = threading.Thread(target=_read_lines, args=(proc.stdout, self._lines, self._turn), daemon=True)
        self._reader.start()
        # asks are written by a thread of their own: a bot that stops reading cannot hold the table
        # past the answer's timeout
        threading.Thread(target=_write_lines, args=(proc.stdin, self._asks, self._turn), daemon=True).start()
        self._proc = proc
        return proc

    def ask(self, ask: str, view: dict[str, Any], menu: list[Any], rules: dict[str, Any] | None = None) -> int:
        """Send one ask; the index the bot chose (BotError if it broke the protocol: the bot is ended)."""
        proc = self._proc or self._start()
        self.seq += 1
        hand = self.hand = view.get("hand")
        where = f"{self.label}, " + (f"hand {hand}, " if hand is not None else "") + f"ask {self.seq} ({ask})"
        msg = {"protocol": PROTOCOL, "ask": ask, "seq": self.seq, "rules": rules, "view": view, "menu": menu}
        try:
            assert proc.stdout is not None
            try:
                # not sent past a line the bot began unasked: that line, handed on as _Early, is refused below
                if self._turn.send(proc.stdout.fileno()):
                    self._asks.put_nowait((dumps_answer(msg) + "\n").encode("utf-8"))
            except queue.Full:
                raise BotError(f"{where}: the bot does not read its input ({UNREAD} asks waiting)") from None
            try:
                line = self._lines.get(timeout=self.timeout)
            except queue.Empty:
                raise BotError(f"{where}: no answer within {self.timeout:g} s") from None
            if line is None:  # its output closed: exiting, most likely (the status comes a moment after)
                try:
                    code = proc.wait(timeout=min(1.0, self.timeout))
                except subprocess.TimeoutExpired:  # it lives on, its output closed
                    code = None
                raise BotError(f"{where}: " + (f"the bot has exited (status {code}) without answering" if code is not None
                                               else "the bot closed its output without answering"))
            if isinstance(line, _Early):
                raise BotError(f"{where}: a line came while no ask was waiting for one (an answer ahead of its ask, "
                               f"or a second answer): {_short(line)}")
            if not line.endswith(b"\n"):
                if len(line) <= MAX_REPLY:  # its output ended inside the line: a line is a reply only once ended
                    try:
                        code = proc.wait(timeout=min(1.0, self.timeout))
                    except subprocess.TimeoutExpired:
                        code = None
                    raise BotError(f"{where}: the bot's output ended mid-line ({len(line):,} bytes, no line break)"
                                   + (f", status {code}" if code is not None else "") + f": {_short(line)}")
                raise BotError(f"{where}: an answer line longer than {MAX_REPLY:,} bytes")
            return _choice(where, line, len(menu), self.seq)
        except BotError:
            self.close(kill=True)
            raise

    def close(self, kill: bool = False) -> None:
        """End the bot: its input closed (a bot exits when its input ends), killed with whatever it
        started if it lingers (at once with `kill`: a bot that broke the protocol is not waited for)."""
        proc, self._proc = self._proc, None
        if proc is None or self.pid != os.getpid():
            return
        if kill:
            _kill(proc, self.kept)
        _drain(self._asks)
        self._asks.put(None)  # the writer closes the bot's input after what it has
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            _kill(proc, self.kept)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # a keeper that does not end (never seen): its group killed
                _kill(proc, False)
                proc.wait()
        _kill(proc, False)  # what is left of its group (a bot that exited, leaving a child behind)
        reader = self._reader
        for _ in range(100):  # a reader waiting to hand over an answer reads on to the bot's end
            ended = reader is None or not reader.is_alive()  # before the drain: then it drains all it put
            for line in _drain(self._lines):
                if line is not None and self.extra is None and not kill:
                    self.extra = bytes(line)  # every ask had its answer: a line more is none
            if ended or reader is None:
                break
            reader.join(0.02)

    def finish(self) -> None:
        """Close the bot after its last ask; BotError if it wrote a line more than it was asked for
        (a line ahead of an ask, or a second answer, that no later ask came to refuse)."""
        self.close()
        extra, self.extra = self.extra, None
        if extra is not None:
            last = f"hand {self.hand}, " if self.hand is not None else ""
            raise BotError(f"{self.label}, after its last ask ({last}ask {self.seq}): a line came while no ask was waiting "
                           f"for one (an answer ahead of its ask, or a second answer): {_short(extra)}")


def _kill(proc: subprocess.Popen[bytes], kept: bool) -> None:
    """Kill the bot and what it started: its keeper told to (it kills every descendant, even one in
    a session of its own), else the bot's session (process group), or the bot alone where that is
    not possible."""
    if kept:
        try:
            proc.send_signal(signal.SIGTERM)
        except OSError:
            pass
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, AttributeError):
        try:
            proc.kill()
        except OSError:
            pass


def _choice(where: str, line: bytes, n: int, seq: int | None = None) -> int:
    """The index an answer line names (BotError if it is no answer to an ask of n choices)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BotError(f"{where}: the answer is not UTF-8 (byte {e.start + 1})") from None
    reply, err = loads_request(text)  # the contract's reader: nesting bounded before parsing, positioned errors
    if err is not None:
        if "position" not in err:
            raise BotError(f"{where}: the answer is nested too deeply ({err['message']})")
        raise BotError(f"{where}: the answer is not JSON at column {err['position'] + 1}: {err['message']}: {_short(line)}")
    if not isinstance(reply, dict) or "choice" not in reply:
        raise BotError(f'{where}: expected {{"choice": i}}, got {_short(line)}')
    if "seq" in reply and seq is not None and (reply["seq"].__class__ is not int or reply["seq"] != seq):
        raise BotError(f"{where}: the answer names ask {_json_short(reply['seq'])}")  # a bot may name the ask it answers
    i = reply["choice"]
    if i.__class__ is not int or not 0 <= i < n:
        raise BotError(f"{where}: choice {_json_short(i)} is not an index of the menu (0 to {n - 1})")
    return i  # type: ignore[no-any-return]


def _json_short(x: Any) -> str:
    shown = json.dumps(x)
    return shown if len(shown) <= 40 else shown[:39] + "…"


def _write_lines(stream: BinaryIO, asks: queue.Queue[bytes | None], turn: _Turn) -> None:
    """Write each ask to the bot; None (or a bot gone) ends it, closing the bot's input (an ask is
    counted sent by ask(), before it is handed here, and written as its writing begins: from then
    on the pipe's unread bytes say whether the bot has read it)."""
    try:
        while True:
            data = asks.get()
            if data is None:
                break
            with turn.lock:
                turn.written += 1
                turn.writing = True
            try:
                stream.write(data)
                stream.flush()
            finally:
                with turn.lock:
                    turn.writing = False
                    turn.done.notify_all()
    except (OSError, ValueError):  # the bot has exited: the answer's wait says so
        pass
    finally:
        try:
            stream.close()
        except OSError:
            pass


def _drain(q: queue.Queue[Any]) -> list[Any]:
    got = []
    while True:
        try:
            got.append(q.get_nowait())
        except queue.Empty:
            return got


def _read_lines(stream: BinaryIO, out: queue.Queue[bytes | None], turn: _Turn) -> None:
    """The bot's answers, line by line (each at most MAX_REPLY bytes; a longer one arrives cut,
    without its line break), then None when the bot's output ends. Each line is told answer or
    not as its first byte is there to read, before it is read: one that starts while every ask
    sent has its answer, or before the bot has read all of its ask, is handed on as _Early (and
    nothing after it is read), and the ask
    refuses it, never takes it as its answer. `turn.in_line` says a line has begun and not ended
    (_Turn.send: ask() sends no ask past one)."""
    fd = stream.fileno()
    poller = select.poll() if hasattr(select, "poll") else None
    if poller is not None:
        poller.register(fd, select.POLLIN)
    buf = b""
    try:
        while True:
            if not buf and poller is not None:
                poller.poll()  # a byte to read (or the end), not read yet: ask() sees it pending
            with turn.lock:
                early = not turn.answer_due()
                if not early:
                    turn.taken += 1
                turn.in_line = True
            while b"\n" not in buf and len(buf) <= MAX_REPLY:
                part = os.read(fd, 65_536)
                if not part:
                    break
                buf += part
            if not buf:
                break  # the end
            cut = buf.find(b"\n", 0, MAX_REPLY + 1)
            line, buf = (buf[:cut + 1], buf[cut + 1:]) if cut >= 0 else (buf[:MAX_REPLY + 1], b"")
            with turn.lock:
                turn.in_line = bool(buf)  # what is left has begun the next line
            if early:
                out.put(_Early(line))
                break
            out.put(line)
            if cut < 0:  # cut (or the output ended mid-line): the answer is refused, nothing after it read
                break
    except (OSError, ValueError):
        pass
    out.put(None)


def _short(x: bytes | str, n: int = 80) -> str:
    text = x.decode("utf-8", "replace") if isinstance(x, bytes) else x
    text = text.strip(" \t\r\n")  # JSON's spaces only: a form feed or U+2028 that made the line refused is shown
    return repr(text if len(text) <= n else text[:n - 1] + "…")


def rules_json(view: SeatView) -> dict[str, Any]:
    """The rules in force, as an ask (and a record) names them."""
    r = view.rules
    return {"name": r.name, "profile": r.profile, "sha256": r.sha256, "options": dict(r.options)}


class Asking:
    """A Player that puts each question as an ask (kind, view, menu in the protocol's JSON) to
    `_ask` and plays the menu item at the index it gets back: the bot's player, and step.py's."""

    name = "asking"

    def _ask(self, kind: str, view: SeatView, menu: list[Any]) -> int:
        raise NotImplementedError

    def begin(self, view: SeatView, rng: Any) -> None:
        pass  # each ask carries the whole view: a new hand shows in its number

    def zuozhuang(self, view: SeatView) -> bool:
        return (False, True)[self._ask("zuozhuang", view, [False, True])]

    def lazhuang(self, view: SeatView, most: int) -> int:
        return self._ask("lazhuang", view, list(range(most + 1)))

    def declare_ready(self, view: SeatView) -> bool:
        return (False, True)[self._ask("declare_ready", view, [False, True])]

    def act(self, view: SeatView, menu: list[Action]) -> Action:
        return menu[self._ask("act", view, [action_json(a) for a in menu])]

    def claim(self, view: SeatView, menu: list[Action]) -> Action:
        return menu[self._ask("claim", view, [action_json(a) for a in menu])]


class ProcessPlayer(Asking):
    """A Player whose answers come from a BotProcess (see the module's docstring)."""

    name = "bot"

    def __init__(self, process: BotProcess, hand: int | None = None) -> None:
        self.process = process
        self.hand = hand

    def _ask(self, kind: str, view: SeatView, menu: list[Any]) -> int:
        return self.process.ask(kind, view_json(view, self.hand), menu, rules_json(view))


_RUNNING: dict[tuple[Any, ...], BotProcess] = {}


def running(seat: int, command: tuple[str, ...], timeout: float = DEFAULT_TIMEOUT) -> BotProcess:
    """This process's bot for a seat (started at its first ask, kept for the hands after)."""
    key = (seat, command, timeout)
    got = _RUNNING.get(key)
    if got is None or got.pid != os.getpid():
        got = _RUNNING[key] = BotProcess(command, f"seat {seat}'s bot", timeout)
    return got


def kill_all() -> None:
    """Kill every bot this process started, with what each started, at once (a worker being ended),
    and wait a moment for them to be gone: a bot that outlived its pipes would meet them closed
    (a Python bot prints a BrokenPipeError's traceback)."""
    import time
    ended = []
    for b in list(_RUNNING.values()):
        proc = b._proc  # noqa: SLF001
        if proc is not None and b.pid == os.getpid():
            _kill(proc, b.kept)
            ended.append(proc)
    deadline = time.monotonic() + 3.0  # a keeper kills its bot's tree on a busy machine too (1 s was short once)
    for proc in ended:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass


def finish_all() -> None:
    """End every bot this process started, after their last asks: BotError for the first that
    wrote a line more than it was asked for (every bot is closed all the same)."""
    failed: BotError | None = None
    for b in list(_RUNNING.values()):
        try:
            b.finish()
        except BotError as e:
            failed = failed or e
    _RUNNING.clear()  # the next chunk's bots are new processes, their asks counted from 1
    if failed is not None:
        raise failed


@atexit.register
def close_all() -> None:
    """End every bot this process started."""
    for b in list(_RUNNING.values()):
        b.close()
    _RUNNING.clear()


def ask_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of one ask."""
    tile = {"type": "string", "pattern": "^([1-9][mps]|[ESWNCFP])$"}
    seat = {"type": "integer", "minimum": 0, "maximum": 3}
    four = {"type": "array", "minItems": 4, "maxItems": 4}
    meld = {"type": "object", "additionalProperties": False, "required": ["type", "tile"],
            "properties": {"type": {"enum": sorted(set(REQUEST_MELD_TYPES.values()))},
                           "tile": {"oneOf": [tile, {"type": "null"}],
                                    "description": "null for another seat's concealed kong"}}}
    action = {"type": "object", "additionalProperties": False, "required": ["type", "tile"],
              "properties": {"type": {"enum": list(ACTION_TYPES)}, "tile": {"oneOf": [tile, {"type": "null"}]}}}
    event = {"type": "object", "additionalProperties": False, "required": ["seat", "type", "tile"],
             "properties": {"seat": seat, "type": {"enum": list(EVENT_TYPES)}, "tile": {"oneOf": [tile, {"type": "null"}]},
                            "replacement": {"const": True}, "from": seat}}
    view = {
        "type": "object", "additionalProperties": False,
        "required": ["hand", "seat", "dealer", "indicator", "hun_kinds", "tiles", "drawn", "melds", "discards",
                     "last_discard", "live_left", "zuozhuang", "lazhuang", "xianggong", "ready", "events"],
        "properties": {
            "hand": {"type": ["integer", "null"], "description": "the hand's number in the game (a record's hand)"},
            "seat": seat, "dealer": seat,
            "indicator": {"oneOf": [tile, {"type": "null"}], "description": "null before the deal (the bets come before the flip)"},
            "hun_kinds": {"oneOf": [{"type": "array", "items": tile}, {"type": "null"}], "description": "null before the deal"},
            "tiles": {"type": "array", "items": tile, "description": "this seat's concealed tiles, sorted, the one just drawn among them"},
            "drawn": {"oneOf": [tile, {"type": "null"}], "description": "the tile this seat just drew (null after a pong)"},
            "melds": {**four, "items": {"type": "array", "items": meld}, "description": "each seat's declared melds, as a score request names them"},
            "discards": {**four, "items": {"type": "array", "items": tile}, "description": "each seat's discards in order (a claimed one taken away)"},
            "last_discard": {"oneOf": [{"type": "object", "additionalProperties": False, "required": ["seat", "tile"],
                                        "properties": {"seat": seat, "tile": tile}}, {"type": "null"}]},
            "live_left": {"type": ["integer", "null"], "minimum": 0,
                          "description": "tiles left to draw before the hand is drawn (huangzhuang); null before the deal"},
            "zuozhuang": {"type": "boolean"}, "lazhuang": {**four, "items": {"type": "integer", "minimum": 0}},
            "xianggong": {**four, "items": {"type": "boolean"}, "description": "who may no longer win (discarded a hun)"},
            "ready": {**four, "items": {"type": "boolean"}, "description": "who declared ready (tianting)"},
            "events": {"type": "array", "items": event,
                       "description": "the hand's events so far, as a record writes them; another seat's draws and "
                                      "concealed kongs with tile null"},
        },
    }
    menus = [("act", action), ("claim", action), ("zuozhuang", {"type": "boolean"}), ("declare_ready", {"type": "boolean"}),
             ("lazhuang", {"type": "integer", "minimum": 0})]
    return {
        "type": "object", "additionalProperties": False, "required": ["protocol", "ask", "seq", "rules", "view", "menu"],
        "properties": {
            "protocol": {"const": PROTOCOL}, "ask": {"enum": list(ASKS)},
            "seq": {"type": "integer", "minimum": 1, "description": "this bot's asks counted from 1"},
            "rules": {"oneOf": [{"type": "object", "additionalProperties": False,
                                 "required": ["name", "profile", "sha256", "options"],
                                 "properties": {"name": {"type": "string"}, "profile": {"type": "string"},
                                                "sha256": {"type": "string"}, "options": {"type": "object"}}},
                                {"type": "null"}],
                      "description": "the rules the table plays by (a score request for them names this profile and these options)"},
            "view": view, "menu": {"type": "array", "minItems": 1, "description": "the legal answers; the bot names one by its index"},
        },
        "allOf": [{"if": {"properties": {"ask": {"const": a}}}, "then": {"properties": {"menu": {"items": item}}}}
                  for a, item in menus],
    }


def reply_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of one answer."""
    return {"type": "object", "required": ["choice"],
            "properties": {"choice": {"type": "integer", "minimum": 0,
                                      "description": "the index of the pick in the ask's menu, written as an integer (1.0 is refused)"},
                           "seq": {"type": "integer", "description": "the ask answered (optional; when given, it must be the ask's seq)"}}}


# the schemas' examples (schemas/bot-*.schema.json): asks the bot of docs/use/bots.md met at seat 1 in
# `tjmj simulate --hands 1 --seed 1` (its act 4, its first claim, its lazhuang; tests/test_bot_ask_doc.py
# plays them again), kept as data beside this file (an ask names every option of the rules), and answers
_EXAMPLES = pathlib.Path(__file__).with_name("bot_examples.json")
EXAMPLE_ASKS: list[Any] = json.loads(_EXAMPLES.read_text(encoding="utf-8"))
EXAMPLE_REPLIES: list[Any] = [{"choice": 3}, {"choice": 0, "seq": 5}, {"choice": 0}]
