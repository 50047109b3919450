"""An independent check of the scorer against the rules as the rulebook words them.

Every expected value below is derived by hand from the seeds and the rulebook
(generated/tianjin/rulebook.md: §2 huns, §3 shape and min fan, §4 patterns and
the numbered decisions that bind the table — rules/tianjin.yaml `decisions:`
best_decomposition (rule 1), shuanghun_apart (2), zhuo5_in_long (3),
exclusions_by_definition (4), no_kong_beside_shuanghun_zhuo5_long (5) —, §5
algebra), never copied from the scorer's output. Each
derivation is written next to the hand: the readings (decompositions D) that
were considered and why the chosen one is the best (§4 rule 1).

Notation (tjmj_dsl.notation): m = 万 (seed "W"), p = 饼 (seed "B"), s = 条
(seed "T"); loose tiles are the concealed hand, `[5555p]` an exposed kong,
`(5555p)` a concealed kong, `[555p]` an exposed pung, `+6s` the winning tile t.
Huns = the indicator's kind and the next one (§2): 7p → 7p 8p, 8m → 8m 9m,
C → C F, 9s → 9s 1s.

Pattern values (§4): tiliu 1 (base), zhuo5 3 and long 4 (add), su, hundiao,
shuanghun, benhun, gangkai ×2 and tianhu, dihu ×4 (mul).
fan = (sum of adds, or 1 when none) × product of muls (§5).

Every test runs on both backends (generated code and the reference
interpreter), and a last test checks that both return identical results for
every hand of this file.
"""

from __future__ import annotations

from typing import Any

import pytest

from tjmj_dsl import Scorer
from tjmj_dsl.notation import parse_hand

BACKENDS = ["generated", "interpreter"]
ALL_TILES = ([f"{r}{s}" for s in "mps" for r in range(1, 10)]
             + ["E", "S", "W", "N", "C", "F", "P"])

# The order in which the formula (and `patterns`) lists the pattern ids: the
# rule file's order.
ORDER = ["tiliu", "zhuo5", "long", "su", "hundiao", "shuanghun", "benhun",
         "gangkai", "tianhu", "dihu"]

_SCORERS: dict[tuple[str, str | None], Scorer] = {}
# every result scored by the tests above, per backend, for the final cross-check
_RESULTS: dict[tuple[str, tuple[Any, ...]], dict[str, Any]] = {}


def scorer(backend: str, profile: str | None = None) -> Scorer:
    key = (backend, profile)
    if key not in _SCORERS:
        _SCORERS[key] = Scorer(profile=profile, backend=backend)
    return _SCORERS[key]


@pytest.fixture(params=BACKENDS)
def s(request: pytest.FixtureRequest) -> Scorer:
    return scorer(request.param)


def req(hand: str, indicator: str, **kw: Any) -> dict[str, Any]:
    return dict(parse_hand(hand), indicator=indicator, **kw)


def _key(hand: str, indicator: str, kw: dict[str, Any]) -> tuple[Any, ...]:
    return (hand, indicator, tuple(sorted(kw.items())))


def score(s: Scorer, hand: str, indicator: str, **kw: Any) -> dict[str, Any]:
    r = s.score(req(hand, indicator, **kw))
    _RESULTS[(s.backend, _key(hand, indicator, kw))] = r
    return r


def expect(s: Scorer, hand: str, indicator: str, fan: int, patterns: list[str],
           **kw: Any) -> dict[str, Any]:
    """Score and check fan, patterns (in rule-file order), win/reason, formula."""
    assert patterns == sorted(patterns, key=ORDER.index), "test bug: list patterns in rule-file order"
    r = score(s, hand, indicator, **kw)
    shown = {k: v for k, v in r.items() if k != "decomposition"}
    assert r.get("error") is None, shown
    assert (r["fan"], r["patterns"]) == (fan, patterns), shown
    assert r["win"] is (fan >= 2), shown              # §3: a win needs fan ≥ 2
    if fan == 1:
        assert r["reason"] == "below_min_fan", shown  # a bare 提溜 cannot win
    if fan >= 1:
        assert r["formula"].endswith(f"= {fan}"), shown
    if fan >= 2:
        assert r["total"] == fan, shown               # seed-001 profile: the table shows fan alone
    return r


def expect_refused(s: Scorer, hand: str, indicator: str, match: str, **kw: Any) -> dict[str, Any]:
    """The request describes no legal hand; `match` is a piece of the expected message."""
    r = score(s, hand, indicator, **kw)
    assert r["win"] is False and r["reason"] == "invalid_request", r
    assert match in (r.get("error") or {}).get("message", ""), r
    return r


def waits(s: Scorer, hand: str, indicator: str, **kw: Any) -> dict[str, dict[str, Any]]:
    out = s.waits(req(hand, indicator, **kw))
    assert "error" not in out, out
    return {w["tile"]: w for w in out["waits"]}


# ---------------------------------------------------------------------------
# 提溜 (tiliu), min fan 2, no shape
# ---------------------------------------------------------------------------

