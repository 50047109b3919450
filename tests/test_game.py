"""The game engine on fixed walls: each rule of rulebook §8/§9 played out, with
the expected results worked out by hand. Huns: the indicator N makes N and E
the huns (winds cycle 东南西北), so hands without E or N hold no hun."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from gamekit import Bot, build_wall, payments, play, rules, tiles
from tjmj_dsl import Scorer
from tjmj_dsl.game.rules import GameRulesError
from tjmj_dsl.game.table import WIN, Table
from tjmj_dsl.game.wall import Wall, draw_order
from tjmj_dsl.tiles import NAMES, parse_tile

J = parse_tile


def draws(rec: dict[str, Any], seat: int | None = None, replacement: bool | None = None) -> list[str]:
    return [e["tile"] for e in rec["events"] if e["type"] == "draw" and (seat is None or e["seat"] == seat)
            and (replacement is None or bool(e.get("replacement")) == replacement)]


# ------------------------------------------------------------------ the wall

def test_wall_geometry_deal_start_and_indicator() -> None:
    # dealer seat 2 rolls 2+3: the deal starts at the dealer's 6th stack from the right (sum + 1),
    # goes right to left along side 2, then on to side 1 (the seat before the dealer) from its right
    order = draw_order(2, 5, 1)
    assert order[0] == 2 * 17 + 5 and order[11] == 2 * 17 + 16 and order[12] == 1 * 17 + 0
    assert order[-1] == 2 * 17 + 4  # the tail: the stack just before the start
    wall = list(range(136))  # tile "numbers" standing for positions (not real kinds: geometry only)
    w = Wall([t % 34 for t in wall], 2, (2, 3), (4, 2), 1, True)
    # the opposite seat rolls 6: the 6th stack from the tail is the indicator's; its top tile is flipped
    assert w.ind_stack == 68 - 6
    phys = order[w.ind_stack]
    assert w.indicator == (2 * phys) % 34
    assert w.position(0) == (2, 6, 0) and w.position(1) == (2, 6, 1)


def test_wall_tail_takes_the_indicator_stacks_remaining_tile() -> None:
    seq_wall = [k % 34 for k in range(136)]
    take = Wall(seq_wall, 0, (1, 1), (1, 2), 1, True)    # T = 3: indicator stack 65
    skip = Wall(seq_wall, 0, (1, 1), (1, 2), 1, False)
    I = take.ind_stack
    assert I == 65
    got = [take.replacement() for _ in range(6)]
    want = [take.seq[i] for i in (2 * 67, 2 * 67 + 1, 2 * 66, 2 * 66 + 1, 2 * I + 1, 2 * 64)]
    assert got == want  # the indicator's own tile (2I) is never drawn, its stack's other tile is
    got = [skip.replacement() for _ in range(5)]
    assert got == [skip.seq[i] for i in (2 * 67, 2 * 67 + 1, 2 * 66, 2 * 66 + 1, 2 * 64)]


def test_drawn_hand_point_moves_when_replacements_pass_the_indicator() -> None:
    seq_wall = [k % 34 for k in range(136)]
    w = Wall(seq_wall, 0, (1, 1), (1, 1), 1, True)       # indicator stack 66: live tiles 0..131
    assert w.live_left == 132
    for _ in range(3):                                     # 67 top, 67 bottom, 66's remaining: past the live wall
        w.replacement()
    assert w.live_left == 132
    w.replacement()                                        # stack 65's top: the live wall is one shorter
    assert w.live_left == 131
    n = 0
    while w.draw() is not None:
        n += 1
    assert n == 131  # the head stops where the tail has been (65's bottom is drawn by the head)
    assert w.replacement() is None and not w.can_replace()


def test_where_the_two_ends_meet_the_tail_takes_the_tile_the_head_left() -> None:
    # an audit's finding: the head had drawn the top of the stack the tail reached next, and the tail,
    # looking only at that top, said no replacement was left (no kong offered) while its bottom lay there
    seq_wall = [k % 34 for k in range(136)]
    w = Wall(seq_wall, 0, (1, 1), (1, 1), 1, True)       # indicator stack 66: live tiles 0..131
    for _ in range(3):                                     # 67 top, 67 bottom, 66's remaining
        w.replacement()
    while w.live_left > 1:                                 # the head draws up to stack 65's top
        w.draw()
    assert w.can_replace() and w.replacement() == w.seq[2 * 65 + 1]
    assert w.live_left == 0 and w.draw() is None and w.replacement() is None and not w.can_replace()


# ------------------------------------------------------------------ 杠开 after each kind of kong

def _gangkai(kind: str, profile: str | None = None, **options: Any) -> tuple[Any, dict[str, Any], list[Bot]]:
    """Seat 1 wins on the replacement of its kong (dealer seat 0, no bets, huns N and E)."""
    if kind == "exposed":   # the dealer's first discard 5p is konged by seat 1 (holding 555p)
        hands = {0: "5p 1p1p 2p2p 3p3p 4p4p 6p6p 7p 8p 9p", 1: "555p 123m 456m 789s 9m"}
        bots = [Bot([("discard", "5p")]), Bot([("kong", "5p")], win=True), Bot(), Bot()]
        wall = build_wall(0, hands, tail="9m")
    elif kind == "added":   # seat 1 pongs the dealer's 5p, later draws the fourth: 补杠
        hands = {0: "5p 1p1p 2p2p 3p3p 4p4p 6p6p 7p 8p 9p", 1: "55p 123m 456m 789s 9m S"}
        bots = [Bot([("discard", "5p")]), Bot([("pong", "5p"), ("discard", "S"), ("added_kong", "5p")], win=True),
                Bot(), Bot()]
        wall = build_wall(0, hands, head="1s 2s 3s 5p", tail="9m")
    elif kind == "concealed":
        hands = {1: "5555p 123m 456m 789s"}
        bots = [Bot(), Bot([("concealed_kong", "5p")], win=True), Bot(), Bot()]
        wall = build_wall(0, hands, head="9m", tail="9m")
    elif kind == "hun_exposed":  # the dealer discards a hun E; seat 1 holds EEE and kongs it: a 明杠 (§2)
        hands = {0: "E 1p1p 2p2p 3p3p 4p4p 6p6p 7p 8p 9p", 1: "EEE 123m 456m 789s 9m"}
        bots = [Bot([("discard", "E")]), Bot([("kong", "E")], win=True), Bot(), Bot()]
        wall = build_wall(0, hands, tail="9m")
    else:  # 金杠: four E (huns) in hand
        hands = {1: "EEEE 123m 456m 789s"}
        bots = [Bot(), Bot([("concealed_kong", "E")], win=True), Bot(), Bot()]
        wall = build_wall(0, hands, head="9m", tail="9m")
    res, rec = play(rules(profile, **options), wall, 0, bots)
    return res, rec, bots


@pytest.mark.parametrize("kind, kong_type, kong_draw, fan, points", [
    ("exposed", "exposed", "exposed", 4, 1),      # 提溜 × 素 × 杠开 = 1×2×2
    ("added", "added", "exposed", 4, 1),          # 补杠 scores as a 明杠
    ("concealed", "concealed", "concealed", 4, 2),
    ("hun", "hun", "hun", 2, 4),                  # a kong of huns holds huns: no 素; 提溜 × 杠开
    ("hun_exposed", "exposed", "exposed", 2, 1),  # three huns + a discarded hun: a 明杠, not a 金杠
])
def test_gangkai_after_each_kong(kind: str, kong_type: str, kong_draw: str, fan: int, points: int) -> None:
    res, rec, _ = _gangkai(kind)
    r = rec["result"]
    assert r["winner"] == 1
    assert r["score"]["request"]["kong_draw"] == kong_draw
    assert r["score"]["result"]["fan"] == fan and "gangkai" in r["score"]["result"]["patterns"]
    # a kong claimed from a discard names its discarder (the dealer's 5p, or its discarded hun E)
    assert r["kongs"] == [{"seat": 1, "type": kong_type, "tile": "E" if kind.startswith("hun") else "5p", "points": points,
                           "won": True, "from": 0 if kind in ("exposed", "hun_exposed") else None, "ended": False}]
    assert rec["events"][-2] == {"seat": 1, "type": "draw", "tile": "9m", "replacement": True}
    assert rec["events"][-1] == {"seat": 1, "type": "win", "tile": "9m"}
    # 杠分另算 (seed-001): the win pays fan, the kong is paid apart by each of the three
    assert payments(rec, "win") == [(2, 1, fan), (3, 1, fan), (0, 1, fan)]
    assert payments(rec, "kong") == [(2, 1, points), (3, 1, points), (0, 1, points)]
    assert sum(r["balances"]) == 0


@pytest.mark.parametrize("kind, points", [("exposed", 1), ("concealed", 2), ("hun", 4), ("hun_exposed", 1)])
def test_gangkai_under_seed_000_tables_pays_the_kong_once(kind: str, points: int) -> None:
    fan = 2 if kind.startswith("hun") else 4
    _, rec, _ = _gangkai(kind, "seed-000-coins")
    assert rec["result"]["score"]["result"]["total"] == (fan + 1) * points    # 金币: (fan + 1) × p
    assert payments(rec, "win") == [(s, 1, (fan + 1) * points) for s in (2, 3, 0)]
    assert payments(rec, "kong") == []                                        # already in the total
    _, rec, _ = _gangkai(kind, "seed-000-fan")
    assert payments(rec, "win") == [(s, 1, fan + points) for s in (2, 3, 0)]  # 番数算法: fan + p
    assert payments(rec, "kong") == []


def test_jin_gang_not_offered_when_forbidden() -> None:
    _, rec, bots = _gangkai("hun", jin_gang="forbidden")
    assert not any(a[0] == "concealed_kong" for _, _, m in bots[1].menus for a in m)
    # the four huns stay in hand, where they win at once: three stand for 7m 8m 9m (龙 with 123m 456m),
    # the fourth pairs the drawn 9m (混吊), on the first draw (地和): 4 × 2 × 4
    assert rec["result"]["kongs"] == [] and rec["result"]["winner"] == 1
    assert rec["result"]["score"]["result"]["patterns"] == ["long", "hundiao", "dihu"]
    assert rec["result"]["score"]["result"]["fan"] == 32


# ------------------------------------------------------------------ 铲

def _chan(**options: Any) -> tuple[dict[str, Any], list[Bot]]:
    # dealer 0 sits; A (seat 1) no 拉庄, B (seat 2) once, C (seat 3) twice; all four discard S in turn
    hands = {0: "S 1m1m 2p2p 3s3s 4m4m 6p6p 7s 8s 9s", 1: "S 1p 2p 3p 4p", 2: "S 1s 2s 3s 4s", 3: "S 5m 6m 7m 8m"}
    hands[1] += " 5s 6s 7s 8s 9m 9p C F"
    hands[2] += " 5p 6p 7p 8p 9m 9p C F"
    hands[3] += " 5p 6p 7p 8p 9m 9p C F"
    bots = [Bot([("discard", "S")], zuo=True), Bot([("discard", "S")]), Bot([("discard", "S")], la=1),
            Bot([("discard", "S")], la=2)]
    _, rec = play(rules(**options), build_wall(0, hands), 0, bots)
    return rec, bots


def test_chan_seed_example_in_a_drawn_hand() -> None:
    rec, _ = _chan()
    r = rec["result"]
    assert [e["tile"] for e in rec["events"] if e["type"] == "discard"][:4] == ["S"] * 4
    assert r["winner"] is None and r["chan"] is True
    assert (rec["zuozhuang"], rec["lazhuang"]) == (True, [0, 0, 1, 2])
    assert payments(rec) == [(0, 1, 2), (0, 2, 4), (0, 3, 8)]    # the seed: A 2, B 4, C 8
    assert r["balances"] == [-14, 2, 4, 8] and r["next_dealer"] == 0


def test_chan_as_a_hundiao() -> None:
    rec, _ = _chan(chan_points=2)
    assert payments(rec) == [(0, 1, 4), (0, 2, 8), (0, 3, 16)]


def test_chan_needs_the_first_four_discards_unclaimed() -> None:
    # seat 2 holds a pair of the dealer's first discard and pongs it: no 铲
    hands = {0: "S 1m1m 2p2p 3s3s 4m4m 6p6p 7s 8s 9s", 2: "SS 1s 2s 3s 4s 5p 6p 7p 8p 9m 9p C"}
    bots = [Bot([("discard", "S")]), Bot(), Bot([("pong", "S"), ("discard", "C")]), Bot()]
    _, rec = play(rules(), build_wall(0, hands), 0, bots)
    assert rec["events"][1] == {"seat": 2, "type": "pong", "tile": "S", "from": 0}
    assert rec["result"]["chan"] is False and payments(rec, "chan") == []


# ------------------------------------------------------------------ 荒庄, kongs, rotation, 小相公

def _drawn_with_kong(**options: Any) -> dict[str, Any]:
    # seat 2 makes a concealed kong of 7s on its first turn; nobody wins
    hands = {2: "7777s 1m 4m 7m 2p 5p 8p 3s C F"}
    bots = [Bot(), Bot(), Bot([("concealed_kong", "7s")]), Bot()]
    _, rec = play(rules(**options), build_wall(0, hands), 0, bots)
    return rec


def test_drawn_hand_pays_kongs_and_rotation_under_both_options() -> None:
    rec = _drawn_with_kong()
    r = rec["result"]
    assert r["winner"] is None and r["kongs"] == [{"seat": 2, "type": "concealed", "tile": "7s", "points": 2, "won": False,
                                                   "from": None, "ended": False}]
    assert payments(rec) == [(3, 2, 2), (0, 2, 2), (1, 2, 2)]
    assert r["next_dealer"] == 0                         # seed 001: a drawn hand keeps the dealer
    assert _drawn_with_kong(dealer_rotation="seed-000")["result"]["next_dealer"] == 1  # only another seat konged
    # the whole live wall was drawn: 79 draws after the deal with the indicator on stack 66
    assert len(draws(rec, replacement=False)) == 79


def test_non_dealer_win_passes_the_deal() -> None:
    _, rec, _ = _gangkai("concealed")
    assert rec["result"]["next_dealer"] == 1
    _, rec, _ = _gangkai("concealed", dealer_rotation="seed-000")
    assert rec["result"]["next_dealer"] == 1


def test_xianggong_cannot_win_but_is_paid_for_a_kong(tmp_path: Path) -> None:
    # seat 1 konges 1s, discards its hun E (小相公), later draws the 5p that completes 123m 456m 99m 555p
    hands = {1: "123m 456m 1111s 99m E"}
    head = "W 2m 3m 4m 5p 5m 6m 7m 5p"
    plan = [("concealed_kong", "1s"), ("discard", "E"), ("discard", "W")]
    bots = [Bot(), Bot(plan, win=True), Bot(), Bot()]
    _, rec = play(rules(), build_wall(0, hands, head=head, tail="5p"), 0, bots)
    r = rec["result"]
    assert r["xianggong"] == [1] and r["winner"] is None
    late = [m for kind, drawn, m in bots[1].menus if kind == "act" and drawn == J("5p")]
    assert len(late) == 3 and WIN not in late[-1]   # the third 5p completes the shape; the win is not offered
    assert payments(rec, "kong") == [(2, 1, 2), (3, 1, 2), (0, 1, 2)]
    # the same hand without 小相公 (an overlay that turns it off) offers the win
    gr = rules(path=_overlay(tmp_path, "set:\n  play.hun_discard_bars_win: false\n"))
    bots = [Bot(), Bot(plan, win=True), Bot(), Bot()]
    _, rec = play(gr, build_wall(0, hands, head=head, tail="5p"), 0, bots)
    assert rec["result"]["winner"] == 1 and rec["result"]["xianggong"] == []


def _overlay(where: Path, body: str) -> str:
    """An overlay of the built-in rules, written in the test's own folder (pytest keeps a few, then removes them)."""
    root = Path(__file__).resolve().parent.parent
    path = where / f"house-{len(list(where.glob('house-*.yaml')))}.yaml"
    path.write_text(f"extends: {root / 'rules' / 'tianjin.yaml'}\n{body}", encoding="utf-8")
    return str(path)


