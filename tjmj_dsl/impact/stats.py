"""Intervals over walls. A measure is a smooth function g of per-wall means
(a mean, a ratio of two means, a standard deviation); its standard error comes
from the per-wall linearization (delta method: L_w = ∇g · (c_w − c̄)). A
variant's difference from the base is paired by wall: D_w = L_w(variant) −
L_w(base), and the 95 % interval is d ± t(0.975, n−1) · sd(D)/√n over the n
walls (Student's t; for a plain mean this is exactly the paired t-interval).
The mean and sd are the standard library's (statistics), which has no t
distribution: the t quantile is found here by bisection on the t
distribution's CDF (a regularized incomplete beta, continued fraction), so
that no third-party package is needed for it."""

from __future__ import annotations

import math
from statistics import NormalDist, fmean, stdev
from typing import Any, Sequence

CONFIDENCE = 0.95
POWER = 0.80  # the walls needed: to detect the observed size with this power, at CONFIDENCE


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbeta) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbeta) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The p quantile of Student's t with df degrees of freedom (bisection to 1e-12)."""
    if not 0.0 < p < 1.0 or df <= 0:
        raise ValueError("p in (0, 1) and df > 0")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2.0


def sd(xs: Sequence[float]) -> float:
    """The sample standard deviation (n − 1); 0 under two values."""
    return stdev(xs) if len(xs) >= 2 else 0.0


def estimate(kind: str, comps: Sequence[Sequence[float]]) -> tuple[float | None, list[float]]:
    """The measure g over the walls and each wall's linearized influence L_w.
    kind mean: g = c̄0; ratio: g = c̄0 / c̄1 (None when c̄1 = 0); sd: g = √(c̄1 − c̄0²) with c1 = c0²."""
    c0 = comps[0]
    a = fmean(c0)
    if kind == "mean":
        return a, [x - a for x in c0]
    c1 = comps[1]
    b = fmean(c1)
    if kind == "ratio":
        if b == 0:
            return None, [0.0] * len(c0)
        r = a / b
        return r, [(x - r * y) / b for x, y in zip(c0, c1)]
    if kind == "sd":
        v = max(b - a * a, 0.0)
        s = math.sqrt(v)
        if s == 0:
            return 0.0, [0.0] * len(c0)
        return s, [(-a / s) * (x - a) + (y - b) / (2 * s) for x, y in zip(c0, c1)]
    raise ValueError(f"no measure kind {kind!r}")


def interval(center: float, influences: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """(low, high, standard error) of `center` from the walls' influences (t with n − 1 df)."""
    n = len(influences)
    if n < 2:
        return (math.nan, math.nan, math.nan)
    se = sd(influences) / math.sqrt(n)
    h = t_quantile(0.5 + confidence / 2, n - 1) * se
    return center - h, center + h, se


def walls_needed(diff: float, sd_walls: float, confidence: float = CONFIDENCE, power: float = POWER) -> int | None:
    """Walls that detect a true difference `diff` (per-wall sd `sd_walls`) with `power` at `confidence`
    (normal approximation: n = ((z_(1−α/2) + z_power) · sd / |diff|)²); None when diff is 0."""
    if diff == 0 or not math.isfinite(diff):
        return None
    z = NormalDist().inv_cdf(0.5 + confidence / 2) + NormalDist().inv_cdf(power)
    return max(2, math.ceil((z * sd_walls / abs(diff)) ** 2))


def detectable(sd_walls: float, walls: int, confidence: float = CONFIDENCE, power: float = POWER) -> float:
    """The smallest true difference `walls` walls detect with `power` at `confidence` (per-wall sd
    `sd_walls`; normal approximation: (z_(1−α/2) + z_power) · sd / √walls): what a run could have
    found, whatever it did find (unlike walls_needed, which restates the observed difference)."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2) + NormalDist().inv_cdf(power)
    return z * sd_walls / math.sqrt(walls)


def _excludes_0(lo: float, hi: float) -> bool:
    return bool(math.isfinite(lo) and (lo > 0 or hi < 0))


def paired(kind: str, base: Sequence[Sequence[float]], variant: Sequence[Sequence[float]], family: int = 1) -> dict[str, Any]:
    """The variant's difference from the base, paired by wall: its value, 95 % interval, standard
    error, the per-wall sd of the differences, whether 0 is outside the interval, the walls
    that would detect the observed size, and whether 0 is outside the Bonferroni interval of a
    family of `family` differences (1 − 0.05/family)."""
    gb, lb = estimate(kind, base)
    gv, lv = estimate(kind, variant)
    if gb is None or gv is None:
        return {"diff": None, "ci": None, "se": None, "sd_walls": None, "detected": False, "walls_needed": None,
                "detected_family": False}
    d = gv - gb
    dw = [v - b for v, b in zip(lv, lb)]
    lo, hi, se = interval(d, dw)
    s = sd(dw)
    detected = _excludes_0(lo, hi)
    flo, fhi, _ = interval(d, dw, 1 - (1 - CONFIDENCE) / family)
    return {"diff": d, "ci": [lo, hi], "se": se, "sd_walls": s, "detected": detected,
            "walls_needed": None if detected else walls_needed(d, s), "detected_family": _excludes_0(flo, fhi)}