class TestTiliuAndMinFan:
    @pytest.mark.parametrize("indicator", ["8m", "9m"])
    @pytest.mark.parametrize("draw", ["3s", "6s"])
    def test_seed001_tiliu_example_is_not_a_win(self, s, indicator, draw):
        # seed 001 胡牌条件: 3W3W 1T2T3T 1B2B3B 4W5W9W(9W为混) 4T5T, 摸上3T或6T
        # → 提溜, 只有1番, 不能胡. W=m, T=s, B=p. 9W is a hun for indicator 8m
        # (huns 8m 9m) and for indicator 9m (huns 9m 1m); the hand holds no 8m
        # and no 1m, so in both cases 9m is the only hun tile.
        # Best D: 33m | 123s | 123p | 4m5m+9m(as 3m or 6m) | 345s/456s.
        # No su (9m is a hun); 混吊 would need the pair t+9m and 12 tiles
        # 33m 123s 123p 45m 45s as 4 melds (impossible); 双混吊 needs 2 huns;
        # 捉5 needs t=5m (or a hun); no 龙.  → 1, not a win.
        expect(s, f"33m 123s 123p 459m 45s +{draw}", indicator, 1, ["tiliu"])

    @pytest.mark.parametrize("indicator,hun_draw", [("8m", "8m"), ("9m", "1m")])
    def test_seed001_example_drawing_a_hun_is_still_tiliu(self, s, indicator, hun_draw):
        # seed 001: "只有摸上3T或6T或混才能胡 … 这样叫提溜". A drawn hun t plus 9m:
        # 混吊 = pair t+9m leaves 33m 123s 123p 45m 45s (no 4 melds); 双混吊
        # needs t + two other huns; 捉5 with t as 5m and 9m as 6m leaves
        # 33m 5m 123s 123p 45s (no).  → 1.
        expect(s, f"33m 123s 123p 459m 45s +{hun_draw}", indicator, 1, ["tiliu"])

    def test_seed001_example_has_no_winning_tile(self, s):
        # Following the derivation above for every tile: no draw reaches 2 fan,
        # so the 13-tile hand has no winning tile at all (waits is empty).
        assert waits(s, "33m 123s 123p 459m 45s", "8m") == {}

    def test_plain_su_tiliu_wins(self, s):
        # 素提溜 = 1×2 = 2 (seed 001). Huns 7p 8p; none in the hand.
        expect(s, "345m 123s EEE 77m 45s +6s", "7p", 2, ["tiliu", "su"])

    def test_no_shape_gives_zero(self, s):
        # §3: only 4 melds + a pair. 123m 456p 789s EE 1s 5p 9m: no shape.
        r = score(s, "123m 456p 789s EE 1s 5p +9m", "C")
        assert (r["win"], r["fan"], r["reason"]) == (False, 0, "no_winning_shape"), r


# ---------------------------------------------------------------------------
# §2 huns: which kinds, wrapping, and huns in a kong
# ---------------------------------------------------------------------------

class TestHuns:
    @pytest.mark.parametrize("indicator,kinds", [
        ("3p", ["3p", "4p"]), ("9s", ["9s", "1s"]), ("9m", ["9m", "1m"]),
        ("W", ["W", "N"]), ("N", ["N", "E"]), ("P", ["P", "C"]), ("C", ["C", "F"])])
    def test_hun_kinds_wrap(self, s, indicator, kinds):
        # §2: the indicator's kind and the next; suits 9→1, 东南西北东, 中发白中.
        r = score(s, "123m 456p 789s SSS 5s +5s", indicator)
        assert sorted(r["hun_kinds"]) == sorted(kinds), r

    @pytest.mark.parametrize("indicator,hun", [("9m", "1m"), ("N", "E"), ("P", "C"), ("9s", "1s")])
    def test_wrapped_hun_is_wild(self, s, indicator, hun):
        # The wrapped kind is a hun: 4 melds + that tile is a 混吊 wait, and
        # t = 5s pairs with it → 混吊 = 2 (a non-hun single would be 提溜 1).
        melds = "234p 456p 789p WWW" if hun != "W" else "234p 456p 789p SSS"
        expect(s, f"{melds} {hun} +5s", indicator, 2, ["tiliu", "hundiao"])

    def test_kong_of_huns_is_only_its_own_face(self, s):
        # §2: in a kong a hun is only its own face. (8888p) with huns 7p 8p
        # cannot lend a wild tile: 123m 456s 789s + 5m 9m has no pair → no shape.
        r = score(s, "(8888p) 123m 456s 789s 5m +9m", "7p")
        assert (r["win"], r["fan"], r["reason"]) == (False, 0, "no_winning_shape"), r
        # t = 5m pairs naturally; the kong holds huns, so no 素 → 提溜 1.
        expect(s, "(8888p) 123m 456s 789s 5m +5m", "7p", 1, ["tiliu"])


# ---------------------------------------------------------------------------
# 捉5 (zhuo5, add 3)
# ---------------------------------------------------------------------------

