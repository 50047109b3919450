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
