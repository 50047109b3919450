"""Helpers of the table tests: a real `tjmj play` server process, and what a seat may know.

`hidden_truth` rebuilds, from a finished hand's record, every seat's concealed
tiles after each event, so a test can hold each message a socket received to
what that socket's seat (or a spectator) may see — computed here from the
record, independently of the server's views."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from typing import Any

import httpx

HIDDEN_TYPES = ("draw", "concealed_kong")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PlayServer:
    """`tjmj play --no-browser` on a free port with its own database; `link` is the printed seat link."""

    def __init__(self, db: str, *args: str, port: int | None = None) -> None:
        self.db = db
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.args = args
        self.proc: subprocess.Popen[str] | None = None
        self.link = ""

    def start(self) -> "PlayServer":
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tjmj_dsl.cli", "play", "--no-browser", "--db", self.db, "--port", str(self.port),
             *self.args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        assert self.proc.stdout is not None
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"tjmj play ended: {self.proc.stderr.read() if self.proc.stderr else ''}")
            m = re.search(r"(http://\S+#seat=\S+)", line)
            if m:
                self.link = m.group(1)
                break
        httpx.get(self.base + "/play/api/config", timeout=30).raise_for_status()
        return self

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill9()


def hidden(e: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """An event as `seat` sees it (None: a spectator): another's draw or concealed kong without its tile."""
    if e["type"] in HIDDEN_TYPES and e["seat"] != seat:
        return {**e, "tile": None}
    return dict(e)


def hands_after(rec: dict[str, Any]) -> list[list[Counter[str]]]:
    """Each seat's concealed tiles after 0, 1, … n of the record's events."""
    dealer = rec["dealer"]
    cur = [Counter(h) for h in rec["deal"]]
    out = [[Counter(c) for c in cur]]
    for e in rec["events"]:
        s, t, typ = e["seat"], e["tile"], e["type"]
        take = {"draw": -1, "discard": 1, "pong": 2, "kong": 3, "concealed_kong": 4, "added_kong": 1}.get(typ, 0)
        if take < 0:
            cur[s][t] += 1
        elif take:
            cur[s][t] -= take
        out.append([+Counter(c) for c in cur])
    assert dealer in range(4)
    return out


def keys_of(x: Any, path: str = "") -> set[str]:
    """Every key anywhere in a JSON value."""
    if isinstance(x, dict):
        got = set(x)
        for v in x.values():
            got |= keys_of(v)
        return got
    if isinstance(x, list):
        got = set()
        for v in x:
            got |= keys_of(v)
        return got
    return set()


class Postgres:
    """A real PostgreSQL server (Debian's `postgresql` package) in a temporary directory, on a free
    port of 127.0.0.1, trusting local connections; run as the `postgres` user when the tests run as
    root (initdb refuses root). `url` is the database's URL; `skip` says why none could be started."""

    def __init__(self) -> None:
        import glob
        import pwd
        import shutil
        import tempfile

        self.skip = ""
        self.proc_dir = ""
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            self.skip = "no PostgreSQL here: install Debian's postgresql package (tools/setup_test_deps.py)"
            return
        self.bin = os.path.dirname(bins[-1])
        self.prefix: list[str] = []
        d = tempfile.mkdtemp(prefix="tjmj-pg-")  # under /tmp: pytest's own directories are closed to other users
        if os.geteuid() == 0:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                self.skip = "running as root without a postgres user: PostgreSQL will not start as root"
                return
            os.chown(d, pw.pw_uid, pw.pw_gid)
            runuser = shutil.which("runuser")
            if runuser is None:
                self.skip = "running as root without runuser: PostgreSQL will not start as root"
                return
            self.prefix = [runuser, "-u", "postgres", "--"]
        self.dir = d
        self.port = free_port()
        data = os.path.join(d, "data")
        subprocess.run([*self.prefix, f"{self.bin}/initdb", "-D", data, "-U", "tjmj", "--auth=trust", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True)
        subprocess.run([*self.prefix, f"{self.bin}/pg_ctl", "-D", data, "-l", os.path.join(d, "log"), "-w", "-o",
                        f"-p {self.port} -k {d} -h 127.0.0.1 -F", "start"], check=True, capture_output=True)
        self.data = data
        self.url = f"postgresql://tjmj@127.0.0.1:{self.port}/postgres"

    def pause(self) -> None:
        """Stop the server as a crash would (its data kept): the database is down until resume()."""
        subprocess.run([*self.prefix, f"{self.bin}/pg_ctl", "-D", self.data, "-m", "immediate", "stop"],
                       check=True, capture_output=True)

    def resume(self) -> None:
        subprocess.run([*self.prefix, f"{self.bin}/pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "log"), "-w",
                        "-o", f"-p {self.port} -k {self.dir} -h 127.0.0.1 -F", "start"], check=True, capture_output=True)

    def _pids(self) -> list[str]:
        """The postmaster's pid and its children's (the backends serving each connection)."""
        with open(os.path.join(self.data, "postmaster.pid"), encoding="ascii") as f:
            main = f.readline().strip()
        kids = []
        for p in os.listdir("/proc"):
            try:
                with open(f"/proc/{p}/stat", encoding="ascii", errors="replace") as f:
                    if p.isdigit() and f.read().rsplit(")", 1)[1].split()[1] == main:
                        kids.append(p)
            except (OSError, IndexError):
                continue
        return [main, *kids]

    def freeze(self) -> None:
        """Stop every process of the server (SIGSTOP), its connections left open: a database that hangs
        without failing (its host's kernel still acknowledges what is sent), until thaw()."""
        subprocess.run([*self.prefix, "kill", "-STOP", *self._pids()], check=True, capture_output=True)

    def thaw(self) -> None:
        subprocess.run([*self.prefix, "kill", "-CONT", *self._pids()], check=True, capture_output=True)

    def stop(self) -> None:
        if not self.skip:
            subprocess.run([*self.prefix, f"{self.bin}/pg_ctl", "-D", self.data, "-m", "immediate", "stop"],
                           capture_output=True)
            import shutil
            shutil.rmtree(self.dir, ignore_errors=True)
