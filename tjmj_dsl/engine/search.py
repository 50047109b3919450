"""Finding the best claim over every decomposition: the plain enumeration
the reference interpreter uses, and the mask search of the generated scorer."""

from __future__ import annotations

from gc import disable as _gc_disable
from gc import enable as _gc_enable
from gc import get_referents as _get_referents
from gc import is_tracked as _is_tracked
from gc import isenabled as _gc_isenabled
from itertools import combinations_with_replacement
from typing import Any

from .contract import MAX_HELD  # tjmj:inline-drop
from .hand import CHOW, PAIR, PUNG, Hand, make_group, split_huns  # tjmj:inline-drop
from .lasting import lasting, restart  # tjmj:inline-drop

_DEC: dict[tuple, list] = lasting()  # type: ignore[type-arg]
_CACHE_LIMIT = 400_000
# the parts of the tile set a natural group never leaves: one per suit, the honors
_PARTS = ((0, 9), (9, 18), (18, 27), (27, 34))


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
        restart(_DEC)
    _DEC[key] = out
    return out


_SHAPE: dict = lasting()  # type: ignore[type-arg]


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
        restart(_SHAPE)
    _SHAPE[_settled(key)] = ok
    return ok


def _budgets(n: int, wild: int) -> list[tuple[int, int, int]]:
    """The ways a part of n natural tiles can take j of `wild` huns: (j, melds,
    pairs) with n + j = 3 melds + 2 pairs and at most one pair (each group
    holds a natural tile and at most 2 huns, so j <= 2n)."""
    out = []
    for j in range(min(wild, 2 * n) + 1):
        m, r = divmod(n + j, 3)
        if r != 1:
            out.append((j, m, r // 2))
    return out


def _meld_x(b: int, n: int, full: int, na: int) -> int:
    """A meld's bits b as an aggregate (the AND field kept only when read)."""
    return b | (((full & ~b) << n) & na)


def group_share(b: int, pair: bool, n: int, full: int, na: int) -> int:
    """A group's share of an aggregate, from its bits b: the pair's, or a meld's (_meld_x)."""
    return b << 2 * n if pair else _meld_x(b, n, full, na)


def _declared_masks(rules: Any, h: Hand, gmask: Any) -> int:
    """The declared melds' aggregate: the start of every reading."""
    n, full, na = _layout(rules)
    x0 = 0
    for g in h.declared:
        x0 |= _meld_x(gmask(g), n, full, na)
    return x0


_PART_SHAPE: dict = lasting()  # type: ignore[type-arg]


def shape_by_parts(counts: tuple[int, ...], wild: int, melds: int, chow: bool) -> bool:
    """has_shape(counts, wild, melds, 1, chow), found part by part (each suit,
    the honors): which hun budgets each part can take is memoised per part, so
    the draws of `waits` and hands sharing a suit reuse it; the budgets are
    then joined, the huns left over forming groups of their own."""
    reach = {(0, 0, 0)}  # (huns, melds, pairs) taken by the parts so far
    for lo, hi in _PARTS:
        vec = counts[lo:hi]
        n = sum(vec)
        if not n:
            continue
        key = (lo, vec, wild, chow)
        ok = _PART_SHAPE.get(key)
        if ok is None:
            if len(_PART_SHAPE) > _CACHE_LIMIT:
                restart(_PART_SHAPE)
            full = (0,) * lo + vec + (0,) * (34 - hi)
            ok = _PART_SHAPE[_settled(key)] = _settled(tuple([(j, m, p) for j, m, p in _budgets(n, wild)
                                                              if has_shape(full, j, m, p, chow)]))
        reach = {(ju + j, mu + m, pu + p) for ju, mu, pu in reach for j, m, p in ok
                 if ju + j <= wild and mu + m <= melds and pu + p <= 1}
        if not reach:
            return False
    return any(wild - ju == 3 * (melds - mu) + 2 * (1 - pu) for ju, mu, pu in reach)


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


class TooManyHeld(Exception):
    """More than MAX_HELD patterns hold on one reading: the request is refused (too_many_patterns)."""

    def __init__(self, held: int) -> None:
        n = held.bit_count()
        super().__init__(f"{n} patterns hold on one reading of this hand; the scorer weighs at most {MAX_HELD} "
                         f"together (it tries every subset of them, 2^{n}): a mistake in the rules")
        self.held = held


def resolve(rules: Any, held: int, lifted: int) -> tuple[int, int, int]:
    """The best claim among the patterns that hold: a subset closed under
    `requires` and free of unlifted conflicts; ties go to more patterns, then
    the higher mask. Returns (fan, popcount, mask). Every subset of `held` is
    tried (the algebra need not be monotone); what a subset is, closed or
    not, which conflicts it holds and its fan, is worked out once per rule set.
    TooManyHeld past MAX_HELD patterns (2^16 subsets at most, not 2^64)."""
    cache = rules.resolve_cache
    key = (held, lifted)
    got = cache.get(key)
    if got is not None:
        return got
    if held.bit_count() > MAX_HELD:
        raise TooManyHeld(held)
    info = rules.subset_info
    best = (-1, 0, 0)
    s = held
    while True:
        inf = info.get(s)
        if inf is None:
            inf = info[s] = _subset_info(rules, s)
        if inf[0] and not inf[1] & ~lifted:
            cand = inf[3]
            if cand > best:
                best = cand
        if s == 0:
            break
        s = (s - 1) & held
    cache[key] = best
    return best


def _subset_info(rules: Any, s: int) -> tuple:  # type: ignore[type-arg]
    """(closed under requires, the conflicts it holds as a mask, its fan when
    closed, its claim (fan, popcount, mask) when closed). The claim is made
    once per subset, not per resolve: fewer tuples, and rules.claim_ids
    numbers each distinct claim once."""
    for i, req in enumerate(rules.requires):
        if s >> i & 1 and req & ~s:
            return False, 0, 0, None
    conf = 0
    for j, (a, b) in enumerate(rules.conflicts):
        if s >> a & 1 and s >> b & 1:
            conf |= 1 << j
    fan = rules.fan(s)
    return True, conf, fan, (fan, s.bit_count(), s)


def best_of(rules: Any, h: Hand) -> tuple:  # type: ignore[type-arg]
    """(key, groups) of the best decomposition and placement for h.t, or
    (None, None); groups are the concealed tiles' (result.display_groups adds
    the declared melds)."""
    best = None
    best_groups = None
    declared = h.declared
    holds, unless = rules.holds, rules.unless
    for placed in placed_readings(rules, h):
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
            best_groups = placed
    return best, best_groups


def placed_readings(rules: Any, h: Hand):  # type: ignore[no-untyped-def]
    """Each reading of h: the concealed groups of a decomposition, the winning tile placed in one of them."""
    for cg in decompositions(rules, h):
        for i, s in placements(cg, h.t, h.t_hun):
            g = cg[i]
            yield cg[:i] + [g[:5] + (s,) + g[6:]] + cg[i + 1:]


# ---- the mask search (generated scorers whose rules fit passes/atoms.py) ----

# A reading's witness (the groups it is made of, in order) is one int: each group's number in
# _GROUPS plus one, 16 bits each, the first group lowest. Tables of (aggregate, witness) pairs then
# hold nothing the garbage collector tracks for long: a tuple of ints is untracked at the first
# collection that sees it, whatever the order (witnesses as tuples of groups, or of numbers,
# stayed tracked until full collections, and made each of them walk them all).
_GROUPS: list = []  # type: ignore[type-arg]  # group number → group
_GROUP_IDS: dict = lasting()  # type: ignore[type-arg]  # group → its witness (number + 1)


def _wid(g: tuple) -> int:  # type: ignore[type-arg]
    """The witness of the group alone (numbered on first sight; a few thousand exist)."""
    w = _GROUP_IDS.get(g)
    if w is None:
        w = _GROUP_IDS[g] = len(_GROUPS) + 1
        if w > 0xFFFF:
            raise OverflowError("more than 65535 distinct groups")
        _GROUPS.append(g)
    return w


def _cat(a: int, b: int) -> int:
    """Witness a followed by witness b."""
    return a | b << ((a.bit_length() + 15) & ~15)


def witness_groups(w: Any) -> Any:
    """The groups of a witness, in order (a list of groups, as best_of gives, passes through)."""
    if w.__class__ is not int:
        return w
    out = []
    while w:
        out.append(_GROUPS[(w & 0xFFFF) - 1])
        w >>= 16
    return out


# An aggregate is one int: the OR of the melds' bits, the complement of the AND of
# their bits shifted up by nbits, and the pair's bits shifted up by 2 * nbits, so
# joining two partial readings is a single OR (see _layout).
#
# The tables, all keyed by what they depend on and nothing else:
_GMASK: dict = lasting()  # type: ignore[type-arg]  # group → its atom bits that read the group alone;
#                                             (group, hand context) → those that read the hand
_TAB: dict = lasting()  # type: ignore[type-arg]  # (table context id, part table key) as one int → part table (dp)
_DP: dict = lasting()  # type: ignore[type-arg]  # (context, what) → the part tables by tiles, hun-only tables
_RAW: dict = lasting()  # type: ignore[type-arg]  # the groups holding a lowest kind, whatever the hand
_OPTS: dict = lasting()  # type: ignore[type-arg]  # the same with their aggregates, per table context
_CTX_ID: dict = lasting()  # type: ignore[type-arg]  # table context → its small id
_CTXS: dict = lasting()  # type: ignore[type-arg]  # hand context → the one tuple standing for it


def _layout(rules: Any) -> tuple[int, int, int]:
    """(nbits, the low nbits set, the complemented-AND field when a test reads it, else 0)."""
    n = rules.nbits
    full = (1 << n) - 1
    return n, full, (full << n) if rules.reads_and else 0


def _unpack(x: int, n: int, full: int) -> tuple[int, int, int]:
    """(OR of the melds' bits, AND of the melds' bits, the pair's bits) of an aggregate."""
    return x & full, full & ~(x >> n), x >> 2 * n


def _with_t(g: tuple, t: int, t_hun: bool) -> list:  # type: ignore[type-arg]
    """The group with the winning tile in each slot it can take (distinct faces)."""
    out = []
    seen = set()
    for s, (f, hf) in enumerate(zip(g[1], g[2])):
        if hf == t_hun and (t_hun or f == t) and f not in seen:
            seen.add(f)
            out.append(g[:5] + (s,) + g[6:])
    return out


def _pruned(aggs: dict, monotone: bool, na: int) -> dict:  # type: ignore[type-arg]
    """aggs, cut to the maximal aggregates when the rules are monotone (the others can never score more)."""
    return _maximal(aggs, na) if monotone and len(aggs) > 1 else aggs


def _maximal(aggs: dict, na: int) -> dict:  # type: ignore[type-arg]
    """Drop every aggregate whose bits another one has too: when the rules are
    monotone in the bits it can never score more. `na` is the complemented-AND
    field, where fewer bits are more (0 when no test reads the AND)."""
    aggs_out: dict = {}  # type: ignore[type-arg]
    kept: list[int] = []
    if not na:
        if len(aggs) == 2:  # the most common case, without sorting
            (x, wx), (y, wy) = aggs.items()
            return {y: wy} if not x & ~y else ({x: wx} if not y & ~x else aggs)
        # a dominator has at least as many bits, so look at the fuller ones first;
        # kept holds the complements: x is covered by y when x & ~y is 0
        if len(aggs) <= 16:
            for x in sorted(aggs, key=int.bit_count, reverse=True):
                for ny in kept:
                    if not x & ny:
                        break
                else:
                    kept.append(~x)
                    aggs_out[x] = aggs[x]
            return aggs_out
        # many (measured: faster from about 16 on, slower below): only a kept one
        # holding x's highest bit can cover x, so the kept ones are listed by each
        # of their bits and x looks at one list
        by_bit: dict = {}  # type: ignore[type-arg]
        for x in sorted(aggs, key=int.bit_count, reverse=True):
            if not x and aggs_out:  # no bit: covered by anything kept
                break
            for ny in by_bit.get(x.bit_length(), ()):
                if not x & ny:
                    break
            else:
                aggs_out[x] = aggs[x]
                y = x
                while y:
                    b = y.bit_length()
                    by_bit.setdefault(b, []).append(~x)
                    y ^= 1 << (b - 1)
        return aggs_out
    for x in sorted(aggs, key=lambda x: (x & ~na).bit_count() - (x & na).bit_count(), reverse=True):
        for y in kept:
            if x & ~y & ~na == 0 and y & ~x & na == 0:
                break
        else:
            kept.append(x)
            aggs_out[x] = aggs[x]
    return aggs_out


_PART_OF = tuple(i for i, (lo, hi) in enumerate(_PARTS) for _ in range(lo, hi))  # kind → its part


def _entries(d: dict) -> tuple:  # type: ignore[type-arg]
    """d's (key, value) pairs as a tuple for a table, made after its pairs
    (tuple(d.items()) makes the tuple first; see _settled, which the table's
    insertion calls once for the whole entry)."""
    return tuple(list(d.items()))


_KEEP: list = []  # type: ignore[type-arg]  # the tuples of the table entries made lately (see _settled)


def _settled(entry: Any) -> Any:
    """entry, a new table entry (tuples of tuples ... of ints and strings),
    with each of its tuples the collector still tracks held in _KEEP for a
    while. Why: the collector stops tracking such a tuple once a collection
    finds its items untracked, going through the young objects in order;
    a tuple held only by another young one is moved behind it first, so
    each collection frees one level of a nested entry, and a deeper entry
    reaches the oldest generation still tracked, where every full collection
    walks it (tens of milliseconds, on whichever call is running). Held from
    outside, the tuples stay in the order they were made, items before the
    tuple holding them (tables are built from lists, see _entries), and the
    next young collection frees the whole entry at once. Called once per
    insertion into a table, on the whole entry (a walk per nesting level
    would go through the inner tuples again), with no collection between
    making an entry's tuples and this call (the miss paths pause it: _uncollected)."""
    if len(_KEEP) > 20_000:  # long since collected: the youngest collections run every few hundred objects
        del _KEEP[:10_000]
    level = [entry] if _is_tracked(entry) else []
    while level:  # one nesting level at a time, each in C: what the level holds that is still tracked
        _KEEP.extend(level)
        level = list(filter(_is_tracked, _get_referents(*level)))
    return entry


def _product(left: dict, right: Any, out: dict) -> None:  # type: ignore[type-arg]
    """Every aggregate of a left one with a right one, one witness each."""
    for x, w in left.items():
        for y, w2 in right:
            k = x | y
            if k not in out:
                out[k] = w | w2 << ((w.bit_length() + 15) & ~15)


_SHARED_CAP = 4  # from this many huns on, a part's sub-tables are shared across hun budgets
# budgets as bits: bit 2 * huns + pairs. _UPTO[c]: up to c huns; _FEASIBLE[n % 3]: those that n
# natural tiles can meet (n + huns - 2 * pairs a multiple of 3); _NO_PAIR: those without a pair
_UPTO = tuple((1 << (2 * c + 2)) - 1 for c in range(32))
_FEASIBLE = tuple(sum(1 << (2 * w + p) for w in range(32) for p in (0, 1) if (r + w - 2 * p) % 3 == 0) for r in range(3))
_NO_PAIR = sum(1 << (2 * w) for w in range(32))
_NOTHING = ((0, ((0, 0),)),)  # no tile, no hun, no pair: one empty reading (a part table: see dp)


def _ctx_id(key: tuple) -> int:  # type: ignore[type-arg]
    """A small int for a table context, so that table keys are flat ints."""
    got = _CTX_ID.get(key)
    if got is None:
        got = _CTX_ID[key] = len(_CTX_ID) + 1
    return got


def _raw_options(k: int, c: int, has1: bool, has2: bool, wild: int, chow: bool, lo: int) -> tuple:  # type: ignore[type-arg]
    """The groups that can hold the lowest natural kind k, whatever the hand:
    (group, its natural tiles packed 3 bits per kind from lo, how many, huns,
    is pair, its variants with a hun t, ((natural t, its variants with t), ...)).
    Tuples all through: the garbage collector stops tracking them (a dict
    inside would keep every tuple holding it tracked, and walked by each
    full collection)."""
    key = (k, c, has1, has2, wild, chow)
    got = _RAW.get(key)
    if got is None:
        near = [0] * 36
        near[k], near[k + 1], near[k + 2] = c, has1, has2
        got = _RAW[key] = _settled(tuple([
            (g, sum(1 << 3 * (x - lo) for x in nat), len(nat), huns, is_pair, tuple(_with_t(g, -1, True)),
             tuple([(f, tuple(_with_t(g, f, False))) for f in sorted(set(g[1]))]))
            for g, nat, huns, is_pair in _group_options(tuple(near), k, wild, 1, 1, chow)]))
    return got


def _tables(rules: Any, h: Hand, ctx: tuple) -> tuple:  # type: ignore[type-arg]
    """The table builders for hand h: (gmask, part, wild_only, wild_chunks, release), each memoised
    in the tables above under keys that name only what the table depends on; release() once done."""
    gmask_fn, gmask_ctx = rules.gmask, rules.gmask_ctx
    if len(_GMASK) > _CACHE_LIMIT:
        restart(_GMASK)
    if len(_DP) > _CACHE_LIMIT // 4 or len(_TAB) > _CACHE_LIMIT:
        restart(_DP)
        restart(_TAB)
        restart(_OPTS)

    def gmask(g: tuple) -> int:  # type: ignore[type-arg]
        """The group's atom bits: those of the group alone cached once for
        every hand, those that read the hand context per context."""
        m = _GMASK.get(g)
        if m is None:
            m = _GMASK[g] = gmask_fn(h, g)
        if gmask_ctx is not None:
            key = (g, ctx)
            c = _GMASK.get(key)
            if c is None:
                c = _GMASK[key] = gmask_ctx(h, g)
            m |= c
        return m

    nb, full, na = _layout(rules)  # the AND field stays empty when no test reads it: fewer distinct states
    pair_shift = 2 * nb
    monotone = rules.monotone
    t, t_hun = h.t, h.t_hun
    chow = rules.chow
    wild_melds, wild_pairs = rules.wild_melds, rules.wild_pairs
    # a table with the winning tile placed depends on it; one without does not
    # (a hun t takes a hun slot whatever its kind: those tables are shared by every hun t)
    id_t, id_free = _ctx_id((ctx, chow, -1 if t_hun else t, t_hun)), _ctx_id((ctx, chow))
    dp_key_t, dp_key_free = id_t << 32, id_free << 32
    # a part table's key: lo (5 bits), the budgets asked for (2 bits per hun a hand can hold, and
    # 2), the packed counts above them (3 bits for each of a part's 9 kinds at most), and above
    # those the table context's id (with t to place, or without): one int, one table for every
    # context (a dict per context, made while scoring, would be walked by every full collection)
    vshift = 7 + 2 * rules.hun_count * rules.copies
    tab_t, tab_free = id_t << vshift + 27, id_free << vshift + 27

    def wild_sets(tl: int) -> tuple:  # type: ignore[type-arg]
        """Distinct masks of groups made only of huns, melds and pairs: those
        without t depend on the hand context only, those with t on t too.
        Only the maximal ones when the rules are monotone (a group whose bits
        another has too never scores more). Tuples, not dicts: the garbage
        collector stops tracking them."""
        # every hun-only group and its variants with a hun t, with the bits that read the group
        # alone: the same for every hand, worked out once
        ws = rules.wild_static
        if ws is None:
            ws = rules.wild_static = _settled(tuple([
                tuple([(g, gmask_fn(h, g), tuple([(gt, gmask_fn(h, gt)) for gt in _with_t(g, -1, True)])) for g in groups])
                for groups in (wild_melds, wild_pairs)]))

        def bits(g: tuple, static: int) -> int:  # type: ignore[type-arg]
            return static | gmask_ctx(h, g) if gmask_ctx is not None else static
        key = (dp_key_free, "wild")
        base = _DP.get(key)
        if base is None:
            m0: dict = {}  # type: ignore[type-arg]
            p0: dict = {}  # type: ignore[type-arg]
            for g, sm, _ in ws[0]:
                m0.setdefault(_meld_x(bits(g, sm), nb, full, na), _wid(g))
            for g, sm, _ in ws[1]:
                p0.setdefault(bits(g, sm) << pair_shift, _wid(g))
            base = _DP[key] = _settled((_entries(_pruned(m0, monotone, na)), _entries(_pruned(p0, monotone, na))))
        if not (tl and t_hun):
            return base[0], (), base[1], ()
        key_t = (dp_key_t, "wild")
        with_t = _DP.get(key_t)
        if with_t is None:
            mt: dict = {}  # type: ignore[type-arg]
            pt: dict = {}  # type: ignore[type-arg]
            for _, _, variants in ws[0]:
                for gt, sm in variants:
                    mt.setdefault(_meld_x(bits(gt, sm), nb, full, na), _wid(gt))
            for _, _, variants in ws[1]:
                for gt, sm in variants:
                    pt.setdefault(bits(gt, sm) << pair_shift, _wid(gt))
            with_t = _DP[key_t] = _settled((_entries(_pruned(mt, monotone, na)), _entries(_pruned(pt, monotone, na))))
        return base[0], with_t[0], base[1], with_t[1]

    def wild_only(m: int, p: int, tl: int) -> tuple:  # type: ignore[type-arg]
        """The part made only of huns: m melds and p pairs, t among them if tl.
        Built one group at a time from the table with one meld fewer (or, for
        the pair, from the pair alone), keeping only maximal aggregates at
        each step when the rules are monotone (a dominated partial reading
        stays dominated whatever is joined to it)."""
        key = (dp_key_t if tl else dp_key_free, "wild", m, p, tl)
        got = _DP.get(key)
        if got is not None:
            return got
        m0, mt, p0, pt = wild_sets(tl)
        out: dict = {}  # type: ignore[type-arg]
        if m == 0:
            for b, g in (pt if tl else p0) if p else ():
                out.setdefault(b, g)
            if not p and not tl:
                out[0] = 0
        else:
            for x, wit in wild_only(m - 1, p, tl):
                for b, g in m0:
                    out.setdefault(x | b, _cat(wit, g))
            if tl:
                for x, wit in wild_only(m - 1, p, 0):
                    for b, g in mt:
                        out.setdefault(x | b, _cat(wit, g))
        res = _DP[key] = _settled(_entries(_pruned(out, monotone, na)))
        return res

    def agg(g: tuple) -> int:  # type: ignore[type-arg]
        """A group's contribution to an aggregate (as a meld or as the pair)."""
        return group_share(gmask(g), g[0] == PAIR, nb, full, na)

    def variants_of(groups: Any) -> tuple:  # type: ignore[type-arg]
        """(the group as a witness, aggregate) for the groups, one per distinct aggregate, only the maximal ones
        when monotone."""
        d: dict = {}  # type: ignore[type-arg]
        for g in groups:
            d.setdefault(agg(g), _wid(g))
        return tuple([(w, b) for b, w in _pruned(d, monotone, na).items()])

    def options(k: int, c: int, has1: bool, has2: bool, cap: int, tl: int, lo: int) -> tuple:  # type: ignore[type-arg]
        """_group_options for the lowest natural kind k (c of it, whether k+1 and
        k+2 are held, up to `cap` huns in a group), each group with the packed
        counts it removes and its variants (the group, t placed when tl) with
        their aggregates, grouped by whether t is still to place after them
        (((tl after, (((group,), aggregate), ...)), ...): one sub-table each).
        Options that take the same natural tiles and huns lead to the same
        rest: of those (and the same t still to place) only the maximal
        aggregates can matter when the rules are monotone, so the others are
        dropped here, once. The groups without t are worked out once per
        hand context, the variants with t once per winning tile."""
        c, cap = min(c, 3), min(cap, 2)
        fkey = dp_key_free | k << 9 | c << 7 | has1 << 6 | has2 << 5 | cap << 3
        base = _OPTS.get(fkey)
        if base is None:
            same: dict = {}  # type: ignore[type-arg]
            for item in _raw_options(k, c, has1, has2, cap, chow, lo):
                same.setdefault(item[1:5], []).append(item)
            entries = tuple([(dkey, variants_of(it[0] for it in items), tuple(items))
                             for dkey, items in same.items()])
            base = _OPTS[fkey] = _settled((tuple([dkey + (((0, v),),) for dkey, v, _ in entries]), entries))
        if not tl:
            return base[0]
        key = dp_key_t | k << 9 | c << 7 | has1 << 6 | has2 << 5 | cap << 3 | 1
        got = _OPTS.get(key)
        if got is None:
            out = []
            for dkey, variants, items in base[1]:
                with_t = variants_of(gt for it in items
                                     for gt in (it[5] if t_hun else next((v for f, v in it[6] if f == t), ())))
                out.append(dkey + (((1, variants), (0, with_t)) if with_t else ((1, variants),),))
            got = _OPTS[key] = _settled(tuple(out))
        return got

    def dp(lo: int, v: int, n: int, tl: int, want: int, shared: int) -> tuple:  # type: ignore[type-arg]
        """Every way to make one part's natural tiles into groups, each holding
        a natural tile, with huns beside them, t placed among them if tl:
        ((2 * huns used + pairs, its maximal aggregates), ...), for the budgets whose
        bits `want` sets (n counts the tiles; the melds follow: 3 melds + 2
        pairs = tiles + huns). The part's counts are packed in an int v, 3 bits
        per kind from kind lo up: removing a group is one subtraction, finding
        the lowest kind one bit trick. With few huns each rest is asked for
        exactly the budgets left (no work on budgets nobody needs); with many
        (`shared`: the cap), every rest is asked for every budget up to the cap,
        so one table serves all the budgets and the recursion is not repeated."""
        if not v:  # no tile left: no group, no hun, no pair; t must be placed already
            return () if tl or not want & 1 else _NOTHING
        key = (tab_t if tl else tab_free) | v << vshift | want << 5 | lo  # one int: fast to hash
        got = _TAB.get(key)
        if got is not None:
            return got
        kl = ((v & -v).bit_length() - 1) // 3
        sh = 3 * kl
        out: dict = {}  # type: ignore[type-arg]
        get = _TAB.get
        for delta, nn, huns, is_pair, by_tl in options(lo + kl, v >> sh & 7, v >> sh + 3 & 7 > 0, v >> sh + 6 & 7 > 0,
                                                       (want.bit_length() - 1) >> 1, tl, lo):
            rest = v - delta
            n2 = n - nn
            step = 2 * huns + is_pair
            # a group holds a natural tile and at most 2 huns: the rest takes at most 2 * n2
            if shared:
                want2 = _UPTO[min(shared, 2 * n2)] & _FEASIBLE[n2 % 3]
            else:  # the budgets left for the rest; after a pair, none with a pair
                want2 = want >> step & (_NO_PAIR if is_pair else -1) & _UPTO[2 * n2] & _FEASIBLE[n2 % 3]
                if not want2:
                    continue
            for tl2, variants in by_tl:
                if rest:
                    sub_map = get((tab_t if tl2 else tab_free) | rest << vshift | want2 << 5 | lo)  # dp's key
                    if sub_map is None:
                        sub_map = dp(lo, rest, n2, tl2, want2, shared)
                else:
                    sub_map = () if tl2 or not want2 & 1 else _NOTHING
                for bk, sub in sub_map:
                    if bk & is_pair:  # a second pair
                        continue
                    bk += step
                    if not want >> bk & 1:  # a budget not asked for
                        continue
                    bucket = out.get(bk)
                    if bucket is None:
                        bucket = out[bk] = {}
                    for gv, b in variants:
                        for x, wit in sub:
                            x |= b
                            if x not in bucket:  # (setdefault would build the witness every time)
                                bucket[x] = gv | wit << 16  # the group, then the rest's reading
        res = _settled(tuple([(bk, _entries(_pruned(bucket, monotone, na))) for bk, bucket in out.items()]))
        _TAB[key] = res
        return res

    def part(i: int, vec: tuple[int, ...], tl: int, cap: int) -> tuple:  # type: ignore[type-arg]
        """dp for part i's tiles `vec` and every hun budget up to cap (memoised by them)."""
        key = (dp_key_t if tl else dp_key_free, i, vec, tl, cap)
        got = _DP.get(key)
        if got is None:
            n = sum(vec)
            got = _DP[_settled(key)] = dp(_PARTS[i][0], sum(c << 3 * x for x, c in enumerate(vec)), n, tl,
                                _UPTO[cap] & _FEASIBLE[n % 3], cap if cap >= _SHARED_CAP else 0)
        return got

    def wild_chunks(m: int, p: int, tl: int) -> tuple:  # type: ignore[type-arg]
        """wild_only(m, p, tl) as bounded chunks for _best_bounded."""
        key = (dp_key_t if tl else dp_key_free, "chunks", m, p, tl)
        got = _DP.get(key)
        if got is None:
            got = _DP[key] = _settled(_chunks(wild_only(m, p, tl), na))
        return got

    def release() -> None:
        """Empty the builders' names: they refer to one another (dp to itself), a cycle of a few hundred
        objects a call that only a collection would free; emptied, they go as the caller lets go of them."""
        nonlocal gmask, wild_sets, wild_only, agg, variants_of, options, dp, part, wild_chunks
        gmask = wild_sets = wild_only = agg = variants_of = options = dp = part = wild_chunks = _released  # type: ignore[assignment]

    return gmask, part, wild_only, wild_chunks, release


def _released(*args: Any) -> Any:
    """What a table builder is once its call is over (see release in _tables)."""
    raise AssertionError("a table builder used after its hand was scored")


def best_by_masks(rules: Any, h: Hand) -> tuple:  # type: ignore[type-arg]
    """The same answer as best_of, found over aggregate masks: each group is
    reduced to its atom bits, and a state keeps one witness per distinct
    (OR of melds, AND of melds, pair) — decompositions the rules cannot tell
    apart are explored once. The search runs per part of the tile set (each
    suit, the honors, and the groups made only of huns), each part's table
    keyed by its own tiles and hun budget: a new hand reuses the tables of
    every part it shares with hands seen before, and the parts are joined by
    how many huns, melds and pairs each takes."""
    ctx = rules.ctx(h)
    ctx = _CTXS.setdefault(ctx, ctx)  # one object per context: table keys holding it are not tracked by the collector
    if not h.huns and not h.declared:  # h.counts (bytes) are the concealed tiles, none a hun
        return _best_hun_free(rules, h, ctx, h.counts)
    counts, wild = split_huns(h.concealed, h.hun_set)
    if not wild:  # huns only among the declared melds
        return _best_hun_free(rules, h, ctx, bytes(counts))
    return _uncollected(_best_with_huns, rules, h, ctx, counts, wild)  # type: ignore[no-any-return]


def _uncollected(build: Any, *args: Any) -> Any:
    """build(*args) with no collection while it runs (the collector switched off only if it
    was on, and on again after): a collection after it finds each new table entry's tuples
    in the order they were made and stops tracking them all at once (see _settled), and the
    search's own garbage of the hand before (its closures hold one another) still young."""
    if not _gc_isenabled():
        return build(*args)
    _gc_disable()
    try:
        return build(*args)
    finally:
        _gc_enable()


def _best_with_huns(rules: Any, h: Hand, ctx: tuple, counts: tuple, wild: int) -> tuple:  # type: ignore[type-arg]
    """best_by_masks for a hand with `wild` huns among its concealed tiles."""
    gmask, part, wild_only, wild_chunks, release = _tables(rules, h, ctx)
    try:
        return _best_with_tables(rules, h, counts, wild, gmask, part, wild_only, wild_chunks)
    finally:
        release()


def _best_with_tables(rules: Any, h: Hand, counts: tuple, wild: int, gmask: Any, part: Any,  # type: ignore[type-arg]
                      wild_only: Any, wild_chunks: Any) -> tuple:  # type: ignore[type-arg]
    """_best_with_huns with the hand's table builders made."""
    monotone = rules.monotone
    t, t_hun = h.t, h.t_hun
    n_melds = 4 - len(h.declared)
    na = _layout(rules)[2]
    t_part = -1 if t_hun else _PART_OF[t]
    # (huns, melds, pairs, t placed) taken by the parts so far → {aggregate: witness}
    states: dict = {(0, 0, 0, 0): {_declared_masks(rules, h, gmask): 0}}  # type: ignore[type-arg]
    for i, (lo, hi) in enumerate(_PARTS):
        vec = counts[lo:hi]
        n = sum(vec)
        if not n:
            continue
        new: dict = {}  # type: ignore[type-arg]
        cap = min(wild, 2 * n)  # a group holds a natural tile and at most 2 huns
        for tl in ((1,) if i == t_part else ((0, 1) if t_hun else (0,))):
            table = part(i, vec, tl, cap)
            for (ju, mu, pu, tu), aggs in states.items():
                if tl and tu:
                    continue
                for bk, sub in table:
                    j, p = bk >> 1, bk & 1
                    m = (n + j - 2 * p) // 3
                    if ju + j > wild or pu + p > 1 or mu + m > n_melds:
                        continue
                    _product(aggs, sub, new.setdefault((ju + j, mu + m, pu + p, tu | tl), {}))
        states = {k2: _pruned(v, monotone, na) for k2, v in new.items()}
    joins = []  # (the natural parts' aggregates, the hun-only readings that complete them)
    for (ju, mu, pu, tu), aggs in states.items():
        mw, pw, tlw = n_melds - mu, 1 - pu, 1 - tu
        if wild - ju != 3 * mw + 2 * pw or (tlw and not t_hun):
            continue
        sub = wild_only(mw, pw, tlw)
        if sub:
            joins.append((aggs, sub, (mw, pw, tlw)))
    if monotone:
        return _best_bounded(rules, h, [(aggs, wild_chunks(*mpt)) for aggs, _, mpt in joins], na)
    final: dict = {}  # type: ignore[type-arg]
    for aggs, sub, _ in joins:
        _product(aggs, sub, final)
    return _best_claim_of(rules, h, final.items())


def _best_bounded(rules: Any, h: Hand, joins: list, na: int) -> tuple:  # type: ignore[type-arg]
    """The best claim over every aggregate x | y (x of the natural parts, y a
    hun-only reading), without scoring them all: when the rules are monotone
    in the bits, x joined with every bit a set of y could add bounds what x
    can reach with them. The x are tried from the highest bound down and stop
    once the bound cannot beat the best found; within x, each chunk of the
    y (_chunks) is skipped the same way, and a y reaching x's bound ends x's turn."""
    d = _claims_for(rules, rules.hkey(h))
    cl = rules.claim_list
    cands = []
    for aggs, chunks in joins:
        top = chunks[0][0]
        for x, w in aggs.items():
            xt = x | top
            cands.append((cl[d.get(xt) or _claim_new(rules, h, d, xt)], x, w, chunks))
    cands.sort(key=lambda c: c[0], reverse=True)
    best: Any = None
    best_wit = 0
    for bound, x, w, chunks in cands:
        if best is not None and bound <= best:
            break
        for ctop, items in chunks[1:] if len(chunks) > 2 else chunks[:1]:
            if best is not None and len(chunks) > 2:
                xt = x | ctop
                if cl[d.get(xt) or _claim_new(rules, h, d, xt)] <= best:
                    continue
            for y, w2 in items:
                xy = x | y
                c = cl[d.get(xy) or _claim_new(rules, h, d, xy)]
                if best is None or c > best:
                    best, best_wit = c, _cat(w, w2)
                if c == bound:
                    break
            else:
                continue
            break
    if best is None:
        return None, None
    return best, best_wit


def _chunks(items: tuple, na: int, size: int = 8) -> tuple:  # type: ignore[type-arg]
    """(bound, items) for all the items, then for each run of `size` of them
    in order of their bits: the bound of a set is every bit any item has, and
    the fewest complemented-AND bits any item has (what joining one can add at most)."""
    def bound(part: Any) -> int:
        top, top_na = 0, -1
        for y, _ in part:
            top |= y
            top_na &= y
        return (top & ~na) | (top_na & na)
    ordered = tuple(sorted(items))
    runs = [ordered[i:i + size] for i in range(0, len(ordered), size)]
    return ((bound(items), items),) + (tuple([(bound(r), r) for r in runs]) if len(runs) > 1 else ())


def clear_tables(rules: Any) -> None:
    """Forget every table and cache the search keeps (the module's and those
    prepare() put on rules): for memory, and for tests that a table's key
    names everything it depends on."""
    for cache in (_DEC, _SHAPE, _PART_SHAPE, _GMASK, _DP, _TAB, _RAW, _OPTS, _HF, _HF_ENT):
        restart(cache)
    _forget_claims(rules)
    for name in ("resolve_cache", "display_cache", "claim_objs", "subset_info", "group_shown", "group_rows",
                 "answer_fields", "answer_rest", "witness_text", "witness_rows",
                 "shared_numbers", "shared_lists"):
        restart(getattr(rules, name))
    rules.wild_static = None


_HF: dict = lasting()  # type: ignore[type-arg]  # ctx → for each t, the tags of the four parts' tables (bytes)
_HF_ENT: dict = lasting()  # type: ignore[type-arg]  # a part's tiles + its table's tag → (pairs, aggregates, the one)


def _best_hun_free(rules: Any, h: Hand, ctx: tuple, counts: bytes) -> tuple:  # type: ignore[type-arg]
    """best_by_masks for a hand without huns: one table per part, no budget to
    share out. The hand's counts come as bytes, whose slices hash fast; each
    part's entry is (pairs, aggregates, the aggregate when there is only one),
    aggregates None when the part's tiles make no shape (the same tables as
    _DP, indexed for one lookup). With one pair among the concealed tiles
    their melds are the 4 - declared needed."""
    t = h.t
    rows: Any = _HF.get(ctx)  # one rule set per module: ctx is the whole key
    if rows is None:
        if len(_HF) > 64:
            restart(_HF)
            restart(_HF_ENT)
        # per t: the four parts' tables, t's own part's table by t, the others' shared by every t;
        # a table is a tag (part, t + 1 or 0, context number) after its entries' tiles in _HF_ENT
        n = len(_HF)
        rows = _HF[ctx] = tuple([tuple([bytes((i, k + 1 if i == _PART_OF[k] else 0, n)) for i in range(4)])
                                 for k in range(34)])
    b0, b1, b2, b3 = row = rows[t]
    get = _HF_ENT.get
    ents = e0, e1, e2, e3 = (get(counts[:9] + b0) or _hun_free_entry(rules, h, ctx, row, counts, 0),
                             get(counts[9:18] + b1) or _hun_free_entry(rules, h, ctx, row, counts, 1),
                             get(counts[18:27] + b2) or _hun_free_entry(rules, h, ctx, row, counts, 2),
                             get(counts[27:] + b3) or _hun_free_entry(rules, h, ctx, row, counts, 3))
    o0, o1, o2, o3 = e0[2], e1[2], e2[2], e3[2]
    if o0 is not None and o1 is not None and o2 is not None and o3 is not None and not h.declared:
        # the common hand: one aggregate per part, the witnesses joined in part order
        if e0[0] + e1[0] + e2[0] + e3[0] != 1:
            return None, None
        s1 = o0[2]
        s2 = s1 + o1[2]
        agg = o0[0] | o1[0] | o2[0] | o3[0]
        wit = o0[1] | o1[1] << s1 | o2[1] << s2 | o3[1] << (s2 + o2[2])
        # its claim's number when the claims for h's hand-level values hold it (_best_claim_of's lookup
        # written out: two calls less on the common path; a new claim takes that path)
        d = rules.claim_cache.get(rules.hkey(h))
        num = d.get(agg) if d is not None else None
        if num:
            return rules.claim_list[num], wit
        return _best_claim_of(rules, h, ((agg, wit),))
    x = pairs = 0
    wit = 0
    multi: Any = None  # the parts with several aggregates, joined
    for p, sub, one in ents:
        if one is not None:  # one aggregate (or an empty part): fold it in
            x |= one[0]
            if one[1]:  # (an empty part's witness is 0)
                wit |= one[1] << ((wit.bit_length() + 15) & ~15)
            pairs += p
        elif sub is None:
            return None, None
        else:
            pairs += p
            multi = sub if multi is None else tuple((x1 | x2, _cat(w1, w2)) for x1, w1 in multi for x2, w2 in sub)
    if pairs != 1:
        return None, None
    if h.declared:
        tables = _tables(rules, h, ctx)
        try:
            x |= _declared_masks(rules, h, tables[0])
        finally:
            tables[4]()
    return _best_claim_of(rules, h, ((x, wit),) if multi is None else tuple((x | x2, _cat(wit, w2)) for x2, w2 in multi))


def _hun_free_entry(rules: Any, h: Hand, ctx: tuple, row: tuple, counts: bytes, i: int) -> tuple:  # type: ignore[type-arg]
    """Part i's entry in the hun-free index, built from its _DP table: (pairs, the
    (aggregate, witness) pairs or None for no shape, and when there is only one,
    (aggregate, witness, the witness's width in bits))."""
    if len(_HF_ENT) > _CACHE_LIMIT // 2:
        restart(_HF_ENT)
    lo, hi = _PARTS[i]
    vec = counts[lo:hi]
    n = sum(vec)
    r = n % 3
    if not n:  # an empty part: an aggregate that changes nothing
        ent: tuple = (0, (), (0, 0, 0))  # type: ignore[type-arg]
    elif r == 1:
        ent = (0, None, None)
    else:
        ent = _uncollected(_hun_free_part, rules, h, ctx, i, vec, r)
    _HF_ENT[vec + row[i]] = ent
    return ent


def _hun_free_part(rules: Any, h: Hand, ctx: tuple, i: int, vec: bytes, r: int) -> tuple:  # type: ignore[type-arg]
    """_hun_free_entry's entry for a part whose tiles may make a shape, made
    with the collector paused and settled (the entry's tuples not tracked after
    the next young collection)."""
    tables = _tables(rules, h, ctx)
    try:
        table = tables[1](i, tuple(vec), 1 if i == _PART_OF[h.t] else 0, 0)
    finally:
        tables[4]()
    sub = next((sub for bk, sub in table if bk == r // 2), None) or None
    one = (*sub[0], (sub[0][1].bit_length() + 15) & ~15) if sub and len(sub) == 1 else None  # + its witness's bits
    return _settled((r // 2, sub, one))  # type: ignore[no-any-return]


def _best_claim_of(rules: Any, h: Hand, final: Any) -> tuple:  # type: ignore[type-arg]
    """The best claim among the final (aggregate, witness) pairs, and its decomposition."""
    d = _claims_for(rules, rules.hkey(h))
    cl = rules.claim_list
    if final.__class__ is tuple and len(final) == 1:  # one reading: no comparing
        agg, wit = final[0]
        return cl[d.get(agg) or _claim_new(rules, h, d, agg)], wit
    best = None
    best_wit = 0
    for agg, wit in final:
        key = cl[d.get(agg) or _claim_new(rules, h, d, agg)]
        if best is None or key > best:
            best = key
            best_wit = wit
    if best is None:
        return None, None
    return best, best_wit


def _claims_for(rules: Any, hk: tuple) -> dict:  # type: ignore[type-arg]
    """The claims cached for one set of hand-level values: aggregate → the
    claim's number in rules.claim_list. Numbers, not the claims: a dict of
    ints is never tracked by the garbage collector, and these dicts are made
    while scoring, after the freeze that keeps lasting tables out of its way
    (a claim tuple made moments before is still tracked, and would make the
    whole dict tracked, walked by every full collection). Numbers are kept
    for the whole search that asked: the lists start over only here."""
    if len(rules.claim_list) > _CACHE_LIMIT:
        _forget_claims(rules)
    d = rules.claim_cache.get(hk)
    if d is None:
        if len(rules.claim_cache) > 4096:
            restart(rules.claim_cache)
        d = rules.claim_cache[hk] = {}
    return d


def _forget_claims(rules: Any) -> None:
    """Empty the claim caches and the claim numbers together (a number means nothing without its list)."""
    restart(rules.claim_cache)
    restart(rules.claim_ids)
    del rules.claim_list[1:]


def aggregate_claim(rules: Any, h: Hand, agg: int) -> tuple:  # type: ignore[type-arg]
    """(the claim, the patterns held) of every reading of h with aggregate agg."""
    n, full, _ = _layout(rules)
    om, am, pm = _unpack(agg, n, full)
    held = rules.holds_agg(h, om, am, om | pm, am & pm, pm)
    lifted = rules.unless_agg(h, om, am, om | pm, am & pm, pm) if rules.conflicts else 0
    return resolve(rules, held, lifted), held


def _claim_new(rules: Any, h: Hand, d: dict, agg: int) -> int:  # type: ignore[type-arg]
    """The number of the claim of one aggregate not yet in d (the claims for h's hand-level values)."""
    if len(d) > _CACHE_LIMIT:
        d.clear()
    key = aggregate_claim(rules, h, agg)[0]
    i = rules.claim_ids.get(key)
    if i is None:  # numbers from 1: a found number is never falsy
        i = rules.claim_ids[key] = len(rules.claim_list)
        rules.claim_list.append(key)
    d[agg] = i
    return i
