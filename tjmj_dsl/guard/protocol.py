"""uvicorn's HTTP/1.1 protocol (httptools) with the bounds uvicorn leaves open: connections per
client and in all, the request line's and head's size and header count, a deadline for the head
(slowloris: from the connection's opening, or the request's first byte, to the head's end) and one
for the body, requests pipelined ahead, a connection closed when its answer went out before its
body came in; and every answer the protocol itself gives (malformed HTTP, a limit) in the JSON
shape of the service's refusals. uvicorn loads it by name (`http="tjmj_dsl.guard.protocol:
GuardedHttpToolsProtocol"`), in each worker; the limits and the refusal's shape are the worker's
own (configure(), called by guard.wrap when the app is built, before the server listens)."""

from __future__ import annotations

import asyncio
import http
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .asgi import Refusal, refusal_json
from .limits import Limits


class _State:
    limits: Limits = Limits()
    refusal: Refusal = staticmethod(refusal_json)  # type: ignore[assignment]
    open: dict[str, set[Any]] = {}  # client address → its connections' transports (WebSockets' included)


def configure(limits: Limits, refusal: Refusal | None = None) -> None:
    """The limits (and the refusal's shape) of this process's guarded connections."""
    _State.limits = limits
    _State.refusal = refusal or refusal_json  # type: ignore[assignment]


def refusal_bytes(status: int, code: str, message: str) -> bytes:
    """A whole HTTP/1.1 response refusing a request: the JSON refusal, and the connection closed."""
    body = _State.refusal(code, message)
    reason = http.HTTPStatus(status).phrase.encode("ascii")
    return (b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
            % (status, reason, len(body)) + body)


def _prune(mine: set[Any]) -> None:
    for t in [t for t in mine if t.is_closing()]:
        mine.discard(t)


def _prune_all() -> None:
    for ip in list(_State.open):
        _prune(_State.open[ip])
        if not _State.open[ip]:
            del _State.open[ip]


