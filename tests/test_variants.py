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


# ---------------------------------------------------------------- no Python names a variant

# the options and the words of their choices that issue 36 added; the rule file says what they mean
VARIANT_WORDS = ("su_value", "final_discard", "hun_claim_kong", "hun_claim_kong_refused", "hun_discard",
                 "hun_discard_forced", "hun_wait_counts", "not_counted", "hun_wait_not_counted",
                 # item 9: the clubs' limits on the bets over a whole game (the mechanism's words, the bets'
                 # play settings and facts, are generic and may be named)
                 "zuozhuang_game", "no_repeat_after_loss", "zuozhuang_after_loss", "lazhuang_game", "losers_barred",
                 "lazhuang_game_capped", "lazhuang_losers_barred", "lazhuang_game_max", "lazhuang_floor")


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
