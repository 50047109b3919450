"""A run's statistics kept as running counts (`tjmj simulate`'s summary): each hand's summary is
folded in as it comes, in hand order, and let go, so that a run of a million hands holds a few
counters, not a million summaries."""

from __future__ import annotations

from collections import Counter
from typing import Any


class RunStats:
    """What summarize() reads of the hands, kept as running counts: a run folds each hand's summary in as
    it comes (in hand order) and lets it go, so a run's memory does not grow with its hands. The sums are
    taken in hand order from 0, as sum() over the list of summaries takes them: the same numbers."""

    def __init__(self) -> None:
        self.hands = 0
        self.wins = 0
        self.scored = 0  # wins with a fan (a win a kong ended scores no hand)
        self.fan_sum: Any = 0
        self.turn_sum: Any = 0
        self.fan: Counter[Any] = Counter()
        self.patterns: Counter[str] = Counter()
        self.seat_balance: list[Any] = [0, 0, 0, 0]
        self.dealer_balance: Any = 0
        self.seat_wins = [0, 0, 0, 0]
        self.gangkai = 0
        self.chan = 0
        self.dealer_kept = 0
        self.last_dealer: int | None = None

    def add(self, s: dict[str, Any]) -> None:
        """One more hand's summary (hand_summary's, or runfile.summary_of's), the next in hand order."""
        self.hands += 1
        bal = s["balances"]
        for i in range(4):
            self.seat_balance[i] += bal[i]
        self.dealer_balance += bal[s["dealer"]]
        if self.last_dealer is not None and self.last_dealer == s["dealer"]:
            self.dealer_kept += 1
        self.last_dealer = s["dealer"]
        if s["chan"]:
            self.chan += 1
        if s["winner"] is None:
            return
        self.wins += 1
        self.seat_wins[s["winner"]] += 1
        self.turn_sum += s["turn"]
        self.patterns.update(s["patterns"])
        if s["gangkai"]:
            self.gangkai += 1
        if s["fan"] is not None:  # a win a kong ended (play.kong_ends_hand) scores no hand: no fan
            self.scored += 1
            self.fan_sum += s["fan"]
            self.fan[s["fan"]] += 1
