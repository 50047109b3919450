"""A seat played by a program in another process (the bot protocol, tjmj-bot/1): the README's bot
plays through `tjmj simulate --bot`, in Python and in JavaScript; every ask holds to its schema and
shows the seat only what it may see; a bot that breaks the protocol stops the game with a message
naming the seat and the ask, and is not left running."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import jsonschema
import pytest

from gamekit import rules as game_rules_of
from tjmj_dsl.game.bot import BotError, BotProcess, ProcessPlayer
from tjmj_dsl.game.players import ValuePlayer
from tjmj_dsl.game.session import play
from tjmj_dsl.game.simulate import end_pool
from tjmj_dsl.game.table import PASS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NODE = shutil.which("node") or shutil.which("nodejs")
from docs_text import docs_text

README = docs_text()  # the README and the site's pages
with open(os.path.join(ROOT, "schemas", "bot-ask.schema.json"), encoding="utf-8") as _f:
    ASK = jsonschema.Draft202012Validator(json.load(_f))
with open(os.path.join(ROOT, "schemas", "bot-reply.schema.json"), encoding="utf-8") as _f:
    REPLY = jsonschema.Draft202012Validator(json.load(_f))


def readme_bot() -> str:
    """The README's bot (the ```py block of the bot protocol's section)."""
    blocks = [b for b in re.findall(r"```py\n(.*?)```", README, re.S) if "tjmj-bot/1" in b or '"choice"' in b]
    assert len(blocks) == 1, "the README shows one bot"
    return blocks[0]


def simulate(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", "simulate", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


SPY = r'''
import json, sys
log = open(sys.argv[1], "a", encoding="utf-8")
for line in sys.stdin:
    log.write(line)
    log.flush()
    ask = json.loads(line)
    menu = ask["menu"]
    pick = next((i for i, a in enumerate(menu) if isinstance(a, dict) and a["type"] == "win"), len(menu) - 1)
    print(json.dumps({"choice": pick}), flush=True)
'''


def test_the_readme_bot_plays_a_seat(tmp_path: Any) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text(readme_bot(), encoding="utf-8")
    rec = tmp_path / "hands.jsonl"
    cmd = f"2={sys.executable} {bot}"
    one = simulate("--hands", "30", "--seed", "11", "--bot", cmd, "--json", "--record", str(rec))
    assert one.returncode == 0, one.stderr
    stats = json.loads(one.stdout)["stats"]
    assert stats["players"] == ["value", "value", "bot", "value"]
    assert stats["hands"] == 30 and sum(stats["balance"]) == 0
    # the same game with two workers (each its own bot process), and every hand replays
    two = simulate("--hands", "30", "--seed", "11", "--bot", cmd, "--json", "--jobs", "2")
    assert two.returncode == 0, two.stderr
    assert json.loads(two.stdout)["stats"] == stats
    rep = subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", "replay", str(rec)], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert rep.returncode == 0 and "30 OK, 0 differ" in rep.stdout, rep.stdout + rep.stderr
    assert all(json.loads(line)["players"][2] == "bot" for line in rec.read_text(encoding="utf-8").splitlines())


def rec_of(records: dict[int, Any], view: dict[str, Any]) -> dict[str, Any]:
    return records[view["hand"]]


def test_every_ask_holds_to_its_schema_and_shows_only_the_seat(tmp_path: Any) -> None:
    spy, log = tmp_path / "spy.py", tmp_path / "asks.jsonl"
    spy.write_text(SPY, encoding="utf-8")
    res = simulate("--hands", "40", "--seed", "5", "--bot", f"1={sys.executable} {spy} {log}", "--record",
                   str(tmp_path / "r.jsonl"), "--option", "tianting=on")
    assert res.returncode == 0, res.stderr
    asks = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    records = {r["hand"]: r for r in map(json.loads, (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines())}
    kinds = {a["ask"] for a in asks}
    assert {"act", "claim", "lazhuang"} <= kinds, kinds
    # asks counted from 1 by each bot process, one process per chunk of 25 hands
    for chunk in range(2):
        seqs = [a["seq"] for a in asks if a["view"]["hand"] // 25 == chunk]
        assert seqs == list(range(1, len(seqs) + 1))
    for a in asks:
        errors = list(ASK.iter_errors(a))
        assert not errors, (errors[0].message, a)
        v = a["view"]
        assert v["seat"] == 1 and v["hand"] in records and v["dealer"] == records[v["hand"]]["dealer"]
        held = len(v["tiles"]) + 3 * len(v["melds"][1])
        if a["ask"] == "act":
            assert held == 14 and (v["drawn"] is None or v["drawn"] in v["tiles"]), v
        else:  # another seat's turn (its draw hidden), or the bets before the deal
            assert v["drawn"] is None, v
            assert held == (13 if a["ask"] in ("claim", "declare_ready") else 0), v
        # the bets come before the deal and the flip: no indicator, hun kinds or wall size yet
        before = a["ask"] in ("zuozhuang", "lazhuang")
        assert (v["indicator"] is None) == (v["hun_kinds"] is None) == (v["live_left"] is None) == before, v
        if not before:
            assert v["indicator"] == rec_of(records, v)["indicator"]
        if a["ask"] in ("act", "claim"):
            assert a["menu"] and all(m["type"] in ("discard", "win", "concealed_kong", "added_kong", "pong", "kong", "pass")
                                     for m in a["menu"])
        for s in range(4):  # another seat's concealed kong keeps its tile hidden
            for m in v["melds"][s]:
                assert (m["tile"] is None) == (s != 1 and m["type"] == "concealed_kong")
        # the events so far: the record's, another seat's draws and concealed kongs without their tile
        rec = records[v["hand"]]
        assert a["rules"] == rec["rules"]
        shown = [dict(e, tile=None) if e["seat"] != 1 and e["type"] in ("draw", "concealed_kong") else e
                 for e in rec["events"]]
        assert v["events"] == shown[:len(v["events"])], v["events"]
        if a["ask"] == "claim":
            assert v["events"][-1] == {"seat": v["last_discard"]["seat"], "type": "discard", "tile": v["last_discard"]["tile"]}
    assert any(e["type"] == "draw" and e["seat"] != 1 for a in asks for e in a["view"]["events"])
    for r in REPLY.iter_errors({"choice": 0}), REPLY.iter_errors({"choice": 2, "comment": "free text"}):
        assert not list(r)
    assert list(REPLY.iter_errors({"choice": -1})) and list(REPLY.iter_errors({"pick": 0}))


def test_a_seat_never_sees_another_seats_draw() -> None:
    """SeatView.drawn is the seat's own draw: asked about a discard, a player must not learn what the
    discarder drew (every Python player and every bot reads the view)."""
    seen: list[Any] = []

    class Watcher(ValuePlayer):
        def claim(self, view: Any, menu: Any) -> Any:
            seen.append(view.drawn)
            return PASS

    rules = game_rules_of()
    for hand in range(12):
        play(rules, 3, hand, [Watcher(), Watcher(), Watcher(), Watcher()])
    assert seen and all(d is None for d in seen), seen


def test_the_bets_come_before_the_flip() -> None:
    """Sitting and raising (zuozhuang, lazhuang) are decided before the deal, when the indicator is not
    flipped yet: a Python player's view shows no indicator, hun kinds or wall size then; after the deal it does."""
    bets: list[Any] = []
    turns: list[Any] = []

    class Watcher(ValuePlayer):
        def zuozhuang(self, view: Any) -> bool:
            bets.append((view.indicator, view.hun_kinds, view.live_left))
            return True

        def lazhuang(self, view: Any, most: int) -> int:
            bets.append((view.indicator, view.hun_kinds, view.live_left))
            return most

        def act(self, view: Any, menu: Any) -> Any:
            turns.append((view.indicator, view.hun_kinds, view.live_left))
            return super().act(view, menu)

    rules = game_rules_of()
    for hand in range(4):
        play(rules, 5, hand, [Watcher(), Watcher(), Watcher(), Watcher()])
    assert bets and all(b == (None, None, None) for b in bets), bets
    assert turns and all(i is not None and h and n is not None for i, h, n in turns)


