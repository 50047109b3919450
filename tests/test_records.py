"""Records, replay and simulate: a record replays to itself, a record edited by
hand does not, records follow the committed record schema, and a run
gives the same summary and records for the same seed whatever the jobs."""

from __future__ import annotations

import json
import os
from typing import Any

import jsonschema
import pytest

from conftest import run
from gamekit import rules
from tjmj_dsl.game.players import RandomPlayer, ValuePlayer
from tjmj_dsl.game.replay import ReplayDiff, Replayer
from tjmj_dsl.game.session import play, record
from tjmj_dsl.game.shape import has_shape

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAYERS = "value,random,value,random"


@pytest.fixture(scope="module")
def records(tmp_path_factory: Any) -> tuple[str, list[dict[str, Any]]]:
    path = str(tmp_path_factory.mktemp("rec") / "hands.jsonl")
    code, out, err = run(["simulate", "--hands", "12", "--seed", "42", "--players", PLAYERS, "--record", path])
    assert code == 0, err
    with open(path, encoding="utf-8") as f:
        return path, [json.loads(line) for line in f]


def test_records_follow_the_schema_and_sum_to_zero(records: tuple[str, list[dict[str, Any]]]) -> None:
    with open(os.path.join(ROOT, "schemas", "record.schema.json"), encoding="utf-8") as f:
        v = jsonschema.Draft202012Validator(json.load(f))
    _, recs = records
    assert [r["hand"] for r in recs] == list(range(12))
    for r in recs:
        v.validate(r)
        assert sum(r["result"]["balances"]) == 0
        assert r["dealer"] == (recs[0]["dealer"] + r["hand"]) % 4  # by turns, seat to seat
        assert r["lazhuang"][r["dealer"]] == 0
        if r["result"]["winner"] is not None:
            assert r["result"]["score"]["result"]["win"] is True
            assert r["events"][-1]["type"] == "win"
    assert any(r["result"]["winner"] is not None for r in recs)


def test_replay_says_ok(records: tuple[str, list[dict[str, Any]]]) -> None:
    path, recs = records
    code, out, _ = run(["replay", path])
    assert code == 0, out
    assert out.splitlines()[-1] == "12 hand(s): 12 OK, 0 differ"
    code, out, _ = run(["replay", path, "--hand", "3", "--show"])
    assert code == 0 and out.startswith(f"hand 3: OK\nhand 3 (seed 42): dealer seat {recs[3]['dealer']}")
    assert "  balances [" in out


