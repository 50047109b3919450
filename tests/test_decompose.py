"""The hun-aware decomposition engine, checked against a plain independent
search on random hands with 0 to 8 huns."""

from __future__ import annotations

import random
from functools import lru_cache

import pytest
from handgen import random_shape

from tjmj_dsl.engine.hand import CHOW, PAIR, PUNG, hun_kinds_of, next_kind
from tjmj_dsl.engine.search import decompose

WINDS = (27, 28, 29, 30)
DRAGONS = (31, 32, 33)


def test_next_kind_wraps_and_cycles() -> None:
    cycles = (WINDS, DRAGONS)
    assert next_kind(8, cycles) == 0          # 9m → 1m
    assert next_kind(26, cycles) == 18        # 9s → 1s
    assert next_kind(2, cycles) == 3          # 3m → 4m
    assert next_kind(30, cycles) == 27        # 北 → 东
    assert next_kind(33, cycles) == 31        # 白 → 中
    assert hun_kinds_of(29, 2, cycles) == (29, 30)      # 西 → 西 北
    assert hun_kinds_of(33, 2, cycles) == (33, 31)      # 白 → 白 中
    assert hun_kinds_of(15, 3, cycles) == (15, 16, 17)  # 7p → 7p 8p 9p
    assert hun_kinds_of(15, 1, cycles) == (15,)


@lru_cache(maxsize=None)
def _melds(counts: tuple[int, ...], wild: int, n: int) -> bool:
    """Can `counts` plus `wild` jokers make exactly n melds?"""
    if n == 0:
        return sum(counts) == 0 and wild == 0
    if sum(counts) == 0:
        return wild == 3 * n
    k = next(i for i, c in enumerate(counts) if c)
    c = list(counts)
    for use in (3, 2, 1):  # pung of k with 3-use jokers
        if c[k] >= use and wild >= 3 - use:
            c2 = c.copy()
            c2[k] -= use
            if _melds(tuple(c2), wild - (3 - use), n - 1):
                return True
    if k < 27:
        for start in (k - 2, k - 1, k):
            if start // 9 != k // 9 or start < 0 or start % 9 > 6:
                continue
            c2 = c.copy()
            need = 0
            for f in (start, start + 1, start + 2):
                if f == k or (f > k and c2[f] > 0):
                    c2[f] -= 1
                else:
                    need += 1
            if need <= wild and _melds(tuple(c2), wild - need, n - 1):
                return True
    return False


def wins(counts: list[int], wild: int, n_melds: int = 4) -> bool:
    for k in range(34):
        for use in (2, 1):
            if counts[k] >= use and wild >= 2 - use:
                c = counts.copy()
                c[k] -= use
                if _melds(tuple(c), wild - (2 - use), n_melds):
                    return True
    return wild >= 2 and _melds(tuple(counts), wild - 2, n_melds)


def _random_hand(rng: random.Random, wild: int, winning: bool) -> list[int]:
    counts = [0] * 34
    if winning:
        groups = random_shape(rng, chow_share=0.5)
        tiles = [t for g in groups for t in g]
        rng.shuffle(tiles)
        tiles = tiles[wild:]
    else:
        tiles = [rng.randrange(34) for _ in range(14 - wild)]
    for t in tiles:
        counts[t] += 1
    return counts


@pytest.mark.parametrize("wild", range(9))
def test_decompose_finds_a_shape_exactly_when_one_exists(wild: int) -> None:
    rng = random.Random(1000 + wild)
    checked = 0
    for i in range(300):
        counts = _random_hand(rng, wild, winning=i % 2 == 0)
        if max(counts) > 4:
            continue
        got = decompose(tuple(counts), wild, 4, 1, True)
        assert bool(got) == wins(counts, wild), (counts, wild)
        checked += 1
        for groups, wm, wp in got:
            # every result covers exactly the natural tiles, with `wild` huns in all
            cover = [0] * 34
            huns = 3 * wm + 2 * wp
            for g in groups:
                for f, h in zip(g[1], g[2]):
                    if h:
                        huns += 1
                    else:
                        cover[f] += 1
            assert cover == counts and huns == wild
            assert sum(1 for g in groups if g[0] == PAIR) + wp == 1
            assert len(groups) + wm + wp == 5
    assert checked > 250


def test_all_readings_are_listed() -> None:
    # 111 222 333m + 789p + 55s: three pungs, or three 123m chows
    counts = [0] * 34
    for k, n in ((0, 3), (1, 3), (2, 3), (15, 1), (16, 1), (17, 1), (22, 2)):
        counts[k] = n
    got = decompose(tuple(counts), 0, 4, 1, True)
    shapes = sorted(tuple(sorted(g[0] for g in groups)) for groups, _, _ in got)
    assert shapes == [(PAIR, CHOW, CHOW, CHOW, CHOW), (PAIR, CHOW, PUNG, PUNG, PUNG)]


def test_huns_alone_stay_abstract() -> None:
    # 8 huns and 6 natural tiles making two melds: two hun-only groups (a meld and the pair)
    counts = [0] * 34
    for k in (0, 1, 2, 9, 10, 11):
        counts[k] = 1
    got = decompose(tuple(counts), 8, 4, 1, True)
    assert ((), 0, 0) not in got
    assert any(wm == 1 and wp == 1 for _, wm, wp in got)


def test_no_chows_when_the_rules_have_none() -> None:
    counts = [0] * 34
    for k in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12):
        counts[k] += 1
    assert decompose(tuple(counts), 0, 4, 1, True)
    assert not decompose(tuple(counts), 0, 4, 1, False)
