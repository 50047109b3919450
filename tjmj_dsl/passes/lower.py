"""Resolved document → core IR: schema check, expression parsing and checking,
cross-references. Collects every problem before failing."""

from __future__ import annotations

import hashlib
import os
import re
from typing import Any

from .. import tiles
from ..diagnostics import Diagnostic, RuleError, did_you_mean
from ..engine.contract import MAX_EXACT, PAST_EXACT, REQUEST_FIELDS
from ..expr import ast as A
from ..expr.check import Checker, Env, Problem, _a, bool_hint, definition_uses, int_hint, scope_vars
from ..expr.derived import expand
from ..expr.parser import ExprError, parse
from ..expr.plan import algebra_plan
from ..engine.hand import hun_kinds_of, next_kind
from ..expr.evaluate import Interpreter
from ..expr.vocabulary import ANY, BOOL, DECOMP_VARS, FUNCS, HAND_VARS, HUN_FUNCS, INT, QUANTS, TILE, list_of
from ..ir import Conflict, Definition, Expr, OptionDecl, Pattern, RequestRule, RuleSet
from ..layout import windows_device
from .prose import lower_prose
from .limits import HAND_NAMES, MAX_COST, MAX_PATTERNS, MAX_TOTAL_COST, bound_text, cost, definition_costs, value_bound
from .resolve import Resolved
from .schema import validate
from .settlement import lower_bets, lower_settlement

_DEF_RE = re.compile(r"^([a-z][a-z0-9_]*)\((.*)\)$")
DECOMP_ONLY = set(DECOMP_VARS)


class _Lowering:
    def __init__(self, res: Resolved) -> None:
        self.res = res
        self.data: Any = res.data  # what expressions are read from (_tolerant's copy after schema errors)
        self.diags: list[Diagnostic] = []
        self.def_costs: dict[str, int] = {}  # each definition's cost (passes/limits.py)
        self.total_cost = 0  # the steps of the expressions lowered so far, together
        self.costliest: tuple[int, Any, tuple[Any, ...], int] = (0, None, (), 0)  # (steps, doc, path, length)

    def check_total_cost(self) -> None:
        """The rule set's expressions together within MAX_TOTAL_COST, or an error at the costliest."""
        steps, doc, dpath, length = self.costliest
        if self.total_cost > MAX_TOTAL_COST:
            self._at(doc, dpath, 0, length,
                     f"the rules' expressions together take more than {MAX_TOTAL_COST:,} steps for one decomposition"
                     f" (about {self.total_cost:,}); this one, the costliest, takes about {steps:,}",
                     "simplify the costliest expressions: quantifiers nested over long lists multiply their lengths",
                     "limit")

    def error(self, path: tuple[Any, ...], msg: str, hint: str = "", code: str = "rule", key: bool = False) -> None:
        self.diags.append(Diagnostic("error", code, msg, self.res.where(path, key), hint))

    def expr(self, path: tuple[Any, ...], scope: str, env: Env, want: str = "", what: str = "",
             bound: frozenset[str] = frozenset(), funcs: dict[str, Any] | None = None) -> Expr | None:
        """Parse and check the expression at path; `want` the type its value must have
        ("bool" for a test, "int" for a value), `what` names it in the message. Derived
        attributes (x.own) are written out in the result. self.last_type: its type."""
        self.last_type = ANY
        text = self.data
        for p in path:
            text = text[p]
        text = str(text)
        doc, dpath = self.res.origin(path)
        try:
            node = parse(text)
        except ExprError as e:
            self._at(doc, dpath, e.start, e.end, e.message, e.hint, "syntax")
            return None
        except tiles.TileError as e:  # a tile literal such as 0m
            self._at(doc, dpath, 0, len(text), e.message, e.hint, "syntax")
            return None
        steps = cost(node, self.def_costs)
        if steps > MAX_COST:
            self._at(doc, dpath, 0, len(text),
                     f"this expression takes more than {MAX_COST:,} steps for one decomposition"
                     f" (about {steps:,}, counting what its definitions and quantifiers repeat)",
                     "quantifiers nested over long lists multiply their lengths, and a definition that calls another"
                     " twice doubles the work at each level; simplify it", "limit")
            return None
        self.total_cost += steps
        if steps > self.costliest[0]:
            self.costliest = (steps, doc, dpath, len(text))
        ch = Checker(env, funcs=funcs)
        t = ch.check(node)
        if scope != "decomp":  # a hand-level expression may not call a definition that reads a decomposition
            for n in A.walk(node):
                if isinstance(n, A.Call) and env.def_scope.get(n.func) == "decomp":
                    ch.problems.append(Problem(n.span.start, n.span.end,
                                               f"{n.func}() reads the decomposition, which a {scope} expression does not have",
                                               "", "scope"))
        if not ch.problems and want == BOOL and t not in (BOOL, ANY):
            ch.problems.append(Problem(0, len(text), f"{what} must be true or false; this is {_a(t)}", bool_hint(t),
                                       "type"))
        if not ch.problems and want == INT and t not in (INT, ANY):
            ch.problems.append(Problem(0, len(text), f"{what} must be a number; this is {_a(t)}", int_hint(t), "type"))
        if not ch.problems:
            node = expand(node, ch.problems, bound)
        if not ch.problems:  # every number on the way exact in every backend (the algebra's and tables' own checks
            # know the patterns' values; here the hand's own numbers and the literals)
            top = value_bound(node, HAND_NAMES, {})
            if top is not None and top > MAX_EXACT:
                ch.problems.append(Problem(0, len(text), f"{what or 'this expression'} can reach {bound_text(top)}, "
                                           f"more than {PAST_EXACT}", "smaller numbers: the Python and JavaScript "
                                           "scorers must compute every value on the way exactly", "limit"))
        for pr in ch.problems:
            self._at(doc, dpath, pr.start, pr.end, pr.message, pr.hint, pr.code)
        self.last_type = t
        return Expr(text, node, scope, doc.pos(dpath))

    def _at(self, doc: Any, dpath: tuple[Any, ...], start: int, end: int, msg: str, hint: str, code: str) -> None:
        try:
            s = doc.expr_offset(dpath, start)
            e = doc.expr_offset(dpath, max(start, end - 1)) + 1
        except (KeyError, TypeError):
            self.diags.append(Diagnostic("error", code, msg, doc.pos(dpath), hint))
            return
        self.diags.append(Diagnostic("error", code, msg, doc.pos_of_offset(s, e), hint))


