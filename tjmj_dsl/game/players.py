"""Players: each sees only its SeatView and answers with one action from the
menu the table gives it.

- RandomPlayer: wins whenever it can; otherwise a uniformly random legal
  action (a random tile of its hand to discard, a claim or a pass); bets at
  random (zuozhuang half the time, lazhuang 0 to the most allowed).
- ValuePlayer: plays for a win worth taking. Never discards a hun unless it
  must; keeps the tiles the rule file names for it (play.value_player_keep:
  the Tianjin file names the neighbours of zhuo5's five) and a suit's tiles
  once it holds most of the suit's ranks (play.value_player_run_ranks: the
  long's 1-9 runs), and plays
  toward the fewest huns missing from a winning shape; once ready it asks
  the scorer's waits for each candidate discard and keeps the one whose
  winning tiles, weighted by how many are still unseen, are worth most;
  wins whenever it can; pongs and kongs when that brings the hand no further
  from a win; keeps its huns for the win, unless a kong of them is worth at
  least the points the rule file names (play.value_player_hun_kong_points). Bets by a stated policy: it sits (zuozhuang) and lazhuang as often as
  allowed — a stronger player wants bigger stakes.
"""

from __future__ import annotations

import random
from typing import Any

from .table import PASS, WIN, Action, SeatView

class RandomPlayer:
    name = "random"

    def begin(self, view: SeatView, rng: random.Random) -> None:
        self.rng = rng

    def zuozhuang(self, view: SeatView) -> bool:
        return self.rng.random() < 0.5

    def lazhuang(self, view: SeatView, most: int) -> int:
        return self.rng.randint(0, most)

    def declare_ready(self, view: SeatView) -> bool:
        return self.rng.random() < 0.5

    def act(self, view: SeatView, menu: list[Action]) -> Action:
        if menu[0] is WIN:  # the table lists a win first
            return WIN
        return menu[int(self.rng.random() * len(menu))]

    def claim(self, view: SeatView, menu: list[Action]) -> Action:
        return menu[int(self.rng.random() * len(menu))]