def test_a_kong_of_huns_takes_the_type_the_rule_file_gives_it(tmp_path: Path) -> None:
    # the reading (§2): three huns + a discarded hun is a 明杠, four huns held the 金杠; a house that
    # counts both as 金杠 says so in its overlay, and the engine follows (no type is fixed in Python)
    gr = rules()
    assert [gr.kong_type(m, True) for m in ("exposed", "concealed", "added")] == ["exposed", "hun", "added"]
    assert [gr.kong_type(m, False) for m in ("exposed", "concealed", "added")] == ["exposed", "concealed", "added"]
    assert (gr.kong_points_of("exposed"), gr.kong_points_of("hun")) == (1, 4)
    # its request rule hun_kong_drawn must then take a win on an exposed kong of huns' replacement too:
    # without that, the table would make hands the scorer refuses, and the rules are not played
    with pytest.raises(GameRulesError, match="play.hun_kong_exposed_as lets a kong of huns be made, but a hand with one is refused"):
        rules(path=_overlay(tmp_path, "set:\n  play.hun_kong_exposed_as: hun\n"))
    house = rules(path=_overlay(tmp_path, "set:\n  play.hun_kong_exposed_as: hun\n  request_rules.hun_kong_drawn.error_when: "
                                "'kong_draw == \"hun\" and not any(g in declared: g.is_kong and g.face in hun_kinds)'\n"))
    assert house.kong_type("exposed", True) == "hun" and house.kong_type("exposed", False) == "exposed"
    # the menus' actions name how the kong is made: a claim's kong is exposed
    assert [gr.kong_of_action(a, True) for a in ("kong", "concealed_kong", "added_kong")] == ["exposed", "hun", "added"]
    assert [house.kong_of_action(a, True) for a in ("kong", "concealed_kong")] == ["hun", "hun"]
    assert gr.kong_of_action("concealed_kong", False) == "concealed"


