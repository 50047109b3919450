"""What is measured, each as per-wall components (means over the wall's four
seatings) and a kind (stats.estimate). The headline measures are declared
here, before any data: the others are exploratory, and the report says how
many intervals it shows (at 95 % about one in twenty excludes 0 by chance)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

Hand = dict[str, Any]
Plays = list[tuple[int, list[str], Hand]]  # (multiplicity, seating, facts) of one wall and mix


@dataclass(frozen=True)
class Measure:
    id: str
    label: str
    kind: str  # mean, ratio, sd
    mix: int  # which player mix it is measured on (0: --players; 1: value v random; 2: value v noclaim)
    parts: tuple[Callable[[Plays], float], ...]
    headline: bool = False
    unit: str = ""


def _per_hand(f: Callable[[Hand], float]) -> Callable[[Plays], float]:
    return lambda plays: sum(m * f(h) for m, _, h in plays) / 4.0


def _won(h: Hand) -> float:
    return 1.0 if h["w"] is not None else 0.0


def _scored(h: Hand) -> float:
    """A win whose hand was scored (not one a kong ended: it has no fan)."""
    return 1.0 if h["w"] is not None and h["f"] is not None else 0.0


def _moved(h: Hand) -> float:
    """The points a hand moves: what the losers pay (the sum of the positive balances)."""
    return float(sum(b for b in h["b"] if b > 0))


def _skill(player: str) -> Callable[[Plays], float]:
    """The mean balance per hand of the seats played by `player`."""
    def f(plays: Plays) -> float:
        tot = 0.0
        for m, seating, h in plays:
            seats = [s for s, p in enumerate(seating) if p == player]
            tot += m * sum(h["b"][s] for s in seats) / len(seats)
        return tot / 4.0
    return f


WON = _per_hand(_won)  # the win rate's component, and every pattern measure's second: one function


BASE: tuple[Measure, ...] = (
    Measure("win_rate", "win rate (hands won)", "mean", 0, (WON,), unit="share of hands"),
    Measure("drawn_rate", "drawn hands (huangzhuang) rate", "mean", 0, (_per_hand(lambda h: 1.0 - _won(h)),),
            headline=True, unit="share of hands"),
    Measure("dealer_win_rate", "dealer's win rate", "mean", 0,
            (_per_hand(lambda h: 1.0 if h["w"] is not None and h["w"] == h["d"] else 0.0),), unit="share of hands"),
    Measure("dealer_balance", "dealer's mean balance per hand (dealer advantage)", "mean", 0,
            (_per_hand(lambda h: float(h["b"][h["d"]])),), headline=True, unit="points"),
    Measure("stakes_mean", "points a hand moves: mean (stakes)", "mean", 0, (_per_hand(_moved),),
            headline=True, unit="points"),
    Measure("stakes_sd", "points a hand moves: standard deviation (volatility)", "sd", 0,
            (_per_hand(_moved), _per_hand(lambda h: _moved(h) ** 2)), headline=True, unit="points"),
    Measure("mean_fan", "mean fan of a win", "ratio", 0,
            (_per_hand(lambda h: float(h["f"]) if h["f"] is not None else 0.0), _per_hand(_scored)), unit="fan"),
    Measure("gangkai_rate", "gangkai (win on a kong's replacement) rate", "mean", 0,
            (_per_hand(lambda h: 1.0 if h["g"] else 0.0),), unit="share of hands"),
    Measure("chan_rate", "chan rate", "mean", 0, (_per_hand(lambda h: 1.0 if h["c"] else 0.0),), unit="share of hands"),
    Measure("xianggong_rate", "hands with a xianggong (a hun discarded)", "mean", 0,
            (_per_hand(lambda h: 1.0 if h["x"] else 0.0),), unit="share of hands"),
    Measure("ready_rate", "hands with a ready declaration (tianting)", "mean", 0,
            (_per_hand(lambda h: 1.0 if h["r"] else 0.0),), unit="share of hands"),
    Measure("hand_length", "hand length (draws, replacements included)", "mean", 0,
            (_per_hand(lambda h: float(h["n"])),), unit="draws"),
)
SKILL: tuple[Measure, ...] = (
    Measure("skill_random", "skill: value player's mean balance per hand against random players", "mean", 1,
            (_skill("value"),), headline=True, unit="points"),
    Measure("skill_claiming", "skill: full value player's mean balance per hand against one that never claims",
            "mean", 2, (_skill("value"),), unit="points"),
)
SKILL_MIXES = (("value", "random", "value", "random"), ("value", "noclaim", "value", "noclaim"))


def pattern_measure(pid: str, name: str) -> Measure:
    """A pattern's frequency among wins (tianhu, dihu, tianting and every other the rules name)."""
    return Measure(f"pattern:{pid}", f"{name} ({pid}) among wins", "ratio", 0,
                   (_per_hand(lambda h: 1.0 if pid in h["p"] else 0.0), WON), unit="share of wins")


def measures(skill: bool, patterns: list[tuple[str, str]]) -> list[Measure]:
    return [*BASE, *(SKILL if skill else ()), *(pattern_measure(p, n) for p, n in patterns)]
