"""Command-line runs end cleanly and lose nothing (issue 34, item 4): SIGTERM and SIGHUP end a run
as Ctrl-C does (one line, 128 + the signal's number, no worker's traceback, whole record lines);
`simulate --resume` goes on with a stopped run and writes the file an unstopped run writes;
`--record` never writes over an existing file unasked, nor ever over one of the run's inputs;
and every count and path argument of every command is refused as a usage error."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

from conftest import run
from gamekit import rules as game_rules_of
from tjmj_dsl.cli import build_parser
from tjmj_dsl.engine.runtime import dumps_answer
from tjmj_dsl.game.facts import GameFacts
from tjmj_dsl.game.runfile import read_kept, summary_of
from tjmj_dsl.game.runstats import RunStats
from tjmj_dsl.game.simulate import Spec, hand_summary, run as simulate_run, summarize

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = os.path.join(ROOT, "rules", "tianjin.yaml")
posix = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and process groups")

# a stateful bot (its answers depend on how many asks it has seen): a resumed run must start its
# bot where the unstopped run's was started, at a chunk's first hand
BOT = r"""
import json, sys
n = 0
for line in sys.stdin:
    n += 1
    ask = json.loads(line)
    print(json.dumps({"choice": (n * 5) % len(ask["menu"])}), flush=True)