@pytest.mark.skipif(NODE is None, reason="node is not installed (Debian package `nodejs`; tools/setup_test_deps.py installs it)")
def test_a_bot_in_javascript(tmp_path: Any) -> None:
    bot = tmp_path / "bot.mjs"
    bot.write_text('''
import { createInterface } from "node:readline";
createInterface({ input: process.stdin }).on("line", (line) => {
  const ask = JSON.parse(line);
  const win = ask.menu.findIndex((a) => a !== null && typeof a === "object" && a.type === "win");
  // win when offered; else the last choice (the last discard, a claim, yes, the most raises)
  process.stdout.write(JSON.stringify({ choice: win >= 0 ? win : ask.menu.length - 1 }) + "\\n");
});
''', encoding="utf-8")
    res = simulate("--hands", "20", "--seed", "2", "--bot", f"0={NODE} {bot}", "--bot", f"3={NODE} {bot}", "--json")
    assert res.returncode == 0, res.stderr
    stats = json.loads(res.stdout)["stats"]
    assert stats["players"] == ["bot", "value", "value", "bot"] and stats["hands"] == 20


BROKEN = r'''
import os, sys, time
open(sys.argv[2], "w").write(str(os.getpid()))
mode = sys.argv[1]
while mode == "ahead":  # answers without reading the asks
    sys.stdout.write('{"choice": 0}\n')
    sys.stdout.flush()
for line in sys.stdin:
    if mode == "notjson": print("pass", flush=True)
    elif mode == "range": print('{"choice": 7}', flush=True)
    elif mode == "bool": print('{"choice": true}', flush=True)
    elif mode == "float": print('{"choice": 0.0}', flush=True)
    elif mode == "shape": print('[0]', flush=True)
    elif mode == "exit": sys.exit(3)
    elif mode == "slow": time.sleep(60)
    elif mode == "long": print("0" * 70000, flush=True)
    elif mode == "deep": print("[" * 30000 + "]" * 30000, flush=True)
    elif mode == "seq": print('{"choice": 0, "seq": 99}', flush=True)
    elif mode == "formfeed": print('{"choice": 0}\x0c', flush=True)
    elif mode == "latin1": sys.stdout.buffer.write(b'{"choice": "\xe9"}\n'); sys.stdout.flush()
    elif mode == "unended": sys.stdout.write('{"choice": 0}'); sys.stdout.flush(); sys.exit(0)
'''