class TestZhuo5:
    # §4: a chow of D is 4万-5万-6万 and t fills its 5万 slot (t is 5万, or a
    # hun standing for 5万); 4万/6万 may be huns. Only 万.

    def test_5m_drawn_into_4m_6m_su(self, s):
        # 素5 = 捉5 + 素 = 3×2 = 6 (seed 001). No hun (huns 7p 8p).
        expect(s, "46m 123s EEE 77m 456s +5m", "7p", 6, ["zhuo5", "su"])

    def test_5m_drawn_into_4m_6m_with_a_hun_elsewhere(self, s):
        # Huns 9s 1s: the 1s of 123s is a hun used as its own face, so no su.
        # 混吊 = pair 5m+1s leaves 46m 23s … (no). One hun only: no 双混吊.
        # 捉5 = 3 (seed 001 "捉5 = 3番").
        expect(s, "46m 123s EEE 77m 456s +5m", "9s", 3, ["zhuo5"])

    def test_hun_drawn_standing_for_5m(self, s):
        # t = 7p, a hun (huns 7p 8p), stands for 5万: 4m 7p(5m) 6m. It is the
        # only hun: no 混吊 (t is a hun, the pair would need a second hun),
        # no su.  → 3.
        expect(s, "46m 123s EEE 77m 456s +7p", "7p", 3, ["zhuo5"])

    def test_hun_drawn_standing_for_5m_with_another_hun_as_own_face(self, s):
        # Huns 9s 1s; t = 9s stands for 5万; the 1s of 123s is a second hun.
        # 混吊 = pair 9s+1s leaves 46m 23s … (no); 双混吊 needs t + 2 huns.
        # → 捉5 = 3.
        expect(s, "46m 123s EEE 77m 456s +9s", "9s", 3, ["zhuo5"])

    def test_4m_filled_by_a_hun_of_another_kind(self, s):
        # 7p (hun) stands for 4万: 7p(4m) 5m 6m, t = 5m. 混吊 = pair 5m+7p
        # leaves 6m 123s EEE 77m 456s (no).  → 3.
        expect(s, "6m 7p 123s EEE 77m 456s +5m", "7p", 3, ["zhuo5"])

    def test_4m_is_itself_a_hun(self, s):
        # Indicator 3m → huns 3m 4m: the 4m of the chow is a hun tile (own
        # face). 混吊 = pair 5m+4m leaves 6m … (no).  → 3.
        expect(s, "46m 123s EEE 77m 456s +5m", "3m", 3, ["zhuo5"])

    def test_6m_is_itself_a_hun(self, s):
        # Indicator 6m → huns 6m 7m; 99m pair (not 77m, which would add huns).
        # 混吊 = pair 5m+6m leaves 4m … (no).  → 3.
        expect(s, "46m 123s EEE 99m 456s +5m", "6m", 3, ["zhuo5"])

    def test_t_is_5m_and_itself_a_hun(self, s):
        # Indicator 5m → huns 5m 6m: t = 5m is a hun standing for its own face
        # in 4-5-6万 (the 6m is a hun too). 混吊: pair t+6m leaves 4m … (no);
        # 双混吊 needs two huns besides t (only 6m).  → 3.
        expect(s, "46m 123s EEE 77m 456s +5m", "5m", 3, ["zhuo5"])

    @pytest.mark.parametrize("suit", ["p", "s"])
    def test_near_miss_5_of_another_suit(self, s, suit):
        # seed 001: 捉5只限于"四伍六万"，饼子或条子是不允许的. Same shape as
        # test_5m_drawn_into_4m_6m_su in 饼/条: 素提溜 = 2, not 6.
        other = "s" if suit == "p" else "p"
        expect(s, f"46{suit} 123{other} EEE 77m 456{other} +5{suit}", "C", 2, ["tiliu", "su"])

    def test_near_miss_5m_drawn_as_a_pair(self, s):
        # Single wait on 5万; no 4万/6万 in the hand → 55m is the pair. 素 = 2.
        expect(s, "5m 123s EEE 789p 456s +5m", "C", 2, ["tiliu", "su"])

    def test_near_miss_4m_6m_present_but_5m_pairs(self, s):
        # 444m 666m + t=5m: 4m×3 5m×2 6m×3 cannot hold a 4-5-6万 chow (one
        # chow leaves 44m 5m 66m, two leave 4m 6m), so the only D is
        # 444m 666m 55m 123s 456s: no 捉5 (seed: 如果有"四伍六万"但不能构成一副
        # 不能成为捉5). 素 = 2.
        expect(s, "444m 666m 5m 123s 456s +5m", "C", 2, ["tiliu", "su"])

    @pytest.mark.parametrize("hand", ["56m 123s EEE 77m 456s +4m",
                                      "45m 123s EEE 77m 456s +6m",
                                      "456m 123s EEE 77m 45s +6s"])
    def test_near_miss_456m_chow_whose_5_is_not_t(self, s, hand):
        # A 4-5-6万 chow exists but t is its 4万, its 6万, or elsewhere. 素 = 2.
        expect(s, hand, "C", 2, ["tiliu", "su"])

    def test_near_miss_5m_in_456m_but_best_reading_is_hundiao_long(self, s):
        # 123m 456m 789m EEE C (huns C F), t = 5m. Readings:
        #  - pair t+C (混吊), natural 456m → 龙 × 混吊 = 4×2 = 8;
        #  - t in 4-5-6万 (捉5), pair natural 5m + C (no t: not 混吊) → 3+4 = 7.
        # Rule 1: the best is 8, and its D has no 捉5.
        expect(s, "123m 456m 789m EEE C +5m", "C", 8, ["long", "hundiao"])


# ---------------------------------------------------------------------------
# 龙 (long, add 4)
# ---------------------------------------------------------------------------

class TestLong:
    # §4: three chows of D are 1-2-3, 4-5-6, 7-8-9 of one suit (huns may
    # fill); the other meld and the pair are free.

    @pytest.mark.parametrize("suit", ["m", "p", "s"])
    def test_su_long(self, s, suit):
        # 素龙 = 4×2 = 8 (seed 001). Huns C F, none in the hand.
        other = "p" if suit == "m" else "m"
        expect(s, f"123{suit} 456{suit} 78{suit} EEE 55{other} +9{suit}", "C", 8, ["long", "su"])

    @pytest.mark.parametrize("suit", ["m", "p", "s"])
    def test_long_with_a_hun_filling(self, s, suit):
        # C (hun; huns C F) stands for 2 of the suit. 混吊 = pair t+C leaves
        # 1 3 456 789 EEE 5 (12 tiles, no 4 melds). Honor huns: no 本混.
        # 提溜龙 = 4 (seed 001).
        other = "p" if suit == "m" else "m"
        expect(s, f"1{suit} C 3{suit} 456{suit} 789{suit} EEE 5{other} +5{other}", "C", 4, ["long"])

    @pytest.mark.parametrize("suit", ["m", "p", "s"])
    def test_long_with_the_drawn_hun_filling(self, s, suit):
        # t = C (hun) stands for 5 of the suit. No second hun: no 混吊
        # (t is a hun; the pair would need another hun tile).  → 4 in 饼/条;
        # in 万 the drawn hun fills the 5万 slot of 4-5-6万, so it is also
        # 捉5 inside the 龙 (rule 3): 3+4 = 7.
        other = "p" if suit == "m" else "m"
        fan, pats = (7, ["zhuo5", "long"]) if suit == "m" else (4, ["long"])
        expect(s, f"123{suit} 46{suit} 789{suit} EEE 55{other} +C", "C", fan, pats)

    def test_long_with_two_huns_filling(self, s):
        # C→2p, F→5p; t = 5s. 双混吊 meld t+C+F leaves 1p 3p 4p 6p … (no);
        # 混吊 pair t+C leaves 1p 3p 4p F 6p … (1-3 gap unfilled, no).  → 4.
        expect(s, "1p C 3p 4p F 6p 789p EEE 5s +5s", "C", 4, ["long"])

    def test_near_miss_all_nine_ranks_but_not_three_chows(self, s):
        # 123m 345m 678m 99m holds every rank 1-9, but 123+456+789 leaves 3m 9m
        # (no pair). No 龙. 素 = 2.
        expect(s, "123m 345m 678m 9m EEE +9m", "C", 2, ["tiliu", "su"])

    def test_near_miss_123_345_789(self, s):
        # The brief's example: 123 345 789 (no 6) is not 龙. 素 = 2.
        expect(s, "123m 345m 789m EEE 5s +5s", "C", 2, ["tiliu", "su"])

    def test_near_miss_long_split_over_suits(self, s):
        # 123m 456p 789s: one suit only (在"万""饼""条"中有一种花色). 素 = 2.
        expect(s, "123m 456p 789s EEE 5s +5s", "C", 2, ["tiliu", "su"])


