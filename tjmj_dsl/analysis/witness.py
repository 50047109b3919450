"""Witness hands: for a set of patterns, a hand whose best reading claims
exactly that set, or the reason no hand can.

    an = analyse(rs)                   # one compiled RuleSet (profile and options applied); cached
    an.verdict({"tiliu", "zhuo5"})     # Witness | Impossible | Undecided for exactly this claimed set
    an.pattern("zhuo5")                # the same for "some best reading claims zhuo5"
    an.claimable()                     # {frozenset of ids: Witness}: every set some best reading claims
    an.table()                         # a verdict for every subset of the enabled patterns
    an.exhaustive                      # True: every Impossible is a proof, no verdict is Undecided

A Witness carries the request (the JSONL mapping), the hand in the CLI's
notation, the claimed patterns, fan, total and formula, all from the compiled
scorer. An Impossible carries a `reason` code and a sentence:
  disabled        a pattern of the set is not enabled under these options
  requires        a pattern requires one the set leaves out
  conflict        two patterns of the set are never claimed together (a conflict
                  without `unless`, or one whose `unless` never holds when both do)
  never_holds     a pattern (or a smallest sub-combination: `never_together`)
  never_together  holds on no decomposition of any hand
  refused         they hold together only in hands a request rule refuses
  always_with     whenever they hold, another pattern is claimed too
  outranked       on a decomposition where they hold, a different claim scores more
  dominated       a decomposition claims them, but the same tiles always read better
                  (`witness` is such a hand, `better` what its best reading claims)

How, and why an Impossible is a proof. A reading's claim depends on the hand
only through its groups' atom masks (passes/atoms.py, the reduction the mask
search uses), the hand-level values its tests read, and whether the request
rules accept the hand. The search takes every indicator and every group the
tile set allows (pair, pung, chow, declared pung/kong/concealed kong; each slot
a natural tile or a hun; the winning tile in any slot) and reduces each group
to its *class*: its aggregate bits, whether it holds the winning tile as a
natural or a hun tile, how many hun tiles it holds (counted up to one more
than the largest number a rule compares `huns` with) and, for a declared meld,
its type and whether it is made of huns. A dynamic programme over 4 meld
classes and a pair class (exactly one group holding the winning tile) lists
every reachable (aggregate, winning-tile role, huns, declared melds), with the
indicators that reach it; each is completed with every `kong_draw` and every
set of request flags and its claim computed exactly as the scorer computes
claims. A set that no reading of this enumeration claims is claimed by no
reading of any hand, and the reason is read off the same enumeration.

Each set that some reading claims is then made concrete: tiles for each class,
physical hun tiles for the hun slots, scored by the compiled scorer; the best
reading of that hand decides. Of the hands found for a set the witness is one
with the fewest hun tiles, then each hun tile is put back as the tile it stands
for while the set stays the best claim: fewer huns, fewer readings to check. A set that readings claim but no best reading
does is `dominated` after every concrete hand tried (up to `tries` per set),
each with a better reading; the witness shows one.

Outside the abstraction (rules the mask search cannot follow, or hand-level
tests reading tile counts or the winning tile's kind) the same concrete hands
are built from random readings; a set not found is `Undecided`, never
`Impossible`.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from ..backends.codegen import generate_scorer, load_generated
from ..diagnostics import Diagnostic, RuleError
from ..engine import runtime
from ..engine.hand import CHOW, KONG, PAIR, PUNG, Hand, copy_hand, make_group, new_hand
from ..engine.contract import KONG_CHAIN_MAX, MAX_HELD
from ..engine.request import KONG_DRAWS, RequestError, parse_request
from ..engine.result import claim_display, wins
from ..engine.search import TooManyHeld, _layout, group_share, resolve
from ..expr import ast as A
from ..ir import RuleSet, dump
from ..passes.atoms import NotAtomic, plan_atoms
from ..notation import format_hand
from ..tiles import SUIT_OF, format_tiles, name, parse_tiles

NUM_KINDS = 34
# hands the search scores at most (the built-in rules take about 800, with every option on about 7,000): past
# it the search stops, and what it has not found is Undecided, never Impossible (a rule file with many
# patterns cannot make `check` run without bound)
MAX_SCORED = 30_000


class _Spent(BaseException):
    """The search scored MAX_SCORED hands (not an Exception: no `except Exception` on the way may swallow it)."""


def too_many_held(rs: RuleSet, held: int) -> Diagnostic:
    """The error of a rule set on which the patterns of `held`, more than MAX_HELD, hold on one reading:
    said at the first of them past MAX_HELD."""
    pats = [p for i, p in enumerate(rs.patterns) if held >> i & 1]
    shown = ", ".join(p.id for p in pats[:MAX_HELD + 1]) + (", …" if len(pats) > MAX_HELD + 1 else "")
    return Diagnostic("error", "too-many-held", f"{len(pats)} patterns can hold on one reading of a hand ({shown}); "
                      f"the scorer weighs at most {MAX_HELD} together (it tries every subset of them) and refuses "
                      "such a hand (too_many_patterns)", pats[MAX_HELD].when.pos,
                      f"narrow the patterns' `when` (or merge patterns that hold together) so that at most "
                      f"{MAX_HELD} hold on one reading: conflicts and requires do not lower it, every pattern "
                      "that holds is weighed")


@dataclass(frozen=True)
class Witness:
    """A hand whose best reading claims `patterns` (ids in rule-file order)."""

    patterns: tuple[str, ...]
    request: dict[str, Any] = field(compare=False)
    hand: str = field(compare=False)
    fan: int = 0
    total: int = 0
    win: bool = False
    formula: str = ""

    @property
    def ok(self) -> bool:
        return True


@dataclass(frozen=True)
class Impossible:
    """No hand's best reading claims `patterns`; `reason` is a code, `message` says why."""

    patterns: tuple[str, ...]
    reason: str
    message: str
    witness: Witness | None = None  # dominated: a hand with a reading claiming the set
    better: Witness | None = None  # dominated: what that hand's best reading claims
    # what the reason is about, so that sets with one reason can be shown together: the
    # patterns off (disabled), required, in conflict, never holding (together), claimed too
    # (always_with), claimed instead (outranked, dominated); the request rules (refused)
    about: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return False


@dataclass(frozen=True)
class Undecided:
    """Outside the exhaustive abstraction, and not found by the random search."""

    patterns: tuple[str, ...]
    message: str

    @property
    def ok(self) -> bool:
        return False


Verdict = Witness | Impossible | Undecided


@dataclass(frozen=True)
class _Class:
    role: int  # 0 meld, 1 pair
    x: int  # its part of an aggregate
    tk: int  # 0 no winning tile, 1 the winning tile as a natural tile, 2 as a hun tile
    decl: tuple[str, bool] | None  # a declared meld: (type, made of huns)


@dataclass(frozen=True)
class _Reading:
    """One abstract reading: a final state of the dynamic programme, and a hand-level completion."""

    ctx: Any
    state: tuple[Any, ...]  # (bits that decide a test, collapsible tests that hold, t role, huns, declared)
    inds: int  # bitmask of the indicators that reach it
    kong_draw: str | None
    flags: frozenset[str]
    kong_chain: int = 1  # with kong_draw: the kongs in a row (the request's kong_chain)


