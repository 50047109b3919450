"""Finished chunks kept on disk, so a stopped run resumes from what it
finished: one JSON file per chunk under DIR/chunks/, named by the sha256 of
what the chunk is a function of (the chunk format, the rules' sha256, profile,
options, player mixes, seed and wall range). A file that does not read back
whole, whose key differs, or whose walls are not of the chunk's shape
(chunk.well_formed), is played again."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from .chunk import FORMAT, Task, well_formed


def chunk_key(task: Task) -> dict[str, Any]:
    return {"format": FORMAT, "sha256": task.sha256, "profile": task.arm.profile,
            "options": dict(task.arm.options), "mixes": [list(m) for m in task.mixes], "seed": task.seed,
            "start": task.start, "stop": task.stop}


def key_name(task: Task) -> str:
    text = json.dumps(chunk_key(task), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Store:
    def __init__(self, directory: str | None, bare: bool = False) -> None:
        """Chunks under DIRECTORY/chunks (bare: in DIRECTORY itself); None: none kept."""
        self.dir = (directory if bare else os.path.join(directory, "chunks")) if directory else None

    def _path(self, task: Task) -> str:
        assert self.dir is not None
        return os.path.join(self.dir, key_name(task) + ".json")

    def get(self, task: Task) -> list[dict[str, Any]] | None:
        if self.dir is None:
            return None
        try:
            with open(self._path(task), encoding="utf-8") as f:
                got = json.load(f)
        except (OSError, ValueError, RecursionError):  # RecursionError: JSON nested too deep to read
            return None
        if not isinstance(got, dict) or got.get("key") != chunk_key(task) or not well_formed(got.get("walls"), task):
            return None
        walls: list[dict[str, Any]] = got["walls"]
        return walls

    def put(self, task: Task, walls: list[dict[str, Any]]) -> None:
        """Written whole or not at all (a temporary file renamed over)."""
        if self.dir is None:
            return
        os.makedirs(self.dir, exist_ok=True)
        path = self._path(task)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            json.dump({"key": chunk_key(task), "walls": walls}, f, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, path)
