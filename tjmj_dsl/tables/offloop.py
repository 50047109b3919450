"""The games' database, called off the event loop: every call on one daemon thread, in the order asked.

The store's calls are blocking (SQLAlchemy, sqlite3, psycopg). Made on the event loop, one that hangs
without failing (a stopped PostgreSQL whose host still acknowledges, a stuck disk) froze every room, the
health check and the server's exit with it (an operator's review; the bounds in store.py cover locks, slow
statements and dead peers, not this). Made here, a hung call holds only the coroutines that wait on the
database: the sockets, the pages, /health (503 within its wait) and a stop go on.

One thread, not a pool: the calls keep the order they had on the loop (a room's answers before its hand's
end, every room's writes one at a time, so SQLite sees no writers racing for its lock), and a database
that hangs takes one thread, not one per call. The thread is a daemon: a process stopping does not wait
for a call the database never answers.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any, Callable, TypeVar

T = TypeVar("T")


class OffLoop:
    """`await offloop(fn, *args)`: fn(*args) run on this object's thread, its answer (or its exception) given
    back on the loop that awaited it. A caller cancelled meanwhile is not told; the call itself still runs."""

    def __init__(self, name: str = "tjmj-db") -> None:
        self.name = name
        self._calls: queue.SimpleQueue[tuple[asyncio.AbstractEventLoop, asyncio.Future[Any], Callable[..., Any],
                                             tuple[Any, ...]] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    async def __call__(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[T] = loop.create_future()
        self._calls.put((loop, fut, fn, args))
        with self._lock:  # after the put: a thread ending now either sees the call or is replaced
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        return await fut

    def _run(self) -> None:
        while True:
            item = self._calls.get()
            if item is None:
                with self._lock:
                    if self._calls.empty():  # else a call came after the close: made, as any other
                        self._thread = None
                        return
                continue
            _deliver(*item)
            del item  # nothing of a call kept while the thread waits for the next

    def close(self) -> None:
        """The thread ends once the calls asked before are made (not waited for: one may never return); a
        call after it starts another."""
        self._calls.put(None)


def in_daemon_thread(fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
    """fn(*args) on a thread of its own, as a future of this loop: for a call that must not wait behind the
    store's (the health probe); a daemon thread, so a call the database never answers does not keep the
    server from exiting (asyncio.to_thread's pool is joined at shutdown)."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[T] = loop.create_future()
    threading.Thread(target=_deliver, args=(loop, fut, fn, args), name="tjmj-db-probe", daemon=True).start()
    return fut


def _deliver(loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Any], fn: Callable[..., Any],
             args: tuple[Any, ...]) -> None:
    """fn(*args), on the calling thread; its answer or exception set on fut, on fut's loop."""
    answer: Any = None
    error: BaseException | None = None
    try:
        answer = fn(*args)
    except BaseException as e:  # noqa: BLE001 - handed to the loop, which raises it in the caller
        error = e
    try:
        loop.call_soon_threadsafe(_settle, fut, answer, error)
    except RuntimeError:  # the loop is closed: nobody waits any more
        pass


def _settle(fut: asyncio.Future[Any], answer: Any, error: BaseException | None) -> None:
    if fut.done():  # its caller was cancelled
        return
    if error is None:
        fut.set_result(answer)
    else:
        fut.set_exception(error)
