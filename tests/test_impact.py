"""tjmj impact: the intervals against cases with known answers, duplicate play
(a variant identical to the base differs by exactly 0 on every wall; the
base's numbers agree with `tjmj simulate` on the same hands), byte-identical
reports for any --jobs, after a resume, and on a local Ray cluster; the JSON
Schema; hostile text shown inertly; bad arguments refused without a traceback."""

from __future__ import annotations

import json
import math
import os
import random
import re

import jsonschema
import pytest

from tjmj_dsl.cli import main
from tjmj_dsl.impact import stats
from tjmj_dsl.impact.schema import render as render_schema

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = json.loads(render_schema())
FILES = ("report.json", "report.md", "report.html")


def _run(tmp: str, *extra: str, hands: int = 4) -> dict[str, bytes]:
    code = main(["impact", "--hands", str(hands), "--seed", "7", "--out", tmp, *extra])
    assert code == 0
    out = {}
    for name in FILES:
        with open(os.path.join(tmp, name), "rb") as f:
            out[name] = f.read()
    return out


# ------------------------------------------------------------------ the statistics, against known answers

@pytest.mark.parametrize("df,expected", [(1, 12.706), (2, 4.303), (5, 2.571), (9, 2.262), (10, 2.228), (30, 2.042),
                                         (120, 1.980)])
def test_t_quantile_matches_the_printed_table(df: int, expected: float) -> None:
    assert stats.t_quantile(0.975, df) == pytest.approx(expected, abs=0.0006)


def test_paired_interval_of_a_data_set_with_a_known_answer() -> None:
    # differences 0.5 ± 1 alternately over 10 walls: mean 0.5, sd sqrt(10/9), so the 95 % interval is
    # 0.5 ± t(0.975, 9) · sqrt(10/9) / sqrt(10) = 0.5 ± 2.262157 / 3
    base = [[0.0] * 10]
    variant = [[0.5 + (1.0 if i % 2 else -1.0) for i in range(10)]]
    p = stats.paired("mean", base, variant)
    assert p["diff"] == pytest.approx(0.5)
    assert p["ci"][0] == pytest.approx(0.5 - 2.262157 / 3, abs=1e-6)
    assert p["ci"][1] == pytest.approx(0.5 + 2.262157 / 3, abs=1e-6)
    assert p["detected"] is False and p["walls_needed"] is not None
    # n = ((1.959964 + 0.841621) * sd / 0.5)^2 with sd = sqrt(10/9): 34.87 → 35 walls
    assert p["walls_needed"] == 35


def test_the_bonferroni_interval_is_wider() -> None:
    # differences 1 ± 1 alternately over 10 walls: the 95 % interval 1 ± 2.262157 · sqrt(10/9) / sqrt(10)
    # = 1 ± 0.754 excludes 0; the Bonferroni interval of 24 differences (t(1 - 0.05/48, 9) > 4) does not
    variant = [[1.0 + (1.0 if i % 2 else -1.0) for i in range(10)]]
    p = stats.paired("mean", [[0.0] * 10], variant, family=24)
    assert p["detected"] is True and p["detected_family"] is False
    assert stats.paired("mean", [[0.0] * 10], variant)["detected_family"] is True  # a family of one: the 95 % interval


def test_identical_arms_differ_by_exactly_zero() -> None:
    xs = [[float(i % 3) for i in range(20)], [float(i % 3) ** 2 for i in range(20)]]
    for kind in ("mean", "ratio", "sd"):
        p = stats.paired(kind, xs, xs)
        assert p["diff"] == 0 and p["ci"] == [0, 0] and not p["detected"]


def test_intervals_cover_a_known_mean_95_percent_of_the_time() -> None:
    """Synthetic walls with a known mean difference (1.0): the paired interval covers it in about 95 % of
    400 seeded data sets of 8 walls (a binomial's 2.7 sd either side: 92 %-98 %)."""
    rng = random.Random(2024)
    covered = 0
    for _ in range(400):
        base = [rng.gauss(3.0, 1.0) for _ in range(8)]
        var = [b + 1.0 + rng.gauss(0.0, 2.0) for b in base]
        lo, hi = stats.paired("mean", [base], [var])["ci"]
        covered += lo <= 1.0 <= hi
    assert 0.92 <= covered / 400 <= 0.98