# ------------------------------------------------------------------ replacements at the indicator's stack

@pytest.mark.parametrize("take", [True, False])
def test_replacements_at_the_indicator_stack(take: bool, tmp_path: Path) -> None:
    # the dealer konges 1m, 2m, 3m on its first turn; seat 1 konges 4m on its first draw (indicator stack 66)
    hands = {0: "1111m 2222m 3333m 9s 8s", 1: "4444m 1p 2p 3p 5p 6p 7p C F P"}
    bots = [Bot([("concealed_kong", "1m"), ("concealed_kong", "2m"), ("concealed_kong", "3m")]),
            Bot([("concealed_kong", "4m")]), Bot(), Bot()]
    gr = rules() if take else rules(path=_overlay(tmp_path, "set:\n  play.replacement_at_indicator: skip\n"))
    wall = build_wall(0, hands, tail="5s 6s 7s 8p", take=take)
    table = Table(gr, wall, 0, ((1, 1), (1, 1)))
    ind = table.wall.ind_stack
    _, rec = play(gr, wall, 0, bots)
    reps = draws(rec, replacement=True)
    assert reps == ["5s", "6s", "7s", "8p"]
    w = Wall(wall, 0, (1, 1), (1, 1), 1, take)
    # take: the third replacement is the indicator stack's remaining (bottom) tile; skip: stack 65's top
    third = 2 * ind + 1 if take else 2 * (ind - 1)
    assert w.seq[third] == J("7s")
    # the live wall: 79 draws, one fewer for each replacement taken from the live stacks
    assert len(draws(rec, replacement=False)) == (79 - 1 if take else 79 - 2)