class _Refused(Exception):
    """Raised in a parser callback: the request breaks a limit (status, code, message)."""


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """HttpToolsProtocol, bounded (see the module's docstring)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        L = _State.limits
        self._g_refusal: tuple[int, str, str] | None = None
        self._g_drain = False
        self._g_head_bytes = 0
        self._g_in_head = True
        self._g_headers = 0
        self._g_url = 0
        self._g_head_size = 0
        self._g_body_timer: asyncio.TimerHandle | None = None
        self._g_head_timer: asyncio.TimerHandle | None = None
        ip = self.client[0] if self.client else ""
        mine = _State.open.setdefault(ip, set())
        _prune(mine)
        if len(mine) >= L.max_client_connections and ip not in L.proxies:  # a proxy carries many clients
            return self._g_refuse_now(429, "busy", f"this client has {len(mine)} connections open; the limit is "
                                                   f"{L.max_client_connections} a client")
        total = sum(len(s) for s in _State.open.values())
        if total >= L.max_connections:
            _prune_all()
            total = sum(len(s) for s in _State.open.values())
            mine = _State.open.setdefault(ip, set())
            if total >= L.max_connections:
                return self._g_refuse_now(503, "busy", f"the server has {total} connections open; the limit is "
                                                       f"{L.max_connections}")
        mine.add(transport)
        self._g_head_timer = self.loop.call_later(L.head_timeout, self._g_head_late)

    def _g_refuse_now(self, status: int, code: str, message: str) -> None:
        self._g_refusal = (status, code, message)
        self.transport.write(refusal_bytes(status, code, message))
        self._g_close()

    def _g_close_with(self, status: int, code: str, message: str) -> None:
        """Answer with a refusal, unless an answer is under way on this connection, and close it."""
        if self.transport.is_closing():
            return
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(refusal_bytes(status, code, message))
        self._g_close()

    def _g_close(self) -> None:
        """Close the connection; an answer still to come is not written (as after connection_lost,
        which comes a moment later: a write meanwhile would raise in the transport)."""
        for cycle in [self.cycle] + [c for c, _ in self.pipeline]:
            if cycle is not None and not cycle.response_complete:
                cycle.disconnected = True
                cycle.message_event.set()
        self.transport.close()  # the one place

    def _g_cancel_timers(self) -> None:
        for t in (self._g_head_timer, self._g_body_timer):
            if t is not None:
                t.cancel()
        self._g_head_timer = self._g_body_timer = None

    def connection_lost(self, exc: Exception | None) -> None:
        if hasattr(self, "_g_in_head"):
            self._g_cancel_timers()
            ip = self.client[0] if self.client else ""
            mine = _State.open.get(ip)
            if mine is not None:
                mine.discard(self.transport)
                if not mine:  # no address is remembered once its connections are gone
                    del _State.open[ip]
        super().connection_lost(exc)

    def _start_asgi_task(self, cycle: Any, app: Any) -> None:
        # a connection reset by its client is closed at once, and connection_lost (which tells the
        # answer not to be written) comes a loop iteration later; an answer finished meanwhile (a
        # thread's work just done) was written to the closed transport and logged a traceback
        # each time: a client could fill the log at will. A closed transport is a gone client.
        send = cycle.send
        transport = self.transport

        async def guarded_send(message: Any) -> None:
            if transport.is_closing():
                cycle.disconnected = True
            await send(message)

        cycle.send = guarded_send
        super()._start_asgi_task(cycle, app)

    def eof_received(self) -> None:
        # the client closed its side: the transport closes now and connection_lost comes a moment
        # later; an answer written meanwhile (a thread's work just done) would raise in the transport
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True
            self.cycle.message_event.set()

    def _g_head_late(self) -> None:
        self._g_head_timer = None
        if self.cycle is not None and not self.cycle.response_complete:
            self._g_close()  # an answer under way: a refusal cannot go out in its place
            return
        self._g_close_with(408, "timeout", f"the request's head did not arrive within {_State.limits.head_timeout:g} s")

    def _g_body_late(self) -> None:
        self._g_body_timer = None
        self._g_close_with(408, "timeout", f"the request's body did not arrive within {_State.limits.body_timeout:g} s "
                                           "of its head")

    def data_received(self, data: bytes) -> None:
        if self._g_refusal is not None or self._g_drain or self.transport.is_closing():
            return
        self._unset_keepalive_if_required()
        if self._g_in_head:
            self._g_head_bytes += len(data)
        try:
            self.parser.feed_data(data)
        except _Refused:
            if self._g_drain:
                return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        except httptools.HttpParserError as e:
            if isinstance(e.__context__, _Refused):
                if self._g_drain:
                    return
            else:
                self._g_refusal = (400, "bad_request", f"not HTTP/1.1 this server reads: {str(e)[:200]}")
        if self._g_refusal is None and self._g_in_head and self._g_head_bytes > _State.limits.max_head:
            self._g_refusal = (431, "too_large", f"the request head is over {_State.limits.max_head} bytes")
        if self._g_refusal is not None:
            self._g_cancel_timers()
            self._g_close_with(*self._g_refusal)

    def send_400_response(self, msg: str) -> None:  # uvicorn's own parse errors: the JSON shape too
        self._g_close_with(400, "bad_request", msg)

    def _g_fail(self, status: int, code: str, message: str) -> None:
        self._g_refusal = (status, code, message)
        raise _Refused(message)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._g_in_head = True
        self._g_headers = 0
        self._g_url = 0
        self._g_head_size = 0
        if len(self.pipeline) >= _State.limits.max_pipeline:
            # sent ahead past the bound: the requests queued are answered, the rest is not read, and the
            # connection closes after the last answer (an answer cannot go out of its turn)
            self._g_drain = True
            if self.cycle is not None:
                self.cycle.keep_alive = False
            self.flow.pause_reading()
            raise _Refused("pipelined past the bound")
        if self._g_head_timer is None:
            self._g_head_timer = self.loop.call_later(_State.limits.head_timeout, self._g_head_late)

    def on_url(self, url: bytes) -> None:
        self._g_url += len(url)
        self._g_head_size += len(url)
        if self._g_url > _State.limits.max_request_line:
            self._g_fail(414, "too_large", f"the request target is over {_State.limits.max_request_line} bytes")
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._g_headers += 1
        if self._g_headers > _State.limits.max_headers:
            self._g_fail(431, "too_large", f"the request has over {_State.limits.max_headers} header fields")
        self._g_head_size += len(name) + len(value) + 4
        if self._g_head_size > _State.limits.max_head:
            self._g_fail(431, "too_large", f"the request head is over {_State.limits.max_head} bytes")
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._g_in_head = False
        self._g_head_bytes = 0
        if self._g_head_timer is not None:
            self._g_head_timer.cancel()
            self._g_head_timer = None
        super().on_headers_complete()
        if not (self.parser.should_upgrade() and self._should_upgrade()):
            self._g_body_timer = self.loop.call_later(_State.limits.body_timeout, self._g_body_late)

    def on_message_complete(self) -> None:
        if self._g_body_timer is not None:
            self._g_body_timer.cancel()
            self._g_body_timer = None
        self._g_in_head = True  # what follows is the next request's head
        self._g_head_bytes = 0
        super().on_message_complete()

    def on_response_complete(self) -> None:
        cycle = self.cycle
        if cycle is not None and cycle.response_complete and cycle.more_body and not self.transport.is_closing():
            # answered before its body ended (a 413, a refusal): the rest of the body is not read, nor waited for
            self._g_close()
        super().on_response_complete()
