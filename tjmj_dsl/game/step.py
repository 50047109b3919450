"""One hand played a step at a time: the table asks, the caller answers when it likes.

A game server whose players act whenever they act (people at a web page, a
bot across a network) cannot sit inside a player callback waiting. A Stepper
plays the hand and stops at each question for a seat left without a player:
`ask` is that question, the bot protocol's ask (game/bot.py,
schemas/bot-ask.schema.json: the seat's whole view and the menu of legal
answers), and `answer(i)` gives the pick by its index and goes on to the
next question. Seats with a Player (a ValuePlayer, a ProcessPlayer…) play by
themselves in between. When the hand ends, `ask` is None and `result` is
the settled HandResult.

The table runs in a thread of its own that waits while a question is open:
only one of the two threads runs at a time, so the hand is the one `play()`
would give for the same answers. Answers are taken one at a time (a lock);
a caller that passes the `seq` of the question it showed cannot answer the
next one by mistake.
"""

from __future__ import annotations

import queue
import random
import threading
import weakref
from dataclasses import dataclass
from typing import Any

from .bot import PROTOCOL, Asking, rules_json, view_json
from .facts import GameFacts
from .rules import GameRules
from .seeds import rng
from .session import deal_table, settle
from .table import HandResult, Player, SeatView, Table


@dataclass(frozen=True)
class Ask:
    """A question to a seat: `kind` (act, claim, zuozhuang, lazhuang, declare_ready), its number in
    the hand (`seq`, from 1), the rules in force, the seat's view and the menu of legal answers."""

    seat: int
    kind: str
    seq: int
    rules: dict[str, Any]
    view: dict[str, Any]
    menu: list[Any]

    def json(self) -> dict[str, Any]:
        """The ask as the bot protocol writes it (schemas/bot-ask.schema.json)."""
        return {"protocol": PROTOCOL, "ask": self.kind, "seq": self.seq, "rules": self.rules, "view": self.view,
                "menu": self.menu}

    @classmethod
    def new(cls, kind: str, view: SeatView, menu: list[Any], counter: list[int], hand: int | None) -> "Ask":
        """The next question of a hand (`counter` holds the last seq): how every stepped seat's relay asks."""
        counter[0] += 1
        return cls(view.seat, kind, counter[0], rules_json(view), view_json(view, hand), menu)


class Stepped:
    """What a stepped hand (this module's Stepper, tables/stepper.py's GreenStepper) shares: the open
    question `ask`, the `table`, each seat's `view`, and the check of an answer before it is played."""

    table: Table
    ask: Ask | None

    def view(self, seat: int) -> SeatView:
        """What `seat` sees now. Read it only while a question is open (the table waits then), or once
        the hand is over: a server builds each seat's screen, and asks its own bots, from it."""
        if not 0 <= seat < 4:
            raise ValueError(f"seat {seat!r} is not 0 to 3")
        return SeatView(self.table, seat)

    def check(self, choice: int, seq: int | None = None) -> Ask:
        """The open question, if `choice` answers it (and `seq`, given, is its number); else ValueError."""
        ask = self.ask
        if ask is None:
            raise ValueError("the hand is over: there is no question to answer")
        if seq is not None and seq != ask.seq:
            raise ValueError(f"question {seq!r} is not the open one (question {ask.seq})")
        n = len(ask.menu)
        if choice.__class__ is not int or not 0 <= choice < n:
            raise ValueError(f"choice {choice!r} is not an index of the menu (0 to {n - 1})")
        return ask


class _Abandoned(BaseException):
    """Ends the table's thread when the hand is given up (not an Exception: no player catches it)."""


_ABANDON = object()


class _Relay(Asking):
    """The player of a stepped seat: each question goes out to the Stepper, the answer comes back."""

    name = "stepped"

    def __init__(self, out: queue.Queue[Any], inp: queue.Queue[Any], hand: int | None, counter: list[int]) -> None:
        self.out, self.inp, self.hand, self.counter = out, inp, hand, counter

    def _ask(self, kind: str, view: SeatView, menu: list[Any]) -> int:
        self.out.put(Ask.new(kind, view, menu, self.counter, self.hand))
        got = self.inp.get()
        if got is _ABANDON:
            raise _Abandoned
        return int(got)


class _Done:
    def __init__(self, result: HandResult | None, error: BaseException | None) -> None:
        self.result, self.error = result, error


class Stepper(Stepped):
    """One hand, stepped: `players[s]` None for each seat whose questions come out of `ask`.

    Stepper(rules, players, seed=S, hand=i) plays hand i of game seed S (as `tjmj simulate --seed S`
    deals it; `dealer` overrides the seed's, as a rotation does; `game`: the game before it, which the
    bets' expressions read); Stepper(rules, players, table=T)
    plays a table of your own. The seats' own randomness comes from (seed, hand) as in play(), or
    from `rngs`."""

    def __init__(self, rules: GameRules, players: list[Player | None], seed: int | str | None = None,
                 hand: int = 0, dealer: int | None = None, table: Table | None = None,
                 rngs: list[random.Random] | None = None, game: GameFacts | None = None) -> None:
        if len(players) != 4:
            raise ValueError(f"a table seats 4 players (None for a stepped seat), not {len(players)}")
        if (table is None) == (seed is None):
            raise ValueError("give a seed (the hand is dealt from it) or a table of your own, not both")
        if table is None:
            assert seed is not None
            table = deal_table(rules, seed, hand, dealer, game)
        if rngs is None:
            rngs = [rng(seed if seed is not None else "table", hand, "player", s) for s in range(4)]
        self._out: queue.Queue[Any] = queue.Queue()
        self._inp: queue.Queue[Any] = queue.Queue()
        counter = [0]
        seated: list[Any] = [p if p is not None else _Relay(self._out, self._inp, hand if seed is not None else None, counter)
                             for p in players]
        self.rules = rules
        self.table = table
        self.result: HandResult | None = None
        self.ask: Ask | None = None
        self._over = False
        self._lock = threading.Lock()
        out = self._out

        def run() -> None:
            try:
                out.put(_Done(settle(rules, table.play(seated, rngs)), None))
            except _Abandoned:
                out.put(_Done(None, None))
            except BaseException as e:  # noqa: BLE001 - raised again in the caller's thread
                out.put(_Done(None, e))

        self._thread = threading.Thread(target=run, name="tjmj hand", daemon=True)
        self._finalizer = weakref.finalize(self, self._inp.put, _ABANDON)  # a Stepper dropped ends its thread
        self._thread.start()
        self._next()

    def _next(self) -> Ask | None:
        got = self._out.get()
        if isinstance(got, _Done):
            self._over = True
            self.ask = None
            self._thread.join()
            self._finalizer.detach()
            if got.error is not None:
                raise got.error
            self.result = got.result
            return None
        assert isinstance(got, Ask)
        self.ask = got
        return got

    def answer(self, choice: int, seq: int | None = None) -> Ask | None:
        """Answer the open question with the index of the pick in its menu; the next question (None:
        the hand is over, `result` holds it). With `seq`, the question answered must be that one (a
        server answering what it showed a player). A choice off the menu, or another question's seq,
        raises ValueError and leaves the question open."""
        with self._lock:
            self.check(choice, seq)
            self._inp.put(choice)
            return self._next()

    def close(self) -> None:
        """Give the hand up (its thread ends); a finished hand is left as it is."""
        with self._lock:
            if not self._over:
                self._over = True
                self.ask = None
                self._finalizer()
                self._thread.join()
