"""The keeper of one bot process (Linux): everything the bot starts ends with it.

A bot is started under this small program, run by path (`python -I -S
keeper.py STATUS_FD COMMAND...`, standard library only), in a session of its
own. The keeper makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER),
so whatever the bot starts and leaves behind — a child in the background, a
grandchild that double-forked and took a session of its own with setsid — is
reparented to the keeper, not to init, and stays its descendant. When the bot
exits, or the keeper is told to end (SIGTERM, SIGHUP, SIGINT), or the table
that started it is gone (its parent changed: checked twice a second, and
PR_SET_PDEATHSIG), the keeper kills every descendant it has (SIGKILL, again
until none is left), reaps them, and exits with the bot's status.

Why not a cgroup: a cgroup v2 of one's own needs a delegated, writable
/sys/fs/cgroup, which a command run from a shell or a container seldom has;
a subreaper needs nothing. What escapes it: a process another program starts
for the bot (a daemon asked over a socket: systemd-run, at, ssh), and a
descendant when the keeper itself is killed with SIGKILL by someone else (the
table then kills the bot's process group). On STATUS_FD the keeper writes
`ok` once the bot runs, or why it could not be started.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
ENDING = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class _End(Exception):
    """Told to end (a signal), or the parent is gone."""


def _descendants(root: int) -> list[int]:
    """Every process below `root`, read from /proc (children before theirs)."""
    kids: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                data = f.read()
            ppid = int(data.rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # ended meanwhile
        kids.setdefault(ppid, []).append(int(name))
    out, todo = [], [root]
    while todo:
        for c in kids.get(todo.pop(), ()):
            out.append(c)
            todo.append(c)
    return out


def _reap(block: bool) -> None:
    try:
        if block:
            os.waitpid(-1, 0)
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def kill_descendants() -> None:
    """Kill and reap every descendant, again until none is left (one that forks meanwhile
    leaves its child to the keeper, found the next time round)."""
    me = os.getpid()
    for _ in range(10_000):
        pids = _descendants(me)
        if not pids:
            break
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        _reap(block=True)
    _reap(block=False)


def main(argv: list[str]) -> int:
    status_fd, command = int(argv[1]), argv[2:]
    os.set_inheritable(status_fd, False)
    libc: Any = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    parent = os.getppid()
    libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)

    def end(*_: Any) -> None:
        raise _End

    def watch(*_: Any) -> None:
        if os.getppid() != parent:
            raise _End

    for s in ENDING:
        signal.signal(s, end)
    signal.signal(signal.SIGALRM, watch)
    code: int | None = None
    try:
        if os.getppid() != parent:  # the table ended before PR_SET_PDEATHSIG was set
            raise _End
        try:
            # the signals Python ignores for itself (SIGPIPE, SIGXFSZ) at their defaults for the bot,
            # as subprocess.Popen restores them
            defaults = {getattr(signal, n) for n in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, n)}
            bot = os.posix_spawnp(command[0], command, dict(os.environ), setsigdef=defaults)
        except OSError as e:
            os.write(status_fd, f"{e.strerror or e}".encode("utf-8", "replace"))
            return 127
        os.write(status_fd, b"ok")
        os.close(status_fd)
        # the bot holds the pipes now: the keeper's copies closed, so the table sees the bot's
        # output end when the bot's does
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        signal.setitimer(signal.ITIMER_REAL, 0.5, 0.5)
        while True:
            pid, status = os.waitpid(-1, 0)  # the bot, or an orphan of its that ended
            if pid == bot:
                code = os.waitstatus_to_exitcode(status)
                break
    except (_End, ChildProcessError):
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.pthread_sigmask(signal.SIG_BLOCK, {*ENDING, signal.SIGALRM})
        kill_descendants()
    if code is not None and code < 0:  # the bot was killed by a signal: so is its keeper
        try:
            signal.signal(-code, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {-code})
        except (OSError, ValueError):  # SIGKILL has no handler to reset
            pass
        os.kill(os.getpid(), -code)
    return code if code is not None else 128 + signal.SIGTERM


if __name__ == "__main__":
    try:
        code = main(sys.argv)
    except BaseException:  # noqa: BLE001 - the keeper never prints a traceback into the bot's stderr
        code = 1
    os._exit(code)
