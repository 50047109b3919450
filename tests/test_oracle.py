"""An independent oracle for the rules as the rulebook words them (§3–§5), written straight from the
text with no code shared with tjmj: every hun tile is given every face by
brute force, every decomposition of the concrete tiles is listed, the patterns
are judged as the rulebook words them, and the best value is taken. The
scorer must agree with it on random hands with up to two hun tiles."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import pytest
from handgen import random_shape

from tjmj_dsl import Scorer
from tjmj_dsl.tiles import NAMES, format_tiles

M = lambda r: r - 1  # noqa: E731 - 万 rank r
HONOR_CYCLES = ((27, 28, 29, 30), (31, 32, 33))


def huns_of(ind: int) -> tuple[int, int]:
    if ind < 27:
        return ind, ind - ind % 9 + (ind % 9 + 1) % 9
    for c in HONOR_CYCLES:
        if ind in c:
            return ind, c[(c.index(ind) + 1) % len(c)]
    raise AssertionError


def decompositions(tiles: Counter, melds_needed: int):  # type: ignore[no-untyped-def,type-arg]
    """Tiles are (face, is_hun, is_t) with counts; yield lists of groups
    (kind, [tiles]) covering them exactly: one pair, melds_needed melds."""
    def rec(c: Counter, m: int, p: int):  # type: ignore[no-untyped-def,type-arg]
        left = sorted(k for k, v in c.items() if v)
        if not left:
            if m == 0 and p == 0:
                yield []
            return
        first = left[0]
        f = first[0]

        def take(group: list) -> Counter:  # type: ignore[type-arg]
            c2 = c.copy()
            for x in group:
                c2[x] -= 1
            return c2

        def combos(faces: list[int]):  # type: ignore[no-untyped-def]
            pools = [[k for k in left if k[0] == g] for g in faces]
            for pick in itertools.product(*pools):
                if pick[0] != first:
                    continue
                need = Counter(pick)
                if all(c[k] >= n for k, n in need.items()):
                    yield list(pick)

        if p:
            for g in combos([f, f]):
                for rest in rec(take(g), m, 0):
                    yield [("pair", g)] + rest
        if m:
            for g in combos([f, f, f]):
                for rest in rec(take(g), m - 1, p):
                    yield [("pung", g)] + rest
            if f < 27 and f % 9 <= 6:
                for g in combos([f, f + 1, f + 2]):
                    for rest in rec(take(g), m - 1, p):
                        yield [("chow", g)] + rest
    yield from rec(tiles, melds_needed, 1)


def oracle(concealed: list[int], draw: int, indicator: int, declared: list[tuple[str, int]], kong_draw: Any) -> int:
    """The best fan of the hand, or 0 without a winning shape (rulebook §3–§5)."""
    hun = set(huns_of(indicator))
    all_tiles = concealed + [draw] + [t for kind, t in declared for _ in range(3 if kind == "pung" else 4)]
    su = not any(t in hun for t in all_tiles)
    hun_suit = "mps"[indicator // 9] if indicator < 27 else "z"
    hand = concealed + [draw]
    t_index = len(hand) - 1
    hun_idx = [i for i, x in enumerate(hand) if x in hun]
    best = 0
    for faces in itertools.product(range(34), repeat=len(hun_idx)):
        face = list(hand)
        for i, fc in zip(hun_idx, faces):
            face[i] = fc
        tiles = Counter((face[i], i in hun_idx, i == t_index) for i in range(len(hand)))
        for d in decompositions(tiles, 4 - len(declared)):
            best = max(best, _value(d, su, hun_suit, kong_draw))
    return best


def _value(d: list, su: bool, hun_suit: str, kong_draw: Any) -> int:  # type: ignore[type-arg]
    chows = [g for kind, g in d if kind == "chow"]
    zhuo5 = any(g[1][2] and g[1][0] == M(5) and g[0][0] == M(4) for g in chows)
    t_group = next(g for kind, g in d if any(x[2] for x in g))
    t_kind = next(kind for kind, g in d if any(x[2] for x in g))
    others_hun = sum(1 for x in t_group if x[1] and not x[2])
    hundiao = t_kind == "pair" and others_hun == 1
    shuanghun = t_kind != "pair" and others_hun == 2

    def longs(exclude_t_group: bool) -> set[str]:
        out = set()
        for s, base in (("m", 0), ("p", 9), ("s", 18)):
            starts = [g[0][0] for g in chows if not (exclude_t_group and g is t_group)]
            if all(base + r in starts for r in (0, 3, 6)):
                out.add(s)
        return out

    best = 0
    # rule 2: a 双混吊 claimed with a 龙 needs a 龙 apart from the 双混吊 meld
    for claim_sh in ([True, False] if shuanghun else [False]):
        ls = longs(exclude_t_group=claim_sh)
        long = bool(ls)
        benhun = hun_suit in ls
        add = (3 if zhuo5 else 0) + (4 if long else 0)
        mul = 1
        for holds in (su, hundiao, claim_sh, benhun, kong_draw is not None):
            if holds:
                mul *= 2
        best = max(best, (add or 1) * mul)
    return best


def _random_hand(rng: random.Random, n_huns: int) -> dict[str, Any] | None:
    ind = rng.randrange(34)
    hk = huns_of(ind)
    groups = random_shape(rng)
    if rng.random() < 0.35:  # often a 龙, so that 龙, 本混 and 捉5 inside a 龙 come up
        base = rng.choice((0, 9, 18))
        groups[1:4] = [[base, base + 1, base + 2], [base + 3, base + 4, base + 5], [base + 6, base + 7, base + 8]]
    if rng.random() < 0.35:  # often a 4-5-6万
        groups[rng.randrange(4)] = [3, 4, 5]
    declared: list[tuple[str, int]] = []
    kong_draw = None
    if rng.random() < 0.25 and groups[0][0] == groups[0][1] and groups[0][0] not in hk:
        kind = rng.choice(["pung", "kong", "concealed_kong"])
        declared.append((kind, groups[0][0]))
        if kind != "pung" and rng.random() < 0.5:
            kong_draw = "exposed" if kind == "kong" else "concealed"
        groups = groups[1:]
    tiles = [t for g in groups for t in g]
    if rng.random() < 0.15:
        tiles[rng.randrange(len(tiles))] = rng.randrange(34)
    for i in rng.sample(range(len(tiles)), n_huns):
        tiles[i] = rng.choice(hk)
    rng.shuffle(tiles)
    if 4 in tiles and rng.random() < 0.5:  # draw the 5万 now and then (捉5)
        tiles.remove(4)
        tiles.append(4)
    draw = tiles.pop()
    counts = Counter(tiles + [draw] + [t for kind, t in declared for _ in range(3 if kind == "pung" else 4)])
    if max(counts.values()) > 4 or counts[ind] > 3 or sum(counts[h] for h in hk) != n_huns:
        return None
    return {"concealed": tiles, "draw": draw, "indicator": ind, "declared": declared, "kong_draw": kong_draw}


@pytest.fixture(scope="module")
def scorer() -> Scorer:
    return Scorer()


@pytest.mark.parametrize("n_huns, count", [(0, 300), (1, 150), (2, 40)])
def test_scorer_agrees_with_a_brute_force_reading(scorer: Scorer, n_huns: int, count: int) -> None:
    rng = random.Random(4242 + n_huns)
    checked = wins = 0
    fans: set[int] = set()
    while checked < count:
        h = _random_hand(rng, n_huns)
        if h is None:
            continue
        req: dict[str, Any] = {"concealed": format_tiles(sorted(h["concealed"])), "draw": NAMES[h["draw"]],
                               "indicator": NAMES[h["indicator"]],
                               "melds": [{"type": k, "tile": NAMES[t]} for k, t in h["declared"]]}
        if h["kong_draw"]:
            req["kong_draw"] = h["kong_draw"]
        r = scorer.score(req)
        assert r.get("error") is None, (req, r)
        want = oracle(h["concealed"], h["draw"], h["indicator"], h["declared"], h["kong_draw"])
        assert r["fan"] == want, (req, r["formula"], want)
        assert r["win"] == (want >= 2)
        checked += 1
        wins += r["win"]
        fans.add(want)
    # the sample exercises the patterns: wins, and several different values
    assert wins >= count // 20 and len(fans) >= 4, (wins, sorted(fans))
