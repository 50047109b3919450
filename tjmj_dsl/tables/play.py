"""`tjmj play`: a table server on this machine, a room of you and three bots, and its link.

The server listens on 127.0.0.1 (a free port unless `--port`), keeps its
games in SQLite in the user's data directory (or `--db`), resumes the open
rooms it finds there, creates a new room (you at seat 0, three value bots,
the rules' default profile), prints the seat link and opens it in a
browser where one is available.
"""

from __future__ import annotations

import socket
import sys
import webbrowser
from typing import Any

from ..guard import Limits, uvicorn_options, wrap
from .app import TablesConfig, create_app
from .rulesets import RoomError

MAX_LINK_WAIT = 5.0


def run(db: str | None = None, host: str = "127.0.0.1", port: int = 0, browser: bool = True, profile: str | None = None,
        hands: int = 8, pace: float = 0.6, time_limit: float = 600.0, rules: str | None = None,
        seats: tuple[str, ...] = ("person", "value", "value", "value"), log_level: str = "warning",
        rate: float = 10.0) -> int:
    """Serve until stopped (Ctrl-C)."""
    import uvicorn
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:  # as `tjmj serve` says it (exit 3), not a traceback
        sock.close()
        print(f"tjmj: error: cannot listen on {host}:{port}: {e.strerror or e}", file=sys.stderr, flush=True)
        return 3
    sock.set_inheritable(True)
    real_port = sock.getsockname()[1]
    base = f"http://{host}:{real_port}"

    async def on_start(tables: Any) -> None:
        body: dict[str, Any] = {"seats": list(seats), "hands": hands, "time_limit": time_limit}
        if profile:
            body["profile"] = profile
        try:
            room = await tables.create(body)
        except RoomError as e:
            print(f"tjmj: error: {e.field or 'room'}: {e.message}", file=sys.stderr, flush=True)
            raise SystemExit(2) from None
        link = base + next(s["link"] for s in room["seats"] if s["link"])
        print(f"tjmj play: your seat: {link}", flush=True)
        print(f"tjmj play: watch: {base}{room['spectator']}  (Ctrl-C stops the server; the game is kept in "
              f"{tables.store.shown_url()})", flush=True)
        print(f"tjmj play: this game is resumed by the next `tjmj play` (with the same --db) until it ends; "
              f"`tjmj play --stop-room {room['room']}` ends it sooner", flush=True)
        if browser:
            try:
                webbrowser.open(link)
            except Exception:  # noqa: BLE001 - no browser here: the link is printed
                pass

    # on the loopback address every client has one address: the rooms per client are the server's
    config = TablesConfig(db=db, pace=pace, rules=(rules,), default_time_limit=time_limit, rate=rate,
                          burst=max(1, int(2 * rate)), rooms_per_client=TablesConfig.max_rooms,
                          idle_stop=float("inf"))  # one's own game, on one's own machine: kept for a tab reopened later
    app = create_app(config, on_start)
    # behind the same guard as `tjmj serve` (Host and Origin checks, bounded heads, bodies and timeouts). Its
    # connection caps are the whole server's here: on the loopback address every client has one address, so a
    # cap per client would be a cap on all; a page of another site is refused by Host/Origin, not by counting
    limits = Limits(max_connections=1024, max_client_connections=1024, ws_max_message=65_536)
    options = dict(uvicorn_options(limits), ws_per_message_deflate=False)  # the views are small; zlib cost more than it saved
    server = uvicorn.Server(uvicorn.Config(wrap(app, limits), log_level=log_level, access_log=False,
                                           timeout_graceful_shutdown=3, lifespan="on", **options))
    server.run(sockets=[sock])
    return 0
