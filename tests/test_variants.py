"""The club variants of issue 36, each an option of rules/tianjin.yaml: played by the engine (its
records replay), and no Python line of the package names one (the rule file says them all).

Expected plays are derived from the options' rulebook entries (§7, §8), not from the engine."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest

from conftest import run
from gamekit import Bot, play, rules
from test_game import _wall_with_head_draws
from tjmj_dsl import Scorer
from tjmj_dsl.game.replay import Replayer
from tjmj_dsl.notation import parse_hand
from tjmj_dsl.game.table import Table
from tjmj_dsl.tiles import parse_tile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def replays(rec: dict[str, Any]) -> bool:
    """The record replays to itself (Replayer raises ReplayDiff on the first difference)."""
    rec = {**json.loads(json.dumps(rec)), "seed": None}  # a fixed wall, not a seed's: the record's own deal
    table, again = Replayer().check(rec)
    return table is not None and again is not None and again["result"] == rec["result"]


# ---------------------------------------------------------------- last_tiles_claims=final_discard (item 10)

# seat 2 holds 1s1s (or 1s1s1s); seat 3 draws the last live tile, a 1s, and discards it
FINAL_1S = {2: "1s1s 2s 3s 4s 5s 6s 7s 8s 9s 1m 2m 3m"}
FINAL_1S_KONG = {2: "1s1s1s 3s 4s 5s 6s 7s 8s 9s 1m 2m 3m"}


@pytest.mark.parametrize("option, offered", [("allowed", False), ("refused", False), ("final_discard", True)])
def test_the_final_discard_is_offered_only_under_final_discard(option: str, offered: bool) -> None:
    bots = [Bot(), Bot(), Bot(plan=[("pong", "1s")]), Bot()]
    _, rec = play(rules(last_tiles_claims=option), _wall_with_head_draws(0, FINAL_1S, {78: "1s"}), 0, bots)
    pongs = [e for e in rec["events"] if e["type"] == "pong"]
    assert (pongs == [{"seat": 2, "type": "pong", "tile": "1s", "from": 3}]) is offered, rec["events"][-4:]
    # the hand is drawn either way: after the pong seat 2 discards, and no tile is left to draw
    assert rec["result"]["winner"] is None
    if offered:
        assert rec["events"][-1]["type"] == "discard" and rec["events"][-1]["seat"] == 2
    assert replays(rec)


def test_the_final_discard_may_be_konged_under_final_discard() -> None:
    bots = [Bot(), Bot(), Bot(plan=[("kong", "1s")]), Bot()]
    _, rec = play(rules(last_tiles_claims="final_discard"), _wall_with_head_draws(0, FINAL_1S_KONG, {78: "1s"}), 0, bots)
    assert {"seat": 2, "type": "kong", "tile": "1s", "from": 3} in rec["events"]
    # the kong is paid (明杠, 1 from each of the other three) and the hand is drawn
    assert rec["result"]["kongs"][0]["seat"] == 2 and rec["result"]["balances"][2] == 3
    assert replays(rec)


def test_simulate_plays_final_discard_and_replay_verifies(tmp_path: Any) -> None:
    path = str(tmp_path / "final.jsonl")
    code, _, err = run(["simulate", "--hands", "6", "--seed", "5", "--option", "last_tiles_claims=final_discard",
                        "--record", path])
    assert code == 0, err
    with open(path, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    assert all(r["rules"]["options"]["last_tiles_claims"] == "final_discard" for r in recs)
    code, out, err = run(["replay", path])
    assert code == 0, out + err


# ---------------------------------------------------------------- hun_claim_kong (item 1)

# indicator N: the huns are N and E. Seat 2 holds three E; seat 1 draws the fourth E and discards it.
THREE_HUNS = {2: "EEE 1s 2s 3s 4s 5s 6s 7s 1m 2m 3m"}


@pytest.mark.parametrize("option, konged", [("allowed", True), ("refused", False)])
def test_a_discarded_hun_is_konged_only_where_allowed(option: str, konged: bool) -> None:
    bots = [Bot(), Bot(), Bot(plan=[("kong", "E")]), Bot()]
    _, rec = play(rules(hun_claim_kong=option), _wall_with_head_draws(0, THREE_HUNS, {0: "E"}), 0, bots)
    assert {"seat": 1, "type": "discard", "tile": "E"} in rec["events"]
    claims = [m for k, _, m in bots[2].menus if k == "claim"]
    # allowed: pass or kong (a pung of huns is never offered); refused: no claim is offered at all
    assert claims == ([[("pass", None), ("kong", parse_tile("E"))]] if konged else [])
    assert any(e["type"] == "kong" for e in rec["events"]) is konged
    assert replays(rec)


def test_refused_keeps_the_jin_gang_of_four_huns_held() -> None:
    # four E held (huns under indicator N): the concealed kong is still offered under refused
    hands = {0: "EEEE 1s 2s 3s 4s 5s 6s 7s 1m 2m 3m"}
    bots = [Bot(plan=[("concealed_kong", "E")]), Bot(), Bot(), Bot()]
    _, rec = play(rules(hun_claim_kong="refused"), _wall_with_head_draws(0, hands, {0: "9m"}), 0, bots)
    assert {"seat": 0, "type": "concealed_kong", "tile": "E"} in rec["events"]
    assert rec["result"]["kongs"][0]["type"] == "hun"
    assert replays(rec)


def test_check_names_the_conflict_of_hun_claim_kong_refused_with_a_pung_of_huns(tmp_path: Any) -> None:
    # a club that lets a pung of huns be claimed and refuses the kong of a discarded hun: the pung's
    # added kong (补杠) is a kong of a claimed hun too, which the option's request rule refuses
    p = tmp_path / "club.yaml"
    p.write_text("extends: builtin:tianjin\nname: club\nset:\n  claims.hun_pung: true\n"
                 "  options.hun_claim_kong.default: refused\n", encoding="utf-8")
    code, out, err = run(["check", "--strict", str(p)])
    said = out + err
    assert code != 0 and "play.hun_kong_added_as lets a kong of huns be made, but a hand with one is refused" in said
    assert "option hun_claim_kong" in said


def test_simulate_plays_hun_claim_kong_refused_and_replay_verifies(tmp_path: Any) -> None:
    path = str(tmp_path / "hk.jsonl")
    code, _, err = run(["simulate", "--hands", "6", "--seed", "9", "--option", "hun_claim_kong=refused", "--record", path])
    assert code == 0, err
    code, out, err = run(["replay", path])
    assert code == 0, out + err


# ---------------------------------------------------------------- hun_discard (item 5)

# indicator N: the huns are N and E. Seat 1 draws an E first thing, and holds tiles of its own besides.
DRAWS_A_HUN = {1: "1s 2s 3s 4s 5s 6s 7s 1m 2m 3m 4m 5m 6m"}


@pytest.mark.parametrize("option, offered", [("xianggong", True), ("refused", False)])
def test_a_hun_is_offered_as_a_discard_only_under_xianggong(option: str, offered: bool) -> None:
    bots = [Bot(), Bot(), Bot(), Bot()]  # each discards the tile it drew when the menu has it
    _, rec = play(rules(hun_discard=option), _wall_with_head_draws(0, DRAWS_A_HUN, {0: "E"}), 0, bots)
    e = parse_tile("E")
    first = next(m for k, d, m in bots[1].menus if k == "act" and d == e)
    assert (("discard", e) in first) is offered
    assert {"seat": 1, "type": "discard", "tile": "E"} in rec["events"][:8] if offered else \
        all(not (ev["type"] == "discard" and ev["tile"] in ("E", "N")) for ev in rec["events"])
    assert rec["result"]["xianggong"] == ([1] if offered else [])  # the seats that are 小相公
    assert replays(rec)


def test_when_only_huns_are_left_a_hun_must_go() -> None:
    # decision hun_discard_forced: a hand holding nothing but huns is offered them (and the
    # discard makes its player 小相公, as every hun discard does)
    gr = rules(hun_discard="refused")
    table = Table(gr, _wall_with_head_draws(0, DRAWS_A_HUN, {0: "E"}), 0, ((1, 1), (1, 1)))
    e, n, one = parse_tile("E"), parse_tile("N"), parse_tile("1s")
    only_huns = [0] * 34
    only_huns[e] = only_huns[n] = 1
    assert table._discards(only_huns) == [("discard", e), ("discard", n)]
    mixed = list(only_huns)
    mixed[one] = 1
    assert table._discards(mixed) == [("discard", one)]
    # the built-in default (hun_discard=xianggong) offers every tile held
    assert Table(rules(), _wall_with_head_draws(0, DRAWS_A_HUN, {0: "E"}), 0, ((1, 1), (1, 1)))._discards(mixed) == \
        [("discard", one), ("discard", e), ("discard", n)]


def test_simulate_plays_hun_discard_refused_and_replay_verifies(tmp_path: Any) -> None:
    path = str(tmp_path / "hd.jsonl")
    code, _, err = run(["simulate", "--hands", "8", "--seed", "3", "--players", "random,random,random,random", "--option",
                        "hun_discard=refused", "--record", path])
    assert code == 0, err
    with open(path, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    # random players discard whatever the menu offers: still no one discards a hun
    assert recs and all(r["result"]["xianggong"] == [] for r in recs)
    code, out, err = run(["replay", path])
    assert code == 0, out + err


# ---------------------------------------------------------------- hun_wait_counts: the winning condition win_when (item 2)

NOT_COUNTED = {"hun_wait_counts": "not_counted"}
# (hand, kong_draw, fan, wins under not_counted): rulebook §7 hun_wait_counts, the fan without 混吊/双混吊 >= 2
WAIT_HANDS = [
    ("345m 123s EEE 456s 7p +N", None, 2, False),              # bare 混吊: 1 without it
    ("345m 123s EEE 66s 7p 8p +N", None, 2, False),            # bare 双混吊
    ("345m 123s EEE 77m 45s +6s", None, 2, True),              # 素提溜
    ("345m 123s 456s 7p [EEEE] +N", "exposed", 4, True),       # 杠开 混吊 提溜: 杠开提溜 is 2
    ("123s 456s 789s EEE 7p +N", None, 8, True),               # 混吊龙: 龙 is 4
    ("123s EEE 66s 789s 7p 8p +5m", None, 6, True),            # 双混捉5: 捉5 is 3
]


@pytest.fixture(scope="module")
def not_counted_dir(tmp_path_factory: Any) -> str:
    """A club's rules with hun_wait_counts=not_counted by default, compiled to both backends (a
    generated scorer answers under the options it was compiled with)."""
    from tjmj_dsl.api import compile_rules
    d = tmp_path_factory.mktemp("nowait")
    p = d / "nowait.yaml"
    p.write_text("extends: builtin:tianjin\nname: nowait\nset:\n  options.hun_wait_counts.default: not_counted\n",
                 encoding="utf-8")
    compile_rules(str(p), str(d / "gen"))
    return str(d / "gen" / "nowait")


@pytest.mark.parametrize("hand, kd, fan, wins", WAIT_HANDS)
def test_hun_wait_not_counted_in_both_backends(hand: str, kd: str | None, fan: int, wins: bool,
                                               not_counted_dir: str) -> None:
    from test_js import NODE, run_both
    req = {**parse_hand(hand), "indicator": "7p", "kong_draw": kd}
    counted = Scorer().score(req)
    assert counted["win"] is True and counted["fan"] == fan
    r = Scorer(options=NOT_COUNTED).score(req)
    assert (r["win"], r["fan"]) == (wins, fan)
    if not wins:
        assert r["reason"] == "below_min_fan" and "winning condition" in r["message"]
    if NODE is not None:
        line = json.dumps(req, ensure_ascii=False).encode()
        got = json.loads(run_both(not_counted_dir, [line])[0])
        assert (got["win"], got["fan"]) == (wins, fan)


def test_random_requests_under_win_when_answer_alike_in_python_and_javascript(not_counted_dir: str) -> None:
    from test_js import NODE, run_both
    from tests.jsdiff import request_lines
    if NODE is None:
        pytest.skip("node is not installed")
    lines = request_lines(36, 1500, [], {})
    answers = [json.loads(a) for a in run_both(not_counted_dir, lines)]
    assert sum(1 for a in answers if "winning condition" in (a.get("message") or "")) > 5
    assert sum(1 for a in answers if a.get("win")) > 200


def test_simulate_plays_hun_wait_not_counted_and_replay_verifies(tmp_path: Any) -> None:
    path = str(tmp_path / "nw.jsonl")
    code, _, err = run(["simulate", "--hands", "6", "--seed", "11", "--option", "hun_wait_counts=not_counted",
                        "--record", path])
    assert code == 0, err
    with open(path, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    # no winner's hand is a bare 混吊 or 双混吊 (its fan without them is at least 2)
    for r in recs:
        if r["result"]["winner"] is not None:
            pats = r["result"]["score"]["result"]["patterns"]
            assert set(pats) - {"tiliu", "hundiao", "shuanghun"}, pats
    code, out, err = run(["replay", path])
    assert code == 0, out + err


@pytest.mark.parametrize("when, words", [
    ("fan >= min_fann", ["win_when", "min_fann", "did you mean 'min_fan'?"]),
    ("product(mull) >= 2", ["win_when", "mull", "did you mean 'mul'?"]),
    ("fan + 1", ["win_when", "the winning condition"]),
    ("any(x in add: x > 2)", ["win_when", "the winning condition cannot use"]),
    ("count(5m) > 0", ["win_when", "the winning condition cannot use"]),
])
def test_a_bad_winning_condition_is_refused_with_a_position(tmp_path: Any, when: str, words: list[str]) -> None:
    p = tmp_path / "w.yaml"
    p.write_text(f"extends: builtin:tianjin\nname: w\nset:\n  win_when: {json.dumps(when)}\n", encoding="utf-8")
    code, out, err = run(["check", str(p)])
    said = out + err
    assert code != 0 and "w.yaml:4:" in said, said
    for w in words:
        assert w in said, said


# ---------------------------------------------------------------- guadafeng: the hun mapping hun.huns (item 4)

GUADAFENG = {"guadafeng": "on"}
WINDS, DRAGONS = ["E", "S", "W", "N"], ["C", "F", "P"]


def huns_by_the_text(indicator: str, guadafeng: bool) -> list[str]:
    """The rulebook's huns (§2, §7 guadafeng, decision guadafeng_huns), written from the text alone:
    the seeds take the indicator and the next kind (9 wraps to 1; 东南西北 and 中发白 cycle);
    刮大风 takes three kinds in a row from a suit indicator (9 wraps to 1), and from a wind all four
    winds, from a dragon all three dragons, the indicator first."""
    for family in (WINDS, DRAGONS):
        if indicator in family:
            i = family.index(indicator)
            order = family[i:] + family[:i]
            return order if guadafeng else order[:2]
    rank, suit = int(indicator[0]), indicator[1]
    return [f"{(rank - 1 + j) % 9 + 1}{suit}" for j in range(3 if guadafeng else 2)]


ALL_INDICATORS = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + WINDS + DRAGONS
# a hand valid under every indicator (no kind held four times, so none is the indicator's fourth)
ANY_INDICATOR_HAND = {**parse_hand("123m 456m 789m 123p 5s +5s")}


@pytest.fixture(scope="module")
def guadafeng_dir(tmp_path_factory: Any) -> str:
    """A club's rules with guadafeng=on by default, compiled to both backends."""
    from tjmj_dsl.api import compile_rules
    d = tmp_path_factory.mktemp("gdf")
    p = d / "gdf.yaml"
    p.write_text('extends: builtin:tianjin\nname: gdf\nset:\n  options.guadafeng.default: "on"\n', encoding="utf-8")
    compile_rules(str(p), str(d / "gen"))
    return str(d / "gen" / "gdf")


