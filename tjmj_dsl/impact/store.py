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

from ..atomic import write_atomic
from .chunk import FORMAT, Task, well_formed


def chunk_key(task: Task) -> dict[str, Any]:
    return {"format": FORMAT, "sha256": task.sha256, "profile": task.arm.profile,
            "options": dict(task.arm.options), "mixes": [list(m) for m in task.mixes], "seed": task.seed,
            "start": task.start, "stop": task.stop}


def digest(data: Any) -> str:
    """The sha256 of `data`'s JSON text, keys sorted: a chunk's name (of its key) and its walls' check."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def key_name(task: Task) -> str:
    return digest(chunk_key(task))


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
                or got.get("sha256") != digest(got.get("walls")) or not well_formed(got.get("walls"), task):
            self.rejected += 1
            return None
        walls: list[dict[str, Any]] = got["walls"]
        return walls

    def put(self, task: Task, walls: list[dict[str, Any]]) -> None:
        """Written whole or not at all (a temporary file renamed over)."""
        if self.dir is None:
            return
        write_atomic(self._path(task), json.dumps({"key": chunk_key(task), "sha256": digest(walls), "walls": walls},
                                                  ensure_ascii=False, separators=(",", ":")))
