"""`tjmj explain`: for every pattern, why it is or is not in the score, on the
reading the result shows (the values a test reads by the reference interpreter):

  claimed        it holds and the claim keeps it (`shown`: the formula uses its value)
  dropped        it holds on this reading, but a requirement is not claimed, a conflict
                 is not lifted, or leaving it out scores more
  other_reading  it does not hold here; another reading of the same tiles claims it,
                 for a lower fan or the same fan the tie decision put second (that
                 reading, its claim and fan are given)
  not_held       it holds on no reading of these tiles (the values its test reads, on
                 the reading shown, say why)
  unexamined     it holds on none of the readings walked, and the hand has more than
                 MAX_READINGS of them

A reading is a decomposition of the tiles with the winning tile placed; when the rules
free the winning tile (tianhu/dihu) the readings of every choice of it are walked."""

from __future__ import annotations

import itertools
from typing import Any

from ..engine import runtime, search
from ..engine.hand import PAIR, Hand, with_t
from ..engine.request import RequestError, parse_request
from ..engine.result import _decomposition, claim_display
from ..expr import ast as A
from ..expr.vocabulary import DECOMP_VARS, HAND_VARS
from ..ir import RuleSet
from ..passes.atoms import inline
from ..tiles import name as tile_name


MAX_READINGS = 500_000
"""The readings of one hand explain walks at most (seconds; a 7-hun hand of the built-in rules has
at most about 200,000); past it a pattern that holds on no reading seen is `unexamined`, and what
is said of other readings is said of those walked."""


def explain(rules: Any, request: dict[str, Any], fast: Any = None, limit: int = MAX_READINGS) -> dict[str, Any]:
    """The explanation of a request under interpreted rules (backends/interpret.py). With
    `fast`, a generated scorer's rules of the same rule set, the search and the readings
    are its (the interpreter tests every pattern on each of a hand's readings: minutes
    for a hand of many huns), by aggregate masks where its rules have them, and the
    interpreter reads the values shown."""
    rs: RuleSet = rules.ruleset
    search_rules = fast if fast is not None else rules
    out: dict[str, Any] = {"algebra": rs.algebra.text, "score_table": rs.score_table, "total_expr": rs.total.text,
                           "min_fan": rs.min_fan}
    try:
        req = parse_request(request, True, rules.flags, rules.copies)
    except RequestError as err:
        return {**out, "error": str(err)}
    assert req.draw is not None
    h = runtime.make_hand(rules, req, req.draw)
    errs = rules.request_errors(h)
    if errs:
        return {**out, "error": errs[0]}
    try:
        best, groups, bh = runtime.best_claim(search_rules, h)
    except search_rules.too_many_held as err:  # the scorer's answer refuses the hand alike (too_many_patterns)
        return {**out, "error": str(err)}
    if groups is not None:
        groups = search_rules.witness_groups(groups)
    if best is None:
        out["patterns"] = [_entry(p, "not_held", "these tiles make no 4 melds and a pair") for p in rs.patterns]
        return out
    hands = [with_t(h, t) for t in sorted(set(h.concealed))] if search_rules.free_t(h) else [bh]
    try:
        readings, walked, complete = _walk(search_rules, hands, limit)
    except search.TooManyHeld as err:  # (the package's resolve, which _walk calls)
        return {**out, "error": str(err)}
    out["readings"] = {"walked": walked, "complete": complete}
    among = "" if complete else f" (among the first {walked:,} readings)"
    melds, pair = _split(bh, groups)
    env_groups = melds + [pair]
    held = rules.holds(bh, melds, pair, env_groups)
    lifted = rules.unless(bh, melds, pair, env_groups) if rules.conflicts else 0
    fan, _, mask = best
    shown = set(claim_display(rules, mask)[2])
    env = rules._denv(bh, melds, pair, env_groups)
    defs = {d.name: (d.params, d.body.ast) for d in rs.definitions}
    entries = []
    for i, p in enumerate(rs.patterns):
        bit = 1 << i
        if mask & bit:
            e = _entry(p, "claimed", "" if i in shown else "claimed, but the algebra does not use its value here")
            e["shown"] = i in shown
        elif held & bit:
            e = _entry(p, "dropped", _dropped(rules, rs, i, mask, lifted))
        else:
            other = max((r for r in readings if r[0][2] & bit), default=None, key=lambda r: r[0])
            if other is not None:
                (ofan, _, omask), ogroups, _, oh = other
                than = (f"less than {fan}" if ofan < fan else  # the same fan: the rules' tie decision showed this one
                        "the same fan: a tie shows the reading claiming more patterns, then the one with a pattern later "
                        "in the rule file")
                e = _entry(p, "other_reading", f"another reading claims it, for fan {ofan} "
                           f"({claim_display(rules, omask)[0]}), {than}{among}")
                e["other"] = {"fan": ofan, "patterns": [pid for j, pid in enumerate(rules.ids) if omask >> j & 1],
                              "formula": claim_display(rules, omask)[0],
                              "reading": "  |  ".join(d["text"] for d in _decomposition(rules, oh, ogroups))}
            elif any(r[2] & bit for r in readings):
                e = _entry(p, "dropped", f"it holds only on readings where it is dropped{among}")
            elif not complete:
                e = _entry(p, "unexamined", f"it holds on none of the first {walked:,} readings of these tiles; "
                           "the others were not examined")
            else:
                e = _entry(p, "not_held", "")
            e["values"] = _values(p.when.ast, defs, env, bh)
        entries.append(e)
    out["patterns"] = entries
    out["formula"] = claim_display(rules, mask)[0]
    out["fan"] = fan
    return out