def test_a_bot_that_does_not_read_its_asks_is_stopped(tmp_path: Any) -> None:
    """A bot that writes answers without reading the asks fills neither side's memory: once its
    input's pipe is full an answer comes with no ask waiting for it, and the run stops."""
    bot, pidfile = tmp_path / "bot.py", tmp_path / "pid"
    bot.write_text(BROKEN, encoding="utf-8")
    res = simulate("--hands", "50", "--bot", f"1={sys.executable} {bot} ahead {pidfile}")
    assert res.returncode == 1 and "seat 1's bot, hand " in res.stderr, res.stderr
    assert "a line came while no ask was waiting for one" in res.stderr, res.stderr
    assert not _alive(int(pidfile.read_text()))


@pytest.mark.parametrize("mode, says", [
    ("notjson", "the answer is not JSON at column 1"),
    ("range", "choice 7 is not an index of the menu (0 to 2)"),
    ("bool", "choice true is not an index of the menu"),
    ("float", "choice 0.0 is not an index of the menu"),
    ("shape", 'expected {"choice": i}, got \'[0]\''),
    ("exit", "the bot has exited (status 3) without answering"),
    ("slow", "no answer within 0.5 s"),
    ("long", "an answer line longer than 65,536 bytes"),
    ("deep", "nested too deeply"),
    ("latin1", "the answer is not UTF-8 (byte 13)"),
    ("seq", "the answer names ask 99"),
    # the refused line is shown with what made it refused: a form feed (no JSON space) was stripped from it
    ("formfeed", "\\x0c'"),
    # an audit's finding: an answer cut by the bot's end was said to be longer than 65,536 bytes
    ("unended", "the bot's output ended mid-line (13 bytes, no line break), status 0"),
])
def test_a_bot_that_breaks_the_protocol_stops_the_game(tmp_path: Any, mode: str, says: str) -> None:
    bot, pidfile = tmp_path / "bot.py", tmp_path / "pid"
    bot.write_text(BROKEN, encoding="utf-8")
    t = time.monotonic()
    # a short timeout for the bot that is slow on purpose; the others get time to start on a busy machine
    res = simulate("--hands", "3", "--bot", f"0={sys.executable} {bot} {mode} {pidfile}",
                   "--bot-timeout", "0.5" if mode == "slow" else "60")
    assert res.returncode == 1
    assert "tjmj: error: seat 0's bot, hand 0, ask 1 (lazhuang): " in res.stderr and says in res.stderr, res.stderr
    assert "Traceback" not in res.stderr
    assert time.monotonic() - t < 30  # the slow bot is not waited for
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), f"the {mode} bot is still running"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("arg, says", [
    ("1=", "--bot wants SEAT=COMMAND"),
    ("4=python3 bot.py", "--bot wants SEAT=COMMAND"),
    ("python3 bot.py", "--bot wants SEAT=COMMAND"),
    ('1=python3 "bot.py', "No closing quotation"),
])
def test_bot_arguments_are_checked(arg: str, says: str) -> None:
    res = simulate("--hands", "1", "--bot", arg)
    assert res.returncode == 2 and says in res.stderr, res.stderr


