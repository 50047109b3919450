"""Decomposition with huns, and the scoring loop around the rules' predicates.

The rules reach this module as a `rules` object (compiled Python from the code
generator, or closures over the AST from the interpreter) with these members:
  hun_count, cycles, chow, copies, min_fan       plain data
  flags                                          boolean request fields the rules declare
  ids, names, kinds, kind_of, values             the patterns, in rule-file order
  requires[i], conflicts [(i, j)]                 claim bindings
  wild_melds, wild_pairs                          faces a group of huns alone may take
  plan                                            the algebra as a render plan
  request_errors(h) -> list[str]
  free_t(h) -> bool                               may any tile of the hand be t?
  holds(h, melds, pair, groups) -> bitmask of patterns that hold
  unless(h, melds, pair, groups) -> bitmask of conflicts lifted
  fan(mask) -> int                                the algebra
  total(h, fan) -> int                            the score table
Nothing here knows a pattern: it finds decompositions, places the winning
tile, asks the rules, and keeps the best claim.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Any

from ..tiles import NAMES, RANK_OF, SUIT_OF  # tjmj:inline-drop
from .request import Request, RequestError, parse_request  # tjmj:inline-drop

PAIR, CHOW, PUNG, KONG = 0, 1, 2, 3
GROUP_KIND_NAMES = ("pair", "chow", "pung", "kong")


def next_kind(k: int, cycles: tuple[tuple[int, ...], ...]) -> int:
    """Suits wrap 9→1; honors follow the rule file's cycles."""
    if k < 27:
        return k - k % 9 + (k % 9 + 1) % 9
    for cyc in cycles:
        if k in cyc:
            return cyc[(cyc.index(k) + 1) % len(cyc)]
    return k


