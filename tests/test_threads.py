"""Class 8 of issue 13: scorers built and used at once from several threads
give the answers one thread gives (each generated module has a name of its
own; the engine's tables are shared only under a lock)."""

from __future__ import annotations

import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.reqgen import random_request
from tjmj_dsl import Scorer

OPTION_SETS: list[dict[str, Any]] = [{}, {"min_fan": 1}, {"hun_kinds": 3}, {"score_table": "coins"}, {"jin_gang": "8"},
                                     {"tianting": "on", "subenlong": "on"}]


def _requests(n: int, seed: int, kinds: int, max_huns: int = 3) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [random_request(rng, hun_kinds=kinds, max_huns=max_huns) for _ in range(n)]


def test_scorers_built_and_used_from_threads_agree_with_one_thread() -> None:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)  # switch threads often: races show up
    try:
        def job(i: int) -> list[Any]:
            opts = OPTION_SETS[i % len(OPTION_SETS)]
            interp = i % 3 == 0  # the interpreter is slow with huns: fewer of them
            s = Scorer(options=opts, backend="interpreter" if interp else "generated")
            return [s.score(r) for r in _requests(30, i, opts.get("hun_kinds", 2), 1 if interp else 4)]

        with ThreadPoolExecutor(max_workers=6) as ex:
            together = list(ex.map(job, range(9)))
        alone = [job(i) for i in range(9)]
        assert together == alone
    finally:
        sys.setswitchinterval(old)


def test_one_scorer_shared_by_threads_agrees_with_one_thread() -> None:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        for backend in ("generated", "interpreter"):
            shared = Scorer(backend=backend)
            reqs = _requests(160 if backend == "generated" else 60, 7, 2, 4 if backend == "generated" else 1)
            alone = Scorer(backend=backend)  # one thread, its own tables
            want = [alone.score(r) for r in reqs]
            got: list[Any] = [None] * len(reqs)
            barrier = threading.Barrier(4)

            def run(k: int, shared: Scorer = shared, reqs: list[dict[str, Any]] = reqs, backend: str = backend) -> None:
                barrier.wait()
                for j in range(k, len(reqs), 4):
                    got[j] = shared.score(reqs[j])
                    if j % 7 == 0 and backend == "generated":
                        shared.waits({"concealed": reqs[j]["concealed"] if isinstance(reqs[j].get("concealed"), str)
                                      else "", "indicator": "7p"})
            threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert got == want, backend
    finally:
        sys.setswitchinterval(old)


def test_a_scorers_family_is_made_once_when_threads_ask_first(monkeypatch: pytest.MonkeyPatch) -> None:
    # a review's nit: the first requests naming their own profile, in two threads at once, each made the
    # family of scorers (and compiled the profile twice); the family is made under a lock
    from tjmj_dsl import api
    made: list[int] = []
    real = api.Scorers.__init__

    def slow(self: Any, *args: Any, **kwargs: Any) -> None:
        made.append(1)
        time.sleep(0.05)  # a window wide enough for the other threads to find no family yet
        real(self, *args, **kwargs)

    monkeypatch.setattr(api.Scorers, "__init__", slow)
    sc = Scorer()
    req = {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "profile": "seed-000-coins"}
    got: list[Any] = []
    threads = [threading.Thread(target=lambda: got.append(sc.score(req))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and len(got) == 4 and all(g["rules"]["profile"] == "seed-000-coins" for g in got)
