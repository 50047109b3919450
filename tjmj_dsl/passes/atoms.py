"""Group atoms: the fast form of decomposition predicates.

A predicate reads a decomposition through quantifiers over `melds`/`groups`
and through `pair`. When each such quantifier's body reads only its group (plus
hand-level names and variables of enclosing quantifiers over fixed-size
hand-level lists), the body is an *atom*: a per-group bit, one per binding of
those enclosing variables. `any(g in melds: φ)` then is a bit of the OR of the
melds' masks, `all` a bit of their AND, and a boolean expression that reads
only `pair` a bit of the pair's mask. Decompositions with the same aggregate
masks score alike, so the generated scorer can search over masks instead of
over decompositions (engine/search.best_by_masks).

Rules that step outside this form (counting groups, comparing two groups, …)
raise NotAtomic and the generated scorer enumerates decompositions instead."""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from ..expr import ast as A
from ..expr.check import Checker, Env, scope_vars
from ..expr.emit import Emitter, quantifier
from ..expr.vocabulary import DECOMP_VARS, HAND_VARS
from ..ir import RuleSet

D_NAMES = set(DECOMP_VARS)


class NotAtomic(Exception):
    """The rules read decompositions in a way the mask search cannot follow."""


@dataclass
class Atom:
    body: A.Node
    var: str  # the group variable; "pair" for atoms on the pair
    inst: list[tuple[str, A.Node, int]]  # (variable, its domain, the domain's size)
    base: int
    ctx: bool = False  # reads the hand (beyond what the rules fix): its bit depends on the hand context

    @property
    def width(self) -> int:
        w = 1
        for _, _, n in self.inst:
            w *= n
        return w


@dataclass
class AtomPlan:
    atoms: list[Atom] = field(default_factory=list)
    types: dict[int, str] = field(default_factory=dict)
    context: list[str] = field(default_factory=list)  # hand-level names the atoms read
    hand_terms: list[str] = field(default_factory=list)  # code of the hand-level parts of the pattern and conflict tests
    uses_count: bool = False
    count_in_tests: bool = False  # a pattern test reads count() outside a hand-level term: the claim key needs the counts
    monotone: bool = True  # every atom test stands where more bits can only make more patterns hold
    reads_and: bool = False  # some test reads the AND of the melds' or groups' masks (an all() over them)

    @property
    def nbits(self) -> int:
        return sum(a.width for a in self.atoms)


INLINE_BUDGET = 20_000  # nodes the inlining of one expression may build; past it, the scorer enumerates


def inline(n: A.Node, defs: dict[str, tuple[tuple[str, ...], A.Node]], fresh: itertools.count,  # type: ignore[type-arg]
           budget: list[int] | None = None) -> A.Node:
    """Replace calls of definitions by their bodies (bound variables renamed).
    Raises NotAtomic past INLINE_BUDGET nodes (definitions that call each
    other several times grow the tree exponentially)."""
    budget = budget if budget is not None else [INLINE_BUDGET]
    budget[0] -= 1
    if budget[0] < 0:
        raise NotAtomic(f"the definitions expand to more than {INLINE_BUDGET} nodes")
    if isinstance(n, A.Call) and n.func in defs:
        params, body = defs[n.func]
        args = [inline(a, defs, fresh, budget) for a in n.args]
        return inline(_subst(body, dict(zip(params, args)), fresh), defs, fresh, budget)
    return _map(n, lambda c: inline(c, defs, fresh, budget))


def _subst(n: A.Node, env: dict[str, A.Node], fresh: itertools.count) -> A.Node:  # type: ignore[type-arg]
    if isinstance(n, A.Name):
        return env.get(n.id, n)
    if isinstance(n, A.Quant):
        new = f"{n.var}_{next(fresh)}"
        inner = {**env, n.var: A.Name(n.span, new)}
        return A.Quant(n.span, n.op, new, _subst(n.domain, env, fresh), _subst(n.body, inner, fresh))
    return _map(n, lambda c: _subst(c, env, fresh))