def hun_kinds_of(indicator: int, n: int, cycles: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    out = [indicator]
    while len(out) < n:
        nk = next_kind(out[-1], cycles)
        if nk in out:
            break
        out.append(nk)
    return tuple(out)


def split_huns(tiles: tuple[int, ...], huns: set[int] | frozenset[int]) -> tuple[tuple[int, ...], int]:
    """The natural tiles as counts by kind, and how many hun tiles: what every search starts from."""
    counts = [0] * 34
    wild = 0
    for x in tiles:
        if x in huns:
            wild += 1
        else:
            counts[x] += 1
    return tuple(counts), wild


def make_group(kind: int, faces: tuple[int, ...], hunmask: tuple[bool, ...],
               declared: bool = False, concealed: bool = True, t_slot: int = -1) -> tuple:  # type: ignore[type-arg]
    f0 = faces[0]
    return (kind, faces, hunmask, declared, concealed, t_slot, sum(hunmask), SUIT_OF[f0], RANK_OF[f0])


def group_slots(g: tuple) -> list[tuple]:  # type: ignore[type-arg]
    """A group's tiles as (face, hun, is_t) — the `slots` of the expression language."""
    return [(f, g[2][i], i == g[5]) for i, f in enumerate(g[1])]


def wild_groups(chow: bool) -> tuple[tuple, tuple]:  # type: ignore[type-arg]
    """Every face a group made only of huns may take."""
    pairs = tuple(make_group(PAIR, (k, k), (True, True)) for k in range(34))
    melds = [make_group(PUNG, (k, k, k), (True, True, True)) for k in range(34)]
    if chow:
        melds += [make_group(CHOW, (k, k + 1, k + 2), (True, True, True)) for k in range(27) if k % 9 <= 6]
    return tuple(melds), pairs


class Hand:
    """What a request says, with the huns worked out: the names rules read."""

    __slots__ = ("indicator", "hun_kinds", "hun_set", "hun_suit", "t", "t_hun", "huns", "declared",
                 "kong_draw", "flags", "counts", "suits", "concealed", "request")
    indicator: int
    hun_kinds: tuple[int, ...]
    hun_set: frozenset[int]
    hun_suit: str
    t: int
    t_hun: bool
    huns: int
    declared: list[tuple]  # type: ignore[type-arg]
    kong_draw: str | None
    flags: frozenset[str]
    counts: list[int]
    suits: list[str]
    concealed: tuple[int, ...]
    request: Request

    def count(self, k: int) -> int:
        return self.counts[k]


def make_hand(rules: Any, req: Request, t: int) -> Hand:
    h = Hand()
    h.request = req
    h.indicator = req.indicator
    h.hun_kinds = hun_kinds_of(req.indicator, rules.hun_count, rules.cycles)
    h.hun_set = frozenset(h.hun_kinds)
    h.hun_suit = SUIT_OF[req.indicator]
    h.suits = rules.suits
    h.t = t
    h.t_hun = t in h.hun_set
    h.concealed = tuple(req.concealed) + (t,)
    counts = [0] * 34
    for k in h.concealed:
        counts[k] += 1
    declared = []
    for m in req.melds:
        n = 3 if m.type == "pung" else 4
        counts[m.tile] += n
        hun = m.tile in h.hun_set
        declared.append(make_group(PUNG if n == 3 else KONG, (m.tile,) * n, (hun,) * n, True, m.type == "concealed_kong"))
    h.counts = counts
    h.declared = declared
    h.huns = sum(counts[k] for k in h.hun_kinds)
    h.kong_draw = req.kong_draw
    h.flags = req.flags
    return h


_DEC: dict[tuple, list] = {}  # type: ignore[type-arg]


def _lowest(counts: tuple[int, ...]) -> int:
    """The lowest kind still held (34 when none): the search always places it next."""
    for k, c in enumerate(counts):
        if c:
            return k
    return 34


def _less(counts: tuple[int, ...], tiles: tuple[int, ...]) -> tuple[int, ...]:
    lst = list(counts)
    for x in tiles:
        lst[x] -= 1
    return tuple(lst)


def _group_options(counts: tuple[int, ...], k: int, wild: int, melds: int, pair: int, chow: bool):  # type: ignore[no-untyped-def]
    """The groups that can hold one natural tile of kind k, the lowest natural
    tile left: (group, natural kinds it uses, huns it uses, is pair)."""
    c = counts[k]
    if not wild:  # no hun left: only natural groups
        if pair and c >= 2:
            yield make_group(PAIR, (k, k), (False, False)), (k, k), 0, True
        if melds:
            if c >= 3:
                yield make_group(PUNG, (k, k, k), (False, False, False)), (k, k, k), 0, False
            if chow and k < 27 and k % 9 <= 6 and counts[k + 1] and counts[k + 2]:
                yield make_group(CHOW, (k, k + 1, k + 2), (False, False, False)), (k, k + 1, k + 2), 0, False
        return
    if pair:
        if c >= 2:
            yield make_group(PAIR, (k, k), (False, False)), (k, k), 0, True
        if wild >= 1:
            yield make_group(PAIR, (k, k), (False, True)), (k,), 1, True
    if melds:
        for nat in (3, 2, 1):
            if c >= nat and wild >= 3 - nat:
                yield make_group(PUNG, (k, k, k), (False,) * nat + (True,) * (3 - nat)), (k,) * nat, 3 - nat, False
        if chow and k < 27:
            r = k % 9
            for a in (k - 2, k - 1, k):
                if a < k - r or a + 2 > k - r + 8:
                    continue
                options: list[tuple[tuple[bool, int], ...]] = []
                for f in (a, a + 1, a + 2):
                    if f < k:
                        options.append(((True, f),))
                    elif f == k:
                        options.append(((False, f),))
                    elif counts[f] > 0:
                        options.append(((False, f), (True, f)))
                    else:
                        options.append(((True, f),))
                for s0 in options[0]:
                    for s1 in options[1]:
                        for s2 in options[2]:
                            slots = (s0, s1, s2)
                            need = (s0[0]) + (s1[0]) + (s2[0])
                            if need > wild:
                                continue
                            yield (make_group(CHOW, (a, a + 1, a + 2), (s0[0], s1[0], s2[0])),
                                   tuple(f for hf, f in slots if not hf), need, False)


def decompose(counts: tuple[int, ...], wild: int, melds: int, pair: int, chow: bool) -> list:  # type: ignore[type-arg]
    """All ways to cover the natural tiles `counts` with `melds` melds and
    `pair` pairs, `wild` hun tiles filling any slot. Groups made only of huns
    stay abstract: each result is (groups, wild_melds, wild_pair). Memoised:
    the same rest of a hand recurs across decompositions, draws and hands."""
    key = (counts, wild, melds, pair, chow)
    got = _DEC.get(key)
    if got is not None:
        return got
    k = _lowest(counts)
    out: list = []  # type: ignore[type-arg]
    if k == 34:
        if wild == 3 * melds + 2 * pair:
            out.append(((), melds, pair))
        _DEC[key] = out
        return out
    seen = set()
    for g, nat, huns, is_pair in _group_options(counts, k, wild, melds, pair, chow):
        for rest, wm, wp in decompose(_less(counts, nat), wild - huns, melds - (not is_pair), pair - is_pair, chow):
            groups = tuple(sorted((g,) + rest))
            if (groups, wm, wp) not in seen:
                seen.add((groups, wm, wp))
                out.append((groups, wm, wp))
    if len(_DEC) > 200_000:
        _DEC.clear()
    _DEC[key] = out
    return out


_SHAPE: dict = {}  # type: ignore[type-arg]


def has_shape(counts: tuple[int, ...], wild: int, melds: int, pair: int, chow: bool) -> bool:
    """Whether any decomposition exists (cheaper than listing them): waits
    tries 34 draws and most make no shape at all."""
    key = (counts, wild, melds, pair, chow)
    got = _SHAPE.get(key)
    if got is not None:
        return got
    k = _lowest(counts)
    if k == 34:
        ok = wild == 3 * melds + 2 * pair
    else:
        ok = False
        for _, nat, huns, is_pair in _group_options(counts, k, wild, melds, pair, chow):
            if has_shape(_less(counts, nat), wild - huns, melds - (not is_pair), pair - is_pair, chow):
                ok = True
                break
    if len(_SHAPE) > 400_000:
        _SHAPE.clear()
    _SHAPE[key] = ok
    return ok


def decompositions(rules: Any, h: Hand):  # type: ignore[no-untyped-def]
    """Yield each decomposition of the concealed tiles as a list of groups,
    groups of huns alone given every face rules.wild_* allows."""
    counts, wild = split_huns(h.concealed, h.hun_set)
    n_melds = 4 - len(h.declared)
    for groups, wm, wp in decompose(counts, wild, n_melds, 1, rules.chow):
        if not wm and not wp:
            yield list(groups)
            continue
        for ms in combinations_with_replacement(rules.wild_melds, wm):
            if wp:
                for p in rules.wild_pairs:
                    yield list(groups) + list(ms) + [p]
            else:
                yield list(groups) + list(ms)


def placements(groups: list, t: int, t_hun: bool):  # type: ignore[no-untyped-def, type-arg]
    """Where the winning tile can sit: (group index, slot). Identical groups
    and identical faces within a group give the same decomposition once."""
    seen = set()
    for i, g in enumerate(groups):
        if g in seen:
            continue
        seen.add(g)
        faces, hm = g[1], g[2]
        done = set()
        for s, f in enumerate(faces):
            if hm[s] == t_hun and (t_hun or f == t) and f not in done:
                done.add(f)
                yield i, s


def resolve(rules: Any, held: int, lifted: int) -> tuple[int, int, int]:
    """The best claim among the patterns that hold: a subset closed under
    `requires` and free of unlifted conflicts; ties go to more patterns, then
    the higher mask. Returns (fan, popcount, mask)."""
    cache = rules.resolve_cache
    key = (held, lifted)
    got = cache.get(key)
    if got is not None:
        return got
    best = (-1, 0, 0)
    s = held
    while True:
        ok = True
        for i, req in enumerate(rules.requires):
            if s >> i & 1 and req & ~s:
                ok = False
                break
        if ok:
            for j, (a, b) in enumerate(rules.conflicts):
                if s >> a & 1 and s >> b & 1 and not lifted >> j & 1:
                    ok = False
                    break
        if ok:
            cand = (rules.fan(s), bin(s).count("1"), s)
            if cand > best:
                best = cand
        if s == 0:
            break
        s = (s - 1) & held
    cache[key] = best
    return best


def best_of(rules: Any, h: Hand) -> tuple:  # type: ignore[type-arg]
    """(key, groups) of the best decomposition and placement for h.t, or None."""
    best = None
    best_groups = None
    declared = h.declared
    holds, unless = rules.holds, rules.unless
    for cg in decompositions(rules, h):
        for i, s in placements(cg, h.t, h.t_hun):
            g = cg[i]
            placed = cg[:i] + [g[:5] + (s,) + g[6:]] + cg[i + 1:]
            pair = None
            melds = list(declared)
            for x in placed:
                if x[0] == PAIR:
                    pair = x
                else:
                    melds.append(x)
            groups = melds + [pair]
            held = holds(h, melds, pair, groups)
            lifted = unless(h, melds, pair, groups) if rules.conflicts else 0
            key = resolve(rules, held, lifted)
            if best is None or key > best:
                best = key
                best_groups = groups
    return best, best_groups


def render(plan: Any, by_kind: dict) -> tuple:  # type: ignore[type-arg]
    """Evaluate the algebra plan, keeping its text: (value, text, prec, used ids).
    prec 3 atom, 2 product, 1 sum; an empty text is a factor of 1."""
    op = plan[0]
    if op == "num":
        return plan[1], str(plan[1]), 3, []
    if op == "kind":
        return by_kind[plan[1]], None, 3, []
    if op == "agg":
        items = render(plan[2], by_kind)[0]
        vals = [v for v, _ in items]
        used = [pid for _, pid in items]
        if plan[1] == "sum":
            return sum(vals), "+".join(map(str, vals)) or "0", 1 if len(vals) > 1 else 3, used
        if plan[1] == "product":
            p = 1
            for v in vals:
                p *= v
            return p, "×".join(map(str, vals)), 2 if len(vals) > 1 else 3, used
        if plan[1] == "len":
            return len(vals), str(len(vals)), 3, []
        v = (min if plan[1] == "min" else max)(vals) if vals else 0
        return v, str(v), 3, [pid for val, pid in items if val == v][:1]
    if op == "if":
        c = render(plan[1], by_kind)[0]
        return render(plan[2] if c else plan[3], by_kind)
    if op == "bin":
        lv, lt, lp, lu = render(plan[2], by_kind)
        rv, rt, rp, ru = render(plan[3], by_kind)
        o = plan[1]
        if o == "*":
            v = lv * rv
            if not lt:
                return v, rt, rp, lu + ru
            if not rt:
                return v, lt, lp, lu + ru
            return v, f"{_wrap(lt, lp, 2)}×{_wrap(rt, rp, 2)}", 2, lu + ru
        if o == "+":
            return lv + rv, f"{lt or 1}+{rt or 1}", 1, lu + ru
        if o == "-":
            return lv - rv, f"{lt or 1}-{_wrap(rt or '1', rp, 2)}", 1, lu + ru
        return lv // rv if rv else 0, f"{_wrap(lt or '1', lp, 2)}/{_wrap(rt or '1', rp, 3)}", 2, lu + ru
    if op == "not":
        return not render(plan[1], by_kind)[0], None, 3, []
    if op == "bool":
        vals = [render(x, by_kind)[0] for x in plan[2]]
        return (all(vals) if plan[1] == "and" else any(vals)), None, 3, []
    if op == "cmp":
        lv = render(plan[2], by_kind)[0]
        rv = render(plan[3], by_kind)[0]
        o = plan[1]
        res = {"==": lv == rv, "!=": lv != rv, "<": lv < rv, "<=": lv <= rv, ">": lv > rv, ">=": lv >= rv}[o]
        return res, None, 3, []
    if op == "neg":
        v, t, p, u = render(plan[1], by_kind)
        return -v, "-" + _wrap(t or "1", p, 3), 3, u
    raise ValueError(f"cannot render {op}")


def _wrap(text: str, prec: int, need: int) -> str:
    return f"({text})" if prec < need else text


def _claimed_by_kind(rules: Any, mask: int) -> dict:  # type: ignore[type-arg]
    by_kind: dict = {k: [] for k in rules.kinds}  # type: ignore[type-arg]
    for i in range(len(rules.ids)):
        if mask >> i & 1:
            by_kind[rules.kind_of[i]].append((rules.values[i], i))
    return by_kind


def _decomposition(h: Hand, groups: list) -> list:  # type: ignore[type-arg]
    """The groups for people: faces, the actual tiles (a hun shows which hun
    tile stood there; huns standing for their own face first), and a text
    such as `4m=1m 5m* 6m=2m` (face=hun tile, * the winning tile); declared
    melds in [ ] (exposed) or ( ) (concealed kong)."""
    hun_left = [k for k in h.concealed if k in h.hun_set]
    if h.t_hun:
        hun_left.remove(h.t)  # the winning tile sits in its own slot
    out: list[dict[str, Any]] = []
    pending = []
    for g in groups:
        tiles: list = []  # type: ignore[type-arg]
        for s, (f, hf) in enumerate(zip(g[1], g[2])):
            if not hf or g[3]:  # a declared meld's huns are their own faces
                tiles.append(f)
            elif s == g[5]:
                tiles.append(h.t)
            elif f in hun_left:  # a hun standing for its own face shows as itself
                hun_left.remove(f)
                tiles.append(f)
            else:
                tiles.append(None)
                pending.append((len(out), len(tiles) - 1))
        out.append({"meld": GROUP_KIND_NAMES[g[0]], "declared": g[3], "concealed": g[4],
                    "faces": [NAMES[f] for f in g[1]], "tiles": tiles, "huns": list(g[2]),
                    "winning_slot": g[5] if g[5] >= 0 else None})
    for gi, si in pending:
        out[gi]["tiles"][si] = hun_left.pop(0)
    for d in out:
        parts = []
        for s, (f, tl) in enumerate(zip(d["faces"], d["tiles"])):
            text = f if NAMES[tl] == f else f"{f}={NAMES[tl]}"
            parts.append(text + ("*" if s == d["winning_slot"] else ""))
        d["tiles"] = [NAMES[x] for x in d["tiles"]]
        text = " ".join(parts)
        if d["declared"]:
            text = f"({text})" if d["concealed"] else f"[{text}]"
        d["text"] = text
    return out


def _invalid(req_id: Any, msg: str) -> dict:  # type: ignore[type-arg]
    return {"id": req_id, "win": False, "fan": 0, "total": 0, "patterns": [], "names": [], "formula": "",
            "reason": "invalid_request", "error": msg}


def other_rules(rules: Any, data: Any) -> str:
    """Why a request's `profile`/`options` are not the rules in force ("" if they are):
    a request is never scored under rules it did not ask for."""
    if not isinstance(data, dict):
        return ""
    prof = data.get("profile")
    if prof is not None and prof != rules.profile:
        return f"profile: this scorer is compiled for profile {rules.profile!r}, not {prof!r}"
    opts = data.get("options") or {}
    if not isinstance(opts, dict):
        return "options: expected a mapping of option names to values"
    for k, v in opts.items():
        if k not in rules.choices:
            return f"options: no option {k!r}"
        if str(rules.choices[k]).lower() != str(v).lower():
            return f"options: this scorer is compiled with {k}={rules.choices[k]!r}, not {v!r}"
    return ""


def score_request(rules: Any, data: Any) -> dict:  # type: ignore[type-arg]
    """A request mapping (or a Request) → a result mapping. Never raises for a
    bad request: the result says what is wrong."""
    req_id = data.get("id") if isinstance(data, dict) else getattr(data, "id", None)
    if other_rules(rules, data):
        return _invalid(req_id, other_rules(rules, data))
    try:
        req = data if isinstance(data, Request) else parse_request(data, need_draw=True, flags=rules.flags)
        if req.draw is None:
            raise RequestError("missing", "draw")
    except RequestError as e:
        return _invalid(req_id, str(e))
    return score_parsed(rules, req)


def _shape_key(rules: Any, req: Request, t: int) -> tuple:  # type: ignore[type-arg]
    counts, wild = split_huns(req.concealed + (t,), set(hun_kinds_of(req.indicator, rules.hun_count, rules.cycles)))
    return counts, wild, 4 - len(req.melds), 1, rules.chow


def score_parsed(rules: Any, req: Request, display: bool = True) -> dict:  # type: ignore[type-arg]
    assert req.draw is not None
    h = make_hand(rules, req, req.draw)
    errs = rules.request_errors(h)
    if errs:
        return _invalid(req.id, errs[0])
    choices = sorted(set(h.concealed)) if rules.free_t(h) else [req.draw]
    best = None
    best_groups = None
    best_h = h
    for t in choices:
        if t != h.t:
            h2 = make_hand(rules, req, req.draw)
            h2.t = t
            h2.t_hun = t in h2.hun_set
            hh = h2
        else:
            hh = h
        key, groups = rules.best(rules, hh)
        if key is not None and (best is None or key > best):
            best, best_groups, best_h = key, groups, hh
    return _result(rules, req, best_h, best, best_groups, display)


def _result(rules: Any, req: Request, h: Hand, best: Any, groups: Any, display: bool = True) -> dict:  # type: ignore[type-arg]
    res: dict = {"id": req.id}  # type: ignore[type-arg]
    if best is None:
        res.update(win=False, fan=0, total=0, patterns=[], names=[], formula="",
                   reason="no_winning_shape", message="these 14 tiles make no 4 melds and a pair")
        res["hun_kinds"] = [NAMES[k] for k in h.hun_kinds]
        return res
    fan, _, mask = best
    value, text, _, used = render(rules.plan, _claimed_by_kind(rules, mask))
    used_set = set(used)  # a claimed pattern shows when the algebra used its value
    shown = [i for i in range(len(rules.ids)) if mask >> i & 1 and i in used_set]
    win = fan >= rules.min_fan
    res.update(win=win, fan=fan, total=rules.total(h, fan) if win else 0,
               patterns=[rules.ids[i] for i in shown], names=[rules.names[i] for i in shown],
               formula=f"{text or 1} = {value}")
    if not win:
        res["reason"] = "below_min_fan"
        res["message"] = f"fan {fan} is below the {rules.min_fan} needed to win"
    res["winning_tile"] = NAMES[h.t]
    res["hun_kinds"] = [NAMES[k] for k in h.hun_kinds]
    if display:
        res["decomposition"] = _decomposition(h, groups)
    return res


def waits_request(rules: Any, data: Any) -> list | dict:  # type: ignore[type-arg]
    """Every tile that wins the 13-tile hand, each with its result; or an
    invalid-request result."""
    req_id = data.get("id") if isinstance(data, dict) else getattr(data, "id", None)
    if other_rules(rules, data):
        return _invalid(req_id, other_rules(rules, data))
    try:
        req = data if isinstance(data, Request) else parse_request(data, need_draw=False, flags=rules.flags)
    except RequestError as e:
        return _invalid(req_id, str(e))
    out: list = []  # type: ignore[type-arg]
    first_error = None
    any_valid = False
    huns = set(hun_kinds_of(req.indicator, rules.hun_count, rules.cycles))
    near: set[int] | None = None
    if not any(x in huns for x in req.concealed):
        # without a hun in hand a drawn tile can only join tiles it touches
        near = set(huns)
        for x in req.concealed:
            near.add(x)
            if x < 27 and rules.chow:
                near.update(y for y in range(x - 2, x + 3) if y // 9 == x // 9 and 0 <= y < 27)
    for k in range(34):
        if near is not None and k not in near:
            continue
        held = sum(1 for x in req.concealed if x == k) + sum((3 if m.type == "pung" else 4) for m in req.melds if m.tile == k)
        if held >= 4:
            continue  # no fifth tile to draw
        r = Request(req.concealed, req.melds, k, req.indicator, req.kong_draw, req.flags, req.id)
        errs = rules.request_errors(make_hand(rules, r, k))
        if errs:
            first_error = first_error or errs[0]
            continue
        any_valid = True
        if not has_shape(*_shape_key(rules, r, k)):
            continue
        res = score_parsed(rules, r, display=False)
        if res["win"]:
            out.append({"tile": NAMES[k], "fan": res["fan"], "total": res["total"],
                        "patterns": res["patterns"], "formula": res["formula"]})
    if not any_valid and first_error:  # no tile could even be drawn into a valid hand
        return _invalid(req_id, first_error)
    return out


def jsonl(lines: Any, score_line: Any) -> Any:
    """The batch contract: one JSON request per line in, one JSON result per
    line out, same order. A bad line gets an `error` and the batch goes on.
    `score_line(request_mapping)` returns a result mapping (or list for waits)."""
    import json as _json
    for n, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        try:
            if text.startswith("\x00"):  # the reader could not decode the line (its message follows)
                raise ValueError(text[1:])
            data = _json.loads(text)
        except ValueError as e:
            what = str(e) if text.startswith("\x00") else f"not JSON: {e}"
            yield _json.dumps({"id": None, "win": False, "fan": 0, "total": 0, "patterns": [], "formula": "",
                               "reason": "invalid_request", "error": f"line {n}: {what}"}, ensure_ascii=False)
            continue
        try:
            res = score_line(data)
        except Exception as e:  # noqa: BLE001 - one bad line must not stop the batch
            res = _invalid(data.get("id") if isinstance(data, dict) else None, f"line {n}: {type(e).__name__}: {e}")
        if isinstance(res, list):
            res = {"id": data.get("id") if isinstance(data, dict) else None, "waits": res}
        elif isinstance(res, dict) and res.get("error") and not str(res["error"]).startswith("line "):
            res = dict(res, error=f"line {n}: {res['error']}")
        yield _json.dumps(res, ensure_ascii=False)


# ---- the mask search (generated scorers whose rules fit passes/atoms.py) ----

_GMASK: dict = {}  # type: ignore[type-arg]
_DP: dict = {}  # type: ignore[type-arg]
# _GMASK: (group, hand context) → the group's atom bits; _DP: (context, state) → ((aggregate, witness), …)
_CACHE_LIMIT = 400_000


def _with_t(g: tuple, t: int, t_hun: bool) -> list:  # type: ignore[type-arg]
    """The group with the winning tile in each slot it can take (distinct faces)."""
    out = []
    seen = set()
    for s, (f, hf) in enumerate(zip(g[1], g[2])):
        if hf == t_hun and (t_hun or f == t) and f not in seen:
            seen.add(f)
            out.append(g[:5] + (s,) + g[6:])
    return out


def _maximal(aggs: dict) -> dict:  # type: ignore[type-arg]
    """Drop every aggregate whose bits another one has too: when the rules are
    monotone in the bits it can never score more."""
    aggs_out: dict = {}  # type: ignore[type-arg]
    # a dominator has at least as many bits, so look at the fuller ones first
    items = sorted(aggs.items(), key=lambda kv: -(kv[0][0].bit_count() + kv[0][1].bit_count() + kv[0][2].bit_count()))
    kept: list = []  # type: ignore[type-arg]
    for agg, wit in items:
        o, a, pm = agg
        for o2, a2, pm2 in kept:
            if o & ~o2 == 0 and a & ~a2 == 0 and pm & ~pm2 == 0:
                break
        else:
            kept.append(agg)
            aggs_out[agg] = wit
    return aggs_out


def best_by_masks(rules: Any, h: Hand) -> tuple:  # type: ignore[type-arg]
    """The same answer as best_of, found over aggregate masks: each group is
    reduced to its atom bits, and a state of the search keeps one witness per
    distinct (OR of melds, AND of melds, pair) — decompositions the rules
    cannot tell apart are explored once."""
    ctx = rules.ctx(h)
    gmask_fn = rules.gmask
    if len(_GMASK) > _CACHE_LIMIT:
        _GMASK.clear()
    if len(_DP) > _CACHE_LIMIT // 4:
        _DP.clear()

    def gmask(g: tuple) -> int:  # type: ignore[type-arg]
        key = (g, ctx)
        m = _GMASK.get(key)
        if m is None:
            m = _GMASK[key] = gmask_fn(h, g)
        return m

    full = (1 << rules.nbits) - 1
    monotone = getattr(rules, "monotone", False)
    t, t_hun = h.t, h.t_hun
    chow = rules.chow
    wild_melds, wild_pairs = rules.wild_melds, rules.wild_pairs
    # once the winning tile is placed, the rest of the search no longer
    # depends on which tile it was: those states are shared across draws
    dp_key_t = (ctx, chow, t, t_hun)
    dp_key_free = (ctx, chow)

    def wild_sets(tl: int) -> tuple:  # type: ignore[type-arg]
        """Distinct masks of groups made only of huns, melds and pairs: those
        without t depend on the hand context only, those with t on t too.
        Tuples, not dicts: the garbage collector stops tracking them."""
        key = (dp_key_free, "wild")
        base = _DP.get(key)
        if base is None:
            m0: dict = {}  # type: ignore[type-arg]
            p0: dict = {}  # type: ignore[type-arg]
            for g in wild_melds:
                m0.setdefault(gmask(g), g)
            for g in wild_pairs:
                p0.setdefault(gmask(g), g)
            base = _DP[key] = (tuple(m0.items()), tuple(p0.items()))
        if not (tl and t_hun):
            return base[0], (), base[1], ()
        key_t = (dp_key_t, "wild")
        with_t = _DP.get(key_t)
        if with_t is None:
            mt: dict = {}  # type: ignore[type-arg]
            pt: dict = {}  # type: ignore[type-arg]
            for g in wild_melds:
                for gt in _with_t(g, t, True):
                    mt.setdefault(gmask(gt), gt)
            for g in wild_pairs:
                for gt in _with_t(g, t, True):
                    pt.setdefault(gmask(gt), gt)
            with_t = _DP[key_t] = (tuple(mt.items()), tuple(pt.items()))
        return base[0], with_t[0], base[1], with_t[1]

    def wild_only(m: int, p: int, tl: int) -> dict:  # type: ignore[type-arg]
        m0, mt, p0, pt = wild_sets(tl)
        # states: (or, and, pair mask, t placed) → witness
        cur: dict = {(0, full, 0, 0): ()}  # type: ignore[type-arg]
        for _ in range(m):
            nxt: dict = {}  # type: ignore[type-arg]
            for (o, a, pm, placed), wit in cur.items():
                for b, g in m0:
                    nxt.setdefault((o | b, a & b, pm, placed), wit + (g,))
                if tl and not placed:
                    for b, g in mt:
                        nxt.setdefault((o | b, a & b, pm, 1), wit + (g,))
            cur = nxt
        if p:
            nxt = {}
            for (o, a, _, placed), wit in cur.items():
                for b, g in p0:
                    nxt.setdefault((o, a, b, placed), wit + (g,))
                if tl and not placed:
                    for b, g in pt:
                        nxt.setdefault((o, a, b, 1), wit + (g,))
            cur = nxt
        return {(o, a, pm): wit for (o, a, pm, placed), wit in cur.items() if placed == tl}

    def dp(counts: tuple[int, ...], wild: int, m: int, p: int, tl: int) -> tuple:  # type: ignore[type-arg]
        key = (dp_key_t if tl else dp_key_free, counts, wild, m, p, tl)
        got = _DP.get(key)
        if got is not None:
            return got
        k = _lowest(counts)
        if k == 34:
            res = tuple(wild_only(m, p, tl).items()) if wild == 3 * m + 2 * p and (not tl or t_hun) else ()
            _DP[key] = res
            return res
        out: dict = {}  # type: ignore[type-arg]
        for g, nat, huns, is_pair in _group_options(counts, k, wild, m, p, chow):
            rest = _less(counts, nat)
            variants = [(g, tl)]
            if tl:
                variants += [(gt, 0) for gt in _with_t(g, t, t_hun)]
            for gv, tl2 in variants:
                b = gmask(gv)
                sub = dp(rest, wild - huns, m - (not is_pair), p - is_pair, tl2)
                if is_pair:
                    for (o, a, _), wit in sub:
                        out.setdefault((o, a, b), (gv,) + wit)
                else:
                    for (o, a, pm), wit in sub:
                        out.setdefault((o | b, a & b, pm), (gv,) + wit)
        if monotone and len(out) > 1:
            out = _maximal(out)
        res = tuple(out.items())
        _DP[key] = res
        return res

    counts, wild = split_huns(h.concealed, h.hun_set)
    o0, a0 = 0, full
    for g in h.declared:
        b = gmask(g)
        o0 |= b
        a0 &= b
    best = None
    best_groups = None
    for (o, a, pm), wit in dp(counts, wild, 4 - len(h.declared), 1, 1):
        om, am = o | o0, a & a0
        held = rules.holds_agg(h, om, am, om | pm, am & pm, pm)
        lifted = rules.unless_agg(h, om, am, om | pm, am & pm, pm) if rules.conflicts else 0
        key = resolve(rules, held, lifted)
        if best is None or key > best:
            best = key
            melds = list(h.declared) + [g for g in wit if g[0] != PAIR]
            best_groups = melds + [g for g in wit if g[0] == PAIR]
    return best, best_groups
