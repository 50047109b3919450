"""Where the tables live: rooms, hands and answers in SQL (SQLAlchemy Core).

"A game is its seed and its answers": the engine is deterministic, so a hand
is stored as its seed, its dealer and every answer in order, each committed
before the table is given it. A server killed at any moment and started
again rebuilds each open hand by feeding it the stored answers. A finished
hand also keeps its record (the project's record format) for download.

SQLite (the default, one file, WAL) or PostgreSQL (`postgresql://…`, through
psycopg 3); the same statements run on both.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from sqlalchemy import (Column, Float, Integer, MetaData, String, Table, Text, create_engine, event, insert, select,
                        update)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError as SQLAlchemyError  # a failing database's error: the tables set a room aside

meta = MetaData()

rooms = Table(
    "tjmj_rooms", meta,
    Column("id", String(32), primary_key=True),
    Column("created", Float, nullable=False),
    Column("config", Text, nullable=False),  # JSON: rules, profile, options, seats, names, hands, time_limit
    Column("owner_hash", String(64), nullable=False),
    Column("seat_hashes", Text, nullable=False),  # JSON: four SHA-256 (null for a bot seat)
    Column("status", String(16), nullable=False),  # playing, stopping, over, stopped
)
hands = Table(
    "tjmj_hands", meta,
    Column("room", String(32), primary_key=True),
    Column("idx", Integer, primary_key=True, autoincrement=False),
    Column("seed", String(64), nullable=False),
    Column("dealer", Integer, nullable=True),  # null: the seed's (hand 0); else the previous hand's next dealer
    Column("status", String(16), nullable=False),  # open, done
    Column("record", Text, nullable=True),
)
answers = Table(
    "tjmj_answers", meta,
    Column("room", String(32), primary_key=True),
    Column("hand", Integer, primary_key=True, autoincrement=False),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("seat", Integer, nullable=False),
    Column("choice", Integer, nullable=False),
    Column("at", Float, nullable=False),
)


def default_path() -> Path:
    """$XDG_DATA_HOME/tjmj/tables.sqlite3 (~/.local/share/tjmj/… when unset)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "tjmj" / "tables.sqlite3"


def sqlite_path(db: str | None) -> Path | None:
    """The SQLite file `--db` names (its default when not given), or None for a database URL."""
    if db and "://" in db:
        return None
    return Path(db) if db else default_path()


def url_of(db: str | None) -> str:
    """A database URL from `--db`: a URL as given (postgresql:// is read through psycopg 3), else a
    SQLite file's path (created with its directory)."""
    path = sqlite_path(db)
    if path is None:
        assert db is not None
        if db.startswith("postgresql://") or db.startswith("postgres://"):
            return "postgresql+psycopg://" + db.split("://", 1)[1]
        return db
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


# How long the tables wait on PostgreSQL (libpq's parameters): the store is called from the server's
# event loop, so a wait is every room's. A connection not made in 10 s, a row another client keeps locked
# past 5 s, a statement past 30 s (a room's records are read in well under one), a peer that stopped
# answering mid-statement (the TCP keepalives and the user timeout find it in about 15 s): each is an
# error, which sets the room aside as an outage does (a club's operator review: a hung database froze
# every table of the server, without end).
PG_BOUNDS: dict[str, Any] = {
    "connect_timeout": 10,
    "options": "-c lock_timeout=5000 -c statement_timeout=30000 -c idle_in_transaction_session_timeout=60000",
    "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2, "keepalives_count": 3,
    "tcp_user_timeout": 15000,
}


# the libpq environment variable that sets a bound the operator may have set instead of the URL
_PG_ENV = {"connect_timeout": "PGCONNECT_TIMEOUT"}


def pg_bounds(url: str, env: Any) -> dict[str, Any]:
    """PG_BOUNDS as the connection's arguments, under what the operator set: a parameter the URL's query (or its
    libpq environment variable) sets is left to it, and `options` are the bounds' followed by the URL's (else
    PGOPTIONS'), so that the operator's settings (a search_path, a longer lock_timeout) come last and win (a
    review found a club's `?options=-csearch_path=club` dropped, its rooms looked for in another schema)."""
    from sqlalchemy.engine import make_url
    query = dict(make_url(url).query)
    out = {k: v for k, v in PG_BOUNDS.items() if k != "options" and k not in query and not env.get(_PG_ENV.get(k, ""))}
    theirs = query.get("options", env.get("PGOPTIONS", ""))
    if isinstance(theirs, tuple):  # a parameter given twice in the URL
        theirs = " ".join(theirs)
    out["options"] = f"{PG_BOUNDS['options']} {theirs}".strip()
    return out