@pytest.mark.parametrize("on", [False, True])
def test_every_indicator_names_the_huns_the_rule_text_says(on: bool) -> None:
    scorer = Scorer(options=GUADAFENG if on else None)
    for ind in ALL_INDICATORS:
        got = scorer.score({**ANY_INDICATOR_HAND, "indicator": ind})
        assert got["hun_kinds"] == huns_by_the_text(ind, on), ind


def test_python_and_javascript_name_the_same_huns_under_guadafeng(guadafeng_dir: str) -> None:
    from test_js import NODE, run_both
    from tests.jsdiff import request_lines
    if NODE is None:
        pytest.skip("node is not installed")
    lines = [json.dumps({**ANY_INDICATOR_HAND, "indicator": ind}).encode() for ind in ALL_INDICATORS]
    answers = [json.loads(a) for a in run_both(guadafeng_dir, lines)]  # run_both asserts both backends alike
    assert [a["hun_kinds"] for a in answers] == [huns_by_the_text(ind, True) for ind in ALL_INDICATORS]
    # random hands, every indicator (wind indicators make four hun kinds): both backends alike
    answers = [json.loads(a) for a in run_both(guadafeng_dir, request_lines(4, 1500, [], {}))]
    assert sum(1 for a in answers if a.get("win")) > 200