def _entry(p: Any, status: str, why: str) -> dict[str, Any]:
    return {"id": p.id, "name": p.name, "kind": p.kind, "value": p.value, "when": p.when.text, "status": status,
            "why": why}


def _split(h: Hand, groups: Any) -> tuple[list[Any], Any]:
    melds = list(h.declared) + [g for g in groups if g[0] != PAIR]
    pair = next(g for g in groups if g[0] == PAIR)
    return melds, pair


def _walk(rules: Any, hands: list[Hand], limit: int) -> tuple[list[Any], int, bool]:
    """The readings of each hand in turn (one per winning tile the rules allow), at most `limit`
    in all: [(claim key, concealed groups, held mask, hand)], how many were walked, and whether
    that was all of them. By aggregate masks where the rules have them (a generated scorer's
    tables: one test of the patterns per aggregate the rules can tell apart, the first reading
    met standing for it); else each reading is tested (the interpreter, or a generated scorer of
    rules the mask search cannot follow)."""
    masks = getattr(rules, "holds_agg", None) is not None
    out: list[Any] = []
    walked = 0
    for hh in hands:
        seen: dict[Any, list[Any]] = {}  # aggregate (or the reading itself) → its first reading's groups
        if masks:
            n, full, na = search._layout(rules)
            gmask_fn, gmask_ctx = rules.gmask, rules.gmask_ctx

            def bits_of(g: tuple) -> int:  # type: ignore[type-arg]
                return int(gmask_fn(hh, g)) | (int(gmask_ctx(hh, g)) if gmask_ctx is not None else 0)

            shares: dict[tuple, int] = {}  # type: ignore[type-arg]  # group → its share of an aggregate
            x0 = search._declared_masks(rules, hh, bits_of)
        for placed in search.placed_readings(rules, hh):
            if walked == limit:
                return out + _claims(rules, hh, seen, masks), walked, False
            walked += 1
            if masks:
                x = x0
                for y in placed:
                    a = shares.get(y)
                    if a is None:
                        b = bits_of(y)
                        a = shares[y] = search.group_share(b, y[0] == PAIR, n, full, na)
                    x |= a
                seen.setdefault(x, placed)
            else:
                seen[len(seen)] = placed
        out += _claims(rules, hh, seen, masks)
    return out, walked, True


def _claims(rules: Any, h: Hand, seen: dict[Any, list[Any]], masks: bool) -> list[Any]:
    """The entries of _walk for one hand's readings kept (by aggregate, or each one)."""
    out = []
    if masks:
        for x, placed in seen.items():
            key, held = search.aggregate_claim(rules, h, x)
            out.append((key, placed, held, h))
        return out
    for placed in seen.values():
        melds, pair = _split(h, placed)
        groups = melds + [pair]
        held = rules.holds(h, melds, pair, groups)
        lifted = rules.unless(h, melds, pair, groups) if rules.conflicts else 0
        out.append((search.resolve(rules, held, lifted), placed, held, h))
    return out


def _dropped(rules: Any, rs: RuleSet, i: int, mask: int, lifted: int) -> str:
    p = rs.patterns[i]
    for r in p.requires:
        j = rules.ids.index(r) if r in rules.ids else -1
        if j < 0 or not mask >> j & 1:
            return f"it requires {r}, which is not claimed"
    for j, (a, b) in enumerate(rules.conflicts):
        if i in (a, b) and mask >> (b if i == a else a) & 1 and not lifted >> j & 1:
            other = rules.ids[b if i == a else a]
            desc = [c.description for c in rs.patterns[a].conflicts if c.other == rules.ids[b]]
            return f"it conflicts with {other}, which is claimed" + (f" ({desc[0]})" if desc and desc[0] else "")
    return "claiming it as well would score less"


def _values(node: A.Node, defs: Any, env: dict[str, Any], h: Hand) -> dict[str, str]:
    """The names the test reads (definitions written out), with their values on this reading."""
    body = inline(node, defs, itertools.count())
    names: list[str] = []
    for n in A.walk(body):
        if isinstance(n, A.Name) and n.id in env and n.id not in names and n.id not in ("true", "false", "none"):
            names.append(n.id)
        if isinstance(n, A.Call) and n.func == "count" and "count()" not in names:
            names.append("count()")
    out = {}
    for k in names:
        if k == "count()":
            out[k] = " ".join(f"{tile_name(x)}×{c}" for x, c in enumerate(h.counts) if c)
        else:
            typ = VARS[k].type if k in VARS else ""
            out[k] = _show(env[k], typ)
    return out


VARS = {**HAND_VARS, **DECOMP_VARS}


def _show(v: Any, typ: str = "") -> str:
    if isinstance(v, bool) or v is None:
        return {True: "true", False: "false", None: "none"}[v]
    if isinstance(v, int):
        return tile_name(v) if typ.startswith("tile") else str(v)
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, tuple) and len(v) == 9:  # a group
        return _text(v)
    if isinstance(v, (list, tuple)):
        if all(isinstance(x, tuple) and len(x) == 9 for x in v):
            return " | ".join(_text(g) for g in v) or "(none)"
        if all(isinstance(x, int) and not isinstance(x, bool) for x in v) and "tile" in typ:
            return "[" + ", ".join(tile_name(x) for x in v) + "]"
        return "[" + ", ".join(_show(x) for x in v) + "]"
    return repr(v)


def _text(g: tuple) -> str:  # type: ignore[type-arg]
    """A group as faces: `4m 5m* 6m~` (~ a hun tile standing there, * the winning tile)."""
    parts = []
    for s, (f, hf) in enumerate(zip(g[1], g[2])):
        parts.append(tile_name(f) + ("~" if hf else "") + ("*" if s == g[5] else ""))
    text = " ".join(parts)
    return (f"({text})" if g[4] else f"[{text}]") if g[3] else text