# ------------------------------------------------------------------ claims

def test_no_pung_of_huns_but_a_kong_of_three() -> None:
    # huns N, E. Seat 1 holds EE: the dealer's discard E cannot be ponged (no claim is offered at all)
    hands = {0: "E 1m1m 2p2p 3s3s 4m4m 6p6p 7s 8s 9s", 1: "EE 1s 2s 3s 4s 5p 6p 7p 8p 9m 9p C"}
    bots = [Bot([("discard", "E")]), Bot(), Bot(), Bot()]
    _, rec = play(rules(), build_wall(0, hands), 0, bots)
    assert not any(k == "claim" for k, _, _ in bots[1].menus)
    assert rec["result"]["xianggong"] == [0]   # the dealer discarded a hun
    # with three, a kong of huns may be claimed, never a pong: a 明杠 (the reading, §2), so also where
    # 金杠 (four huns held) is forbidden
    hands = {0: "E 1m1m 2p2p 3s3s 4m4m 6p6p 7s 8s 9s", 1: "EEE 1s 2s 3s 4s 5p 6p 7p 8p 9m 9p"}
    for options in ({}, {"jin_gang": "forbidden"}):
        bots = [Bot([("discard", "E")]), Bot([("kong", "E")]), Bot(), Bot()]
        _, rec = play(rules(**options), build_wall(0, hands), 0, bots)
        assert [m for k, _, m in bots[1].menus if k == "claim"][0] == [("pass", None), ("kong", J("E"))], options
        assert [(k["seat"], k["type"], k["points"]) for k in rec["result"]["kongs"]] == [(1, "exposed", 1)], options
    # under forbidden the scorer takes that exposed kong of huns and settlement pays it; the 金杠 is refused
    forbidden = Scorer(options={"jin_gang": "forbidden"})
    hand = {"concealed": "345m123s77m45s", "draw": "6s", "indicator": "7p"}
    exposed = forbidden.score({**hand, "melds": [{"type": "kong", "tile": "8p"}], "kong_draw": "exposed"})
    assert (exposed["win"], exposed["patterns"]) == (True, ["tiliu", "gangkai"])
    jin = forbidden.score({**hand, "melds": [{"type": "concealed_kong", "tile": "8p"}]})
    assert jin["error"]["code"] == "jin_gang_forbidden"
    drawn = {"dealer": 0, "winner": None}
    paid = forbidden.settle({**drawn, "kongs": [{"seat": 2, "type": "exposed", "tile": "8p"}]})
    assert paid["balances"] == [-1, -1, 3, -1]
    refused = forbidden.settle({**drawn, "kongs": [{"seat": 2, "type": "hun", "tile": "8p"}]})
    assert (refused["error"]["code"], refused["error"]["field"], refused["balances"]) == ("jin_gang_forbidden", "kongs", [0, 0, 0, 0])
    assert Scorer().settle({**drawn, "kongs": [{"seat": 2, "type": "hun", "tile": "8p"}]})["balances"] == [-4, -4, 12, -4]


