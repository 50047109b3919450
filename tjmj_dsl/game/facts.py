"""The game so far: what the hands of one game played before this one left
behind, as the bets' expressions read it (expr/bets.py) — hands played,
running balances, each seat's pulls (lazhuang), sittings (zuozhuang) and
deals, and the hand before this one whole (dealer, sitting, pulls, winner,
balances).

Of fixed size, whatever the game's length: a record carries the facts its
bets were offered under (its `game` field), so a record of one hand in a
game replays alone, and the record after it is checked to carry these facts
moved on by its hand (`after`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ZEROS = (0, 0, 0, 0)


@dataclass(frozen=True)
class LastHand:
    """The hand before this one."""

    dealer: int
    zuozhuang: bool
    lazhuang: tuple[int, ...]
    winner: int | None
    balances: tuple[int, ...]


@dataclass(frozen=True)
class GameFacts:
    """The game before a hand (GameFacts(): a game's first hand, or a hand played alone)."""

    hands: int = 0
    balances: tuple[int, ...] = ZEROS
    lazhuang: tuple[int, ...] = ZEROS  # pulls made by each seat, summed over the game
    zuozhuang: tuple[int, ...] = ZEROS  # hands each seat dealt and sat
    dealt: tuple[int, ...] = ZEROS  # hands each seat dealt
    last: LastHand | None = None

    def after(self, dealer: int, zuozhuang: bool, lazhuang: list[int] | tuple[int, ...], winner: int | None,
              balances: list[int] | tuple[int, ...]) -> "GameFacts":
        """The facts once one more hand is played (its dealer, bets, winner and balances)."""
        lz, bal = tuple(int(n) for n in lazhuang), tuple(int(b) for b in balances)
        return GameFacts(
            hands=self.hands + 1,
            balances=tuple(a + b for a, b in zip(self.balances, bal)),
            lazhuang=tuple(a + b for a, b in zip(self.lazhuang, lz)),
            zuozhuang=tuple(n + (1 if zuozhuang and s == dealer else 0) for s, n in enumerate(self.zuozhuang)),
            dealt=tuple(n + (1 if s == dealer else 0) for s, n in enumerate(self.dealt)),
            last=LastHand(dealer, bool(zuozhuang), lz, winner, bal))

    def after_record(self, rec: dict[str, Any]) -> "GameFacts":
        """The facts once the hand of record `rec` is played."""
        r = rec["result"]
        return self.after(rec["dealer"], rec["zuozhuang"], rec["lazhuang"], r["winner"], r["balances"])

    def json(self) -> dict[str, Any]:
        last = self.last
        return {"hands": self.hands, "balances": list(self.balances), "lazhuang": list(self.lazhuang),
                "zuozhuang": list(self.zuozhuang), "dealt": list(self.dealt),
                "last": None if last is None else {
                    "dealer": last.dealer, "zuozhuang": last.zuozhuang, "lazhuang": list(last.lazhuang),
                    "winner": last.winner, "balances": list(last.balances)}}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "GameFacts":
        """The facts a record carries (its shape checked by the record's schema); ValueError, naming the
        field, where they cannot be a game's (a first hand with a hand before it, more sittings than deals…)."""
        bad = problems(d)
        if bad:
            raise ValueError(bad[0][1])
        last = d["last"]
        return cls(hands=d["hands"], balances=tuple(d["balances"]), lazhuang=tuple(d["lazhuang"]),
                   zuozhuang=tuple(d["zuozhuang"]), dealt=tuple(d["dealt"]),
                   last=None if last is None else LastHand(last["dealer"], last["zuozhuang"], tuple(last["lazhuang"]),
                                                           last["winner"], tuple(last["balances"])))


def problems(d: dict[str, Any]) -> list[tuple[tuple[str, ...], str]]:
    """Where facts of the right shape cannot be a game's: (the field's path under `game`, why), first
    found first. Read by a record's replay and by a rule file's bets examples alike."""
    out: list[tuple[tuple[str, ...], str]] = []
    last = d["last"]
    if (last is None) != (d["hands"] == 0):
        out.append((("last",) if last is not None else ("hands",),
                    "game.last: the hand before this one is given exactly when game.hands is not 0"))
    if sum(d["dealt"]) != d["hands"]:
        out.append((("dealt",), f"game.dealt: {sum(d['dealt'])} deals in a game of {d['hands']} hands"))
    for s in range(4):
        if d["zuozhuang"][s] > d["dealt"][s]:
            out.append((("zuozhuang",), f"game.zuozhuang[{s}]: seat {s} sat in more hands than it dealt"))
            break
    if sum(d["balances"]) != 0:
        out.append((("balances",), "game.balances: a game's balances sum to 0"))
    if last is not None:
        if sum(last["balances"]) != 0:
            out.append((("last", "balances"), "game.last.balances: a hand's balances sum to 0"))
        if last["lazhuang"][last["dealer"]]:
            out.append((("last", "lazhuang"), "game.last.lazhuang: the dealer does not pull"))
        if d["dealt"][last["dealer"]] == 0:
            out.append((("last", "dealer"), f"game.last.dealer: seat {last['dealer']} dealt the hand before, "
                                            "and game.dealt counts no deal of it"))
        elif last["zuozhuang"] and d["zuozhuang"][last["dealer"]] == 0:
            out.append((("last", "zuozhuang"), f"game.last.zuozhuang: seat {last['dealer']} sat in the hand before, "
                                               "and game.zuozhuang counts no sitting of it"))
        for s in range(4):
            if last["lazhuang"][s] > d["lazhuang"][s]:
                out.append((("last", "lazhuang"), f"game.last.lazhuang[{s}]: more pulls in the hand before than "
                                                  "game.lazhuang counts over the game"))
                break
    return out


def example_facts(d: dict[str, Any]) -> dict[str, Any]:
    """The whole facts of a rule file's example (its shape checked by the rule file's schema), each field
    it leaves out as in a game's first hand: no hands, zero balances and counts, no hand before; of the
    hand before (`last`), the dealer is said, the rest as a drawn hand of no bets and zero balances."""
    last = d.get("last")
    return {"hands": d.get("hands", 0), "balances": list(d.get("balances", ZEROS)),
            "lazhuang": list(d.get("lazhuang", ZEROS)), "zuozhuang": list(d.get("zuozhuang", ZEROS)),
            "dealt": list(d.get("dealt", ZEROS)),
            "last": None if last is None else {
                "dealer": last["dealer"], "zuozhuang": last.get("zuozhuang", False),
                "lazhuang": list(last.get("lazhuang", ZEROS)), "winner": last.get("winner"),
                "balances": list(last.get("balances", ZEROS))}}


def _four(items: dict[str, Any], desc: str) -> dict[str, Any]:
    return {"type": "array", "minItems": 4, "maxItems": 4, "items": items, "description": desc}


_COUNT = {"type": "integer", "minimum": 0, "maximum": 1_000_000_000}
_BALANCE = {"type": "integer", "minimum": -(2 ** 53 - 1), "maximum": 2 ** 53 - 1}
_SEAT = {"type": "integer", "minimum": 0, "maximum": 3}
_LAST_PROPS: dict[str, Any] = {
    "dealer": _SEAT, "zuozhuang": {"type": "boolean"},
    "lazhuang": _four({"type": "integer", "minimum": 0, "maximum": 62}, "its pulls by seat"),
    "winner": {"oneOf": [_SEAT, {"type": "null"}]},
    "balances": _four(_BALANCE, "its balances by seat")}
_GAME_PROPS: dict[str, Any] = {
    "hands": {**_COUNT, "description": "hands of the game played before this one"},
    "balances": _four(_BALANCE, "running balances by seat"),
    "lazhuang": _four(_COUNT, "pulls (lazhuang) made by seat over the game"),
    "zuozhuang": _four(_COUNT, "hands each seat dealt and sat (zuozhuang)"),
    "dealt": _four(_COUNT, "hands each seat dealt"),
}

GAME_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "required": ["hands", "balances", "lazhuang", "zuozhuang", "dealt", "last"],
    "description": "the game before this hand, as the bets' expressions (play.zuozhuang_when, play.lazhuang_most) "
                   "read it; present when the rules have one",
    "properties": {**_GAME_PROPS,
        "last": {"oneOf": [{"type": "null"}, {
            "type": "object", "additionalProperties": False,
            "required": ["dealer", "zuozhuang", "lazhuang", "winner", "balances"],
            "description": "the hand before this one", "properties": _LAST_PROPS}]},
    },
}

# the facts as a rule file's example says them (rules/schema.json, tools/make_schema.py): any field left out
# is as in a game's first hand (example_facts), and of the hand before only its dealer must be said
EXAMPLE_GAME_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "description": "the game before this hand, as the bets' expressions read it; a field left out is as in a "
                   "game's first hand (0 hands, zero balances and counts, no hand before)",
    "properties": {**_GAME_PROPS,
                   "last": {"type": "object", "additionalProperties": False, "required": ["dealer"],
                            "description": "the hand before this one (left out: none, a game's first hand); a field "
                                           "left out: no sitting, no pulls, no winner, zero balances",
                            "properties": _LAST_PROPS}},
}
