"""Plays a study's chunks: here (one process, or --jobs worker processes) or as
Ray tasks on a Ray cluster (--engine ray). Each chunk is the pure function
chunk.play_chunk, whatever runs it, and the results are gathered by arm and
wall order, so the report is byte-identical for any engine and job count."""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
from typing import Any, Callable, Iterable, Iterator, TextIO

from ..game.simulate import _end_pool, _worker_started
from .chunk import Task, play_chunk, seatings
from .store import Store

CHUNK = 10  # walls per chunk: fixed, so a chunk's key (and the resume store) does not depend on --jobs


def tasks_for(arms: list[tuple[Any, str]], mixes: tuple[tuple[str, ...], ...], seed: int | str, walls: int) -> list[Task]:
    return [Task(arm, sha, mixes, seed, a, min(a + CHUNK, walls)) for arm, sha in arms for a in range(0, walls, CHUNK)]


def hands_of(task: Task) -> int:
    """The hands a chunk plays (distinct seatings only)."""
    return (task.stop - task.start) * sum(len(seatings(m)) for m in task.mixes)


def _local(todo: list[Task], jobs: int) -> Iterator[tuple[Task, list[dict[str, Any]]]]:
    if jobs <= 1 or len(todo) <= 1:
        for t in todo:
            yield t, play_chunk(t)
        return
    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else "spawn")
    # the workers and their end as `tjmj simulate`'s: a worker leaves Ctrl-C to this process and ends
    # at once on the pool's SIGTERM (forked from a process whose SIGTERM raises, it printed a traceback
    # when the pool ended it, after a run that went well too)
    pool = ctx.Pool(min(jobs, len(todo)), initializer=_worker_started, initargs=(False,))
    try:
        for t, walls in zip(todo, pool.imap(play_chunk, todo)):
            yield t, walls
    except BaseException:  # a chunk failed, Ctrl-C, or the caller stopped reading (GeneratorExit)
        _end_pool(pool)
        raise
    pool.close()
    pool.join()


def _ray(todo: list[Task], address: str | None) -> Iterator[tuple[Task, list[dict[str, Any]]]]:
    try:
        import ray
    except ImportError:
        raise RuntimeError('--engine ray needs Ray: pip install "tjmj[cluster]"') from None
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(play_chunk)
    pending = {remote.remote(t): t for t in todo}
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            yield pending.pop(ref), ray.get(ref)


def play_all(tasks: list[Task], store: Store, engine: str = "local", jobs: int = 1, address: str | None = None,
             progress: Callable[[int, int], None] | None = None) -> dict[Task, list[dict[str, Any]]]:
    """Every task's walls: from the store when finished before, else played (and stored at once)."""
    done: dict[Task, list[dict[str, Any]]] = {}
    total = sum(hands_of(t) for t in tasks)
    count = 0
    todo = []
    for t in tasks:
        got = store.get(t)
        if got is None:
            todo.append(t)
        else:
            done[t] = got
            count += hands_of(t)
    if progress:
        progress(count, total)
    source: Iterable[tuple[Task, list[dict[str, Any]]]] = _ray(todo, address) if engine == "ray" else _local(todo, jobs)
    for t, walls in source:
        store.put(t, walls)
        done[t] = walls
        count += hands_of(t)
        if progress:
            progress(count, total)
    return done


class Bar:
    """A progress bar with an ETA on stderr (hands played from stored chunks count as done, and not in the rate)."""

    def __init__(self, stream: TextIO = sys.stderr, width: int = 30) -> None:
        self.stream, self.width = stream, width
        self.t0: float | None = None
        self.first = 0
        self.last = 0.0
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if self.t0 is None:
            self.t0, self.first = now, done
        if done < total and now - self.last < 0.2:
            return
        self.last = now
        rate = (done - self.first) / (now - self.t0) if now > self.t0 else 0.0
        eta = f"ETA {_clock((total - done) / rate)}" if rate > 0 and done < total else ""
        fill = int(self.width * done / total) if total else self.width
        self.stream.write(f"\r[{'#' * fill}{'.' * (self.width - fill)}] {done}/{total} hands {rate:,.1f}/s {eta}   ")
        self.drawn = done < total
        if not self.drawn:
            self.stream.write("\n")
        self.stream.flush()

    def end(self) -> None:
        if self.drawn:
            self.drawn = False
            self.stream.write("\n")
            self.stream.flush()


def _clock(s: float) -> str:
    s = int(s)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