# ---------------------------------------------------------------------------
# 素 (su, ×2)
# ---------------------------------------------------------------------------

class TestSu:
    # §4: no hun tile in the 14 tiles (a kong of hun tiles counts as holding huns).

    def test_su(self, s):
        # 素提溜 = 2; huns 7p 8p absent.
        expect(s, "345m 123s EEE 77m 45s +6s", "7p", 2, ["tiliu", "su"])

    def test_near_miss_one_hun_as_its_own_face(self, s):
        # Indicator 5m → huns 5m 6m: the 5m of 345m is a hun tile used as its
        # own face. 混吊 pair 6s+5m leaves 34m … (no). No su → 提溜 1, no win.
        expect(s, "345m 123s EEE 77m 45s +6s", "5m", 1, ["tiliu"])

    def test_near_miss_hun_pair_gives_hundiao_not_su(self, s):
        # Indicator 7m → huns 7m 8m: the 77m pair are huns. Best D: pair
        # t(6s)+7m (混吊), 4s5s+7m(6s) chow → 混吊 2; never 素.
        expect(s, "345m 123s EEE 77m 45s +6s", "7m", 2, ["tiliu", "hundiao"])

    def test_near_miss_drawn_hun_as_its_own_face(self, s):
        # Indicator 6s → huns 6s 7s: t = 6s is a hun standing for itself in
        # 456s; no other hun (so no 混吊: t is a hun, no second hun). No 素 → 1.
        expect(s, "345m 123s EEE 77m 45s +6s", "6s", 1, ["tiliu"])

    def test_kong_of_non_hun_tiles_keeps_su(self, s):
        # (1111p) with huns 7p 8p: no hun tile. 素 = 2.
        expect(s, "(1111p) 345m 123s 77m 45s +6s", "7p", 2, ["tiliu", "su"])

    def test_near_miss_kong_of_hun_tiles_breaks_su(self, s):
        # Indicator 9p → huns 9p 1p: (1111p) is a kong of huns (only its own
        # face in a kong, §2) and breaks 素. Nothing else → 1, no win.
        expect(s, "(1111p) 345m 123s 77m 45s +6s", "9p", 1, ["tiliu"])


# ---------------------------------------------------------------------------
# 混吊 (hundiao, ×2)
# ---------------------------------------------------------------------------

class TestHundiao:
    # §4: the pair of D is t plus one hun tile (t a hun: two hun tiles).
    # seed 001: 手上有四副，另外一张是混，最后摸上任何一张牌胡，为单混吊。

    HAND = "123m 456p 789s EEE 8p"   # 4 melds + 8p, huns 7p 8p (indicator 7p)

    def test_any_draw_wins_as_hundiao(self, s):
        # Every one of the 34 kinds can be drawn (no kind is held 4 times) and
        # pairs with 8p. Nothing better: no 龙 (one chow per suit), no 捉5
        # (no 4万/6万), 双混吊 needs two huns besides t. So every draw is
        # 混吊 = 2.
        w = waits(s, self.HAND, "7p")
        assert sorted(w) == sorted(ALL_TILES)
        for tile, r in w.items():
            assert (r["fan"], r["patterns"]) == (2, ["tiliu", "hundiao"]), (tile, r)

    @pytest.mark.parametrize("draw", ["1m", "5m", "9p", "3s", "E", "N", "P"])
    def test_several_draws(self, s, draw):
        expect(s, f"{self.HAND} +{draw}", "7p", 2, ["tiliu", "hundiao"])

    @pytest.mark.parametrize("draw", ["7p", "8p"])
    def test_drawn_hun_pairs_with_the_hun(self, s, draw):
        # t is itself a hun: the pair is two hun tiles → 混吊 = 2.
        expect(s, f"{self.HAND} +{draw}", "7p", 2, ["tiliu", "hundiao"])

    def test_near_miss_non_hun_single_wins_on_drawn_hun(self, s):
        # seed 001: 手上有四副，另外一张不是混，最后摸上混，则不构成单混吊.
        # Pair 5s + t(8p as 5s): t is a hun but the other pair tile is not →
        # not 混吊; no su (t is a hun). 提溜 1, not a win.
        expect(s, "123m 456p 789s EEE 5s +8p", "7p", 1, ["tiliu"])

    def test_near_miss_waits_of_a_non_hun_single(self, s):
        # 4 melds + 5s (huns 7p 8p): only 5s wins (natural pair, no hun → 素
        # = 2); a drawn hun (7p, 8p) is 提溜 1 and does not win; no other
        # tile completes the hand.
        w = waits(s, "123m 456p 789s EEE 5s", "7p")
        assert list(w) == ["5s"] and (w["5s"]["fan"], w["5s"]["patterns"]) == (2, ["tiliu", "su"]), w

    def test_hun_in_a_meld_can_become_the_pair(self, s):
        # 123m 456p 7s C 9s EEE 8s, huns C F: at 13 tiles this is also
        # 4 melds (789s natural) + a hun single C. t = F (a hun): D with 789s
        # natural and the pair F+C (two hun tiles, t among them) → 混吊 = 2.
        # §4 judges D, so this is not the "non-hun single" near-miss.
        expect(s, "123m 456p 7s C 9s EEE 8s +F", "C", 2, ["tiliu", "hundiao"])

    def test_near_miss_non_hun_single_drawn_natural(self, s):
        # Same hand, t = 5s: a natural pair, no hun at all → 素 = 2, not 混吊.
        expect(s, "123m 456p 789s EEE 5s +5s", "7p", 2, ["tiliu", "su"])

    def test_hundiao_long(self, s):
        # 混吊龙 = 4×2 = 8 (seed 001). Huns C F; pair t(5s)+C.
        expect(s, "123m 456m 789m EEE C +5s", "C", 8, ["long", "hundiao"])

    def test_hundiao_benhun_long(self, s):
        # 混吊本混龙 = 4×2×2 = 16 (seed 001). Indicator 2m → huns 2m 3m; the
        # 123m of the 龙 uses 2m 3m as own faces, the extra 2m pairs with t.
        # 双混吊 would take 2 of the 3 hun tiles and leave 1m + 1 hun for 123m
        # (no). → 龙 + 混吊 + 本混 = 16.
        expect(s, "123m 456m 789m EEE 2m +5s", "2m", 16, ["long", "hundiao", "benhun"])


