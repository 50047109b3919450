"""What one HTTP client may cost a server: the limits of tjmj_dsl.guard, their
defaults, and the command-line options that set them (tjmj_dsl.cli_args's
types: a bad number is a usage error). Standard library only: the CLI builds
its parser with this module without importing any server."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from urllib.parse import urlsplit
from typing import Any

from ..cli_args import int_in, number_in


@dataclass(frozen=True)
class Limits:
    """Every bound the guard enforces; docs/reliability.md states each one."""

    max_connections: int = 256          # open connections in all (HTTP and WebSocket)
    max_client_connections: int = 32    # open connections from one client address
    max_request_line: int = 8192        # bytes of the request line (method, target, version)
    max_head: int = 16384               # bytes of the request head (request line and headers)
    max_headers: int = 64               # header fields in one request
    max_pipeline: int = 8               # requests a connection may send ahead of their answers
    head_timeout: float = 10.0          # seconds from a connection's opening (or a request's first byte) to its head's end
    body_timeout: float = 30.0          # seconds from a head's end to its body's end
    keep_alive: int = 5                 # seconds an idle keep-alive connection is kept
    max_body: int = 1 << 20             # bytes of one request body (held for a chunked body of unknown length)
    body_memory: int = 64 << 20         # bytes of request bodies being read, all requests together
    max_work: int = 2                   # requests worked out in threads at once (about the cores)
    max_client_work: int = 2            # of those, from one client (working or waiting)
    work_wait: float = 10.0             # seconds a request waits for a thread before it is refused
    request_cpu: float = 10.0           # CPU seconds one request's work may take
    max_rule_sets: int = 16             # distinct profile/option sets one request may name
    ws_max_message: int = 1 << 20       # bytes of one WebSocket message
    cors_origins: tuple[str, ...] = ()  # origins (scheme://host[:port]) whose pages may call; "*" any
    allowed_hosts: tuple[str, ...] | None = ("localhost", "127.0.0.1", "::1")  # Host header names; None: any
    proxies: tuple[str, ...] = ()  # reverse proxies' addresses: not one client (no per-client connection bound),
    # and a request through one is its X-Forwarded-For client's (uvicorn's proxy headers, trusting these alone)


LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")

# (field, flag, type, help): the options `tjmj serve` (and `tjmj play`) take for them
_INT_OPTIONS: tuple[tuple[str, str, int, int, str], ...] = (
    ("max_connections", "--max-connections", 1, 10_000, "open connections in all"),
    ("max_client_connections", "--max-client-connections", 1, 10_000, "open connections from one client address"),
    ("keep_alive", "--keep-alive", 1, 600, "seconds an idle keep-alive connection is kept"),
    ("max_work", "--max-work", 1, 64, "requests worked out in threads at once"),
    ("max_rule_sets", "--max-rule-sets", 1, 10_000, "distinct profile/option sets one request may name"),
)
_FLOAT_OPTIONS: tuple[tuple[str, str, float, float, str], ...] = (
    ("head_timeout", "--head-timeout", 0.1, 3600.0, "seconds a request's head may take to arrive"),
    ("body_timeout", "--body-timeout", 0.1, 3600.0, "seconds a request's body may take to arrive"),
    ("request_cpu", "--request-cpu", 0.01, 3600.0, "CPU seconds one request's work may take"),
)


def origin(text: str) -> str:
    """An argparse type: an origin as a browser sends it (scheme://host[:port], no path), or *."""
    return "*" if text.strip() == "*" else page_origin(text)


def page_origin(text: str) -> str:
    """An argparse type: one origin as a browser sends it (scheme://host[:port], no path), not *."""
    t = text.strip()
    scheme, sep, rest = t.partition("://")
    if sep and scheme in ("http", "https") and rest and not any(c in rest for c in "/?#@ ") and t.isascii():
        return t
    raise argparse.ArgumentTypeError(f"not an origin (scheme://host[:port]): {text[:80]!r}")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The guard's options (each with its default in the help)."""
    d = Limits()
    for name, flag, lo, hi, what in _INT_OPTIONS:
        p.add_argument(flag, type=int_in(lo, hi), default=getattr(d, name), metavar="N",
                       help=f"{what} (default {getattr(d, name)}; {lo}–{hi:,})")
    for name, flag, flo, fhi, what in _FLOAT_OPTIONS:
        p.add_argument(flag, type=number_in(flo, fhi, " seconds"), default=getattr(d, name), metavar="SECONDS",
                       help=f"{what} (default {getattr(d, name):g})")
    p.add_argument("--allow-host", action="append", metavar="NAME",
                   help="a name clients may reach the server by (the Host header; repeatable), beside localhost, "
                        "the loopback addresses and the hosts of --table-origin; default: those, or any name when "
                        "listening on every address")
    p.add_argument("--proxy", action="append", metavar="ADDRESS", type=ip_address,
                   help="the address of a reverse proxy in front of the server (repeatable): its connections are "
                        "not counted as one client's, and a request through it is the client its X-Forwarded-For "
                        "header names (the per-client limits key on that); default: none, every header ignored")


def from_args(args: argparse.Namespace, host: str) -> Limits:
    """The limits the parsed options ask for, serving on `host`."""
    kw: dict[str, Any] = {name: getattr(args, name) for name, *_ in _INT_OPTIONS + _FLOAT_OPTIONS  # type: ignore[operator]
                          if getattr(args, name, None) is not None}
    kw["cors_origins"] = tuple(getattr(args, "cors_origin", None) or ())
    kw["allowed_hosts"] = allowed_hosts(host, getattr(args, "allow_host", None), getattr(args, "table_origin", None))
    kw["proxies"] = tuple(dict.fromkeys(getattr(args, "proxy", None) or ()))
    return Limits(**kw)


def client_key(host: str) -> str:
    """Whom a per-client limit counts a request for: an IPv4 address, an IPv6 address as its /64 (one
    user's network: a review found 2001:db8::7 and 2001:db8:0:0::7 counted apart, and a /64 gives one
    user all the addresses it wants), an IPv4-mapped address as its IPv4, anything else (a test
    client's name) as it is. The text of a forwarded-for header reaches the app as written."""
    import ipaddress
    try:
        ip = ipaddress.ip_address(host.strip().strip("[]"))
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:  # ::ffff:192.0.2.1 is 192.0.2.1
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def ip_address(text: str) -> str:
    """An argparse type: one IP address (v4 or v6), as the server sees a connection's peer."""
    import ipaddress
    try:
        return str(ipaddress.ip_address(text.strip().strip("[]")))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an IP address: {text[:80]!r}") from None


def allowed_hosts(bind: str, named: list[str] | None, origins: list[str] | None = None) -> tuple[str, ...] | None:
    """The Host names a server listening on `bind` answers to: the loopback names and `bind` itself, the
    names given (--allow-host) and the hosts of the page origins the server is reached by (--table-origin:
    behind a proxy, the club's public name, which the proxy passes as Host) — a page whose name a DNS
    rebinding points at this machine is not among them — or any (None) when it listens on every address
    and none is named. The loopback names stay when others are named: a proxy's or a health check's
    request to 127.0.0.1 was refused once a public name was given."""
    extra = [h.strip().lower().strip("[]") for h in named or ()]
    extra += [(urlsplit(o).hostname or "").lower() for o in origins or () if o != "*"]
    if bind in WILDCARD_BINDS:
        if not named:
            return None
        return tuple(dict.fromkeys(LOOPBACK_HOSTS + tuple(h for h in extra if h)))
    return tuple(dict.fromkeys(LOOPBACK_HOSTS + (bind.lower().strip("[]"),) + tuple(h for h in extra if h)))

