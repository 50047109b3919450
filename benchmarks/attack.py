"""`tjmj serve` under attack, loopback only: a well-behaved client's latency and the server's memory.

For each attack it starts `tjmj serve` (the shipped limits, one worker) on a free port of
127.0.0.1, runs the attack from other loopback addresses (127.0.x.y: the per-client limits see
them as other clients, as they would see other machines), and meanwhile a well-behaved client
on 127.0.0.1 alternates GET /health and POST /score (a hand with huns) over one keep-alive
connection, one request at a time. It reports that client's p50/p99/max latency, its failures
(an answer other than 200, a connection error), the attack's rate, and the server's peak
resident memory (VmRSS, sampled every 0.1 s). Not a test: run it and read the numbers.

    pip install -e ".[serve]" && python benchmarks/attack.py [--seconds 10] [--attacks slowloris,...]

The attackers run (in a process of their own) on the same 2 cores as the server: the figures
include that competition.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from typing import Any, Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = "127.0.0.1"  # every connection goes to this address; attackers only bind other loopback sources
GOOD = {"concealed": "4455566667mNNN", "draw": "5m", "indicator": "4m"}
HEAVY = GOOD  # some 0.15 ms to score: a batch of 10,000 is 1.5 s of CPU
OPTION_SETS = [{"min_fan": m, "chan_points": c, "tianting": t, "subenlong": s}
               for m in (1, 3) for c in (1, 2) for t in ("on", "off") for s in ("on", "off")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def start(extra: list[str]) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tjmj_dsl.cli", "serve", "--host", HOST, "--port", str(port), *extra],
                            cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            c = http.client.HTTPConnection(HOST, port, timeout=2)
            c.request("GET", "/health")
            if c.getresponse().status == 200:
                c.close()
                return proc, port
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("tjmj serve did not start within 180 s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=30)


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def connect(port: int, src: str, timeout: float = 15.0) -> socket.socket:
    s = socket.socket()
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect((HOST, port))
    return s


def drain(s: socket.socket) -> None:
    try:
        while s.recv(65536):
            pass
    except OSError:
        pass


class Attackers:
    """Attack threads, each looping one attack from its own source address until stopped."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.halt = threading.Event()
        self.count = 0
        self.threads: list[threading.Thread] = []

    def spawn(self, fn: Callable[[str], None], sources: list[str]) -> None:
        for src in sources:
            t = threading.Thread(target=self._loop, args=(fn, src), daemon=True)
            t.start()
            self.threads.append(t)

    def _loop(self, fn: Callable[[str], None], src: str) -> None:
        while not self.halt.is_set():
            try:
                fn(src)
                self.count += 1
            except OSError:
                time.sleep(0.005)

    def end(self) -> None:
        self.halt.set()
        for t in self.threads:
            t.join(timeout=40)

    # --- attacks: each one round of its kind --------------------------------------------------
    def slowloris(self, src: str) -> None:
        """Connections held open by a header byte now and then (16 from each address)."""
        conns = []
        try:
            for _ in range(16):
                conns.append(connect(self.port, src))
                conns[-1].sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n")
            for _ in range(30):
                if self.halt.is_set():
                    break
                for c in conns:
                    c.sendall(b"X-A: b\r\n")
                time.sleep(0.5)
        finally:
            for c in conns:
                c.close()

    def flood(self, src: str) -> None:
        """Connections opened and closed as fast as one thread can."""
        connect(self.port, src).close()

    def big_heads(self, src: str) -> None:
        """Heads of 100 KB (one header), and 1,000 headers."""
        for head in (b"X-A: " + b"a" * 100_000 + b"\r\n", b"".join(b"X-%d: a\r\n" % i for i in range(1000))):
            s = connect(self.port, src)
            try:
                s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n" + head + b"\r\n")
            except OSError:
                pass
            drain(s)
            s.close()

    def malformed(self, src: str) -> None:
        """Conflicting lengths, then binary noise."""
        for raw in (b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
                    bytes(range(256))):
            s = connect(self.port, src)
            s.sendall(raw)
            drain(s)
            s.close()

    def batches(self, src: str) -> None:
        """A JSONL batch of 10,000 hands with huns (1.5 s of CPU unbudgeted), again and again."""
        body = "\n".join(json.dumps(dict(HEAVY, id=i)) for i in range(10_000)).encode()
        self._post(src, "/score/batch", body, b"application/x-ndjson")

    def option_sets(self, src: str) -> None:
        """Batches naming 16 new option sets each (each a scorer to compile)."""
        self._post(src, "/score/batch", json.dumps([dict(HEAVY, id=i, options=o) for i, o in
                                                     enumerate(OPTION_SETS)]).encode(), b"application/json")

    def waits(self, src: str) -> None:
        """/waits of a hand of many huns (some 0.1 s each), ten on one connection."""
        body = json.dumps({"concealed": "1112345678999m", "indicator": "4m"}).encode()
        s = connect(self.port, src)
        try:
            for _ in range(10):
                s.sendall(b"POST /waits HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d\r\n\r\n" % len(body)
                          + body)
                s.recv(65536)
        finally:
            s.close()

    def slow_bodies(self, src: str) -> None:
        """Bodies declared 1 MiB, sent at 1 KB a second."""
        s = connect(self.port, src)
        s.sendall(b"POST /score/batch HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1048576\r\n\r\n[")
        for _ in range(40):
            if self.halt.is_set():
                break
            s.sendall(b" " * 1000)
            time.sleep(1)
        s.close()

    def big_bodies(self, src: str) -> None:
        """Whole 1 MiB bodies, sent fast, on many connections at once."""
        body = b"[" + b" " * ((1 << 20) - 2) + b"]"
        self._post(src, "/score/batch", body, b"application/json")

    def cross_origin(self, src: str) -> None:
        """A page of another site posting (text/plain: no preflight)."""
        self._post(src, "/score", json.dumps(GOOD).encode(), b"text/plain", b"Origin: http://evil.example\r\n")

    def _post(self, src: str, path: str, body: bytes, ctype: bytes, extra: bytes = b"") -> None:
        s = connect(self.port, src, 60)
        s.sendall(b"POST %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: %s\r\n%s"
                  b"Content-Length: %d\r\n\r\n" % (path.encode(), ctype, extra, len(body)) + body)
        drain(s)
        s.close()