# ---------------------------------------------------------------------------
# 双混吊 (shuanghun, ×2) and rule 2
# ---------------------------------------------------------------------------

class TestShuanghun:
    # §4: one meld of D is t plus two hun tiles. seed 001: 手上有三副一将，
    # 另外两张是混，最后摸上任何一张牌胡，为双混吊。
    # Note: 3 melds + pair + two huns can always also be read as 混吊 (pair
    # t + hun, the old pair + the other hun as a pung): both are ×2, so
    # without 捉5 the two readings tie and either may be shown. 双混吊 is
    # strictly better only with 捉5 (捉5 and 混吊 both need t).

    HAND = "123m 456p EEE 99s 7p 8p"   # 3 melds + pair + two huns (7p 8p, indicator 7p)
    TIE = (["tiliu", "shuanghun"], ["tiliu", "hundiao"])

    def test_any_draw_wins(self, s):
        # Any t makes the meld t+7p+8p → 2 (or ties with 混吊). Better only with
        # 捉5: the meld 7p(4万) t(5万) 8p(6万) when t is 5万 or t is a hun
        # standing for 5万 (t = 7p or 8p) → 双混捉5 = 3×2 = 6. No 龙 possible.
        w = waits(s, self.HAND, "7p")
        assert sorted(w) == sorted(ALL_TILES)
        for tile, r in w.items():
            if tile in ("5m", "7p", "8p"):
                assert (r["fan"], r["patterns"]) == (6, ["zhuo5", "shuanghun"]), (tile, r)
            else:
                assert r["fan"] == 2 and r["patterns"] in self.TIE, (tile, r)

    @pytest.mark.parametrize("draw", ["1s", "E", "9s", "5p"])
    def test_several_draws(self, s, draw):
        r = score(s, f"{self.HAND} +{draw}", "7p")
        assert r["win"] and r["fan"] == 2 and r["patterns"] in self.TIE, r

    @pytest.mark.parametrize("draw", ["7p", "8p"])
    def test_drawn_hun_is_shuanghun_zhuo5(self, s, draw):
        # t is a hun standing for 5万 between 7p(4万) and 8p(6万): 双混捉5 = 6.
        expect(s, f"{self.HAND} +{draw}", "7p", 6, ["zhuo5", "shuanghun"])

    def test_shuanghun_zhuo5(self, s):
        # 双混捉5 = 3×2 = 6 (seed 001); §4 rule 2: the meld is
        # 4万(hun)-5万(t)-6万(hun). Huns C F.
        expect(s, "123p 456s EEE 99s C F +5m", "C", 6, ["zhuo5", "shuanghun"])

    @pytest.mark.parametrize("draw", ["4s", "5s"])
    def test_near_miss_one_hun_only(self, s, draw):
        # 3 melds + pair 99s + C + 5s (huns C F): one hun is not 双混吊.
        # t = 4s: C fills 4s5s → 345s/456s, pair 99s → 1. t = 5s: 555s with C
        # (t + one hun + a natural tile: not 双混吊) or 55s pair + 99s C → 1;
        # 混吊 pair t+C leaves 123m 456p EEE 99s 5s (no).  → 提溜 1.
        expect(s, f"123m 456p EEE 99s C 5s +{draw}", "C", 1, ["tiliu"])

    def test_near_miss_two_huns_both_needed_elsewhere(self, s):
        # Huns C F fill 1m_3m and 4p_6p; t = 3m. 双混吊 meld t+C+F leaves
        # 1m 4p 6p 789s EEE 99s (no); 混吊 pair t+C leaves 1m 4p 6p F … (two
        # gaps, one hun: no). → 提溜 1, not a win.
        expect(s, "1m C 4p F 6p 789s EEE 99s +3m", "C", 1, ["tiliu"])

    def test_rule2_long_only_through_the_shuanghun_meld(self, s):
        # 123m 456m EEE 55s C F, t = 8m (huns C F, honors: no 本混).
        # The only 龙 needs 7-8-9万 = C(7m) t F(9m), i.e. the t+2-hun meld.
        # Rule 2 forbids counting 双混吊 with a 龙 that uses that meld, so:
        #   龙 alone = 4;  双混吊 alone (meld t+C+F, no 龙) = 2;
        #   混吊 (pair t+C, 55s+F) = 2.  → 4, never (4)×2 = 8.
        expect(s, "123m 456m EEE 55s C F +8m", "C", 4, ["long"])

    def test_rule2_zhuo5_long_only_through_the_shuanghun_meld(self, s):
        # 123m 789m EEE 55s C F, t = 5m: the 4-5-6万 chow is C t F.
        #   捉5 + 龙 (rule 3, not claiming 双混吊) = 3+4 = 7;
        #   捉5 + 双混吊 (no 龙) = 3×2 = 6;  混吊 = 2.
        # (seed: 双混儿捉伍儿龙 — 四伍六万不能是龙里面的)  → 7, never 14.
        expect(s, "123m 789m EEE 55s C F +5m", "C", 7, ["zhuo5", "long"])

    def test_rule2_separate_long_counts_with_shuanghun(self, s):
        # 双混吊龙: a natural 龙 in 万 plus the meld t(E)+C+F → 4×2 = 8. It
        # ties with 混吊龙 (pair E+C, 55s+F → 555s): 4×2 = 8; either may be
        # shown. What rule 2 forbids is only a 龙 through the 双混吊 meld.
        r = score(s, "123m 456m 789m 55s C F +E", "C")
        assert r["fan"] == 8 and r["patterns"] in (["long", "shuanghun"], ["long", "hundiao"]), r

    def test_rule2_shuanghun_zhuo5_long(self, s):
        # 双混吊捉5龙 = (3+4)×2 = 14 (seed 001): natural 龙 123m 456m 789m,
        # the 双混吊 meld C(4万) t=5m F(6万) stands apart. Huns C F: no 本混.
        expect(s, "123m 456m 789m 55s C F +5m", "C", 14, ["zhuo5", "long", "shuanghun"])


