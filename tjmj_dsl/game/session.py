"""A hand from a game seed: hand i's wall, dice and dealer come from (seed, i)
alone (seeds.py), so any hand plays or replays by itself; the players' own
choices draw on generators of their own, so a change of player never moves
a tile of the wall."""

from __future__ import annotations

import gc
import json
from typing import Any

from ..notation import format_hand
from ..tiles import NAMES
from .record import FORMAT, event_json
from .rules import GameRules
from .facts import GameFacts
from .seeds import rng
from .table import EngineError, HandResult, Player, Table

TILESET = tuple(k for k in range(34) for _ in range(4))


def first_dealer(seed: int | str, first: int | None = None) -> int:
    """The seat that deals a game's first hand: `first` (the rules' play.first_dealer), or when None
    drawn at random from the seed alone (a table draws its first dealer by lot)."""
    return rng(seed, "first dealer").randrange(4) if first is None else first


def seeded(seed: int | str, hand: int, first: int | None = 0
           ) -> tuple[list[int], tuple[tuple[int, int], tuple[int, int]], int]:
    """The shuffled wall, the two rolls and the dealer of hand `hand` (seats take turns to deal from
    the first dealer, GameRules.first_dealer: (first_dealer(seed, first) + hand) % 4)."""
    r = rng(seed, hand, "wall")
    # a uniform shuffle: the 136 tiles ordered by one random number each
    keys = [r.random() for _ in range(len(TILESET))]
    wall = [TILESET[i] for i in sorted(range(len(TILESET)), key=keys.__getitem__)]
    dice = ((r.randint(1, 6), r.randint(1, 6)), (r.randint(1, 6), r.randint(1, 6)))
    return wall, dice, (first_dealer(seed, first) + hand) % 4


def deal_table(rules: GameRules, seed: int | str, hand: int, dealer: int | None = None,
               game: GameFacts | None = None) -> Table:
    """Hand `hand`'s table: its wall and dice from (seed, hand); its dealer too, unless given (a game
    whose deal passes by the rules' rotation: the previous hand's next dealer). `game`: the game before
    this hand, which the bets' expressions read (None: a game's first hand, or a hand played alone)."""
    wall, dice, turn = seeded(seed, hand, rules.first_dealer)
    return Table(rules, wall, turn if dealer is None else dealer, dice, game)


def play(rules: GameRules, seed: int | str, hand: int, players: list[Player], dealer: int | None = None,
         game: GameFacts | None = None) -> HandResult:
    """Play and settle one hand; the settlement's four balances always sum to 0."""
    table = deal_table(rules, seed, hand, dealer, game)
    res = table.play(players, [rng(seed, hand, "player", s) for s in range(4)])
    table.views.clear()  # each view refers back to its table: a cycle only a collection would free
    _played()
    return settle(rules, res)


_PLAYS = [0]
_FREEZE_AT = frozenset(10 ** k for k in range(7))


def _played() -> None:
    """Counts the hands this process played; at the 1st, 10th, 100th ... one, what is alive is moved
    out of the collector's reach (gc.freeze, after a collection): the scorer's and the shape's
    tables, dicts that grow to hundreds of thousands of entries while hands are played, were
    walked by every full collection (a tenth of a value hand's time went to collections). A hand
    leaves no cycle behind (the table's views are let go, the scorer's builders released), so what
    is frozen is what stays alive anyway."""
    _PLAYS[0] += 1
    if _PLAYS[0] in _FREEZE_AT and gc.isenabled():
        gc.collect()
        gc.freeze()


def next_facts(game: GameFacts, res: HandResult) -> GameFacts:
    """The game once the settled hand `res` is played."""
    st = res.settlement or {}
    return game.after(res.dealer, res.zuozhuang, res.lazhuang, res.winner, st.get("balances", [0, 0, 0, 0]))


def settle(rules: GameRules, res: HandResult) -> HandResult:
    outcome = res.outcome()
    st = rules.scorer.settle(outcome)
    if st.get("error"):
        err = st["error"]
        won = ""
        if res.winner is not None and res.request is not None and res.claim is not None:
            won = (f" (the winner's hand {format_hand(res.request)}, indicator {res.request['indicator']}: total "
                   f"{res.claim.total} by score table {rules.scorer.ruleset.score_table})")
        raise EngineError(f"the settlement refused the table's outcome {json.dumps(outcome, ensure_ascii=False)}{won}: "
                          f"{err.get('code')} ({err.get('message')}); `tjmj check` warns of settlements that refuse outcomes "
                          "the table makes")
    if sum(st["balances"]) != 0:
        raise EngineError(f"the balances {st['balances']} do not sum to 0")
    res.settlement = st
    # the record's `chan`: a payment of the contract's reason chan was made (the rule file says when)
    res.chan = any(p["reason"] == "chan" for p in st["payments"])
    return res


def record(rules: GameRules, seed: int | str | None, hand: int, res: HandResult, players: list[str],
           rotation: bool = False) -> dict[str, Any]:
    """The hand as a record (its JSON Schema: game/record.py, with the contract's in schemas/record.schema.json);
    `rotation`: its dealer is the previous hand's next dealer, not the seed's (dealt_by)."""
    st = res.settlement or {}
    score = None
    if res.winner is not None and res.request is not None:
        score = {"request": res.request, "result": rules.scorer.score(res.request)}
    events = [event_json(*e) for e in res.events]
    return {
        "format": FORMAT,
        "rules": {"name": rules.name, "sha256": rules.sha256, "profile": rules.profile,
                  "options": {k: v for k, v in rules.options}},
        "seed": seed, "hand": hand, "players": list(players),
        **({"dealt_by": "rotation"} if rotation else {}),
        # the game before this hand, which the bets were offered under: only under rules whose bets read it
        **({"game": res.game.json()} if rules.bets is not None else {}),
        "dealer": res.dealer, "zuozhuang": res.zuozhuang, "lazhuang": list(res.lazhuang),
        "dice": [list(res.dice[0]), list(res.dice[1])],
        "wall": [NAMES[k] for k in res.wall], "indicator": NAMES[res.indicator],
        "deal": [[NAMES[k] for k in h] for h in res.deal],
        "events": events,
        "result": {
            "winner": res.winner, "score": score,
            "kongs": st.get("kongs", []), "chan": res.chan, "xianggong": list(res.xianggong),
            "ready": list(res.ready),
            "payments": st.get("payments", []), "balances": st.get("balances", [0, 0, 0, 0]),
            "next_dealer": st.get("next_dealer"),
        },
    }
