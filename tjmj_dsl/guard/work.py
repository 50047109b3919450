"""A request's work off the event loop, bounded: how many requests are worked out in threads at
once (in all, and from one client), how long one waits for a thread, and what one may spend —
CPU seconds (its thread's own time) and distinct keys (for tjmj: profile/option sets, each a
scorer to compile). The event loop keeps its share of the interpreter, so a well-behaved client's
/health and /score are answered while an attacker's batches run."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, Callable, Hashable

from starlette.concurrency import run_in_threadpool

from .limits import Limits


class Busy(Exception):
    """The request is refused before any work: (status, message)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Budget:
    """One request's allowance, checked by its work between items (a compile or a scored hand is
    not cut short: each is bounded by the rules' own limits)."""

    def __init__(self, cpu_seconds: float, max_keys: int) -> None:
        self.gone = threading.Event()  # the client closed its connection
        self.cpu_seconds = cpu_seconds
        self.max_keys = max_keys
        self.keys: set[Hashable] = set()
        self._start: float | None = None

    def start(self) -> None:
        self._start = time.thread_time()

    def over(self) -> str | None:
        """Why the work must stop now (its CPU is spent), or None."""
        if self._start is not None and time.thread_time() - self._start > self.cpu_seconds:
            return f"this request's work took over {self.cpu_seconds:g} CPU seconds; the rest is not worked out"
        return None

    def admit(self, key: Hashable) -> str | None:
        """Why the work may not use one more distinct `key`, or None (it is counted)."""
        if key in self.keys:
            return None
        if len(self.keys) >= self.max_keys:
            return f"one request may name at most {self.max_keys} distinct profile/option sets"
        self.keys.add(key)
        return None


class Workers:
    """The threads' admission, for each kind of work apart (a batch, taking up to its CPU budget;
    one request, taking at most a compile or one hand's waits): at most limits.max_work
    requests of a kind worked out at once, at most limits.max_client_work of a kind from one
    client (working or waiting), each waiting at most limits.work_wait for its turn. Kinds
    apart, a client's /waits does not queue behind other clients' batches."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.per_client: dict[tuple[str, str], int] = {}
        self._slots: dict[str, asyncio.Semaphore] = {}

    async def run(self, client: str, work: Callable[..., Any], *args: Any, watch: Any = None,
                  kind: str = "batch") -> Any:
        """work(budget, *args) in a thread, once admitted; Busy if not. `watch(budget)`, if given, is
        an awaitable run alongside (e.g. one that sets budget.gone when the client leaves)."""
        L = self.limits
        slots = self._slots.get(kind)
        if slots is None:
            slots = self._slots[kind] = asyncio.Semaphore(L.max_work)
        key = (client, kind)
        n = self.per_client.get(key, 0)
        if n >= L.max_client_work:
            raise Busy(429, f"this client has {n} requests being worked out; the limit is {L.max_client_work}")
        self.per_client[key] = n + 1
        try:
            try:
                await asyncio.wait_for(slots.acquire(), L.work_wait)
            except asyncio.TimeoutError:
                raise Busy(503, f"the server is busy: no thread was free within {L.work_wait:g} s") from None
            budget = Budget(L.request_cpu, L.max_rule_sets)
            watcher = asyncio.ensure_future(watch(budget)) if watch is not None else None
            try:
                return await run_in_threadpool(_timed, budget, work, *args)
            finally:
                budget.gone.set()
                if watcher is not None:
                    watcher.cancel()
                slots.release()
        finally:
            left = self.per_client[key] - 1
            if left:
                self.per_client[key] = left
            else:
                del self.per_client[key]


def _timed(budget: Budget, work: Callable[..., Any], *args: Any) -> Any:
    budget.start()
    return work(budget, *args)
