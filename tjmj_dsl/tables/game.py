"""One room's game: hands stepped ask by ask, every answer stored before it is played.

A Game holds the hand being played (a Stepper with all four seats stepped, on
a greenlet: stepper.py)
and answers its questions: a person's answer comes from the socket layer,
a bot seat's from the bot Player, asked with the seat's own SeatView while
the table waits. Whoever answers, the answer is committed to the store
first, then given to the table; so a Game rebuilt from the store (`load`)
is the one that was running: the hand re-dealt from its seed and dealer and
fed the stored answers (the bots asked again on the way, so their own
state is where it was). Each hand's seed is drawn from the operating
system (`secrets`), never derived from another; it is published in the
hand's record once the hand is over, and never before.

This module knows no rule: menus, views and results come from the engine.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from ..game.bot import BotProcess, ProcessPlayer
from ..game.facts import GameFacts
from ..game.players import make_player
from ..game.rules import GameRules
from ..game.seeds import rng
from ..game.session import record as make_record
from ..game.step import Ask, Stepper
from ..game.table import PASS, WIN, Action
from ..tiles import NAMES
from .stepper import GreenStepper, stepper
from .store import HandRow, RoomRow, Store

_KIND = {n: i for i, n in enumerate(NAMES)}
BOTS = ("random", "value")
PERSON = "person"
EXTERNAL = "external"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()  # any str: never an error


def new_seed() -> str:
    """A hand's seed: 128 bits from the operating system's randomness."""
    return secrets.token_hex(16)


def _action(m: dict[str, Any]) -> Action:
    if m["type"] == "win":
        return WIN
    if m["type"] == "pass":
        return PASS
    return (m["type"], _KIND[m["tile"]] if m["tile"] is not None else None)


def default_choice(ask: Ask) -> int:
    """The documented answer for a person out of time: pass a claim; discard the tile just drawn (the
    last discard of the menu after a pong), but never a hun while another tile may go (a hun stands for
    any tile: a player away from the table keeps it); no bet (zuozhuang false, lazhuang 0); no tianting."""
    if ask.kind == "claim":
        return ask.menu.index({"type": "pass", "tile": None})
    if ask.kind == "act":
        huns = set(ask.view.get("hun_kinds") or ())
        discards = [i for i, m in enumerate(ask.menu) if m["type"] == "discard"]
        keep = [i for i in discards if ask.menu[i]["tile"] not in huns] or discards
        drawn = ask.view.get("drawn")
        for i in keep:
            if ask.menu[i]["tile"] == drawn:
                return i
        return keep[-1]
    return ask.menu.index(0 if ask.kind == "lazhuang" else False)  # no bet, no declaration: by value, not by place


def bot_choice(player: Any, ask: Ask, stepper: Stepper | GreenStepper) -> int:
    """A bot Player's pick for an open question, by its index in the ask's menu."""
    view = stepper.view(ask.seat)
    k = ask.kind
    if k == "zuozhuang":
        return ask.menu.index(bool(player.zuozhuang(view)))
    if k == "declare_ready":
        return ask.menu.index(bool(player.declare_ready(view)))
    if k == "lazhuang":
        return ask.menu.index(int(player.lazhuang(view, len(ask.menu) - 1)))
    menu = [_action(m) for m in ask.menu]
    a = player.act(view, menu) if k == "act" else player.claim(view, menu)
    return menu.index(a)


DB = Callable[..., Awaitable[Any]]  # how a Game calls its store: `await db(store.method, *args)`


async def inline(fn: Callable[..., Any], *args: Any) -> Any:
    """A store called on the caller's own thread (the server gives its Game an OffLoop instead)."""
    return fn(*args)


@dataclass
class Step:
    """What one answer led to: the hand's record if it ended, the game's status if that changed."""

    record: dict[str, Any] | None = None
    over: bool = False
    balances: list[int] | None = None  # the game's totals after the hand


