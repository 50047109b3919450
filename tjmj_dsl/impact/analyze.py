"""The study's numbers (the `--json` report): for each arm every measure with
its 95 % interval, and for each variant every measure's paired difference from
the base. Numbers are rounded to 6 significant digits and nothing depends on
time or on how the chunks were run, so the same command gives the same bytes."""

from __future__ import annotations

import math
from array import array
from collections import Counter, defaultdict
from fractions import Fraction
from typing import Any

from . import stats
from .chunk import seatings
from .measures import Measure, Plays, measures, pattern_measure

MAX_WALLS = 1_000_000  # the most walls a run may play (tjmj impact --hands)

FORMAT = "tjmj-impact/1"
METHOD = (
    "Duplicate play: every arm plays the same seeded walls (wall i is the engine's hand i of the seed), each "
    "wall with every player mix seated four ways (seat s gets mix[(s + r) % 4], r = 0..3); a wall's value of "
    "a measure is its mean over the four seatings. A measure is a smooth function of per-wall means (a mean, "
    "a ratio, a standard deviation); its 95 % interval is Student's t over the walls on the per-wall "
    "linearization (delta method). A variant's difference from the base is paired by wall: the per-wall "
    "differences of the linearizations, t-interval with walls - 1 degrees of freedom (for a plain mean: the "
    "paired t-interval). An interval that includes 0 is 'no effect detected'; its verdict gives the smallest "
    "difference the walls played detect with 80 % power at 95 % (normal approximation), and walls_needed the "
    "walls that would detect the observed difference, were it the true one (a restatement of the observed "
    "t, not evidence of an effect). A wall is one hand for a mix of one player, the mixes' distinct seatings "
    "for the others. The headline "
    "measures were declared before any data; the others are exploratory. detected_bonferroni uses "
    "1 - 0.05/K intervals, K the number of differences reported.")


def r6(x: float | None) -> float | None:
    if x is None or not math.isfinite(x):
        return None
    return float(f"{x:.6g}") + 0.0  # + 0.0: no -0.0


def walls_of(chunks: list[dict[str, Any]]) -> list[list[Plays]]:
    """A chunk's walls as the measures read them: per wall, per mix, (multiplicity, seating, facts)."""
    return [[[(p["m"], p["s"], p["h"]) for p in mix] for mix in w["mixes"]] for w in chunks]


class _Sum:
    """An exact running sum and its count: the mean of the values as statistics.fmean gives it
    (the exact sum correctly rounded, then divided), without keeping the values."""

    __slots__ = ("n", "total")

    def __init__(self) -> None:
        self.n = 0
        self.total: int | Fraction = 0

    def add(self, x: float) -> None:
        self.n += 1
        self.total += x if x.__class__ is int else Fraction(x)

    def mean(self) -> float:
        return float(self.total) / self.n


class Tally:
    """One arm's walls, reduced as their chunks come (in any order): for each wall the components of
    every measure (8 bytes a value) and the counts the report describes; the hands' facts are let go.
    A study's memory then grows by a few hundred bytes a wall and arm, not by the walls' facts
    (about 9 kB a wall and arm: 3.8 GB for five arms of 80,000 walls)."""

    def __init__(self, skill: bool) -> None:
        self.ms = measures(skill, [])  # the measures of every study; a pattern's are added at the end
        self.blocks: dict[int, tuple[int, dict[Any, array[float]], dict[str, array[float]]]] = {}
        self.fan: Counter[Any] = Counter()
        self.pats: Counter[str] = Counter()
        self.wins = 0
        self.by: dict[str, defaultdict[Any, _Sum]] = {"zuozhuang": defaultdict(_Sum), "lazhuang": defaultdict(_Sum)}

    def add(self, start: int, chunk: list[dict[str, Any]]) -> None:
        """The walls of a chunk that begins at wall `start`."""
        walls = walls_of(chunk)
        for w in walls:
            for m, _, h in w[0]:
                if h["w"] is not None:
                    if h["f"] is not None:  # a win a kong ended has no fan
                        self.fan[h["f"]] += m
                    self.wins += m
                    for p in h["p"]:
                        self.pats[p] += m
            for mix in w:
                for m, _, h in mix:
                    bal = h["b"][h["d"]]
                    for _ in range(m):
                        self.by["zuozhuang"][h["z"]].add(bal)
                        self.by["lazhuang"][h["l"]].add(bal)
        # each part's values, by the part itself: a pattern measure's second part is the win rate's (WON)
        comps = {part: array("d", [part(w[m.mix]) for w in walls]) for m in self.ms for part in m.parts}
        # a pattern's own part only where it won (0 on the chunk's other walls); a pattern measure reads mix 0
        pids = sorted({p for w in walls for _, _, h in w[0] for p in h["p"]})
        pats = {p: array("d", [pattern_measure(p, p).parts[0](w[0]) for w in walls]) for p in pids}
        self.blocks[start] = (len(walls), comps, pats)

    def walls(self) -> int:
        return sum(n for n, _, _ in self.blocks.values())

    def components(self, m: Measure) -> list[array[float]]:
        """The measure's components over every wall, in wall order."""
        order = [self.blocks[k] for k in sorted(self.blocks)]
        if not m.id.startswith("pattern:"):
            return [_joined(c[part] for _, c, _ in order) for part in m.parts]
        pid = m.id[len("pattern:"):]
        return [_joined(p.get(pid) or array("d", bytes(8 * n)) for n, _, p in order),
                _joined(c[m.parts[1]] for _, c, _ in order)]

    def describe(self) -> dict[str, Any]:
        """What is shown, not tested: the fan distribution of wins (mix 0) and the dealer's mean balance by
        the bets (sat or not: zuozhuang; lazhuang made against the dealer), over every mix played."""
        bets = {k: [{"value": v, "hands": x.n, "dealer_balance": r6(x.mean())} for v, x in sorted(d.items())]
                for k, d in self.by.items()}
        return {"fan_distribution": {str(k): self.fan[k] for k in sorted(self.fan)}, "wins_counted": self.wins,
                "pattern_wins": {p: self.pats[p] for p in sorted(self.pats)}, "dealer_by_bets": bets}