def _map(n: A.Node, f: Any) -> A.Node:
    if isinstance(n, A.Attr):
        return A.Attr(n.span, f(n.obj), n.name, n.name_span)
    if isinstance(n, A.Call):
        return A.Call(n.span, n.func, tuple(f(a) for a in n.args), n.func_span)
    if isinstance(n, A.Quant):
        return A.Quant(n.span, n.op, n.var, f(n.domain), f(n.body))
    if isinstance(n, A.BinOp):
        return A.BinOp(n.span, n.op, f(n.left), f(n.right))
    if isinstance(n, A.Compare):
        return A.Compare(n.span, n.op, f(n.left), f(n.right))
    if isinstance(n, A.BoolOp):
        return A.BoolOp(n.span, n.op, tuple(f(i) for i in n.items))
    if isinstance(n, A.Not):
        return A.Not(n.span, f(n.operand))
    if isinstance(n, A.Neg):
        return A.Neg(n.span, f(n.operand))
    if isinstance(n, A.IfElse):
        return A.IfElse(n.span, f(n.cond), f(n.then), f(n.other))
    if isinstance(n, A.ListLit):
        return A.ListLit(n.span, tuple(f(i) for i in n.items))
    return n


def _names(n: A.Node) -> set[str]:
    return {x.id for x in A.walk(n) if isinstance(x, A.Name)}


def _free(n: A.Node) -> set[str]:
    """Names not bound inside n."""
    if isinstance(n, A.Name):
        return {n.id}
    if isinstance(n, A.Quant):
        return _free(n.domain) | (_free(n.body) - {n.var})
    out: set[str] = set()
    for c in A.children(n):
        out |= _free(c)
    return out


UNROLL = 9  # quantifiers over lists of at most this many items are written out item by item


def _bind(code: str, var: str, item: str, i: int, fold: str = r">> \(([\d +*]+)\)", folded: str = ">> {}") -> str:
    """Emitted code with a quantifier's index fixed to i and its item to `item`;
    bit positions that became constant are folded, for a reader's sake (`fold`
    finds a bit position in the target's bit test, `folded` writes it back)."""
    code = re.sub(rf"\bi_{re.escape(var)}\b", str(i), code)
    code = re.sub(rf"\bv_{re.escape(var)}\b", item, code)
    return re.sub(fold, lambda mt: folded.format(_sum_of_products(mt.group(1))), code)


def _sum_of_products(text: str) -> int:
    """The value of an index such as "15 + 2 * 3 + 1"."""
    return sum(math.prod(int(x) for x in term.split("*")) for term in text.split("+"))


def _items(emit: Callable[[A.Node], str], dom: A.Node, size: int) -> list[str]:
    """The code of each item of a list of known size."""
    if isinstance(dom, A.ListLit):
        return [emit(x) for x in dom.items]
    code = emit(dom)
    return [f"{code}[{i}]" for i in range(size)]