def test_ratio_interval_covers_a_known_ratio() -> None:
    """The delta method's ratio: wins a Bernoulli(0.3) per wall of 4 hands, a pattern in half the wins;
    the interval of (pattern / wins) covers 0.5 in about 95 % of 300 data sets of 60 walls."""
    rng = random.Random(7)
    covered = 0
    for _ in range(300):
        wins = [sum(rng.random() < 0.3 for _ in range(4)) / 4 for _ in range(60)]
        pat = [sum(rng.random() < 0.5 for _ in range(int(w * 4))) / 4 for w in wins]
        g, infl = stats.estimate("ratio", [pat, wins])
        assert g is not None
        lo, hi, _ = stats.interval(g, infl)
        covered += lo <= 0.5 <= hi
    assert 0.91 <= covered / 300 <= 0.98


# ------------------------------------------------------------------ duplicate play

def test_a_variant_identical_to_the_base_is_identical_on_every_wall(tmp_path: object) -> None:
    out = _run(str(tmp_path), "--variant", "same=jin_gang=4", "--no-skill")
    rep = json.loads(out["report.json"])
    jsonschema.validate(rep, SCHEMA)
    d = rep["differences"][0]["measures"]
    assert all(x["diff"] in (0, None) and not x["detected"] for x in d.values())
    assert d["drawn_rate"]["verdict"].startswith("identical on every one of 4 walls")
    assert rep["arms"][0]["rules"]["sha256"] == rep["arms"][1]["rules"]["sha256"]


