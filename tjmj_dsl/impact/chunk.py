"""A chunk of walls played: a pure function of (rules text, profile, options,
player mixes, seed, wall range) to per-wall summaries, the same on any
process or machine. Wall i is the engine's seeded hand i (its wall, dice and
dealer come from (seed, i) alone, game/session.py), so every arm plays the
same walls; each wall is played with each mix seated four ways (seat s gets
mix[(s + r) % 4], r = 0..3). Seatings that give every seat the same player
are played once and counted with their multiplicity (a hand is a function of
its seating: the players' own generators are seeded by (seed, i, seat))."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..game.players import PLAYERS, ValuePlayer
from ..game.session import play
from ..game.table import PASS, Action, SeatView
from .arms import Arm, compile_arm

FORMAT = "tjmj-impact-chunk/1"  # what a chunk holds: a change of it makes stored chunks stale (store.py)


class NeverClaims(ValuePlayer):
    """The value player restricted from one action: it never claims a discard (pong, kong). Against
    the full player it measures what claiming is worth under the rules."""

    name = "noclaim"

    def claim(self, view: SeatView, menu: list[Action]) -> Action:
        return PASS


IMPACT_PLAYERS: dict[str, Any] = {**PLAYERS, "noclaim": NeverClaims}


@dataclass(frozen=True)
class Task:
    arm: Arm
    sha256: str  # the rules' sha256 as the client compiled them: a worker whose compile differs refuses
    mixes: tuple[tuple[str, ...], ...]
    seed: int | str
    start: int
    stop: int


def seatings(mix: tuple[str, ...]) -> list[tuple[tuple[str, ...], int]]:
    """The four rotations of a mix, each distinct seating once with how many rotations give it."""
    out: dict[tuple[str, ...], int] = {}
    for r in range(4):
        s = tuple(mix[(i + r) % 4] for i in range(4))
        out[s] = out.get(s, 0) + 1
    return list(out.items())


def hand_facts(res: Any) -> dict[str, Any]:
    """What the statistics need of a played hand (small: a chunk is stored as JSON)."""
    st = res.settlement or {}
    c = res.claim
    return {
        "w": res.winner, "d": res.dealer, "f": c.fan if c else 0, "t": c.total if c else 0,
        "p": sorted(c.patterns) if c else [], "g": any(k[3] for k in res.kongs), "c": bool(res.chan),
        "b": list(st.get("balances", [0, 0, 0, 0])), "n": sum(1 for e in res.events if e[1] == "draw"),
        "r": len(res.ready), "x": len(res.xianggong), "z": bool(res.zuozhuang), "l": sum(res.lazhuang),
    }


def play_chunk(task: Task) -> list[dict[str, Any]]:
    """Walls task.start .. task.stop-1: for each, per mix, the distinct seatings played
    ({"s": seating, "m": multiplicity, "h": hand_facts})."""
    rules = compile_arm(task.arm)
    if rules.sha256 != task.sha256:
        raise RuntimeError(f"arm {task.arm.name}: the rules compiled here have sha256 {rules.sha256}, "
                           f"not {task.sha256} (another tjmj version's built-in rules?)")
    walls = []
    for i in range(task.start, task.stop):
        per_mix = []
        for mix in task.mixes:
            played = []
            for seating, mult in seatings(mix):
                res = play(rules, task.seed, i, [IMPACT_PLAYERS[p]() for p in seating])
                played.append({"s": list(seating), "m": mult, "h": hand_facts(res)})
            per_mix.append(played)
        walls.append({"wall": i, "mixes": per_mix})
    return walls
