"""What `tjmj check` knows of the bets' expressions (play.zuozhuang_when, play.lazhuang_most;
expr/bets.py): one that the game so far cannot change, said as a warning `bets-constant`.

  never read       the hand's own fixed limit leaves nothing to decide: play.may_zuozhuang false
                   (no dealer is asked to sit, zuozhuang_when is never read), play.lazhuang_max 0
                   (no seat is asked to pull, lazhuang_most is never read)
  the same always  the expression reads no fact of the game (only play values and literals): its
                   value is one for every hand, a fixed limit written as a limit over the game

A lazhuang_most is taken between 0 and lazhuang_max (the table offers no more than the hand's own
limit, and no fewer than none): a constant outside that range is said with what it is taken as.
Generic: no club's limit is named; the play settings are those of BET_SETTINGS."""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostic
from ..expr import ast as A
from ..expr.bets import BET_VARS, BetFacts, Bets
from ..game.facts import GameFacts
from ..ir import Expr, RuleSet
from ..passes.resolve import Resolved

# each bet setting → the play value that is the hand's own fixed limit, and the value at which nothing is asked
_LIMIT = {"zuozhuang_when": ("may_zuozhuang", False), "lazhuang_most": ("lazhuang_max", 0)}


def never_read(key: str, play: dict[str, Any]) -> str:
    """Why the bet setting `key` is never read under these play values ("" when it is)."""
    limit, off = _LIMIT[key]
    if limit in play and (play[limit] is off or (isinstance(off, int) and not isinstance(off, bool)
                                                 and isinstance(play[limit], int) and play[limit] <= off)):
        asked = "no dealer is asked to sit (zuozhuang)" if key == "zuozhuang_when" else "no seat is asked to pull (lazhuang)"
        return f"play.{limit} is {str(play[limit]).lower()}: {asked}, and play.{key} is never read"
    return ""


def reads_game(e: Expr) -> bool:
    """Whether the expression reads a fact of the game so far (or of this hand's seats): any name of
    the bets' vocabulary, bound by a quantifier or not (a name it shadows is counted as read)."""
    return any(isinstance(n, A.Name) and n.id in BET_VARS for n in A.walk(e.ast))


def constant(key: str, e: Expr, play: dict[str, Any]) -> tuple[str, str]:
    """(why, hint) when the expression reads no fact of the game (("", "") when it does)."""
    if reads_game(e):
        return "", ""
    v = Bets(((key, e),), play)
    if key == "zuozhuang_when":
        sits = v.may_sit(GameFacts(), 0)
        if sits:
            return ("it reads nothing of the game and is always true: every dealer may sit (zuozhuang), as without it",
                    "drop it, or make it read the game so far (last_zuozhuang, dealer.last_balance, hands …)")
        return ("it reads nothing of the game and is always false: no dealer is ever asked to sit (zuozhuang)",
                "say play.may_zuozhuang: false, or make it read the game so far (last_zuozhuang, dealer.last_balance …)")
    cap = int(play.get("lazhuang_max", 0))
    raw = v.value(key, BetFacts(GameFacts(), 1, 0, False))
    taken = max(0, min(cap, int(raw)))
    said = f"always {raw}" + (f", taken between 0 and lazhuang_max ({cap}) as {taken}" if taken != raw else "")
    if taken == cap:
        return (f"it reads nothing of the game and is {said}: every seat may pull (lazhuang) lazhuang_max times, as without it",
                "drop it, or make it read the game so far (seat.balance, seat.lazhuang_made, hands …)")
    return (f"it reads nothing of the game and is {said}: every seat may pull (lazhuang) {taken} times in every hand",
            f"say play.lazhuang_max: {taken}, or make it read the game so far (seat.balance, seat.lazhuang_made …)")


def bets_checks(res: Resolved, rs: RuleSet) -> list[Diagnostic]:
    """The warnings of one profile's bet expressions."""
    play = dict(rs.play)
    out = []
    for key, e in rs.bets:
        why, hint = never_read(key, play), ""
        if why:
            limit = _LIMIT[key][0]
            hint = f"drop play.{key}, or let play.{limit} ask the bet"
        else:
            why, hint = constant(key, e, play)
        if why:
            out.append(Diagnostic("warning", "bets-constant", f"play.{key} is the same in every hand under profile "
                                  f"{rs.profile}: {why}", res.where(("play", key)), hint, key))
    return out
