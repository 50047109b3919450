"""A chunk of walls played: a pure function of (rules text, profile, options,
player mixes, seed, wall range) to per-wall summaries, the same on any
process or machine. Wall i is the engine's seeded hand i (its wall, dice and
dealer come from (seed, i) alone, game/session.py), so every arm plays the
same walls; each wall is played with each mix seated four ways (seat s gets
mix[(s + r) % 4], r = 0..3). Seatings that give every seat the same player
are played once and counted with their multiplicity (a hand is a function of
its seating: the players' own generators are seeded by (seed, i, seat))."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from ..game.players import PLAYERS, ValuePlayer
from ..game.session import play
from ..game.table import PASS, Action, SeatView
from .arms import Arm, compile_arm

FORMAT = "tjmj-impact-chunk/2"  # what a chunk holds: a change of it makes stored chunks stale (store.py; 2: the walls' sha256)


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
    """What the statistics need of a played hand (small: a chunk is stored as JSON). f, the fan, is None
    for a drawn hand and for a win a kong ended (play.kong_ends_hand): no hand was scored."""
    st = res.settlement or {}
    c = res.claim
    return {
        "w": res.winner, "d": res.dealer, "f": c.fan if c else None, "t": c.total if c else (res.win_total or 0),
        "p": sorted(c.patterns) if c else [], "g": any(k[3] for k in res.kongs), "c": bool(res.chan),
        "b": list(st.get("balances", [0, 0, 0, 0])), "n": sum(1 for e in res.events if e[1] == "draw"),
        "r": len(res.ready), "x": len(res.xianggong), "z": bool(res.zuozhuang), "l": sum(res.lazhuang),
    }


def _seat(v: Any) -> bool:
    return type(v) is int and 0 <= v < 4


def _int(v: Any) -> bool:
    return type(v) is int


def _num(v: Any) -> bool:
    return type(v) in (int, float) and math.isfinite(v)


def _bool(v: Any) -> bool:
    return type(v) is bool


# hand_facts' keys, each with what its value is
_FACTS: dict[str, Callable[[Any], bool]] = {
    "w": lambda v: v is None or _seat(v), "d": _seat, "f": lambda v: v is None or _num(v), "t": _num,
    "p": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "g": _bool, "c": _bool,
    "b": lambda v: isinstance(v, list) and len(v) == 4 and all(map(_num, v)), "n": _int, "r": _int, "x": _int,
    "z": _bool, "l": _int}


def well_formed(walls: Any, task: Task) -> bool:
    """Whether `walls` (a stored chunk read back) has the shape play_chunk(task) gives: its walls in
    order, each mix's seatings as seatings() gives them, every hand's facts of hand_facts' keys and
    types. A chunk that does not is played again (store.py) rather than read into the statistics."""
    if not isinstance(walls, list) or len(walls) != task.stop - task.start:
        return False
    want = [[(list(s), m) for s, m in seatings(mix)] for mix in task.mixes]
    for i, w in zip(range(task.start, task.stop), walls):
        if not isinstance(w, dict) or w.get("wall") != i or not isinstance(w.get("mixes"), list) \
                or len(w["mixes"]) != len(want):
            return False
        for played, exp in zip(w["mixes"], want):
            if not isinstance(played, list) or len(played) != len(exp):
                return False
            for p, (s, m) in zip(played, exp):
                h = p.get("h") if isinstance(p, dict) else None
                if not isinstance(h, dict) or p.get("s") != s or p.get("m") != m or h.keys() != _FACTS.keys() \
                        or not all(ok(h[k]) for k, ok in _FACTS.items()) or not _holds(h):
                    return False
    return True


def _holds(h: dict[str, Any]) -> bool:
    """What every played hand's facts hold: its balances sum to 0 (every point paid is received), and a
    hand nobody won was not scored (no fan, no patterns)."""
    if abs(sum(h["b"])) > 1e-9:
        return False
    return h["w"] is not None or (h["f"] is None and h["p"] == [])


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
