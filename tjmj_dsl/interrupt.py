"""Ctrl-C, SIGTERM and SIGHUP end a command alike: each is raised in the main thread as
Interrupted (a KeyboardInterrupt, so every `except KeyboardInterrupt` and cleanup that handles
Ctrl-C handles them), and the command exits 128 + the signal's number (130, 143, 129) with one
line. A signal that is ignored when the command starts (`nohup` ignores SIGHUP) stays ignored.
A process forked from the command inherits the handlers but is not the command: there a signal
does what it does by default (a pool's worker forked just as the pool is ended is ended, without
a traceback from a handler meant for the command).
Within `holding()` (a record line being written) the signal waits for the section's end, so
what was written is whole lines; a second one does not wait (a write that never ends, to a pipe
nobody reads, can still be stopped)."""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager
from typing import Any, Callable, Iterator

SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


class Interrupted(KeyboardInterrupt):
    """A command ended by a signal (SIGINT, SIGTERM or SIGHUP)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


_held = 0
_pending: int | None = None
_owner: int | None = None  # the process that installed the handlers


def _raise(signum: int, frame: Any) -> None:
    global _pending
    if os.getpid() != _owner:  # a forked child, before it set its own handlers: the signal's default
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    if _held and _pending is None:  # the first waits for the section's end; a second one does not (a write stuck on a full pipe)
        _pending = signum
        return
    raise Interrupted(signum)


@contextmanager
def holding() -> Iterator[None]:
    """A section no signal cuts short: one that comes meanwhile is raised at its end."""
    global _held, _pending
    _held += 1
    try:
        yield
    finally:
        _held -= 1
        if not _held and _pending is not None:
            signum, _pending = _pending, None
            raise Interrupted(signum)


def install() -> Callable[[], None]:
    """Answer SIGINT, SIGTERM and SIGHUP by raising Interrupted (main thread only; elsewhere
    nothing changes). Returns what puts the handlers back."""
    global _owner
    _owner = os.getpid()
    old: dict[int, Any] = {}
    for s in SIGNALS:
        try:
            current = signal.getsignal(s)
            if current == signal.SIG_IGN:  # nohup, a background job without job control: left as they are
                continue
            old[s] = signal.signal(s, _raise)
        except (ValueError, OSError):  # not the main thread
            break

    def restore() -> None:
        for s, h in old.items():
            try:
                signal.signal(s, h)
            except (ValueError, OSError, TypeError):
                pass
    return restore


def ended_by(e: BaseException) -> tuple[int, str]:
    """The exit status and the words for an interruption: Ctrl-C's 130 and `interrupted`, a
    signal's 128 + its number and `interrupted (SIGTERM)`."""
    if isinstance(e, Interrupted) and e.signum != signal.SIGINT:
        return e.code, f"interrupted ({e.name})"
    return 130, "interrupted"
