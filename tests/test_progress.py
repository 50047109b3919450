"""The progress bar's rate counts the hands played while it runs, not those done before its first
call (a resumed run's kept hands, an impact study's stored chunks). The clock is a fake one."""

from __future__ import annotations

import io
import os
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


def test_a_stream_that_refuses_the_bar_ends_the_bar_not_the_run(tmp_path: Any) -> None:
    """stderr on a full disk, or closed: the bar's first write failed and stopped a simulation after its first
    chunk (exit 1, the record cut at 25 of 30 hands, no summary)."""
    import subprocess
    import sys

    class Full(io.StringIO):
        def write(self, s: str) -> int:
            raise OSError(28, "No space left on device")

    bar = Bar(Full())
    bar(0, 3)
    bar(1, 3)
    bar(3, 3)
    bar.end()
    assert bar.broken and not bar.drawn
    rec = tmp_path / "r.jsonl"
    for stderr in ("/dev/full", "closed"):
        cmd = [sys.executable, "-m", "tjmj_dsl.cli", "simulate", "--hands", "30", "--seed", "1", "--record", str(rec),
               "--force"]
        if stderr == "closed":
            run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=300,
                                 preexec_fn=lambda: os.close(2))
        else:
            with open(stderr, "w") as full:
                run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=full, text=True, timeout=300)
        assert run.returncode == 0 and "30 hands, seed 1" in run.stdout, (stderr, run.returncode)
        assert len(rec.read_text().splitlines()) == 30


def test_an_output_that_cannot_be_written_is_one_line(tmp_path: Any) -> None:
    """stdout on a full disk printed Python's traceback (simulate, simulate --json, replay, score --jsonl)."""
    import subprocess
    import sys
    rec = tmp_path / "r.jsonl"
    subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", "simulate", "--hands", "2", "--record", str(rec)],
                   capture_output=True, timeout=300, check=True)
    for args, stdin in ((["simulate", "--hands", "3"], None), (["simulate", "--hands", "3", "--json"], None),
                        (["replay", str(rec)], None), (["score", "--jsonl"], '{"hand": "11m 22m"}\n')):
        with open("/dev/full", "w") as full:
            run = subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", *args], input=stdin, stdout=full,
                                 stderr=subprocess.PIPE, text=True, timeout=300)
        lines = [x for x in run.stderr.splitlines() if x and not x.startswith("[")]  # the progress bar aside
        assert run.returncode == 1 and lines == ["tjmj: error: No space left on device (the output)"], (args, run.stderr)
