"""The progress bar's rate counts the hands played while it runs, not those done before its first
call (a resumed run's kept hands, an impact study's stored chunks). The clock is a fake one."""

from __future__ import annotations

import io
from typing import Any

from tjmj_dsl import progress
from tjmj_dsl.progress import Bar


def test_the_rate_leaves_out_hands_done_before(monkeypatch: Any) -> None:
    now = [100.0]
    monkeypatch.setattr(progress.time, "perf_counter", lambda: now[0])
    out = io.StringIO()
    bar = Bar(out)
    bar(900, 1000)  # 900 hands kept from a stopped run: the bar starts here
    now[0] += 10.0
    bar(950, 1000)  # 50 played in 10 s
    assert "950/1000 hands 5.0/s ETA 0:00:10" in out.getvalue()
    now[0] += 10.0
    bar(1000, 1000)
    assert out.getvalue().endswith("1000/1000 hands 5.0/s    \n")
    bar.end()
    assert out.getvalue().count("\n") == 1


def test_nothing_is_drawn_before_a_hand_is_done(monkeypatch: Any) -> None:
    """A run that fails at once (a bot that breaks the protocol on its first ask) says only why."""
    now = [100.0]
    monkeypatch.setattr(progress.time, "perf_counter", lambda: now[0])
    out = io.StringIO()
    bar = Bar(out)
    bar(0, 3)
    bar.end()
    assert out.getvalue() == ""
    now[0] += 1.0
    bar(1, 3)
    assert "1/3 hands 1.0/s" in out.getvalue()