class AtomMixin:
    """Emits a decomposition predicate as bit tests over OR_m, AND_m, OR_g,
    AND_g (melds / groups) and PAIR, registering the atoms it needs. Mixed
    into a target's emitter (Python's Emitter, expr/emit_js.py's JsEmitter),
    whose hooks bit_test, bool_join, indexed_quantifier and FOLD/FOLDED write
    the target's syntax; the plan is the same for every target."""

    types: dict[int, str]
    flags: set[str]
    FOLD: str
    FOLDED: str

    def __init__(self, rs: RuleSet, plan: AtomPlan) -> None:
        super().__init__(plan.types, set(), flags=tuple(f for f, _ in rs.flags))  # type: ignore[call-arg]
        self.rs = rs
        self.plan = plan
        self.inst: dict[str, tuple[A.Node, int | None]] = {}  # enclosing non-group quantifier vars
        self.groupvars: set[str] = set()
        self.positive = True  # False under not, inside a comparison, a condition or arithmetic
        self.terms = True  # record hand-level terms (the pattern tests; not the group atoms)

    def _size(self, dom: A.Node) -> int | None:
        if isinstance(dom, A.ListLit):
            return len(dom.items)
        if isinstance(dom, A.Name) and dom.id == "suits":
            return len(self.rs.suits)
        if isinstance(dom, A.Name) and dom.id == "hun_kinds":  # a fixed size when every indicator names as many
            return self.rs.hun_count if all(len(r) == self.rs.hun_count for r in self.rs.hun_table) else None
        return None

    def _atom(self, body: A.Node, var: str) -> str:
        used = [v for v in self.inst if v in _free(body)]
        inst = []
        for v in used:
            dom, size = self.inst[v]
            if size is None or (_free(dom) & (set(self.inst) | self.groupvars | D_NAMES)):
                raise NotAtomic(f"{var} depends on {v}, whose list has no fixed size")
            inst.append((v, dom, size))
        ctx = False
        free = _free(body).union(*(_free(d) for _, d, _ in inst))
        for x in [y for part in [body] + [d for _, d, _ in inst] for y in A.walk(part)]:
            if isinstance(x, A.Name) and (x.id in HAND_VARS or x.id in self.flags) and x.id not in ("true", "false", "none"):
                if x.id not in self.plan.context:
                    self.plan.context.append(x.id)
            if isinstance(x, A.Call) and x.func == "count":
                self.plan.uses_count = True
            ctx |= self._reads_hand(x, free)
        atom = Atom(body, var, inst, self.plan.nbits, ctx)
        self.plan.atoms.append(atom)
        strides = []
        w = 1
        for _, _, size in reversed(inst):
            strides.append(w)
            w *= size
        strides.reverse()
        idx = " + ".join([str(atom.base)] + [f"i_{v} * {s}" if s != 1 else f"i_{v}" for (v, _, _), s in zip(inst, strides)])
        return idx

    def _reads_hand(self, x: A.Node, free: set[str]) -> bool:
        """Whether node x reads a value of the hand that the rules do not fix:
        a flag or a hand-level name among `free` (not one a quantifier binds),
        or count()."""
        if isinstance(x, A.Call):
            return x.func == "count"
        return isinstance(x, A.Name) and x.id in free and (x.id in self.flags or (
            x.id in HAND_VARS and not HAND_VARS[x.id].fixed and x.id not in ("true", "false", "none")))

    def _hand_term(self, n: A.Node, bound: frozenset[str]) -> bool:
        """Whether n reads the hand and nothing else: no decomposition, no
        group, no variable bound outside it, and some value not fixed by the rules."""
        free = _free(n)
        if free & (D_NAMES | bound | self.groupvars | set(self.inst)) or isinstance(n, A.ListLit):
            return False
        return any(self._reads_hand(x, free) for x in A.walk(n))

    def emit(self, n: A.Node, bound: frozenset[str] = frozenset()) -> str:
        if self.terms and self._hand_term(n, bound):
            # a hand-level part of a test: its value, with the aggregate, decides the test
            self.terms = False  # (its own parts are not terms of their own)
            try:
                code = super().emit(n, bound)  # type: ignore[misc]
            finally:
                self.terms = True
            if code not in self.plan.hand_terms:
                self.plan.hand_terms.append(code)
            return code
        if self.terms and isinstance(n, A.Call) and n.func == "count":
            # e.g. count(k) under all(k in hun_kinds: ...): not a term of its own, so the claim
            # cached for the aggregate must be keyed by the hand's counts too
            self.plan.count_in_tests = True
        if isinstance(n, A.Quant) and isinstance(n.domain, A.Name) and n.domain.id in ("melds", "groups"):
            if n.op not in ("any", "all"):
                raise NotAtomic(f"{n.op}() over {n.domain.id}")
            if (_names(n.body) & D_NAMES) or (_free(n.body) & self.groupvars):
                raise NotAtomic("a group quantifier's body reads another group")
            self.groupvars.add(n.var)
            idx = self._atom(n.body, n.var)
            self.groupvars.discard(n.var)
            src = ("OR_" if n.op == "any" else "AND_") + ("m" if n.domain.id == "melds" else "g")
            self.plan.reads_and |= n.op == "all"
            if not self.positive:
                self.plan.monotone = False
            return self.bit_test(src, idx)  # type: ignore[attr-defined, no-any-return]
        names = _names(n)
        if "pair" in names and not (names & {"melds", "groups"}) and not (_free(n) & self.groupvars) \
                and self.types.get(id(n)) == "bool" and not self._has_group_quant(n) \
                and not (isinstance(n, A.BoolOp) and any(self._hand_term(i, bound) for i in n.items)):
            # (a conjunction with a hand-level term, `huns == 0 and pair.has_t`, is split: the term
            # joins the claim's key and the pair atom stays independent of the hand)
            if not self.positive:
                self.plan.monotone = False
            return self.bit_test("PAIR", self._atom(n, "pair"))  # type: ignore[attr-defined, no-any-return]
        if isinstance(n, A.Name) and n.id in D_NAMES:
            raise NotAtomic(f"{n.id} read outside a quantifier")
        if isinstance(n, A.Quant):
            if _names(n.domain) & D_NAMES:
                raise NotAtomic("a list built from the decomposition")
            size = self._size(n.domain)
            self.inst[n.var] = (n.domain, size)
            body = self.quant_body(n.op, n.body, bound | {n.var})  # type: ignore[attr-defined]
            del self.inst[n.var]
            dom = self.emit(n.domain, bound)
            if n.op in ("any", "all") and size is not None and 0 < size <= UNROLL and not (_free(n.domain) & bound):
                # a list of known size: one test per item, joined (no generator to run)
                items = _items(self.emit, n.domain, size)
                return self.bool_join("or" if n.op == "any" else "and",  # type: ignore[attr-defined, no-any-return]
                                      [_bind(body, n.var, items[i], i, self.FOLD, self.FOLDED) for i in range(size)])
            return self.indexed_quantifier(n.op, body, n.var, dom)  # type: ignore[attr-defined, no-any-return]
        if isinstance(n, (A.Not, A.Compare, A.IfElse, A.BinOp, A.Neg, A.Call)):
            was = self.positive
            self.positive = False
            try:
                return super().emit(n, bound)  # type: ignore[misc, no-any-return]
            finally:
                self.positive = was
        return super().emit(n, bound)  # type: ignore[misc, no-any-return]

    @staticmethod
    def _has_group_quant(n: A.Node) -> bool:
        return any(isinstance(x, A.Quant) and isinstance(x.domain, A.Name) and x.domain.id in ("melds", "groups")
                   for x in A.walk(n))