def test_the_base_agrees_with_simulate_on_the_same_hands(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    """With four value players every seating is the same hand, so the base's numbers are those of
    `tjmj simulate` over hands 0..N-1 of the seed."""
    rep = json.loads(_run(str(tmp_path), "--no-skill", hands=6)["report.json"])
    capsys.readouterr()
    assert main(["simulate", "--hands", "6", "--seed", "7", "--json"]) == 0
    sim = json.loads(capsys.readouterr().out)["stats"]
    m = rep["arms"][0]["measures"]
    assert m["win_rate"]["value"] == pytest.approx(sim["win_rate"], abs=1e-4)
    assert m["dealer_balance"]["value"] == pytest.approx(sim["mean_dealer_balance"], abs=1e-3)
    assert rep["arms"][0]["fan_distribution"] == {k: 4 * v for k, v in sim["fan_distribution"].items()}


def test_a_rule_change_shows_where_it_acts(tmp_path: object) -> None:
    """One kind of hun instead of two: the wins and the patterns they make change on the same walls."""
    rep = json.loads(_run(str(tmp_path), "--variant", "hun1=hun_kinds=1", "--no-skill", hands=6)["report.json"])
    jsonschema.validate(rep, SCHEMA)
    assert rep["arms"][1]["rules"]["options"]["hun_kinds"] == 1
    a, b = (json.dumps(x["measures"], sort_keys=True) for x in rep["arms"])
    assert a != b


# ------------------------------------------------------------------ the same bytes, however it is run

def _fake_walls(rng: random.Random, start: int, n: int) -> list[dict[str, object]]:
    """n walls of a chunk's shape (three mixes, as a study with the skill mixes plays them), random facts."""
    def facts() -> dict[str, object]:
        won = rng.random() < 0.7
        b = [rng.choice([0, 3, -5, 12]) for _ in range(3)]
        return {"w": rng.randrange(4) if won else None, "d": rng.randrange(4),
                "f": rng.choice([1, 2, 4, None]) if won else None, "t": rng.randrange(40),
                "p": sorted(rng.sample(["zhuo5", "long", "su", "hundiao"], rng.randrange(3))) if won else [],
                "g": rng.random() < 0.1, "c": rng.random() < 0.1,
                "b": [*b, -sum(b) + rng.choice([0, 0.5, 1e-9])],  # a float now and then: summed exactly
                "n": rng.randrange(10, 70), "r": rng.randrange(2), "x": rng.randrange(2),
                "z": rng.random() < 0.5, "l": rng.randrange(7)}
    return [{"wall": i, "mixes": [[{"s": ["value"] * 4, "m": 4, "h": facts()}],
                                  [{"s": ["value", "random"] * 2, "m": 2, "h": facts()},
                                   {"s": ["random", "value"] * 2, "m": 2, "h": facts()}],
                                  [{"s": ["value", "noclaim"] * 2, "m": 2, "h": facts()},
                                   {"s": ["noclaim", "value"] * 2, "m": 2, "h": facts()}]]}
            for i in range(start, start + n)]


def test_a_tally_gives_what_the_walls_give_in_any_order() -> None:
    """A study keeps each arm's walls reduced (analyze.Tally), not their facts: fed its chunks in any
    order it gives each measure the components the measure's definition gives over every wall in
    order, and the described counts and means (statistics.fmean's, exactly) of all the hands."""
    from collections import defaultdict
    from statistics import fmean

    from tjmj_dsl.impact.analyze import Tally, walls_of
    from tjmj_dsl.impact.measures import measures
    rng = random.Random(5)
    chunks = [(a, _fake_walls(rng, a, 10 if a < 50 else 7)) for a in range(0, 57, 10)]
    walls = walls_of([w for _, c in chunks for w in c])
    shuffled = chunks[:]
    rng.shuffle(shuffled)
    tally = Tally(True)
    for a, c in shuffled:
        tally.add(a, c)
    assert tally.walls() == len(walls) == 57
    ms = measures(True, [(p, p) for p in ("zhuo5", "long", "su", "hundiao", "never")])
    for m in ms:
        want = [[part(w[m.mix]) for w in walls] for part in m.parts]
        assert [list(x) for x in tally.components(m)] == want, m.id
    by: dict[tuple[str, object], list[float]] = defaultdict(list)
    for w in walls:
        for mix in w:
            for m2, _, h in mix:
                by["zuozhuang", h["z"]] += [h["b"][h["d"]]] * m2
                by["lazhuang", h["l"]] += [h["b"][h["d"]]] * m2
    d = tally.describe()
    got = {(k, e["value"]): (e["hands"], e["dealer_balance"]) for k, es in d["dealer_by_bets"].items() for e in es}
    assert got == {k: (len(xs), float(f"{fmean(xs):.6g}") + 0.0) for k, xs in by.items()}
    assert d["wins_counted"] == sum(m2 for w in walls for m2, _, h in w[0] if h["w"] is not None)


def test_play_all_hands_each_chunk_over_once_and_keeps_none(tmp_path: object) -> None:
    """With a consumer (as `tjmj impact` runs it) every chunk, played or read from the store, is handed
    over once, and play_all keeps none of them."""
    from tjmj_dsl.impact import runner
    from tjmj_dsl.impact.arms import compile_arm, parse_arm
    from tjmj_dsl.impact.store import Store
    arm = parse_arm("base", "", None, "--base")
    tasks = runner.tasks_for([(arm, compile_arm(arm).sha256)], (("value",) * 4,), 3, 14)
    store = Store(str(tmp_path))
    store.put(tasks[0], runner.play_chunk(tasks[0]))
    got: list[tuple[int, int]] = []
    assert runner.play_all(tasks, store, "local", 1, take=lambda t, walls: got.append((t.start, len(walls)))) == {}
    assert got == [(0, 10), (10, 4)]


def test_jobs_and_resume_give_the_same_bytes(tmp_path: object) -> None:
    one = _run(os.path.join(str(tmp_path), "a"), "--variant", "t=tianting=on", hands=12)
    two = _run(os.path.join(str(tmp_path), "b"), "--variant", "t=tianting=on", "--jobs", "2", hands=12)
    assert one == two
    chunks = os.path.join(str(tmp_path), "a", "chunks")
    names = sorted(os.listdir(chunks))
    assert len(names) == 4  # 2 arms x 12 walls in chunks of 10
    os.remove(os.path.join(chunks, names[0]))
    with open(os.path.join(chunks, names[1]), "w") as f:
        f.write('{"key": ')  # a chunk cut short: played again
    resumed = _run(os.path.join(str(tmp_path), "a"), "--variant", "t=tianting=on", hands=12)
    assert resumed == one
    assert len(os.listdir(chunks)) == 4


def test_a_stored_chunk_is_read_back_and_a_malformed_one_played_again(tmp_path: object,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A finished chunk is read back, not played again; one whose key is right but whose walls are not
    of the chunk's shape (a hand's facts missing, as from an edited or foreign file) is played again,
    not read into the statistics (it raised a KeyError there, with a traceback)."""
    from tjmj_dsl.impact import runner
    a = os.path.join(str(tmp_path), "a")
    one = _run(a, "--no-skill", hands=3)

    def unplayable(task: object) -> object:
        raise AssertionError("a stored chunk was played again")
    with monkeypatch.context() as m:
        m.setattr(runner, "play_chunk", unplayable)
        assert _run(a, "--no-skill", hands=3) == one  # every chunk read back
    chunks = os.path.join(a, "chunks")
    (name,) = os.listdir(chunks)
    with open(os.path.join(chunks, name), encoding="utf-8") as f:
        stored = json.load(f)
    del stored["walls"][1]["mixes"][0][0]["h"]["z"]
    with open(os.path.join(chunks, name), "w", encoding="utf-8") as f:
        json.dump(stored, f)
    assert _run(a, "--no-skill", hands=3) == one
    with open(os.path.join(chunks, name), encoding="utf-8") as f:
        assert "z" in json.load(f)["walls"][1]["mixes"][0][0]["h"]  # played again and stored whole
    with open(os.path.join(chunks, name), "w", encoding="utf-8") as f:
        f.write("[" * 100_000 + "]" * 100_000)  # JSON too deep to read (RecursionError): played again, not refused
    assert _run(a, "--no-skill", hands=3) == one


def test_a_stored_chunk_whose_numbers_were_changed_is_played_again_and_said(tmp_path: object,
                                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """An audit's finding: a chunk file whose numbers were edited (a hand's balances multiplied, another
    arm's walls copied in under this chunk's key) was read into the statistics: a study's dealer balance
    went from 0.48 to -39.48 with no word. A chunk now carries its walls' sha256, and every hand's balances
    must sum to 0: one that does not check is played again, and the run says how many were."""
    a = os.path.join(str(tmp_path), "a")
    one = _run(a, "--variant", "hun1=hun_kinds=1", "--no-skill", hands=3)
    capsys.readouterr()
    chunks = os.path.join(a, "chunks")
    names = sorted(os.listdir(chunks))
    stored = {}
    for name in names:
        with open(os.path.join(chunks, name), encoding="utf-8") as f:
            stored[name] = json.load(f)
    first, second = names
    edited = json.loads(json.dumps(stored[first]))
    edited["walls"][0]["mixes"][0][0]["h"]["b"] = [x * 1000 for x in edited["walls"][0]["mixes"][0][0]["h"]["b"]]
    from tjmj_dsl.impact.store import digest as walls_digest
    edited["sha256"] = walls_digest(edited["walls"])  # even with its digest made again, the balances do not sum to 0
    edited["walls"][0]["mixes"][0][0]["h"]["b"][0] += 1
    edited["sha256"] = walls_digest(edited["walls"])
    swapped = {**stored[second], "walls": stored[first]["walls"]}  # the other arm's walls under this key
    with open(os.path.join(chunks, first), "w", encoding="utf-8") as f:
        json.dump(edited, f)
    with open(os.path.join(chunks, second), "w", encoding="utf-8") as f:
        json.dump(swapped, f)
    assert _run(a, "--variant", "hun1=hun_kinds=1", "--no-skill", hands=3) == one
    assert "2 stored chunk(s) did not check" in capsys.readouterr().err
    for name in names:
        with open(os.path.join(chunks, name), encoding="utf-8") as f:
            assert json.load(f) == stored[name]  # played again and stored as they were


def test_the_reports_replace_a_link_in_out_and_a_bad_out_is_said_before_any_hand(
        tmp_path: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """An audit's findings: report.html written through a symbolic link in --out overwrote the file it
    pointed at; an --out that cannot be made was said after every hand had been played."""
    out = os.path.join(str(tmp_path), "out")
    os.makedirs(out)
    victim = os.path.join(str(tmp_path), "victim.txt")
    with open(victim, "w", encoding="utf-8") as f:
        f.write("SECRET")
    os.symlink(victim, os.path.join(out, "report.html"))
    got = _run(out, "--no-skill", hands=2)
    with open(victim, encoding="utf-8") as f:
        assert f.read() == "SECRET"
    assert not os.path.islink(os.path.join(out, "report.html")) and got["report.html"].startswith(b"<!DOCTYPE")
    from tjmj_dsl.impact import runner

    def unplayable(task: object) -> object:
        raise AssertionError("a hand was played before --out was known to be writable")
    monkeypatch.setattr(runner, "play_chunk", unplayable)
    blocker = os.path.join(str(tmp_path), "file")
    with open(blocker, "w", encoding="utf-8") as f:
        f.write("x")
    assert main(["impact", "--hands", "20", "--no-skill", "--out", os.path.join(blocker, "sub")]) == 1
    err = capsys.readouterr().err
    assert "tjmj: error:" in err and "Traceback" not in err


def test_an_arms_rule_error_names_the_arm_and_is_cut_short(capsys: pytest.CaptureFixture[str],
                                                           tmp_path: object) -> None:
    bad = ",".join(f"o{i}=1" for i in range(50))
    code = main(["impact", "--hands", "2", "--out", str(tmp_path), "--variant", "a=jin_gang=8",
                 "--variant", "b=jin_gang=banana," + bad])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("tjmj: error: --variant b: the rules do not compile:")
    assert "no option 'o0'" in err and "... and 41 more" in err and "51 error(s)" in err and len(err) < 5000


def test_a_verdict_gives_what_its_walls_could_detect() -> None:
    """Not detected: the smallest true difference the walls detect with 80 % power at 95 % (2.8016 sd/√n),
    and the walls the observed difference would need, each in hands of the mix (a mix of one player: one
    hand a wall)."""
    from tjmj_dsl.impact.analyze import verdict
    v = verdict(0.1, [-0.1, 0.3], False, 1.0, 785, 100, 2)
    assert v == ("no effect detected at 100 walls (200 hands); 100 walls detect a true difference of ±0.28 80 % "
                 "of the time; were the observed +0.1 the true difference, about 785 walls (1570 hands) would detect it")
    assert verdict(0.001, [-1, 1], False, 1.0, 7_849_000, 100, 1).endswith("(more than a run may play)")
    assert verdict(0.0, [0.0, 0.0], False, 0.0, None, 9, 1) == "identical on every one of 9 walls"


def test_an_address_that_cannot_be_reached_is_said_at_once() -> None:
    # an audit's finding: --engine ray --address 127.0.0.1:1 printed Ray's retries for more than 10 minutes
    from tjmj_dsl.game.ship import _reachable
    with pytest.raises(RuntimeError, match="cannot reach Ray at 127.0.0.1:1"):
        _reachable("127.0.0.1:1")
    with pytest.raises(RuntimeError, match="wants HOST:PORT"):
        _reachable("nonsense")
    _reachable("auto")  # Ray finds this machine's cluster itself
    _reachable(None)


def test_the_rules_given_as_an_option_are_the_rules_given_as_the_argument(tmp_path: object) -> None:
    """Every command takes --rules FILE (docs/use/cli.md); impact's report is the same either way."""
    path = os.path.join(ROOT, "rules", "tianjin.yaml")
    one = _run(os.path.join(str(tmp_path), "a"), path, "--no-skill", hands=2)
    two = _run(os.path.join(str(tmp_path), "b"), "--rules", path, "--no-skill", hands=2)
    assert one == two and json.loads(one["report.json"])["command"].startswith(f"tjmj impact {path} ")


