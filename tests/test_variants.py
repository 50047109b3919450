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
from gamekit import Bot, build_wall, payments, play, rules
from test_game import _gangkai, _wall_with_head_draws
from tjmj_dsl import Scorer
from tjmj_dsl.game.replay import Replayer, ReplayDiff
from tjmj_dsl.notation import parse_hand
from tjmj_dsl.game.table import Table
from tjmj_dsl.tiles import NAMES, parse_tile, parse_tiles

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


# ---------------------------------------------------------------- gangkai_chain: kongs in a row (item 6)

# four kongs, the pair waiting: 素提溜 (1 × 素 2) on the replacement of the last kong, 杠开 ×2
FOUR_KONGS = "7m [EEEE] (SSSS) (WWWW) (NNNN) +7m"
CAPS = {"off": 1, "2": 2, "3": 3, "4": 4}  # the option's choice → the longest chain that still doubles


def chain_request(chain: int | None, hand: str = FOUR_KONGS, kd: str | None = "concealed") -> dict[str, Any]:
    req: dict[str, Any] = {**parse_hand(hand), "indicator": "7p", "kong_draw": kd}
    if chain is not None:
        req["kong_chain"] = chain
    return req


def chain_fan(choice: str, chain: int) -> int:
    """Rulebook §7 gangkai_chain: 素提溜 2 × 杠开 2, ×2 more for each kong of the chain after the first, up to the cap."""
    return 2 * 2 * 2 ** (min(chain, CAPS[choice]) - 1)


@pytest.mark.parametrize("choice", sorted(CAPS))
@pytest.mark.parametrize("chain", [None, 1, 2, 3, 4])
def test_each_kong_of_a_chain_doubles_the_gangkai_up_to_the_cap(choice: str, chain: int | None) -> None:
    r = Scorer(options={"gangkai_chain": choice}).score(chain_request(chain))
    n = chain or 1
    assert r["win"] is True and r["fan"] == chain_fan(choice, n), r
    links = [f"liangang{k}" for k in range(2, min(n, CAPS[choice]) + 1)]
    assert r["patterns"] == ["tiliu", "su", "gangkai"] + links


def test_a_chain_longer_than_the_hands_kongs_is_refused() -> None:
    sc = Scorer(options={"gangkai_chain": "4"})
    two = "345m 77m 45s [EEEE] (SSSS) +6s"
    assert sc.score(chain_request(2, two))["fan"] == chain_fan("4", 2)
    r = sc.score(chain_request(3, two))
    assert r["reason"] == "invalid_request" and r["error"]["code"] == "kong_chain_kongs", r
    # under the seeds' rule too: a request that describes no hand is refused whatever it scores
    assert Scorer().score(chain_request(3, two))["error"]["code"] == "kong_chain_kongs"


BAD_CHAINS = [  # (kong_chain, kong_draw, error code, words of the message)
    (0, "concealed", "bad_value", "expected a count from 1 to 4, got 0"),
    (5, "concealed", "bad_value", "expected a count from 1 to 4, got 5"),
    (-1, "concealed", "bad_value", "got -1"),
    (10**30, "concealed", "bad_value", "got 1000000000000000000000000000000"),
    ("2", "concealed", "wrong_type", "got '2'"),
    (2.0, "concealed", "wrong_type", "got 2.0"),
    (True, "concealed", "wrong_type", "got True"),
    ([2], "concealed", "wrong_type", "got [2]"),
    (2, None, "unexpected_field", "kong_chain without kong_draw"),
]


@pytest.mark.parametrize("chain, kd, code, words", BAD_CHAINS)
def test_a_bad_kong_chain_is_refused_naming_the_field(chain: Any, kd: str | None, code: str, words: str) -> None:
    sc = Scorer(options={"gangkai_chain": "4"})
    for answer in (sc.score(chain_request(chain, kd=kd)),
                   sc.waits({k: v for k, v in chain_request(chain, kd=kd).items() if k != "draw"})):
        err = answer["error"]
        assert (err["code"], err["field"]) == (code, "kong_chain") and words in err["message"], err
    if not isinstance(chain, list):  # the typed path says the same
        c = sc.score_tiles(parse_tiles("7m"), parse_tile("7m"), parse_tile("7p"),
                           [("kong", parse_tile("E"))] + [("concealed_kong", parse_tile(k)) for k in "SWN"], kd, (), chain)
        assert c.reason == "invalid_request" and words in (c.error or ""), c


def test_kong_chain_from_the_command_line() -> None:
    code, out, _ = run(["score", FOUR_KONGS, "-i", "7p", "--kong-draw", "concealed", "--kong-chain", "3", "--option",
                        "gangkai_chain=4", "--json"])
    assert code == 0 and json.loads(out)["fan"] == chain_fan("4", 3)
    code, out, _ = run(["score", FOUR_KONGS, "-i", "7p", "--kong-chain", "3", "--json"])
    assert json.loads(out)["error"]["code"] == "unexpected_field"
    code, _, err = run(["score", FOUR_KONGS, "-i", "7p", "--kong-draw", "concealed", "--kong-chain", "5"])
    assert code == 2 and "--kong-chain" in err and "from 1 to 4" in err


@pytest.fixture(scope="module")
def chain_dir(tmp_path_factory: Any) -> str:
    """A club playing gangkai_chain=4, compiled to both backends."""
    from tjmj_dsl.api import compile_rules
    d = tmp_path_factory.mktemp("chain")
    p = d / "chain.yaml"
    p.write_text("extends: builtin:tianjin\nname: chain\nset:\n  options.gangkai_chain.default: \"4\"\n", encoding="utf-8")
    compile_rules(str(p), str(d / "gen"))
    return str(d / "gen" / "chain")


def test_python_and_javascript_answer_kong_chain_requests_alike(chain_dir: str) -> None:
    from test_js import NODE, run_both
    if NODE is None:
        pytest.skip("node is not installed")
    reqs: list[dict[str, Any]] = []
    for hand in (FOUR_KONGS, "77m 45s [EEEE] (SSSS) (WWWW) +6s", "345m 77m 45s [EEEE] (8888p) +6s",
                 "345m 123s 77m 45s [EEEE] +6s", "345m 123s EEE 77m 45s +6s"):
        for kd in (None, "exposed", "concealed", "hun"):
            for chain in (None, 1, 2, 3, 4):
                reqs.append(chain_request(chain, hand, kd))
    for chain, kd, _, _ in BAD_CHAINS:
        reqs.append(chain_request(chain, kd=kd))
        reqs.append({k: v for k, v in chain_request(chain, kd=kd).items() if k != "draw"})  # a waits line
    reqs.append({**chain_request(2), "kong_chain": None})  # null: absent
    reqs.append({**chain_request(2), "concealed": "7x"})  # the tiles' error comes first, as in Python
    lines = [json.dumps(r, ensure_ascii=False).encode() for r in reqs]
    answers = [json.loads(a) for a in run_both(chain_dir, lines)]  # asserts the two backends agree line by line
    # and what they agree on is the rule's: the four-kong hand under the cap of 4
    for req, a in zip(reqs, answers):
        if req["concealed"] == parse_hand(FOUR_KONGS)["concealed"] and req.get("kong_draw") == "concealed" \
                and "draw" in req and type(req.get("kong_chain")) in (type(None), int) \
                and req.get("kong_chain") in (None, 1, 2, 3, 4):
            assert a["fan"] == chain_fan("4", req.get("kong_chain") or 1), (req, a)
    # refused at kong_chain: the bad values (score and waits lines), and every chain 1-4 of the 5 hands without kong_draw
    assert sum(1 for a in answers if (a.get("error") or {}).get("field") == "kong_chain") == 2 * len(BAD_CHAINS) + 5 * 4


