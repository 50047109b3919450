"""The wall: 136 tiles in 4 sides of 17 stacks of 2, the dice, the deal, the
indicator, draws from the head and kong replacements from the tail.

Geometry. Seats 0-3 play in turn order 0→1→2→3→0; a seat's next (xiajia) sits
on its right. The wall in front of seat s holds stacks 1-17 counted from
that seat's right, each a top and a bottom tile; `tiles` (a record's `wall`)
lists them side 0, 1, 2, 3, each side's stacks from its right, top before
bottom: tile (s, p, h) is tiles[34 s + 2 (p - 1) + h].

The dealer rolls two dice (sum S) and the deal starts at the dealer's stack
(S + deal_start), right to left along the dealer's side; the draw runs on
clockwise, onto the side of the seat before the dealer (shangjia), from its
right. This gives the 68 stacks in draw order: the head is the first, the
tail the last. The seat opposite the dealer rolls (sum T): the T-th stack
from the tail is the indicator's stack, and its top tile, flipped, stays on
the wall (never drawn).

Draws come from the head, stack by stack, top before bottom. Kong
replacements come from the tail, top before bottom; at the indicator's stack
the remaining (bottom) tile is taken when play.replacement_at_indicator is
"take", the stack passed by when "skip". The live wall ends at the stack
before the indicator's: the hand is drawn (huangzhuang) when that stack is drawn,
or, once replacements have gone past the indicator, when no tile is left.
"""

from __future__ import annotations

from typing import Any

from ..tiles import NAMES

SIDES, STACKS = 4, 17
TILES = SIDES * STACKS * 2


def draw_order(dealer: int, dice_sum: int, deal_start: int) -> list[int]:
    """The physical stack (0-67: side * 17 + stack - 1) of each stack in draw order."""
    cycle = [((dealer - i) % SIDES) * STACKS + p for i in range(SIDES) for p in range(STACKS)]
    start = (dice_sum + deal_start - 1) % len(cycle)
    return cycle[start:] + cycle[:start]


_ORDERS: dict[tuple[int, int, int], tuple[list[int], list[int]]] = {}
_TAILS: dict[tuple[int, bool], list[int]] = {}


def _order(dealer: int, dice_sum: int, deal_start: int) -> tuple[list[int], list[int]]:
    """The stacks in draw order and, for each tile in draw order, its index in the physical wall (memoised)."""
    key = (dealer, dice_sum, deal_start)
    got = _ORDERS.get(key)
    if got is None:
        order = draw_order(dealer, dice_sum, deal_start)
        got = _ORDERS[key] = (order, [2 * ps + h for ps in order for h in (0, 1)])
    return got


def _tail(ind_stack: int, take: bool) -> list[int]:
    """Replacement tiles in the order they are taken (draw-order indexes), memoised."""
    got = _TAILS.get((ind_stack, take))
    if got is None:
        got = []
        for j in range(SIDES * STACKS - 1, -1, -1):
            if j == ind_stack:
                if take:
                    got.append(2 * j + 1)
            else:
                got += [2 * j, 2 * j + 1]
        _TAILS[(ind_stack, take)] = got
    return got


def check_deal(tiles: Any, dealer: Any, dice: Any) -> None:
    """ValueError, saying what is wrong, unless `tiles` is a list of 136 kind numbers holding
    each of the 34 kinds 4 times, `dealer` a seat 0-3 and `dice` two rolls of two dice 1-6: a
    table built by a program gets the checks a replayed record gets, not an IndexError later."""
    if not isinstance(tiles, (list, tuple)) or len(tiles) != TILES:
        raise ValueError(f"a wall is a list of {TILES} tiles, not {_what(tiles)}")
    for i, t in enumerate(tiles):
        if t.__class__ is not int or not 0 <= t < 34:
            raise ValueError(f"wall[{i}]: a tile is a kind number 0-33, not {t!r}")
    if sorted(tiles) != [k for k in range(34) for _ in range(4)]:
        k = next(k for k in range(34) if tiles.count(k) != 4)
        raise ValueError(f"a wall holds 4 of each of the 34 tiles, this one {tiles.count(k)} of {NAMES[k]}")
    if dealer.__class__ is not int or not 0 <= dealer < 4:
        raise ValueError(f"the dealer is a seat 0-3, not {dealer!r}")
    ok = (isinstance(dice, (list, tuple)) and len(dice) == 2
          and all(isinstance(r, (list, tuple)) and len(r) == 2 and all(d.__class__ is int and 1 <= d <= 6 for d in r)
                  for r in dice))
    if not ok:
        raise ValueError(f"the dice are two rolls of two dice 1-6, ((a, b), (c, d)), not {dice!r}")


def _what(x: Any) -> str:
    return f"{len(x)}" if isinstance(x, (list, tuple)) else f"a {type(x).__name__}"


class Wall:
    """One hand's wall. `seq` is the tiles in draw order (index 2 j + h for
    the j-th stack's top or bottom); `taken` marks what has left the wall."""

    __slots__ = ("seq", "order", "ind_stack", "indicator", "tail", "tail_i", "taken", "head", "live_end", "live_left")

    def __init__(self, tiles: list[int], dealer: int, deal_dice: tuple[int, int], flip_dice: tuple[int, int],
                 deal_start: int, take_at_indicator: bool) -> None:
        if len(tiles) != TILES:
            raise ValueError(f"a wall has {TILES} tiles, not {len(tiles)}")
        self.order, where = _order(dealer, sum(deal_dice), deal_start)
        self.seq = [tiles[i] for i in where]
        self.ind_stack = len(self.order) - sum(flip_dice)
        self.indicator = self.seq[2 * self.ind_stack]
        self.tail = _tail(self.ind_stack, take_at_indicator)
        self.tail_i = 0
        self.taken = bytearray(TILES)
        self.taken[2 * self.ind_stack] = 1  # the indicator stays face up
        self.head = 0
        self.live_end = 2 * self.ind_stack
        self.live_left = self.live_end

    def draw(self) -> int | None:
        """The next tile from the head, or None: the live wall is exhausted (huangzhuang)."""
        h = self.head
        end = self.live_end
        taken = self.taken
        while h < end and taken[h]:
            h += 1
        if h >= end:
            self.head = h
            return None
        taken[h] = 1
        self.head = h + 1
        self.live_left -= 1
        return self.seq[h]

    def deal(self, n: int) -> list[int]:
        """The first n tiles from the head, at the start of a hand."""
        assert self.head == 0 and n <= self.live_end
        self.taken[:n] = b"\x01" * n
        self.head = n
        self.live_left -= n
        return self.seq[:n]

    def can_replace(self) -> bool:
        """Is a tile left for a kong's replacement? The tail passes over what the head
        has taken (moving its place past them): where the two ends meet in a stack whose
        top the head drew, the bottom is the replacement."""
        tail, taken, i = self.tail, self.taken, self.tail_i
        while i < len(tail) and taken[tail[i]]:
            i += 1
        self.tail_i = i
        return i < len(tail)

    def replacement(self) -> int | None:
        """The next tile from the tail (a kong's replacement), or None when none is left."""
        if not self.can_replace():
            return None
        x = self.tail[self.tail_i]
        self.taken[x] = 1
        self.tail_i += 1
        if x < self.live_end:  # replacements past the indicator eat into the live wall
            self.live_left -= 1
        return self.seq[x]

    def position(self, linear: int) -> tuple[int, int, int]:
        """(side, stack 1-17 from that side's right, 0 top / 1 bottom) of a tile in draw order."""
        ps = self.order[linear // 2]
        return ps // STACKS, ps % STACKS + 1, linear % 2
