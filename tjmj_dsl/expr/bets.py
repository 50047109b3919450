"""The bets' vocabulary: what the play settings that decide the bets before a
deal may read — the game so far (hands played, running balances, each seat's
bets and deals over the game, the hand before this one), the seat asked, this
hand's dealer and whether it sat. One table, read by the checker and the
interpreter (the game engine evaluates these expressions; no scorer does).

Generic: seats, balances and bets are the mechanics of any table that plays
hand after hand; no club's limit is named here. At run time a seat is an int
0-3 and `f` the BetFacts below (`f.game` a game/facts.GameFacts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from . import ast as A
from .check import Checker, Env
from .evaluate import Interpreter
from .settle import SEAT
from .vocabulary import ANY, BOOL, FUNCS, INT, STR, Func, list_of
from ..engine.settle import others

# the play settings that are bet expressions, with the type each must have; absent: the hand's
# own fixed limits (may_zuozhuang, lazhuang_max) alone, the game so far read by nothing
BET_SETTINGS: dict[str, tuple[str, str]] = {
    "zuozhuang_when": (BOOL, "whether the dealer may sit (zuozhuang) this hand, given the game so far (when may_zuozhuang)"),
    "lazhuang_most": (INT, "how many times the seat asked may pull (lazhuang) this hand, given the game so far "
                           "(taken between 0 and lazhuang_max)"),
}


@dataclass(frozen=True)
class GAttr:
    type: str
    doc: str
    fn: Callable[[Any, Any], Any]  # (seat, facts) → attribute


def _last(f: Any) -> Any:
    return f.game.last


SEAT_ATTRS: dict[str, GAttr] = {
    "is_dealer": GAttr(BOOL, "this seat deals this hand", lambda s, f: s == f.dealer),
    "next": GAttr(SEAT, "the seat after it in turn order (xiajia)", lambda s, f: (s + 1) % 4),
    "balance": GAttr(INT, "its running balance: what it won less what it paid over the game's hands before this one",
                     lambda s, f: f.game.balances[s]),
    "lazhuang_made": GAttr(INT, "how many times it pulled (lazhuang) over the game so far, each pull counted",
                           lambda s, f: f.game.lazhuang[s]),
    "zuozhuang_made": GAttr(INT, "in how many hands of the game so far it dealt and sat (zuozhuang)",
                            lambda s, f: f.game.zuozhuang[s]),
    "dealt": GAttr(INT, "how many hands of the game so far it dealt", lambda s, f: f.game.dealt[s]),
    "last_balance": GAttr(INT, "its balance in the hand before this one (0 in a game's first hand)",
                          lambda s, f: _last(f).balances[s] if _last(f) is not None else 0),
    "last_lazhuang": GAttr(INT, "how many times it pulled in the hand before this one (0 in a game's first hand)",
                           lambda s, f: _last(f).lazhuang[s] if _last(f) is not None else 0),
}

BET_ATTRS: dict[str, dict[str, Any]] = {SEAT: SEAT_ATTRS}


@dataclass(frozen=True)
class GVar:
    type: str
    doc: str
    fn: Callable[[Any], Any]  # facts → value


BET_VARS: dict[str, GVar] = {
    "seats": GVar(list_of(SEAT), "the four seats in turn order", lambda f: [0, 1, 2, 3]),
    "seat": GVar(SEAT, "the seat asked: the dealer for zuozhuang_when, a non-dealer for lazhuang_most", lambda f: f.seat),
    "dealer": GVar(SEAT, "this hand's dealer", lambda f: f.dealer),
    "zuozhuang": GVar(BOOL, "the dealer sat this hand (false while the dealer itself is asked)", lambda f: f.zuozhuang),
    "hands": GVar(INT, "how many hands of this game were played before this one (0: its first hand)",
                  lambda f: f.game.hands),
    "last_dealer": GVar(SEAT + "?", "the dealer of the hand before this one (none in a game's first hand)",
                        lambda f: _last(f).dealer if _last(f) is not None else None),
    "last_zuozhuang": GVar(BOOL, "the dealer of the hand before this one sat (false in a game's first hand)",
                           lambda f: bool(_last(f).zuozhuang) if _last(f) is not None else False),
    "last_winner": GVar(SEAT + "?", "the winner of the hand before this one (none: it was drawn, or this is the first)",
                        lambda f: _last(f).winner if _last(f) is not None else None),
}

BET_FUNCS: dict[str, Func] = {
    **{k: FUNCS[k] for k in ("len", "sorted", "sum", "product", "min", "max")},
    "others": Func((SEAT,), list_of(SEAT), "the three other seats, in turn order after it (none: no seat)"),
}


@dataclass(frozen=True)
class BetFacts:
    """What a bet expression reads: the game so far, the seat asked, this hand's dealer, its sitting."""

    game: Any  # game/facts.GameFacts
    seat: int
    dealer: int
    zuozhuang: bool