class Search:
    """The search over one rule set's claims (shared by rule sets that claim alike: the
    profiles of a file usually differ in what their score tables show, not in claims)."""

    def __init__(self, rs: RuleSet, rules: Any | None = None, tries: int = 60, seed: int = 0) -> None:
        self.rs = rs
        self.R = rules if rules is not None else load_generated(generate_scorer(rs)).RULES
        self.ids = tuple(p.id for p in rs.patterns)
        self.index = {pid: i for i, pid in enumerate(self.ids)}
        self.tries = tries
        self.rng = random.Random(seed)
        self.structured, self.why_not_exhaustive = self._coverage()
        self.exhaustive = not self.why_not_exhaustive
        self._best: dict[int, Witness] = {}  # claimed mask of a best reading → its witness
        self._best_huns: dict[int, int] = {}  # claimed mask → hun tiles in its witness (fewest found)
        self._reading_claims: dict[int, list[_Reading]] = {}  # claimed mask of some reading → readings
        self._held: dict[tuple[int, int, bool], tuple[int, _Reading, tuple[str, ...]]] = {}
        # (held, lifted, valid) → (claim mask, a reading, request errors)
        self._tried: dict[int, tuple[Witness, Witness]] = {}  # reading mask → (a hand with it, its best)
        self._classes: dict[Any, dict[_Class, dict[int, dict[int, list[tuple[Any, ...]]]]]] = {}
        self._edges: dict[Any, Any] = {}
        # the hand-level completions of the readings, by (t role, huns, declared, kong_draw, flags):
        # a hand with those values (for the semantic checks), and the request rules refusing it
        self.valid_hands: dict[tuple[Any, ...], tuple[Hand, tuple[str, ...]]] = {}
        self.refused_hands: dict[tuple[Any, ...], tuple[Hand, tuple[str, ...]]] = {}
        self._done = False
        self.scored = 0  # hands scored (MAX_SCORED at most)

    # ---- what the abstraction covers -------------------------------------------------

    def _coverage(self) -> tuple[bool, str]:
        """(whether the dynamic programme can run, why it is not exhaustive: "" when it is).
        It runs when every group mask depends on the indicator alone; it is exhaustive
        when, besides, the tests read no tile counts and not the winning tile's kind."""
        if not hasattr(self.R, "gmask"):
            return False, "the rules read decompositions in a way the mask search cannot follow"
        plan = plan_atoms(self.rs)[0]
        extra = set(plan.context) - {"suits", "hun_suit", "hun_kinds", "indicator"}
        if extra or plan.uses_count:
            return False, "group tests read " + ", ".join(sorted(extra) + (["count()"] if plan.uses_count else []))
        if getattr(plan, "count_in_tests", False):
            return True, "a test counts the hand's tiles (count() of a value it binds)"
        for term in plan.hand_terms:
            if re.search(r"h\.counts|h\.concealed|\bh\.t\b(?!_)", term):
                return True, f"a test reads the hand's tiles ({term})"
        return True, ""

    def _reads_kong_chain(self) -> bool:
        """Whether a pattern, conflict, definition, request rule, score table or free_when reads kong_chain."""
        exprs = [p.when for p in self.rs.patterns] + [c.unless for p in self.rs.patterns for c in p.conflicts]
        exprs += [d.body for d in self.rs.definitions] + [r.error_when for r in self.rs.request_rules]
        exprs += [self.rs.total, self.rs.free_when]
        return any(isinstance(n, A.Name) and n.id == "kong_chain" for e in exprs if e is not None for n in A.walk(e.ast))

    def _hun_cap(self) -> int:
        """Hun counts from this value up are alike for every rule: one more than the
        largest number `huns` is compared with (every count when it is used otherwise)."""
        exprs = [p.when for p in self.rs.patterns] + [c.unless for p in self.rs.patterns for c in p.conflicts]
        exprs += [d.body for d in self.rs.definitions] + [r.error_when for r in self.rs.request_rules]
        exprs += [self.rs.total, self.rs.free_when]
        cap = 1
        for e in exprs:
            if e is None:
                continue
            for n in A.walk(e.ast):
                if isinstance(n, A.Compare) and n.op not in ("in", "notin"):
                    sides = (n.left, n.right)
                    if any(isinstance(s, A.Name) and s.id == "huns" for s in sides):
                        other = [s for s in sides if not (isinstance(s, A.Name) and s.id == "huns")]
                        if other and isinstance(other[0], A.Num):
                            cap = max(cap, other[0].value + 2)
                        else:
                            return 19
            names = [n for n in A.walk(e.ast) if isinstance(n, A.Name) and n.id == "huns"]
            compared = sum(1 for n in A.walk(e.ast) if isinstance(n, A.Compare) and n.op not in ("in", "notin")
                           and any(isinstance(s, A.Name) and s.id == "huns" for s in (n.left, n.right)))
            if len(names) > compared:
                return 19
        return cap

    # ---- the group universe and its classes ------------------------------------------

    def _universe(self, ind: int | None) -> list[tuple[tuple[Any, ...], int, tuple[str, bool] | None]]:
        """Every group for indicator `ind` (every indicator's when None): (group, winning-tile
        role, declared (type, of huns) or None)."""
        hun_set = self.R.hun_table[ind][1] if ind is not None else frozenset()
        out: list[tuple[tuple[Any, ...], int, tuple[str, bool] | None]] = []
        shapes: list[tuple[int, tuple[int, ...]]] = []
        for k in range(NUM_KINDS):
            shapes.append((PAIR, (k, k)))
            shapes.append((PUNG, (k, k, k)))
            if self.R.chow and k < 27 and k % 9 <= 6:
                shapes.append((CHOW, (k, k + 1, k + 2)))
        for kind, faces in shapes:
            for hm in itertools.product((False, True), repeat=len(faces)):
                if any(f in hun_set and not h for f, h in zip(faces, hm)):
                    continue  # a tile of a hun kind is a hun tile
                g = make_group(kind, faces, hm)
                out.append((g, 0, None))
                seen = set()
                for s, (f, h) in enumerate(zip(faces, hm)):
                    if (f, h) not in seen:
                        seen.add((f, h))
                        out.append((g[:5] + (s,) + g[6:], 2 if h else 1, None))
        for k in range(NUM_KINDS):
            for hun in ((k in hun_set,) if ind is not None else (False, True)):
                for typ in ("pung", "kong", "concealed_kong"):
                    n = 3 if typ == "pung" else 4
                    out.append((make_group(PUNG if n == 3 else KONG, (k,) * n, (hun,) * n, True,
                                           typ == "concealed_kong"), 0, (typ, hun)))
        return out

    def _hand0(self, ind: int) -> Hand:
        return new_hand(self.R, (), (), 0, ind, None, frozenset())

    def _build_classes(self) -> None:
        """Classes per table context: {ctx: {class: {huns: {indicator: [groups]}}}}. Every group
        of the tile set is built once; for an indicator it exists when its natural tiles are
        of no hun kind (a declared meld: when it is of huns exactly if its tile is a hun kind)."""
        n, full, na = _layout(self.R)
        cap = self.cap
        everything = self._universe(None)
        hands = {ind: self._hand0(ind) for ind in range(NUM_KINDS)}
        ctx_of = {ind: self.R.ctx(h) for ind, h in hands.items()}
        static = {g: self.R.gmask(hands[0], g) for g, _, _ in everything}
        for ctx in dict.fromkeys(ctx_of.values()):
            inds = [i for i in range(NUM_KINDS) if ctx_of[i] == ctx]
            h = hands[inds[0]]
            table = self._classes.setdefault(ctx, {})
            hun_sets = [(i, self.R.hun_table[i][1]) for i in inds]
            for g, tk, decl in everything:
                natural = {f for f, hf in zip(g[1], g[2]) if not hf}
                if decl is not None:
                    where = [i for i, hs in hun_sets if (g[1][0] in hs) == decl[1]]
                else:
                    where = [i for i, hs in hun_sets if not natural & hs]
                if not where:
                    continue
                m = static[g]
                if self.R.gmask_ctx is not None:
                    m |= self.R.gmask_ctx(h, g)
                x = group_share(m, g[0] == PAIR and not g[3], n, full, na)
                by_h = table.setdefault(_Class(1 if g[0] == PAIR else 0, x, tk, decl), {}).setdefault(
                    min(g[6], cap - 1), {})
                for i in where:
                    by_h.setdefault(i, []).append(g)

    # ---- the enumeration ------------------------------------------------------------------

    def _tests(self) -> None:
        """Each test (the patterns', then the conflicts' unless) as the aggregate bits it reads.
        A test that reads only OR-aggregate and pair bits (no hand value), when the rules are
        monotone, is *collapsible*: its minimal true bit sets (found by trying every subset of
        the bits it reads) tell, at each step of the programme, whether it holds already, and
        which bits can still matter to it."""
        plan, pats, unl, _, _ = plan_atoms(self.rs)
        n, _, _ = _layout(self.R)
        self.npat = len(pats)
        codes = pats + unl
        everything = (1 << 3 * n) - 1
        self.coll: dict[int, tuple[int, ...]] = {}
        self.keep_always = 0
        h0 = self._hand0(0)
        for t, code in enumerate(codes):
            refs = re.findall(r"\b(OR_m|AND_m|OR_g|AND_g|PAIR) >> (\(\d+\)|\d+) & 1", code)
            if len(refs) != len(re.findall(r"\b(?:OR_m|AND_m|OR_g|AND_g|PAIR)\b", code)):
                self.keep_always = everything  # a bit chosen at run time: keep every bit
                continue
            support = 0
            for fld, b in refs:
                b_i = int(b.strip("()"))
                support |= {"OR_m": 1 << b_i, "PAIR": 1 << 2 * n + b_i, "OR_g": (1 << b_i) | (1 << 2 * n + b_i),
                            "AND_m": 1 << n + b_i, "AND_g": (1 << n + b_i) | (1 << 2 * n + b_i)}[fld]
            pure = self.R.monotone and not re.search(r"\bh\.|AND_", code) and support.bit_count() <= 14
            if not pure:
                self.keep_always |= support
                continue
            bits = [1 << i for i in range(3 * n) if support >> i & 1]
            terms: list[int] = []
            for size in range(len(bits) + 1):
                for combo in itertools.combinations(bits, size):
                    x = sum(combo)
                    if any(not t2 & ~x for t2 in terms):
                        continue
                    if self._tests_of(h0, x) >> t & 1:
                        terms.append(x)
            self.coll[t] = tuple(terms)
        self.coll_mask = sum(1 << t for t in self.coll)

    def _tests_of(self, h: Hand, x: int) -> int:
        """Every test on aggregate x: the patterns' bits, then the unless bits above them."""
        n, full, _ = _layout(self.R)
        om, am, pm = x & full, full & ~(x >> n), x >> 2 * n
        held = self.R.holds_agg(h, om, am, om | pm, am & pm, pm)
        lifted = self.R.unless_agg(h, om, am, om | pm, am & pm, pm) if self.R.conflicts else 0
        return held | lifted << self.npat

    def _canon(self, x: int, done: int, r: int, p: int, cover: Any) -> tuple[int, int]:
        """x with only the bits that can still change a test, and the collapsible tests
        that hold already (they hold whatever is added: the rules are monotone)."""
        keep = self.keep_always
        for t, terms in self.coll.items():
            if done >> t & 1:
                continue
            if any(not term & ~x for term in terms):
                done |= 1 << t
                continue
            for term in terms:
                if cover(term & ~x, r, p):
                    keep |= term
        return x & keep, done

    def _enumerate(self) -> None:
        if self._done:
            return
        self._done = True
        try:
            self._search()
        except _Spent:  # what was found stands; nothing not found is proved impossible
            self.exhaustive = False
            self.why_not_exhaustive = (f"the search stopped after scoring {MAX_SCORED:,} hands (its budget), "
                                       "before trying every set")

    def _search(self) -> None:
        if not self.structured:
            self._random_search()
            self._example_search()
            return
        self.cap = self._hun_cap()
        self._tests()
        self._build_classes()
        # kong_chain: every length where a rule reads it, else 1 (the request's default)
        chains = range(1, KONG_CHAIN_MAX + 1) if self._reads_kong_chain() else (1,)
        knobs = [(kd, kc, frozenset(fs)) for kd in (None,) + KONG_DRAWS for kc in ((1,) if kd is None else chains)
                 for r in range(len(self.R.flags) + 1) for fs in itertools.combinations(self.R.flags, r)]
        hand_memo: dict[tuple[Any, ...], list[tuple[str | None, int, frozenset[str], Hand, tuple[str, ...], Any]]] = {}
        claim_memo: dict[tuple[Any, ...], tuple[int, int, int]] = {}
        pmask = (1 << self.npat) - 1
        for ctx, table in self._classes.items():
            finals = self._dp(ctx, table)
            rep = min(i for i in range(NUM_KINDS) if self.R.ctx(self._hand0(i)) == ctx)
            for (x, done, tr, hcl, ds), inds in finals.items():
                hk = (rep, tr, hcl, ds)
                hands = hand_memo.get(hk)
                if hands is None:
                    hands = hand_memo[hk] = []
                    seen_h: set[tuple[Any, ...]] = set()
                    base = self._synthetic(rep, tr, hcl, ds)
                    for kd, kc, fs in knobs:
                        base.kong_draw, base.flags = kd, fs
                        base.kong_chain = 0 if kd is None else kc
                        errs = tuple(self.R.request_errors(base))
                        situation = (tr, hcl, ds, kd, fs)  # (the situations of a single kong: kong_chain 1)
                        if kc == 1 and situation not in self.valid_hands and situation not in self.refused_hands:
                            (self.refused_hands if errs else self.valid_hands)[situation] = \
                                (_with_knobs(base, kd, fs), errs)
                        hkey = self.R.hkey(base)
                        sig = (hkey, bool(errs))
                        if sig not in seen_h:  # knobs the tests cannot tell apart: one is enough
                            seen_h.add(sig)
                            hands.append((kd, kc, fs, _with_knobs(base, kd, fs, kc), errs, hkey))
                for kd, kc, fs, hh, errs, hkey in hands:
                    key = (x, done, hkey)
                    got = claim_memo.get(key)
                    if got is None:
                        tests = (self._tests_of(hh, x) & ~self.coll_mask) | done
                        held, lifted = tests & pmask, tests >> self.npat
                        if errs and held.bit_count() > MAX_HELD:
                            continue  # refused by a request rule before the scorer weighs its patterns
                        got = claim_memo[key] = (held, lifted, self._resolve(held, lifted))
                    held, lifted, mask = got
                    sig2 = (held, lifted, not errs)
                    old = self._held.get(sig2)
                    if old is None:
                        self._held[sig2] = (mask, _Reading(ctx, (x, done, tr, hcl, ds), inds, kd, fs, kc), errs)
                    elif errs and old[2] != errs:  # the rules that refuse every such hand
                        self._held[sig2] = (old[0], old[1], tuple(e for e in old[2] if e in errs))
                    if not errs:
                        lst = self._reading_claims.setdefault(mask, [])
                        if len(lst) < self.tries:
                            lst.append(_Reading(ctx, (x, done, tr, hcl, ds), inds, kd, fs, kc))
        if not self.exhaustive:  # no proof to give: more hands can only help
            self._random_search()
            self._example_search()
        for mask in sorted(self._reading_claims, key=lambda m: (m.bit_count(), m)):
            # fewest huns and declared melds first, the winning tile natural: fewer other readings.
            # A set already met as another reading's best keeps that witness only when no
            # reading of its own could hold fewer huns (a hand with many huns has many readings,
            # which whoever checks the witness by enumerating them pays for)
            for reading in sorted(self._reading_claims[mask], key=lambda r: (r.state[3], len(r.state[4]), r.state[2])):
                if self._best_huns.get(mask, NUM_KINDS) <= reading.state[3] or self._try_reading(reading, mask):
                    break
        for mask in sorted(self._best):
            self._fewer_huns(mask)

    def _dp(self, ctx: Any, table: dict[_Class, dict[int, dict[int, list[Any]]]]) -> dict[tuple[Any, ...], int]:
        """Every reachable final state (bits that decide a test, collapsible tests that hold,
        winning-tile role, huns, declared melds) of 4 melds and a pair → the indicators that
        reach it. The edges are kept (self._edges[ctx]) to rebuild readings."""
        cap = self.cap
        melds = [(c, tuple((hc, _bits(d)) for hc, d in by_h.items())) for c, by_h in table.items() if c.role == 0]
        pairs = [(c, tuple((hc, _bits(d)) for hc, d in by_h.items())) for c, by_h in table.items() if c.role == 1]
        mvals = sorted({c.x for c, _ in melds if c.x})
        pvals = sorted({c.x for c, _ in pairs if c.x})
        cover_memo: dict[tuple[int, int, int], bool] = {}

        def cover(miss: int, r: int, p: int) -> bool:
            """Can r more melds and (if p) a pair still set the bits `miss`?"""
            if not miss:
                return True
            key = (miss, r, p)
            got = cover_memo.get(key)
            if got is None:
                low = miss & -miss
                got = any(cover(miss & ~v, r - 1, p) for v in mvals if v & low) if r else False
                if not got and p:
                    got = any(cover(miss & ~v, r, 0) for v in pvals if v & low)
                cover_memo[key] = got
            return got

        everyone = 0
        for _, avs in melds:
            for _, a in avs:
                everyone |= a
        canon_memo: dict[tuple[int, int, int, int], tuple[int, int]] = {}

        def canon(x: int, done: int, r: int, p: int) -> tuple[int, int]:
            key = (x, done, r, p)
            got = canon_memo.get(key)
            if got is None:
                got = canon_memo[key] = self._canon(x, done, r, p, cover)
            return got

        def step(layer: dict[Any, int], classes: list[tuple[_Class, Any]], r: int, p: int,
                 last: bool) -> tuple[dict[Any, int], dict[Any, list[Any]]]:
            nxt: dict[tuple[Any, ...], int] = {}
            back: dict[tuple[Any, ...], list[tuple[tuple[Any, ...], _Class, int]]] = {}
            for s, val in layer.items():
                x, done, tr, hcl = s
                seen_x: dict[int, tuple[int, int]] = {}
                for c, avs in classes:
                    if c.tk and tr or (last and not (c.tk or tr)):
                        continue
                    got = seen_x.get(c.x)
                    if got is None:
                        got = seen_x[c.x] = canon(x | c.x, done, r, p)
                    nx, nd = got
                    ntr = tr or c.tk
                    for hc, av in avs:
                        v = val & av
                        if v:
                            k = (nx, nd, ntr, min(cap - 1, hcl + hc))
                            nxt[k] = nxt.get(k, 0) | v
                            back.setdefault(k, []).append((s, c, hc))
            return nxt, back

        concealed = [m for m in melds if m[0].decl is None]
        declared = [m for m in melds if m[0].decl is not None]
        # the concealed groups: k melds (layers[k]), then the pair (with_pair[k]); 4 - k declared melds follow
        layers = [{(*canon(0, 0, 4, 1), 0, 0): everyone}]
        backs: list[dict[Any, list[Any]]] = [{}]
        for k in range(1, 5):
            nxt, back = step(layers[-1], concealed, 4 - k, 1, False)
            layers.append(nxt)
            backs.append(back)
        with_pair = [step(layers[k], pairs, 4 - k, 0, True) for k in range(5)]
        # the declared melds: multisets of j classes → (bits, huns, declared summary) → indicators
        decl: list[dict[tuple[Any, ...], int]] = [{(0, 0, ()): everyone}]
        decl_how: dict[tuple[Any, ...], tuple[_Class, ...]] = {(0, 0, ()): ()}
        for _ in range(4):
            nxt_d: dict[tuple[Any, ...], int] = {}
            for (x, hcl, ds), val in decl[-1].items():
                for c, avs in declared:
                    assert c.decl is not None
                    if ds and c.decl < ds[-1]:
                        continue  # each multiset once, in order
                    for hc, av in avs:
                        v = val & av
                        if v:
                            k2 = (x | c.x, min(cap - 1, hcl + hc), ds + (c.decl,))
                            nxt_d[k2] = nxt_d.get(k2, 0) | v
                            decl_how.setdefault(k2, decl_how[(x, hcl, ds)] + (c,))
            decl.append(nxt_d)
        finals: dict[tuple[Any, ...], int] = {}
        fin_back: dict[tuple[Any, ...], list[tuple[int, tuple[Any, ...], tuple[Any, ...]]]] = {}
        for k in range(5):
            for s, val in with_pair[k][0].items():
                x, done, tr, hcl = s
                for dk, dval in decl[4 - k].items():
                    v = val & dval
                    if v:
                        nx, nd = canon(x | dk[0], done, 0, 0)
                        f = (nx, nd, tr, min(cap - 1, hcl + dk[1]), dk[2])
                        finals[f] = finals.get(f, 0) | v
                        fin_back.setdefault(f, []).append((k, s, dk))
        self._edges[ctx] = (layers, backs, with_pair, decl, decl_how, finals, fin_back)
        return finals

    def _synthetic(self, ind: int, tr: int, hcl: int, ds: tuple[tuple[str, bool], ...]) -> Hand:
        """A hand with the hand-level values of an abstract reading (what hkey and the request
        rules read): declared melds of huns use the last hun kind, the others distinct natural
        kinds; the other hun tiles are counted on the hun kinds, the indicator's last."""
        R = self.R
        kinds, hun_set = R.hun_table[ind]
        naturals = [k for k in range(NUM_KINDS) if k not in hun_set]
        h = Hand()
        h.indicator, h.hun_kinds, h.hun_set, h.hun_suit = ind, kinds, hun_set, SUIT_OF[ind]
        h.suits = R.suits
        h.kong_draw, h.kong_chain, h.flags = None, 0, frozenset()
        counts = bytearray(NUM_KINDS)
        declared = []
        nat_i = 0
        decl_huns = 0
        for typ, hun in ds:
            n = 3 if typ == "pung" else 4
            if hun:
                face = kinds[-1]
                decl_huns += n
            else:
                face = naturals[nat_i % len(naturals)]
                nat_i += 1
            counts[face] += n
            declared.append(make_group(PUNG if n == 3 else KONG, (face,) * n, (hun,) * n, True, typ == "concealed_kong"))
        h.declared = declared
        h.t_hun = tr == 2
        h.t = kinds[-1] if tr == 2 else naturals[(nat_i + 1) % len(naturals)]
        counts[h.t] += 1
        h.huns = hcl
        rest = max(0, hcl - decl_huns - (1 if tr == 2 else 0))
        order = list(reversed(kinds))
        for i in range(rest):
            counts[order[i % len(order)]] += 1
        h.counts = bytes(counts)
        h.concealed = ()
        return h

    def _claim(self, h: Hand, x: int) -> tuple[int, int, int]:
        n, full, _ = _layout(self.R)
        om, am, pm = x & full, full & ~(x >> n), x >> 2 * n
        held = self.R.holds_agg(h, om, am, om | pm, am & pm, pm)
        lifted = self.R.unless_agg(h, om, am, om | pm, am & pm, pm) if self.R.conflicts else 0
        return held, lifted, self._resolve(held, lifted)

    def _resolve(self, held: int, lifted: int) -> int:
        """The claimed mask of a reading whose tests hold `held` (lifting `lifted`); a RuleError where more
        patterns hold together than the scorer weighs (it refuses such a hand: a rules mistake, said here)."""
        try:
            return int(resolve(self.R, held, lifted)[2])
        except TooManyHeld:  # (this module's resolve, whatever module made the rules)
            raise RuleError([too_many_held(self.rs, held)]) from None

    # ---- concrete hands --------------------------------------------------------------------

    def _try_reading(self, reading: _Reading, mask: int) -> bool:
        """Concrete hands for an abstract reading claiming `mask`: True once one's best reading claims it."""
        first: tuple[Witness, Witness] | None = None
        for req in itertools.islice(self._concrete(reading), self.tries):
            got = self._score(req)
            if got is None:
                continue
            wit, best_mask, huns = got
            self._keep(best_mask, wit, huns)
            if best_mask == mask:
                return True
            if first is None:  # this hand has a reading claiming mask, and a better one
                first = (self._as_reading_witness(req, mask), wit)
        if first is not None and mask not in self._tried:
            self._tried[mask] = first
        return False

    def _class_paths(self, ind: int, reading: _Reading) -> Iterator[list[tuple[_Class, int]]]:
        """Class sequences (with their hun counts: concealed melds, the pair, declared melds)
        that reach the reading's final state for indicator `ind`, walking the kept edges back."""
        layers, backs, with_pair, decl, decl_how, finals, fin_back = self._edges[reading.ctx]
        bit = 1 << ind
        table = self._classes[reading.ctx]

        def back(k: int, state: tuple[Any, ...], path: list[tuple[_Class, int]]) -> Iterator[list[tuple[_Class, int]]]:
            if k == 0:
                yield list(reversed(path))
                return
            options = [e for e in backs[k].get(state, ()) if layers[k - 1][e[0]] & bit and ind in table[e[1]][e[2]]]
            self.rng.shuffle(options)
            for prev, c, hc in options:
                yield from back(k - 1, prev, path + [(c, hc)])

        if not finals.get(reading.state, 0) & bit:
            return
        ends = [e for e in fin_back[reading.state] if with_pair[e[0]][0][e[1]] & bit and decl[4 - e[0]][e[2]] & bit]
        self.rng.shuffle(ends)
        for k, ps, dk in ends:
            decl_part = []
            for c in decl_how[dk]:  # each declared class with a hun count this indicator has
                hcs = [hc for hc, d in table[c].items() if ind in d]
                if not hcs:
                    break
                decl_part.append((c, hcs[0]))
            else:
                pair_options = [e for e in with_pair[k][1].get(ps, ())
                                if layers[k][e[0]] & bit and ind in table[e[1]][e[2]]]
                self.rng.shuffle(pair_options)
                for prev, c, hc in pair_options:
                    for path in back(k, prev, []):
                        yield path + [(c, hc)] + decl_part

    def _concrete(self, reading: _Reading) -> Iterator[dict[str, Any]]:
        """Requests for real hands of an abstract reading: indicators, class paths and members
        taken in turn, the members spread over the kinds so the hand has few other readings."""
        inds = [i for i in range(NUM_KINDS) if reading.inds >> i & 1]
        self.rng.shuffle(inds)
        gens = []
        for ind in inds[:12]:
            gens.append(self._concrete_for(ind, reading))
        while gens:
            for g in list(gens):
                req = next(g, None)
                if req is None:
                    gens.remove(g)
                else:
                    yield req

    def _concrete_for(self, ind: int, reading: _Reading) -> Iterator[dict[str, Any]]:
        table = self._classes[reading.ctx]
        for path in itertools.islice(self._class_paths(ind, reading), 4):
            choices = [table[c][hc][ind] for c, hc in path]
            for groups in itertools.islice(_spread(choices, self.rng), 4):
                yield from itertools.islice(self._tiles(ind, list(groups), reading), 2)

    def _tiles(self, ind: int, groups: list[tuple[Any, ...]], reading: _Reading) -> Iterator[dict[str, Any]]:
        """The request for concrete groups: physical hun tiles chosen for the hun slots."""
        kinds = self.R.hun_table[ind][0]
        nat: list[int] = []
        hun_slots = 0
        t_nat: int | None = None
        t_hun = False
        melds: list[dict[str, str]] = []
        for g in groups:
            if g[3]:
                melds.append({"type": "pung" if g[0] == PUNG else ("concealed_kong" if g[4] else "kong"),
                              "tile": name(g[1][0])})
                continue
            for s, (f, hf) in enumerate(zip(g[1], g[2])):
                if s == g[5]:
                    if hf:
                        t_hun = True
                    else:
                        t_nat = f
                elif hf:
                    hun_slots += 1
                else:
                    nat.append(f)
        decl_counts = [0] * NUM_KINDS
        for g in groups:
            if g[3]:
                decl_counts[g[1][0]] += len(g[1])
        t_options = list(kinds) if t_hun else [t_nat]
        seen: set[tuple[Any, ...]] = set()
        for t in t_options:
            assert t is not None
            for spread in _hun_spreads(hun_slots, kinds, self.rng):
                concealed = sorted(nat + spread)
                key = (t, tuple(concealed))
                if key in seen:
                    continue
                seen.add(key)
                counts = list(decl_counts)
                for k in concealed + [t]:
                    counts[k] += 1
                if max(counts) > self.R.copies:
                    continue
                req: dict[str, Any] = {"concealed": format_tiles(concealed), "melds": melds, "draw": name(t),
                                       "indicator": name(ind)}
                if reading.kong_draw is not None:
                    req["kong_draw"] = reading.kong_draw
                    if reading.kong_chain > 1:
                        req["kong_chain"] = reading.kong_chain
                for f in sorted(reading.flags):
                    req[f] = True
                yield req

    def _fewer_huns(self, mask: int) -> None:
        """The witness of `mask` with its hun tiles put back, one at a time, as the natural
        tiles they stand for, while its best reading still claims `mask`: a hand with fewer
        huns has fewer readings (and the reference interpreter, which lists them all,
        confirms it sooner)."""
        wit, huns = self._best[mask], self._best_huns[mask]
        while huns:
            for req in self._hun_swaps(wit.request):
                got = self._score(req)
                if got is not None and got[1] == mask and got[2] < huns:
                    wit, huns = got[0], got[2]
                    break
            else:
                break
        self._best[mask], self._best_huns[mask] = wit, huns

    def _hun_swaps(self, req: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The request with one hun tile made natural: a concealed hun as the face some hun
        stands for in the best reading, the winning tile as its face, a declared meld of
        huns as a meld of each natural kind."""
        R = self.R
        r = parse_request(req, True, R.flags, R.copies)
        assert r.draw is not None
        h = runtime.make_hand(R, r, r.draw)
        _, groups, bh = runtime.best_claim(R, h)
        hun_set = h.hun_set
        fixed_t = not R.free_t(bh)  # tianhu/dihu: any tile of the hand may be the winning one
        faces: list[int] = []
        t_face: int | None = None
        for g in R.witness_groups(groups):
            for s, (f, hf) in enumerate(zip(g[1], g[2])):
                if hf and not g[3] and f not in hun_set:
                    if s == g[5] and fixed_t:
                        t_face = f
                    elif f not in faces:
                        faces.append(f)
        concealed = parse_tiles(req["concealed"])
        for k in sorted(set(concealed) & hun_set):
            for f in faces:
                rest = list(concealed)
                rest.remove(k)
                yield {**req, "concealed": format_tiles(sorted(rest + [f]))}
        if t_face is not None:
            yield {**req, "draw": name(t_face)}
        for i, m in enumerate(req.get("melds") or []):
            if parse_tiles(m["tile"])[0] in hun_set:
                for k in range(NUM_KINDS):
                    if k not in hun_set:
                        melds = list(req["melds"])
                        melds[i] = {**m, "tile": name(k)}
                        yield {**req, "melds": melds}

    def _keep(self, mask: int, wit: Witness, huns: int) -> None:
        """The witness of a best reading's claim: the first hand found with the fewest hun tiles."""
        if huns < self._best_huns.get(mask, NUM_KINDS):
            self._best[mask], self._best_huns[mask] = wit, huns

    def _score(self, req: dict[str, Any]) -> tuple[Witness, int, int] | None:
        """(witness of the hand's best reading, its claimed mask, the hand's hun tiles),
        or None when refused. Raises _Spent past MAX_SCORED hands."""
        self.scored += 1
        if self.scored > MAX_SCORED:
            raise _Spent()
        try:
            got = best_of(self.R, req)
        except self.R.too_many_held as e:  # a hand the scorer refuses for it: the rules' mistake, said
            raise RuleError([too_many_held(self.rs, e.held)]) from None
        if got is None:
            return None
        best, bh, h = got
        return self._witness(req, best, bh), best[2], h.huns

    def _witness(self, req: dict[str, Any], best: tuple[int, int, int], h: Hand) -> Witness:
        fan, _, mask = best
        win = wins(self.R, mask, fan)
        total = self.R.total(h, fan) if win else 0
        return Witness(self._names(mask), req, hand_text(req), fan, total, win, claim_display(self.R, mask)[0])

    def _as_reading_witness(self, req: dict[str, Any], mask: int) -> Witness:
        fan = self.R.fan(mask)
        return Witness(self._names(mask), req, hand_text(req), fan, 0, wins(self.R, mask, fan),
                       claim_display(self.R, mask)[0])

    def _names(self, mask: int) -> tuple[str, ...]:
        return tuple(pid for i, pid in enumerate(self.ids) if mask >> i & 1)

    def _random_search(self, n: int = 4000) -> None:
        """Hands built from random groups, each scored: the search outside the abstraction
        (and beside the exhaustive one when it gives no proofs). Each hand gets a random
        budget of hun tiles, mostly small: hands with few huns have few other readings."""
        universes: dict[int, dict[str, list[tuple[Any, ...]]]] = {}
        for ind in range(NUM_KINDS):
            whole = self._universe(ind)
            universes[ind] = {
                "decl": [g for g, tk, d in whole if d is not None],
                "melds": [g for g, tk, d in whole if d is None and g[0] != PAIR and not tk],
                "pairs": [g for g, tk, d in whole if d is None and g[0] == PAIR and not tk],
                "with_t": [g for g, tk, d in whole if d is None and tk],
            }
        rng = self.rng
        for _ in range(n):
            ind = rng.randrange(NUM_KINDS)
            u = universes[ind]
            budget = rng.choice((0, 0, 1, 1, 2, 3, 4, 8))

            def pick(groups: list[tuple[Any, ...]]) -> tuple[Any, ...]:
                nonlocal budget
                for _ in range(30):
                    g = rng.choice(groups)
                    if g[6] <= budget:
                        budget -= g[6]
                        return g
                return g

            t_group = pick(u["with_t"])
            groups = [t_group] + [pick(u["decl"]) for _ in range(rng.choice((0, 0, 0, 1, 1, 2)))]
            groups += [pick(u["melds"]) for _ in range(4 - sum(1 for g in groups if g[0] != PAIR))]
            if t_group[0] != PAIR:
                groups.append(pick(u["pairs"]))
            kd = rng.choice((None, None) + KONG_DRAWS)
            flags = frozenset(f for f in self.R.flags if rng.random() < 0.1)
            kongs = sum(1 for g in groups if g[0] == KONG)
            kc = rng.randint(1, max(1, min(kongs, KONG_CHAIN_MAX)))
            reading = _Reading(None, (), 1 << ind, kd, flags, kc)
            for req in itertools.islice(self._tiles(ind, groups, reading), 2):
                got = self._score(req)
                if got is not None:
                    self._keep(got[1], got[0], got[2])

    def _example_search(self) -> None:
        """The rule file's own example hands, each scored under these rules: where the
        search cannot prove, a designer's example still finds a witness that random
        hands miss (a pattern needing one exact tile of each hun kind, say)."""
        for ex in self.rs.prose.examples:
            if ex.kind != "hand" or not isinstance(ex.request, dict):
                continue
            req = {k: v for k, v in ex.request.items() if k not in ("options", "profile", "id")}
            try:
                got = self._score(req)
            except Exception:  # an example these rules cannot read is no witness
                continue
            if got is not None:
                self._keep(got[1], got[0], got[2])

    # ---- verdicts -------------------------------------------------------------------------

    def _mask(self, patterns: Iterable[str]) -> tuple[int, list[str]]:
        m = 0
        off = []
        for p in patterns:
            if p in self.index:
                m |= 1 << self.index[p]
            elif p in self.rs.disabled_patterns:
                off.append(p)
            else:
                raise KeyError(f"no pattern {p!r}")
        return m, off

    def readings(self) -> Iterator[tuple[int, _Reading]]:
        """(claimed mask, abstract reading) of the readings of accepted hands the search kept
        (up to `tries` a mask): their hand-level values are in valid_hands."""
        self._enumerate()
        for mask, readings in sorted(self._reading_claims.items()):
            for r in readings:
                yield mask, r

    def claimable(self) -> dict[frozenset[str], Witness]:
        """Every set of patterns some hand's best reading claims, with a witness."""
        self._enumerate()
        return {frozenset(w.patterns): w for _, w in sorted(self._best.items())}

    def verdict(self, patterns: Iterable[str]) -> Verdict:
        """Is there a hand whose best reading claims exactly these patterns?"""
        pats = tuple(patterns)
        mask, off = self._mask(pats)
        ordered = tuple(sorted(pats, key=lambda p: (self.index.get(p, 99), p)))
        if off:
            return Impossible(ordered, "disabled", f"{', '.join(self._label(p) for p in off)} "
                              f"{'is' if len(off) == 1 else 'are'} not enabled under these options", about=tuple(off))
        static = self._static_reason(mask)
        if static is not None:
            return Impossible(ordered, *static[:2], about=static[2])
        self._enumerate()
        if mask in self._best:
            return self._best[mask]
        if not self.exhaustive:
            return Undecided(ordered, f"no hand found, and no proof: {self.why_not_exhaustive}")
        return self._why_not(mask, ordered)

    def pattern(self, pid: str) -> Verdict:
        """Is there a hand whose best reading claims `pid` (with whatever else)?"""
        mask, off = self._mask([pid])
        if off:
            return Impossible((pid,), "disabled", f"{self._label(pid)} is not enabled under these options")
        self._enumerate()
        found = [m for m in self._best if m & mask]
        if found:
            return self._best[min(found, key=lambda m: (m.bit_count(), m))]
        if not self.exhaustive:
            return Undecided((pid,), f"no hand found, and no proof: {self.why_not_exhaustive}")
        valid = [(held, lifted, m) for (held, lifted, ok), (m, _, _) in self._held.items() if ok]
        if not any(held & mask for held, _, _ in valid):
            refused = self._refusal(mask, any_bit=True)
            if refused:
                return Impossible((pid,), "refused", f"{self._label(pid)} holds only in hands the request rules refuse "
                                  f"({refused})")
            return Impossible((pid,), "never_holds", f"{self._label(pid)} holds on no decomposition of any hand")
        if not any(m & mask for _, _, m in valid):
            return Impossible((pid,), "dropped", self._dropped_why(mask, valid))
        for m, (reading_w, better) in self._tried.items():
            if m & mask:
                return Impossible((pid,), "dominated",
                                  f"{self._label(pid)} is claimed on some decomposition, but every such hand tried "
                                  f"reads better another way (e.g. {reading_w.hand}: {better.formula} "
                                  f"{' '.join(better.patterns)})", reading_w, better)
        return Impossible((pid,), "dominated", f"{self._label(pid)} is never claimed by a best reading")

    def table(self, limit: int = 1 << 14) -> list[Verdict]:
        """A verdict for every subset of the enabled patterns (rule-file order, smaller sets first)."""
        n = len(self.ids)
        if 1 << n > limit:
            raise ValueError(f"{n} patterns make {1 << n} sets, more than the limit {limit}")
        self._enumerate()
        masks = sorted(range(1 << n), key=lambda m: (m.bit_count(), [-(m >> i & 1) for i in range(n)]))
        return [self.verdict(self._names(m)) for m in masks]

    # ---- reasons --------------------------------------------------------------------------

    def _label(self, pid: str) -> str:
        for p in self.rs.patterns:
            if p.id == pid:
                return f"{p.name} ({pid})"
        return pid

    def _static_reason(self, mask: int) -> tuple[str, str, tuple[str, ...]] | None:
        for i, pid in enumerate(self.ids):
            if mask >> i & 1:
                for r in self.rs.patterns[i].requires:
                    if r in self.index and not mask >> self.index[r] & 1:
                        return "requires", f"{self._label(pid)} requires {self._label(r)}", (pid, r)
        for p in self.rs.patterns:
            for c in p.conflicts:
                if c.unless is None and mask >> self.index[p.id] & 1 and c.other in self.index \
                        and mask >> self.index[c.other] & 1:
                    return ("conflict", f"{self._label(p.id)} and {self._label(c.other)} are never claimed together",
                            (p.id, c.other))
        return None

    def _why_not(self, mask: int, ordered: tuple[str, ...]) -> Impossible:
        valid = [(held, lifted, m, r) for (held, lifted, ok), (m, r, _) in self._held.items() if ok]
        together = [v for v in valid if not mask & ~v[0]]
        if not together:
            refused = self._refusal(mask)
            if refused:
                return Impossible(ordered, "refused", f"{self._set(mask)} hold together only in hands the request "
                                  f"rules refuse ({refused})", about=tuple(self._refusing(mask) or ()))
            sub = self._smallest_apart(mask, [v[0] for v in valid])
            names = " + ".join(self._label(p) for p in self._names(sub))
            if sub.bit_count() == 1:
                return Impossible(ordered, "never_holds", f"{names} holds on no decomposition of any hand",
                                  about=self._names(sub))
            return Impossible(ordered, "never_together", f"{names} never hold on one decomposition of a hand",
                              about=self._names(sub))
        conf = self._conflict_between(mask, together)
        if conf is not None:
            return Impossible(ordered, "conflict", conf[0], about=conf[1])
        claims = [m for _, _, m, _ in together]
        if mask not in claims and mask not in self._reading_claims:
            extra = mask ^ ((1 << len(self.ids)) - 1)
            for m in claims:
                extra &= m & ~mask
            if extra:
                return Impossible(ordered, "always_with", f"whenever {self._set(mask)} "
                                  f"{'holds' if mask.bit_count() == 1 else 'hold'}, {self._set(extra)} "
                                  f"{'is' if extra.bit_count() == 1 else 'are'} claimed too", about=self._names(extra))
            alt = min(claims, key=lambda m: (m.bit_count(), m))
            return Impossible(ordered, "outranked", f"wherever {self._set(mask)} hold, a claim of "
                              f"{self._set(alt)} scores at least as much", about=self._names(alt))
        tried = self._tried.get(mask)
        if tried is not None:
            w, better = tried
            return Impossible(ordered, "dominated", f"a decomposition claims them, but every hand tried reads better "
                              f"another way (e.g. {w.hand}: {better.formula} {' '.join(better.patterns)})", w, better,
                              about=better.patterns)
        return Impossible(ordered, "dominated", "a decomposition claims them, but no hand tried has it as its best reading")

    def _set(self, mask: int) -> str:
        return " + ".join(self._label(p) for p in self._names(mask))

    def _refusing(self, mask: int, any_bit: bool = False) -> list[str] | None:
        """The ids of the request rules that refuse every hand where the patterns of mask
        hold (None: no refused hand holds them)."""
        common: list[str] | None = None
        for (held, _, ok), (_, _, errs) in self._held.items():
            if not ok and ((held & mask) if any_bit else not mask & ~held):
                common = list(errs) if common is None else [e for e in common if e in errs]
        return common

    def _refusal(self, mask: int, any_bit: bool = False) -> str:
        """The request rules that refuse every hand where the patterns of mask hold ("" if none)."""
        common = self._refusing(mask, any_bit)
        if common is None:
            return ""
        messages = getattr(self.R, "request_messages", {})
        return "; ".join(f"{e}: {messages[e]}" if e in messages else e for e in common) if common \
            else "different rules for different hands"

    def _smallest_apart(self, mask: int, helds: list[int]) -> int:
        bits = [1 << i for i in range(len(self.ids)) if mask >> i & 1]
        for size in range(1, len(bits) + 1):
            for combo in itertools.combinations(bits, size):
                sub = sum(combo)
                if not any(not sub & ~h for h in helds):
                    return sub
        return mask  # pragma: no cover - mask itself holds together with nothing

    def _conflict_between(self, mask: int, together: list[tuple[int, int, int, _Reading]]
                          ) -> tuple[str, tuple[str, ...]] | None:
        pairs = [(j, a, b) for j, (a, b) in enumerate(self.R.conflicts) if mask >> a & 1 and mask >> b & 1]
        if not pairs:
            return None
        for j, a, b in pairs:
            if all(not lifted >> j & 1 for _, lifted, _, _ in together):
                pa = self.rs.patterns[a]
                c = [c for c in pa.conflicts if c.other == self.ids[b]][0]
                why = f": {c.description}" if c.description else ""
                return (f"{self._label(self.ids[a])} conflicts with {self._label(self.ids[b])}{why}, and no hand "
                        f"where {self._set(mask)} hold lifts the conflict", (self.ids[a], self.ids[b]))
        return None

    def _dropped_why(self, mask: int, valid: list[tuple[int, int, int]]) -> str:
        pid = self._names(mask)[0]
        i = self.index[pid]
        for r in self.rs.patterns[i].requires:
            if r in self.index and not any(held & mask and held >> self.index[r] & 1 for held, _, _ in valid):
                return f"{self._label(pid)} requires {self._label(r)}, which never holds with it"
        return f"{self._label(pid)} holds, but every decomposition where it does claims more without it"


def _with_knobs(h: Hand, kong_draw: str | None, flags: frozenset[str], kong_chain: int = 1) -> Hand:
    hh = copy_hand(h)
    hh.kong_draw, hh.flags = kong_draw, flags
    hh.kong_chain = 0 if kong_draw is None else kong_chain
    return hh


def _bits(d: dict[int, list[Any]]) -> int:
    out = 0
    for ind in d:
        out |= 1 << ind
    return out


def _spread(choices: list[list[Any]], rng: random.Random) -> Iterator[tuple[Any, ...]]:
    """One member per class, each time preferring members whose kinds and suits the others
    do not use (fewer other readings of the same tiles), ties broken at random."""
    for _ in range(16):
        used_kinds: set[int] = set()
        used_suits: set[str] = set()
        out = []
        for all_members in choices:
            members = all_members if len(all_members) <= 10 else rng.sample(all_members, 10)
            def cost(g: tuple[Any, ...]) -> tuple[int, int, float]:
                ks = set(g[1])
                near = {k + d for k in ks for d in (-2, -1, 1, 2) if k < 27 and (k + d) // 9 == k // 9}
                return (len(ks & used_kinds) + len(near & used_kinds), int(g[7] in used_suits), rng.random())
            g = min(members, key=cost)
            out.append(g)
            used_kinds |= set(g[1])
            used_suits.add(g[7])
        yield tuple(out)


def _hun_spreads(n: int, kinds: tuple[int, ...], rng: random.Random) -> Iterator[list[int]]:
    """Physical hun tiles for n hun slots: spread over the kinds (the indicator's last), then others."""
    if n == 0:
        yield []
        return
    order = list(reversed(kinds))
    yield [order[i % len(order)] for i in range(n)]
    for k in kinds:
        yield [k] * n
    for _ in range(4):
        yield [rng.choice(kinds) for _ in range(n)]


def best_of(R: Any, req: dict[str, Any]) -> tuple[tuple[int, int, int], Hand, Hand] | None:
    """(the best reading's claim (fan, _, claimed mask), the hand as that reading reads it, the
    hand) of a request with a draw, as the scorer `R` finds them; None when it is refused or has
    no winning shape."""
    try:
        r = parse_request(req, True, R.flags, R.copies)
    except RequestError:
        return None
    assert r.draw is not None
    h = runtime.make_hand(R, r, r.draw)
    if R.request_errors(h):
        return None
    best, _, bh = runtime.best_claim(R, h)
    return None if best is None else (best, bh, h)


def hand_text(req: dict[str, Any]) -> str:
    """A request in the CLI's notation: `345m 123s [5555p] +6s`."""
    return format_hand(req)


class Analysis:
    """One rule set's view of a Search: the claims are the search's, the totals and
    wins of the witnesses this rule set's (its score table, least fan and winning condition)."""

    def __init__(self, rs: RuleSet, search: Search) -> None:
        self.rs = rs
        self.search = search
        self.ids = search.ids
        same = (rs.total.text, rs.min_fan, _win_text(rs), rs.kong_points) == (
            search.rs.total.text, search.rs.min_fan, _win_text(search.rs), search.rs.kong_points)
        self._R: Any = search.R if same else None
        self._mine: dict[int, Any] = {}

    @property
    def exhaustive(self) -> bool:
        """The search's (it may stop at its budget while it runs)."""
        return self.search.exhaustive

    @property
    def why_not_exhaustive(self) -> str:
        return self.search.why_not_exhaustive

    def claimable(self) -> dict[frozenset[str], Witness]:
        return {k: self._own(w) for k, w in self.search.claimable().items()}

    def verdict(self, patterns: Iterable[str]) -> Verdict:
        return self._own(self.search.verdict(patterns))

    def pattern(self, pid: str) -> Verdict:
        return self._own(self.search.pattern(pid))

    def table(self, limit: int = 1 << 14) -> list[Verdict]:
        return [self._own(v) for v in self.search.table(limit)]

    def _own(self, v: Any) -> Any:
        if self._R is self.search.R or v is None:
            return v
        if isinstance(v, Impossible):
            return Impossible(v.patterns, v.reason, v.message, self._own(v.witness), self._own(v.better), v.about) \
                if v.witness is not None else v
        if not isinstance(v, Witness):
            return v
        got = self._mine.get(id(v))
        if got is None:
            if self._R is None:
                self._R = load_generated(generate_scorer(self.rs)).RULES
            r = runtime.score_request(self._R, v.request)
            got = self._mine[id(v)] = Witness(v.patterns, v.request, v.hand, r["fan"], r["total"], r["win"],
                                              r["formula"])
        return got


def _win_text(rs: RuleSet) -> str:
    """The winning condition (win_when; "" for its default form): a witness wins by it, so two rule sets
    claiming alike but winning apart do not share their witnesses' wins."""
    return rs.win_when.text if rs.win_when is not None else ""


def claims_key(rs: RuleSet) -> str:
    """What decides the claims of every hand: rule sets equal in it have the same witnesses."""
    parts = (rs.patterns, rs.definitions, rs.algebra, rs.hun_count, rs.cycles, rs.hun_table, rs.chow, rs.copies, rs.suits,
             rs.flags, rs.request_rules, rs.free_when)
    return hashlib.sha256("\n".join(dump(x) for x in parts).encode("utf-8")).hexdigest()


_CACHE: dict[str, Search] = {}


def analyse(rs: RuleSet, tries: int = 60, rules: Any | None = None) -> Analysis:
    """The Analysis of a rule set; the search behind it is shared by every rule set that
    claims alike (cached by claims_key). `rules`: the RULES of rs's generated scorer, when
    the caller has it loaded already."""
    # the rule file's example hands are witnesses too where the search is not exhaustive: rule sets that
    # claim alike but give other examples are not one search (an in-process check of an overlay, then of
    # the same overlay with an example added, kept the first's verdict)
    hands = [ex.request for ex in rs.prose.examples if ex.kind == "hand" and isinstance(ex.request, dict)]
    key = claims_key(rs) + ":" + hashlib.sha256(repr(hands).encode("utf-8")).hexdigest() + f":{tries}"
    got = _CACHE.get(key)
    if got is None:
        if len(_CACHE) > 32:
            _CACHE.clear()
        got = _CACHE[key] = Search(rs, rules if rules is not None else load_generated(generate_scorer(rs)).RULES, tries)
    return Analysis(rs, got)