def test_the_report_names_what_reruns_it(tmp_path: object) -> None:
    out = _run(str(tmp_path), "--variant", "jin8=jin_gang=8", "--no-skill", "--jobs", "2")
    rep = json.loads(out["report.json"])
    assert rep["command"] == ("tjmj impact --variant jin8=jin_gang=8 --hands 4 --seed 7 "
                              "--players value,value,value,value --no-skill")
    assert rep["arms"][1]["rules"]["options"]["jin_gang"] == "8"
    html = out["report.html"].decode()
    assert html.count("<svg") >= 2 and 'name="viewport"' in html
    # self-contained: nothing fetched (namespace names aside, no address at all)
    assert "src=" not in html and "@import" not in html and not re.search(r"url\((?!#)", html)
    svgs = [set(re.findall(r'\bid="([^"]+)"', s)) for s in html.split("<svg")[1:]]
    assert all(not (a & b) for i, a in enumerate(svgs) for b in svgs[i + 1:])  # no id shared by two plots
    assert "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        'xmlns:xlink="http://www.w3.org/1999/xlink"', "")


def _probe(task: object) -> list[dict[str, object]]:
    """Played in a --jobs worker instead of a chunk: how the worker answers SIGTERM."""
    import signal
    return [{"sigterm_default": signal.getsignal(signal.SIGTERM) is signal.SIG_DFL}]


