"""interrupt.py's handlers belong to the command that installed them: a process forked from it
(a pool's worker before its initializer has run) that is sent a signal ends as the signal's default
says, silently, instead of raising Interrupted with a traceback (the suite's CI saw one: a worker
the pool forked anew just as a group-wide SIGTERM ended the run)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import os, signal, sys, time
from tjmj_dsl import interrupt
interrupt.install()
r, w = os.pipe()
pid = os.fork()
if pid == 0:  # the child keeps the command's handlers, as a pool's worker does before its set-up
    os.close(r)
    os.write(w, b"x")
    while True:
        time.sleep(0.01)
os.close(w)
os.read(r, 1)
os.kill(pid, int(sys.argv[1]))
_, status = os.waitpid(pid, 0)
print(os.WIFSIGNALED(status), os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
try:
    os.kill(os.getpid(), int(sys.argv[1]))  # the command itself still raises Interrupted
    time.sleep(5)
    print("not raised")
except interrupt.Interrupted as e:
    print("raised", e.signum)
"""


def _default_signals() -> None:
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, signal.SIG_DFL)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system: no forked child inherits a handler")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_forked_child_ends_by_the_signals_default_and_the_command_still_raises(sig: int) -> None:
    # started as a command from a terminal is: the three signals at their defaults (a suite run under
    # nohup, or as a background job, has SIGHUP or SIGINT ignored, which interrupt.install keeps ignored)
    p = subprocess.run([sys.executable, "-c", CHILD, str(int(sig))], capture_output=True, text=True, cwd=ROOT,
                       timeout=60, preexec_fn=_default_signals)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr and p.stderr == "", p.stderr
    assert p.stdout.split("\n")[:2] == [f"True {int(sig)}", f"raised {int(sig)}"], p.stdout


def test_a_worker_killed_mid_run_stops_the_run_with_one_line(tmp_path: object) -> None:
    """A pool worker killed (the out-of-memory killer, a bot killing its parents) lost its chunk and the run
    waited for it for ever, saying nothing. It stops, exit 1, one line; the record holds whole hands only."""
    import json
    import time
    rec = os.path.join(str(tmp_path), "r.jsonl")
    proc = subprocess.Popen([sys.executable, "-m", "tjmj_dsl.cli", "simulate", "--hands", "5000", "--jobs", "2",
                             "--seed", "3", "--record", rec], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        children: list[int] = []
        for _ in range(600):  # the workers are playing once the record has hands
            time.sleep(0.05)
            with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as f:
                children = [int(x) for x in f.read().split()]
            if children and os.path.exists(rec) and os.path.getsize(rec) > 0:
                break
        assert children, "no worker started"
        os.kill(children[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    assert "tjmj: error: a worker process ended mid-run (killed by signal 9)" in err and "Traceback" not in err, err
    with open(rec, encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert 0 < len(lines) < 5000 and all(json.loads(x)["hand"] == i for i, x in enumerate(lines))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a worker ends with its parent on Linux (prctl)")
def test_a_run_killed_outright_leaves_no_worker_or_bot_playing_on(tmp_path: object) -> None:
    """SIGKILL to `simulate --jobs 2` (no handler can run): its workers played their chunk on, their bots with
    them, then printed a traceback each after the shell had returned. They end with it."""
    import time
    bot = os.path.join(str(tmp_path), "bot.py")
    with open(bot, "w") as f:
        f.write("import json, sys\nfor line in sys.stdin:\n    print(json.dumps({'choice': 0}), flush=True)\n")
    proc = subprocess.Popen([sys.executable, "-m", "tjmj_dsl.cli", "simulate", "--hands", "5000", "--jobs", "2",
                             "--seed", "3", "--bot", f"0={sys.executable} {bot}"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)

    def tree(pid: int) -> list[int]:
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                kids = [int(x) for x in f.read().split()]
        except OSError:
            return []
        return kids + [g for k in kids for g in tree(k)]

    def running(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    try:
        under: list[int] = []
        for _ in range(600):  # workers, their keepers and bots
            time.sleep(0.05)
            under = tree(proc.pid)
            if len(under) >= 6:
                break
        assert len(under) >= 6, under
        proc.kill()
        proc.wait(10)
        for _ in range(100):
            if not any(running(p) for p in under):
                break
            time.sleep(0.1)
        assert not [p for p in under if running(p)]
        assert "Traceback" not in (proc.stderr.read() if proc.stderr else "")
    finally:
        if proc.poll() is None:
            proc.kill()