"""


def tjmj(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600, **kw)


# a run's arguments, without --record; plain is long enough that a signal sent after its 30th hand lands
# before its end on a loaded machine too (at 400 hands, once a hand got cheaper, it sometimes did not)
RUNS = {
    "plain": ["--hands", "1200", "--seed", "5", "--players", "value,random,value,random"],
    "rotate": ["--hands", "300", "--seed", "x7", "--rotate", "--option", "tianting=on"],
    "bot": ["--hands", "120", "--seed", "2"],  # + --bot, added where the bot's file is known
}


@pytest.fixture(scope="module")
def clean(tmp_path_factory: Any) -> dict[str, tuple[list[str], bytes, dict[str, Any]]]:
    """Each run, unstopped: its arguments, its record file and its statistics."""
    d = tmp_path_factory.mktemp("clean")
    bot = d / "bot.py"
    bot.write_text(BOT, encoding="utf-8")
    out = {}
    for name, args in RUNS.items():
        args = args + (["--bot", f"1={sys.executable} {bot}"] if name == "bot" else [])
        rec = d / f"{name}.jsonl"
        res = tjmj("simulate", *args, "--jobs", "2", "--record", str(rec), "--json")
        assert res.returncode == 0, res.stderr
        out[name] = (args, rec.read_bytes(), json.loads(res.stdout)["stats"])
    return out


def _lines_in(path: Any) -> int:
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


@posix
@pytest.mark.parametrize("name, sig, jobs, group", [
    ("plain", signal.SIGTERM, "2", True), ("plain", signal.SIGHUP, "2", True), ("plain", signal.SIGINT, "2", True),
    ("plain", signal.SIGTERM, "1", False), ("rotate", signal.SIGHUP, "1", False), ("bot", signal.SIGTERM, "2", True),
    ("bot", signal.SIGHUP, "1", False),
])
def test_a_signal_ends_a_run_cleanly_and_resume_completes_it(tmp_path: Any, clean: Any, name: str, sig: int,
                                                             jobs: str, group: bool) -> None:
    args, whole, stats = clean[name]
    rec = tmp_path / "hands.jsonl"
    # a group of its own, as a terminal's job (`group`: the signal to all of it, workers too, as a
    # terminal sends it; else to the main process alone, as `kill PID` does); every signal's default back
    p = subprocess.Popen([sys.executable, "-m", "tjmj_dsl.cli", "simulate", *args, "--jobs", jobs, "--record", str(rec)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, start_new_session=True,
                         preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGHUP)])
    deadline = time.monotonic() + 300
    while _lines_in(rec) < 30 and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert p.poll() is None, "the run ended before it could be stopped"
    (os.killpg if group else os.kill)(p.pid, sig)
    _, err = p.communicate(timeout=120)
    text = err.decode()
    assert p.returncode == 128 + sig, text[-2000:]
    assert "Traceback" not in text and "Error" not in text, text[-3000:]
    words = "interrupted" if sig == signal.SIGINT else f"interrupted ({signal.Signals(sig).name})"
    said = [line for line in text.splitlines() if line.startswith("tjmj: ")]
    assert len(said) == 1 and said[0].startswith(f"tjmj: {words}: {rec} holds hands 0-"), text[-2000:]
    got = rec.read_bytes()
    n = got.count(b"\n")
    assert got.endswith(b"\n") and whole.startswith(got) and 0 < n < whole.count(b"\n")  # whole lines, the run's
    assert f"holds hands 0-{n - 1} ({n})" in said[0]
    again = tjmj("simulate", *args, "--jobs", jobs, "--resume", str(rec), "--json")
    assert again.returncode == 0, again.stderr
    assert rec.read_bytes() == whole  # the file an unstopped run writes
    assert json.loads(again.stdout)["stats"] == stats


@pytest.mark.parametrize("name", ["plain", "rotate", "bot"])
def test_resume_drops_a_cut_last_line_and_writes_the_unstopped_file(tmp_path: Any, clean: Any, name: str) -> None:
    """A run killed outright may leave its last line cut: at any byte, --resume drops it and goes on,
    in place or into another file (the resumed-from file then left as it was)."""
    args, whole, stats = clean[name]
    cuts = [len(whole) // 7, len(whole) // 3 + 1, whole.index(b"\n") + 1, len(whole) - 5, 0]
    for i, cut in enumerate(cuts):
        part = tmp_path / f"part{i}.jsonl"
        part.write_bytes(whole[:cut])
        into = tmp_path / f"into{i}.jsonl"
        res = tjmj("simulate", *args, "--resume", str(part), *(["--record", str(into)] if i % 2 else []), "--json")
        assert res.returncode == 0, res.stderr
        assert (into if i % 2 else part).read_bytes() == whole, (name, cut)
        if i % 2:
            assert part.read_bytes() == whole[:cut]
        assert json.loads(res.stdout)["stats"] == stats


def _edit(whole: bytes, line: int, change: Any) -> bytes:
    lines = whole.split(b"\n")
    rec = json.loads(lines[line])
    change(rec)
    lines[line] = dumps_answer(rec).encode("utf-8")
    return b"\n".join(lines)


def test_resume_refuses_a_file_that_is_not_this_runs(tmp_path: Any, clean: Any) -> None:
    """Every way a file can be another run's (another seed, option, profile, players, deal, format,
    a hand missing or changed, junk) is refused as a usage error, and the file is left as it was."""
    args, whole, _ = clean["plain"]
    first = b"\n".join(whole.split(b"\n")[:40]) + b"\n"
    cases = [
        (first, ["--seed", "6"], "seed 5, not 6"),
        (first, ["--seed", "05x"], "seed 5, not '05x'"),
        (first, ["--option", "min_fan=3"], "its rules differ (sha256, options)"[:16]),
        (first, ["--profile", "seed-000-coins"], "its rules differ"),
        (first, ["--players", "value,value,value,value"], "players"),
        (first, ["--rotate"], "not by rotation"),
        (first, ["--hands", "39"], "holds more than --hands 39 hands"),
        (_edit(first, 0, lambda r: r.update(format="tjmj-record/0")), [], "format"),
        (_edit(first, 3, lambda r: r.update(hand=4)), [], "line 4 is not hand 3"),
        (_edit(first, 39, lambda r: r["result"].update(balances=[0, 0, 0, 0])), [], "hand 39 as recorded is not"),
        (first.replace(b"\n", b"\nxx\n", 1), [], "line 2 is not a record"),
        (b"\xff\xfe\n" + first, [], "line 1 is not UTF-8"),
        (b"[]\n" + first, [], "line 1 is not a record"),
    ]
    for i, (data, extra, says) in enumerate(cases):
        f = tmp_path / f"r{i}.jsonl"
        f.write_bytes(data)
        a = list(args)
        for k in range(0, len(extra), 2):  # an argument given again replaces the run's
            if extra[k] in a and extra[k] != "--option":
                a[a.index(extra[k]) + 1] = extra[k + 1]
            else:
                a += extra[k:k + 2] if extra[k] != "--rotate" else extra[k:k + 1]
        if extra == ["--rotate"]:
            a = args + ["--rotate"]
        code, out, err = run(["simulate", *a, "--resume", str(f)])
        assert code == 2 and says in err and "Traceback" not in err, (i, extra, err)
        assert f.read_bytes() == data, "a refused resume changed the file"


def test_record_never_writes_over_a_file_unasked_nor_over_an_input(tmp_path: Any) -> None:
    kept = tmp_path / "kept.jsonl"
    kept.write_text("a person's notes\n", encoding="utf-8")
    code, _, err = run(["simulate", "--hands", "2", "--record", str(kept)])
    assert code == 2 and "exists: --force writes over it" in err
    assert kept.read_text(encoding="utf-8") == "a person's notes\n"
    code, _, err = run(["simulate", "--hands", "2", "--record", str(kept), "--force"])
    assert code == 0 and kept.read_text(encoding="utf-8").count("\n") == 2, err
    # the run's inputs, whatever the name that reaches them, --force or not
    overlay = tmp_path / "club.yaml"
    base = tmp_path / "base.yaml"
    shutil.copy(RULES, base)
    overlay.write_text(f"extends: {base}\nname: club\n", encoding="utf-8")
    botdir = tmp_path / "bots"
    botdir.mkdir()
    bot = botdir / "bot.py"
    bot.write_text(BOT, encoding="utf-8")
    weights = botdir / "weights.bin"
    weights.write_bytes(b"\x00" * 16)
    prog = botdir / "mybot"
    prog.write_text(f"#!/bin/sh\nexec {sys.executable} {bot}\n", encoding="utf-8")
    prog.chmod(0o755)
    link = tmp_path / "link.yaml"
    link.symlink_to(base)
    hard = tmp_path / "hard.py"
    os.link(bot, hard)
    resumed = tmp_path / "done.jsonl"
    assert run(["simulate", "--hands", "3", "--record", str(resumed)])[0] == 0
    cases = [
        (["--rules", str(overlay)], str(overlay), "the rule file"),
        (["--rules", str(overlay)], str(base), "the rule file"),  # the file it extends
        (["--rules", str(overlay)], str(link), "the rule file"),  # a symlink to it
        ([], RULES, "the rule file"),  # the built-in rules
        (["--bot", f"1={sys.executable} {bot}"], str(hard), "the bot's file"),  # a hard link to the bot
        (["--bot", f"1={sys.executable} {botdir}/../bots/bot.py"], str(bot), "the bot's file"),
        (["--bot", f"2={prog} --model={weights}"], str(weights), "the bot's file"),
        (["--bot", f"2={prog}"], str(prog), "the bot program"),
        (["--resume", str(resumed), "--record"], str(tmp_path / ".." / tmp_path.name / "done.jsonl"), ""),
    ]
    for extra, target, says in cases:
        if extra[-1:] == ["--record"]:  # --resume X --record X: X goes on in place (its own continuation)
            continue
        before = open(target, "rb").read()
        for force in ([], ["--force"]):
            code, _, err = run(["simulate", "--hands", "2", *extra, "--record", target, *force])
            assert code == 2 and "a run never writes over its own input" in err and says in err, (extra, target, err)
            assert open(target, "rb").read() == before
    # a device holds nothing to write over
    if os.path.exists("/dev/null"):
        assert run(["simulate", "--hands", "2", "--record", "/dev/null"])[0] == 0


def test_the_record_file_is_made_exclusively(tmp_path: Any) -> None:
    """A file made between the check and the open is not written over (O_EXCL)."""
    from tjmj_dsl.game.runfile import RecordWriter, RunFileError
    target = tmp_path / "late.jsonl"
    target.write_text("made meanwhile\n", encoding="utf-8")
    with pytest.raises(RunFileError, match="exists"):
        RecordWriter.open(str(target), force=False)
    assert target.read_text(encoding="utf-8") == "made meanwhile\n"


def test_a_hands_summary_from_its_record_is_the_runs() -> None:
    """--resume summarizes the kept hands from their records: the same summaries the run made."""
    gr = game_rules_of()
    for seed, players in (("s", ("value", "random", "value", "random")), (11, ("random",) * 4)):
        spec = Spec(None, None, (), players, seed, True)
        for i in range(40):
            summ, line = hand_summary(gr, spec, i)
            assert line is not None and summary_of(json.loads(line)) == summ, (seed, i)


def test_a_runs_statistics_are_counted_as_its_hands_come_and_no_summary_is_kept() -> None:
    """simulate's memory does not grow with its hands: each summary is folded into running counts
    and let go; the statistics are those of the whole list, counted here another way."""
    gr = game_rules_of()
    spec = Spec(None, None, (), ("value", "random", "value", "random"), "st", False, rotate=True)
    kept, _ = simulate_run(spec, 60)
    counts = RunStats()
    got, _ = simulate_run(spec, 60, stats=counts)
    assert got == [] and counts.hands == 60
    st = summarize(spec, counts, gr)
    assert st == summarize(spec, kept, gr)
    wins = [s for s in kept if s["winner"] is not None]
    assert 0 < len(wins) < 60  # both kinds of hand counted
    assert (st["wins"], st["drawn"]) == (len(wins), 60 - len(wins))
    assert st["balance"] == [sum(s["balances"][i] for s in kept) for i in range(4)]
    assert st["dealer_kept"] == sum(1 for i in range(1, 60) if kept[i]["dealer"] == kept[i - 1]["dealer"]) > 0
    assert st["seat_wins"] == [sum(1 for s in wins if s["winner"] == i) for i in range(4)]
    assert {p: v["wins"] for p, v in st["patterns"].items()} == {
        p: sum(p in s["patterns"] for s in wins) for s in wins for p in s["patterns"]}


def test_resume_keeps_of_a_file_its_counts_and_the_game_not_its_summaries(tmp_path: Any) -> None:
    """--resume reads a stopped run's file hand by hand: the kept hands' counts, the game after them and
    before the last (--rotate plays the last again from it), and the last one's dealer by the rotation;
    with bots, the hands of the last chunk begun are not kept."""
    gr = game_rules_of()
    players = ["value", "random", "value", "random"]
    spec = Spec(None, None, (), tuple(players), 4, True, rotate=True)
    lines: list[str] = []
    simulate_run(spec, 60, out=type("Out", (), {"write": lambda self, x: lines.append(x)})())
    recs = [json.loads(x) for x in lines]
    path = tmp_path / "run.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    for chunk, k in ((None, 60), (25, 50)):
        kept = read_kept(str(path), gr, 4, players, True, 100, chunk)
        assert kept.hands == kept.stats.hands == k
        game = GameFacts()
        for rec in recs[:k - 1]:
            game = game.after_record(rec)
        assert kept.game_before_last == game and kept.game == game.after_record(recs[k - 1])
        assert kept.last_dealt == recs[k - 1]["dealer"] and kept.dealer == recs[k - 1]["result"]["next_dealer"]
        assert summarize(spec, kept.stats, gr) == summarize(spec, [summary_of(r) for r in recs[:k]], gr)
        assert not hasattr(kept, "summaries")


# every count and path argument of every command (serve's own are serve's), with values each must refuse
INTS = ["-1", "x", "1.5", "", " 3", "1e3", "0x10", "1_0", "٣", "²", "nan", "9" * 30, "+-1"]
SECONDS = ["0", "-1", "nan", "inf", "-inf", "1e400", "x", "", "3601", "1e3", "0x1"]


def _paths(tmp: Any) -> list[str]:
    return [str(tmp), str(tmp / "missing.yaml"), "", str(tmp / "no" / "such" / "dir" / "f.jsonl")]


ARGS = [  # (command line before the argument, the argument, kind, what each bad value must not be)
    (["simulate", "--hands", "1"], "--hands", "int", None),
    (["simulate", "--hands", "1"], "--jobs", "int", None),
    (["simulate", "--hands", "1"], "--bot-timeout", "seconds", None),
    (["simulate", "--hands", "1"], "--seed", "seed", None),
    (["simulate", "--hands", "1"], "--rules", "input", None),
    (["simulate", "--hands", "1"], "--resume", "input", None),
    (["simulate", "--hands", "1"], "--record", "output", None),
    (["replay"], "FILE", "input", None),
    (["replay", "-"], "--hand", "int", None),
    (["replay", "-"], "--rules", "input", None),
    (["score", "123m456m789m11p22p3p +3p", "-i", "1s"], "--rules", "input", None),
    (["waits", "123m456m789m11p22p3p", "-i", "1s"], "--rules", "input", None),
    (["explain", "123m456m789m11p22p3p +3p", "-i", "1s"], "--rules", "input", None),
    (["check"], "RULES", "input", None),
    (["check"], "--rules", "input", None),
    (["variants"], "--rules", "input", None),
    (["compile", "--check"], "--rules", "input", None),
    (["compile", "--check"], "--out", "dir", None),
    (["docs"], "--out", "dir", None),
    (["docs"], "RULES", "input", None),
    (["init", "club"], "--from", "input", None),
    (["init", "club"], "--dir", "dir", None),
]


def _bad_values(kind: str, tmp: Any) -> list[str]:
    afile = tmp / "afile"
    afile.write_text("", encoding="utf-8")
    return {"int": INTS, "seconds": SECONDS, "seed": ["9" * 101, "a\nb", "\x1b[2J", "x\x00"],
            "input": _paths(tmp) + (["/dev/null"] if os.path.exists("/dev/null") else []),
            "output": [str(tmp), "", str(tmp / "no" / "such" / "dir" / "f.jsonl")],
            "dir": [str(afile)]}[kind]


@pytest.mark.parametrize("before, arg, kind, _", ARGS, ids=[f"{a[0][0]} {a[1]}" for a in ARGS])
def test_every_count_and_path_argument_is_a_usage_error(tmp_path: Any, before: list[str], arg: str, kind: str, _: Any) -> None:
    for bad in _bad_values(kind, tmp_path):
        if kind == "output" and bad == "":
            continue  # an empty --record names no record (as before): the run writes none
        argv = [*before, bad] if arg.isupper() else [*before, arg, bad]
        if arg == "--hands" and bad == "1":
            continue
        code, out, err = run(argv)
        assert code == 2, (argv, code, err)
        assert out == "" and "Traceback" not in err, (argv, err)
        said = [line for line in err.splitlines() if "error:" in line]
        assert len(said) == 1, (argv, err)


def test_good_values_pass(tmp_path: Any) -> None:
    """The types refuse only what they should: the limits themselves, and seeds as before."""
    for argv in (["simulate", "--hands", "0"], ["simulate", "--hands", "0", "--jobs", "64"],
                 ["simulate", "--hands", "0", "--bot-timeout", "3600"], ["simulate", "--hands", "0", "--bot-timeout", ".5"],
                 ["simulate", "--hands", "0", "--seed", "-3"], ["simulate", "--hands", "0", "--seed", "天津" * 50]):
        code, _, err = run(argv)
        assert code == 0, (argv, err)
    ns = build_parser().parse_args(["simulate", "--seed", "007", "--hands", "1000000"])
    assert ns.hands == 1_000_000 and ns.seed == "007"
    from tjmj_dsl.cli_args import seed_of
    assert seed_of("007") == 7 and seed_of("-3") == -3 and seed_of("٣") == "٣" and seed_of("x7") == "x7"


def test_max_rooms_is_a_bounded_count(capsys: Any) -> None:
    """`serve --max-rooms` 0 or less would refuse every room (429) without a word: a usage error instead."""
    parser = build_parser()
    for bad in ("0", "-1", "x", "1.5", "100001"):
        with pytest.raises(SystemExit) as e:
            parser.parse_args(["serve", "--tables", "--max-rooms", bad])
        assert e.value.code == 2, bad
        assert "--max-rooms" in capsys.readouterr().err, bad
    for good in ("1", "100000"):
        assert parser.parse_args(["serve", "--tables", "--max-rooms", good]).max_rooms == int(good)


def test_every_numeric_argument_has_a_type() -> None:
    """No count or path argument of these commands is left to argparse's plain int/float or to no type."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and "simulate" in a.choices).choices  # type: ignore[union-attr]
    covered = {(b[0], a) for b, a, _, _ in ARGS}
    for (cmd, arg) in itertools.chain(covered):
        sp = sub[cmd]
        act = next(a for a in sp._actions if arg in a.option_strings or (arg.isupper() and a.dest in ("file", "rules")))
        assert act.type not in (None, int, float), (cmd, arg)
    for cmd, sp in sub.items():  # serve's too: its counts are the guard's types (guard/limits.py) and --max-rooms
        for a in sp._actions:
            assert a.type not in (int, float), (cmd, a.option_strings)


