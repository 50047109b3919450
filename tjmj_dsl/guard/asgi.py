"""The ASGI half of the guard: who may call (the Host a request names, the page it comes from)
and how much of the request bodies being read the process holds at once. Runs before the app
for every HTTP request and WebSocket handshake, so a refused one costs no work."""

from __future__ import annotations

import json
from typing import Any, Callable
from urllib.parse import urlsplit

from .limits import Limits, client_key

Refusal = Callable[[str, str], bytes]  # (code, message) → the JSON body of a refusal
SMALL_BODY = 65536  # bytes: a body this small (one request) is not counted against body_memory


def _split_host(host: str) -> tuple[str, int | None]:
    """(name, port or None) of a Host header's value (an IPv6 address without its brackets)."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif host.count(":") == 1:
        name, port = host.split(":")
    else:
        name, port = host, ""
    if not port:
        return name, None
    # a port that is not ASCII digits ('²' is a digit to str.isdigit, not to int) matches no origin's
    return name, (int(port) if port.isascii() and port.isdigit() and len(port) <= 5 else -1)


def _host_name(host: str) -> str:
    return _split_host(host)[0]


def refused_origin(limits: Limits, scope: dict[str, Any], headers: dict[bytes, bytes]) -> tuple[int, str, str] | None:
    """Why a request may not be served here, (status, code, message), or None.

    - its Host names a name the server does not answer to (a DNS rebinding: a page of another
      site whose name was pointed at this machine is, for the browser, that site's own origin);
    - it comes from a page of another origin (its Origin header) that --cors-origin does not name:
      refused whatever its method and content type, so that a "simple" cross-site POST (text/plain,
      a form), which a browser sends without asking first, does no work either;
    - it has no Origin but the browser says it is cross-site (Sec-Fetch-Site), and is not a
      top-level navigation (a link followed to /docs)."""
    host = headers.get(b"host", b"").decode("latin-1")
    if limits.allowed_hosts is not None and _host_name(host) not in limits.allowed_hosts:
        return 403, "bad_host", (f"this server does not answer to the name {host[:100]!r} (--allow-host names the ones "
                                 f"it answers to)")
    anyone = "*" in limits.cors_origins
    origin = headers.get(b"origin")
    if origin is not None:
        o = origin.decode("latin-1").strip()
        if anyone or o in limits.cors_origins:
            return None
        scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
        if same_origin(o, scheme, host):
            return None
        return 403, "cors_refused", (f"a page of the origin {o[:100]!r} may not call this server (--cors-origin names "
                                     f"the origins that may, --table-origin those of `serve --tables`)")
    site = headers.get(b"sec-fetch-site", b"").decode("latin-1").lower()
    if site in ("cross-site", "same-site") and not anyone:
        navigate = headers.get(b"sec-fetch-mode", b"") == b"navigate" and scope.get("method", "GET") in ("GET", "HEAD")
        if not navigate:
            return 403, "cors_refused", f"a {site} request from a page of another origin may not call this server"
    return None


def same_origin(origin: str, scheme: str, host: str) -> bool:
    """Whether a page of `origin` is this server's own page, reached as `host` over `scheme`."""
    try:
        u = urlsplit(origin)
        oport = u.port
    except ValueError:
        return False
    default = 443 if scheme == "https" else 80
    name, port = _split_host(host)
    return u.scheme == scheme and (u.hostname or "") == name and (oport or default) == (port or default)


class Guard:
    """An ASGI app in front of another: refuses what refused_origin refuses, and a large request
    body (over SMALL_BODY) that would take the large bodies being read past limits.body_memory,
    or one client's past a quarter of it (each request holds what its Content-Length says, or
    limits.max_body for a chunked one, until it is answered). A small body is never refused so:
    a well-behaved client's /score goes through while an attacker's batches fill the pool."""

    def __init__(self, app: Any, limits: Limits, refusal: Refusal) -> None:
        self.app = app
        self.limits = limits
        self.refusal = refusal
        self.body_bytes = 0  # held by the large bodies of the requests being served
        self.client_bytes: dict[str, int] = {}  # of those, by client address

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            return await self.app(scope, receive, send)  # type: ignore[no-any-return]
        headers: dict[bytes, bytes] = {}
        for k, v in scope.get("headers", ()):
            headers.setdefault(k, v)
        why = refused_origin(self.limits, scope, headers)
        if why is not None:
            if kind == "websocket":
                return await self._deny_handshake(scope, receive, send, *why)
            return await self._answer(send, *why)
        if kind == "websocket":
            return await self.app(scope, receive, send)  # type: ignore[no-any-return]
        declared = headers.get(b"content-length", b"")
        chunked = b"chunked" in headers.get(b"transfer-encoding", b"").lower()
        hold = int(declared) if declared.isdigit() and len(declared) < 19 else (self.limits.max_body if chunked else 0)
        hold = min(hold, self.limits.max_body)  # a larger body is refused by the app before it is read
        if hold <= SMALL_BODY:  # a single request's size: bounded by the connections' count, never refused here
            return await self.app(scope, receive, send)  # type: ignore[no-any-return]
        client = client_key((scope.get("client") or ("",))[0])
        mine = self.client_bytes.get(client, 0)
        share = self.limits.body_memory // 4
        if self.body_bytes + hold > self.limits.body_memory or mine + hold > share:
            return await self._answer(send, 503, "busy", f"the server is reading {self.body_bytes} bytes of large "
                                                         f"request bodies ({mine} for this client); the limit is "
                                                         f"{self.limits.body_memory} ({share} for one client)")
        self.body_bytes += hold
        self.client_bytes[client] = mine + hold
        try:
            await self.app(scope, receive, send)
        finally:
            self.body_bytes -= hold
            left = self.client_bytes[client] - hold
            if left:
                self.client_bytes[client] = left
            else:
                del self.client_bytes[client]

    async def _answer(self, send: Any, status: int, code: str, message: str) -> None:
        body = self.refusal(code, message)
        # refused before its body was read: the connection is closed after this answer, and says so (a
        # keep-alive client's next request on it would be reset)
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def _deny_handshake(self, scope: dict[str, Any], receive: Any, send: Any, status: int, code: str,
                              message: str) -> None:
        """Refuse a WebSocket handshake: an HTTP answer with the JSON refusal where the server
        can send one (the ASGI denial-response extension), else a close before accepting (403)."""
        msg = await receive()
        if msg.get("type") != "websocket.connect":
            return
        if "websocket.http.response" in (scope.get("extensions") or {}):
            body = self.refusal(code, message)
            await send({"type": "websocket.http.response.start", "status": status,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "websocket.http.response.body", "body": body})
        else:
            reason = f"{code}: {message}".encode("utf-8")[:123].decode("utf-8", "ignore")  # a close reason's bound
            await send({"type": "websocket.close", "code": 1008, "reason": reason})


def refusal_json(code: str, message: str) -> bytes:
    """The guard's refusal when its app gives none of its own: the contract's error shape."""
    return json.dumps({"error": {"code": code, "message": message, "field": None}}).encode("utf-8")