class AtomEmitter(AtomMixin, Emitter):
    """The atom planner writing Python (the generated scorer.py)."""


@dataclass(frozen=True)
class AtomTests:
    """One atom's tests on a group `g`: bound to `var` ("pair", or the
    quantifier's variable), one (test code, bit) per binding of the enclosing
    variables; `ctx` when the tests read the hand context."""

    var: str
    ctx: bool
    tests: tuple[tuple[str, int], ...]


def atom_tests(rs: RuleSet, base: Any = Emitter) -> tuple[AtomPlan, list[str], list[str], list[AtomTests]]:
    """(plan, code of each pattern, code of each conflict's unless, the group
    atoms' tests), written by the target emitter `base`. Raises NotAtomic
    when the rules do not fit."""
    defs = {d.name: (d.params, d.body.ast) for d in rs.definitions}
    fresh = itertools.count()
    plan = AtomPlan()
    em = AtomEmitter(rs, plan) if base is Emitter else type("AtomEmitter", (AtomMixin, base), {})(rs, plan)
    env = Env(scope_vars("decomp", rs.kinds, tuple(f for f, _ in rs.flags)))

    def prep(e: Any) -> A.Node:
        node = inline(e.ast, defs, fresh)
        ch = Checker(env)
        ch.check(node)
        if ch.problems:  # pragma: no cover - the rules were checked before
            raise NotAtomic(ch.problems[0].message)
        plan.types.update(ch.types)
        return node

    nodes = [prep(p.when) for p in rs.patterns]
    unl_nodes = [prep(c.unless) if c.unless is not None else None for p in rs.patterns for c in p.conflicts]
    pats = [em.cond(n) for n in nodes]
    unl = [em.cond(n) if n is not None else em.emit(A.Name(A.Span(0, 0), "false")) for n in unl_nodes]
    body = base(plan.types, set(), flags=tuple(f for f, _ in rs.flags))
    out = []
    for a in plan.atoms:
        bound = frozenset(v for v, _, _ in a.inst) | ({a.var} if a.var != "pair" else frozenset())
        test = body.cond(a.body, bound)
        items = [_items(body.emit, dom, size) for _, dom, size in a.inst]
        # one test per binding of the enclosing variables (their lists have known sizes), bit = base + offset
        tests = []
        for offset, idxs in enumerate(itertools.product(*(range(size) for _, _, size in a.inst))):
            t = test
            for (v, _, _), its, i in zip(a.inst, items, idxs):
                t = _bind(t, v, its[i], i, base.FOLD, base.FOLDED)
            tests.append((t, 1 << (a.base + offset)))
        out.append(AtomTests(a.var, a.ctx, tuple(tests)))
    return plan, pats, unl, out


def plan_atoms(rs: RuleSet) -> tuple[AtomPlan, list[str], list[str], str, str]:
    """(plan, code of each pattern, code of each conflict's unless, code of the
    group-mask bodies for the atoms that read only the group (and what the
    rules fix), and for those that read the hand too), in Python. Raises
    NotAtomic when the rules do not fit."""
    plan, pats, unl, atoms = atom_tests(rs)
    bodies: dict[bool, list[str]] = {False: [], True: []}
    for a in atoms:
        lines = bodies[a.ctx]
        lines.append(f"    {'pair' if a.var == 'pair' else 'v_' + a.var} = g")
        for t, bit in a.tests:
            lines.append(f"    if {t}:")
            lines.append(f"        m |= {bit}")
    return plan, pats, unl, "\n".join(bodies[False]) or "    pass", "\n".join(bodies[True]) or "    pass"