def source_sha256(res: Resolved) -> str:
    """What answers name: the sha256 of a rule file's text (`sha256sum FILE`); for an
    overlay, of the texts it extends and its own one after another, the base
    first (`cat BASE OVERLAY | sha256sum`), whatever the paths they were read by."""
    sha = hashlib.sha256()
    for doc in res.files.values():  # in the order read: the base, then each file extending it
        sha.update(doc.text.encode("utf-8"))
    return sha.hexdigest()


def lower(res: Resolved) -> RuleSet:
    d = res.data
    lw = _Lowering(res)
    lw.diags.extend(validate(d, res.where))
    if not _lowerable(d):  # too broken to look further: report the schema errors
        raise RuleError(lw.diags, res.sources())
    # keep looking past schema errors, so a file's mistakes come all at once; the
    # stand-ins _tolerant puts in place of malformed entries never reach a scorer
    # (there are diagnostics, so lowering ends in a RuleError), and a file the
    # schema accepts is lowered as written
    if lw.diags:
        d = lw.data = _tolerant(d)

    kinds = tuple(d["pattern_kinds"])
    flags = tuple(str(k) for k in (d.get("request_flags") or {}))
    for f in flags:  # a flag is a field of the request: it cannot be one the contract already has
        if f in REQUEST_FIELDS:
            lw.error(("request_flags", f), f"a request flag named {f!r} would be the request's own field {f!r}",
                     "give the flag a name of its own (request fields: " + ", ".join(REQUEST_FIELDS) + ")", key=True)
    # definitions: names first, so bodies may call each other
    def_params: dict[str, tuple[str, ...]] = {}
    def_keys: dict[str, str] = {}
    for key in d.get("definitions") or {}:
        m = _DEF_RE.match(key)
        assert m is not None  # the schema checked the form
        name, params = m.group(1), tuple(p.strip() for p in m.group(2).split(",") if p.strip())
        if name in def_params:
            lw.error(("definitions", key), f"definition {name!r} is given twice", key=True)
        reserved = _reserved(kinds, flags)
        if name in reserved:
            lw.error(("definitions", key), f"a definition named {name!r} would hide the {reserved[name]} {name!r}",
                     "give it a name of its own", key=True)
        for i, prm in enumerate(params):
            if prm in params[:i]:
                lw.error(("definitions", key), f"parameter {prm!r} is given twice", "name each parameter once", key=True)
            elif prm in reserved:
                lw.error(("definitions", key), f"parameter {prm!r} would hide the {reserved[prm]} {prm!r}",
                         "give it a name of its own", key=True)
        def_params[name] = params
        def_keys[name] = key
    def_scope: dict[str, str] = {}
    bodies: dict[str, A.Node] = {}
    for name, key in def_keys.items():
        try:
            bodies[name] = parse(str(d["definitions"][key]))
        except (ExprError, tiles.TileError):
            pass  # reported below
    # a definition needs the decomposition if it, or one it calls, reads it
    for name in def_keys:
        seen, stack = set(), [name]
        while stack:
            x = stack.pop()
            if x in seen or x not in bodies:
                continue
            seen.add(x)
            if any(isinstance(n, A.Name) and n.id in DECOMP_ONLY for n in A.walk(bodies[x])):
                def_scope[name] = "decomp"
            stack.extend(definition_uses(bodies[x]))
        def_scope.setdefault(name, "hand")
    _check_cycles(lw, bodies, def_keys)
    lw.def_costs = definition_costs(bodies, {k: definition_uses(v) for k, v in bodies.items()})
    defs_n = {k: len(v) for k, v in def_params.items()}

    def_types: dict[str, str] = {}

    def env(scope: str, extra: dict[str, str] | None = None) -> Env:
        return Env({**scope_vars(scope, kinds, flags), **(extra or {})}, defs_n if scope not in ("algebra", "win") else {},
                   def_scope, def_types)

    definitions = []
    for name in _callees_first(bodies, def_keys):  # a call's type is its body's: those called first
        key = def_keys[name]
        e = lw.expr(("definitions", key), "decomp", env("decomp", {p: "any" for p in def_params[name]}),
                    bound=frozenset(def_params[name]))
        def_types[name] = lw.last_type
        if e is not None:
            definitions.append(Definition(name, def_params[name], e))
    definitions.sort(key=lambda x: list(def_keys).index(x.name))

    pats = d["patterns"]
    enabled = [pid for pid, p in pats.items() if p.get("enabled", True)]
    if len(enabled) > MAX_PATTERNS:
        lw.error(("patterns", enabled[MAX_PATTERNS]), f"{len(enabled)} patterns in play; a rule set has at most "
                 f"{MAX_PATTERNS} (this one is the {MAX_PATTERNS + 1}th)",
                 "each is evaluated on every decomposition `check` searches (a pattern is dropped with "
                 "`enabled: false`, or `null` in an overlay)", "limit", key=True)
    # a pattern that requires a disabled one (or one dropped so) can never be claimed: it is
    # left out, and `tjmj check` says so (a warning a designer may silence with a reason)
    unclaimable: dict[str, str] = {}
    while True:
        more = {pid: r for pid in enabled if pid not in unclaimable for r in pats[pid].get("requires") or []
                if r in pats and (r not in enabled or r in unclaimable)}
        if not more:
            break
        unclaimable.update(more)
    patterns = []
    for pid in enabled:
        p = pats[pid]
        base = ("patterns", pid)
        if p["kind"] not in kinds:
            lw.error(base + ("kind",), f"unknown pattern kind {p['kind']!r}",
                     did_you_mean(p["kind"], kinds) or "kinds: " + ", ".join(kinds))
        when = lw.expr(base + ("when",), "decomp", env("decomp"), BOOL, f"the `when` of pattern {pid}")
        for i, r in enumerate(p.get("requires") or []):
            if r not in pats:
                lw.error(base + ("requires", i), f"no pattern {r!r}", did_you_mean(r, list(pats)))

        conflicts = []
        for i, c in enumerate(p.get("conflicts") or []):
            if c["with"] not in pats:
                lw.error(base + ("conflicts", i, "with"), f"no pattern {c['with']!r}", did_you_mean(c["with"], list(pats)))
                continue
            if c["with"] not in enabled or c["with"] in unclaimable:
                continue
            unless = lw.expr(base + ("conflicts", i, "unless"), "decomp", env("decomp"), BOOL,
                             "a conflict's `unless`") if "unless" in c else None
            conflicts.append(Conflict(c["with"], unless, str(c.get("description", ""))))
        if when is not None and pid not in unclaimable:
            patterns.append(Pattern(pid, p["name"], tuple(p.get("aka") or ()), p.get("gloss", ""), p["kind"], p["value"],
                                    when, tuple(p.get("requires") or ()), tuple(conflicts), p["description"], p["source"]))

    for pid, p in pats.items():  # a disabled pattern's `when` is checked too: the option that enables it must not
        if pid not in enabled:     # be the first to find it ill-typed
            lw.expr(("patterns", pid, "when"), "decomp", env("decomp"), BOOL, f"the `when` of pattern {pid}")
    algebra = lw.expr(("algebra",), "algebra", env("algebra"), INT, "the algebra")
    if algebra is not None:
        try:
            algebra_plan(algebra.ast)  # the plan both engines render the formula by: refused here, not a traceback later
        except ValueError as err:
            lw.error(("algebra",), f"algebra: {err}", PLAN_HINT)
            algebra = None
    win_when = _win_when(lw, d, env("win"))
    # patterns that free the winning tile must be decidable before decomposing
    free_parts = []
    for pid in enabled:
        if pats[pid].get("any_winning_tile") and pid not in unclaimable:
            e = lw.expr(("patterns", pid, "when"), "hand", env("hand"))
            if e is not None:
                free_parts.append(e.ast)
    free = None
    if free_parts:
        node = free_parts[0] if len(free_parts) == 1 else A.BoolOp(A.Span(0, 0), "or", tuple(free_parts))
        free = Expr(" or ".join(A.show(x) for x in free_parts), node, "hand")
    fan_bound = _bound_algebra(lw, algebra, patterns, kinds)
    table = d["score_table"]
    total = None
    if table not in d["score_tables"]:
        lw.error(("score_table",), f"no score table {table!r}", did_you_mean(table, list(d["score_tables"]))
                 or "tables: " + ", ".join(d["score_tables"]))
    all_tables = []
    for tid in d["score_tables"]:  # every table is checked, the one in force kept
        e = lw.expr(("score_tables", tid), "total", env("total"), INT, f"score table {tid}")
        if e is not None:
            all_tables.append((str(tid), e))
            if fan_bound is not None:
                top = value_bound(e.ast, {**HAND_NAMES, "fan": fan_bound, "kong_points": max(
                    [abs(v) for v in (d.get("kong_points") or {}).values() if isinstance(v, int)] or [0])}, {})
                if top is not None and top > MAX_EXACT:
                    lw.error(("score_tables", tid), f"score table {tid} can reach {bound_text(top)}, more than "
                             f"{PAST_EXACT}", "smaller pattern values or kong points")
        if tid == table:
            total = e
    rules = []
    for rid, r in (d.get("request_rules") or {}).items():
        if not r.get("enabled", True):
            continue
        e = lw.expr(("request_rules", rid, "error_when"), "hand", env("hand"), BOOL,
                    f"the `error_when` of request rule {rid}")
        if e is not None:
            rules.append(RequestRule(rid, e, r["message"], r.get("source", "")))

    cycles = []
    cycle_of: dict[int, int] = {}  # honor kind → its cycle
    for i, cyc in enumerate(d["hun"]["cycles"]):
        try:
            cycles.append(tuple(tiles.parse_tile(str(x)) for x in cyc))
        except tiles.TileError as e:
            lw.error(("hun", "cycles", i), e.message, e.hint)
            continue
        for j, k in enumerate(cycles[-1]):  # the suits wrap 9→1 by themselves; the honors follow the cycles
            if k < 27:
                lw.error(("hun", "cycles", i, j), f"{tiles.name(k)} is a suit tile; the cycles order the honors",
                         "a suit's tiles follow each other and 9 wraps to 1: list only E S W N C F P here")
            elif k in cycle_of:
                lw.error(("hun", "cycles", i, j), f"{tiles.name(k)} is in {'this' if cycle_of[k] == i else 'another'} "
                         "cycle already", "each honor in one cycle, once: it has one next tile")
            else:
                cycle_of[k] = i
    missing = [tiles.name(k) for k in range(27, 34) if k not in cycle_of]
    if missing and isinstance(d["hun"].get("cycles"), list) and len(cycles) == len(d["hun"]["cycles"]):
        lw.error(("hun", "cycles"), f"no cycle holds {' '.join(missing)}: the next tile of an honor indicator "
                 "would be itself, silently one hun kind fewer", "e.g. [[E, S, W, N], [C, F, P]]; [P] alone makes "
                 "an honor its own next tile")
    hun_table = _hun_table(lw, d, tuple(cycles))
    options = []
    for oid, o in (d.get("options") or {}).items():
        choices = tuple(o["choices"]) if "choices" in o else tuple(o.get("values") or ())
        options.append(OptionDecl(oid, o.get("name", ""), o["description"], o["default"], choices,
                                  o.get("acts_on", "scoring"), o.get("source", "")))
    settlement = lower_settlement(lw, d)
    bets = lower_bets(lw, d)
    prose = lower_prose(res, d, lw.diags)
    lw.check_total_cost()
    if lw.diags:
        raise RuleError(sorted(lw.diags, key=lambda x: (x.pos.file, x.pos.line, x.pos.col) if x.pos else ("", 0, 0)),
                        res.sources())
    assert algebra is not None and total is not None
    any_ids = _any_ids(d)
    name = str(d.get("name", "rules"))
    if res.top is not None and res.top is not res.base and "name" not in (res.top.data or {}):
        # an overlay without a name of its own must not write over its base's outputs
        inherited = name
        stem = os.path.splitext(os.path.basename(res.top_path))[0]
        name = re.sub(r"[^a-z0-9_]", "_", stem.lower()).strip("_")
        if not name:  # a stem with no ASCII letter or digit (a Chinese one), _.yaml: a folder name of the file's own, one compile writes
            name = "overlay_" + hashlib.sha256(stem.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        if name == inherited:  # Tianjin.yaml, _tianjin.yaml over tianjin: not the base's own folder
            name += "_overlay"
        if windows_device(name):  # con.yaml: its outputs' folder must be one Windows can make
            name += "_"
    elif windows_device(name):
        raise RuleError([Diagnostic("error", "name", f"the rule set's name {name!r} is its outputs' folder, a name "
                                    "Windows keeps for a device (no such folder can be made there)",
                                    res.where(("name",)), "give the rule set another name")], res.sources())
    return RuleSet(
        name=name, title=d.get("title", ""), source_file=(res.top or res.base).file, source_sha256=source_sha256(res), profile=res.profile,
        choices=tuple(res.choices.items()), hun_count=max(len(r) for r in hun_table), cycles=tuple(cycles),
        hun_table=hun_table,
        chow=bool(d["melds"]["chow"]), copies=d["tiles"]["copies"], suits=tuple(d["tiles"]["suits"]),
        flags=tuple((str(k), str(v)) for k, v in (d.get("request_flags") or {}).items()), min_fan=d["min_fan"], kong_points=tuple(d["kong_points"].items()), kinds=kinds,
        kong_names=tuple((str(k), str(v)) for k, v in (d.get("kong_names") or {}).items()),
        outcome_names=tuple((str(k), str(v)) for k, v in (d.get("outcome_names") or {}).items()),
        kind_docs=tuple(str(v) for v in d["pattern_kinds"].values()), algebra=algebra, win_when=win_when,
        definitions=tuple(definitions), patterns=tuple(patterns), free_when=free, score_table=table, total=total,
        request_rules=tuple(rules), claims=tuple((d.get("claims") or {}).items()),
        play=tuple((d.get("play") or {}).items()), options=tuple(options),
        profiles=tuple((k, v.get("description", "")) for k, v in (d.get("profiles") or {}).items()),
        sources=tuple((d.get("sources") or {}).items()),
        disabled_patterns=tuple(pid for pid in pats if pid not in enabled or pid in unclaimable),
        unclaimable=tuple(unclaimable.items()),
        base_file=str((res.top.data or {}).get("extends", "")) if res.top is not None and res.top is not res.base else "",
        replaced=tuple(res.replaced), score_tables=tuple(all_tables),
        settlement=settlement,
        any_pattern_ids=any_ids[0], any_rule_ids=any_ids[1],
        overrides=tuple(res.overrides.items()),
        prose=prose, bets=bets,
    )


# the winning condition's default form: the least fan (a rule file may write win_when instead)
DEFAULT_WIN = "fan >= min_fan"


DEFAULT_HUNS = "run(indicator, kinds)"  # hun.huns when the file gives none: hun.kinds kinds from the indicator


def _hun_table(lw: _Lowering, d: dict[str, Any], cycles: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    """Each indicator's hun kinds (the indicator's first): hun.huns evaluated for the 34 kinds,
    each answer checked (a list of distinct kinds, the indicator's own first). The runtimes read
    this table; nothing evaluates hun.huns at a table or in a scorer."""
    n = d["hun"]["kinds"]
    fallback = tuple(hun_kinds_of(k, n, cycles) for k in range(34))
    if "huns" not in d["hun"]:
        return fallback
    if not isinstance(d["hun"]["huns"], str):
        lw.error(("hun", "huns"), "hun.huns is an expression of the indicator, written as a string",
                 f'e.g. huns: "{DEFAULT_HUNS}"')
        return fallback
    before = len(lw.diags)
    e = lw.expr(("hun", "huns"), "huns", Env(scope_vars("huns")), what="hun.huns", funcs=HUN_FUNCS)
    if e is None or len(lw.diags) > before or lw.last_type not in (list_of(TILE), list_of(ANY), ANY):
        if e is not None and len(lw.diags) == before:
            lw.error(("hun", "huns"), f"hun.huns must give a list of tiles; this gives {_a(lw.last_type)}",
                     f'e.g. "{DEFAULT_HUNS}", "[indicator, next(indicator)]" or "cycle(indicator)"')
        return fallback
    it = Interpreter({}, {}, {"next": lambda k: next_kind(k, cycles),
                              "run": lambda k, m: list(hun_kinds_of(k, m, cycles)) if m > 0 else [],
                              "cycle": lambda k: list(hun_kinds_of(k, 34, cycles))})  # back to k: its whole order
    rows = []
    for k in range(34):
        try:
            got = it.eval(e.ast, {"indicator": k, "kinds": n, "true": True, "false": False})
        except (TypeError, ValueError, IndexError, RecursionError) as x:  # e.g. len() of a tile: the checker's ANY
            lw.error(("hun", "huns"), f"for the indicator {tiles.name(k)} hun.huns cannot be evaluated: "
                     f"{str(x) or type(x).__name__}", "len() counts a list; run(k, n) wants a tile and a number")
            return fallback
        kinds = list(got) if isinstance(got, (list, tuple)) else None
        why = ("it is not a list of tiles" if kinds is None or not all(isinstance(x, int) and not isinstance(x, bool)
                                                                        and 0 <= x < 34 for x in kinds)
               else "no kind at all" if not kinds
               else f"{tiles.name(kinds[0])} first: the indicator's own kind must come first (it is a hun, and "
                    "the one the wall keeps)" if kinds[0] != k
               else f"{tiles.name(next(x for i, x in enumerate(kinds) if x in kinds[:i]))} twice"
               if len(set(kinds)) < len(kinds) else "")
        if why:
            shown = repr(got) if why.startswith("it is not") else "[" + " ".join(tiles.name(x) for x in kinds or ()) + "]"
            lw.error(("hun", "huns"), f"for the indicator {tiles.name(k)} hun.huns gives {shown}: {why}",
                     "the hun kinds of an indicator: the indicator's kind, then the others once each, "
                     f'e.g. "{DEFAULT_HUNS}"')
            return fallback
        rows.append(tuple(kinds or ()))
    return tuple(rows)


PLAN_HINT = ("use the pattern kinds, numbers, arithmetic, comparisons, and/or/not, x if c else y, and "
             "sum/product/len/min/max of a kind or of a list (a cap: min([..., 16])); win_when also fan and min_fan")


def _win_when(lw: Any, d: dict[str, Any], env: Env) -> Expr | None:
    """The rule file's win_when, checked in the win scope (None: absent or its default form, fan >= min_fan).
    Like the algebra it is evaluated by the algebra's plan: a construct that plan cannot take is an error here."""
    if "win_when" not in d or str(d["win_when"]).strip() == DEFAULT_WIN:
        return None
    e = lw.expr(("win_when",), "win", env, BOOL, "the winning condition")
    if e is None:
        return None
    try:
        algebra_plan(e.ast, "the winning condition")  # the plan both engines evaluate
    except ValueError as err:
        lw.error(("win_when",), f"win_when: {err}", PLAN_HINT)
        return None
    return e


def _bound_algebra(lw: Any, algebra: Expr | None, patterns: list[Pattern], kinds: Any) -> int | None:
    """The largest fan the algebra can give (every pattern of a kind claimed at
    once), reported when over MAX_EXACT; None when it cannot be told."""
    if algebra is None:
        return None
    lists = {}
    for k in kinds:
        values = [abs(p.value) for p in patterns if p.kind == k]
        lists[k] = (len(values), max(values, default=0))
    top = value_bound(algebra.ast, {}, lists)
    if top is not None and top > MAX_EXACT:
        kinds_said = ", ".join(f"{n} {k} pattern{'s' if n != 1 else ''} worth up to {v}" for k, (n, v) in lists.items() if n)
        # said at the algebra, or, when an overlay left the base's algebra and set pattern values, at the
        # largest of those (where the overlay made the fan large, not in the file it extends)
        where: tuple[str, ...] = ("algebra",)
        top_doc = lw.res.top
        if top_doc is not None and lw.res.origin(where)[0] is not top_doc:
            mine = [p for p in patterns if lw.res.origin(("patterns", p.id, "value"))[0] is top_doc]
            if mine:
                where = ("patterns", max(mine, key=lambda p: abs(p.value)).id, "value")
        lw.error(where, f"the algebra can reach {bound_text(top)} with every pattern claimed at once "
                 f"({kinds_said}), more than {PAST_EXACT}", "smaller pattern values or constants, or fewer patterns")
        return None
    return top


def _any_ids(d: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(pattern ids, request and outcome rule ids) the rule file declares, in force
    or not, and those an option's choice patches: the ids an answer may carry
    when a request names its own profile or options."""
    pats = dict.fromkeys(str(k) for k in d.get("patterns") or {})
    settlement: dict[str, Any] = d["settlement"] if isinstance(d.get("settlement"), dict) else {}
    rules = dict.fromkeys([str(k) for k in d.get("request_rules") or {}]
                          + [str(k) for k in settlement.get("outcome_rules") or {}])
    patches = [(str(path).split("."), value) for o in (d.get("options") or {}).values() if isinstance(o, dict)
               for c in (o.get("choices") or {}).values() if isinstance(c, dict)
               for path, value in (c.get("set") or {}).items()]
    for parts, value in patches:
        pats.update(dict.fromkeys(_ids_set(parts, value, ("patterns",))))
        rules.update(dict.fromkeys(_ids_set(parts, value, ("request_rules",))))
        rules.update(dict.fromkeys(_ids_set(parts, value, ("settlement", "outcome_rules"))))
    return tuple(pats), tuple(rules)


def _ids_set(parts: list[str], value: Any, section: tuple[str, ...]) -> list[str]:
    """The ids of `section` an option's patch of path `parts` names: a path into the
    section names one; a path above it sets the whole section, and holds its ids."""
    n = len(section)
    if tuple(parts[:n]) == section and len(parts) > n:
        return [parts[n]]
    if tuple(parts) != section[:len(parts)]:
        return []
    for key in section[len(parts):]:
        value = value.get(key) if isinstance(value, dict) else None
    return [str(k) for k in value] if isinstance(value, dict) else []


def _reserved(kinds: tuple[str, ...], flags: tuple[str, ...]) -> dict[str, str]:
    """The names a definition or its parameters may not take (what each is)."""
    out = {k: "pattern kind" for k in kinds}
    out.update({f: "request flag" for f in flags})
    out.update({v: "name" for v in (*HAND_VARS, *DECOMP_VARS, "fan", "kong_points", "true", "false", "none")})
    out.update({q: "quantifier" for q in QUANTS})
    out.update({f: "function" for f in FUNCS})
    return out


def _lowerable(d: Any) -> bool:
    need = {"pattern_kinds": dict, "patterns": dict, "algebra": str, "score_tables": dict, "hun": dict,
            "melds": dict, "tiles": dict, "kong_points": dict}
    return isinstance(d, dict) and all(isinstance(d.get(k), t) for k, t in need.items())


def _tolerant(d: dict[str, Any]) -> dict[str, Any]:
    """A copy where malformed entries (already reported by the schema) are
    dropped or defaulted, so the remaining checks can run. Used only when
    there are schema errors: its defaults must never make a scorer."""
    d = dict(d)
    pats = {}
    for pid, p in d["patterns"].items():
        if isinstance(p, dict):
            p = dict(p)
            p.setdefault("name", pid)
            p.setdefault("description", "")
            p.setdefault("source", "")
            if not isinstance(p.get("kind"), str):
                p["kind"] = next(iter(d["pattern_kinds"]), "")
            if not isinstance(p.get("value"), int):
                p["value"] = 0
            if not isinstance(p.get("when"), str):
                p["when"] = "false"
            for k in ("requires", "conflicts", "aka"):
                if not isinstance(p.get(k, []), list):
                    p[k] = []
            p["conflicts"] = [c for c in p.get("conflicts") or [] if isinstance(c, dict) and isinstance(c.get("with"), str)]
            p["requires"] = [r for r in p.get("requires") or [] if isinstance(r, str)]
            pats[pid] = p
    d["patterns"] = pats
    d["definitions"] = {k: v for k, v in (d.get("definitions") or {}).items()
                        if isinstance(v, str) and _DEF_RE.match(str(k))} if isinstance(d.get("definitions"), dict) else {}
    d["request_rules"] = {k: v for k, v in (d.get("request_rules") or {}).items()
                          if isinstance(v, dict) and isinstance(v.get("error_when"), str)} \
        if isinstance(d.get("request_rules"), dict) else {}
    for rid, r in d["request_rules"].items():
        r.setdefault("message", rid)
    if not isinstance(d.get("score_table"), str):
        d["score_table"] = next(iter(d["score_tables"]), "")
    if not isinstance(d["hun"].get("kinds"), int):
        d["hun"] = {**d["hun"], "kinds": 2}
    if not isinstance(d["hun"].get("cycles"), list):
        d["hun"] = {**d["hun"], "cycles": []}
    if not isinstance(d.get("min_fan"), int):
        d["min_fan"] = 0
    return d


def _callees_first(bodies: dict[str, A.Node], keys: dict[str, str]) -> list[str]:
    """The definitions, each after those it calls (a cycle, reported elsewhere, is cut)."""
    out: list[str] = []
    state: dict[str, int] = {}

    def visit(n: str) -> None:
        if state.get(n):
            return
        state[n] = 1
        for m in sorted(definition_uses(bodies[n])) if n in bodies else ():
            if m in keys:
                visit(m)
        out.append(n)

    for n in keys:
        visit(n)
    return out


def _check_cycles(lw: _Lowering, bodies: dict[str, A.Node], keys: dict[str, str]) -> None:
    state: dict[str, int] = {}

    def visit(n: str, trail: list[str]) -> None:
        if state.get(n) == 2 or n not in bodies:
            return
        if state.get(n) == 1:
            lw.error(("definitions", keys[n]), "definitions call each other in a circle: " + " → ".join(trail + [n]),
                     "expressions cannot recurse", key=True)
            return
        state[n] = 1
        for m in sorted(definition_uses(bodies[n])):
            visit(m, trail + [n])
        state[n] = 2

    for n in bodies:
        visit(n, [])