class ValuePlayer:
    name = "value"
    WEIGHED = 2  # ready candidates weighed by the scorer (those with the most winning copies)
    CLOSE = 0.9  # ... when it waits on at least this share of the best one's winning copies
    SCORED = 1  # of each, the winning tiles scored (the most plentiful first); the rest count at their mean

    def begin(self, view: SeatView, rng: random.Random) -> None:
        self.rng = rng
        self.value_cache: dict[Any, float] = {}
        self.wait_cache: dict[Any, list[int]] = {}  # a 13-tile hand's winning draws, for this hand
        self.hun_set: frozenset[int] = frozenset()  # known once the indicator is flipped (after the bets)

    def zuozhuang(self, view: SeatView) -> bool:
        return True

    def lazhuang(self, view: SeatView, most: int) -> int:
        return most

    def declare_ready(self, view: SeatView) -> bool:
        return True

    # ------------------------------------------------------------ choices

    def act(self, view: SeatView, menu: list[Action]) -> Action:
        if menu[0] is WIN:
            return WIN
        self.hun_set = self.hun_set or frozenset(view.hun_kinds or ())
        discards = [a for a in menu if a[0] == "discard"]
        if len(discards) == len(menu):  # no kong offered
            return discards[0] if len(discards) == 1 else self._best_discard(view, discards, view.shortfalls(1))
        if view.rules.hun_kong_points:
            for a in menu:  # a kong of huns worth the hint's points is made at once, whatever it does to the shape
                if a[0] in ("concealed_kong", "added_kong") and a[1] in self.hun_set and view.rules.kong_points_of(
                        view.rules.kong_of_action(a[0], True)) >= view.rules.hun_kong_points:
                    return a
        kongs = [a for a in menu if a[0] in ("concealed_kong", "added_kong") and a[1] not in self.hun_set]
        after = view.shortfalls(1)
        if kongs:
            # a kong scores and draws again: made when it leaves the hand no further from a win than the best
            # discard would (a jin gang would give up huns a win needs more than its points)
            best = min(after.values())
            for a in kongs:
                if a[0] == "added_kong" or view.missing_without(a[1], 4, 1) <= best:
                    return a
        if len(discards) == 1:
            return discards[0]
        return self._best_discard(view, discards, after)

    def claim(self, view: SeatView, menu: list[Action]) -> Action:
        if len(menu) == 1:
            return PASS
        tile = menu[1][1]
        self.hun_set = self.hun_set or frozenset(view.hun_kinds or ())
        if tile in self.hun_set:
            return PASS  # a jin gang from a discard: the three huns are worth more in hand
        for a in reversed(menu):  # kong first, then pong
            if a[0] == "kong":
                return a  # three held tiles become a kong: no shape changes, the kong scores
            if a[0] == "pong" and tile not in view.rules.keep_tiles:
                # a pong turns a pair into a meld but spends a discard: keep it when the hand has another pair
                # for the eyes and is close to a win
                counts = view.counts()
                pairs = sum(1 for k in range(34) if counts[k] >= 2 and k not in self.hun_set)
                if pairs >= 2 and view.missing(1) <= 2:
                    return a
        return PASS

    def _best_discard(self, view: SeatView, discards: list[Action], after: dict[int, int]) -> Action:
        """`after`: view.shortfalls(1), each discard's huns short of a shape."""
        hun = self.hun_set
        cands = [a for a in discards if a[1] not in hun] or discards  # a hun only when nothing else can go
        least = 99
        tied: list[Action] = []
        for a in cands:
            x = after[a[1]]
            if x < least:
                least, tied = x, [a]
            elif x == least:
                tied.append(a)
        if len(tied) == 1:
            return tied[0]
        if least == 0:
            return self._best_ready(view, tied)
        c = view.counts()
        rules = view.rules
        keep, runs = rules.keep_tiles, rules.run_ranks
        # which suits are near a run (the same for every tile of the suit: worked out once)
        near_run = [bool(runs) and 9 - c[lo:lo + 9].count(0) >= runs for lo in (0, 9, 18)]
        return max(tied, key=lambda a: (self._useless(a[1], c, keep, near_run), -a[1]))

    @staticmethod
    def _uselessness(t: int, c: tuple[int, ...], keep: frozenset[int], runs: int) -> float:
        """How little a tile does for the hand: lone honors first, then far-apart suit tiles. The tiles
        the rules ask to keep are kept, and so are a suit's tiles once `runs` of its nine ranks are held."""
        near_run = [bool(runs) and 9 - c[lo:lo + 9].count(0) >= runs for lo in (0, 9, 18)]
        return ValuePlayer._useless(t, c, keep, near_run)

    @staticmethod
    def _useless(t: int, c: tuple[int, ...], keep: frozenset[int], near_run: list[bool]) -> float:
        """_uselessness, with whether each suit is near a run (`runs` of its ranks held) given."""
        if t >= 27:
            return 10.0 - c[t] * 3
        r = t % 9
        near = (c[t - 2] if r >= 2 else 0) + (c[t - 1] if r >= 1 else 0) + \
            (c[t + 1] if r <= 7 else 0) + (c[t + 2] if r <= 6 else 0)
        score = 6.0 - c[t] * 2 - near
        if t in keep:
            score -= 2
        if near_run[t // 9]:  # a run through the suit is in reach
            score -= 2
        if r in (0, 8):
            score += 0.5
        return score

    def _best_ready(self, view: SeatView, cands: list[Action]) -> Action:
        """Of discards that leave the hand ready: the one whose wins, weighted by unseen copies, are worth most.
        The shape finds each candidate's winning tiles; the scorer's totals weigh the best few candidates."""
        seen = view.seen()
        outs = []
        for a, completes in zip(cands, view.completing_after_discards([a[1] for a in cands], self.wait_cache)):
            t = a[1]
            wins = [(4 - seen[k] + (k == t), k) for k in completes if 4 - seen[k] + (k == t) > 0]
            outs.append((sum(n for n, _ in wins), -t, a, wins))
        outs.sort(reverse=True)
        close = [o for o in outs[:self.WEIGHED] if o[0] >= self.CLOSE * outs[0][0]]
        if len(close) < 2:
            return outs[0][2]  # one hand waits on clearly more tiles: no need to ask what they are worth
        best = max(close, key=lambda o: (self._ready_value(view, o[2][1], o[3]), o[1]))
        return best[2]

    def _ready_value(self, view: SeatView, t: int, wins: list[tuple[int, int]]) -> float:
        """Σ over the winning tiles of (unseen copies × the scorer's total); the most plentiful
        few are scored, the others count at their mean."""
        hand = view.hand()
        hand.remove(t)
        key = tuple(hand)
        got = self.value_cache.get(key)
        if got is not None:
            return got
        melds = view.request_melds()
        wins = sorted(wins, reverse=True)
        score = view.rules.scorer.score_tiles
        indicator = view.indicator
        assert indicator is not None  # asked after the deal
        value, scored = 0.0, 0
        for left, k in wins[:self.SCORED]:
            value += left * score(hand, k, indicator, melds).total
            scored += left
        rest = sum(left for left, _ in wins[self.SCORED:])
        if scored and rest:
            value += rest * value / scored
        self.value_cache[key] = value
        return value


PLAYERS = {"random": RandomPlayer, "value": ValuePlayer}


def make_player(name: str) -> Any:
    try:
        return PLAYERS[name]()
    except KeyError:
        raise ValueError(f"no player {name!r}; players: {', '.join(PLAYERS)}") from None
