"""Class 5 of issue 13: a batch's memory stays bounded whatever its lines.
`tjmj score --jsonl` (the path with caches: compiled scorers, failed option
sets, parsed tiles, search tables) reads 100,000 mixed lines, thousands of
distinct option sets, profiles, fields and ids among them, and its peak memory
stays under the bound docs/reliability.md states. Most lines are refused before
scoring (quick, so the suite stays fast); benchmarks/fuzz.py streams a longer
batch of scored hands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from tests.streamgen import lines

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEAK_MB = 300  # docs/reliability.md: "a JSONL batch stays under 300 MB"
# run the CLI and report its own peak resident memory (kB) on stderr's last line: VmHWM, the
# peak of this process's memory since exec (ru_maxrss would also count the forking pytest's size)
WRAP = ("import resource, runpy, sys\n"
        "sys.argv = ['tjmj', 'score', '--jsonl']\n"
        "try:\n    runpy.run_module('tjmj_dsl.cli', run_name='__main__')\n"
        "finally:\n"
        "    try:\n"
        "        peak = int(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')).split()[1])\n"
        "    except OSError:\n"
        "        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "    sys.stderr.write('peak %d\\n' % peak)\n")


def test_a_long_mixed_batch_stays_under_the_memory_bound(tmp_path: str) -> None:
    path = os.path.join(str(tmp_path), "batch.jsonl")
    n = 100_000
    with open(path, "wb") as f:
        for line in lines(n, seed=3, scored=0.05, with_options=0.02):  # quick lines mostly; fuzz.py's are all scored
            f.write(line + b"\n")
    with open(path, "rb") as stdin:
        res = subprocess.run([sys.executable, "-c", WRAP], stdin=stdin, capture_output=True, timeout=1800,
                             env=dict(os.environ, PYTHONPATH=ROOT), cwd=ROOT)
    err = res.stderr.decode("utf-8", "replace")
    assert res.returncode == 0, err[-2000:]
    out = res.stdout.split(b"\n")
    assert out[-1] == b"" and len(out) - 1 == n  # one answer per line, none lost
    first, last = json.loads(out[0]), json.loads(out[-2])
    assert "id" in first and "id" in last
    peak_mb = int(err.strip().splitlines()[-1].split()[1]) / 1024
    assert peak_mb < PEAK_MB, f"peak {peak_mb:.0f} MB"


def test_the_plain_paths_tile_texts_are_kept_within_their_bound(monkeypatch: Any) -> None:
    """The plain path keeps each 13-tile text's tally (docs/reliability.md: tile-text caches,
    texts of at most 64 characters, then it starts over): never more than its size, never a long text."""
    from tjmj_dsl import Scorer
    from tjmj_dsl.engine import runtime
    monkeypatch.setattr(runtime, "_COMPACT_SIZE", 40)  # the tile parser's bound, which it shares
    s = Scorer()
    kinds = [f"{r}{x}" for x in "mps" for r in range(1, 10)]
    seen = 0
    for i in range(200):
        hand = "".join(kinds[(i + 2 * j) % 27] for j in range(13))
        assert s.score({"concealed": hand, "draw": "E", "indicator": "C"})["reason"] != "invalid_request"
        seen = max(seen, len(runtime._PLAIN_TILES))
        assert hand in runtime._PLAIN_TILES
    assert 20 < seen <= 41  # 40 texts and the cache's pin
    long = "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 4p" + " " * 60
    assert s.score({"concealed": long, "draw": "E", "indicator": "C"})["reason"] != "invalid_request"
    assert long not in runtime._PLAIN_TILES