def test_an_unknown_name_near_kong_chain_is_refused_with_a_hint(tmp_path: Any) -> None:
    p = tmp_path / "c.yaml"
    p.write_text("extends: builtin:tianjin\nname: c\nset:\n  patterns.liangang2.when: \"kong_chian >= 2\"\n"
                 "  options.gangkai_chain.default: \"2\"\n", encoding="utf-8")
    code, out, err = run(["check", str(p)])
    said = out + err
    assert code != 0 and "c.yaml:4:" in said and "did you mean 'kong_chain'?" in said, said


def test_check_says_a_chain_choice_is_dead_without_gangkai(tmp_path: Any) -> None:
    # 二连杠开 doubles a 杠开: where a club plays no 杠开, the choice can never score
    p = tmp_path / "d.yaml"
    p.write_text("extends: builtin:tianjin\nname: d\nset:\n  options.gangkai_chain.default: \"2\"\n"
                 "  patterns.gangkai.enabled: false\nsilence:\n  example-inherited:\n    examples: no 杠开 here\n",
                 encoding="utf-8")
    code, out, err = run(["check", "--strict", str(p)])
    said = out + err
    assert code != 0 and "pattern liangang2 can never be claimed" in said and "requires gangkai" in said, said


# the dealer holds four 东, three 南 and three 西: 东 konged, its replacement a 南 konged at once, then a 西
CHAIN_HAND = {0: "EEEE SSS WWW 45s 77m"}


@pytest.mark.parametrize("choice", sorted(CAPS))
def test_the_engine_plays_a_chain_of_three_kongs(choice: str) -> None:
    bots = [Bot(plan=[("concealed_kong", "E"), ("concealed_kong", "S"), ("concealed_kong", "W")], win=True),
            Bot(), Bot(), Bot()]
    _, rec = play(rules(gangkai_chain=choice), build_wall(0, CHAIN_HAND, tail="S W 6s", indicator="7p"), 0, bots)
    score = rec["result"]["score"]
    assert rec["result"]["winner"] == 0
    assert score["request"]["kong_draw"] == "concealed" and score["request"]["kong_chain"] == 3
    fan = chain_fan(choice, 3)
    assert score["result"]["fan"] == fan
    # decision gangkai_chain_once: each of the three 暗杠 is paid its 2 points as usual, besides the win
    assert rec["result"]["balances"] == [3 * (fan + 3 * 2), -(fan + 6), -(fan + 6), -(fan + 6)]
    assert replays(rec)


def test_a_chain_may_start_with_an_exposed_kong_and_a_discard_breaks_it() -> None:
    gr = rules(gangkai_chain="4")
    # seat 1 konges the dealer's discarded 东, and its replacement turn makes a 暗杠 of 南 at once
    bots = [Bot(), Bot(plan=[("kong", "E"), ("concealed_kong", "S")], win=True), Bot(), Bot()]
    hands = {0: "123p 456p 789p 11s 2s 9s E", 1: "EEE SSSS 345m 45s 7m"}
    _, rec = play(gr, build_wall(0, hands, tail="7m 6s", indicator="7p"), 0, bots)
    req = rec["result"]["score"]["request"]
    assert rec["result"]["winner"] == 1 and (req["kong_draw"], req["kong_chain"]) == ("concealed", 2)
    assert rec["result"]["score"]["result"]["fan"] == chain_fan("4", 2)
    assert replays(rec)
    # the dealer konges 东, discards the replacement, and konges 南 on a later turn: no chain
    bots = [Bot(plan=[("concealed_kong", "E"), ("discard", "9p"), ("concealed_kong", "S")], win=True),
            Bot(), Bot(), Bot()]
    _, rec = play(gr, build_wall(0, {0: "EEEE SSS 345m 77m 45s"}, head="1p 1p 1p S", tail="9p 6s", indicator="7p"),
                  0, bots)
    req = rec["result"]["score"]["request"]
    assert rec["result"]["winner"] == 0 and req["kong_draw"] == "concealed" and "kong_chain" not in req
    assert rec["result"]["score"]["result"]["fan"] == chain_fan("4", 1)
    assert replays(rec)


def test_a_changed_kong_chain_does_not_replay() -> None:
    bots = [Bot(plan=[("concealed_kong", "E"), ("concealed_kong", "S"), ("concealed_kong", "W")], win=True),
            Bot(), Bot(), Bot()]
    _, rec = play(rules(gangkai_chain="4"), build_wall(0, CHAIN_HAND, tail="S W 6s", indicator="7p"), 0, bots)
    rec = json.loads(json.dumps(rec))
    rec["result"]["score"]["request"]["kong_chain"] = 2
    with pytest.raises(Exception):
        assert replays(rec)