def test_a_worker_ends_quietly_when_the_pool_ends_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A --jobs worker is forked from the command, whose SIGTERM raises (tjmj_dsl/interrupt.py): left
    so, a worker the pool ended (Pool.terminate sends SIGTERM) printed a traceback, even after a run
    that went well. Each worker answers SIGTERM by the default (it ends, silently)."""
    from tjmj_dsl.impact import runner
    from tjmj_dsl.impact.chunk import Task
    from tjmj_dsl.impact.store import Store
    from tjmj_dsl.interrupt import install
    monkeypatch.setattr(runner, "play_chunk", _probe)
    tasks = [Task(f"arm{i}", "0" * 64, (("value",) * 4,), 0, 0, 1) for i in range(4)]  # type: ignore[arg-type]
    restore = install()
    try:
        done = runner.play_all(tasks, Store(None), "local", 2)
    finally:
        restore()
    assert [done[t] for t in tasks] == [[{"sigterm_default": True}]] * 4


def test_the_rules_written_for_a_worker_are_removed_once_compiled(tmp_path: object) -> None:
    """game/ship.py writes a run's rule files under a temporary directory for a Ray worker (or an impact
    arm) to compile them: removed as soon as they are compiled, so that a worker Ray ends without its exit
    handlers (os._exit here) leaves nothing behind; they were removed at exit, and a worker left one each."""
    import subprocess
    import sys
    code = ("import os; from dataclasses import replace; "
            "from tjmj_dsl.game import simulate as s; from tjmj_dsl.game.ship import bundle_sha, rule_files, written; "
            "files, top = rule_files(None); spec = s.Spec(None, None, (), ('random',) * 4, 1, False); "
            "sha = s._rules(spec).sha256; "
            "w = written(files, top); p = w.__enter__(); print(os.path.isfile(p)); w.__exit__(None, None, None); "
            "print(os.path.exists(p)); "
            "a = s._ray_chunk(files, top, sha, spec, 0, 3); b = s._ray_chunk(files, top, sha, spec, 3, 5); "
            "print(len(a), len(b), sum(1 for k in s._RULES if str(k.rules).startswith('<shipped'))); "
            "print(a == s._chunk((spec, 0, 3))); import sys; sys.stdout.flush(); os._exit(0)")
    tmp = str(tmp_path)
    env = {**os.environ, "TMPDIR": tmp}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env=env).stdout.split()
    assert out == ["True", "False", "3", "2", "1", "True"]  # there for the compile, gone after; compiled once a worker
    assert os.listdir(tmp) == []


def test_ray_gives_the_bytes_of_one_job(tmp_path: object) -> None:
    ray = pytest.importorskip("ray", reason='Ray is not installed (pip install "tjmj[cluster]")')
    local = _run(os.path.join(str(tmp_path), "a"), "--variant", "s=subenlong=on", "--no-skill", hands=12)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)  # a local cluster of this test's own
    try:
        remote = _run(os.path.join(str(tmp_path), "b"), "--variant", "s=subenlong=on", "--no-skill", "--engine", "ray",
                      hands=12)
    finally:
        ray.shutdown()
    assert remote == local


# ------------------------------------------------------------------ the schema, hostile text, bad arguments

def test_the_committed_schema_is_current() -> None:
    with open(os.path.join(ROOT, "schemas", "impact.schema.json"), encoding="utf-8") as f:
        assert f.read() == render_schema(), "run: python -m tjmj_dsl.impact.schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_an_overlay_variant_is_checked_and_its_text_shown_inertly(tmp_path: object) -> None:
    house = os.path.join(str(tmp_path), "house.yaml")
    with open(house, "w", encoding="utf-8") as f:
        f.write('extends: builtin:tianjin\nset:\n  patterns.tiliu.name: "<script>x()</script> | *b* \\u202e"\n')
    out = _run(os.path.join(str(tmp_path), "r"), "--base", house, "--no-skill", hands=3)
    html, md = out["report.html"].decode(), out["report.md"].decode()
    assert "<script>x()" not in html and "&lt;script&gt;x()" in html
    assert "\u202e" not in html and "\u202e" not in md
    assert "\\<script\\>x()\\</script\\> \\| \\*b\\*" in md
    rep = json.loads(out["report.json"])
    assert rep["arms"][0]["rules"]["files"] == ["builtin:tianjin", "house.yaml"]
    with open(house, "w", encoding="utf-8") as f:
        f.write("extends: builtin:tianjin\nset:\n  patterns.nosuch.value: 3\n")
    assert main(["impact", "--variant", f"h={house}", "--hands", "2", "--out", str(tmp_path)]) == 1


def test_a_report_names_its_overlay_files_the_same_wherever_they_lie(tmp_path: object,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The same overlay (a house file extending a base beside it, which extends the built-in rules) run from
    two folders gives the same report bytes: the files named as they name one another, not by the folders
    they lie in (they were named relative to the common folder of the checkout and the overlay)."""
    reports = []
    for where in ("a/deep/club", "b"):
        d = os.path.join(str(tmp_path), where)
        os.makedirs(os.path.join(d, "base"))
        with open(os.path.join(d, "base", "town.yaml"), "w", encoding="utf-8") as f:
            f.write("extends: builtin:tianjin\nset:\n  patterns.long.value: 5\n")
        with open(os.path.join(d, "house.yaml"), "w", encoding="utf-8") as f:
            f.write("extends: base/town.yaml\nset:\n  patterns.tiliu.value: 2\n")
        monkeypatch.chdir(d)
        reports.append(_run("r", "--variant", "h=house.yaml", "--no-skill", hands=2))
    assert reports[0] == reports[1]
    rep = json.loads(reports[0]["report.json"])
    assert rep["arms"][0]["rules"]["files"] == ["tianjin.yaml"]  # the built-in file read itself
    assert rep["arms"][1]["rules"]["files"] == ["builtin:tianjin", "base/town.yaml", "house.yaml"]


