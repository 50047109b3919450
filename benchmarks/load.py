"""Load test of `tjmj serve`, loopback only, a fixed number of requests.

For each worker count (1 and 2) it starts `tjmj serve` on a free port of
127.0.0.1, warms it up, then sends a fixed number of POST /score requests
(random winning hands, hun-free and with huns, each with its own id) from C
concurrent clients over keep-alive HTTP/1.1 connections, and reports
requests/s, p50/p99/max latency, errors (a status other than 200, an answer
that is not the contract's or not for its request) and lost requests (no
answer). The server is stopped after each run. Not a test: run it and read the
numbers.

    pip install -e ".[serve,bench]" && python benchmarks/load.py [--requests 20000] [--clients 1 8 32]

The client runs on the same machine as the server: on 2 cores the client's own
work competes with the workers', so the figures are a floor for the service.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.bench import hands  # noqa: E402

HOST = "127.0.0.1"  # loopback only: this script never sends to another address


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def start(workers: int) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tjmj_dsl.cli", "serve", "--host", HOST, "--port", str(port),
                             "--workers", str(workers)], cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"tjmj serve exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            with socket.create_connection((HOST, port), timeout=1) as s:
                s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    return proc, port
        except OSError:
            pass
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


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.answered = 0


async def client(port: int, work: list[tuple[int, bytes]], stats: Stats, timeout: float) -> None:
    """One keep-alive connection sending its share of the requests one after another."""
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        for rid, body in work:
            head = (f"POST /score HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n").encode()
            t = time.perf_counter()
            writer.write(head + body)
            try:
                status_line = await asyncio.wait_for(reader.readline(), timeout)
                length = 0
                while True:
                    line = await asyncio.wait_for(reader.readline(), timeout)
                    if line in (b"\r\n", b""):
                        break
                    k, _, v = line.decode("latin-1").partition(":")
                    if k.strip().lower() == "content-length":
                        length = int(v)
                payload = await asyncio.wait_for(reader.readexactly(length), timeout)
            except (asyncio.TimeoutError, asyncio.IncompleteReadError, ConnectionError) as e:
                stats.errors.append(f"request {rid}: {type(e).__name__}")
                return  # the connection is no longer usable: its remaining requests count as lost
            stats.latencies.append(time.perf_counter() - t)
            stats.answered += 1
            if not status_line.startswith(b"HTTP/1.1 200"):
                stats.errors.append(f"request {rid}: {status_line.decode().strip()}")
                continue
            answer = json.loads(payload)
            if answer.get("id") != rid or answer.get("contract") != 2 or "error" in answer \
                    or not (answer.get("win") or answer.get("reason") == "below_min_fan"):  # a bare 提溜 is below min_fan 2
                stats.errors.append(f"request {rid}: unexpected answer {payload[:200]!r}")
    finally:
        writer.close()


async def load(port: int, bodies: list[tuple[int, bytes]], clients: int, timeout: float) -> tuple[Stats, float]:
    stats = Stats()
    shares = [bodies[i::clients] for i in range(clients)]
    t = time.perf_counter()
    await asyncio.gather(*(client(port, share, stats, timeout) for share in shares))
    return stats, time.perf_counter() - t


def requests(n: int, seed: int) -> list[tuple[int, bytes]]:
    """n POST bodies: random winning hands, three quarters hun-free, the rest with 2 or 4 huns."""
    rng = random.Random(seed)
    pool = hands(200, 0, seed) + hands(40, 2, seed + 1) + hands(27, 4, seed + 2)
    return [(i, json.dumps(dict(rng.choice(pool), id=i)).encode()) for i in range(n)]


def pct(xs: list[float], p: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=20_000, help="requests per run (default 20000)")
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32], help="concurrent clients (default 1 8 32)")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="server worker processes (default 1 2)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for one answer (default 30)")
    a = ap.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpu(s), load average {os.getloadavg()[0]:.2f}; "
          f"{a.requests} POST /score per run to {HOST}\n")
    print(f"{'workers':>7} {'clients':>7} {'requests/s':>11} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} "
          f"{'errors':>6} {'lost':>5}")
    failures = 0
    for w in a.workers:
        proc, port = start(w)
        try:
            asyncio.run(load(port, requests(500, 99), 4, a.timeout))  # warm-up: each worker's tables and caches
            for c in a.clients:
                bodies = requests(a.requests, 1000 + c)
                stats, secs = asyncio.run(load(port, bodies, c, a.timeout))
                lost = len(bodies) - stats.answered
                failures += len(stats.errors) + lost
                print(f"{w:>7} {c:>7} {stats.answered / secs:>11.0f} {pct(stats.latencies, .5) * 1e3:>8.2f} "
                      f"{pct(stats.latencies, .99) * 1e3:>8.2f} {max(stats.latencies) * 1e3:>8.2f} "
                      f"{len(stats.errors):>6} {lost:>5}", flush=True)
                for e in stats.errors[:5]:
                    print("    " + e)
        finally:
            stop(proc)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    if failures:
        raise SystemExit(f"{failures} request(s) failed or were lost")


if __name__ == "__main__":
    main()