def test_simulate_plays_gangkai_chain_and_replay_verifies(tmp_path: Any) -> None:
    path = str(tmp_path / "chain.jsonl")
    code, _, err = run(["simulate", "--hands", "6", "--seed", "7", "--option", "gangkai_chain=4", "--record", path])
    assert code == 0, err
    with open(path, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    assert recs and all(r["rules"]["options"]["gangkai_chain"] == "4" for r in recs)
    code, out, err = run(["replay", path])
    assert code == 0, out + err


# ---------------------------------------------------------------- chan: 铲 only with a win, 连铲 (item 8)

# indicator N (huns N and E). Each seat is dealt one S and discards it first: the first go-round is
# S S S S. The head then gives C to the dealer and the three others in turn, each discarding it: the
# second go-round is C C C C. No one holds a C or a second S, so nothing is claimed. Seat 1 keeps
# 345m 123s 777p 77m 45s (no hun: 素) and draws 6s on its third draw (head 8): 素提溜, total 2.
CHAN_HANDS = {0: "S 1m1m 2p2p 3s3s 4m4m 6p6p 7s 8s 9s", 1: "S 345m 123s 777p 7m 45s",
              2: "S 1p 2p 3p 4p 5p 8p 9p 9m 8m F P W", 3: "S 2m 3m 5m 6m 1s 2s 4s 5s 9s F P W"}
CHAN_DRAWS = {0: "7m", 3: "C", 4: "C", 5: "C", 6: "C", 8: "6s"}


def _chan_hand(option: str, win: bool, dealer_first: str = "S") -> dict[str, Any]:
    bots = [Bot([("discard", dealer_first)]), Bot([("discard", "S")], win=win), Bot([("discard", "S")]),
            Bot([("discard", "S")])]
    hands = dict(CHAN_HANDS)
    if dealer_first != "S":  # the dealer holds it in place of its 9s, and keeps the S
        hands[0] = hands[0].replace("9s", dealer_first)
    _, rec = play(rules(chan=option), _wall_with_head_draws(0, hands, CHAN_DRAWS), 0, bots)
    discards = [e["tile"] for e in rec["events"] if e["type"] == "discard"]
    assert discards[:8] == [dealer_first, "S", "S", "S", "C", "C", "C", "C"], discards[:8]
    assert not any(e["type"] in ("pong", "kong") for e in rec["events"])
    return rec


# What the rule text says each seat gets. A win of total 2 by seat 1: each other seat pays it 2. A 铲
# (chan_points 1, no 坐庄 or 拉庄): the dealer pays each non-dealer 1 — under always whether or not
# anyone won, under on_win only with a winner, under lianchan as always, and once more when the
# second go-round is followed too (连铲, as much as the first).
WIN_2 = [-2, 6, -2, -2]
ONE_CHAN = [-3, 1, 1, 1]


def _plus(*bs: list[int]) -> list[int]:
    return [sum(x) for x in zip(*bs)]


@pytest.mark.parametrize("option, chans_drawn, chans_won", [("always", 1, 1), ("on_win", 0, 1), ("lianchan", 2, 2)])
def test_chan_choices_pay_as_the_rule_says(option: str, chans_drawn: int, chans_won: int) -> None:
    drawn = _chan_hand(option, win=False)
    r = drawn["result"]
    assert r["winner"] is None and r["kongs"] == []
    assert r["balances"] == _plus([0] * 4, *[ONE_CHAN] * chans_drawn)
    assert r["chan"] is (chans_drawn > 0)  # the record's chan: a 铲 payment was made
    assert [(p["from"], p["to"], p["amount"]) for p in r["payments"]] == [(0, s, 1) for _ in range(chans_drawn)
                                                                         for s in (1, 2, 3)]
    assert replays(drawn)
    won = _chan_hand(option, win=True)
    r = won["result"]
    assert r["winner"] == 1 and r["score"]["result"]["total"] == 2 and won["events"][-1]["tile"] == "6s"
    assert r["balances"] == _plus(WIN_2, *[ONE_CHAN] * chans_won)
    assert r["chan"] is True
    assert replays(won)


@pytest.mark.parametrize("option", ["always", "on_win", "lianchan"])
def test_no_chan_when_the_first_go_round_is_not_followed(option: str) -> None:
    # the dealer opens with 9s: the first go-round is 9s S S S; the second is still C C C C, but 连铲
    # is a second 铲, after a first
    rec = _chan_hand(option, win=False, dealer_first="9s")
    assert rec["result"]["payments"] == [] and rec["result"]["chan"] is False
    assert replays(rec)


def test_the_table_reports_its_go_rounds() -> None:
    from tjmj_dsl.game.table import Table
    import random
    gr = rules(chan="lianchan")
    bots = [Bot([("discard", "S")]), Bot([("discard", "S")]), Bot([("discard", "S")]), Bot([("discard", "S")])]
    table = Table(gr, _wall_with_head_draws(0, CHAN_HANDS, CHAN_DRAWS), 0, ((1, 1), (1, 1)))
    res = table.play(bots, [random.Random(0)] * 4)  # type: ignore[arg-type]
    rounds = res.outcome()["rounds"]
    discards = [e[2] for e in res.events if e[1] == "discard"]
    assert [d for r in rounds for d in r["discards"]] == [NAMES[t] for t in discards]
    assert all(len(r["discards"]) == 4 for r in rounds[:-1]) and 1 <= len(rounds[-1]["discards"]) <= 4
    assert rounds[:2] == [{"discards": ["S"] * 4, "claimed": False}, {"discards": ["C"] * 4, "claimed": False}]
    assert not any(r["claimed"] for r in rounds)


def test_a_claimed_discard_marks_its_go_round() -> None:
    # seat 2 holds a pair of the dealer's first discard and pongs it: the first go-round is claimed
    hands = {0: "S 1m1m 2p2p 3s3s 4m4m 6p6p 7s 8s 9s", 2: "SS 1s 2s 3s 4s 5p 6p 7p 8p 9m 9p C"}
    bots = [Bot([("discard", "S")]), Bot(), Bot([("pong", "S"), ("discard", "C")]), Bot()]
    res, rec = play(rules(chan="lianchan"), build_wall(0, hands), 0, bots)
    assert rec["events"][1] == {"seat": 2, "type": "pong", "tile": "S", "from": 0}
    assert res.outcome()["rounds"][0]["claimed"] is True
    assert rec["result"]["chan"] is False and rec["result"]["payments"] == []
    assert replays(rec)


ROUNDS_REFUSED = [
    ("S", "rounds", "wrong_type"),
    ([{"discards": []}], "rounds[0].discards", "bad_value"),
    ([{"discards": ["S"]}, {"discards": ["C"] * 4}], "rounds[0].discards", "bad_value"),
    ([{"discards": ["S", 5]}], "rounds[0].discards[1]", "wrong_type"),
    ([{"discards": ["S", "5x"]}], "rounds[0].discards[1]", "bad_tile"),
    ([{"discards": ["S"] * 4}, {"discards": ["S"]}], "rounds[1].discards[0]", "too_many_copies"),
    ([{"discard": ["S"]}], "rounds[0].discard", "unknown_field"),
    ([{"claimed": True}], "rounds[0].discards", "missing_field"),
    ([{"discards": ["S"], "claimed": 1}], "rounds[0].claimed", "wrong_type"),
    ([{"discards": ["1m"]}] * 35, "rounds", "bad_value"),
]
FOLLOWED_TWICE = [{"discards": ["S"] * 4}, {"discards": ["C"] * 4}]
DRAWN = {"dealer": 0, "winner": None}
# outcomes and their balances under always, on_win, lianchan (the rule text: 铲 pays 1 to each
# non-dealer; on_win only with a winner; lianchan once more when the second go-round is followed too)
CHAN_OUTCOMES = [
    ({**DRAWN, "rounds": FOLLOWED_TWICE}, [-3, 1, 1, 1], [0, 0, 0, 0], [-6, 2, 2, 2]),
    ({"dealer": 0, "winner": 1, "total": 2, "rounds": FOLLOWED_TWICE}, [-5, 7, -1, -1], [-5, 7, -1, -1], [-8, 8, 0, 0]),
    ({**DRAWN, "rounds": [{"discards": ["S"] * 4, "claimed": True}]}, [0] * 4, [0] * 4, [0] * 4),
    ({**DRAWN, "rounds": [{"discards": ["S"] * 3}]}, [0] * 4, [0] * 4, [0] * 4),
    ({**DRAWN, "rounds": [{"discards": ["S"] * 4}, {"discards": ["C"] * 4, "claimed": True}]}, [-3, 1, 1, 1], [0] * 4,
     [-3, 1, 1, 1]),
    ({**DRAWN, "rounds": [{"discards": ["S", "E", "S", "S"]}, {"discards": ["C"] * 4}]}, [0] * 4, [0] * 4, [0] * 4),
    ({**DRAWN, "chan": True}, [-3, 1, 1, 1], [0] * 4, [-3, 1, 1, 1]),
]
CHAN_CHOICES = ("always", "on_win", "lianchan")


@pytest.fixture(scope="module")
def chan_dirs(tmp_path_factory: Any) -> dict[str, str]:
    """The built-in rules' generated scorer (always), and the rules with on_win and with lianchan by
    default, compiled to both backends (a generated scorer settles under the options it was compiled with)."""
    from tjmj_dsl.api import compile_rules
    out = {"always": os.path.join(ROOT, "generated", "tianjin")}
    for choice in CHAN_CHOICES[1:]:
        d = tmp_path_factory.mktemp(choice)
        p = d / f"chan{choice.replace('_', '')}.yaml"
        p.write_text(f"extends: builtin:tianjin\nname: {p.stem}\nset:\n  options.chan.default: {choice}\n", encoding="utf-8")
        compile_rules(str(p), str(d / "gen"))
        out[choice] = str(d / "gen" / p.stem)
    return out


def _settle_both(directory: str, outcomes: list[Any]) -> list[dict[str, Any]]:
    """settle() of the generated Python and JavaScript scorers of `directory`: the same answers (else fails)."""
    import subprocess
    from test_js import NODE
    from tjmj_dsl.backends.codegen import load_generated
    lines = [json.dumps(o, ensure_ascii=False) if not isinstance(o, str) else o for o in outcomes]
    with open(os.path.join(directory, "scorer.py"), encoding="utf-8") as f:
        mod = load_generated(f.read(), "tjmj_chan_peer")
    py = [mod.settle(json.loads(line)) for line in lines]
    if NODE is not None:
        script = ("const { settle, parseJson, toJson } = await import(process.argv[1]);\n"
                  "const lines = (await import('node:fs')).readFileSync(0, 'utf8').split('\\n').filter(Boolean);\n"
                  "process.stdout.write(lines.map((l) => toJson(settle(parseJson(l)))).join('\\n') + '\\n');\n")
        out = subprocess.run([NODE, "--input-type=module", "-e", script, os.path.join(directory, "scorer.mjs")],
                             input="\n".join(lines), capture_output=True, text=True, timeout=300, check=True)
        js = [json.loads(x) for x in out.stdout.splitlines()]
        assert len(js) == len(py)
        for line, a, b in zip(lines, py, js):
            assert json.loads(json.dumps(a, ensure_ascii=False)) == b, line
    return py


@pytest.mark.parametrize("choice", CHAN_CHOICES)
def test_each_chan_choice_settles_alike_in_both_backends(choice: str, chan_dirs: dict[str, str]) -> None:
    from tests.jsdiff import outcome_lines
    col = 1 + CHAN_CHOICES.index(choice)
    answers = _settle_both(chan_dirs[choice], [row[0] for row in CHAN_OUTCOMES])
    for row, a in zip(CHAN_OUTCOMES, answers):
        assert a["balances"] == row[col], (row[0], a)
        assert Scorer(options={"chan": choice}).settle(row[0])["balances"] == row[col]
    answers = _settle_both(chan_dirs[choice], [{**DRAWN, "rounds": r} for r, _, _ in ROUNDS_REFUSED])
    for (_, field, code), a in zip(ROUNDS_REFUSED, answers):
        assert (a["error"]["field"], a["error"]["code"]) == (field, code), a["error"]
    assert "did you mean 'discards'?" in json.dumps(answers[6], ensure_ascii=False)
    random = _settle_both(chan_dirs[choice], outcome_lines(36, 400))
    assert sum(1 for a in random if any(p["reason"] == "chan" for p in a["payments"])) > 10


@pytest.mark.parametrize("body, line_col, words", [
    ('set:\n  settlement.payments.chan.when: "count(r in rounds: r.claimd) > 0"\n', ":4:56:",
     ["a round has no attribute 'claimd'", "did you mean 'claimed'?"]),
    ('set:\n  settlement.payments.chan.when: "chan_round(roundz)"\n', ":4:46:",
     ["unknown name 'roundz'", "did you mean 'rounds'?"]),
    ('settlement:\n  definitions:\n    "x(r: rund)":\n      name: x\n      value: "true"\n      description: x\n'
     '      source: x\n', ":5:5:", ["unknown parameter type 'rund'", "did you mean 'round'?"]),
])
def test_go_round_mistakes_are_positioned(tmp_path: Any, body: str, line_col: str, words: list[str]) -> None:
    path = tmp_path / "w.yaml"
    path.write_text("extends: builtin:tianjin\nname: w\n" + body, encoding="utf-8")
    code, out, err = run(["check", str(path)])
    said = out + err
    assert code != 0 and "w.yaml" + line_col in said, said
    for w in words:
        assert w in said, said


def test_simulate_plays_the_chan_option_and_replay_verifies(tmp_path: Any) -> None:
    path = str(tmp_path / "chan.jsonl")
    code, _, err = run(["simulate", "--hands", "6", "--seed", "3", "--option", "chan=lianchan", "--record", path])
    assert code == 0, err
    with open(path, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    assert all(r["rules"]["options"]["chan"] == "lianchan" for r in recs)
    for r in recs:  # the record's chan says a 铲 payment was made
        assert r["result"]["chan"] is any(p["reason"] == "chan" for p in r["result"]["payments"])
    code, out, err = run(["replay", path])
    assert code == 0, out + err


# ---------------------------------------------------------------- exposed_kong_payer (item 7)

# the dealer (seat 0) sits and seat 1 pulls twice (×8 between them); seat 2 discards 5p on its first turn
# and seat 1, holding 555p, kongs it; nobody wins (the bots never do)
KONG_OF_A_DISCARD = {1: "555p 1m 4m 7m 2s 5s 8s C F P S", 2: "5p 1m 4m 7m 2s 5s 8s C F P S 9m 9p"}


def _kong_of_seat_2s_discard(option: str) -> dict[str, Any]:
    bots = [Bot(zuo=True), Bot(plan=[("kong", "5p")], la=2), Bot(plan=[("discard", "5p")]), Bot()]
    _, rec = play(rules(exposed_kong_payer=option), build_wall(0, KONG_OF_A_DISCARD), 0, bots)
    return rec


@pytest.mark.parametrize("option, paid", [
    # all (the seeds): each other seat pays the 明杠's 1 point times its pair multiplier with seat 1
    ("all", [(2, 1, 1), (3, 1, 1), (0, 1, 8)]),
    # discarder (rulebook §7, decision exposed_kong_discarder_pays): seat 2 alone pays what one seat pays; between two
    # non-dealers no 坐庄/拉庄 doubling
    ("discarder", [(2, 1, 1)]),
])
def test_the_kong_of_a_discard_is_paid_as_the_option_says(option: str, paid: list[tuple[int, int, int]]) -> None:
    rec = _kong_of_seat_2s_discard(option)
    assert {"seat": 1, "type": "kong", "tile": "5p", "from": 2} in rec["events"]
    r = rec["result"]
    assert r["winner"] is None and (rec["zuozhuang"], rec["lazhuang"]) == (True, [0, 2, 0, 0])
    assert r["kongs"] == [{"seat": 1, "type": "exposed", "tile": "5p", "points": 1, "won": False, "from": 2, "ended": False}]
    assert payments(rec, "kong") == paid
    assert sum(r["balances"]) == 0 and r["balances"][1] == sum(a for _, _, a in paid)
    assert replays(rec)


def test_a_replayed_record_whose_kong_names_another_discarder_is_refused() -> None:
    rec = {**json.loads(json.dumps(_kong_of_seat_2s_discard("discarder"))), "seed": None}
    rec["result"]["kongs"][0]["from"] = 3
    with pytest.raises(ReplayDiff, match=r"result\.kongs\[0\]\.from"):
        Replayer().check(rec)


def test_under_discarder_only_kongs_of_a_discard_change_payer() -> None:
    # the 杠开 hands of test_game: a 明杠 of the dealer's discard is paid by the dealer alone; a 补杠, a
    # 暗杠 and a 金杠 are made of one's own tiles, paid by all three as before
    for kind, paid in (("exposed", [(0, 1, 1)]), ("added", [(2, 1, 1), (3, 1, 1), (0, 1, 1)]),
                       ("concealed", [(2, 1, 2), (3, 1, 2), (0, 1, 2)]), ("hun", [(2, 1, 4), (3, 1, 4), (0, 1, 4)]),
                       ("hun_exposed", [(0, 1, 1)])):
        _, rec, _ = _gangkai(kind, exposed_kong_payer="discarder")
        assert payments(rec, "kong") == paid, kind
        assert replays(rec)
    # under seed-000's tables the 杠开 kong is in the winning total: paid by nobody apart, whoever would pay
    _, rec, _ = _gangkai("exposed", "seed-000-coins", exposed_kong_payer="discarder")
    assert payments(rec, "kong") == [] and payments(rec, "win") == [(s, 1, (4 + 1) * 1) for s in (2, 3, 0)]


@pytest.mark.parametrize("outcome, field, words", [
    ({"dealer": 0, "winner": None, "kongs": [{"seat": 2, "type": "exposed", "tile": "9m", "from": 2}]},
     "kongs[0].from", "konged its own discard"),
    ({"dealer": 0, "winner": None, "kongs": [{"seat": 2, "type": "exposed", "tile": "9m", "from": 4}]},
     "kongs[0].from", "a seat (0-3) or null"),
    ({"dealer": 0, "winner": None, "kongs": [{"seat": 2, "type": "exposed", "tile": "9m", "from": "1"}]},
     "kongs[0].from", "a seat (0-3) or null"),
    ({"dealer": 0, "winner": None, "kongs": [{"seat": 2, "type": "exposed", "tile": "9m", "form": 1}]},
     "kongs[0].form", "unknown field"),
])
def test_a_bad_kong_discarder_is_refused_by_both_backends(outcome: dict[str, Any], field: str, words: str,
                                                         discarder_dir: str) -> None:
    got = Scorer(options={"exposed_kong_payer": "discarder"}).settle(outcome)
    assert got["reason"] == "invalid_request" and got["error"]["field"] == field and words in got["error"]["message"]
    py, js = _settle_each(discarder_dir, [outcome])
    assert py[0]["error"] == got["error"]
    if js is not None:
        assert js == py


@pytest.fixture(scope="module")
def discarder_dir(tmp_path_factory: Any) -> str:
    """A club's rules with exposed_kong_payer=discarder by default, compiled to both backends."""
    from tjmj_dsl.api import compile_rules
    d = tmp_path_factory.mktemp("discarder")
    p = d / "discarder.yaml"
    p.write_text("extends: builtin:tianjin\nname: discarder\nset:\n  options.exposed_kong_payer.default: discarder\n",
                 encoding="utf-8")
    compile_rules(str(p), str(d / "gen"))
    return str(d / "gen" / "discarder")


def _settle_each(directory: str, outcomes: list[Any]) -> tuple[list[Any], list[Any] | None]:
    """settle() of each outcome by the generated Python and JavaScript scorers of `directory` (JavaScript: None
    without node)."""
    import subprocess
    from test_js import NODE
    from tjmj_dsl.backends.codegen import load_generated
    with open(os.path.join(directory, "scorer.py"), encoding="utf-8") as f:
        mod = load_generated(f.read(), "tjmj_discarder_settle")
    lines = [json.dumps(o, ensure_ascii=False) for o in outcomes]
    py = [json.loads(json.dumps(mod.settle(json.loads(line)), ensure_ascii=False)) for line in lines]
    if NODE is None:
        return py, None
    script = ("const { settle, parseJson, toJson } = await import(process.argv[1]);\n"
              "const lines = (await import('node:fs')).readFileSync(0, 'utf8').split('\\n').filter(Boolean);\n"
              "process.stdout.write(lines.map((l) => toJson(settle(parseJson(l)))).join('\\n') + '\\n');\n")
    out = subprocess.run([NODE, "--input-type=module", "-e", script, os.path.join(directory, "scorer.mjs")],
                         input="\n".join(lines), capture_output=True, text=True, timeout=300, check=True)
    return py, [json.loads(line) for line in out.stdout.splitlines()]


def test_the_kong_discarder_settles_alike_in_python_and_javascript(discarder_dir: str) -> None:
    from tests.jsdiff import outcome_lines
    # the rulebook's examples of option exposed_kong_payer=discarder (the default rules give the `all` column)
    outcomes = [{"dealer": 0, "winner": None, "kongs": [{"seat": 2, "type": "exposed", "tile": "9m", "from": 1}]},
                {"dealer": 0, "zuozhuang": True, "lazhuang": [0, 2, 0, 0], "winner": 3, "total": 2,
                 "kongs": [{"seat": 1, "type": "exposed", "tile": "E", "from": 2},
                           {"seat": 3, "type": "concealed", "tile": "5p"}]}]
    assert [Scorer().settle(o)["balances"] for o in outcomes] == [[-1, -1, 3, -1], [-16, 6, -5, 15]]
    py, js = _settle_each(discarder_dir, outcomes)
    assert [a["balances"] for a in py] == [[0, -1, 1, 0], [-8, -3, -5, 16]]
    assert py[1]["kongs"][0]["from"] == 2 and py[1]["kongs"][1]["from"] is None
    if js is not None:
        assert js == py
    # and a thousand random outcomes, valid and not, some of whose kongs name a discarder
    lines = [json.loads(line) for line in outcome_lines(36, 1000)]
    py, js = _settle_each(discarder_dir, lines)
    alone = [k for a in py for k in a["kongs"] if k["from"] is not None and not k["won"]]
    assert len(alone) > 25
    for a in py:
        for k in a["kongs"]:
            paid = [p["from"] for p in a["payments"] if p["rule"] == "kong" and p["to"] == k["seat"]]
            if k["from"] is not None and not k["won"] and sum(1 for x in a["kongs"] if x["seat"] == k["seat"]) == 1:
                assert paid == [k["from"]], a
    if js is not None:
        assert js == py


def test_simulate_plays_exposed_kong_payer_discarder_and_replay_verifies(tmp_path: Any) -> None:
    path = str(tmp_path / "ek.jsonl")
    code, _, err = run(["simulate", "--hands", "12", "--seed", "7", "--players", "random,random,random,random",
                        "--option", "exposed_kong_payer=discarder", "--record", path])
    assert code == 0, err
    with open(path, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    seen = 0
    for r in recs:
        for i, k in enumerate(r["result"]["kongs"]):
            paid = [p for p in r["result"]["payments"] if p["reason"] == "kong" and p["to"] == k["seat"]]
            if k["from"] is not None and not k["won"]:
                seen += 1
                assert [p["from"] for p in paid] == [k["from"]], (i, r["result"])
    assert seen > 0  # random players claim kongs of discards: the option was played
    code, out, err = run(["replay", path])
    assert code == 0, out + err


# ---------------------------------------------------------------- jin_gang_wins: 金杠直接胡 (item 3)

# indicator N: the huns are N and E. Seat 1 holds the four E (a 金杠) and konges them on its first turn.
FOUR_HUNS = {1: "EEEE 123m 456m 789s"}


def _jin_gang(wall_hands: dict[int, str] = FOUR_HUNS, plan: list[tuple[str, str | None]] | None = None,
              **options: Any) -> tuple[dict[str, Any], list[Bot]]:
    bots = [Bot(), Bot(plan or [("concealed_kong", "E")], win=True), Bot(), Bot()]
    _, rec = play(rules(**options), build_wall(0, wall_hands, head="9m", tail="9m"), 0, bots)
    return rec, bots


def test_a_jin_gang_ends_the_hand_as_its_makers_win_under_on() -> None:
    rec, _ = _jin_gang(jin_gang_wins="on")
    r = rec["result"]
    # decision jin_gang_win_pays: no replacement is drawn, the hand ends with the kong, seat 1 wins
    assert rec["events"][-1] == {"seat": 1, "type": "concealed_kong", "tile": "E"}
    assert not any(e.get("replacement") for e in rec["events"])
    assert r["winner"] == 1 and r["score"] is None
    assert r["kongs"] == [{"seat": 1, "type": "hun", "tile": "E", "points": 4, "won": False, "from": None, "ended": True}]
    # the win's total is the 金杠's 4, and the 金杠 is paid as a kong besides: 4 + 4 from each other seat
    assert payments(rec, "win") == [(2, 1, 4), (3, 1, 4), (0, 1, 4)]
    assert payments(rec, "kong") == [(2, 1, 4), (3, 1, 4), (0, 1, 4)]
    assert r["balances"] == [-8, 24, -8, -8] and r["next_dealer"] == 1
    assert replays(rec)


def test_a_win_a_kong_ended_counts_as_a_win_but_has_no_fan_in_the_statistics() -> None:
    # no hand was scored: the fan figures of simulate and impact leave it out (it is not a 0-fan win)
    from tjmj_dsl.game.runfile import summary_of
    from tjmj_dsl.game.simulate import Spec, summarize
    from tjmj_dsl.impact.measures import BASE
    ended, _ = _jin_gang(jin_gang_wins="on")
    scored, _ = _jin_gang()  # the same wall under off: 杠开 on the 金杠, a scored win
    fan = scored["result"]["score"]["result"]["fan"]
    summs = [summary_of(ended), summary_of(scored)]
    assert summs[0]["fan"] is None and summs[1]["fan"] == fan
    spec = Spec(rules=None, profile=None, options=(), players=("bot",) * 4, seed=0, record=False)
    st = summarize(spec, summs, rules())
    assert st["wins"] == 2 and st["mean_fan"] == fan and st["fan_distribution"] == {str(fan): 1}
    mean_fan = next(m for m in BASE if m.id == "mean_fan")
    hands = [{"w": 1, "f": None}, {"w": 1, "f": fan}, {"w": None, "f": None}]
    num, den = (part([(1, None, h) for h in hands]) for part in mean_fan.parts)
    assert num / den == fan


def test_under_off_the_hand_goes_on_after_a_jin_gang() -> None:
    rec, _ = _jin_gang()
    r = rec["result"]
    # the seeds: the replacement 9m is drawn and wins (杠开 on the 金杠)
    assert rec["events"][-2:] == [{"seat": 1, "type": "draw", "tile": "9m", "replacement": True},
                                  {"seat": 1, "type": "win", "tile": "9m"}]
    assert r["score"] is not None and "gangkai" in r["score"]["result"]["patterns"]
    assert r["kongs"][0]["ended"] is False and r["kongs"][0]["won"] is True
    assert replays(rec)


def test_a_jin_gang_win_follows_the_jin_gang_points_and_the_bets() -> None:
    # jin_gang=8: the 金杠 is 8 points, so its win is 8; the dealer sat: ×2 with seat 1 (the winner)
    bots = [Bot(zuo=True), Bot([("concealed_kong", "E")]), Bot(), Bot()]
    _, rec = play(rules(jin_gang_wins="on", jin_gang="8"), build_wall(0, FOUR_HUNS, head="9m", tail="9m"), 0, bots)
    assert payments(rec, "win") == [(2, 1, 8), (3, 1, 8), (0, 1, 16)]
    assert payments(rec, "kong") == [(2, 1, 8), (3, 1, 8), (0, 1, 16)]
    assert replays(rec)


def test_a_xiaoxianggong_jin_gang_does_not_end_the_hand() -> None:
    # seat 1 discards the hun N first (小相公: it may not win), then konges its four E: paid as a kong, the hand
    # goes on (decision jin_gang_win_pays)
    hands = {1: "EEEE N 123m 456m 78s"}
    bots = [Bot(), Bot([("discard", "N"), ("concealed_kong", "E")]), Bot(), Bot()]
    _, rec = play(rules(jin_gang_wins="on"), _wall_with_head_draws(0, hands, {0: "9p", 4: "9p"}), 0, bots)
    r = rec["result"]
    assert {"seat": 1, "type": "concealed_kong", "tile": "E"} in rec["events"]
    assert r["xianggong"] == [1] and r["winner"] != 1
    assert r["kongs"][0]["type"] == "hun" and r["kongs"][0]["ended"] is False
    assert replays(rec)


def test_check_names_the_conflict_of_jin_gang_wins_with_jin_gang_forbidden(tmp_path: Any) -> None:
    # a club that forbids the 金杠 and lets it win at once: no kong the table makes ends the hand
    p = tmp_path / "club.yaml"
    p.write_text("extends: builtin:tianjin\nname: club\nset:\n  options.jin_gang.default: forbidden\n"
                 "  options.jin_gang_wins.default: \"on\"\n", encoding="utf-8")
    code, out, err = run(["check", "--strict", str(p)])
    said = out + err
    assert code != 0 and "play.kong_ends_hand (k.type == \"hun\") holds for no kong the table makes" in said, said
    # and either option alone makes no such warning
    for opts in ("  options.jin_gang.default: forbidden\n", "  options.jin_gang_wins.default: \"on\"\n"):
        p.write_text("extends: builtin:tianjin\nname: club\nset:\n" + opts, encoding="utf-8")
        code, out, err = run(["check", str(p)])
        assert "holds for no kong the table makes" not in out + err


@pytest.fixture(scope="module")
def jin_gang_dir(tmp_path_factory: Any) -> str:
    """A club's rules with jin_gang_wins=on by default, compiled to both backends."""
    from tjmj_dsl.api import compile_rules
    d = tmp_path_factory.mktemp("jingang")
    p = d / "jingang.yaml"
    p.write_text("extends: builtin:tianjin\nname: jingang\nset:\n  options.jin_gang_wins.default: \"on\"\n",
                 encoding="utf-8")
    compile_rules(str(p), str(d / "gen"))
    return str(d / "gen" / "jingang")


@pytest.mark.parametrize("outcome, field, words", [
    ({"dealer": 0, "winner": 1, "total": 4, "kongs": [{"seat": 2, "type": "hun", "tile": "E", "ended": True}]},
     "kongs[0].ended", "seat 2 did not win"),
    ({"dealer": 0, "winner": None, "kongs": [{"seat": 2, "type": "hun", "tile": "E", "ended": True}]},
     "kongs[0].ended", "seat 2 did not win"),
    ({"dealer": 0, "winner": 1, "total": 4, "kongs": [{"seat": 1, "type": "hun", "tile": "E", "ended": True},
                                                      {"seat": 1, "type": "exposed", "tile": "5p", "won": True}]},
     "kongs[1].won", "already won the hand"),
    ({"dealer": 0, "winner": 1, "total": 4, "kongs": [{"seat": 1, "type": "hun", "tile": "E", "ended": "yes"}]},
     "kongs[0].ended", "true or false"),
])
def test_a_bad_ended_kong_is_refused_by_both_backends(outcome: dict[str, Any], field: str, words: str,
                                                      jin_gang_dir: str) -> None:
    got = Scorer(options={"jin_gang_wins": "on"}).settle(outcome)
    assert got["reason"] == "invalid_request" and got["error"]["field"] == field and words in got["error"]["message"]
    py, js = _settle_each(jin_gang_dir, [outcome])
    assert py[0]["error"] == got["error"]
    if js is not None:
        assert js == py


def test_an_ended_kong_settles_alike_in_python_and_javascript(jin_gang_dir: str) -> None:
    from tests.jsdiff import outcome_lines
    o = {"dealer": 0, "winner": 1, "total": 4, "kongs": [{"seat": 1, "type": "hun", "tile": "E", "ended": True}]}
    # the seeds' rules refuse it (no kong ends a hand: outcome rule kong_ended_not_played); the club settles it
    assert Scorer().settle(o)["error"]["code"] == "kong_ended_not_played"
    py, js = _settle_each(jin_gang_dir, [o])
    assert py[0]["balances"] == [-8, 24, -8, -8] and py[0]["kongs"][0]["ended"] is True
    if js is not None:
        assert js == py
    lines = [json.loads(line) for line in outcome_lines(3, 1000)]
    py, js = _settle_each(jin_gang_dir, lines)
    assert sum(1 for a in py if any(k["ended"] for k in a["kongs"])) > 5
    if js is not None:
        assert js == py


@pytest.mark.parametrize("key, value, words", [
    ("kong_ends_hand", 'k.typ == "hun"', ["play.kong_ends_hand", "did you mean 'type'?"]),
    ("kong_ends_hand", "k.points", ["play.kong_ends_hand must be bool"]),
    ("kong_win_total", "k.type", ["play.kong_win_total must be int"]),
    ("kong_ends_hand", True, ["is an expression over the kong k"]),
])
def test_a_bad_kong_win_setting_is_refused_with_a_position(tmp_path: Any, key: str, value: Any, words: list[str]) -> None:
    p = tmp_path / "kw.yaml"
    ends = {"kong_ends_hand": value} if key == "kong_ends_hand" else {"kong_ends_hand": 'k.type == "hun"', key: value}
    p.write_text("extends: builtin:tianjin\nname: kw\nset:\n" + "".join(f"  play.{k}: {json.dumps(v)}\n" for k, v in ends.items()),
                 encoding="utf-8")
    code, out, err = run(["check", str(p)])
    said = out + err
    assert code != 0 and "kw.yaml:" in said, said
    for w in words:
        assert w in said, said


def test_simulate_plays_jin_gang_wins_and_replay_verifies(tmp_path: Any) -> None:
    path = str(tmp_path / "jg.jsonl")
    # random players konge four huns when they hold them: with seed 1, hand 889 is such a hand
    code, _, err = run(["simulate", "--hands", "900", "--seed", "1", "--players", "random,random,random,random",
                        "--option", "jin_gang_wins=on", "--record", path])
    assert code == 0, err
    with open(path, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    ended = [r for r in recs if any(k["ended"] for k in r["result"]["kongs"])]
    assert ended
    for r in ended:
        k = next(k for k in r["result"]["kongs"] if k["ended"])
        assert k["type"] == "hun" and r["result"]["winner"] == k["seat"] and r["result"]["score"] is None
        assert r["events"][-1] == {"seat": k["seat"], "type": "concealed_kong", "tile": k["tile"]}
    code, out, err = run(["replay", path])
    assert code == 0, out + err


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
                 "hun_discard_forced", "hun_wait_counts", "not_counted", "hun_wait_not_counted",
                 "gangkai_chain", "liangang2", "liangang3", "liangang4", "liangang", "gangkai_chain_once",
                 "gangkai_chain_count", "kong_chain_kongs",
                 "on_win", "lianchan", "chan_round", "chan_on_win", "lianchan_value",
                 "exposed_kong_payer", "exposed_kong_discarder_pays", "jin_gang_wins", "jin_gang_win_pays",
                 "kong_ended_not_played", "guadafeng",
                 "guadafeng_huns",
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


# ---------------------------------------------------------------- the value player's 金杠 (play.value_player_hun_kong_points)

@pytest.mark.parametrize("jin_gang, konged", [("4", False), ("8", True)])
def test_the_value_player_makes_a_jin_gang_only_when_it_pays_the_hints_points(jin_gang: str, konged: bool) -> None:
    # the rule file's hint: four huns held are kept for the win, unless their kong pays 8 or more
    from tjmj_dsl.game.players import ValuePlayer
    # indicator N: the huns are N and E; four E and nine tiles no two of which go together: far from a win
    wall = build_wall(0, {1: "EEEE 1m 4m 7m 2p 5p 8p 3s 6s 9s"}, head="C", tail="F")
    players = [ValuePlayer() for _ in range(4)]
    _, rec = play(rules(jin_gang=jin_gang), wall, 0, players)  # type: ignore[arg-type]
    jin = [e for e in rec["events"] if e["type"] == "concealed_kong" and e["seat"] == 1]
    assert bool(jin) is konged, rec["events"][:12]
    if konged:
        mine = [k for k in rec["result"]["kongs"] if k["seat"] == 1]
        assert [(k["type"], k["tile"], k["points"]) for k in mine] == [("hun", "E", 8)]
    assert replays(rec)


def test_settlement_takes_no_game_facts_alike_in_python_and_javascript() -> None:
    # decision bets_limits_in_play: a game's limits on the bets are judged at the table and by replay, where the
    # game is known; settle() pays the hand as bet and takes no game facts: an outcome carrying them is refused,
    # at the field, by both generated scorers alike
    bet = {"dealer": 0, "winner": None, "chan": True, "lazhuang": [0, 2, 0, 0]}
    game = {"hands": 3, "balances": [-18, 12, 3, 3], "lazhuang": [0, 6, 0, 0], "zuozhuang": [0, 0, 0, 0],
            "dealt": [3, 0, 0, 0], "last": {"dealer": 0, "zuozhuang": False, "lazhuang": [0, 2, 0, 0], "winner": None,
                                            "balances": [-6, 4, 1, 1]}}
    py, js = _settle_each(os.path.join(ROOT, "generated", "tianjin"), [bet, {**bet, "game": game}])
    assert py[0]["balances"] == [-6, 4, 1, 1]  # 铲 1 to each non-dealer, seat 1's ×4 for two pulls
    assert py[1]["reason"] == "invalid_request" and py[1]["error"]["code"] == "unknown_field"
    assert py[1]["error"]["field"] == "game"
    if js is not None:
        assert js == py
    # the limit is the table's: under option lazhuang_game=capped it offers seat 1 no pull once its six are made
    from tjmj_dsl.game.facts import GameFacts
    gr = rules(lazhuang_game="capped")
    assert gr.most_pulls(GameFacts.from_json(game), 0, 1, False) == 0


def test_a_kong_win_whose_total_settle_refuses_is_unplayable_before_any_hand(tmp_path: Any) -> None:
    # a hand ended by a kong is won with play.kong_win_total's total, which settle() takes only from min_fan (2)
    # to 10^9: a 明杠 (1 point) that ends the hand, or a total of 0, stopped simulate and impact mid-run
    p = tmp_path / "club.yaml"
    p.write_text("extends: builtin:tianjin\nname: club\nset:\n  play.kong_ends_hand: 'k.type == \"exposed\"'\n",
                 encoding="utf-8")
    code, out, err = run(["check", str(p)])
    assert code == 0 and "a kong of type exposed ends the hand (play.kong_ends_hand) as a win of total 1 " \
        "(play.kong_win_total" in out + err, out + err
    rec = tmp_path / "r.jsonl"
    code, out, err = run(["simulate", "--rules", str(p), "--hands", "50", "--seed", "1", "--record", str(rec)])
    assert code == 1 and "these rules cannot be played: a kong of type exposed ends the hand" in err, err
    assert not rec.exists()
    code, out, err = run(["impact", str(p), "--base", "seed-001", "--variant", "v=jin_gang=8", "--hands", "4",
                          "--seed", "1", "--out", str(tmp_path / "imp")])
    assert code == 1 and "--base: these rules cannot be played" in err and "hands" not in err, err
    # a total of 0 is said under the option that makes a kong end the hand, and simulate refuses it there
    p.write_text("extends: builtin:tianjin\nname: club\nset:\n  play.kong_win_total: '0'\n", encoding="utf-8")
    code, out, err = run(["check", str(p)])
    assert "with option jin_gang_wins=on: a kong of type hun ends the hand (play.kong_ends_hand) as a win of " \
        "total 0" in out + err, out + err
    code, out, err = run(["simulate", "--rules", str(p), "--option", "jin_gang_wins=on", "--hands", "50"])
    assert code == 1 and "as a win of total 0" in err, err
    # a total out of range only for a kong another seat than the dealer's makes (a review's finding: the first
    # try was at the dealer's seat alone), and one that reads a discarder only kongs of a discard have
    p.write_text("extends: builtin:tianjin\nname: club\nset:\n  play.kong_ends_hand: 'k.type == \"exposed\"'\n"
                 "  play.kong_win_total: 'k.points + 3 if k.seat == dealer else k.points'\n", encoding="utf-8")
    code, out, err = run(["simulate", "--rules", str(p), "--hands", "50", "--seed", "1"])
    assert code == 1 and "as a win of total 1 (play.kong_win_total; the kong of 1m made by seat 1 of seat 0's discard" \
        in err, err
    # ... or only for the kongs of some tiles (a review's finding: every try was a kong of 1m)
    for short in ('k.tile.suit == "p"', "k.tile == 7m", "k.tile.rank >= 5"):
        p.write_text("extends: builtin:tianjin\nname: club\nset:\n  play.kong_ends_hand: 'k.type == \"exposed\"'\n"
                     f"  play.kong_win_total: '1 if {short} else 4'\n", encoding="utf-8")
        code, out, err = run(["check", str(p)])
        assert "as a win of total 1 (play.kong_win_total; the kong of " in out + err, (short, out + err)
    p.write_text("extends: builtin:tianjin\nname: club\nset:\n  play.kong_ends_hand: 'k.type == \"exposed\"'\n"
                 "  play.kong_win_total: 'k.points + 3 if k.from != none else 0'\n", encoding="utf-8")
    code, out, err = run(["simulate", "--rules", str(p), "--hands", "30", "--seed", "1"])
    assert code == 0, err
    # within the range, the same rules play
    p.write_text("extends: builtin:tianjin\nname: club\nset:\n  play.kong_ends_hand: 'k.type == \"exposed\"'\n"
                 "  play.kong_win_total: k.points + 1\n", encoding="utf-8")
    code, out, err = run(["simulate", "--rules", str(p), "--hands", "30", "--seed", "1"])
    assert code == 0, err