def test_a_file_named_as_a_profile_is_not_read_silently(tmp_path: object, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """`--variant v=seed-000-fan` names a profile of the rules; a file of that name in the working folder was
    read as an overlay instead, without a word. Both there: refused, saying how to name each; ./NAME is the file."""
    monkeypatch.chdir(str(tmp_path))
    with open("seed-000-fan", "w", encoding="utf-8") as f:
        f.write("extends: builtin:tianjin\n")
    assert main(["impact", "--variant", "v=seed-000-fan", "--hands", "2", "--no-skill", "--out", "a"]) == 2  # usage
    err = capsys.readouterr().err
    assert "'seed-000-fan' is a profile of the rules and a file here: write ./seed-000-fan" in err
    assert main(["impact", "--variant", "v=./seed-000-fan", "--hands", "2", "--no-skill", "--out", "b"]) == 0
    with open(os.path.join("b", "report.json"), encoding="utf-8") as f:
        arm = json.load(f)["arms"][1]
    assert arm["rules"]["files"][-1].endswith("seed-000-fan") and arm["rules"]["profile"] != "seed-000-fan"
    os.remove("seed-000-fan")
    assert main(["impact", "--variant", "v=seed-000-fan", "--hands", "2", "--no-skill", "--out", "c"]) == 0
    with open(os.path.join("c", "report.json"), encoding="utf-8") as f:
        assert json.load(f)["arms"][1]["rules"]["profile"] == "seed-000-fan"


def test_a_backtick_in_the_command_cannot_end_its_code_span(tmp_path: object) -> None:
    """The seed and an overlay's file name reach report.md's code spans: a backtick in them must not
    end the span and leave what follows (an <img onerror>) to a Markdown renderer as raw HTML."""
    from markdown_it import MarkdownIt
    house = os.path.join(str(tmp_path), "h`<i>x`.yaml")  # no "=", "," nor "/": a path to a file
    with open(house, "w", encoding="utf-8") as f:
        f.write("extends: builtin:tianjin\n")
    seed = "``<img src=x onerror=alert(1)>` "
    assert main(["impact", f"--seed={seed}", "--base", house, "--hands", "2", "--no-skill",
                 "--out", os.path.join(str(tmp_path), "r")]) == 0
    with open(os.path.join(str(tmp_path), "r", "report.md"), encoding="utf-8") as f:
        md = f.read()
    page = MarkdownIt("commonmark").render(md)
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<i>" not in page and "h`&lt;i&gt;x`.yaml" in page
    codes = re.findall(r"<code>(.*?)</code>", page)
    assert any(seed.replace("<", "&lt;").replace(">", "&gt;") in c for c in codes)  # the seed whole, in one span


@pytest.mark.parametrize("argv,message", [
    (["--players", "value,value,value"], "--players wants 4"),
    (["--variant", "nameonly"], "--variant wants NAME=PROFILE_OR_OPTIONS"),
    (["--variant", "a b=jin_gang=8"], "a variant's NAME"),
    (["--hands", "1"], "argument --hands: takes a whole number from 2"),
    (["--jobs", "0"], "argument --jobs: takes a whole number from 1"),
    (["--address", "127.0.0.1:1"], "--address is for --engine ray"),
    (["--variant", "x=nosuch_profile,also_this"], "one profile or overlay file at most"),
    (["rules/tianjin.yaml", "--rules", "other.yaml"], "two rule files"),
    (["--variant", "a=,"], "--variant a: names no profile, overlay file or option"),
    (["--out", ""], "argument --out: names no folder"),
    (["--seed", ""], "argument --seed: takes at least one character"),
])
def test_bad_arguments_are_refused(argv: list[str], message: str, tmp_path: object,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(["impact", "--out", str(tmp_path), *argv])
    except SystemExit as e:  # argparse's usage error (the counts' types, tjmj_dsl/cli_args.py)
        code = e.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_a_bad_option_is_said_before_any_hand(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["impact", "--variant", "x=jin_gang=9", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "jin_gang" in err and "Traceback" not in err
    assert not os.path.exists(os.path.join(str(tmp_path), "chunks"))
    assert math.isfinite(stats.t_quantile(0.5 + 0.95 / 2, 3))


@pytest.mark.parametrize("seed", ["--5", "\u00b2", "\u0663"])
def test_a_seed_is_read_as_simulate_reads_it(seed: str, tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    """A seed that is not ASCII digits is text (as `tjmj simulate` reads it), not a traceback ("--5",
    "\u00b2": int() refuses them) nor another number ("\u0663", an Arabic-Indic 3, is not seed 3)."""
    assert main(["impact", f"--seed={seed}", "--hands", "2", "--no-skill", "--json", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    assert json.loads(out.out)["seed"] == seed


def test_help_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["impact", "--help"])
    assert e.value.code == 0 and "--variant NAME=PROFILE_OR_OPTIONS" in capsys.readouterr().out


def test_simulate_on_ray_gives_the_hands_of_one_job(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    """`tjmj simulate --engine ray`: the same summary and the same record file as --jobs 1."""
    ray = pytest.importorskip("ray", reason='Ray is not installed (pip install "tjmj[cluster]")')
    outs = []
    for engine in ("local", "ray"):
        rec = os.path.join(str(tmp_path), f"{engine}.jsonl")
        if engine == "ray":
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            assert main(["simulate", "--hands", "30", "--seed", "5", "--json", "--record", rec, "--engine", engine]) == 0
        finally:
            if engine == "ray":
                ray.shutdown()
        stats_ = json.loads(capsys.readouterr().out)["stats"]
        with open(rec, "rb") as f:
            outs.append((stats_, f.read()))
    assert outs[0] == outs[1] and outs[0][1].count(b"\n") == 30
    assert main(["simulate", "--engine", "ray", "--rotate"]) == 2


def test_an_unwritable_out_is_said_without_a_traceback(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = os.path.join(str(tmp_path), "file")
    with open(blocker, "w") as f:
        f.write("x")
    assert main(["impact", "--hands", "2", "--no-skill", "--out", os.path.join(blocker, "sub")]) == 1
    err = capsys.readouterr().err
    assert "tjmj: error:" in err and "Traceback" not in err


def _sigterm_handler(_: int) -> str:
    import signal
    return repr(signal.getsignal(signal.SIGTERM))


def test_pool_workers_end_at_terminate_whatever_the_command_does_with_sigterm() -> None:
    # a run's pool (simulate's and impact's: game.simulate.worker_pool) forked from a command that answers
    # SIGTERM by raising (interrupt.install, as `tjmj` does): a worker waiting for a task ran that handler
    # only when the wait ended, so terminate() waited for it for ever (an impact run of the suite hung so)
    import signal
    import threading
    from tjmj_dsl import interrupt
    from tjmj_dsl.game.simulate import worker_pool
    restore = interrupt.install()
    try:
        pool = worker_pool(2)
        try:
            assert set(pool.map(_sigterm_handler, range(4))) == {repr(signal.SIG_DFL)}
        finally:
            ender = threading.Thread(target=pool.terminate, daemon=True)
            ender.start()
            ender.join(30)
            assert not ender.is_alive()
    finally:
        restore()


def test_players_spelt_with_spaces_give_the_same_report(tmp_path: object) -> None:
    # an audit's finding: the report's command kept the spaces, so two spellings of one study differed in bytes
    one = _run(os.path.join(str(tmp_path), "a"), "--no-skill", "--players", "value,random,value,random", hands=2)
    two = _run(os.path.join(str(tmp_path), "b"), "--no-skill", "--players", "value, random ,value,random", hands=2)
    assert one == two
