"""A hand played a step at a time (game/step.py): the same hand as play() for the same answers,
asks in the bot protocol's shape, refusals that leave the question open, and no thread left
behind by a hand given up or dropped."""

from __future__ import annotations

import gc
import json
import os
import random
import threading
import time
from typing import Any

import jsonschema
import pytest

from gamekit import rules as game_rules_of
from tjmj_dsl.game.players import ValuePlayer
from tjmj_dsl.game.session import play, seeded
from tjmj_dsl.game.step import Stepper
from tjmj_dsl.game.table import WIN, Table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "schemas", "bot-ask.schema.json"), encoding="utf-8") as _f:
    _ASK = json.load(_f)
ASK = jsonschema.Draft202012Validator(_ASK)  # a stepped ask is a bot's ask


class LastChoice:
    """Wins when it can, otherwise takes the menu's last item: what the test's caller answers too."""

    name = "last"

    def begin(self, view: Any, rng: Any) -> None:
        pass

    def zuozhuang(self, view: Any) -> bool:
        return True

    def lazhuang(self, view: Any, most: int) -> int:
        return most

    def declare_ready(self, view: Any) -> bool:
        return True

    def act(self, view: Any, menu: Any) -> Any:
        return WIN if WIN in menu else menu[-1]

    def claim(self, view: Any, menu: Any) -> Any:
        return menu[-1]


def last_choice(ask: Any) -> int:
    win = [i for i, a in enumerate(ask.menu) if isinstance(a, dict) and a["type"] == "win"]
    return win[0] if win else len(ask.menu) - 1


def step_through(st: Stepper, seats: set[int]) -> list[Any]:
    asks = []
    while st.ask is not None:
        a = st.ask
        assert a.seat in seats and a.view["seat"] == a.seat
        errors = list(ASK.iter_errors(a.json()))
        assert not errors, errors[0].message
        asks.append(a)
        st.answer(last_choice(a))
    return asks


@pytest.mark.parametrize("hand", range(6))
def test_a_stepped_hand_is_the_hand_play_gives(hand: int) -> None:
    rules = game_rules_of()
    want = play(rules, 21, hand, [LastChoice(), ValuePlayer(), LastChoice(), ValuePlayer()])
    st = Stepper(rules, [None, ValuePlayer(), None, ValuePlayer()], seed=21, hand=hand)
    asks = step_through(st, {0, 2})
    got = st.result
    assert got is not None and asks
    assert got.events == want.events and got.winner == want.winner
    assert got.settlement == want.settlement and sum(got.settlement["balances"]) == 0
    assert {a.kind for a in asks} >= {"act"}


def test_every_seat_stepped_on_a_table_of_ones_own() -> None:
    rules = game_rules_of()
    wall, dice, dealer = seeded("a table of my own", 0, 2)
    table = Table(rules, wall, dealer, dice)
    st = Stepper(rules, [None] * 4, table=table, rngs=[random.Random(s) for s in range(4)])
    asks = step_through(st, {0, 1, 2, 3})
    assert st.result is not None and st.ask is None
    assert {a.seat for a in asks} == {0, 1, 2, 3} and all(a.view["hand"] is None for a in asks)
    with pytest.raises(ValueError, match="the hand is over"):
        st.answer(0)


def test_a_choice_off_the_menu_leaves_the_question_open() -> None:
    st = Stepper(game_rules_of(), [None, ValuePlayer(), ValuePlayer(), ValuePlayer()], seed=4, hand=0)
    a = st.ask
    assert a is not None
    for bad in (len(a.menu), -1, True, 0.0, "0"):
        with pytest.raises(ValueError, match="not an index of the menu"):
            st.answer(bad)  # type: ignore[arg-type]
        assert st.ask is a
    st.answer(0)
    assert st.ask is not a
    st.close()


def _hand_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "tjmj hand")


def test_a_hand_given_up_or_dropped_leaves_no_thread() -> None:
    before = _hand_threads()
    st = Stepper(game_rules_of(), [None] * 4, seed=8, hand=1)
    assert _hand_threads() == before + 1
    st.answer(0)
    st.close()
    assert _hand_threads() == before and st.ask is None and st.result is None
    st = Stepper(game_rules_of(), [None] * 4, seed=8, hand=2)
    del st
    gc.collect()
    deadline = time.monotonic() + 5
    while _hand_threads() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _hand_threads() == before


def test_a_player_error_reaches_the_caller() -> None:
    class Broken(ValuePlayer):
        def act(self, view: Any, menu: Any) -> Any:
            raise RuntimeError("my player failed")

    with pytest.raises(RuntimeError, match="my player failed"):
        st = Stepper(game_rules_of(), [None, Broken(), Broken(), Broken()], seed=1, hand=0)
        while st.ask is not None:
            st.answer(last_choice(st.ask))
    with pytest.raises(ValueError, match="not both"):
        Stepper(game_rules_of(), [None] * 4)
    with pytest.raises(ValueError, match="4 players"):
        Stepper(game_rules_of(), [None] * 3, seed=1)


def test_an_answer_names_the_question_it_answers_and_answers_are_taken_one_at_a_time() -> None:
    st = Stepper(game_rules_of(), [None, ValuePlayer(), ValuePlayer(), ValuePlayer()], seed=6, hand=0)
    first = st.ask
    assert first is not None and first.seq == 1
    st.answer(0, seq=1)
    with pytest.raises(ValueError, match="question 1 is not the open one"):
        st.answer(0, seq=1)
    # two threads answer the question they both saw: one answer is taken, the other refused
    for _ in range(5):
        a = st.ask
        if a is None:
            break
        errors: list[Exception] = []

        def go(a: Any = a) -> None:
            try:
                st.answer(len(a.menu) - 1, seq=a.seq)
            except ValueError as e:
                errors.append(e)
        threads = [threading.Thread(target=go) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(errors) == 1 and "not the open one" in str(errors[0])
        assert st.ask is None or st.ask.seq == a.seq + 1
    st.close()
