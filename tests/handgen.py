"""Random winning shapes, shared by the tests and the benchmark."""

from __future__ import annotations

import random


def random_shape(rng: random.Random, chow_share: float = 0.6) -> list[list[int]]:
    """Four random melds (a chow with probability chow_share, else a pung) and
    a pair, as lists of tile kinds; the pair is last."""
    groups: list[list[int]] = []
    for _ in range(4):
        if rng.random() < chow_share:
            s = rng.choice((0, 9, 18)) + rng.randrange(7)
            groups.append([s, s + 1, s + 2])
        else:
            groups.append([rng.randrange(34)] * 3)
    groups.append([rng.randrange(34)] * 2)
    return groups
