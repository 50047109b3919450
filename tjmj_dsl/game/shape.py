"""A fast test for the winning shape (4 melds and a pair, huns standing for any
tile), for the game engine to ask before it asks the scorer: a necessary
condition, never the decision (the scorer decides every win).

Each part of the hand (a suit, or one honor kind) is costed on its own: the
fewest huns that complete its natural tiles into melds (h0), or into melds
and the pair (h1). Huns left over form melds (or the pair) of their own, so
a hand of the right size has the shape exactly when

    sum(h0) + min(2, min over parts of (h1 - h0)) <= huns.

A suit's costs are worked out once per distinct suit (its 9 counts packed in
base 5) and kept, so a test is a few dict lookups. The kept answers are
lasting() caches: the collector's freezes move them out of its way, so no
full collection walks them as they grow (engine/lasting.py says why).
"""

from __future__ import annotations

from functools import lru_cache

from ..engine.lasting import lasting, restart

POW5 = tuple(5 ** i for i in range(9))
INF = 99
# an honor kind held c times: (h0, h1) — no chows, so each kind is a part of its own
HONOR_COST = ((0, 2), (2, 1), (1, 0), (0, 2), (2, 1))
_SUIT_COST: dict[int, tuple[int, int]] = lasting()
_HONOR_TOTAL: dict[int, tuple[int, int]] = lasting()