@pytest.mark.parametrize("option, claims", [("allowed", 2), ("refused", 1), ("final_discard", 3)])
def test_last_tiles_claims(option: str, claims: int) -> None:
    # seat 2 holds 9p9p and 1s1s; a 9p is discarded with 8 live tiles left and again with 2 left; then
    # seat 3 draws the last live tile, a 1s, and discards it: that discard ends the hand unclaimed
    # (offered to seat 2 only under final_discard, where seat 2 passes it)
    hands = {2: "9p9p 1s1s 3s 4s 5s 6s 7s 8s 1m 2m 3m"}
    # head draw j is taken by seat (1 + j) % 4, leaving 79 - (j + 1) live tiles
    draws_at = {70: "9p", 76: "9p", 78: "1s"}
    wall = _wall_with_head_draws(0, hands, draws_at)
    bots = [Bot(), Bot(), Bot(), Bot()]
    _, rec = play(rules(last_tiles_claims=option), wall, 0, bots)
    assert sum(1 for k, _, _ in bots[2].menus if k == "claim") == claims
    last = [e for e in rec["events"] if e["type"] in ("draw", "discard")][-2:]
    assert last == [{"seat": 3, "type": "draw", "tile": "1s"}, {"seat": 3, "type": "discard", "tile": "1s"}]
    assert rec["result"]["winner"] is None