class Game:
    """A room's game, live. Not thread-safe: the socket layer holds the room's lock around it. Its store is
    called through `db` (the server's: off the event loop, tables/offloop.py), and every write is awaited
    before the game's state changes: a look at the game while a write is under way sees it as it was."""

    def __init__(self, store: Store, room: RoomRow, rules: GameRules, bot_command: tuple[str, ...] | None = None,
                 most: int = 0, db: DB = inline) -> None:
        self.store = store
        self.db = db
        self.id = room.id
        self.config = room.config
        self.rules = rules
        self.seat_hashes = room.seat_hashes
        self.owner_hash = room.owner_hash
        self.status = room.status
        self.kinds: list[str] = list(room.config["seats"])
        self.names: list[str] = list(room.config["names"])
        self.hands_wanted: int = int(room.config["hands"])
        self.most = most  # a game "until stopped" ends after this many hands all the same (0: never)
        self.bot_command = bot_command
        self.bots: list[Any] = [None] * 4
        self.hand = -1
        self.seed = ""
        self.dealer: int | None = None
        self.stepper: Stepper | GreenStepper | None = None
        self.balances = [0, 0, 0, 0]
        self.finished = 0
        self.next_dealer: int | None = None
        self.game = GameFacts()  # the game before the hand being played: the bets' expressions read it
        self.processes: dict[int, BotProcess] = {}
        self.pending: list[tuple[int, int, int, int]] = []  # bot answers played, to be stored with the next
        # the open question's number among those put to its seat this hand (`number`): what a client is told,
        # not the hand's count of questions (`Ask.seq`, which counts the questions put to the other seats too:
        # a claim question says its seat holds a pair of the discard)
        self.asked = [0, 0, 0, 0]
        self.number = 0
        self._numbered = 0  # the seq of the question last numbered
        # this hand's answers played, (seq, choice, seat, kind of question): `replayed` plays them again
        self.trail: list[tuple[int, int, int, str]] = []

    # ------------------------------------------------------------ seats

    def seat_of(self, token: str) -> int | None:
        h = token_hash(token)
        for s, got in enumerate(self.seat_hashes):
            if got is not None and secrets.compare_digest(got, h):
                return s
        return None

    def is_owner(self, token: str) -> bool:
        return secrets.compare_digest(self.owner_hash, token_hash(token))

    def is_bot(self, seat: int) -> bool:
        return self.kinds[seat] != PERSON

    def _make_bots(self) -> None:
        for s, kind in enumerate(self.kinds):
            if kind == PERSON:
                self.bots[s] = None
            elif kind == EXTERNAL:  # a process of this room's own, kept for its hands
                assert self.bot_command is not None
                proc = self.processes.get(s)
                if proc is None:
                    proc = self.processes[s] = BotProcess(self.bot_command, f"room {self.id}, seat {s}'s bot")
                self.bots[s] = ProcessPlayer(proc, self.hand)
            else:
                self.bots[s] = make_player(kind)

    # ------------------------------------------------------------ hands

    @property
    def ask(self) -> Ask | None:
        return self.stepper.ask if self.stepper is not None else None

    def _number(self) -> None:
        """Number the open question among its seat's (called whenever the stepper may have moved on)."""
        ask = self.ask
        if ask is not None and ask.seq != self._numbered:
            self._numbered = ask.seq
            self.asked[ask.seat] += 1
            self.number = self.asked[ask.seat]

    def _deal(self, idx: int, seed: str, dealer: int | None) -> None:
        self.hand, self.seed, self.dealer = idx, seed, dealer
        self.stepper = stepper(self.rules, seed, idx, dealer, self.game)
        self.asked, self.number, self._numbered = [0, 0, 0, 0], 0, 0
        self.trail = []
        self._number()
        self._make_bots()
        for s, b in enumerate(self.bots):
            if b is not None:
                b.begin(self.stepper.view(s), rng(seed, idx, "player", s))

    async def start_hand(self) -> None:
        """Deal the next hand (its seed fresh from the OS), stored before its first question is answered."""
        idx = self.finished
        dealer = self.next_dealer if idx > 0 else None
        self._deal(idx, await self._stored_hand(idx, dealer), dealer)

    async def _stored_hand(self, idx: int, dealer: int | None) -> str:
        """Hand idx stored with a seed fresh from the OS, before anything of it is dealt: its seed."""
        seed = new_seed()
        await self.db(self.store.add_hand, self.id, idx, seed, dealer)
        return seed

    async def answer(self, choice: int, seq: int, durable: bool = True) -> Step:
        """Store the answer to the open question, then play it (ValueError, nothing stored, if it is not
        an answer to it). `durable` False (a bot's answer, which a bot asked again gives again): kept
        to be stored with the next (`flush`), before anything the table did since is shown to anyone."""
        st = self.stepper
        if st is None:
            raise ValueError("no question is open")
        ask = st.check(choice, seq)
        row = (self.hand, seq, ask.seat, choice)
        self.pending.append(row)
        if durable:
            try:
                await self.flush()
            except BaseException:  # a failure, or the caller cancelled (a server stopping) while it was stored
                # not stored, so not played: the question stays open, and this answer is not kept to be stored
                # again beside the next try of it (a review's finding: after a database outage every later
                # answer to the question met its own earlier row, a duplicate key, and the room was stuck)
                if self.pending and self.pending[-1] is row:
                    self.pending.pop()
                raise
        st.answer(choice, seq)
        self.trail.append((seq, choice, ask.seat, ask.kind))
        self._number()
        return await self._after()

    def replayed(self, answers: int) -> Stepper | GreenStepper:
        """The hand being played as it was after its first `answers` answers: dealt again from its seed
        and fed them (no bot is asked). For a state of the past; the caller closes it."""
        assert self.stepper is not None and 0 <= answers <= len(self.trail)
        st = stepper(self.rules, self.seed, self.hand, self.dealer, self.game)
        for seq, choice, _, _ in self.trail[:answers]:
            st.answer(choice, seq)
        return st

    def bot_pick(self) -> int:
        """The bot seat's pick for the open question (an external bot's may come from another thread:
        the table waits; the answer itself is given on the table's own thread, `answer`)."""
        ask = self.ask
        assert ask is not None and self.stepper is not None and self.is_bot(ask.seat)
        return bot_choice(self.bots[ask.seat], ask, self.stepper)

    async def bot_answer(self, durable: bool = True) -> Step:
        """The bot seat's pick for the open question, stored and played."""
        ask = self.ask
        assert ask is not None and self.stepper is not None and self.is_bot(ask.seat)
        return await self.answer(bot_choice(self.bots[ask.seat], ask, self.stepper), ask.seq,
                           durable or self.kinds[ask.seat] == EXTERNAL)

    async def flush(self) -> None:
        """Store the answers kept (in one transaction)."""
        if self.pending:
            rows = list(self.pending)
            await self.db(self.store.add_answers, self.id, rows)
            del self.pending[:len(rows)]

    async def _after(self) -> Step:
        """The hand's end, if the answer ended it: its record stored, then the next hand's seed and dealer,
        then the game moved on in one go (nothing changes while a write is awaited)."""
        st = self.stepper
        assert st is not None
        if st.ask is not None:
            return Step()
        res = st.result
        assert res is not None and res.settlement is not None
        rec = make_record(self.rules, self.seed, self.hand, res, self.player_names(), rotation=self.hand > 0)
        finished = self.finished + 1
        status = self.status
        if status == "playing" and await self.db(self.store.status, self.id) == "stopped":
            status = "stopping"  # the operator's stop (--stop-room) of a room this server plays: ends here
        wanted = self.hands_wanted or self.most
        over = status == "stopping" or (wanted > 0 and finished >= wanted)
        if over:
            status = "stopped" if status == "stopping" else "over"
        await self.flush()
        await self.db(self.store.finish_hand, self.id, self.hand, rec, status if over else None)
        next_dealer = res.settlement.get("next_dealer")
        seed = "" if over else await self._stored_hand(finished, next_dealer)
        self.finished, self.status, self.next_dealer = finished, status, next_dealer
        self.balances = [a + b for a, b in zip(self.balances, res.settlement["balances"])]
        self.game = self.game.after_record(rec)
        self.stepper = None
        if not over:
            self._deal(finished, seed, next_dealer)
        else:
            self.close()
        return Step(rec, over, list(self.balances))

    async def stop(self) -> None:
        """End the game after the hand being played."""
        if self.status == "playing":
            await self.db(self.store.set_status, self.id, "stopping")
            self.status = "stopping"

    def player_names(self) -> list[str]:
        return [f"{self.kinds[s]}:{self.names[s]}" if self.kinds[s] == PERSON else self.kinds[s] for s in range(4)]

    def close(self) -> None:
        if self.stepper is not None:
            self.stepper.close()
            self.stepper = None
        for proc in self.processes.values():
            proc.close()
        self.processes.clear()

    # ------------------------------------------------------------ from the store

    @classmethod
    async def load(cls, store: Store, room: RoomRow, rules: GameRules, bot_command: tuple[str, ...] | None = None,
                   most: int = 0, db: DB = inline) -> "Game":
        """The room's game as it was: finished hands summed, the open hand replayed from its answers."""
        g = cls(store, room, rules, bot_command, most, db)
        rows: list[HandRow] = await db(store.hands, room.id)
        open_row: HandRow | None = None
        for h in rows:
            if h.status == "done" and h.record is not None:
                g.finished += 1
                g.balances = [a + b for a, b in zip(g.balances, h.record["result"]["balances"])]
                g.next_dealer = h.record["result"]["next_dealer"]
                g.game = g.game.after_record(h.record)
            else:
                open_row = h
        if g.status not in ("playing", "stopping"):
            return g
        if open_row is None:
            await g.start_hand()
            return g
        g._deal(open_row.idx, open_row.seed, open_row.dealer)
        for seq, seat, choice in await db(store.answers, room.id, open_row.idx):
            ask = g.ask
            if ask is None or ask.seq != seq or ask.seat != seat:
                raise RuntimeError(f"room {room.id} hand {open_row.idx}: stored answer {seq} does not follow the hand")
            if g.is_bot(seat) and g.kinds[seat] != EXTERNAL:
                bot_choice(g.bots[seat], ask, g.stepper)  # type: ignore[arg-type]  # the bot's own state moves on
            assert g.stepper is not None
            g.stepper.answer(choice, seq)
            g.trail.append((seq, choice, seat, ask.kind))
            g._number()
        if g.ask is None:  # killed between the last answer and the record: finish it now
            await g._after()
        return g
