"""Finished chunks kept on disk, so a stopped run resumes from what it
finished: one JSON file per chunk under DIR/chunks/, named by the sha256 of
what the chunk is a function of (the chunk format, the rules' sha256, profile,
options, player mixes, seed and wall range), holding beside its walls the sha256
of their text. A file that does not read back whole, is not a regular file,
whose key differs, whose walls' sha256 is not theirs (a changed number), or
whose walls are not of the chunk's shape or break what every hand holds
(chunk.well_formed: balances that sum to 0, ...) is played again, and counted
(`rejected`: the command says how many)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from typing import Any

from .chunk import FORMAT, Task, well_formed


def chunk_key(task: Task) -> dict[str, Any]:
    return {"format": FORMAT, "sha256": task.sha256, "profile": task.arm.profile,
            "options": dict(task.arm.options), "mixes": [list(m) for m in task.mixes], "seed": task.seed,
            "start": task.start, "stop": task.stop}


def key_name(task: Task) -> str:
    text = json.dumps(chunk_key(task), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def walls_digest(walls: Any) -> str:
    """The sha256 of the walls' canonical JSON text."""
    text = json.dumps(walls, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Store:
    def __init__(self, directory: str | None, bare: bool = False) -> None:
        """Chunks under DIRECTORY/chunks (bare: in DIRECTORY itself); None: none kept."""
        self.dir = (directory if bare else os.path.join(directory, "chunks")) if directory else None
        self.rejected = 0  # chunk files found that did not check, played again

    def _path(self, task: Task) -> str:
        assert self.dir is not None
        return os.path.join(self.dir, key_name(task) + ".json")

    def get(self, task: Task) -> list[dict[str, Any]] | None:
        if self.dir is None:
            return None
        path = self._path(task)
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or a device would be waited on for ever
                self.rejected += 1
                return None
        except OSError:
            return None  # not there: not played yet
        try:
            with open(path, encoding="utf-8") as f:
                got = json.load(f)
        except (OSError, ValueError, RecursionError):  # RecursionError: JSON nested too deep to read
            self.rejected += 1
            return None
        if not isinstance(got, dict) or got.get("key") != chunk_key(task) \
                or got.get("sha256") != walls_digest(got.get("walls")) or not well_formed(got.get("walls"), task):
            self.rejected += 1
            return None
        walls: list[dict[str, Any]] = got["walls"]
        return walls

    def put(self, task: Task, walls: list[dict[str, Any]]) -> None:
        """Written whole or not at all (a temporary file renamed over)."""
        if self.dir is None:
            return
        os.makedirs(self.dir, exist_ok=True)
        path = self._path(task)
        write_whole(path, json.dumps({"key": chunk_key(task), "sha256": walls_digest(walls), "walls": walls},
                                     ensure_ascii=False, separators=(",", ":")))


def write_whole(path: str, text: str) -> None:
    """`text` to `path`, whole or not at all: a temporary file beside it, renamed over it (so a symbolic
    link at `path` is replaced, never written through)."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "x", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException as e:
        if os.path.lexists(tmp) and not os.path.isdir(tmp):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.filename != path:  # said of the file meant, not of its temporary
            raise OSError(e.errno, e.strerror, path) from None
        raise