@pytest.mark.parametrize("hand, indicator, off, on", [
    # the single 1条 is a hun only when 8条 turned makes 8条 9条 1条 huns (刮大风 wraps 9 → 1)
    ("345m 123p EEE 456p 1s +N", "8s", None, ["tiliu", "hundiao"]),
    # 东 turned: 南 西 北 are all huns only under 刮大风; they make a meld with the drawn one
    ("123m 456m 789p 11s S N +W", "E", None, ["zhuo5", "shuanghun"]),
    # 中 turned: 白 is a hun only under 刮大风 (the seeds: 中 发)
    ("123m 456m 789p 11s F P +C", "C", None, ["zhuo5", "shuanghun"]),
    # 南 turned: under the seeds 南 西 are huns, under 刮大风 东 and 北 too; a hand without winds scores alike
    ("345m 123s 789p 77m 45s +6s", "S", ["tiliu", "su"], ["tiliu", "su"]),
])
def test_guadafeng_changes_which_tiles_are_huns(hand: str, indicator: str, off: list[str] | None,
                                                on: list[str]) -> None:
    req = {**parse_hand(hand), "indicator": indicator}
    for opts, want in ((None, off), (GUADAFENG, on)):
        r = Scorer(options=opts).score(req)
        assert r["win"] is (want is not None), (opts, r)
        if want is not None:
            assert sorted(r["patterns"]) == sorted(want)