# ---------------------------------------------------------------------------
# 本混 (benhun, ×2)
# ---------------------------------------------------------------------------

class TestBenhun:
    # §4: 龙 holds and its suit is the suit of the huns. Rule 4: 本混 needs 龙.

    def test_benhun_long(self, s):
        # Indicator 2m → huns 2m 3m, both used as own faces in the 万 龙.
        # 混吊 pair t+2m leaves 1m 3m … (no); 双混吊 t+2m+3m leaves 1m … (no).
        # 本混龙 = 4×2 = 8 (seed 001). (素本龙 is a variant, off by default.)
        expect(s, "123m 456m 789m EEE 5s +5s", "2m", 8, ["long", "benhun"])

    def test_benhun_long_with_a_hun_of_the_suit_filling(self, s):
        # Indicator 2p → huns 2p 3p; 龙 in 饼: 2p 3p own faces in 123p, the
        # second 3p stands for 5p. Three hun tiles (2p 3p 3p):
        #   双混吊 t(5m)+2 huns leaves 1p + one hun for 1-2-3 and 4p_6p: no;
        #   混吊 pair t+hun leaves two gaps for one hun (and the 5m): no.
        # 本混龙 = 4×2 = 8.
        expect(s, "123p 4p 3p 6p 789p EEE 5m +5m", "2p", 8, ["long", "benhun"])

    def test_near_miss_long_in_another_suit(self, s):
        # Huns 2p 3p; 龙 in 条 filled by 3p (as 2s); t = 5m pair. 混吊 pair
        # t+3p leaves 1s 3s … (no). Suit of the 龙 ≠ suit of the huns → 4.
        expect(s, "1s 3p 3s 456s 789s EEE 5m +5m", "2p", 4, ["long"])

    def test_near_miss_honor_huns(self, s):
        # Huns C F are honors, with no suit: a 龙 filled by C is never 本混.
        expect(s, "1p C 3p 456p 789p EEE 5m +5m", "C", 4, ["long"])

    def test_no_benhun_without_long(self, s):
        # Huns 2m 3m (in 123m, own faces) and 万 chows 123m 456m 567m: no 龙.
        # 混吊 pair t+2m leaves 1m 3m … (no). → 提溜 1, not a win; never 本混.
        expect(s, "123m 456m 567m EEE 5s +5s", "2m", 1, ["tiliu"])

    def test_no_benhun_without_long_hundiao(self, s):
        # Huns 2m 3m; 456m 789m in the huns' suit but no 123m: no 龙, so no
        # 本混. The single 3m pairs with t → 混吊 = 2.
        expect(s, "456m 789m 123s EEE 3m +5p", "2m", 2, ["tiliu", "hundiao"])


# ---------------------------------------------------------------------------
# 杠开 (gangkai, ×2)
# ---------------------------------------------------------------------------

class TestGangkai:
    # §4: t is the replacement tile after a kong by the winner (明杠, 补杠,
    # 暗杠 or 金杠). kong_draw needs a matching declared kong.

    def test_exposed_kong(self, s):
        # 杠开素提溜 = 1×2×2 = 4 (seed 001, 杠分另算). Huns C F absent.
        expect(s, "[5555p] 123m 456s 77m 89s +7s", "C", 4, ["tiliu", "su", "gangkai"],
               kong_draw="exposed")

    def test_concealed_kong(self, s):
        expect(s, "(5555p) 123m 456s 77m 89s +7s", "C", 4, ["tiliu", "su", "gangkai"],
               kong_draw="concealed")

    def test_kong_without_kong_draw_is_no_gangkai(self, s):
        # A kong was made earlier; t is an ordinary draw → 素提溜 = 2.
        expect(s, "[5555p] 123m 456s 77m 89s +7s", "C", 2, ["tiliu", "su"])

    def test_gangkai_su_zhuo5(self, s):
        # 杠开素5 = 3×2×2 = 12 (seed 001).
        expect(s, "[5555p] 46m 123s 77m 789s +5m", "C", 12, ["zhuo5", "su", "gangkai"],
               kong_draw="exposed")

    def test_gangkai_hundiao(self, s):
        # 杠开混吊 = 2×2 = 4 (seed 001): 4 melds incl. the kong + hun C; t = N.
        expect(s, "[5555p] 123m 456s 789s C +N", "C", 4, ["tiliu", "hundiao", "gangkai"],
               kong_draw="exposed")

    def test_gangkai_shuanghun_zhuo5(self, s):
        # 杠开双混捉5 = 3×2×2 = 12 (seed 001): C(4万) t=5m F(6万); the 混吊
        # reading (pair t+C, 99s+F) gives only 2×2 = 4.
        expect(s, "[5555p] 123m 456s 99s C F +5m", "C", 12, ["zhuo5", "shuanghun", "gangkai"],
               kong_draw="exposed")

    def test_jin_gang(self, s):
        # 金杠: (8888p) with huns 7p 8p is a kong of huns; kong_draw "hun".
        # The kong holds huns → no 素. 提溜 × 杠开 = 2, a win.
        expect(s, "(8888p) 123m 456s 77m 89s +7s", "7p", 2, ["tiliu", "gangkai"],
               kong_draw="hun")

    def test_exposed_kong_of_huns_is_a_minggang(self, s):
        # reading §2: 三个相同的混 + 打出的混 may kong, a 明杠 (1 point); only four huns held make the 金杠.
        # The kong still holds huns → no 素: 提溜 × 杠开 = 2.
        expect(s, "[8888p] 123m 456s 77m 89s +7s", "7p", 2, ["tiliu", "gangkai"],
               kong_draw="exposed")
        expect_refused(s, "[8888p] 123m 456s 77m 89s +7s", "7p", "kong_draw", kong_draw="hun")

    def test_refused_kong_draws(self, s):
        # exposed needs an exposed kong (of huns too: a 明杠), concealed a concealed kong of
        # non-hun tiles, hun a concealed kong of huns (the 金杠).
        expect_refused(s, "345m 123s EEE 77m 45s +6s", "C", "kong_draw", kong_draw="exposed")
        expect_refused(s, "(5555p) 123m 456s 77m 89s +7s", "C", "kong_draw", kong_draw="exposed")
        expect_refused(s, "[5555p] 123m 456s 77m 89s +7s", "C", "kong_draw", kong_draw="concealed")
        expect_refused(s, "[5555p] 123m 456s 77m 89s +7s", "C", "kong_draw", kong_draw="hun")
        expect_refused(s, "(8888p) 123m 456s 77m 89s +7s", "7p", "kong_draw", kong_draw="concealed")