def test_a_bot_that_cannot_start_and_a_seat_named_twice() -> None:
    res = simulate("--hands", "1", "--bot", "1=/nonexistent/tjmj-bot")
    assert res.returncode == 1 and "seat 1's bot: cannot start '/nonexistent/tjmj-bot'" in res.stderr, res.stderr
    res = simulate("--hands", "1", "--bot", "1=a", "--bot", "1=b")
    assert res.returncode == 2 and "names seat 1 twice" in res.stderr
    res = simulate("--hands", "1", "--bot", "1=a", "--bot-timeout", "0")
    assert res.returncode == 2 and "--bot-timeout" in res.stderr


def test_a_process_player_from_python(tmp_path: Any) -> None:
    """The engine from Python seats a bot process as any other player."""
    bot = tmp_path / "bot.py"
    bot.write_text(readme_bot(), encoding="utf-8")
    proc = BotProcess([sys.executable, str(bot)], "my bot", timeout=20)
    try:
        rules = game_rules_of()
        for hand in range(3):
            res = play(rules, "py", hand, [ProcessPlayer(proc, hand), ValuePlayer(), ValuePlayer(), ValuePlayer()])
            assert sum(res.settlement["balances"]) == 0
        assert proc.seq > 0
    finally:
        proc.close()
    with pytest.raises(BotError, match="my bot, ask 1 .*: the answer is not JSON"):
        bad = BotProcess([sys.executable, "-c", "import sys\nfor _ in sys.stdin: print('x', flush=True)"], "my bot")
        try:
            play(game_rules_of(), "py", 0, [ProcessPlayer(bad), ValuePlayer(), ValuePlayer(), ValuePlayer()])
        finally:
            bad.close()


STATEFUL = r"""
import json, os, sys, time
open(os.path.join(sys.argv[1], str(os.getpid())), "w").close()
n = 0
for line in sys.stdin:
    n += 1  # a bot that keeps state: its answers depend on how many asks it has seen
    ask = json.loads(line)
    if len(sys.argv) > 2 and n == int(sys.argv[2]):
        time.sleep(60)  # stops answering
    print(json.dumps({"choice": (n * 7) % len(ask["menu"])}), flush=True)
time.sleep(int(sys.argv[3]) if len(sys.argv) > 3 else 0)  # lingers after its input ends
"""