def test_guadafeng_and_an_explicit_hun_kinds_conflict() -> None:
    from tjmj_dsl.diagnostics import RuleError
    with pytest.raises(RuleError) as e:
        Scorer(options={"guadafeng": "on", "hun_kinds": 1})
    assert "option guadafeng=on sets 'hun.kinds'" in str(e.value.diagnostics[0].message)
    assert "hun_kinds=1" in e.value.diagnostics[0].message
    # hun_kinds=3 is what 刮大风 counts anyway, and 2 is the default a record names beside every other
    # choice: no conflict, and 刮大风's three kinds either way
    for kinds in (3, 2):
        assert Scorer(options={"guadafeng": "on", "hun_kinds": kinds}).score(
            {**ANY_INDICATOR_HAND, "indicator": "8s"})["hun_kinds"] == ["8s", "9s", "1s"]
    code, out, err = run(["score", "345m 123s EEE 456s 9p +N", "--indicator", "7p", "--option", "guadafeng=on",
                          "--option", "hun_kinds=1"])
    assert code != 0 and "would do nothing" in out + err and "Traceback" not in out + err


def test_check_refuses_a_profile_picking_guadafeng_beside_another_hun_kinds(tmp_path: Any) -> None:
    # 刮大风 counts three kinds itself: a profile that also picks one kind is said to contradict it, at
    # the profile's hun_kinds
    p = tmp_path / "club.yaml"
    p.write_text('extends: builtin:tianjin\nname: club\nset:\n  profiles.club: {description: "a 刮大风 club", '
                 'options: {hun_kinds: 1, guadafeng: "on"}}\n', encoding="utf-8")
    code, out, err = run(["check", str(p)])
    said = out + err
    assert code != 0 and "club.yaml:4:" in said and "Traceback" not in said, said
    assert "option guadafeng=on sets 'hun.kinds' to 3, so the hun_kinds=1 picked" in said