def _joined(parts: Any) -> array[float]:
    out = array("d")
    for p in parts:
        out.extend(p)
    return out


def analyze(arms: list[dict[str, Any]], tallies: list[Tally], skill: bool, head: dict[str, Any]) -> dict[str, Any]:
    """arms: each {name, spec, rules: {...}, pattern_names: {id: name}}; tallies: each arm's walls (arm 0
    the base); head: seed, walls, players, mixes, command."""
    desc = [t.describe() for t in tallies]
    names: dict[str, str] = {}
    for a in arms:  # the base's names first (a variant may rename a pattern)
        for k, v in a["pattern_names"].items():
            names.setdefault(k, v)
    seen = sorted({p for d in desc for p in d["pattern_wins"]}, key=lambda p: (-desc[0]["pattern_wins"].get(p, 0), p))
    ms = measures(skill, [(p, names.get(p, p)) for p in seen])
    n = head["walls"]
    comps = [{m.id: t.components(m) for m in ms} for t in tallies]
    out_arms = []
    for a, c, d in zip(arms, comps, desc):
        values = {}
        for m in ms:
            g, infl = stats.estimate(m.kind, c[m.id])
            lo, hi, se = stats.interval(g, infl) if g is not None else (math.nan, math.nan, math.nan)
            values[m.id] = {"value": r6(g), "ci": [r6(lo), r6(hi)] if g is not None else None, "se": r6(se)}
        out_arms.append({"name": a["name"], "spec": a["spec"], "rules": a["rules"], "measures": values, **d})
    k = len(ms) * (len(arms) - 1)
    diffs = []
    for a, c in zip(arms[1:], comps[1:]):
        per = {}
        for m in ms:
            per[m.id] = _diff(stats.paired(m.kind, comps[0][m.id], c[m.id], k), n,
                              len(seatings(tuple(head["mixes"][m.mix]))))
        diffs.append({"variant": a["name"], "measures": per})
    return {
        "format": FORMAT, "command": head["command"], "seed": head["seed"], "walls": n,
        "seatings_per_wall": 4, "players": head["players"], "mixes": [list(x) for x in head["mixes"]],
        "confidence": stats.CONFIDENCE, "method": METHOD, "differences_reported": k,
        "headline": [m.id for m in ms if m.headline],
        "measures": [{"id": m.id, "label": m.label, "kind": m.kind, "mix": m.mix, "headline": m.headline,
                      "unit": m.unit} for m in ms],
        "arms": out_arms, "differences": diffs,
    }


def _diff(p: dict[str, Any], n: int, hands: int) -> dict[str, Any]:
    """`hands`: the distinct hands a wall is played as for the measure's mix (1 for a mix of one player)."""
    return {**_numbers(p), "verdict": verdict(p["diff"], p["ci"], p["detected"], p["sd_walls"], p["walls_needed"], n,
                                              hands)}


def verdict(d: float | None, ci: list[float] | None, detected: bool, sd_walls: float | None, need: int | None, n: int,
            hands: int) -> str:
    """What a difference says, in words: detected with its interval, identical on every wall, or not detected
    at `n` walls, with the smallest difference those walls detect and the walls the observed one would need."""
    if d is None:
        return "not measured (no wins in one arm)"
    if detected:
        assert ci is not None
        return f"detected: {_num(d)} (95 % CI {_num(ci[0])} to {_num(ci[1])})"
    if sd_walls == 0 and d == 0:
        return f"identical on every one of {n} walls"
    assert sd_walls is not None
    out = (f"no effect detected at {n} walls ({n * hands} hands); {n} walls detect a true difference of "
           f"±{stats.detectable(sd_walls, n):.3g} 80 % of the time")
    if need:
        out += (f"; were the observed {_num(d)} the true difference, about {need} walls ({need * hands} hands) "
                "would detect it" + (" (more than a run may play)" if need > MAX_WALLS else ""))
    return out


def _numbers(p: dict[str, Any]) -> dict[str, Any]:
    d, ci = p["diff"], p["ci"]
    return {"diff": r6(d), "ci": [r6(ci[0]), r6(ci[1])] if ci else None, "se": r6(p["se"]),
            "sd_walls": r6(p["sd_walls"]), "detected": p["detected"], "detected_bonferroni": p["detected_family"],
            "walls_needed": p["walls_needed"]}


def _num(x: float) -> str:
    return f"{x:+.4g}"