def part_key(t: int) -> tuple[int, int]:
    """(part, weight): a tile of kind t adds `weight` to the packed key of part `part`
    (0-2 the suits, 3 the honors, each honor kind a base-5 digit)."""
    return (t // 9, POW5[t % 9]) if t < 27 else (3, POW5[t - 27])


def honor_cost(key: int) -> tuple[int, int]:
    """(sum of h0, least h1 - h0 (2 if none)) over the honor kinds packed in key."""
    got = _HONOR_TOTAL.get(key)
    if got is None:
        need, pair = 0, 2
        for i in range(7):
            c = key // POW5[i] % 5
            if c:
                h0, h1 = HONOR_COST[c]
                need += h0
                pair = min(pair, h1 - h0)
        got = _HONOR_TOTAL[key] = (need, pair)
    return got


def short(keys: list[int], huns: int, chow: bool = True) -> int:
    """missing() from the four packed part keys (suits m p s, honors). Unrolled: the engine asks it on every draw."""
    cost = _SUIT_COST
    hc = _HONOR_TOTAL.get(keys[3]) or honor_cost(keys[3])
    need, pair = hc
    k = keys[0]
    if k:
        h0, h1 = cost.get(k if chow else -1 - k) or suit_cost(k, chow)
        need += h0
        if h1 - h0 < pair:
            pair = h1 - h0
    k = keys[1]
    if k:
        h0, h1 = cost.get(k if chow else -1 - k) or suit_cost(k, chow)
        need += h0
        if h1 - h0 < pair:
            pair = h1 - h0
    k = keys[2]
    if k:
        h0, h1 = cost.get(k if chow else -1 - k) or suit_cost(k, chow)
        need += h0
        if h1 - h0 < pair:
            pair = h1 - h0
    need += pair
    return need - huns if need > huns else 0


def pack(counts: list[int] | tuple[int, ...], lo: int) -> int:
    """The 9 counts of one suit from kind `lo`, as one base-5 number."""
    return sum(counts[lo + i] * POW5[i] for i in range(9))


@lru_cache(maxsize=None)
def _min_huns(c: tuple[int, ...], pair: bool, chow: bool) -> int:
    """The fewest huns that make every tile of `c` (9 counts) into melds, plus the pair when `pair`."""
    i = next((j for j in range(9) if c[j]), -1)
    if i < 0:
        return 2 if pair else 0
    best = INF
    lst = list(c)
    take = min(lst[i], 3)  # a pung of i, huns filling it
    lst[i] -= take
    best = min(best, 3 - take + _min_huns(tuple(lst), pair, chow))
    lst[i] += take
    if pair:
        take = min(lst[i], 2)
        lst[i] -= take
        best = min(best, 2 - take + _min_huns(tuple(lst), False, chow))
        lst[i] += take
    if chow:
        for s in (i - 2, i - 1, i):  # a chow holding i; the ranks below i are empty, so huns
            if s < 0 or s > 6:
                continue
            used, huns = [], 0
            for r in (s, s + 1, s + 2):
                if r >= i and lst[r]:
                    lst[r] -= 1
                    used.append(r)
                else:
                    huns += 1
            best = min(best, huns + _min_huns(tuple(lst), pair, chow))
            for r in used:
                lst[r] += 1
    return best


_LEAST: dict[int, int] = lasting()


def _least_huns(key: int, pair: bool, chow: bool) -> int:
    """_min_huns of the suit packed in `key` (base 5), by the same steps on the packed number: no
    tuple made per step, the kept answers keyed by an int (emptied past _LIMIT entries)."""
    ck = key << 2 | pair << 1 | chow
    got = _LEAST.get(ck)
    if got is not None:
        return got
    if not key:
        return 2 if pair else 0
    i = 0
    while not key // POW5[i] % 5:
        i += 1
    w = POW5[i]
    ci = key // w % 5
    take = ci if ci < 3 else 3  # a pung of i, huns filling it
    best = 3 - take + _least_huns(key - take * w, pair, chow)
    if pair:
        take = ci if ci < 2 else 2
        best = min(best, 2 - take + _least_huns(key - take * w, False, chow))
    if chow:
        for s in (i - 2, i - 1, i):  # a chow holding i; the ranks below i are empty, so huns
            if s < 0 or s > 6:
                continue
            rest, huns = key, 0
            for r in (s, s + 1, s + 2):
                if r >= i and key // POW5[r] % 5:
                    rest -= POW5[r]
                else:
                    huns += 1
            best = min(best, huns + _least_huns(rest, pair, chow))
    if len(_LEAST) >= _LIMIT:
        restart(_LEAST)
    _LEAST[ck] = best
    return best


def _costs(keys: list[int], chow: bool) -> list[tuple[int, int]]:
    """(h0, h1 - h0) of each part: suits m p s, then the honors (their h0 summed, their least h1 - h0)."""
    out = []
    for i in range(3):
        if keys[i]:
            h0, h1 = _SUIT_COST.get(keys[i] if chow else -1 - keys[i]) or suit_cost(keys[i], chow)
            out.append((h0, h1 - h0))
        else:
            out.append((0, 2))
    out.append(honor_cost(keys[3]))
    return out


def _short_with(costs: list[tuple[int, int]], p: int, c: tuple[int, int], huns: int) -> int:
    need = c[0]
    pair = c[1]
    for i in range(4):
        if i != p:
            need += costs[i][0]
            if costs[i][1] < pair:
                pair = costs[i][1]
    need += min(pair, 2)
    return need - huns if need > huns else 0


# Per part, what drawing or discarding one tile of each rank does to its costs, and which ranks
# pass a test against the rest of the hand: worked out once per distinct part (and budget) and
# kept, so the value player's questions (every discard's shortfall, a ready hand's winning draws)
# are a few lookups a part instead of a costing per kind. Bounded: emptied when they grow past
# _LIMIT entries (the parts of a simulation are a few thousand).
_LIMIT = 200_000
_WAITS: dict[tuple[int, bool, int, int, int], tuple[int, ...]] = lasting()
_SHORTS: dict[tuple[int, bool, int, int, int], tuple[tuple[int, int], ...]] = lasting()
_MOVES: dict[tuple[int, bool, int, bool], tuple[tuple[int, int, int], ...]] = lasting()


def _keyed_cost(p: int, key: int, chow: bool) -> tuple[int, int]:
    """(h0, h1 - h0) of part p holding `key` (packed counts)."""
    if p == 3:
        return honor_cost(key)
    if not key:
        return (0, 2)
    h0, h1 = _SUIT_COST.get(key if chow else -1 - key) or suit_cost(key, chow)
    return (h0, h1 - h0)


def _moves(p: int, key: int, chow: bool, add: bool) -> tuple[tuple[int, int, int], ...]:
    """(kind, h0, h1 - h0) of part p holding `key` with one more tile of each kind it can take
    (`add`), or one fewer of each kind it holds: worked out once per part and kept."""
    ck = (p, chow, key, add)
    got = _MOVES.get(ck)
    if got is None:
        out = []
        base = _BASE[p]
        for r in range(7 if p == 3 else 9):
            w = POW5[r]
            c = key // w % 5
            if (c < 4) if add else c:
                h0, d = _keyed_cost(p, key + w if add else key - w, chow)
                out.append((base + r, h0, d))
        if len(_MOVES) >= _LIMIT:
            restart(_MOVES)
        got = _MOVES[ck] = tuple(out)
    return got


def _part_waits(p: int, key: int, chow: bool, budget: int, pair: int) -> tuple[int, ...]:
    """The kinds of part p (digit < 4) whose one more tile leaves the part costing
    h0 + min(h1 - h0, pair) <= budget."""
    ck = (p, chow, key, budget, pair)
    got = _WAITS.get(ck)
    if got is None:
        moves = _MOVES.get((p, chow, key, True)) or _moves(p, key, chow, True)
        got = tuple([k for k, h0, d in moves if h0 + (d if d < pair else pair) <= budget])
        if len(_WAITS) >= _LIMIT:
            restart(_WAITS)
        _WAITS[ck] = got
    return got


def _part_shorts(p: int, key: int, chow: bool, budget: int, pair: int) -> tuple[tuple[int, int], ...]:
    """(kind, shortfall) for the kinds held in part p: h0 + min(h1 - h0, pair) - budget (0 at least)
    of the part less one tile of the kind."""
    ck = (p, chow, key, budget, pair)
    got = _SHORTS.get(ck)
    if got is None:
        out = []
        for k, h0, d in _MOVES.get((p, chow, key, False)) or _moves(p, key, chow, False):
            need = h0 + (d if d < pair else pair)
            out.append((k, need - budget if need > budget else 0))
        if len(_SHORTS) >= _LIMIT:
            restart(_SHORTS)
        got = _SHORTS[ck] = tuple(out)
    return got


_BASE = (0, 9, 18, 27)


def _others_pair(costs: list[tuple[int, int]]) -> list[int]:
    """For each part p, the least h1 - h0 of the other parts, 2 at most (the pair elsewhere, or of huns)."""
    d0, d1, d2, d3 = costs[0][1], costs[1][1], costs[2][1], costs[3][1]
    a, b = (d0 if d0 < d1 else d1), (d2 if d2 < d3 else d3)
    return [min(2, d1, b), min(2, d0, b), min(2, a, d3), min(2, a, d2)]


def shortfalls(keys: list[int], huns: int, part: list[tuple[int, int] | None], counts: list[int],
               extra: int = 0, chow: bool = True, hun_kinds: tuple[int, ...] | None = None) -> dict[int, int]:
    """For each kind held, short() of the hand without one tile of it (with `extra` more huns):
    each part costed once, then per part the ranks held looked up in its kept table (the
    discarded tile's part costed again, the others as they are). `hun_kinds`: the kinds whose
    part is None (worked out from `part` when not given)."""
    costs = _costs(keys, chow)
    need0 = costs[0][0] + costs[1][0] + costs[2][0] + costs[3][0]
    pairs = _others_pair(costs)
    spare = huns + extra - need0
    out: dict[int, int] = {}
    update = out.update
    for p in range(4):
        key = keys[p]
        if key:
            update(_SHORTS.get((p, chow, key, spare + costs[p][0], pairs[p]))
                   or _part_shorts(p, key, chow, spare + costs[p][0], pairs[p]))
    if hun_kinds is None:
        hun_kinds = tuple(k for k in range(34) if part[k] is None)
    for k in hun_kinds:
        if counts[k]:
            out[k] = _short_with(costs, 0, costs[0], huns - 1 + extra)
    return out


def completing(keys: list[int], huns: int, part: list[tuple[int, int] | None], counts: list[int],
               chow: bool = True, hun_kinds: tuple[int, ...] | None = None) -> list[int]:
    """The kinds whose drawing gives a 13-tile hand (packed `keys`, `huns`) the winning shape,
    in order: each part costed once, then per part the ranks that complete it looked up in its
    kept table (the drawn tile's part costed again, the others as they are). `part[k]` is
    part_key(k), None for a hun; `hun_kinds` the kinds whose part is None (worked out from
    `part` when not given)."""
    costs = _costs(keys, chow)
    need0 = costs[0][0] + costs[1][0] + costs[2][0] + costs[3][0]
    pairs = _others_pair(costs)
    spare = huns - need0
    out: list[int] = []
    for p in range(4):
        key = keys[p]
        got = _WAITS.get((p, chow, key, spare + costs[p][0], pairs[p]))
        out += _part_waits(p, key, chow, spare + costs[p][0], pairs[p]) if got is None else got
    if hun_kinds is None:
        hun_kinds = tuple(k for k in range(34) if part[k] is None)
    if hun_kinds:
        hun_ok = need0 + min(2, min(c[1] for c in costs)) <= huns + 1
        out = [k for k in out if part[k] is not None]
        if hun_ok:
            out += [k for k in hun_kinds if counts[k] < 4]
            out.sort()
    return out


_BLOCK_COST: dict[tuple[tuple[int, ...], int, int, bool], tuple[int, int]] = lasting()


def suit_cost(key: int, chow: bool = True) -> tuple[int, int]:
    """(h0, h1) of a suit given as its packed counts. A suit falls apart into blocks of held ranks
    that no group can join (two empty ranks between them, one without chows): h0 is the blocks' h0
    summed, h1 that plus the least h1 - h0 of a block (the pair in one of them). A block's costs
    depend only on its counts and how near it lies to either end of the suit (where chows stop),
    so they are worked out once per such block and kept (a few thousand at most)."""
    ck = key if chow else -1 - key
    got = _SUIT_COST.get(ck)
    if got is None:
        c = [key // POW5[i] % 5 for i in range(9)]
        gap = 2 if chow else 1
        h0, d = 0, 2
        i = 0
        while i < 9:
            if not c[i]:
                i += 1
                continue
            last, zeros, k = i, 0, i
            while k < 9:
                if c[k]:
                    last, zeros = k, 0
                else:
                    zeros += 1
                    if zeros >= gap:
                        break
                k += 1
            bk = (tuple(c[i:last + 1]), min(i, 2), min(8 - last, 2), chow)
            bc = _BLOCK_COST.get(bk)
            if bc is None:
                if len(_BLOCK_COST) >= _LIMIT:
                    restart(_BLOCK_COST)
                block = sum(c[r] * POW5[r] for r in range(i, last + 1))
                bc = _BLOCK_COST[bk] = (_least_huns(block, False, chow), _least_huns(block, True, chow))
            h0 += bc[0]
            if bc[1] - bc[0] < d:
                d = bc[1] - bc[0]
            i = last + 1
        if len(_SUIT_COST) >= 4 * _LIMIT:  # every suit of at most 14 tiles, with chows and without: 810,700
            restart(_SUIT_COST)
        got = _SUIT_COST[ck] = (h0, h0 + d)
    return got


def _whole_suit_cost(key: int, chow: bool = True) -> tuple[int, int]:
    """(h0, h1) of a suit costed whole, without the blocks: what suit_cost must equal (tests)."""
    c = tuple(key // POW5[i] % 5 for i in range(9))
    return (_min_huns(c, False, chow), _min_huns(c, True, chow))


def missing(keys: list[int] | tuple[int, ...], counts: list[int], huns: int, chow: bool = True) -> int:
    """How many more huns the hand would need for the shape (0: it has it).
    `keys`: the three suits packed (natural tiles only), `counts`: by kind, for
    the honors (27-33; huns excluded), `huns`: the hun tiles held."""
    need = 0
    pair = 2
    for key in keys:
        if key:
            h0, h1 = suit_cost(key, chow)
            need += h0
            if h1 - h0 < pair:
                pair = h1 - h0
    for k in range(27, 34):
        c = counts[k]
        if c:
            h0, h1 = HONOR_COST[c]
            need += h0
            if h1 - h0 < pair:
                pair = h1 - h0
    need += pair
    return need - huns if need > huns else 0


def has_shape(concealed: list[int] | tuple[int, ...], hun_set: frozenset[int] | set[int], chow: bool = True) -> bool:
    """The same test from a list of tiles (3n + 2 of them): for tests and callers without packed keys."""
    counts = [0] * 34
    huns = 0
    for t in concealed:
        if t in hun_set:
            huns += 1
        else:
            counts[t] += 1
    return missing((pack(counts, 0), pack(counts, 9), pack(counts, 18)), counts, huns, chow) == 0