# ---------------------------------------------------------------------------
# 天和 / 地和 (tianhu / dihu, ×4)
# ---------------------------------------------------------------------------

class TestTianhuDihu:
    @pytest.mark.parametrize("flag,pid", [("tianhu", "tianhu"), ("dihu", "dihu")])
    def test_times_four(self, s, flag, pid):
        # 素提溜 2 × 4 = 8.
        expect(s, "345m 123s EEE 77m 45s +6s", "7p", 8, ["tiliu", "su", pid], **{flag: True})

    @pytest.mark.parametrize("flag", ["tianhu", "dihu"])
    def test_bare_tiliu_times_four_wins(self, s, flag):
        # seed 001: 最小是提溜，即1番乘以4等于4番. Huns 9s 1s: the 1s of 123s is
        # a hun (own face); with any t among the 14, no 混吊 (a pair t+1s
        # leaves 23s …), no 捉5 (no 4万/6万), no 龙 → 1×4 = 4.
        expect(s, "345m 123s EEE 77m 45s +6s", "9s", 4, ["tiliu", flag], **{flag: True})

    @pytest.mark.parametrize("flag", ["tianhu", "dihu"])
    def test_any_of_the_14_may_be_t(self, s, flag):
        # seed 001's 提溜 hand (9m hun, indicator 8m), listed draw 3s: as a
        # plain self-draw it is 1 (TestTiliuAndMinFan). With 天和/地和 any of
        # the 14 may be t:
        #   t = 5m: 4m t 9m(6万) → 捉5, rest 33m 123s 123p 345s → 3;
        #   t = 3m: pair 3m+9m (混吊), rest 345m 123s 123p 345s → 2.
        # Best 捉5 × 4 = 12, although the listed draw was 3s.
        r = expect(s, "33m 123s 123p 459m 45s +3s", "8m", 12, ["zhuo5", flag], **{flag: True})
        assert r["winning_tile"] == "5m", r   # the only t that gives 捉5

    def test_refused_with_declared_meld(self, s):
        # seed 001: 庄家摸到牌后，暗杠，补杠后胡牌，不算天胡; §4 地和: no pong/kong before it.
        expect_refused(s, "[555p] 123m 456s 77m 89s +7s", "C", "天和", tianhu=True)
        expect_refused(s, "(5555p) 123m 456s 77m 89s +7s", "C", "天和", tianhu=True)
        expect_refused(s, "[555p] 123m 456s 77m 89s +7s", "C", "天和", dihu=True)
        expect_refused(s, "(5555p) 123m 456s 77m 89s +7s", "C", "天和", dihu=True, kong_draw="concealed")

    def test_refused_both(self, s):
        expect_refused(s, "345m 123s EEE 77m 45s +6s", "7p", "地和", tianhu=True, dihu=True)


# ---------------------------------------------------------------------------
# Other refused requests (§2)
# ---------------------------------------------------------------------------

class TestRefused:
    def test_four_of_the_indicator_kind(self, s):
        # §2/§8: the indicator stays on the wall; at most 3 of its kind in a hand.
        expect_refused(s, "(7777p) 123m 456s 77m 89s +7s", "7p", "indicator")
        expect_refused(s, "777p 123m 456s 77m 89s +7p", "7p", "indicator")

    def test_three_of_the_indicator_kind_is_fine(self, s):
        # 777p 123m 456s 77m 99s, t = 8s; huns 7p 8p (the three 7p are huns).
        #   混吊: pair t+7p, 7p+77m → 777m, 7p+99s → 999s → 2;
        #   双混吊: meld t+7p+7p, 7p+77m → 777m, 99s pair → 2;
        #   no 捉5/龙 (t = 8s; 7s 8s 9s + … has no 123s 456s pair) → 2.
        # Both readings are worth 2 (a tie: either may be shown).
        r = score(s, "777p 123m 456s 77m 99s +8s", "7p")
        assert r.get("error") is None and r["win"] and r["fan"] == 2, r
        assert r["patterns"] in (["tiliu", "hundiao"], ["tiliu", "shuanghun"]), r

    def test_no_pung_of_huns(self, s):
        # §2: two same huns + a discarded same hun may NOT pong.
        expect_refused(s, "[888p] 123m 456s 77m 89s +7s", "7p", "pung")


# ---------------------------------------------------------------------------
# The rules that bind the table (§4 rules 1, 3, 4, 5)
# ---------------------------------------------------------------------------