def test_the_discard_after_the_last_live_tile_is_claimed_only_where_a_rule_file_says(tmp_path: Any) -> None:
    # play.no_claim_in_last_tiles is data: 0 lets the last discard be claimed (the built-in rules say 1)
    p = tmp_path / "last.yaml"
    p.write_text("extends: builtin:tianjin\nset:\n  options.last_tiles_claims.choices.allowed.set: "
                 "{play.no_claim_in_last_tiles: 0}\n", encoding="utf-8")
    hands = {2: "1s1s 2s 3s 4s 5s 6s 7s 8s 9s 1m 2m 3m"}
    wall = _wall_with_head_draws(0, hands, {78: "1s"})  # no other 1s comes before it
    for path, claims in ((None, 0), (str(p), 1)):
        bots = [Bot(), Bot(), Bot(), Bot()]
        play(rules(path=path), wall, 0, bots)
        assert sum(1 for k, _, _ in bots[2].menus if k == "claim") == claims


def _wall_with_head_draws(dealer: int, hands: dict[int, str], at: dict[int, str]) -> list[int]:
    """A wall whose head draw j is at[j] (the others filled with tiles no one can use)."""
    used = [t for h in hands.values() for t in tiles(h)] + [t for v in at.values() for t in tiles(v)] + tiles("N")
    pool = [k for k in range(34) for _ in range(4)]
    for t in used:
        pool.remove(t)
    n = max(at) + 1
    head = []
    for j in range(n):
        if j in at:
            head.append(NAMES[tiles(at[j])[0]])
        else:
            # the filler: no tile of a kind any seat could claim at that point (none of the at-tiles)
            k = next(k for k in pool if NAMES[k] not in at.values())
            pool.remove(k)
            head.append(NAMES[k])
    return build_wall(dealer, hands, head=" ".join(head))


