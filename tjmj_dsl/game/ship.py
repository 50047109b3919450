"""Rules sent as text: a rule file and every file it extends, read here and
written again under a temporary directory by a process elsewhere (a Ray task
on another machine), which compiles them itself. Paths are kept relative to
the files' common directory, so an overlay's `extends: ../x.yaml` still finds x."""

from __future__ import annotations

import collections
import hashlib
import os
import shutil
import tempfile
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator

from ..compiler import read_rules

Files = tuple[tuple[str, str], ...]  # (path relative to the bundle's root, text)


def rule_files(path: str | None) -> tuple[Files, str]:
    """The rule file at `path` (None: the built-in one) and every file it extends, as text,
    with paths relative to their common directory (an overlay's `extends: ../x.yaml` still finds x)."""
    res = read_rules(path)
    paths = [os.path.abspath(p) for p in res.paths]
    top = os.path.abspath(res.top_path) if res.top_path else paths[-1]
    root = os.path.commonpath([os.path.dirname(p) for p in paths])
    files = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            files.append((os.path.relpath(p, root).replace(os.sep, "/"), f.read()))
    return tuple(files), os.path.relpath(top, root).replace(os.sep, "/")


def bundle_sha(files: Files) -> str:
    h = hashlib.sha256()
    for p, t in files:
        h.update(p.encode("utf-8") + b"\0" + t.encode("utf-8") + b"\0")
    return h.hexdigest()


@contextmanager
def written(files: Files, top: str) -> Iterator[str]:
    """The files written under a new temporary directory for the time of the block (a compile reads
    them there, once), and removed when it ends: the top file's path. A Ray worker is often ended
    without its exit handlers, and directories removed at exit were left behind, one a worker."""
    d = tempfile.mkdtemp(prefix="tjmj-rules-")
    try:
        for rel, text in files:
            p = os.path.join(d, *rel.split("/"))
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8", newline="") as f:
                f.write(text)
        yield os.path.join(d, *top.split("/"))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def ray_connected(address: str | None) -> Any:
    """The ray module, connected to the Ray cluster at `address` (None: a local one started), or
    RuntimeError saying how to install it (simulate's and impact's --engine ray)."""
    try:
        import ray
    except ImportError:
        raise RuntimeError('--engine ray needs Ray: pip install ray (the cluster extra: pip install -e ".[cluster]")') from None
    if not ray.is_initialized():
        _reachable(address)
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    return ray


RAY_CONNECT_TIMEOUT = 10.0  # seconds to open a connection to --address before saying it cannot be reached


def _reachable(address: str | None) -> None:
    """RuntimeError, said at once, when `address` names a host and port no connection can be opened to:
    Ray itself retries an unreachable cluster for many minutes, printing its own logs. None and "auto"
    (a cluster of this machine, found by Ray) are left to Ray."""
    if not address or address == "auto" or address == "local":
        return
    hostport = address.split("://", 1)[-1].rstrip("/")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise RuntimeError(f"--address wants HOST:PORT, ray://HOST:PORT or auto, got {address!r}")
    import socket
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_CONNECT_TIMEOUT):
            pass
    except (OSError, ValueError) as e:
        raise RuntimeError(f"cannot reach Ray at {address}: {getattr(e, 'strerror', None) or e}") from None


def ray_in_order(ray: Any, fn: Callable[..., Any], calls: Iterable[tuple[Any, ...]], window: int | None = None
                 ) -> Iterator[Any]:
    """fn(*args) for each args of `calls` as Ray tasks, the results yielded in the order of `calls`,
    with at most `window` tasks in flight (default: four for each CPU of the cluster, at least 8).
    Bounded, so that a run of a hundred thousand tasks neither sends them all at once (each task's
    arguments held in the object store) nor holds the results not yet taken: pass what every task
    shares (a rule file's text) as one ray.put reference, sent once."""
    remote = ray.remote(fn)
    if window is None:
        window = max(8, 4 * int(ray.cluster_resources().get("CPU", 1)))
    flying: collections.deque[Any] = collections.deque()
    for args in calls:
        flying.append(remote.remote(*args))
        if len(flying) >= window:
            yield ray.get(flying.popleft())
    while flying:
        yield ray.get(flying.popleft())