def sources(block: int, n: int) -> list[str]:
    return [f"127.0.{block}.{i + 1}" for i in range(n)]


ATTACKS: dict[str, Callable[[Attackers], None]] = {
    "none": lambda a: None,
    "slowloris": lambda a: a.spawn(a.slowloris, sources(10, 12)),  # 192 connections held
    "slowloris_20": lambda a: a.spawn(a.slowloris, sources(19, 20)),  # 320 wanted: past the cap in all (256)
    "flood": lambda a: a.spawn(a.flood, sources(11, 4)),
    "big_heads": lambda a: a.spawn(a.big_heads, sources(12, 4)),
    "malformed": lambda a: a.spawn(a.malformed, sources(13, 4)),
    "batches": lambda a: a.spawn(a.batches, sources(14, 4)),
    "option_sets": lambda a: a.spawn(a.option_sets, sources(15, 4)),
    "waits": lambda a: a.spawn(a.waits, sources(29, 4) * 4),  # 4 addresses, 4 connections each
    "slow_bodies": lambda a: a.spawn(a.slow_bodies, sources(16, 64)),
    "big_bodies": lambda a: a.spawn(a.big_bodies, sources(17, 16)),
    "cross_origin": lambda a: a.spawn(a.cross_origin, sources(18, 4)),
}


def _all(a: Attackers) -> None:
    """Every attack at once, from 30 addresses (some 90 connections: under the cap in all)."""
    a.spawn(a.slowloris, sources(20, 4))
    a.spawn(a.flood, sources(21, 2))
    a.spawn(a.big_heads, sources(22, 2))
    a.spawn(a.batches, sources(23, 2))
    a.spawn(a.option_sets, sources(24, 2))
    a.spawn(a.slow_bodies, sources(25, 8))
    a.spawn(a.big_bodies, sources(26, 4))
    a.spawn(a.malformed, sources(27, 2))
    a.spawn(a.cross_origin, sources(28, 2))
    a.spawn(a.waits, sources(29, 2) * 2)


ATTACKS["all"] = _all


def good_client(port: int, until: float) -> tuple[list[float], int]:
    """The well-behaved client: /health and /score in turn, one at a time, until `until`."""
    lat: list[float] = []
    failed = 0
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    body = json.dumps(GOOD)
    i = 0
    while time.monotonic() < until:
        t = time.monotonic()
        try:
            if i % 2:
                conn.request("POST", "/score", body=body, headers={"Content-Type": "application/json"})
            else:
                conn.request("GET", "/health")
            res = conn.getresponse()
            res.read()
            if res.status != 200:
                failed += 1
        except (OSError, http.client.HTTPException):
            failed += 1
            conn.close()
            conn = http.client.HTTPConnection(HOST, port, timeout=30)
            continue
        lat.append(time.monotonic() - t)
        i += 1
        time.sleep(0.02)
    conn.close()
    return lat, failed


def run(name: str, seconds: float, extra: list[str]) -> dict[str, Any]:
    proc, port = start(extra)
    peak = [rss_mb(proc.pid)]
    halt = threading.Event()

    def sample() -> None:
        while not halt.is_set():
            peak.append(rss_mb(proc.pid))
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    # the attackers in a process of their own: their threads do not compete with the good client's
    ctx = multiprocessing.get_context("fork")
    count = ctx.Value("i", 0)

    def attack() -> None:
        attackers = Attackers(port)
        ATTACKS[name](attackers)
        time.sleep(seconds + 1.5)
        attackers.end()
        count.value = attackers.count

    child = ctx.Process(target=attack, daemon=True)
    child.start()
    try:
        time.sleep(1.0)  # the attack under way
        lat, failed = good_client(port, time.monotonic() + seconds)
    finally:
        child.join(timeout=60)
        if child.is_alive():
            child.kill()
        halt.set()
        sampler.join()
        stop(proc)
    lat.sort()
    q = statistics.quantiles(lat, n=100) if len(lat) > 1 else lat * 99
    return {"attack": name, "good requests": len(lat), "failed": failed, "p50 ms": q[49] * 1000,
            "p99 ms": q[98] * 1000, "max ms": lat[-1] * 1000 if lat else 0.0,
            "attack rounds/s": count.value / (seconds + 2.5), "peak RSS MB": max(peak)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="the good client's time under each attack")
    ap.add_argument("--attacks", default=",".join(ATTACKS), help="which (comma-separated): " + ", ".join(ATTACKS))
    ap.add_argument("--serve-arg", action="append", default=[], help="an extra argument of tjmj serve (repeatable)")
    args = ap.parse_args()
    names = [x for x in args.attacks.split(",") if x]
    unknown = [x for x in names if x not in ATTACKS]
    if unknown:
        ap.error(f"no attack {unknown[0]!r}")
    rows = [run(n, args.seconds, args.serve_arg) for n in names]
    cols = list(rows[0])
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(f"{v:,.1f}" if isinstance(v, float) else str(v) for v in r.values()) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
