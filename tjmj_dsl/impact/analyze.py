"""The study's numbers (the `--json` report): for each arm every measure with
its 95 % interval, and for each variant every measure's paired difference from
the base. Numbers are rounded to 6 significant digits and nothing depends on
time or on how the chunks were run, so the same command gives the same bytes."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from statistics import fmean
from typing import Any

from . import stats
from .measures import Plays, components, measures

FORMAT = "tjmj-impact/1"
METHOD = (
    "Duplicate play: every arm plays the same seeded walls (wall i is the engine's hand i of the seed), each "
    "wall with every player mix seated four ways (seat s gets mix[(s + r) % 4], r = 0..3); a wall's value of "
    "a measure is its mean over the four seatings. A measure is a smooth function of per-wall means (a mean, "
    "a ratio, a standard deviation); its 95 % interval is Student's t over the walls on the per-wall "
    "linearization (delta method). A variant's difference from the base is paired by wall: the per-wall "
    "differences of the linearizations, t-interval with walls - 1 degrees of freedom (for a plain mean: the "
    "paired t-interval). An interval that includes 0 is 'no effect detected'; walls_needed is the walls that "
    "would detect the observed difference with 80 % power at 95 % (normal approximation). The headline "
    "measures were declared before any data; the others are exploratory. detected_bonferroni uses "
    "1 - 0.05/K intervals, K the number of differences reported.")


def r6(x: float | None) -> float | None:
    if x is None or not math.isfinite(x):
        return None
    return float(f"{x:.6g}") + 0.0  # + 0.0: no -0.0


def walls_of(chunks: list[dict[str, Any]]) -> list[list[Plays]]:
    """A chunk's walls as the measures read them: per wall, per mix, (multiplicity, seating, facts)."""
    return [[[(p["m"], p["s"], p["h"]) for p in mix] for mix in w["mixes"]] for w in chunks]


def _describe(walls: list[list[Plays]]) -> dict[str, Any]:
    """What is shown, not tested: the fan distribution of wins (mix 0) and the dealer's mean balance by
    the bets (sat or not: zuozhuang; lazhuang made against the dealer), over every mix played."""
    fan: Counter[int] = Counter()
    pats: Counter[str] = Counter()
    wins = 0
    for w in walls:
        for m, _, h in w[0]:
            if h["w"] is not None:
                if h["f"] is not None:  # a win a kong ended has no fan
                    fan[h["f"]] += m
                wins += m
                for p in h["p"]:
                    pats[p] += m
    by: dict[str, dict[Any, list[float]]] = {"zuozhuang": defaultdict(list), "lazhuang": defaultdict(list)}
    for w in walls:
        for mix in w:
            for m, _, h in mix:
                for _ in range(m):
                    by["zuozhuang"][h["z"]].append(h["b"][h["d"]])
                    by["lazhuang"][h["l"]].append(h["b"][h["d"]])
    bets = {k: [{"value": v, "hands": len(xs), "dealer_balance": r6(fmean(xs))} for v, xs in sorted(d.items())]
            for k, d in by.items()}
    return {"fan_distribution": {str(k): fan[k] for k in sorted(fan)}, "wins_counted": wins,
            "pattern_wins": {p: pats[p] for p in sorted(pats)}, "dealer_by_bets": bets}


def analyze(arms: list[dict[str, Any]], walls: list[list[list[Plays]]], skill: bool, head: dict[str, Any]) -> dict[str, Any]:
    """arms: each {name, spec, rules: {...}, pattern_names: {id: name}}; walls: each arm's walls, in wall order
    (arm 0 the base); head: seed, walls, players, mixes, command."""
    desc = [_describe(w) for w in walls]
    names: dict[str, str] = {}
    for a in arms:  # the base's names first (a variant may rename a pattern)
        for k, v in a["pattern_names"].items():
            names.setdefault(k, v)
    seen = sorted({p for d in desc for p in d["pattern_wins"]}, key=lambda p: (-desc[0]["pattern_wins"].get(p, 0), p))
    ms = measures(skill, [(p, names.get(p, p)) for p in seen])
    n = head["walls"]
    comps = [{m.id: components(m, w) for m in ms} for w in walls]
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
            per[m.id] = _diff(stats.paired(m.kind, comps[0][m.id], c[m.id], k), n)
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


def _diff(p: dict[str, Any], n: int) -> dict[str, Any]:
    d, ci = p["diff"], p["ci"]
    if d is None:
        verdict = "not measured (no wins in one arm)"
    elif p["detected"]:
        verdict = f"detected: {_num(d)} (95 % CI {_num(ci[0])} to {_num(ci[1])})"
    elif p["sd_walls"] == 0 and d == 0:
        verdict = f"identical on every one of {n} walls"
    else:
        need = p["walls_needed"]
        verdict = (f"no effect detected at {n} walls ({4 * n} hands a mix)"
                   + (f"; about {need} walls ({4 * need} hands) would detect a difference of {_num(d)}"
                      if need else ""))
    return {"diff": r6(d), "ci": [r6(ci[0]), r6(ci[1])] if ci else None, "se": r6(p["se"]),
            "sd_walls": r6(p["sd_walls"]), "detected": p["detected"], "detected_bonferroni": p["detected_family"],
            "walls_needed": p["walls_needed"], "verdict": verdict}


def _num(x: float) -> str:
    return f"{x:+.4g}"
