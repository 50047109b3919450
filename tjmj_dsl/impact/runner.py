"""Plays a study's chunks: here (one process, or --jobs worker processes) or as
Ray tasks on a Ray cluster (--engine ray). Each chunk is the pure function
chunk.play_chunk, whatever runs it, and the results are gathered by arm and
wall order, so the report is byte-identical for any engine and job count."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Iterable, Iterator

from ..game.ship import ray_connected, ray_in_order
from ..game.simulate import end_pool, watched_imap, worker_pool
from ..progress import Bar as Bar  # impact.command's progress bar, simulate's too
from .arms import Arm
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
    pool = worker_pool(min(jobs, len(todo)))
    try:
        for t, walls in zip(todo, watched_imap(pool, play_chunk, todo)):
            yield t, walls
    except BaseException:  # a chunk failed, Ctrl-C or a signal, or the caller stopped reading
        end_pool(pool)
        raise
    pool.close()  # every chunk played: the workers leave by the pool's own word
    pool.join()


def _play_arm(arm: Arm, task: Task) -> list[dict[str, Any]]:
    """play_chunk on a Ray worker: the arm (its rules' text) comes from the object store, sent once."""
    return play_chunk(replace(task, arm=arm))


def _ray(todo: list[Task], address: str | None) -> Iterator[tuple[Task, list[dict[str, Any]]]]:
    ray = ray_connected(address)
    text: dict[int, Any] = {}  # each arm put in the object store once, by identity (tasks share their arm)
    for t in todo:
        if id(t.arm) not in text:
            text[id(t.arm)] = ray.put(t.arm)
    calls = ((text[id(t.arm)], replace(t, arm=None)) for t in todo)  # type: ignore[arg-type]  # the arm comes apart
    yield from zip(todo, ray_in_order(ray, _play_arm, calls))


def play_all(tasks: list[Task], store: Store, engine: str = "local", jobs: int = 1, address: str | None = None,
             progress: Callable[[int, int], None] | None = None,
             take: Callable[[Task, list[dict[str, Any]]], None] | None = None) -> dict[Task, list[dict[str, Any]]]:
    """Every task's walls: from the store when finished before, else played (and stored at once).
    With `take`, each task's walls are handed to it as they come (in any order) and not kept: the
    run's memory does not grow with its walls (an empty dict is returned)."""
    done: dict[Task, list[dict[str, Any]]] = {}
    keep = take or done.__setitem__
    total = sum(hands_of(t) for t in tasks)
    count = 0
    todo = []
    for t in tasks:
        got = store.get(t)
        if got is None:
            todo.append(t)
        else:
            keep(t, got)
            count += hands_of(t)
    if progress:
        progress(count, total)
    source: Iterable[tuple[Task, list[dict[str, Any]]]] = _ray(todo, address) if engine == "ray" else _local(todo, jobs)
    for t, walls in source:
        store.put(t, walls)
        keep(t, walls)
        count += hands_of(t)
        if progress:
            progress(count, total)
    return done
