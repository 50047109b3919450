"""拉庄 and 坐庄 across a game (issue 36, item 9): the game so far as facts the bets' expressions
read (play.zuozhuang_when, play.lazhuang_most), the clubs' limits of options zuozhuang_game and
lazhuang_game, played hand after hand by the engine's games, carried by the records and checked by
replay. Expected menus are derived from the options' rulebook entries (decisions
zuozhuang_after_loss, lazhuang_game_capped, lazhuang_losers_barred), not from the engine."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from conftest import run
from gamekit import Bot, build_wall, rules
from tjmj_dsl.game.facts import GameFacts, LastHand
from tjmj_dsl.game.players import make_player
from tjmj_dsl.game.replay import Replayer, ReplayDiff
from tjmj_dsl.game.session import next_facts, play, record, settle
from tjmj_dsl.game.table import IllegalAction, SeatView, Table
from tjmj_dsl.game.session import seeded

LAZHUANG_MAX = 2  # play.lazhuang_max of rules/tianjin.yaml
GAME_MAX = 6  # play.lazhuang_game_max
FLOOR = 30  # play.lazhuang_floor


class Asked:
    """A player (another one's play) that notes each bet it is offered: ("zuozhuang", None) or ("lazhuang", most)."""

    def __init__(self, inner: Any, la: int | None = None) -> None:
        self.inner, self.la = inner, la
        self.name = getattr(inner, "name", "asked")
        self.offers: list[tuple[str, int | None]] = []

    def begin(self, view: SeatView, rng: random.Random) -> None:
        self.offers = []
        self.inner.begin(view, rng)

    def zuozhuang(self, view: SeatView) -> bool:
        self.offers.append(("zuozhuang", None))
        return bool(self.inner.zuozhuang(view))

    def lazhuang(self, view: SeatView, most: int) -> int:
        self.offers.append(("lazhuang", most))
        return most if self.la is None else self.la

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def game(gr: Any, seed: Any, hands: int, players: list[Asked]) -> list[tuple[dict[str, Any], list[list[Any]]]]:
    """One game of `hands` hands dealt by the rules' rotation, as tjmj simulate --rotate plays it:
    each hand's record, with the offers each seat had before its deal."""
    facts, dealer, out = GameFacts(), None, []
    for i in range(hands):
        res = play(gr, seed, i, players, dealer, facts)  # type: ignore[arg-type]
        out.append((record(gr, seed, i, res, ["p"] * 4, i > 0), [list(p.offers) for p in players]))
        facts = next_facts(facts, res)
        dealer = res.settlement["next_dealer"]  # type: ignore[index]
    return out


# ---------------------------------------------------------------- lazhuang_game=capped

def test_capped_offers_each_seat_what_is_left_of_its_pulls_for_the_game() -> None:
    # scripted bots that never win: every hand is drawn, the dealer keeps the deal (seed-001), and the
    # three others pull as often as they are offered
    players = [Asked(Bot(), la=None) for _ in range(4)]
    hands = game(rules(lazhuang_game="capped"), 11, 6, players)
    made = [0, 0, 0, 0]
    capped_seen = False
    for rec, offers in hands:
        d = rec["dealer"]
        assert rec["game"]["lazhuang"] == made  # the record carries the game its bets were offered under
        for s in range(4):
            left = min(LAZHUANG_MAX, GAME_MAX - made[s])
            want = [] if s == d or left == 0 else [("lazhuang", left)]
            assert [o for o in offers[s] if o[0] == "lazhuang"] == want, (rec["hand"], s, offers[s])
            capped_seen |= s != d and left < LAZHUANG_MAX
            made[s] += rec["lazhuang"][s]
    assert capped_seen and max(made) == GAME_MAX  # the limit was met, and nobody passed it
    for rec, _ in hands:
        assert Replayer().check(rec)[1] is not None


def test_the_same_game_under_the_default_offers_lazhuang_max_every_hand() -> None:
    players = [Asked(Bot(), la=None) for _ in range(4)]
    gr = rules()
    assert gr.bets is None  # the seeds' rule: no bet reads the game
    hands = game(gr, 11, 6, players)
    for rec, offers in hands:
        assert "game" not in rec  # a record under the default is what it was
        for s in range(4):
            want = [] if s == rec["dealer"] else [("lazhuang", LAZHUANG_MAX)]
            assert [o for o in offers[s] if o[0] == "lazhuang"] == want
        assert rec["lazhuang"] == [0 if s == rec["dealer"] else LAZHUANG_MAX for s in range(4)]


def test_the_free_choices_play_the_defaults_hands_and_records() -> None:
    for opts in ({"lazhuang_game": "free"}, {"zuozhuang_game": "free"}):
        a = game(rules(**opts), 3, 3, [Asked(make_player("value")) for _ in range(4)])
        b = game(rules(), 3, 3, [Asked(make_player("value")) for _ in range(4)])
        strip = [({k: v for k, v in r.items() if k != "rules"}, o) for r, o in a]
        assert strip == [({k: v for k, v in r.items() if k != "rules"}, o) for r, o in b]


# ---------------------------------------------------------------- lazhuang_game=losers_barred

def test_losers_barred_offers_no_pull_to_a_seat_below_the_floor() -> None:
    players = [Asked(make_player("value")) for _ in range(4)]
    hands = game(rules(lazhuang_game="losers_barred"), 2026, 30, players)
    balances = [0, 0, 0, 0]
    barred = 0
    for rec, offers in hands:
        assert rec["game"]["balances"] == balances
        for s in range(4):
            if s == rec["dealer"]:
                continue
            down = balances[s] < -FLOOR
            barred += down
            assert [o for o in offers[s] if o[0] == "lazhuang"] == ([] if down else [("lazhuang", LAZHUANG_MAX)])
            if down:
                assert rec["lazhuang"][s] == 0
        balances = [a + b for a, b in zip(balances, rec["result"]["balances"])]
    assert barred > 0, "no seat fell below the floor in this game: the test would not see the limit"


# ---------------------------------------------------------------- zuozhuang_game=no_repeat_after_loss

def _sit_offered(gr: Any, facts: GameFacts, dealer: int = 0) -> bool:
    wall, dice, _ = seeded(5, 0)
    p = [Asked(Bot(zuo=True)) for _ in range(4)]
    Table(gr, wall, dealer, dice, facts).play(p, [random.Random(0)] * 4)  # type: ignore[arg-type]
    return ("zuozhuang", None) in p[dealer].offers


@pytest.mark.parametrize("last, offered", [
    (LastHand(0, True, (0, 1, 2, 0), None, (-9, 1, 4, 4)), False),  # sat, dealt, lost: not again at once
    (LastHand(0, True, (0, 0, 0, 0), 0, (24, -8, -8, -8)), True),   # sat and won
    (LastHand(0, False, (0, 0, 0, 0), None, (-3, 1, 1, 1)), True),  # lost without sitting
    (LastHand(3, True, (2, 0, 0, 0), None, (-8, 0, 0, 8)), True),   # another seat dealt and sat the hand before
    (None, True),                                                   # the game's first hand
])
def test_no_repeat_after_loss_offers_the_sitting_by_the_hand_before(last: Any, offered: bool) -> None:
    gr = rules(zuozhuang_game="no_repeat_after_loss")
    if last is None:
        facts = GameFacts()
    else:
        facts = GameFacts(hands=1, balances=last.balances, lazhuang=last.lazhuang,
                          zuozhuang=tuple(int(last.zuozhuang and s == last.dealer) for s in range(4)),
                          dealt=tuple(int(s == last.dealer) for s in range(4)), last=last)
    assert _sit_offered(gr, facts) is offered
    assert _sit_offered(rules(), facts) is True  # the seeds' rule: the dealer may always sit


def test_no_repeat_after_loss_in_a_game_of_drawn_hands_with_chan() -> None:
    """One game, hand after hand on fixed walls: each hand the three others follow the dealer's first
    discard (铲: the dealer pays each of them, doubled when it sat) and the hand is drawn, so the dealer
    keeps the deal having lost. A dealer that always wants to sit is offered it in the first hand,
    not in the second (it sat and lost), again in the third (it did not sit in the second), and so on."""
    gr = rules(zuozhuang_game="no_repeat_after_loss")
    wall = build_wall(0, {0: "1m 2m 3m 4m 5m 6m 7m 8m 9m 1s 2s 3s 4s 9p"}, head="9p 9p 9p")
    facts = GameFacts()
    sat = []
    for i in range(5):
        players = [Asked(Bot(zuo=True), la=0) for _ in range(4)]  # no one pulls
        res = Table(gr, wall, 0, ((1, 1), (1, 1)), facts).play(players, [random.Random(0)] * 4)  # type: ignore[arg-type]
        settle(gr, res)
        rec = record(gr, None, i, res, ["bot"] * 4)
        assert rec["result"]["chan"] and rec["result"]["winner"] is None and rec["result"]["next_dealer"] == 0
        assert rec["result"]["balances"][0] == (-6 if res.zuozhuang else -3)  # 铲 1 to each, ×2 when it sat
        assert (("zuozhuang", None) in players[0].offers) is res.zuozhuang  # it sits whenever it is offered
        sat.append(res.zuozhuang)
        assert Replayer().check(rec)[1] is not None  # the record, alone, replays with the game it carries
        facts = next_facts(facts, res)
    assert sat == [True, False, True, False, True]
    assert facts.zuozhuang == (3, 0, 0, 0) and facts.dealt == (5, 0, 0, 0) and facts.balances == (-24, 8, 8, 8)


# ---------------------------------------------------------------- refusals

def test_a_pull_over_what_the_game_leaves_is_refused_at_the_table() -> None:
    gr = rules(lazhuang_game="capped")
    wall, dice, _ = seeded(5, 0)
    facts = GameFacts(hands=3, lazhuang=(0, 5, 0, 0), dealt=(3, 0, 0, 0),
                      last=LastHand(0, False, (0, 1, 0, 0), None, (0, 0, 0, 0)))
    bots = [Bot(), Bot(la=2), Bot(), Bot()]  # seat 1 has one pull left of six
    with pytest.raises(IllegalAction, match="seat 1 chose to raise .lazhuang. 2 times; 0 to 1"):
        Table(gr, wall, 0, dice, facts).play(bots, [random.Random(0)] * 4)  # type: ignore[arg-type]


def _capped_records(tmp_path: Any) -> list[dict[str, Any]]:
    path = str(tmp_path / "capped.jsonl")
    code, _, err = run(["simulate", "--rotate", "--hands", "8", "--seed", "3", "--players", "value,value,value,value",
                        "--option", "lazhuang_game=capped", "--record", path])
    assert code == 0, err
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_replay_refuses_a_bet_the_game_did_not_allow(tmp_path: Any) -> None:
    recs = _capped_records(tmp_path)
    # a record whose seat pulled though its game had used up its pulls
    rec = next(r for r in recs if any(r["lazhuang"]))
    s = next(i for i, n in enumerate(rec["lazhuang"]) if n)
    bad = json.loads(json.dumps(rec))
    bad["game"]["lazhuang"][s] = GAME_MAX
    with pytest.raises(ReplayDiff, match=rf"lazhuang\[{s}\].*may not pull under these rules and the game so far"):
        Replayer().check(bad)
    # one pull left, two made
    bad["game"]["lazhuang"][s] = GAME_MAX - 1
    if rec["lazhuang"][s] == 2:
        with pytest.raises(ReplayDiff, match=f"seat {s} chose to raise .lazhuang. 2 times; 0 to 1"):
            Replayer().check(bad)
    # a record of these rules without the game it was played in
    with pytest.raises(ReplayDiff, match="game: these rules' bets read the game so far"):
        Replayer().check({k: v for k, v in rec.items() if k != "game"})


def test_replay_refuses_a_sitting_the_game_did_not_allow() -> None:
    gr = rules(zuozhuang_game="no_repeat_after_loss")
    last = LastHand(0, True, (0, 0, 0, 0), None, (-3, 1, 1, 1))
    facts = GameFacts(hands=1, balances=(-3, 1, 1, 1), zuozhuang=(1, 0, 0, 0), dealt=(1, 0, 0, 0), last=last)
    wall, dice, _ = seeded(5, 1)
    res = Table(gr, wall, 0, dice, facts).play([Bot() for _ in range(4)], [random.Random(0)] * 4)  # type: ignore[arg-type]
    rec = record(gr, None, 1, settle(gr, res), ["bot"] * 4)
    assert Replayer().check(rec)[1] is not None and rec["zuozhuang"] is False
    sat = {**json.loads(json.dumps(rec)), "zuozhuang": True}
    with pytest.raises(ReplayDiff, match="zuozhuang: the dealer may not sit .zuozhuang. under these rules and the game so far"):
        Replayer().check(sat)


@pytest.mark.parametrize("change, words", [
    (lambda g: g.update(hands=0), "game.last: the hand before this one is given exactly when game.hands is not 0"),
    (lambda g: g.update(dealt=[9, 0, 0, 0]), "game.dealt: 9 deals in a game of"),
    (lambda g: g.update(balances=[5, 0, 0, 0]), "game.balances: a game's balances sum to 0"),
    (lambda g: g.update(lazhuang=[0, -1, 0, 0]), "not a valid record at game/lazhuang/1"),
    (lambda g: g.update(extra=1), "not a valid record at game"),
    (lambda g: g["last"].update(dealer=7), "not a valid record at game/last"),
])
def test_replay_refuses_game_facts_no_game_leaves(tmp_path: Any, change: Any, words: str) -> None:
    recs = _capped_records(tmp_path)
    bad = json.loads(json.dumps(recs[3]))
    change(bad["game"])
    with pytest.raises(ReplayDiff) as e:
        Replayer().check(bad)
    assert words in str(e.value)


# ---------------------------------------------------------------- records: each alone, and as a game

def test_simulate_rotate_records_replay_alone_and_chained(tmp_path: Any) -> None:
    recs = _capped_records(tmp_path)
    facts = GameFacts()
    for r in recs:
        assert r["game"] == facts.json()  # each record carries the game before it ...
        facts = facts.after_record(r)
    for r in recs:  # ... so each replays alone
        one = tmp_path / f"hand{r['hand']}.jsonl"
        one.write_text(json.dumps(r, ensure_ascii=False) + "\n", encoding="utf-8")
        code, out, err = run(["replay", str(one)])
        assert code == 0, out + err
    code, out, err = run(["replay", str(tmp_path / "capped.jsonl")])
    assert code == 0 and "8 OK" in out, out + err
    # a record following another of its game must carry that game moved on by it
    bad = json.loads(json.dumps(recs))
    bad[5]["game"]["balances"] = bad[4]["game"]["balances"]
    bad[5]["game"]["balances"] = [b + (1 if i == 0 else -1 if i == 1 else 0) for i, b in enumerate(bad[5]["game"]["balances"])]
    path = tmp_path / "tampered.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in bad), encoding="utf-8")
    code, out, err = run(["replay", str(path)])
    assert code != 0 and "game.balances" in out + err and "hand 4 leaves the game at" in out + err, out + err


def test_simulate_without_rotate_plays_each_hand_as_a_games_first(tmp_path: Any) -> None:
    path = str(tmp_path / "alone.jsonl")
    code, _, err = run(["simulate", "--hands", "4", "--seed", "3", "--option", "lazhuang_game=capped", "--record", path])
    assert code == 0, err
    with open(path, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    assert all(r["game"] == GameFacts().json() for r in recs)
    code, out, err = run(["replay", path])
    assert code == 0, out + err


def test_resume_of_a_rotated_game_goes_on_with_its_facts(tmp_path: Any) -> None:
    whole, part = str(tmp_path / "whole.jsonl"), str(tmp_path / "part.jsonl")
    args = ["simulate", "--rotate", "--seed", "9", "--option", "lazhuang_game=losers_barred"]
    assert run(args + ["--hands", "10", "--record", whole])[0] == 0
    assert run(args + ["--hands", "6", "--record", part])[0] == 0
    code, _, err = run(args + ["--hands", "10", "--resume", part])
    assert code == 0, err
    with open(whole, encoding="utf-8") as a, open(part, encoding="utf-8") as b:
        assert a.read() == b.read()


# ---------------------------------------------------------------- the rule language

@pytest.mark.parametrize("key, expr, words", [
    ("lazhuang_most", "seat.balanse", ["play.lazhuang_most", "no attribute 'balanse'", "did you mean 'balance'?"]),
    ("lazhuang_most", "lazhuang_max - seat.lazhuang_mad", ["did you mean 'lazhuang_made'?"]),
    ("lazhuang_most", "seat.balance > 0", ["play.lazhuang_most must be int"]),
    ("zuozhuang_when", "hand > 2", ["unknown name 'hand'", "did you mean 'hands'?"]),
    ("zuozhuang_when", "last_dealer.balance", ["play.zuozhuang_when must be bool"]),
    ("zuozhuang_when", "count(5m) > 0", ["unknown function 'count'"]),
])
def test_a_bad_bet_expression_is_refused_with_a_position(tmp_path: Any, key: str, expr: str, words: list[str]) -> None:
    p = tmp_path / "w.yaml"
    p.write_text(f"extends: builtin:tianjin\nname: w\nset:\n  play.{key}: {json.dumps(expr)}\n", encoding="utf-8")
    code, out, err = run(["check", str(p)])
    said = out + err
    assert code != 0 and "w.yaml:4:" in said, said
    for w in words:
        assert w in said, said


def test_a_club_recipe_of_both_limits_passes_check_strict_and_plays(tmp_path: Any) -> None:
    path = "examples/game_limits.yaml"
    code, out, err = run(["check", "--strict", path])
    assert code == 0, out + err
    rec_path = str(tmp_path / "club.jsonl")
    code, _, err = run(["simulate", "--rules", path, "--rotate", "--hands", "12", "--seed", "4", "--record", rec_path])
    assert code == 0, err
    with open(rec_path, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    made = [0, 0, 0, 0]
    for r in recs:
        assert r["game"]["lazhuang"] == made
        made = [a + b for a, b in zip(made, r["lazhuang"])]
    assert max(made) <= 4  # the recipe's limit: four pulls a game
    code, out, err = run(["replay", "--rules", path, rec_path])
    assert code == 0, out + err


def test_a_table_servers_game_of_bots_carries_the_facts_and_keeps_the_limit(tmp_path: Any) -> None:
    pytest.importorskip("sqlalchemy")
    pytest.importorskip("httpx")
    import time
    from fastapi.testclient import TestClient
    from tjmj_dsl.tables.app import TablesConfig, create_app
    app = create_app(TablesConfig(db=str(tmp_path / "t.sqlite3"), pace=0, rate=1000, burst=1000))
    with TestClient(app) as c:
        r = c.post("/play/api/rooms", json={"hands": 6, "time_limit": 600, "seats": ["value"] * 4,
                                            "options": {"lazhuang_game": "capped"}})
        assert r.status_code == 201, r.text
        rid = r.json()["room"]
        for _ in range(1200):
            info = c.get(f"/play/api/rooms/{rid}").json()
            if info["status"] == "over":
                break
            time.sleep(0.05)
        assert info["status"] == "over", info
        recs = [json.loads(x) for x in c.get(f"/play/api/rooms/{rid}/records.jsonl").text.splitlines()]
    facts = GameFacts()
    for rec in recs:
        assert rec["game"] == facts.json()  # the room's game so far, hand after hand
        # value players pull as often as offered: what the game leaves them, at most lazhuang_max
        made = facts.lazhuang
        assert rec["lazhuang"] == [0 if s == rec["dealer"] else min(LAZHUANG_MAX, GAME_MAX - made[s]) for s in range(4)]
        assert Replayer().check(rec)[1] is not None
        facts = facts.after_record(rec)
    assert max(facts.lazhuang) == GAME_MAX and facts.hands == 6


# ---------------------------------------------------------------- option examples of the bets (tjmj check)

CLUB = """extends: builtin:tianjin
name: club
options:
  pull_after_pull:
    name: 连拉 — a pull after a pull
    description: "Whether a seat that pulled in the hand before may pull as often again."
    default: free
    acts_on: play
    choices:
      free: {description: "each hand, up to lazhuang_max"}
      once: {description: "a seat that pulled in the hand before pulls once at most",
             set: {play.lazhuang_most: "1 if seat.last_lazhuang > 0 else lazhuang_max"}}
      unless_sitting: {description: "as once, but not when the dealer sits",
                       set: {play.lazhuang_most: "1 if seat.last_lazhuang > 0 and not zuozhuang else lazhuang_max"}}
    source: a club's rule
    examples:
      - {bets: {dealer: 0, game: {hands: 1, dealt: [1, 0, 0, 0], lazhuang: [0, 2, 1, 0], balances: [-7, 4, 2, 1],
                                  last: {dealer: 0, lazhuang: [0, 2, 1, 0], winner: null, balances: [-7, 4, 2, 1]}}},
         note: "Seats 1 and 2 pulled in the hand before (drawn, 铲 doubled by the pulls), seat 3 did not.",
         results: {free: {may_zuozhuang: true, lazhuang_most: [0, 2, 2, 2]}, once: {lazhuang_most: [0, 1, 1, 2]},
                   unless_sitting: {lazhuang_most: [0, 1, 1, 2]}}}
      - {bets: {dealer: 0, zuozhuang: true, game: {hands: 1, dealt: [1, 0, 0, 0], lazhuang: [0, 2, 1, 0], balances: [-7, 4, 2, 1],
                                                   last: {dealer: 0, lazhuang: [0, 2, 1, 0], balances: [-7, 4, 2, 1]}}},
         note: "The same game, and the dealer sits this hand.",
         results: {free: {lazhuang_most: [0, 2, 2, 2]}, once: {lazhuang_most: [0, 1, 1, 2]},
                   unless_sitting: {lazhuang_most: [0, 2, 2, 2]}}}
"""


def _club(tmp_path: Any, text: str = CLUB) -> str:
    p = tmp_path / "club.yaml"
    p.write_text(text, encoding="utf-8")
    return str(p)


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_an_options_bets_examples_are_checked_and_pass_strict(tmp_path: Any) -> None:
    code, out, err = run(["check", "--strict", _club(tmp_path)])
    assert code == 0, out + err


def test_a_bets_example_with_a_wrong_value_fails_check_naming_it(tmp_path: Any) -> None:
    # under once a seat that pulled in the hand before may pull once: seat 1 pulled, so 1, not 2
    bad = CLUB.replace("once: {lazhuang_most: [0, 1, 1, 2]},", "once: {lazhuang_most: [0, 2, 1, 2]},", 1)
    assert bad != CLUB
    code, out, err = run(["check", _club(tmp_path, bad)])
    said = out + err
    line = _line(bad, "once: {lazhuang_most: [0, 2, 1, 2]}")
    assert code != 0 and f"club.yaml:{line}:" in said, said
    assert "example of pull_after_pull under pull_after_pull=once" in said
    assert "[0, 1, 1, 2] times, not [0, 2, 1, 2]" in said
    # the dealer sat: under unless_sitting the pull after a pull is not limited (the bets' zuozhuang fact)
    bad = CLUB.replace("unless_sitting: {lazhuang_most: [0, 2, 2, 2]}}}", "unless_sitting: {lazhuang_most: [0, 1, 1, 2]}}}")
    code, out, err = run(["check", _club(tmp_path, bad)])
    assert code != 0 and "under pull_after_pull=unless_sitting" in out + err and "[0, 2, 2, 2] times" in out + err
    # the dealer is asked to sit under every choice here
    bad = CLUB.replace("free: {may_zuozhuang: true,", "free: {may_zuozhuang: false,")
    code, out, err = run(["check", _club(tmp_path, bad)])
    assert code != 0 and "the table asks the dealer to sit" in out + err and \
        f"club.yaml:{_line(bad, 'may_zuozhuang: false')}:" in out + err


def test_the_built_in_bets_examples_are_what_the_table_offers() -> None:
    # the rule file's examples of zuozhuang_game and lazhuang_game, asked of the game engine's own rules
    # (the table's offers: may_sit, most_pulls), not of tjmj check's evaluation
    from tjmj_dsl.compiler import load_rules
    rs = load_rules(None)
    exs = [e for e in rs.prose.examples if e.kind == "bets"]
    assert {e.owner for e in exs} == {"zuozhuang_game", "lazhuang_game"} and len(exs) >= 10
    for e in exs:
        g = GameFacts.from_json(e.request["game"])
        d = e.request["dealer"]
        for choice, expect in e.expect:
            gr = rules(**{e.owner: choice})
            if expect.may_zuozhuang is not None:
                assert gr.may_sit(g, d) == expect.may_zuozhuang, (e.note, choice)
            if expect.lazhuang_most is not None:
                sat = e.request["zuozhuang"] and gr.may_sit(g, d)
                assert [0 if s == d else gr.most_pulls(g, d, s, sat) for s in range(4)] == list(expect.lazhuang_most)


def test_the_rulebook_shows_the_bets_under_each_choice() -> None:
    with open("generated/tianjin/rulebook.md", encoding="utf-8") as f:
        book = f.read()
    part = book.split('<a id="option-lazhuang-game"></a>', 1)[1].split('<a id="option-last-tiles-claims"></a>', 1)[0]
    assert "The bets before the deal under each value" in part
    # seat 1 pulled exactly six times: capped leaves it none; seat 2 (5) one, seat 3 (4) two
    assert "| `capped` | yes | 1: 0, 2: 1, 3: 2 |" in part
    # seat 0 at exactly −30 may pull under losers_barred, seat 3 at −31 may not
    assert "| `losers_barred` | yes | 0: 2, 2: 2, 3: 0 |" in part
    part = book.split('<a id="option-zuozhuang-game"></a>', 1)[1].split('<a id="option-lazhuang-game"></a>', 1)[0]
    assert "| `no_repeat_after_loss` | no | 1: 2, 2: 2, 3: 2 |" in part


@pytest.mark.parametrize("old, new, needle, words", [
    ("last: {dealer: 0, lazhuang: [0, 2, 1, 0], winner: null,", "last: {dealr: 0, lazhuang: [0, 2, 1, 0], winner: null,",
     "dealr", ["unknown key 'dealr'", "did you mean 'dealer'?"]),
    ("{bets: {dealer: 0, game: {hands: 1,", "{bets: {dealer: 0, game: {hand: 1,", "hand: 1",
     ["unknown key 'hand'", "did you mean 'hands'?"]),
    ("{bets: {dealer: 0, game: {hands: 1,", "{bets: {dealer: 4, game: {hands: 1,", "dealer: 4", ["4 is greater than the maximum of 3"]),
    ("balances: [-7, 4, 2, 1],\n", "balances: [-7, 4, 2, \"1\"],\n", '"1"', ["is not of type integer"]),
    ("lazhuang: [0, 2, 1, 0], balances: [-7, 4, 2, 1],\n", "lazhuang: [0, 2, -1, 0], balances: [-7, 4, 2, 1],\n",
     "[0, 2, -1, 0]", ["-1 is below the minimum 0"]),
    # of a game's shape, but no game's: each at the field that cannot be
    ("{bets: {dealer: 0, game: {hands: 1, dealt: [1, 0, 0, 0],", "{bets: {dealer: 0, game: {hands: 2, dealt: [1, 0, 0, 0],",
     "dealt: [1, 0, 0, 0], lazhuang", ["game.dealt: 1 deals in a game of 2 hands"]),
    ("lazhuang: [0, 2, 1, 0], balances: [-7, 4, 2, 1],\n", "lazhuang: [0, 2, 1, 0], balances: [-7, 4, 2, 2],\n",
     "balances: [-7, 4, 2, 2]", ["game.balances: a game's balances sum to 0"]),
    ("{bets: {dealer: 0, game: {hands: 1, dealt: [1, 0, 0, 0],", "{bets: {dealer: 0, game: {hands: 1, dealt: [0, 1, 0, 0],",
     "last: {dealer: 0, lazhuang: [0, 2, 1, 0], winner", ["game.last.dealer: seat 0 dealt the hand before"]),
    ("last: {dealer: 0, lazhuang: [0, 2, 1, 0], winner: null,", "last: {dealer: 0, lazhuang: [0, 2, 2, 0], winner: null,",
     "lazhuang: [0, 2, 2, 0]", ["game.last.lazhuang[2]: more pulls in the hand before"]),
    # what a bets example says: the bets, the dealer none
    ("free: {may_zuozhuang: true, lazhuang_most: [0, 2, 2, 2]}", "free: {may_zuozhuang: true, lazhuang_most: [1, 2, 2, 2]}",
     "[1, 2, 2, 2]", ["the dealer (seat 0) does not pull"]),
    ("free: {may_zuozhuang: true, lazhuang_most", "free: {fan: 2, lazhuang_most", "fan: 2",
     ["a bets example does not say fan", "it says may_zuozhuang, lazhuang_most"]),
])
def test_bad_facts_of_a_bets_example_are_refused_at_their_place(tmp_path: Any, old: str, new: str, needle: str,
                                                                words: list[str]) -> None:
    assert old in CLUB
    bad = CLUB.replace(old, new, 1)
    code, out, err = run(["check", _club(tmp_path, bad)])
    said = out + err
    assert code != 0 and f"club.yaml:{_line(bad, needle)}:" in said, said
    assert "Traceback" not in said
    for w in words:
        assert w in said, said


def test_an_outcome_example_may_not_say_the_bets(tmp_path: Any) -> None:
    text = CLUB + """      - {outcome: {dealer: 0, winner: null}, results: {free: {balances: [0, 0, 0, 0], lazhuang_most: [0, 2, 2, 2]}}}
"""
    code, out, err = run(["check", _club(tmp_path, text)])
    assert code != 0 and "a hand or outcome example does not say lazhuang_most" in out + err
    assert f"club.yaml:{_line(text, 'balances: [0, 0, 0, 0], lazhuang_most')}:" in out + err


def test_a_choice_no_bets_example_tells_apart_is_said(tmp_path: Any) -> None:
    # without the first example, nothing shows what unless_sitting changes (the second shows it as free)
    start = CLUB.index("      - {bets: {dealer: 0, game: {hands: 1, dealt")
    end = CLUB.index("      - {bets: {dealer: 0, zuozhuang: true")
    code, out, err = run(["check", _club(tmp_path, CLUB[:start] + CLUB[end:])])
    assert code == 0 and "option pull_after_pull: no example shows what unless_sitting changes" in out + err, out + err
