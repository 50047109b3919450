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