def _play_type(v: Any) -> str:
    return BOOL if isinstance(v, bool) else INT if isinstance(v, int) else STR


def bet_env(play: dict[str, Any]) -> Env:
    """The names a bet expression reads: the game's facts and the play values (constants)."""
    return Env({"true": BOOL, "false": BOOL, "none": "none",
                **{k: _play_type(v) for k, v in play.items() if k not in BET_SETTINGS},
                **{k: v.type for k, v in BET_VARS.items()}})


def checker(env: Env) -> Checker:
    return Checker(env, BET_ATTRS, BET_FUNCS)


class BetInterpreter(Interpreter):
    """The walk of bet expressions; the env holds the facts as `$f`."""

    def __init__(self, types: dict[int, str]) -> None:
        super().__init__(types, {}, {"others": others})

    def eval(self, n: A.Node, env: dict[str, Any]) -> Any:
        if isinstance(n, A.Attr):
            table = BET_ATTRS.get(self.types.get(id(n.obj), ANY).rstrip("?"))
            if table is not None and n.name in table:
                obj = self.eval(n.obj, env)
                return None if obj is None else table[n.name].fn(obj, env["$f"])
        return super().eval(n, env)


def facts_env(f: BetFacts, play: dict[str, Any]) -> dict[str, Any]:
    """The interpreter's names for the facts of one ask."""
    env: dict[str, Any] = {k: v for k, v in play.items() if k not in BET_SETTINGS}
    env.update({k: v.fn(f) for k, v in BET_VARS.items()})
    env["$f"] = f
    return env


class Bets:
    """A rule set's bet expressions, evaluated for the game's table (the game so far in `game`)."""

    def __init__(self, bets: tuple[tuple[str, Any], ...], play: dict[str, Any]) -> None:
        self.exprs = {k: e for k, e in bets}
        self.play = {k: v for k, v in play.items() if isinstance(v, (bool, int, str))}
        types: dict[int, str] = {}
        for e in self.exprs.values():
            ch = checker(bet_env(self.play))
            ch.check(e.ast)
            types.update(ch.types)
        self._i = BetInterpreter(types)

    def value(self, key: str, f: BetFacts) -> Any:
        """The bet expression `key` for the facts of one ask, as written (not yet taken between limits)."""
        return self._i.eval(self.exprs[key].ast, facts_env(f, self.play))

    def may_sit(self, game: Any, dealer: int) -> bool:
        """Whether the dealer may sit this hand by play.zuozhuang_when (absent: it may)."""
        e = self.exprs.get("zuozhuang_when")
        if e is None:
            return True
        return bool(self._i.eval(e.ast, facts_env(BetFacts(game, dealer, dealer, False), self.play)))

    def most(self, game: Any, dealer: int, seat: int, zuozhuang: bool, cap: int) -> int:
        """How many times `seat` may pull this hand: play.lazhuang_most taken between 0 and `cap` (absent: `cap`)."""
        e = self.exprs.get("lazhuang_most")
        if e is None:
            return cap
        n = self._i.eval(e.ast, facts_env(BetFacts(game, seat, dealer, zuozhuang), self.play))
        return max(0, min(cap, int(n)))


def offer(bets: tuple[tuple[str, Any], ...], play: dict[str, Any], game: Any, dealer: int,
          zuozhuang: bool) -> dict[str, Any]:
    """What a table offers before a deal, the game so far being `game` (a game/facts.GameFacts), as the
    game engine offers it (game/rules.GameRules.may_sit, most_pulls): whether the dealer is asked to sit
    (play.may_zuozhuang and play.zuozhuang_when), and how many times each seat may pull (the dealer 0;
    play.lazhuang_most taken between 0 and play.lazhuang_max). The pulls are asked with the dealer sitting
    when `zuozhuang` and it may. Read by `tjmj check` for a rule file's bets examples."""
    b = Bets(bets, play) if bets else None
    may = bool(play.get("may_zuozhuang", False)) and (b is None or b.may_sit(game, dealer))
    cap = int(play.get("lazhuang_max", 0))
    sat = bool(zuozhuang) and may
    most = [0 if s == dealer else cap if b is None else b.most(game, dealer, s, sat, cap) for s in range(4)]
    return {"may_zuozhuang": may, "lazhuang_most": most}