class TestBindingRules:
    def test_rule1_max_over_decompositions(self, s):
        # 445566m 123s EEE 77m, t = 5m, no hun (huns C F):
        #   456m 456m (t in a 5 slot) → 捉5 × 素 = 6;
        #   44m pair, 567m 567m (t in 567m) → 素 = 2.
        # The hand's fan is the maximum: 6.
        expect(s, "44m 5m 66m 123s EEE 77m +5m", "C", 6, ["zhuo5", "su"])

    def test_rule1_zhuo5_reading_beats_hundiao_reading(self, s):
        # 456m 123s EEE 456s C, t = 5m (huns C F):
        #   4m t 6m (捉5), pair natural 5m + C (t not in it: not 混吊) → 3;
        #   natural 456m, pair t + C (混吊) → 2.
        # The best is 3. (The mirror case, where 混吊龙 8 beats 捉5龙 7, is
        # TestZhuo5.test_near_miss_5m_in_456m_but_best_reading_is_hundiao_long.)
        expect(s, "456m 123s EEE 456s C +5m", "C", 3, ["zhuo5"])

    def test_rule3_zhuo5_inside_wan_long_su(self, s):
        # Rule 3: with 龙 in 万 the 捉5 chow may be a 龙 chow. 素龙捉5 =
        # (3+4)×2 = 14 (seed 001). Huns C F absent.
        expect(s, "123m 46m 789m EEE 55s +5m", "C", 14, ["zhuo5", "long", "su"])

    def test_rule3_zhuo5_inside_wan_long(self, s):
        # 捉5龙 = 3+4 = 7: C (hun) fills 2万; 混吊 pair t+C leaves 1m 3m … (no).
        expect(s, "1m C 3m 46m 789m EEE 55s +5m", "C", 7, ["zhuo5", "long"])

    def test_rule3_zhuo5_inside_wan_long_benhun(self, s):
        # 本混捉5龙 = (3+4)×2 = 14 (seed 001). Indicator 3m → huns 3m 4m,
        # used as own faces in 123m and 456m (one each). 混吊 pair t+hun
        # leaves a gap; 双混吊 t+3m+4m leaves 12m 6m … (no). → 14.
        expect(s, "123m 46m 789m EEE 55s +5m", "3m", 14, ["zhuo5", "long", "benhun"])

    def test_rule4_su_and_benhun_exclude_each_other(self, s):
        # Rule 4: 素 and 混吊/双混吊/本混 exclude each other by definition.
        # Indicator 9s → huns 9s 1s. A 万 龙 holds no hun → 素龙 = 8.
        expect(s, "123m 456m 789m EEE 5p +5p", "9s", 8, ["long", "su"])
        # A 条 龙 always holds the hun kinds 1s 9s (own faces) → 本混龙, never
        # 素: 4×2 = 8. (双混吊 t+1s+9s and 混吊 t+1s leave the 龙 broken.)
        expect(s, "123s 456s 789s EEE 5m +5m", "9s", 8, ["long", "benhun"])

    def test_rule5_gangkai_shuanghun_zhuo5_long_cannot_occur(self, s):
        # Rule 5: 杠开 + 双混吊 + 捉5 + 龙 needs 3 龙 chows + a separate 双混吊
        # meld + a kong = 5 melds. Kong [EEEE], 123m 789m, 55s, huns 3m 4m
        # (indicator 3m; 3m in 123m and one 3m + 4m loose), t = 5m from the
        # kong. Readings:
        #   4m t 3m(6万) as a 龙 chow: 捉5 + 龙 + 本混 + 杠开 = 7×2×2 = 28;
        #   the same meld as 双混吊 (no 龙, so no 本混): 3×2×2 = 12;
        #   混吊 (pair t+hun, 55s+hun): 1×2×2 = 4.
        # → 28 (杠开本混捉5龙), never 56 (the seed's impossible 57/58 row).
        expect(s, "[EEEE] 123m 789m 55s 3m 4m +5m", "3m", 28,
               ["zhuo5", "long", "benhun", "gangkai"], kong_draw="exposed")

    def test_rule5_no_57_in_fan_with_kong_table(self):
        # seed 000 番数 "杠开双混吊本混捉5龙 57" cannot occur: the same hand
        # under the fan_with_kong table is 28 + 1 (明杠) = 29.
        for backend in BACKENDS:
            sc = scorer(backend, "seed-000-fan")
            r = sc.score(req("[EEEE] 123m 789m 55s 3m 4m +5m", "3m", kong_draw="exposed"))
            assert (r["fan"], r["total"]) == (28, 29), r


# ---------------------------------------------------------------------------
# §5 algebra examples
# ---------------------------------------------------------------------------

HAND_28 = "123m 456m 789m 55s 89m +5m"
# Indicator 8m → huns 8m 9m: four hun tiles (8m 9m inside 789m as own faces,
# and a loose 8m 9m). 双混吊 meld 8m(4万) t=5m 9m(6万) → 捉5 + 双混吊; the
# natural 龙 123m 456m 789m stands apart (rule 2) and is in the huns' suit
# (本混). Nothing can beat it: 素 is impossible, 混吊 and 双混吊/捉5 need t in
# different places, no 杠开.


class TestAlgebra:
    def test_shuanghun_benhun_zhuo5_long_is_28(self, s):
        # 双混吊本混捉5龙 = (3+4)×2×2 = 28 (§5, seed 001).
        r = expect(s, HAND_28, "8m", 28, ["zhuo5", "long", "shuanghun", "benhun"])
        assert r["formula"] == "(3+4)×2×2 = 28"

    @pytest.mark.parametrize("kong,draw", [("[EEEE]", "exposed"), ("(EEEE)", "concealed")])
    def test_gangkai_su_long_zhuo5_is_28(self, s, kong, draw):
        # 杠开素龙捉5 = (3+4)×2×2 = 28 (§5). Huns C F absent.
        expect(s, f"{kong} 123m 46m 789m 55s +5m", "C", 28, ["zhuo5", "long", "su", "gangkai"],
               kong_draw=draw)

    def test_tianhu_of_28_is_112(self, s):
        # 天和 of the 28 hand = 28×4 = 112 (§5; seed 001 prints 102: erratum).
        # Any t among the 14: 28 is the maximum of any kong-free hand.
        r = expect(s, HAND_28, "8m", 112, ["zhuo5", "long", "shuanghun", "benhun", "tianhu"],
                   tianhu=True)
        assert r["formula"] == "(3+4)×2×2×4 = 112"

    def test_su_long_is_8_and_zhuo5_long_is_7(self, s):
        # Add first, then multiply (先加后乘): 素龙 4×2 = 8; 捉5龙 3+4 = 7.
        expect(s, "123m 456m 78m EEE 55s +9m", "C", 8, ["long", "su"])
        expect(s, "1m C 3m 46m 789m EEE 55s +5m", "C", 7, ["zhuo5", "long"])


# ---------------------------------------------------------------------------
# Both backends agree on every hand of this file
# ---------------------------------------------------------------------------

def test_backends_agree_on_every_hand():
    # Runs last in file order: the results of every hand scored above must be
    # identical on both backends (all but the decomposition shown, which may be
    # another equally good one: the generated scorer searches group masks).
    keys = {k for _, k in _RESULTS} or {(HAND_28, "8m", ())}
    for hand, indicator, kw in sorted(keys):
        both = []
        for backend in BACKENDS:
            r = _RESULTS.get((backend, (hand, indicator, kw)))
            if r is None:
                r = scorer(backend).score(req(hand, indicator, **dict(kw)))
            both.append({k: v for k, v in r.items() if k != "decomposition"})
        assert both[0] == both[1], (hand, indicator, kw)