@dataclass
class RoomRow:
    id: str
    config: dict[str, Any]
    owner_hash: str
    seat_hashes: list[str | None]
    status: str


@dataclass
class HandRow:
    idx: int
    seed: str
    dealer: int | None
    status: str
    record: dict[str, Any] | None


def unopenable(db: str | None) -> str | None:
    """Why the games' database at `db` cannot be opened (said before a server starts, in one line: a server
    that could not reach PostgreSQL printed uvicorn's start-up traceback twice), or None."""
    try:
        Store(db).close()
    except Exception as e:  # noqa: BLE001 - any driver's error (SQLAlchemy's, psycopg's, the file system's)
        where = db if db is not None else str(default_path())
        if "://" in where:
            try:
                from sqlalchemy.engine import make_url
                where = make_url(where).render_as_string(hide_password=True)
            except Exception:  # noqa: BLE001 - a URL SQLAlchemy cannot read: its text, without what follows @
                where = where.split("://", 1)[0] + "://…"
        lines = [x.strip() for x in str(getattr(e, "orig", None) or e).splitlines() if x.strip()]
        return f"cannot open the games' database {where}: {lines[0] if lines else type(e).__name__}"
    return None


class Store:
    """The rooms, hands and answers of one database."""

    def __init__(self, db: str | None = None) -> None:
        self.url = url_of(db)
        self.sqlite = self.url.startswith("sqlite")
        kw: dict[str, Any] = {"future": True}
        if self.sqlite:
            kw["connect_args"] = {"check_same_thread": False}
        else:  # a database that does not answer is an error in seconds, not a wait without end
            kw["pool_pre_ping"] = True
            kw["connect_args"] = pg_bounds(self.url, os.environ)
        self.engine: Engine = create_engine(self.url, **kw)
        if self.sqlite:
            @event.listens_for(self.engine, "connect")
            def _pragmas(conn: Any, _rec: Any) -> None:  # committed = on disk for a killed process (WAL)
                cur = conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=NORMAL")
                cur.execute("PRAGMA busy_timeout=5000")
                cur.close()
        meta.create_all(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    def shown_url(self) -> str:
        """Where the games are, to print: a SQLite file's path, or the URL without its password."""
        if self.sqlite:
            return self.url.split("///", 1)[-1]
        return self.engine.url.render_as_string(hide_password=True)

    # ------------------------------------------------------------ rooms

    def add_room(self, room_id: str, config: dict[str, Any], owner_hash: str, seat_hashes: list[str | None]) -> None:
        with self.engine.begin() as c:
            c.execute(insert(rooms).values(id=room_id, created=time.time(), config=json.dumps(config),
                                           owner_hash=owner_hash, seat_hashes=json.dumps(seat_hashes),
                                           status="playing"))

    def set_status(self, room_id: str, status: str) -> None:
        with self.engine.begin() as c:
            c.execute(update(rooms).where(rooms.c.id == room_id).values(status=status))

    def status(self, room_id: str) -> str | None:
        """The room's status as stored (None: no such room)."""
        with self.engine.connect() as c:
            r = c.execute(select(rooms.c.status).where(rooms.c.id == room_id)).first()
        return None if r is None else str(r.status)

    def stop_room(self, room_id: str) -> str | None:
        """The operator's stop (whoever holds the database needs no owner token): a room playing (or
        stopping) is stopped where it stands, its finished hands kept, and no start of a server tries it
        again. Its status before (stopped if "playing" or "stopping"), or None: no such room."""
        with self.engine.begin() as c:
            r = c.execute(select(rooms.c.status).where(rooms.c.id == room_id)).first()
            if r is None:
                return None
            if r.status in ("playing", "stopping"):
                c.execute(update(rooms).where(rooms.c.id == room_id).values(status="stopped"))
        return str(r.status)

    def room(self, room_id: str) -> RoomRow | None:
        with self.engine.connect() as c:
            r = c.execute(select(rooms).where(rooms.c.id == room_id)).first()
        return None if r is None else RoomRow(r.id, json.loads(r.config), r.owner_hash, json.loads(r.seat_hashes),
                                              r.status)

    def ping(self) -> None:
        """The health check's probe: an answer's write, rolled back (nothing is stored), which raises the
        database's error when the tables could not store an answer now. A read alone answered while another
        process held SQLite's write lock, or a client held the answers' table locked, and every write failed
        (a review: /health said ok, and rooms resumed on its word froze the server at their first write)."""
        with self.engine.connect() as c:
            tx = c.begin()
            try:
                c.execute(insert(answers).values(room="", hand=-1, seq=-1, seat=0, choice=0, at=0.0))
            finally:
                tx.rollback()

    def open_rooms(self) -> list[str]:
        with self.engine.connect() as c:
            return [r.id for r in c.execute(select(rooms.c.id).where(rooms.c.status.in_(("playing", "stopping")))
                                            .order_by(rooms.c.created))]

    # ------------------------------------------------------------ hands and answers

    def add_hand(self, room_id: str, idx: int, seed: str, dealer: int | None) -> None:
        with self.engine.begin() as c:
            c.execute(insert(hands).values(room=room_id, idx=idx, seed=seed, dealer=dealer, status="open"))

    def finish_hand(self, room_id: str, idx: int, record: dict[str, Any], room_status: str | None = None) -> None:
        """The hand's record stored, and (in the same transaction) the room's status when the game ends."""
        with self.engine.begin() as c:
            c.execute(update(hands).where((hands.c.room == room_id) & (hands.c.idx == idx))
                      .values(status="done", record=json.dumps(record, ensure_ascii=False)))
            if room_status is not None:
                c.execute(update(rooms).where(rooms.c.id == room_id).values(status=room_status))

    def hands(self, room_id: str) -> list[HandRow]:
        with self.engine.connect() as c:
            rows = c.execute(select(hands).where(hands.c.room == room_id).order_by(hands.c.idx)).all()
        return [HandRow(r.idx, r.seed, r.dealer, r.status, json.loads(r.record) if r.record else None) for r in rows]

    def record_lines(self, room_id: str, batch: int = 200) -> Iterator[str]:
        """Each finished hand's record as stored, one JSON line each, in hand order, read and given `batch` rows
        at a time."""
        after = -1
        while True:
            with self.engine.connect() as c:
                rows = c.execute(select(hands.c.idx, hands.c.record).where(
                    (hands.c.room == room_id) & (hands.c.status == "done") & (hands.c.idx > after))
                    .order_by(hands.c.idx).limit(batch)).all()
            if rows:  # a batch at a time: each is a hop to the thread that reads the database
                yield "".join(r.record + "\n" for r in rows if r.record)
            if len(rows) < batch:
                return
            after = rows[-1].idx

    def record(self, room_id: str, idx: int) -> dict[str, Any] | None:
        with self.engine.connect() as c:
            r = c.execute(select(hands.c.record).where((hands.c.room == room_id) & (hands.c.idx == idx)
                                                       & (hands.c.status == "done"))).first()
        return json.loads(r.record) if r is not None and r.record else None

    def add_answers(self, room_id: str, rows: list[tuple[int, int, int, int]]) -> None:
        """Answers (hand, seq, seat, choice) in one transaction, committed before the table is given the last."""
        if not rows:
            return
        now = time.time()
        with self.engine.begin() as c:
            c.execute(insert(answers), [{"room": room_id, "hand": h, "seq": q, "seat": s, "choice": ch, "at": now}
                                        for h, q, s, ch in rows])

    def answers(self, room_id: str, hand: int) -> list[tuple[int, int, int]]:
        """(seq, seat, choice) of a hand, in order."""
        with self.engine.connect() as c:
            rows = c.execute(select(answers.c.seq, answers.c.seat, answers.c.choice)
                             .where((answers.c.room == room_id) & (answers.c.hand == hand)).order_by(answers.c.seq)).all()
        return [(r.seq, r.seat, r.choice) for r in rows]
