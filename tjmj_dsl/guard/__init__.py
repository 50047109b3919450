"""A server's protection against hostile clients, for `tjmj serve` and any other ASGI app of the
project (the table server): `wrap(app, limits, refusal)` in the process that serves (it also
sets the limits of the HTTP protocol there), and `uvicorn_options(limits)` for uvicorn.run.

Where each bound lives and why: docs/reliability.md ("The HTTP server against hostile
clients"). Only limits.py is imported with this package: the rest needs the serve extra."""

from __future__ import annotations

from typing import Any, Callable

from .limits import Limits, add_arguments, from_args, origin

__all__ = ["Limits", "add_arguments", "from_args", "origin", "wrap", "uvicorn_options"]

PROTOCOL = "tjmj_dsl.guard.protocol:GuardedHttpToolsProtocol"
SWITCH_INTERVAL = 0.001  # seconds (sys.setswitchinterval) in a guarded server's process


def wrap(app: Any, limits: Limits, refusal: Callable[[str, str], bytes] | None = None) -> Any:
    """The ASGI app `app` behind the guard (Host, Origin and fetch-metadata checks, the request
    bodies' memory), and this process's guarded HTTP protocol set to `limits` (its own refusals
    written by `refusal(code, message)` → JSON bytes, by default {"error": {...}})."""
    import sys
    from . import asgi, protocol
    protocol.configure(limits, refusal)
    # the event loop asks for the interpreter back after 1 ms instead of 5 while work threads run:
    # its answers wait less behind theirs, at a small cost to their speed
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
    return asgi.Guard(app, limits, refusal or asgi.refusal_json)


def uvicorn_options(limits: Limits) -> dict[str, Any]:
    """The keyword arguments of uvicorn.run / uvicorn.Config that go with the guard: the guarded
    protocol (it needs httptools), the idle keep-alive, WebSocket message bounds and keep-alive
    pings. uvicorn's own limit_concurrency stays off: the protocol refuses over-limit connections
    at their opening, in the JSON shape, and counts WebSockets too."""
    return {
        "http": PROTOCOL,
        "timeout_keep_alive": limits.keep_alive,
        "ws_max_size": limits.ws_max_message,
        "ws_max_queue": 16,
        "ws_ping_interval": 20.0,
        "ws_ping_timeout": 20.0,
        # a client is the address it connects from, not what a header says; through a proxy named by
        # --proxy, the address that proxy forwards (X-Forwarded-For, believed from it alone)
        "proxy_headers": bool(limits.proxies),
        "forwarded_allow_ips": list(limits.proxies) or None,
        "backlog": 2 * limits.max_connections,
        "h11_max_incomplete_event_size": limits.max_head,  # if a deployment picks h11 for WebSockets' sake
    }