# indicator N: the seeds' huns are N and E; 刮大风's all four winds. Seat 1 holds 南 and 西 beside
# three melds and a pair, and draws 5万 first thing.
TWO_WINDS = {1: "123m 456m 789p 1s 1s S W"}


@pytest.mark.parametrize("on", [False, True])
def test_the_table_deals_and_plays_guadafeng_huns(on: bool) -> None:
    bots = [Bot(), Bot(win=True), Bot(), Bot()]
    gr = rules(**(GUADAFENG if on else {}))
    assert list(gr.hun_kinds(parse_tile("N"))) == [parse_tile(x) for x in huns_by_the_text("N", on)]
    _, rec = play(gr, _wall_with_head_draws(0, TWO_WINDS, {0: "5m"}), 0, bots)
    first = next(m for k, d, m in bots[1].menus if k == "act")
    # 南 西 are huns only under 刮大风: 4万 (南) 5万 6万 (西) completes the hand (双混吊, 捉5)
    assert (("win", None) in first) is on
    if on:
        assert rec["result"]["winner"] == 1
        res = rec["result"]["score"]["result"]
        assert res["hun_kinds"] == ["N", "E", "S", "W"] and "shuanghun" in res["patterns"]
    assert rec["rules"]["options"]["guadafeng"] == ("on" if on else "off")
    assert replays(rec)


@pytest.mark.parametrize("on", [False, True])
def test_discarding_a_wind_is_a_hun_discard_only_under_guadafeng(on: bool) -> None:
    # indicator N: 南 is a hun under 刮大风 only, and discarding a hun makes its player 小相公
    hands = {1: "1s 2s 3s 4s 5s 6s 7s 1m 2m 3m 4m 5m S"}
    bots = [Bot(), Bot(plan=[("discard", "S")]), Bot(), Bot()]
    _, rec = play(rules(**(GUADAFENG if on else {})), _wall_with_head_draws(0, hands, {0: "9p"}), 0, bots)
    assert {"seat": 1, "type": "discard", "tile": "S"} in rec["events"]
    assert rec["result"]["xianggong"] == ([1] if on else [])
    assert replays(rec)