# ------------------------------------------------------------------ 天和, 地和

def test_tianhu_is_detected() -> None:
    hands = {0: "123m 456m 789m 123p 5s5s"}
    bots = [Bot(win=True), Bot(), Bot(), Bot()]
    _, rec = play(rules(), build_wall(0, hands), 0, bots)
    r = rec["result"]["score"]
    assert rec["result"]["winner"] == 0 and rec["events"] == [{"seat": 0, "type": "win", "tile": "5s"}]
    assert r["request"].get("tianhu") is True and "tianhu" in r["result"]["patterns"]
    # any of the 14 may be taken as the winning tile (rulebook §4): 5m in 4-5-6m makes it 捉5 too
    assert r["result"]["fan"] == (3 + 4) * 2 * 4   # (捉5 + 龙) × 素 × 天和
    # 天和 off: the same win, without the flag, on the dealer's 14th tile (5s): 龙 × 素
    _, rec = play(rules(tianhu="off"), build_wall(0, hands), 0, [Bot(win=True), Bot(), Bot(), Bot()])
    assert "tianhu" not in rec["result"]["score"]["request"] and rec["result"]["score"]["result"]["fan"] == 8


def test_dihu_is_detected_and_ends_with_a_pong() -> None:
    hands = {1: "123m 456m 789m 123p 5s"}
    bots = [Bot(), Bot(win=True), Bot(), Bot()]
    _, rec = play(rules(), build_wall(0, hands, head="5s"), 0, bots)
    r = rec["result"]["score"]
    assert rec["result"]["winner"] == 1 and r["request"].get("dihu") is True
    assert r["result"]["fan"] == (3 + 4) * 2 * 4   # any tile may be t: (捉5 + 龙) × 素 × 地和
    # seat 2 pongs the dealer's first discard: seat 1's first draw no longer counts as 地和
    hands2 = {0: "S 1m 1m 2p2p 3s3s 4m4m 6p6p 7s 8s 9s", 1: "123m 456m 789m 123p 5s", 2: "SS 1s 2s 3s 4s 5p 6p 7p 8p 9m 9p C"}
    bots = [Bot([("discard", "S")]), Bot(win=True), Bot([("pong", "S"), ("discard", "C")]), Bot()]
    _, rec = play(rules(), build_wall(0, hands2, head="2s 3s 5s"), 0, bots)
    assert rec["result"]["winner"] == 1 and "dihu" not in rec["result"]["score"]["request"]
    assert rec["result"]["score"]["result"]["fan"] == 8


# ------------------------------------------------------------------ the view

def test_a_view_hides_other_seats_concealed_kongs() -> None:
    _, rec, bots = _gangkai("concealed")
    view = bots[0].view
    assert view.melds(1) == [("concealed", None)]
    assert bots[1].view.melds(1) == [("concealed", J("5p"))]
    assert not hasattr(view, "hands") and not hasattr(view, "wall")