def test_a_bots_answers_do_not_depend_on_jobs_even_when_it_keeps_state(tmp_path: Any) -> None:
    bot, pids = tmp_path / "bot.py", tmp_path / "pids"
    bot.write_text(STATEFUL, encoding="utf-8")
    pids.mkdir()
    runs = []
    for jobs in ("1", "2"):
        rec = tmp_path / f"r{jobs}.jsonl"
        res = simulate("--hands", "60", "--seed", "4", "--jobs", jobs, "--bot", f"2={sys.executable} {bot} {pids}",
                       "--record", str(rec))
        assert res.returncode == 0, res.stderr
        runs.append(rec.read_text(encoding="utf-8"))
    assert runs[0] == runs[1]
    assert len(list(pids.iterdir())) == 2 * 3  # a bot process per chunk of 25 hands: 0-24, 25-49, 50-59


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_no_bot_is_left_running_whatever_the_jobs(tmp_path: Any, jobs: str) -> None:
    """A bot that stops answering (and one that lingers after its input ends) is ended with the run,
    by workers too (the pool ends them; their chunks end their bots)."""
    bot, pids = tmp_path / "bot.py", tmp_path / "pids"
    bot.write_text(STATEFUL, encoding="utf-8")
    pids.mkdir()
    res = simulate("--hands", "200", "--jobs", jobs, "--bot-timeout", "1", "--bot", f"1={sys.executable} {bot} {pids} 40 60")
    assert res.returncode == 1 and "no answer within 1 s" in res.stderr and "Traceback" not in res.stderr, res.stderr
    ok = simulate("--hands", "30", "--jobs", jobs, "--bot", f"1={sys.executable} {bot} {pids} 0 60")
    assert ok.returncode == 0, ok.stderr
    started = [int(p.name) for p in pids.iterdir()]
    assert started
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in started if _alive(p)], "bots left running"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process group")
@pytest.mark.parametrize("with_bot", [False, True])
def test_ctrl_c_ends_a_run_of_two_jobs_cleanly(tmp_path: Any, with_bot: bool) -> None:
    """Ctrl-C reaches every process of the terminal's group, the pool's workers too: each printed its
    KeyboardInterrupt's traceback. Now the parent alone answers it: exit 130, "interrupted", no
    traceback, and no bot left running."""
    bot, pids = tmp_path / "bot.py", tmp_path / "pids"
    bot.write_text(STATEFUL, encoding="utf-8")
    pids.mkdir()
    extra = ["--bot", f"1={sys.executable} {bot} {pids}"] if with_bot else []
    # a group of its own, as a terminal's job; SIGINT's default restored (a test run in the
    # background of a shell without job control has it ignored, and a child would inherit that)
    p = subprocess.Popen([sys.executable, "-m", "tjmj_dsl.cli", "simulate", "--hands", "5000", "--jobs", "2", *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # until both workers play hands (and, with a bot, two bots answer)
        with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
            workers = f.read().split()
        if len(workers) >= 2 and (not with_bot or len(list(pids.iterdir())) >= 2):
            break
        time.sleep(0.1)
    time.sleep(1.0)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=60)
    text = err.decode()
    # `interrupted` on a line of its own, not after the progress bar's
    assert p.returncode == 130 and "tjmj: interrupted" in text.splitlines() and "Traceback" not in text, text[-3000:]
    started = [int(x.name) for x in pids.iterdir()]
    assert bool(started) == with_bot
    deadline = time.monotonic() + 10
    while any(_alive(x) for x in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [x for x in started if _alive(x)], "bots left running"


def _deaf_to_sigterm() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def test_a_failed_runs_pool_ends_even_when_a_worker_misses_its_sigterm() -> None:
    """A worker's SIGTERM that lands just as it blocks on the pool's task queue is not acted on
    (its handler waits for its next Python step): the pool of a failed run is ended all the same.
    Here the workers ignore SIGTERM, busy for a minute: pool.terminate() alone waits that minute."""
    if "fork" not in mp.get_all_start_methods():
        pytest.skip("the pool's workers are forked here (no fork on this system)")
    pool = mp.get_context("fork").Pool(2, initializer=_deaf_to_sigterm)
    assert pool.map(abs, [-1, -2]) == [1, 2]
    workers = [p.pid for p in mp.active_children()]
    assert len(workers) == 2
    pool.map_async(time.sleep, [60, 60], chunksize=1)
    time.sleep(0.5)  # both workers asleep in a task
    ender = threading.Thread(target=end_pool, args=(pool, 0.5), daemon=True)
    ender.start()
    ender.join(20)
    ended = not ender.is_alive()
    left = [p for p in workers if _alive(p)]
    for p in left:  # a failing test leaves nothing behind either
        os.kill(p, signal.SIGKILL)
    assert ended and not left, "the pool was not ended"


def test_a_line_after_the_last_ask_names_the_last_hand(tmp_path: Any) -> None:
    # an audit's finding: the error said "after its last ask (ask 376)", naming no hand, where bots.md says
    # errors name the hand too
    from tjmj_dsl.game.bot import BotError, BotProcess
    bot = tmp_path / "twice.py"
    bot.write_text("import sys\nfor line in sys.stdin:\n    print('{\"choice\": 0}'); print('{\"choice\": 0}')\n"
                   "    sys.stdout.flush()\n", encoding="utf-8")
    p = BotProcess([sys.executable, str(bot)], "seat 2's bot", timeout=30)
    assert p.ask("act", {"hand": 7}, [{"type": "discard", "tile": "1m"}]) == 0
    with pytest.raises(BotError, match=r"seat 2's bot, after its last ask \(hand 7, ask 1\): a line came while no ask"):
        p.finish()