def test_simulate_plays_guadafeng_and_replay_verifies(tmp_path: Any) -> None:
    path = str(tmp_path / "gdf.jsonl")
    code, _, err = run(["simulate", "--hands", "12", "--seed", "4", "--option", "guadafeng=on", "--record", path])
    assert code == 0, err
    with open(path, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    assert all(r["rules"]["options"]["guadafeng"] == "on" for r in recs)
    won = [r for r in recs if r["result"]["winner"] is not None]
    assert won
    for r in won:  # each win was scored with the huns the rule text gives its indicator
        assert r["result"]["score"]["result"]["hun_kinds"] == huns_by_the_text(r["indicator"], True)
    code, out, err = run(["replay", path])
    assert code == 0, out + err


@pytest.mark.parametrize("huns, words", [
    ("run(indicator, kind)", ["unknown name 'kind'", "did you mean 'kinds'?"]),
    ("cycl(indicator)", ["unknown function 'cycl'", "did you mean 'cycle'?"]),
    ("count(indicator)", ["unknown function 'count'"]),
    ("next(indicator)", ["hun.huns must give a list of tiles; this gives a tile"]),
    ("[next(indicator)]", ["for the indicator 1m hun.huns gives [2m]", "the indicator's own kind must come first"]),
    ("[indicator, next(next(next(next(indicator))))] if indicator.suit == \"z\" else [indicator]",
     ["for the indicator E hun.huns gives [E E]", "E twice"]),
    ("run(indicator, kinds - 2)", ["for the indicator 1m hun.huns gives []", "no kind at all"]),
    ("run(indicator, len(indicator))", ["len wants list[any], this is tile"]),
    ('[indicator] if indicator.rank == 1 else 7', ["for the indicator 2m hun.huns gives 7: it is not a list of tiles"]),
    ('["m"]', ["hun.huns must give a list of tiles; this gives a list[str]"]),
])
def test_a_bad_hun_mapping_is_refused_with_a_position(tmp_path: Any, huns: str, words: list[str]) -> None:
    p = tmp_path / "h.yaml"
    p.write_text(f"extends: builtin:tianjin\nname: h\nset:\n  hun.huns: {json.dumps(huns)}\n", encoding="utf-8")
    code, out, err = run(["check", str(p)])
    said = out + err
    assert code != 0 and "h.yaml:4:" in said and "Traceback" not in said, said
    for w in words:
        assert w in said, said


def test_the_hun_mapping_is_data_a_rule_file_may_write_anew(tmp_path: Any) -> None:
    # a club whose huns are the indicator's whole suit or family (cycle()): no Python knows it
    p = tmp_path / "c.yaml"
    p.write_text('extends: builtin:tianjin\nname: c\nset:\n  hun.huns: "cycle(indicator)"\n', encoding="utf-8")
    r = Scorer(str(p)).score({**ANY_INDICATOR_HAND, "indicator": "3p"})
    assert r["hun_kinds"] == ["3p", "4p", "5p", "6p", "7p", "8p", "9p", "1p", "2p"]


# ---------------------------------------------------------------- no Python names a variant

# the options and the words of their choices that issue 36 added; the rule file says what they mean
VARIANT_WORDS = ("su_value", "final_discard", "hun_claim_kong", "hun_claim_kong_refused", "hun_discard",
                 "hun_discard_forced", "hun_wait_counts", "not_counted", "hun_wait_not_counted", "guadafeng",
                 "guadafeng_huns")


def test_no_python_line_names_a_variant() -> None:
    pkg = os.path.join(ROOT, "tjmj_dsl")
    bad = []
    words = re.compile(r"\b(" + "|".join(VARIANT_WORDS) + r")\b")
    for root, dirs, names in os.walk(pkg):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for n in names:
            if not n.endswith((".py", ".mjs", ".js", ".lark")):
                continue
            p = os.path.join(root, n)
            with open(p, encoding="utf-8") as f:
                for i, line in enumerate(f, 1):
                    if words.search(line):
                        bad.append(f"{os.path.relpath(p, ROOT)}:{i}: {line.strip()[:100]}")
    assert not bad, "\n".join(bad)