def test_tianting_declared_after_the_dealers_first_discard() -> None:
    # option tianting=on: seat 1's dealt 13 wait on 5s; it declares after the dealer's first discard,
    # may then only discard what it draws, and wins on its second draw: 龙 × 素 × 天听
    hands = {1: "123m 456m 789m 123p 5s"}
    bots = [Bot(), Bot(win=True, ready=True), Bot(), Bot()]
    _, rec = play(rules(tianting="on"), build_wall(0, hands, head="9p 1s 1s 1s 5s"), 0, bots)
    assert rec["events"][1] == {"seat": 1, "type": "ready", "tile": None}
    assert rec["result"]["ready"] == [1]
    first = [m for k, d, m in bots[1].menus if k == "act"][0]
    assert first == [("discard", J("9p"))]
    r = rec["result"]["score"]
    assert rec["result"]["winner"] == 1 and r["request"].get("tianting") is True and "dihu" not in r["request"]
    assert r["result"]["fan"] == 4 * 2 * 2
    # without the option nobody is asked
    bots = [Bot(), Bot(win=True, ready=True), Bot(), Bot()]
    _, rec = play(rules(), build_wall(0, hands, head="9p 1s 1s 1s 5s"), 0, bots)
    assert rec["result"]["ready"] == [] and all(e["type"] != "ready" for e in rec["events"])


def test_tianting_ready_counts_the_declarations_own_double() -> None:
    # seat 1's dealt 13 (huns N E) wait on 6p 9p 9s and the huns, every wait a bare 提溜 (1 < 2, no win
    # undeclared); declared, 提溜 × 天听 = 2 wins, so the hand is ready and may declare (立手即听牌)
    hands = {1: "123m 456m 78p 234s 9s E"}
    bots = [Bot(), Bot(win=True, ready=True), Bot(), Bot()]
    _, rec = play(rules(tianting="on"), build_wall(0, hands, head="1s 1s 1s 1s 6p"), 0, bots)
    assert rec["result"]["ready"] == [1]
    r = rec["result"]["score"]
    assert rec["result"]["winner"] == 1 and r["request"].get("tianting") is True
    assert r["result"]["fan"] == 2 and r["result"]["patterns"] == ["tiliu", "tianting"]


def test_a_table_refuses_a_bad_deal_with_a_message() -> None:
    """A program building a Table gets what a replayed record gets: a message naming what is wrong
    (a wall of 136 kind numbers, 4 of each; a seat 0-3; two rolls of two dice 1-6), not an
    IndexError or a deal of impossible dice."""
    gr = rules()
    good = [k for k in range(34) for _ in range(4)]
    cases = [
        (good[:-1], 0, ((1, 1), (1, 1)), "136 tiles, not 135"),
        ([0] * 136, 0, ((1, 1), (1, 1)), "4 of each"),
        (good[:-1] + [99], 0, ((1, 1), (1, 1)), "wall[135]"),
        (["1m"] * 136, 0, ((1, 1), (1, 1)), "wall[0]"),
        (good, 7, ((1, 1), (1, 1)), "seat 0-3, not 7"),
        (good, True, ((1, 1), (1, 1)), "seat 0-3, not True"),
        (good, 0, ((0, 0), (9, 9)), "dice"),
        (good, 0, (3, 4), "dice"),
    ]
    for wall, dealer, dice, said in cases:
        with pytest.raises(ValueError) as e:
            Table(gr, wall, dealer, dice)  # type: ignore[arg-type]
        assert said in str(e.value), (said, str(e.value))


def test_a_player_answers_sitting_and_declaring_with_a_boolean() -> None:
    """zuozhuang() and declare_ready() are yes/no questions: "no" or 1 is refused (it was taken as
    True), as lazhuang() refuses what is not a count."""
    from tjmj_dsl.game.table import IllegalAction

    class Says(Bot):
        def zuozhuang(self, view: Any) -> Any:
            return "no"
    wall = [k for k in range(34) for _ in range(4)]
    random.Random(3).shuffle(wall)
    with pytest.raises(IllegalAction, match="zuozhuang"):
        Table(rules(), wall, 0, ((1, 2), (3, 4))).play([Says(), Bot(), Bot(), Bot()], [random.Random(0)] * 4)