def _edited(path: str, tmp: Any, edit: Any) -> tuple[int, str]:
    with open(path, encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    edit(recs)
    p = tmp / "edited.jsonl"
    p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
    code, out, _ = run(["replay", str(p)])
    return code, out


def _won(recs: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r for r in recs if r["result"]["winner"] is not None and r["result"]["payments"])


def _swap_wall(recs: list[dict[str, Any]]) -> None:
    w = recs[0]["wall"]
    i = next(i for i in range(1, 136) if w[i] != w[0])
    w[0], w[i] = w[i], w[0]


def _change_discard(recs: list[dict[str, Any]]) -> None:
    e = next(e for e in recs[0]["events"] if e["type"] == "discard")
    e["tile"] = "1m" if e["tile"] != "1m" else "2m"


def _change_payment(recs: list[dict[str, Any]]) -> None:
    _won(recs)["result"]["payments"][0]["amount"] += 1


def _change_total(recs: list[dict[str, Any]]) -> None:
    _won(recs)["result"]["score"]["result"]["total"] += 1


def _change_balance(recs: list[dict[str, Any]]) -> None:
    b = recs[0]["result"]["balances"]
    b[0] += 1
    b[1] -= 1


def _drop_event(recs: list[dict[str, Any]]) -> None:
    recs[0]["events"].pop()


@pytest.mark.parametrize("edit, says", [
    (_swap_wall, "hand 0: DIFFERS: wall[0]: the record says "),
    (_change_discard, "hand 0: DIFFERS: event "),
    (_change_payment, "DIFFERS: result.payments[0].amount"),
    (_change_total, "DIFFERS: result.score.result.total: the record says"),
    (_change_balance, "hand 0: DIFFERS: result.balances[0]"),
    (_drop_event, "hand 0: DIFFERS: "),
])
def test_a_hand_edited_record_fails_replay(records: tuple[str, list[dict[str, Any]]], tmp_path: Any, edit: Any,
                                           says: str) -> None:
    code, out = _edited(records[0], tmp_path, edit)
    assert code == 1
    assert says in out, out
    assert out.splitlines()[-1].endswith("11 OK, 1 differ")


@pytest.mark.parametrize("line, says", [
    ("not json", "line 1: not JSON"),
    ('  {"format": "tjmj-record/1", "format": "x"}', "line 1: not JSON this scorer reads: the key 'format' is repeated in its "
     "object: line 1 column 31 (char 30)"),
    ("[1, 2]", "line 1: DIFFERS: not a record"),
    ('{"format": "tjmj-record/1"}', "line 1: DIFFERS: not a valid record at (top): 'rules' is a required property"),
])
def test_replay_refuses_junk_without_a_traceback(tmp_path: Any, line: str, says: str) -> None:
    p = tmp_path / "junk.jsonl"
    p.write_text(line + "\n", encoding="utf-8")
    code, out, err = run(["replay", str(p)])
    assert code == 1 and says in out and "Traceback" not in out + err


def test_replay_checks_the_rules(records: tuple[str, list[dict[str, Any]]]) -> None:
    rec = dict(records[1][0])
    rec["rules"] = dict(rec["rules"], sha256="0" * 64)
    with pytest.raises(ReplayDiff, match="sha256"):
        Replayer().check(rec)
    rec = json.loads(json.dumps(records[1][0]))
    rec["lazhuang"][(rec["dealer"] + 1) % 4] = 3          # beyond lazhuang_max
    with pytest.raises(ReplayDiff, match="lazhuang"):
        Replayer().check(rec)
    # a club's record (its own rule file's profile) replayed without --rules: the difference says what to give
    rec = json.loads(json.dumps(records[1][0]))
    rec["rules"] = dict(rec["rules"], name="club", profile="club")
    with pytest.raises(ReplayDiff, match="no profile 'club' .the record's rules are 'club', sha256 [0-9a-f]{12}…: "
                                         "give their rule file with --rules"):
        Replayer().check(rec)


def _run_plain(args: list[str]) -> str:
    """The command's stdout (a simulate summary is not one of the contract's answers: conftest.run would
    hold it to the score schema)."""
    import contextlib
    import io
    from tjmj_dsl.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(args) == 0
    return out.getvalue()


def _summary(out: str) -> str:
    return "\n".join(line for line in out.splitlines() if not line.startswith("time:"))


def test_simulate_is_the_same_for_any_jobs(tmp_path: Any) -> None:
    a, b = str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")
    args = ["simulate", "--hands", "60", "--seed", "9", "--players", "random,random,random,value"]
    code1, out1, err1 = run(args + ["--record", a])
    code2, out2, _ = run(args + ["--record", b, "--jobs", "2"])
    assert code1 == code2 == 0
    assert _summary(out1) == _summary(out2)
    assert open(a, encoding="utf-8").read() == open(b, encoding="utf-8").read()
    assert "60/60 hands" in err1                            # the progress bar, on stderr
    assert out1.splitlines()[-1].startswith("time: ")
    got = json.loads(_run_plain(args + ["--json"]))
    assert got["stats"]["hands"] == 60 and set(got["timing"]) == {"seconds", "hands_per_second", "jobs"}
    assert sum(got["stats"]["balance"]) == 0                  # every hand is zero-sum
    assert got["stats"]["wins"] + got["stats"]["drawn"] == 60


def test_a_hand_plays_alone_as_in_a_run(records: tuple[str, list[dict[str, Any]]]) -> None:
    gr = rules()
    players = [ValuePlayer(), RandomPlayer(), ValuePlayer(), RandomPlayer()]
    res = play(gr, 42, 7, players)
    assert record(gr, 42, 7, res, PLAYERS.split(",")) == records[1][7]


@pytest.mark.parametrize("args, says", [
    (["--players", "value,value"], "--players wants 4"),
    (["--players", "value,value,value,genius"], "--players wants 4"),
    (["--jobs", "0"], "--jobs: takes a whole number from 1 to 64"),
])
def test_simulate_usage_errors(args: list[str], says: str) -> None:
    code, _, err = run(["simulate", "--hands", "1"] + args)
    assert code == 2 and says in err


def test_the_shape_gate_never_hides_a_win() -> None:
    """Every hand the scorer calls a win passes the engine's shape test (hun-heavy random hands)."""
    import random
    from tjmj_dsl import Scorer
    from tjmj_dsl.engine.hand import hun_kinds_of
    sc = Scorer()
    rs = sc.ruleset
    rng = random.Random(5)
    wins = 0
    for _ in range(3000):
        indicator = rng.randrange(34)
        huns = hun_kinds_of(indicator, rs.hun_count, rs.cycles)
        hand: list[int] = []
        for _ in range(4):
            if rng.random() < 0.5:
                s = rng.choice([0, 9, 18]) + rng.randint(0, 6)
                hand += [s, s + 1, s + 2]
            else:
                hand += [rng.randrange(34)] * 3
        hand += [rng.randrange(34)] * 2
        for _ in range(rng.randint(0, 4)):
            hand[rng.randrange(14)] = rng.choice(huns)
        if rng.random() < 0.3:
            hand[rng.randrange(14)] = rng.randrange(34)
        if max(hand.count(k) for k in set(hand)) > 3 or hand.count(indicator) > 3:
            continue
        t = hand.pop(rng.randrange(14))
        c = sc.score_tiles(hand, t, indicator)
        shape = has_shape(hand + [t], frozenset(huns))
        if c.win:
            wins += 1
            assert shape, (hand, t, indicator)
        if c.reason == "no_winning_shape":
            assert not shape, (hand, t, indicator)
    assert wins > 500


def test_completing_tiles_are_those_that_give_the_shape() -> None:
    """The value player's fast list of winning draws equals drawing each kind and testing the shape."""
    import random
    from tjmj_dsl.game.shape import completing, pack, part_key
    rng = random.Random(3)
    checked = 0
    while checked < 1500:
        huns = frozenset(rng.sample(range(34), 2))
        hand: list[int] = []
        for _ in range(4):
            s = rng.choice([0, 9, 18]) + rng.randint(0, 6)
            hand += [s, s + 1, s + 2] if rng.random() < 0.6 else [rng.randrange(34)] * 3
        hand.append(rng.randrange(34))
        for _ in range(rng.randint(0, 3)):
            hand[rng.randrange(13)] = rng.choice(sorted(huns))
        if rng.random() < 0.3:
            hand[rng.randrange(13)] = rng.randrange(34)
        if max(hand.count(k) for k in hand) > 4:
            continue
        counts = [0] * 34
        for t in hand:
            if t not in huns:
                counts[t] += 1
        keys = [pack(counts, 0), pack(counts, 9), pack(counts, 18), sum(counts[27 + i] * 5 ** i for i in range(7))]
        part = [None if t in huns else part_key(t) for t in range(34)]
        held = [hand.count(k) for k in range(34)]
        got = completing(keys, sum(1 for t in hand if t in huns), part, held)
        assert got == [k for k in range(34) if held[k] < 4 and has_shape(hand + [k], huns)], (sorted(hand), huns)
        checked += 1


def test_a_suit_costed_by_its_blocks_costs_what_it_costs_whole() -> None:
    """shape.suit_cost splits a suit where no group can join its tiles and adds the blocks'
    costs: the same (h0, h1) as costing the nine counts whole, suit by suit (a sample of the
    405,350 suits of at most 14 tiles, all of which were checked once), with chows and without."""
    import random
    from tjmj_dsl.game import shape
    rng = random.Random(5)
    for n in range(4000):
        counts = [0] * 9
        for _ in range(rng.randint(1, 14)):
            r = rng.randrange(9) if n % 2 else rng.choice((0, 1, 3, 4, 7, 8))  # gaps, often
            if counts[r] < 4:
                counts[r] += 1
        key = shape.pack(counts, 0)
        for chow in (True, False):
            assert shape.suit_cost(key, chow) == shape._whole_suit_cost(key, chow), (counts, chow)


def test_shortfalls_and_completing_agree_with_the_shape_test_hand_by_hand() -> None:
    """The value player's kept per-part tables (shape._part_shorts, _part_waits) answer as costing
    the whole hand again would: each discard's shortfall is missing() of the hand without that tile,
    each winning draw makes the shape, with chows and without (play.chow_melds), huns or none."""
    import random
    from tjmj_dsl.game.shape import completing, missing, pack, part_key, shortfalls
    rng = random.Random(11)
    for n in range(1200):
        chow = n % 3 != 0
        huns = frozenset(rng.sample(range(34), rng.choice([0, 1, 2])))
        hand: list[int] = []
        while len(hand) < 14:
            k = rng.randrange(34)
            if hand.count(k) < 4:
                hand.append(k)
        counts = [0] * 34
        for t in hand:
            if t not in huns:
                counts[t] += 1
        keys = [pack(counts, 0), pack(counts, 9), pack(counts, 18), sum(counts[27 + i] * 5 ** i for i in range(7))]
        part = [None if t in huns else part_key(t) for t in range(34)]
        held = [hand.count(k) for k in range(34)]
        n_huns = sum(1 for t in hand if t in huns)

        def miss(tiles: list[int], extra: int = 0) -> int:
            c = [0] * 34
            for t in tiles:
                if t not in huns:
                    c[t] += 1
            return missing((pack(c, 0), pack(c, 9), pack(c, 18)), c, sum(1 for t in tiles if t in huns) + extra, chow)

        for extra in (0, 1):
            got = shortfalls(keys, n_huns, part, held, extra, chow)
            want = {}
            for k in sorted(set(hand)):
                rest = list(hand)
                rest.remove(k)
                want[k] = miss(rest, extra)
            assert got == want, (sorted(hand), sorted(huns), chow, extra)
        # a 13-tile hand: the kinds whose drawing gives the shape
        drop = hand[0]
        thirteen = hand[1:]
        c13 = list(counts)
        h13 = n_huns
        if drop in huns:
            h13 -= 1
        else:
            c13[drop] -= 1
        k13 = [pack(c13, 0), pack(c13, 9), pack(c13, 18), sum(c13[27 + i] * 5 ** i for i in range(7))]
        held13 = [thirteen.count(k) for k in range(34)]
        assert completing(k13, h13, part, held13, chow) == \
            [k for k in range(34) if held13[k] < 4 and miss(thirteen + [k]) == 0], (sorted(thirteen), sorted(huns), chow)


def test_a_record_with_its_own_wall_replays(records: tuple[str, list[dict[str, Any]]], tmp_path: Any) -> None:
    """seed null: a hand dealt by another program (or set by hand) is replayed from its own wall,
    dice and dealer; its events are still checked against the table's rules."""
    def own_walls(recs: list[dict[str, Any]]) -> None:
        for r in recs:
            r["seed"] = None
    code, out = _edited(records[0], tmp_path, own_walls)
    assert code == 0 and out.splitlines()[-1] == "12 hand(s): 12 OK, 0 differ", out
    # an audit's finding: nothing ties such a wall to a seed, and the OK line now says so
    assert out.splitlines()[0] == ("hand 0: OK (not checked: its wall, dice and dealer against a seed (seed null: "
                                   "a wall dealt elsewhere))"), out

    def own_wall_dealt_otherwise(recs: list[dict[str, Any]]) -> None:  # not what any seed deals: still replayed
        own_walls(recs)
        r = recs[0]
        r["dice"] = [[6, 6], [6, 6]] if r["dice"] != [[6, 6], [6, 6]] else [[1, 1], [1, 1]]
    code, out = _edited(records[0], tmp_path, own_wall_dealt_otherwise)
    assert code == 1 and "hand 0: DIFFERS: " in out and "seed" not in out.splitlines()[0], out

    def edited_own_wall(recs: list[dict[str, Any]]) -> None:  # another wall, the same events: they are not legal
        own_walls(recs)
        recs[0]["wall"] = recs[0]["wall"][::-1]
    code, out = _edited(records[0], tmp_path, edited_own_wall)
    assert code == 1 and "hand 0: DIFFERS: " in out and "wall[0]" not in out, out


def test_rotate_passes_the_deal_as_the_rules_say(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """simulate --rotate plays one game: hand i+1 is dealt by hand i's next dealer. The expected
    dealer is worked from the reading (§9, seed 001: the dealer keeps the deal when it wins or the
    hand is drawn; a non-dealer's win passes it to the dealer's next seat), not from the code."""
    from tjmj_dsl.cli import main
    path = tmp_path / "game.jsonl"
    assert main(["simulate", "--hands", "24", "--seed", "11", "--rotate", "--record", str(path), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)["stats"]
    recs = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert [r["hand"] for r in recs] == list(range(24)) and "dealt_by" not in recs[0]
    kept = passed = 0
    for a, b in zip(recs, recs[1:]):
        assert b["dealt_by"] == "rotation" and b["dealer"] == a["result"]["next_dealer"]
        w = a["result"]["winner"]
        assert b["dealer"] == (a["dealer"] if w is None or w == a["dealer"] else (a["dealer"] + 1) % 4)
        kept += b["dealer"] == a["dealer"]
        passed += b["dealer"] != a["dealer"]
    assert kept and passed, (kept, passed)  # both happen in this game
    assert (stats["deal"], stats["dealer_kept"]) == ("rotation", kept)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "24 hand(s): 24 OK, 0 differ" in out and "not checked" not in out
    assert "dealt_by" not in recs[0]  # hand 0 is dealt by turns (seat 0), and replay checks it against the seed
    # one hand alone replays, and says its dealer could not be checked
    assert main(["replay", str(path), "--hand", "5"]) == 0
    assert "hand 5: OK (not checked: its dealer (hand 4 of its game was not replayed just before it))" in capsys.readouterr().out
    # a record whose dealer is not the one the previous hand passed the deal to is caught
    i = next(i for i in range(1, 24) if recs[i]["dealer"] != recs[i - 1]["dealer"])
    bad = [dict(r) for r in recs]
    bad[i]["dealer"] = recs[i - 1]["dealer"]
    path.write_text("".join(json.dumps(r) + "\n" for r in bad), encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"hand {i}: DIFFERS: dealer: hand {i - 1} passed the deal to seat {recs[i]['dealer']}" in out, out
    # without --rotate the seats take turns, and those records say nothing of it
    assert main(["simulate", "--hands", "5", "--seed", "11", "--record", str(path), "--force"]) == 0
    turns = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert [r["dealer"] for r in turns] == [0, 1, 2, 3, 0] and not any("dealt_by" in r for r in turns)
    assert turns[0]["events"] == recs[0]["events"]  # hand 0 is the same game either way


def test_records_are_one_line_each_whatever_the_rule_files_names(tmp_path: Any) -> None:
    # pattern names holding U+2028, U+0085, U+2029 (line breaks to str.splitlines) are written as escapes
    rules_path = tmp_path / "lines.yaml"
    rules_path.write_text('extends: builtin:tianjin\nname: lines\nset:\n  patterns.tiliu.name: "提溜\\u2028"\n'
                          '  patterns.su.name: "素\\u0085"\n  patterns.hundiao.name: "混吊\\u2029"\n', encoding="utf-8")
    path = tmp_path / "hands.jsonl"
    code, _, err = run(["simulate", "--rules", str(rules_path), "--hands", "12", "--seed", "42", "--players", PLAYERS,
                        "--record", str(path)])
    assert code == 0, err
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 12 and "\\u2028" in "".join(lines)
    assert any("提溜\u2028" in json.dumps(json.loads(x), ensure_ascii=False) for x in lines)
    code, out, _ = run(["replay", str(path), "--rules", str(rules_path)])
    assert code == 0 and "12 OK, 0 differ" in out


def test_the_first_dealer_is_drawn_at_random(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """A game's first dealer is chosen at random (the seeds: the first hand's dealer is picked at random;
    rulebook 打风), not seat 0 every time: over 16 seeds the first hands of --rotate games are dealt by
    at least three different seats, and each record replays."""
    from tjmj_dsl.cli import main
    firsts = set()
    for seed in range(16):
        path = tmp_path / f"g{seed}.jsonl"
        assert main(["simulate", "--hands", "1", "--seed", str(seed), "--rotate", "--record", str(path), "--json"]) == 0
        firsts.add(json.loads(path.read_text(encoding="utf-8"))["dealer"])
    capsys.readouterr()
    assert len(firsts) >= 3, firsts
    assert main(["replay", str(tmp_path / "g3.jsonl")]) == 0


def test_replay_answers_every_line_of_a_hostile_file(records: tuple[str, list[dict[str, Any]]], tmp_path: Any) -> None:
    """Each line of a record file gets its one answer, in order, and the run goes on: a record the
    schema once let through (a discard naming no tile: a KeyError ended the run), JSON nested past
    the parser's depth (RecursionError), bytes that are not UTF-8 (they were replaced unsaid), a
    line past the stated limit (read whole into memory before), a first hand said to be dealt by rotation."""
    path, recs = records
    no_tile = json.loads(json.dumps(recs[0]))
    next(e for e in no_tile["events"] if e["type"] == "discard")["tile"] = None
    first = json.loads(json.dumps(recs[0]))
    first["dealt_by"] = "rotation"
    p = tmp_path / "hostile.jsonl"
    with open(p, "wb") as f:
        f.write(json.dumps(no_tile).encode() + b"\n" + b"[" * 100_000 + b"\n" + b"\xff\xfe{}\n"
                + b" " * (1 << 21) + b"\n" + json.dumps(first).encode() + b"\n" + json.dumps(recs[1]).encode() + b"\n")
    code, out, err = run(["replay", str(p)])
    lines = out.splitlines()
    assert code == 1 and err == "", err
    assert lines[0].startswith("hand 0: DIFFERS: not a valid record at events/") and "None is not of type 'string'" in lines[0]
    assert lines[1] == "line 2: not JSON this scorer reads: arrays and objects nested more than 64 deep"
    assert lines[2] == "line 3: not UTF-8 at byte 0"
    assert lines[3] == "line 4: longer than 1,048,576 bytes, the limit of a record line"
    assert lines[4] == "hand 0 (line 5): DIFFERS: dealt_by: rotation, but hand 0 is its game's first hand: no hand before passed it the deal"
    assert lines[5] == "hand 1: OK" and lines[6] == "6 hand(s): 1 OK, 5 differ"


def test_a_record_holding_a_lone_surrogate_is_said_to_be_invalid(records: tuple[str, list[dict[str, Any]]], tmp_path: Any) -> None:
    """A seed written as JSON's \\ud800 escape is a string no UTF-8 holds: the record is invalid at its seed,
    said as any invalid record is (a fuzzing campaign's finding: 'cannot be replayed (UnicodeEncodeError: ...)')."""
    _, recs = records
    bad = json.loads(json.dumps(recs[0]))
    bad["seed"] = "\ud800"
    p = tmp_path / "surrogate.jsonl"
    p.write_text(json.dumps(bad) + "\n" + json.dumps(recs[1]) + "\n", encoding="ascii")  # json.dumps escapes it
    code, out, err = run(["replay", str(p)])
    assert code == 1 and err == "", err
    assert out.splitlines()[:2] == ["hand 0: DIFFERS: not a valid record at seed: a lone surrogate (\\ud800-\\udfff) is no text",
                                    "hand 1: OK"]


def test_simulate_and_compile_state_their_limits_and_os_errors(tmp_path: Any) -> None:
    """Counts past simulate's stated limits are refused before any work (10^12 hands built a chunk
    list of gigabytes, --jobs 100000 forked that many workers; a 5,000-digit seed was a ValueError),
    and file-system errors are said, not raised (compile --out a file; a full disk for --record)."""
    for args in (["--hands", "1000000000000"], ["--hands", "4", "--jobs", "100000"], ["--seed", "9" * 5000]):
        code, out, err = run(["simulate", *args])
        assert code == 2 and out == "" and "error: argument --" in err, (args, err)  # a usage error (cli_args.py)
    (tmp_path / "afile").write_text("", encoding="utf-8")
    code, _, err = run(["compile", "--out", str(tmp_path / "afile")])
    assert code == 2 and "is a file, not a folder" in err and "Traceback" not in err
    if os.path.exists("/dev/full"):
        code, _, err = run(["simulate", "--hands", "20", "--record", "/dev/full"])
        assert code == 1 and "No space left on device" in err


def test_a_fixed_first_dealer_is_the_rule_files(tmp_path: Any) -> None:
    """play.first_dealer says who deals a game's first hand: the built-in rules draw it from the
    seed (random); a seat there (or the key absent, as in rule files before it) deals hand i by
    seat (seat + i) mod 4, so records made that way replay under them; anything else is refused."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    base = json.dumps(os.path.join(root, "rules", "tianjin.yaml"))
    fixed = tmp_path / "fixed.yaml"
    fixed.write_text(f"extends: {base}\nname: fixed\nset:\n  play.first_dealer: 0\n", encoding="utf-8")
    path = tmp_path / "f.jsonl"
    assert run(["simulate", "--hands", "6", "--seed", "3", "--rules", str(fixed), "--record", str(path)])[0] == 0
    recs = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert [r["dealer"] for r in recs] == [i % 4 for i in range(6)]
    assert run(["replay", str(path), "--rules", str(fixed)])[0] == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"extends: {base}\nname: bad\nset:\n  play.first_dealer: 7\n", encoding="utf-8")
    code, _, err = run(["check", str(bad)])
    assert code == 1 and "first_dealer" in err


def test_replay_skips_blank_lines_as_the_batch_does(records: tuple[str, list[dict[str, Any]]], tmp_path: Any) -> None:
    path, recs = records
    p = tmp_path / "blank.jsonl"
    p.write_text(json.dumps(recs[0]) + "\n \t\r\n  \n", encoding="utf-8")
    code, out, _ = run(["replay", str(p)])
    assert code == 0 and out.splitlines() == ["hand 0: OK", "1 hand(s): 1 OK, 0 differ"]
    assert run(["score", "--jsonl"], " \t\r\n\n")[1] == ""  # the batch: no answer for those lines either
    # blank is JSON's whitespace only: a form feed or a no-break space is a line's text, refused by both
    p.write_text(json.dumps(recs[0]) + "\n\f\n\u00a0\n", encoding="utf-8")
    code, out, _ = run(["replay", str(p)])
    assert code != 0 and [x.split(":")[0] for x in out.splitlines()[1:3]] == ["line 2", "line 3"]
    assert "not JSON" in out.splitlines()[1]
    answers = [json.loads(x) for x in run(["score", "--jsonl"], "\f\n\u00a0\n")[1].splitlines()]
    assert [(a["error"]["code"], a["error"]["position"]) for a in answers] == [("not_json", 0)] * 2


def test_a_hand_replayed_twice_in_one_file_is_said(records: tuple[str, list[dict[str, Any]]], tmp_path: Any) -> None:
    """An audit's finding: a copied (or moved) line replayed as plain OK, and its differences named only the
    hand: the second line of one hand now says which line replayed it first, and its label names its line."""
    def copied(recs: list[dict[str, Any]]) -> None:
        recs.insert(3, json.loads(json.dumps(recs[2])))
    code, out = _edited(records[0], tmp_path, copied)
    lines = out.splitlines()
    assert code == 0 and lines[2] == "hand 2: OK" and lines[3] == "hand 2 (line 4): OK (the same hand as line 3)", out

    def copied_and_changed(recs: list[dict[str, Any]]) -> None:
        copied(recs)
        won = next(i for i in range(3, len(recs)) if recs[i]["hand"] == 2)
        recs[won]["result"]["balances"][0] += 1
    code, out = _edited(records[0], tmp_path, copied_and_changed)
    assert code == 1 and out.splitlines()[3].startswith("hand 2 (line 4): DIFFERS: "), out
