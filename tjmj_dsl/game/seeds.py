"""Per-hand randomness: hand i of a game seed gets its own generator, derived
by hashing (seed, i), so any hand can be played or replayed alone and a run
gives the same hands whatever the number of processes."""

from __future__ import annotations

import hashlib
import random


def derive(seed: int | str, *path: object) -> int:
    """A 64-bit number from the seed and a path such as (hand, "wall"): stable across runs and Python versions."""
    text = "\x1f".join(["tjmj", str(seed), *map(str, path)])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def rng(seed: int | str, *path: object) -> random.Random:
    return random.Random(derive(seed, *path))
