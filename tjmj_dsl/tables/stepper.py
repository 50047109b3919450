"""game/step.py's Stepper on a greenlet instead of a thread: the same questions,
the same answers, the same hand, without the operating system in between.

A Stepper's table runs in a thread that waits while a question is open, so
every answer is two thread handoffs; on a busy machine each waits for the
scheduler (measured: p99 22.6 ms of a server's 25.7 ms per answer, under a
run queue of 13 on 2 cores; docs/performance.md). A greenlet is switched to
and from in the caller's own thread: the table's code runs exactly as in
the Stepper (the same Table.play, the same relay player, the same `seq`),
only the hand-over differs. Used when `greenlet` is installed (the play
extra), the Stepper otherwise; `stepper()` chooses.
"""

from __future__ import annotations

from typing import Any

from ..game.bot import Asking
from ..game.facts import GameFacts
from ..game.rules import GameRules
from ..game.seeds import rng
from ..game.session import deal_table, settle
from ..game.step import Ask, Stepped, Stepper
from ..game.table import HandResult, SeatView

try:
    import greenlet
except ImportError:  # pragma: no cover - the play extra installs it
    greenlet = None  # type: ignore[assignment]


class _Relay(Asking):
    """Each question goes out to the caller's greenlet; the answer comes back as the switch's value."""

    name = "stepped"

    def __init__(self, hand: int, counter: list[int]) -> None:
        self.hand, self.counter = hand, counter

    def _ask(self, kind: str, view: SeatView, menu: list[Any]) -> int:
        me = greenlet.getcurrent()
        assert me.parent is not None
        return int(me.parent.switch(Ask.new(kind, view, menu, self.counter, self.hand)))


class GreenStepper(Stepped):
    """One hand of game seed `seed` (hand `hand`, dealt by `dealer` or the seed's), all four seats
    stepped: `ask`, `answer(choice, seq)`, `view(seat)`, `table`, `result`, `close()` as Stepper's
    (the view and the answer's check are Stepper's own: game/step.py's Stepped)."""

    def __init__(self, rules: GameRules, seed: int | str, hand: int, dealer: int | None = None,
                 game: GameFacts | None = None) -> None:
        table = deal_table(rules, seed, hand, dealer, game)
        self.rules = rules
        self.table = table
        self.result: HandResult | None = None
        self.ask: Ask | None = None
        relay = _Relay(hand, [0])
        rngs = [rng(seed, hand, "player", s) for s in range(4)]

        def run() -> HandResult:
            return settle(rules, table.play([relay] * 4, rngs))

        self._g = greenlet.greenlet(run)
        self._took(self._g.switch())

    def _took(self, got: Any) -> None:
        if isinstance(got, Ask):
            self.ask = got
        else:
            self.ask = None
            self.result = got

    def answer(self, choice: int, seq: int | None = None) -> Ask | None:
        self.check(choice, seq)
        self._took(self._g.switch(choice))
        return self.ask

    def close(self) -> None:
        if not self._g.dead:
            self._g.throw(greenlet.GreenletExit)
        self.ask = None


def stepper(rules: GameRules, seed: str, hand: int, dealer: int | None,
            game: GameFacts | None = None) -> GreenStepper | Stepper:
    """The stepped hand (`game`: the game before it): on a greenlet when greenlet is installed, else
    game/step.py's thread."""
    if greenlet is not None:
        return GreenStepper(rules, seed, hand, dealer, game)
    return Stepper(rules, [None] * 4, seed=seed, hand=hand, dealer=dealer, game=game)
