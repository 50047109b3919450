"""The progress bar of a long run (`tjmj simulate`, `tjmj impact`) on stderr: hands done of all,
the rate and an ETA. Hands done before the bar's first call (a resumed run's kept hands, an
impact study's stored chunks) count as done, not in the rate."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Bar:
    """A progress bar with an ETA, redrawn at most five times a second."""

    def __init__(self, stream: TextIO | None = sys.stderr, width: int = 30) -> None:  # None: no fd 2
        self.stream, self.width = stream, width
        self.t0: float | None = None
        self.first = 0
        self.last = 0.0
        self.drawn = False  # a line drawn and not yet ended
        self.broken = False  # the stream refused a write: nothing more is drawn

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if self.t0 is None:  # the clock starts; nothing is drawn before a hand is done (a run that
            self.t0, self.first, self.last = now, done, now  # fails at once says only why)
            if done < total:
                return
        if done < total and now - self.last < 0.2:
            return
        self.last = now
        rate = (done - self.first) / (now - self.t0) if now > self.t0 else 0.0
        eta = f"ETA {_clock((total - done) / rate)}" if rate > 0 and done < total else ""
        fill = int(self.width * done / total) if total else self.width
        self._write(f"\r[{'#' * fill}{'.' * (self.width - fill)}] {done}/{total} hands {rate:,.1f}/s {eta}   "
                    + ("" if done < total else "\n"))
        self.drawn = done < total and not self.broken

    def _write(self, text: str) -> None:
        """The bar is a courtesy: a stream that cannot take it (stderr closed, or on a full disk) ends the bar,
        never the run (it stopped a simulation after its first chunk, the record cut short)."""
        if self.broken or self.stream is None:
            self.broken = True
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.broken = True

    def end(self) -> None:
        """End the bar's line if a run stopped before its last hand, so that what is said next
        (an error, `interrupted`) has a line of its own."""
        if self.drawn:
            self.drawn = False
            self._write("\n")


def _clock(s: float) -> str:
    s = int(s)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