@posix
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_a_jsonl_batch_as_ctrl_c_does(sig: int) -> None:
    """Not simulate alone: `tjmj score --jsonl` waiting for its input ends on SIGTERM or SIGHUP with
    128 + the signal and one line, having answered what it was given."""
    p = subprocess.Popen([sys.executable, "-m", "tjmj_dsl.cli", "score", "--jsonl"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                         preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(b'{"id": 1, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}\n')
    p.stdin.flush()
    first = p.stdout.readline()  # answered: the batch is waiting for the next line
    assert json.loads(first)["id"] == 1
    p.send_signal(sig)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 128 + sig
    assert err.decode().splitlines() == [f"tjmj: interrupted ({signal.Signals(sig).name})"]


@posix
def test_a_line_written_as_a_signal_comes_is_counted(tmp_path: Any, monkeypatch: Any) -> None:
    """A run stopped under load said it held fewer hands than its file did (the suite caught it once, a file of
    43 lines): the signal held while a line was written was raised as the write's section ended, before the
    line was counted. The line is counted inside the section."""
    from tjmj_dsl import interrupt
    from tjmj_dsl.game import runfile
    restore = interrupt.install()
    try:
        w = runfile.RecordWriter.open(str(tmp_path / "r.jsonl"), False)
        real = os.write

        def write_then_signal(fd: int, data: Any) -> int:
            n = real(fd, data)
            os.kill(os.getpid(), signal.SIGTERM)  # arrives while the section holds signals
            return n

        w.write("{}\n")
        monkeypatch.setattr(runfile.os, "write", write_then_signal)
        with pytest.raises(interrupt.Interrupted):
            w.write("{}\n")
        w.close()
    finally:
        restore()
    assert w.lines == 2 and (tmp_path / "r.jsonl").read_bytes() == b"{}\n{}\n"
