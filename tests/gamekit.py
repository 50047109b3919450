"""Fixed walls for the game engine's tests: a wall built from the hands to deal,
the tiles to draw from the head and from the tail, and the indicator; and a
scripted test player that plays a plan, discards what it draws otherwise,
passes every claim and never wins unless told to."""

from __future__ import annotations

import random
from typing import Any

from tjmj_dsl import Scorer
from tjmj_dsl.game.rules import GameRules, game_rules
from tjmj_dsl.game.session import record, settle
from tjmj_dsl.game.table import DEAL_TO, PASS, WIN, Action, HandResult, SeatView, Table
from tjmj_dsl.game.wall import _order, _tail
from tjmj_dsl.tiles import NAMES, parse_tiles

_RULES: dict[Any, GameRules] = {}


def rules(profile: str | None = None, path: str | None = None, **options: Any) -> GameRules:
    key = (profile, path, tuple(sorted(options.items())))
    if key not in _RULES:
        _RULES[key] = game_rules(Scorer(path, profile, options or None))
    return _RULES[key]


def tiles(text: str) -> list[int]:
    return parse_tiles(text) if text else []


def build_wall(dealer: int, hands: dict[int, str], head: str = "", tail: str = "", indicator: str = "N",
               dice: tuple[tuple[int, int], tuple[int, int]] = ((1, 1), (1, 1)), deal_start: int = 1,
               take: bool = True, rest: str = "") -> list[int]:
    """The physical wall (136 tiles) that deals `hands` (by seat, in dealt order; the dealer's 14),
    gives `head` as the draws after the deal, `tail` as the kong replacements, and flips `indicator`.
    `rest` comes next from the head; the leftover tiles fill the other places, lowest kinds first."""
    order, where = _order(dealer, sum(dice[0]), deal_start)
    n = len(order)
    ind = n - sum(dice[1])
    seq: list[int | None] = [None] * 136
    slots = {s: [i for i, off in enumerate(DEAL_TO) if (dealer + off) % 4 == s] for s in range(4)}
    for s, text in hands.items():
        ts = tiles(text)
        assert len(ts) == len(slots[s]), f"seat {s} is dealt {len(slots[s])} tiles, not {len(ts)}"
        for i, t in zip(slots[s], ts):
            seq[i] = t
    live = [i for i in range(len(DEAL_TO), 2 * ind)]
    for i, t in zip(live, tiles(head) + tiles(rest)):
        seq[i] = t
    for i, t in zip(_tail(ind, take), tiles(tail)):
        assert seq[i] is None, f"the tail's tile {NAMES[t]} would take a place already given"
        seq[i] = t
    assert seq[2 * ind] is None, "the indicator's place is taken"
    seq[2 * ind] = tiles(indicator)[0]
    left = [k for k in range(34) for _ in range(4)]
    for t in seq:
        if t is not None:
            assert t in left, f"a fifth {NAMES[t]}"
            left.remove(t)
    # the filler goes to the free places: the live ones first
    free = [i for i in live if seq[i] is None] + [i for i in range(136) if seq[i] is None and i not in live]
    for i, t in zip(free, left):
        seq[i] = t
    wall = [0] * 136
    for i, t in enumerate(seq):
        assert t is not None
        wall[where[i]] = t
    return wall


class Bot:
    """Plays `plan` (actions as (type, tile name)) whenever the next one is in its menu; otherwise
    discards the tile it drew (or its highest tile), passes claims, and wins only if `win` is set."""

    name = "bot"

    def __init__(self, plan: list[tuple[str, str | None]] | None = None, zuo: bool = False, la: int = 0,
                 win: bool = False, ready: bool = False) -> None:
        self.plan = [(t, tiles(k)[0] if k else None) for t, k in (plan or [])]
        self.zuo, self.la, self.win, self.ready = zuo, la, win, ready
        self.menus: list[tuple[str, int | None, list[Action]]] = []  # (act|claim, drawn tile, menu)

    def begin(self, view: SeatView, rng: random.Random) -> None:
        self.view = view

    def zuozhuang(self, view: SeatView) -> bool:
        return self.zuo

    def lazhuang(self, view: SeatView, most: int) -> int:
        return self.la

    def declare_ready(self, view: SeatView) -> bool:
        return self.ready

    def act(self, view: SeatView, menu: list[Action]) -> Action:
        self.menus.append(("act", view.drawn, list(menu)))
        if self.plan and self.plan[0] in menu:
            return self.plan.pop(0)
        if self.win and WIN in menu:
            return WIN
        if view.drawn is not None and ("discard", view.drawn) in menu:
            return ("discard", view.drawn)
        return [a for a in menu if a[0] == "discard"][-1]

    def claim(self, view: SeatView, menu: list[Action]) -> Action:
        self.menus.append(("claim", None, list(menu)))
        if self.plan and self.plan[0] in menu:
            return self.plan.pop(0)
        return PASS


def play(gr: GameRules, wall: list[int], dealer: int, bots: list[Bot],
         dice: tuple[tuple[int, int], tuple[int, int]] = ((1, 1), (1, 1))) -> tuple[HandResult, dict[str, Any]]:
    """Play and settle the hand; (the result, its record)."""
    table = Table(gr, wall, dealer, dice)
    res = table.play(bots, [random.Random(0)] * 4)  # type: ignore[arg-type]
    settle(gr, res)
    return res, record(gr, "test", 0, res, ["bot"] * 4)


def payments(rec: dict[str, Any], reason: str | None = None) -> list[tuple[int, int, int]]:
    return [(p["from"], p["to"], p["amount"]) for p in rec["result"]["payments"] if reason in (None, p["reason"])]
