"""Every option of rules/tianjin.yaml, its profiles and an overlay: the difference each makes.

Expected values are derived from the rulebook's chapters (§ numbers of generated/tianjin/rulebook.md),
not copied from the scorer:
  fan = (sum of add values, or 1 for 提溜) × product of mul values     (§5)
  score tables for a 杠开 win, p = points of the kong just made      (§6)
    separate: fan    fan_with_kong: fan + p    coins: (fan + 1) × p
Kong points: 明杠 1, 暗杠 2, 金杠 4 (option jin_gang: 8, or forbidden).
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tjmj_dsl import RuleError, Scorer, load_rules
from conftest import run
from tjmj_dsl.notation import parse_hand
from tests.test_property import requests

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIG_DRAGON = os.path.join(ROOT, "examples", "big-dragon.yaml")

_SCORERS: dict[tuple[Any, ...], Scorer] = {}


def scorer(profile: str | None = None, rules: str | None = None, **options: Any) -> Scorer:
    """One Scorer per (rules, profile, options), built once for the whole module."""
    key = (rules, profile, tuple(sorted(options.items())))
    if key not in _SCORERS:
        _SCORERS[key] = Scorer(rules=rules, profile=profile, options=options or None)
    return _SCORERS[key]


def req(hand: str, indicator: str = "7p", **kw: Any) -> dict[str, Any]:
    return {**parse_hand(hand), "indicator": indicator, **kw}


def score(hand: str, indicator: str = "7p", *, profile: str | None = None, rules: str | None = None,
          options: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
    return scorer(profile, rules, **(options or {})).score(req(hand, indicator, **kw))


def refused(r: dict[str, Any]) -> bool:
    return r["win"] is False and r["reason"] == "invalid_request" and bool(r.get("error"))


def won(r: dict[str, Any], fan: int, total: int | None = None) -> bool:
    return r["win"] is True and r["fan"] == fan and r["total"] == (fan if total is None else total)


# Hands (indicator 7p unless said: huns 7p 8p by default).
PLAIN = "345m 123s EEE 77m 45s +6s"        # 提溜 × 素 = 1×2 = 2
BARE = "345m 123s EEE 456s 9m +7p"         # the drawn hun stands for 9m: bare 提溜 = 1 (not 混吊)
ZHUO5_ON_8P = "46m 123s EEE 77m 456s +8p"  # 8p (a hun) fills 5m: 捉5 = 3 (not 素)
ZHUO5_ON_9P = "46m 123s EEE 77m 456s +9p"  # the same, only if 9p is a hun
KONG_EXPOSED = "345m 123s 77m 45s [5555p] +6s"    # 杠开 素: 1×2×2 = 4, p = 1
KONG_CONCEALED = "345m 123s 77m 45s (5555p) +6s"  # 杠开 素: 1×2×2 = 4, p = 2
JIN_GANG = "345m 123s 77m 45s (8888p) +6s"        # 杠开 after a 金杠 (huns held, no 素): 1×2 = 2
JIN_GANG_EXPOSED = "345m 123s 77m 45s [8888p] +6s"  # three huns + a discarded hun: a 明杠 (p = 1), not a 金杠


# ---------------------------------------------------------------- score_table

@pytest.mark.parametrize("table, exposed, concealed", [
    ("separate", 4, 4),                         # fan alone
    ("fan_with_kong", 4 + 1, 4 + 2),            # fan + p
    ("coins", (4 + 1) * 1, (4 + 1) * 2),        # (fan + 1) × p
])
def test_score_table(table: str, exposed: int, concealed: int) -> None:
    opts = {"score_table": table}
    assert won(score(KONG_EXPOSED, kong_draw="exposed", options=opts), 4, exposed)
    assert won(score(KONG_CONCEALED, kong_draw="concealed", options=opts), 4, concealed)
    # a win that is not 杠开 shows fan in every table, even with a kong among the melds
    assert won(score(PLAIN, options=opts), 2, 2)
    assert won(score(KONG_CONCEALED, options=opts), 2, 2)  # 素 only: 1×2


def test_score_table_default_is_separate() -> None:
    assert dict(load_rules(None).choices)["score_table"] == "separate"
    assert won(scorer().score(req(KONG_CONCEALED, kong_draw="concealed")), 4, 4)


# ---------------------------------------------------------------- profiles

@pytest.mark.parametrize("profile, exposed, concealed, rotation", [
    ("seed-001", 4, 4, "seed-001"),
    ("seed-000-fan", 4 + 1, 4 + 2, "seed-000"),          # 含明杠1番 / 含暗杠2番
    ("seed-000-coins", (4 + 1) * 1, (4 + 1) * 2, "seed-000"),
])
def test_profiles(profile: str, exposed: int, concealed: int, rotation: str) -> None:
    assert won(score(KONG_EXPOSED, kong_draw="exposed", profile=profile), 4, exposed)
    assert won(score(KONG_CONCEALED, kong_draw="concealed", profile=profile), 4, concealed)
    assert won(score(PLAIN, profile=profile), 2, 2)
    rs = load_rules(None, profile=profile)
    assert rs.profile == profile
    assert dict(rs.play)["dealer_rotation"] == rotation


def test_default_profile_is_seed_001() -> None:
    assert scorer().profile == "seed-001"
    assert load_rules(None).profile == "seed-001"


# rulebook §6: 杠开素龙 = 4×2×2 = 16, 杠开素龙捉5 = (3+4)×2×2 = 28 (indicator 1p: no hun held)
@pytest.mark.parametrize("profile, long_e, long_c, zhuo5_e, zhuo5_c", [
    ("seed-001", 16, 16, 28, 28),
    ("seed-000-fan", 16 + 1, 16 + 2, 28 + 1, 28 + 2),
    ("seed-000-coins", 17 * 1, 17 * 2, 29 * 1, 29 * 2),   # the seed prints 17 / 34 for 杠开素龙
])
def test_profiles_on_seed_rows(profile: str, long_e: int, long_c: int, zhuo5_e: int, zhuo5_c: int) -> None:
    assert won(score("123456789m 7s [5555p] +7s", "1p", kong_draw="exposed", profile=profile), 16, long_e)
    assert won(score("123456789m 7s (5555p) +7s", "1p", kong_draw="concealed", profile=profile), 16, long_c)
    assert won(score("12346789m 77s [5555p] +5m", "1p", kong_draw="exposed", profile=profile), 28, zhuo5_e)
    assert won(score("12346789m 77s (5555p) +5m", "1p", kong_draw="concealed", profile=profile), 28, zhuo5_c)


def test_unknown_profile_is_refused() -> None:
    with pytest.raises(RuleError) as e:
        load_rules(None, profile="seed-000-coin")
    text = e.value.render()
    assert "no profile 'seed-000-coin'" in text and "seed-000-coins" in text


# ---------------------------------------------------------------- jin_gang

@pytest.mark.parametrize("jin, points", [("4", 4), ("8", 8)])
def test_jin_gang_points(jin: str, points: int) -> None:
    fan = 2  # 提溜 × 杠开; the 金杠 holds huns, so no 素
    for table, total in (("separate", fan), ("fan_with_kong", fan + points), ("coins", (fan + 1) * points)):
        r = score(JIN_GANG, kong_draw="hun", options={"jin_gang": jin, "score_table": table})
        assert won(r, fan, total), (table, r)
        # the reading (§2): a kong of three held huns and a discarded hun is a 明杠, whatever jin_gang says
        r = score(JIN_GANG_EXPOSED, kong_draw="exposed", options={"jin_gang": jin, "score_table": table})
        assert won(r, fan, {"separate": fan, "fan_with_kong": fan + 1, "coins": (fan + 1) * 1}[table]), (table, r)
        assert refused(score(JIN_GANG_EXPOSED, kong_draw="hun", options={"jin_gang": jin, "score_table": table}))
    assert dict(load_rules(None, options={"jin_gang": jin}).kong_points)["hun"] == points


def test_jin_gang_default_is_4() -> None:
    assert dict(load_rules(None).kong_points) == {"exposed": 1, "concealed": 2, "hun": 4}
    assert won(score(JIN_GANG, kong_draw="hun", profile="seed-000-coins"), 2, (2 + 1) * 4)
    assert won(score(JIN_GANG, kong_draw="hun", profile="seed-000-fan"), 2, 2 + 4)


def test_jin_gang_forbidden() -> None:
    forb = {"jin_gang": "forbidden"}
    assert refused(score(JIN_GANG, kong_draw="hun", options=forb))
    assert score(JIN_GANG, options=forb)["error"]["code"] == "jin_gang_forbidden"  # the kong itself, even without 杠开
    # three huns and a discarded hun make a 明杠, not a 金杠 (decision jin_gang_is_four_held): still allowed
    assert won(score(JIN_GANG_EXPOSED, kong_draw="exposed", options=forb), 2)
    assert "error" not in score(JIN_GANG_EXPOSED, options=forb)
    # kongs of other tiles are untouched
    assert won(score(KONG_CONCEALED, kong_draw="concealed", options=forb), 4)
    assert won(score(KONG_EXPOSED, kong_draw="exposed", options=forb), 4)
    # the same 金杠 is a legal 杠开 by default
    assert won(score(JIN_GANG, kong_draw="hun"), 2)
    # the game engine: four huns held may not be konged, a discarded hun still may be (claims.hun_kong)
    play = dict(load_rules(None, options=forb).play)
    assert (play["hun_kong_concealed_as"], play["hun_kong_exposed_as"]) == ("none", "exposed")
    assert dict(load_rules(None, options=forb).claims)["hun_kong"] is True
    assert dict(load_rules(None).play)["hun_kong_concealed_as"] == "hun"


def test_jin_gang_unknown_value() -> None:
    with pytest.raises(RuleError) as e:
        load_rules(None, options={"jin_gang": "16"})
    text = e.value.render()
    assert "jin_gang" in text and "'16'" in text
    assert "forbidden" in text and "4" in text and "8" in text


# ---------------------------------------------------------------- tianting

def test_tianting_off_refuses_the_field() -> None:
    assert refused(score(PLAIN, tianting=True))
    assert refused(score(PLAIN, tianting=True, options={"tianting": "off"}))
    assert won(score(PLAIN, tianting=False), 2)
    assert won(score(PLAIN), 2)


def test_tianting_on_doubles() -> None:
    on = {"tianting": "on"}
    r = score(PLAIN, tianting=True, options=on)
    assert won(r, 2 * 2) and "tianting" in r["patterns"]
    assert won(score(PLAIN, options=on), 2)                 # not declared: no ×2
    assert won(score(PLAIN, tianting=False, options=on), 2)
    # a bare 提溜 reaches the minimum with 天听: 1 × 2 = 2
    assert won(score(BARE, tianting=True, options=on), 2)
    assert score(BARE, options=on)["reason"] == "below_min_fan"


# ---------------------------------------------------------------- subenlong

SUBENLONG = "123456789p 123s E +E"        # one 7p and one 8p, each itself in the 龙: 龙 4 × 本混 2 = 8
SUBENLONG_ZHUO5 = "12346789m 123s EE +5m"  # indicator 7m: 素本伍龙, (3+4) × 本混 2 = 14
NEAR_MISS = "123456789p 123s 8p +8p"       # two 8p: 龙 4 × 本混 2 × 混吊 2 = 16, never 素本龙


@pytest.mark.parametrize("value, factor", [("off", 1), ("on", 2)])
def test_subenlong(value: str, factor: int) -> None:
    opts = {"subenlong": value}
    r = score(SUBENLONG, "7p", options=opts)
    assert won(r, 8 * factor), r
    assert ("subenlong" in r["patterns"]) == (value == "on")
    assert {"long", "benhun"} <= set(r["patterns"])
    r = score(SUBENLONG_ZHUO5, "7m", options=opts)
    assert won(r, 14 * factor), r
    assert ("subenlong" in r["patterns"]) == (value == "on")
    # near-miss: same value either way
    r = score(NEAR_MISS, "7p", options=opts)
    assert won(r, 16), r
    assert "subenlong" not in r["patterns"]


def test_subenlong_default_off() -> None:
    assert won(scorer().score(req(SUBENLONG)), 8)


# ---------------------------------------------------------------- tianhu / dihu / first_draw_multiplier

@pytest.mark.parametrize("mult", [4, 5, 6, 7, 8])
def test_first_draw_multiplier(mult: int) -> None:
    opts = {"first_draw_multiplier": mult}
    r = score(PLAIN, tianhu=True, options=opts)
    assert won(r, 2 * mult) and "tianhu" in r["patterns"]   # 素 2 × 天和 mult
    r = score(PLAIN, dihu=True, options=opts)
    assert won(r, 2 * mult) and "dihu" in r["patterns"]
    # rulebook §5: 天和 of 双混吊本混捉5龙 = 28 × 4 = 112 (seed 001 misprints 102)
    assert won(score("123456789m 1m2m EE +5m", "1m", tianhu=True, options=opts), 28 * mult)
    assert won(score(PLAIN, options=opts), 2)  # no first draw: untouched


def test_first_draw_multiplier_default_is_4() -> None:
    assert won(score(PLAIN, tianhu=True), 8)
    assert won(score(PLAIN, dihu=True), 8)
    assert won(score("123456789m 1m2m EE +5m", "1m", tianhu=True), 112)


def test_first_draw_multiplier_unknown_value() -> None:
    with pytest.raises(RuleError) as e:
        load_rules(None, options={"first_draw_multiplier": 9})
    text = e.value.render()
    assert "first_draw_multiplier" in text and "4, 5, 6, 7, 8" in text


@pytest.mark.parametrize("flag, other, mult", [("tianhu", "dihu", 8), ("dihu", "tianhu", 6)])
def test_first_draw_flag_off(flag: str, other: str, mult: int) -> None:
    off = {flag: "off"}
    assert refused(score(PLAIN, **{flag: True}, options=off))
    assert won(score(PLAIN, **{other: True}, options=off), 8)      # the other one is still played
    assert won(score(PLAIN, options=off), 2)
    assert won(score(PLAIN, **{flag: True}, options={flag: "on"}), 8)
    # the multiplier still reaches the other one, and the one that is off stays refused
    assert won(score(PLAIN, **{other: True}, options={**off, "first_draw_multiplier": mult}), 2 * mult)
    assert refused(score(PLAIN, **{flag: True}, options={**off, "first_draw_multiplier": mult}))


# ---------------------------------------------------------------- hun_kinds

@pytest.mark.parametrize("kinds, huns", [(1, ["7p"]), (2, ["7p", "8p"]), (3, ["7p", "8p", "9p"])])
def test_hun_kinds(kinds: int, huns: list[str]) -> None:
    opts = {"hun_kinds": kinds}
    assert load_rules(None, options=opts).hun_count == kinds
    # 7p is a hun under every count
    r = score("46m 123s EEE 77m 456s +7p", options=opts)
    assert won(r, 3) and r["hun_kinds"] == huns
    # 8p is wild with 2 or 3 kinds, not with 1
    r = score(ZHUO5_ON_8P, options=opts)
    if "8p" in huns:
        assert won(r, 3) and "zhuo5" in r["patterns"]
    else:
        assert r["win"] is False and r["reason"] == "no_winning_shape"
    # 9p is wild only with 3 kinds
    r = score(ZHUO5_ON_9P, options=opts)
    if "9p" in huns:
        assert won(r, 3) and "zhuo5" in r["patterns"]
    else:
        assert r["win"] is False and r["reason"] == "no_winning_shape"


@pytest.mark.parametrize("indicator, huns", [
    ("9s", ["9s", "1s", "2s"]),   # suits wrap 9 → 1
    ("N", ["N", "E", "S"]),       # 北 → 东 → 南
    ("P", ["P", "C", "F"]),       # 白 → 中 → 发
])
def test_hun_kinds_3_counts_on_from_the_indicator(indicator: str, huns: list[str]) -> None:
    r = score("345m 456p 77m 45s 789p +6s", indicator, options={"hun_kinds": 3})
    assert r["hun_kinds"] == huns and r["win"] is True


def test_hun_kinds_changes_su() -> None:
    # 999p as plain tiles: 素 under 2 kinds (1×2 = 2, wins); holding huns under 3 kinds
    hand = "345m 123s 999p 77m 45s +6s"
    assert won(score(hand), 2) and "su" in score(hand)["patterns"]
    r = score(hand, options={"hun_kinds": 3})
    assert "su" not in r["patterns"]


# ---------------------------------------------------------------- min_fan

@pytest.mark.parametrize("min_fan", [1, 2, 3])
def test_min_fan(min_fan: int) -> None:
    opts = {"min_fan": min_fan}
    assert load_rules(None, options=opts).min_fan == min_fan
    for hand, fan in ((BARE, 1), (PLAIN, 2), (ZHUO5_ON_8P, 3)):
        r = score(hand, options=opts)
        assert r["fan"] == fan, (hand, r)
        if fan >= min_fan:
            assert won(r, fan), (hand, r)
        else:
            assert r["win"] is False and r["total"] == 0 and r["reason"] == "below_min_fan", (hand, r)


def test_min_fan_default_is_2() -> None:
    assert score(BARE)["reason"] == "below_min_fan"
    assert won(score(PLAIN), 2)


# ---------------------------------------------------------------- play / settlement options

@pytest.mark.parametrize("option, value, key, carried", [
    ("chan_points", 1, "chan_points", 1),
    ("chan_points", 2, "chan_points", 2),
    ("chan_points", "2", "chan_points", 2),          # as the command line passes it
    ("dealer_rotation", "seed-001", "dealer_rotation", "seed-001"),
    ("dealer_rotation", "seed-000", "dealer_rotation", "seed-000"),
    ("last_tiles_claims", "allowed", "no_claim_in_last_tiles", 1),
    ("last_tiles_claims", "refused", "no_claim_in_last_tiles", 4),
    ("last_tiles_claims", "final_discard", "no_claim_in_last_tiles", 0),
    ("hun_claim_kong", "allowed", "hun_kong_exposed_as", "exposed"),
    ("hun_claim_kong", "refused", "hun_kong_exposed_as", "none"),
    ("hun_discard", "xianggong", "may_discard_hun", True),
    ("hun_discard", "refused", "may_discard_hun", False),
    ("exposed_kong_payer", "all", "exposed_kong_payer", "all"),
    ("exposed_kong_payer", "discarder", "exposed_kong_payer", "discarder"),
    ("jin_gang_wins", "off", "kong_ends_hand", ""),
    ("jin_gang_wins", "on", "kong_ends_hand", 'k.type == "hun"'),
    ("lazhuang_game", "capped", "lazhuang_most", "min([lazhuang_max, lazhuang_game_max - seat.lazhuang_made])"),
    ("lazhuang_game", "losers_barred", "lazhuang_most", "0 if seat.balance < 0 - lazhuang_floor else lazhuang_max"),
    ("zuozhuang_game", "no_repeat_after_loss", "zuozhuang_when",
     "not (last_dealer == dealer and last_zuozhuang and dealer.last_balance < 0)"),
])
def test_play_options_are_carried(option: str, value: Any, key: str, carried: Any) -> None:
    rs = load_rules(None, options={option: value})
    play = dict(rs.play)
    assert play[key] == carried
    # the others keep their defaults
    defaults = {"chan_points": 1, "dealer_rotation": "seed-001", "no_claim_in_last_tiles": 1,
                "may_zuozhuang": True, "lazhuang_max": 2, "deal_start": 1, "replacement_at_indicator": "take",
                "hun_discard_bars_win": True, "may_discard_hun": True, "added_kong_as": "exposed", "added_kong_from_hand": True,
                "hun_kong_exposed_as": "exposed", "hun_kong_concealed_as": "hun", "hun_kong_added_as": "added",
                "first_draw_ends_on_meld": True, "base_unit": 1, "dealer_first_draw_flag": "tianhu",
                "first_draw_flag": "dihu", "ready_declaration_flag": "", "value_player_keep": "4m 6m",
                "value_player_run_ranks": 6, "value_player_hun_kong_points": 8, "first_dealer": "random", "exposed_kong_payer": "all",
                "kong_ends_hand": "", "kong_win_total": "k.points", "lazhuang_game_max": 6, "lazhuang_floor": 30}
    assert {k: v for k, v in play.items() if k != key} == {k: v for k, v in defaults.items() if k != key}


def test_play_defaults() -> None:
    rs = load_rules(None)
    assert dict(rs.play)["chan_points"] == 1
    assert dict(rs.play)["dealer_rotation"] == "seed-001"
    assert dict(rs.play)["no_claim_in_last_tiles"] == 1
    ch = dict(rs.choices)
    assert (ch["chan_points"], ch["dealer_rotation"], ch["last_tiles_claims"]) == (1, "seed-001", "allowed")


@pytest.mark.parametrize("option, value, names, suggests", [
    ("chan_points", 3, "option 'chan_points'", ["1, 2"]),
    ("chan_points", "two", "option 'chan_points'", ["1, 2"]),
    ("dealer_rotation", "seed000", "option 'dealer_rotation'", ["did you mean 'seed-000'?"]),
    ("dealer_rotation", "winner-deals", "option 'dealer_rotation'", ["seed-001", "seed-000"]),
    ("last_tiles_claims", "refuse", "option 'last_tiles_claims'", ["did you mean 'refused'?"]),
    ("last_tiles_claims", "never", "option 'last_tiles_claims'", ["allowed", "refused"]),
])
def test_play_option_unknown_value(option: str, value: Any, names: str, suggests: list[str]) -> None:
    with pytest.raises(RuleError) as e:
        load_rules(None, options={option: value})
    text = e.value.render()
    assert names in text and repr(value) in text
    for s in suggests:
        assert s in text, text


def test_unknown_option_name() -> None:
    with pytest.raises(RuleError) as e:
        load_rules(None, options={"chan_pionts": 2})
    assert "no option 'chan_pionts'" in e.value.render() and "did you mean 'chan_points'?" in e.value.render()


@pytest.mark.parametrize("option, value, check", [
    ("first_draw_multiplier", "6", lambda rs: dict(rs.choices)["first_draw_multiplier"] == 6),
    ("min_fan", "1", lambda rs: rs.min_fan == 1),
    ("hun_kinds", "1", lambda rs: rs.hun_count == 1),
    ("chan_points", "1", lambda rs: dict(rs.play)["chan_points"] == 1),
])
def test_values_options_from_strings(option: str, value: str, check: Any) -> None:
    assert check(load_rules(None, options={option: value}))


def test_cli_option_min_fan_string() -> None:
    code, out, _ = run(["score", BARE, "-i", "7p", "--option", "min_fan=1", "--json"])
    assert code == 0 and json.loads(out)["win"] is True


# ---------------------------------------------------------------- per-line profile/options in the JSONL batch



def _line(id_: str, hand: str, indicator: str = "7p", **kw: Any) -> dict[str, Any]:
    return {"id": id_, **req(hand, indicator), **kw}


def test_jsonl_per_line_profile_and_options() -> None:
    lines = [
        _line("tt-off", PLAIN, tianting=True),
        _line("tt-on", PLAIN, tianting=True, options={"tianting": "on"}),
        _line("bare", BARE),
        _line("bare-min1", BARE, options={"min_fan": 1}),
        _line("9p", ZHUO5_ON_9P),
        _line("9p-3kinds", ZHUO5_ON_9P, options={"hun_kinds": 3}),
        _line("kong", KONG_CONCEALED, kong_draw="concealed"),
        _line("kong-fan", KONG_CONCEALED, kong_draw="concealed", profile="seed-000-fan"),
        _line("kong-coins", KONG_CONCEALED, kong_draw="concealed", profile="seed-000-coins"),
        _line("jin-coins-8", JIN_GANG, kong_draw="hun", profile="seed-000-coins", options={"jin_gang": "8"}),
        _line("jin-forbidden", JIN_GANG, kong_draw="hun", options={"jin_gang": "forbidden"}),
        _line("bad-option", PLAIN, options={"chan_points": 3}),
        _line("after", PLAIN, tianting=True),  # a line's options do not leak into the next
    ]
    code, out, _ = run(["score", "--jsonl"], "\n".join(json.dumps(x) for x in lines) + "\n")
    assert code == 0
    res = {r["id"]: r for r in map(json.loads, out.splitlines())}
    assert list(res) == [x["id"] for x in lines]
    assert refused(res["tt-off"])
    assert won(res["tt-on"], 4)
    assert res["bare"]["win"] is False and res["bare"]["reason"] == "below_min_fan"
    assert won(res["bare-min1"], 1)
    assert res["9p"]["win"] is False and res["9p"]["reason"] == "no_winning_shape"
    assert won(res["9p-3kinds"], 3)
    assert won(res["kong"], 4, 4)
    assert won(res["kong-fan"], 4, 4 + 2)
    assert won(res["kong-coins"], 4, (4 + 1) * 2)
    assert won(res["jin-coins-8"], 2, (2 + 1) * 8)
    assert refused(res["jin-forbidden"])
    assert "chan_points" in res["bad-option"]["error"]["message"]
    assert refused(res["after"])


def test_jsonl_command_line_defaults_and_line_overrides() -> None:
    lines = [_line("a", KONG_EXPOSED, kong_draw="exposed"),
             _line("b", KONG_EXPOSED, kong_draw="exposed", profile="seed-001")]
    code, out, _ = run(["score", "--jsonl", "--profile", "seed-000-coins"], "\n".join(map(json.dumps, lines)))
    res = [json.loads(x) for x in out.splitlines()]
    assert code == 0
    assert won(res[0], 4, (4 + 1) * 1)
    assert won(res[1], 4, 4)


def test_a_scorer_answers_a_requests_own_profile_and_options() -> None:
    # as `tjmj score --jsonl` does: the request's profile and options (on top of the scorer's own)
    # pick the rules, compiled on first use; the answer names them. (A standalone generated scorer
    # has one rule set and refuses others: test_compile.)
    coins = {**req(KONG_CONCEALED, kong_draw="concealed"), "profile": "seed-000-coins"}
    r = scorer().score(coins)
    assert won(r, 4, (4 + 1) * 2) and r["rules"]["profile"] == "seed-000-coins"
    assert r == scorer("seed-000-coins").score(req(KONG_CONCEALED, kong_draw="concealed"))
    r = scorer().score({**req(KONG_CONCEALED, kong_draw="concealed"), "options": {"score_table": "coins"}})
    assert won(r, 4, (4 + 1) * 2) and (r["rules"]["profile"], r["rules"]["options"]) == ("seed-001", {"score_table": "coins"})
    # on top of the scorer's own options; null is absent
    r = scorer(min_fan=1).score({**req(BARE), "options": {"hun_kinds": 2, "tianting": None}, "profile": None})
    assert won(r, 1) and r["rules"]["options"] == {"min_fan": 1}
    # the interpreter too, and waits and settle
    assert won(Scorer(backend="interpreter").score(coins), 4, (4 + 1) * 2)
    w = scorer().waits({"concealed": "345m123sEEE77m45s", "indicator": "7p", "options": {"min_fan": 1}})
    # at min fan 1 a drawn hun (7p, 8p) wins too, a bare 提溜; at the default 2 it does not
    assert w["rules"]["options"] == {"min_fan": 1} and {x["tile"] for x in w["waits"]} == {"3s", "6s", "7p", "8p"}
    assert {x["tile"] for x in scorer().waits({"concealed": "345m123sEEE77m45s", "indicator": "7p"})["waits"]} == {"3s", "6s"}
    o = {"dealer": 0, "winner": None, "kongs": [{"seat": 1, "type": "hun", "tile": "8p"}]}
    assert scorer().settle(o)["balances"] == [-4, 12, -4, -4]
    assert scorer().settle({**o, "options": {"jin_gang": "8"}})["balances"] == [-8, 24, -8, -8]
    # rules the file does not have: refused in the kind's shape, with the field
    r = scorer().score({**coins, "profile": "seed-000-nope", "id": 9})
    assert refused(r) and r["id"] == 9 and (r["error"]["code"], r["error"]["field"]) == ("unknown_profile", "profile")
    r = scorer().score({**req(PLAIN), "options": {"chan_points": 3}})
    assert (r["error"]["code"], r["error"]["field"]) == ("bad_option", "options.chan_points")
    # the field names the option, as the standalone generated scorer's refusal does
    r = scorer().score({**req(PLAIN), "options": {"nope": 1}})
    assert (r["error"]["code"], r["error"]["field"]) == ("unknown_option", "options.nope")
    assert scorer().score({**req(PLAIN), "options": 5})["error"]["code"] == "wrong_type"
    assert scorer().score({**req(PLAIN), "profile": 5})["error"]["code"] == "wrong_type"
    assert scorer().score({**req(PLAIN), "profile": ""})["error"]["code"] == "unknown_profile"  # no silent default
    with pytest.raises(RuleError) as bad:  # nor for a scorer's own
        Scorer(profile="")
    assert "no profile ''" in bad.value.render()
    w = scorer().waits({"concealed": "345m123sEEE77m45s", "indicator": "7p", "options": {"nope": 1}})
    assert w["waits"] == [] and w["error"]["code"] == "unknown_option"
    s = scorer().settle({**o, "profile": "x"})
    assert s["balances"] == [0, 0, 0, 0] and s["error"]["code"] == "unknown_profile"
    # and the scorer's own rules are untouched by a request's
    assert scorer().score(req(KONG_CONCEALED, kong_draw="concealed"))["rules"]["profile"] == "seed-001"


# ---------------------------------------------------------------- an overlay rule file

def test_overlay_big_dragon() -> None:
    # 龙 5 × 素 2 = 10 in the overlay; 4 × 2 = 8 in the built-in rules (huns C F: none held)
    r = score("123456789p 123s E +E", "C", rules=BIG_DRAGON)
    assert won(r, 10) and r["patterns"] == ["long", "su"]
    assert won(score("123456789p 123s E +E", "C"), 8)
    # the overlay keeps every option of its base
    assert won(score("123456789p 123s E +E", "C", rules=BIG_DRAGON, options={"tianting": "on"}, tianting=True), 20)
    assert won(score(KONG_CONCEALED, kong_draw="concealed", rules=BIG_DRAGON, profile="seed-000-coins"), 4, 10)
    # a bare 提溜 does not win in the built-in rules
    assert score(BARE)["reason"] == "below_min_fan"


def test_overlay_big_dragon_bare_tiliu_wins() -> None:
    # the overlay picks the min_fan option's default (a value an option owns cannot be set directly:
    # tests/golden/bad_overlay_owned.yaml)
    assert load_rules(BIG_DRAGON).min_fan == 1
    assert won(score(BARE, rules=BIG_DRAGON), 1)


_RULE_CHOICES = {"profile": [None, "seed-001", "seed-000-fan", "seed-000-coins", "seed-000-nope", 7],
                 "jin_gang": [None, "4", "8", "forbidden", "9"], "min_fan": [None, 1, "2", 3, 2.0],
                 "tianting": [None, "on", "off"], "score_table": [None, "coins", "fan_with_kong", "separate"]}


@settings(max_examples=60, deadline=None, derandomize=True)
@given(requests(), st.fixed_dictionaries({k: st.sampled_from(v) for k, v in _RULE_CHOICES.items()}))
def test_a_scorer_answers_a_requests_rules_as_one_built_for_them(request: dict[str, Any], pick: dict[str, Any]) -> None:
    """Whatever profile and options a request names (good, bad or null), Scorer.score answers as a
    Scorer built for those rules answers the bare request (the JSONL and HTTP service answer through
    Scorer.score), or refuses them naming the field."""
    opts = {k: v for k, v in pick.items() if k != "profile" and v is not None}
    asked = dict(request, **({"profile": pick["profile"]} if pick["profile"] is not None else {}),
                 **({"options": opts} if opts else {}))
    got = scorer().score(asked)
    if "error" in got and str(got["error"]["field"]).split(".")[0] in ("profile", "options"):
        bad_profile = pick["profile"] not in (None, "seed-001", "seed-000-fan", "seed-000-coins")
        assert bad_profile or opts.get("jin_gang") == "9" or opts.get("min_fan") == 2.0, got["error"]
        return
    own = scorer(pick["profile"], None, **{k: str(v) for k, v in opts.items()})
    assert got == own.score(request)
    assert got["rules"]["profile"] == (pick["profile"] or "seed-001")



# ---------------------------------------------------------------- su_value (issue 36, item 11)

@pytest.mark.parametrize("value", [2, 4, "4"])
def test_su_value(value: Any) -> None:
    # rulebook §5: 素 multiplies; 素提溜 = 1 × v, 素5 = 3 × v, 杠开素提溜 = 1 × v × 2
    v = int(value)
    opts = {"su_value": value}
    assert won(score(PLAIN, options=opts), v)
    assert won(score("123s 46m EEE 77s 678s +5m", options=opts), 3 * v)
    assert won(score(KONG_EXPOSED, kong_draw="exposed", options=opts), 2 * v)
    assert won(score(ZHUO5_ON_8P, options=opts), 3)  # a hun is held: no 素, untouched


def test_su_value_default_is_2_and_unknown_values_are_refused() -> None:
    assert dict(load_rules(None).choices)["su_value"] == 2
    with pytest.raises(RuleError) as e:
        load_rules(None, options={"su_value": 3})
    assert "su_value" in e.value.render() and "2, 4" in e.value.render()


def test_hun_claim_kong_refused_refuses_the_exposed_kong_of_huns_and_no_other() -> None:
    # rulebook §7 hun_claim_kong: refused takes away the kong of a discarded hun (a 明杠 of huns), nothing else
    off = {"hun_claim_kong": "refused"}
    assert won(score(JIN_GANG_EXPOSED, kong_draw="exposed"), 2)
    r = score(JIN_GANG_EXPOSED, kong_draw="exposed", options=off)
    assert refused(r) and r["error"]["code"] == "hun_claim_kong_refused"
    assert won(score(JIN_GANG, kong_draw="hun", options=off), 2)            # 金杠: four held, no claim
    assert won(score(KONG_EXPOSED, kong_draw="exposed", options=off), 4)    # a kong of non-hun tiles
    rs = load_rules(None, options=off)
    assert rs.claims_offered()["hun_kong"] is False and dict(rs.claims)["hun_kong"] is False
