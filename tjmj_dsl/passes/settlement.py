"""Lowering of the `settlement:` section: definitions with typed parameters,
payment rules, outcome rules and the rotation the play value `dealer_rotation`
picks. Every expression is parsed and type-checked against the settlement's
vocabulary (expr/settle.py); problems are positioned in the rule file."""

from __future__ import annotations

import re
from typing import Any, Protocol

from .. import tiles
from ..diagnostics import did_you_mean
from ..expr import ast as A
from ..expr.check import Env, definition_uses
from ..expr.parser import ExprError, parse
from ..expr import bets as B
from ..expr.settle import BOUND, KONG, PARAM_TYPES, SEAT, SETTLE_VARS, amount_terms, checker, settle_env
from ..expr.vocabulary import ANY, BOOL, INT, elem, list_of
from ..ir import Expr, OutcomeRule, Payment, Rotation, SettleDefinition, Settlement
from .limits import MAX_OUTCOME_COST, cost, definition_costs, size

from .resolve import Resolved


class _Lowering(Protocol):
    """What this pass asks of passes/lower.py's lowering (a protocol, so that this module does not
    import the one that imports it)."""

    res: Resolved

    def error(self, path: tuple[Any, ...], msg: str, hint: str = "", code: str = "rule", key: bool = False) -> None: ...

    def _at(self, doc: Any, dpath: tuple[Any, ...], start: int, end: int, msg: str, hint: str, code: str) -> None: ...

_DEF_RE = re.compile(r"^([a-z][a-z0-9_]*)\((.*)\)$")
_FOR_RE = re.compile(r"^(\s*)([a-z][a-z0-9_]*)(\s+in\s+)(.*)$", re.S)
_NAME_RE = re.compile(r"[a-z][a-z0-9_]*")
SEAT_TYPES = (SEAT, SEAT + "?", list_of(SEAT), ANY)


def definition_head(key: str) -> tuple[str, list[tuple[str, str]]] | None:
    """A settlement definition's key `name(a: seat, b: seat)`: its name and its (parameter, type) pairs as
    written, a parameter whose name is not a plain name left out; None for a key that is no definition's (the
    schema reports both)."""
    m = _DEF_RE.match(key)
    if not m:
        return None
    params = []
    for part in (x.strip() for x in m.group(2).split(",") if x.strip()):
        pname, _, ptype = (y.strip() for y in part.partition(":"))
        if _NAME_RE.fullmatch(pname):
            params.append((pname, ptype))
    return m.group(1), params


def _expr(lw: _Lowering, path: tuple[Any, ...], env: Env, want: tuple[str, ...], what: str,
          offset: int = 0, make_checker: Any = checker, scope: str = "settle") -> tuple[Expr | None, str]:
    """Parse and check the expression at `path` (from character `offset` on);
    (Expr, its type), or (None, "") after reporting the problem."""
    node_text = lw.res.data
    for p in path:
        node_text = node_text[p]
    full = str(node_text)
    text = full[offset:]
    doc, dpath = lw.res.origin(path)
    try:
        node = parse(text)
    except ExprError as e:
        lw._at(doc, dpath, offset + e.start, offset + e.end, e.message, e.hint, "syntax")
        return None, ""
    except tiles.TileError as e:
        lw._at(doc, dpath, offset, len(full), e.message, e.hint, "syntax")
        return None, ""
    ch = make_checker(env)
    t = ch.check(node)
    for pr in ch.problems:
        lw._at(doc, dpath, offset + pr.start, offset + pr.end, pr.message, pr.hint, pr.code)
    if not ch.problems and want and t not in want and ANY not in (t,):
        lw._at(doc, dpath, offset, len(full), f"{what} must be {' or '.join(want[:3])}, this is {t}", "", "type")
    return Expr(text, node, scope, doc.pos(dpath)), t


def _bounded(lw: _Lowering, path: tuple[Any, ...], node: A.Node, costs: dict[str, int], steps: int | None = None) -> bool:
    """Whether the expression at path takes at most MAX_OUTCOME_COST steps for one outcome (the
    patterns' bound; `steps`: what its payment rule repeats, when given): else an error there.
    Definitions that call each other twice at each level, or quantifiers nested over long
    lists, would hold check and every settle() for ever."""
    steps = cost(node, costs) if steps is None else steps
    if steps <= MAX_OUTCOME_COST:
        return True
    lw.error(path, f"this expression takes more than {MAX_OUTCOME_COST:,} steps for one outcome (about {steps:,}, counting "
                   "what its definitions and quantifiers repeat)",
             "quantifiers nested over long lists multiply their lengths, and a definition that calls another"
             " twice doubles the work at each level; simplify it", code="limit")
    return False


def lower_settlement(lw: _Lowering, d: dict[str, Any]) -> Settlement | None:
    st = d.get("settlement")
    if not isinstance(st, dict):
        return None
    play = {str(k): v for k, v in (d.get("play") or {}).items() if isinstance(v, (bool, int, str))} \
        if isinstance(d.get("play"), dict) else {}
    for k in play:
        if k in SETTLE_VARS or k in BOUND:
            lw.error(("play", k), f"play value {k!r} has the name of an outcome value the settlement reads",
                     "rename the play value", key=True)

    # definitions: names and parameter types first, so bodies may call each other
    heads: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {}
    for key in st.get("definitions") or {}:
        head = definition_head(str(key))
        if head is None:
            continue  # the schema reported it
        dname, written = head
        params: list[tuple[str, str]] = []
        for pname, ptype in written:
            if ptype not in PARAM_TYPES:
                lw.error(("settlement", "definitions", key), f"unknown parameter type {ptype!r}",
                         did_you_mean(ptype, PARAM_TYPES) or "types: " + ", ".join(PARAM_TYPES), key=True)
                ptype = ANY
            params.append((pname, ptype))
        if dname in heads:
            lw.error(("settlement", "definitions", key), f"definition {dname!r} is given twice", key=True)
        heads[dname] = (str(key), tuple(params))
    ndefs = {name: len(ps) for name, (_, ps) in heads.items()}
    definitions = []
    bodies: dict[str, A.Node] = {}
    for name, (key, typed) in heads.items():
        entry = st["definitions"][key]
        if not isinstance(entry, dict) or not isinstance(entry.get("value"), str):
            continue
        e, _ = _expr(lw, ("settlement", "definitions", key, "value"), settle_env(play, ndefs, dict(typed)), (), "")
        if e is not None:
            bodies[name] = e.ast
            definitions.append(SettleDefinition(name, typed, e, str(entry.get("name", name)), str(entry.get("gloss", "")),
                                                str(entry.get("description", "")), str(entry.get("source", ""))))
    _cycles(lw, bodies, {n: k for n, (k, _) in heads.items()})
    costs = definition_costs(bodies, {k: definition_uses(v) for k, v in bodies.items()})
    for name, (key, _) in heads.items():
        if name in bodies and not _bounded(lw, ("settlement", "definitions", key, "value"), bodies[name], costs):
            definitions = [x for x in definitions if x.name != name]

    payments = []
    for pid, p in (st.get("payments") or {}).items():
        if not isinstance(p, dict) or not p.get("enabled", True):
            continue
        base = ("settlement", "payments", pid)
        need = [k for k in ("from", "to", "amount") if not isinstance(p.get(k), str)]
        if need:
            continue  # the schema reported it
        var, items = None, None
        extra: dict[str, str] = {}
        if isinstance(p.get("for"), str):
            m = _FOR_RE.match(p["for"])
            if m is None:
                lw.error(base + ("for",), "`for` is `name in LIST`", "e.g. for: \"k in kongs\"")
                continue
            var = m.group(2)
            if var in SETTLE_VARS or var in BOUND or var in play:
                lw.error(base + ("for",), f"{var!r} is already a name of the settlement", "pick another name")
            items, t = _expr(lw, base + ("for",), settle_env(play, ndefs), (), "", offset=m.end(3))
            et = elem(t.rstrip("?")) if t else None
            if items is not None and et is None:
                lw.error(base + ("for",), f"`for` needs a list, this is {t}")
            extra[var] = et or ANY
        when = None
        if "when" in p:
            when, _ = _expr(lw, base + ("when",), settle_env(play, ndefs, extra), (BOOL,), "when")
        payer, _ = _expr(lw, base + ("from",), settle_env(play, ndefs, extra), SEAT_TYPES, "from")
        payee, _ = _expr(lw, base + ("to",), settle_env(play, ndefs, extra), SEAT_TYPES, "to")
        amount, _ = _expr(lw, base + ("amount",), settle_env(play, ndefs, {**extra, "payer": SEAT, "payee": SEAT}),
                          (INT,), "amount")
        if payer is None or payee is None or amount is None:
            continue
        # once per item (`for`), and the amount once per payer and payee (at most 4 × 4)
        each = sum(cost(e.ast, costs) for e in (when, payer, payee) if e is not None) + 16 * cost(amount.ast, costs)
        times = size(items.ast) if items is not None else 1
        if not _bounded(lw, base + ("amount",), amount.ast, costs,
                        (cost(items.ast, costs) if items is not None else 0) + times * each):
            continue
        terms = tuple((n.span.start, n.span.end) for n in amount_terms(amount.ast))
        payments.append(Payment(pid, str(p.get("name", pid)), str(p.get("gloss", "")), str(p.get("reason", pid)), var,
                                items, when, payer, payee, amount, terms, str(p.get("description", "")),
                                str(p.get("source", ""))))

    rules = []
    for rid, r in (st.get("outcome_rules") or {}).items():
        if not isinstance(r, dict) or not r.get("enabled", True) or not isinstance(r.get("error_when"), str):
            continue
        e, _ = _expr(lw, ("settlement", "outcome_rules", rid, "error_when"), settle_env(play, ndefs), (BOOL,),
                     "error_when")
        if e is not None and _bounded(lw, ("settlement", "outcome_rules", rid, "error_when"), e.ast, costs):
            rules.append(OutcomeRule(rid, e, str(r.get("field", "")), str(r.get("message", rid)), str(r.get("source", ""))))

    rotations: dict[str, Any] = st["rotations"] if isinstance(st.get("rotations"), dict) else {}
    chosen = play.get("dealer_rotation")
    rotation = None
    if chosen not in rotations:
        lw.error(("play", "dealer_rotation") if "dealer_rotation" in play else ("settlement", "rotations"),
                 f"play.dealer_rotation {chosen!r} names none of settlement.rotations",
                 did_you_mean(str(chosen), list(rotations)) or "rotations: " + ", ".join(map(str, rotations)),
                 key="dealer_rotation" not in play)
    else:
        r = rotations[chosen]
        if isinstance(r, dict) and isinstance(r.get("next_dealer"), str):
            e, _ = _expr(lw, ("settlement", "rotations", chosen, "next_dealer"), settle_env(play, ndefs),
                         (SEAT,), "next_dealer")
            if e is not None and _bounded(lw, ("settlement", "rotations", chosen, "next_dealer"), e.ast, costs):
                rotation = Rotation(str(chosen), str(r.get("name", chosen)), str(r.get("gloss", "")), e,
                                    str(r.get("description", "")), str(r.get("source", "")))
    if rotation is None:
        return None
    ends, total = _kong_win(lw, play, ndefs, costs)
    return Settlement(tuple(definitions), tuple(payments), tuple(rules), rotation, tuple(sorted(play.items())), ends, total)


KONG_WIN_KEYS = (("kong_ends_hand", (BOOL,), "play.kong_ends_hand"), ("kong_win_total", (INT,), "play.kong_win_total"))


def _kong_win(lw: _Lowering, play: dict[str, Any], ndefs: dict[str, int],
              costs: dict[str, int]) -> tuple[Expr | None, Expr | None]:
    """play.kong_ends_hand (true or false) and play.kong_win_total (a number), expressions over the kong `k`
    just made in the settlement's words; an empty or absent kong_ends_hand: no kong ends the hand (and the
    total is not read)."""
    out: list[Expr | None] = []
    for key, want, what in KONG_WIN_KEYS:
        v = play.get(key)
        if v is None or v == "" or (key == "kong_win_total" and not out[0]):
            out.append(None)
            continue
        if isinstance(v, int) and not isinstance(v, bool) and key == "kong_win_total":
            v = str(v)  # a number is an expression too
        if not isinstance(v, str):
            lw.error(("play", key), f"{what} is an expression over the kong k (a string), not {v!r}",
                     'e.g. kong_ends_hand: \'k.type == "hun"\', kong_win_total: "k.points"')
            out.append(None)
            continue
        e, _ = _expr(lw, ("play", key), settle_env(play, ndefs, {"k": KONG}), want, what)  # str() of a number
        out.append(e if e is not None and _bounded(lw, ("play", key), e.ast, costs) else None)
    if out[0] is not None and out[1] is None and not isinstance(play.get("kong_win_total"), (str, int)):
        lw.error(("play", "kong_ends_hand"), "play.kong_ends_hand needs play.kong_win_total, the total of the win it ends "
                 "the hand with", 'e.g. kong_win_total: "k.points"', key=True)
    return out[0], out[1]


def _cycles(lw: _Lowering, bodies: dict[str, A.Node], keys: dict[str, str]) -> None:
    state: dict[str, int] = {}

    def visit(n: str, trail: list[str]) -> None:
        if state.get(n) == 2 or n not in bodies:
            return
        if state.get(n) == 1:
            lw.error(("settlement", "definitions", keys[n]), "definitions call each other in a circle: "
                     + " → ".join(trail + [n]), "expressions cannot recurse", key=True)
            return
        state[n] = 1
        for m in sorted(definition_uses(bodies[n])):
            visit(m, trail + [n])
        state[n] = 2

    for n in bodies:
        visit(n, [])


def lower_bets(lw: _Lowering, d: dict[str, Any]) -> tuple[tuple[str, Expr], ...]:
    """The play settings that are bet expressions (expr/bets.py: play.zuozhuang_when, play.lazhuang_most),
    each parsed and checked in the bets scope (the game so far, the seat asked, the play values);
    an absent one is the hand's own fixed limit (may_zuozhuang, lazhuang_max) alone."""
    raw = d.get("play")
    play: dict[Any, Any] = raw if isinstance(raw, dict) else {}
    values = {str(k): v for k, v in play.items() if isinstance(v, (bool, int, str))}
    out = []
    for key, (want, what) in B.BET_SETTINGS.items():
        if key not in play:
            continue
        if not isinstance(play[key], str):
            lw.error(("play", key), f"play.{key} is an expression (a string): {what}, not {play[key]!r}")
            continue
        for name in values:
            if name in B.BET_VARS:
                lw.error(("play", name), f"play value {name!r} has the name of a game fact the bets read "
                         f"(play.{key})", "rename the play value", key=True)
        e, _ = _expr(lw, ("play", key), B.bet_env(values), (want,), f"play.{key}", make_checker=B.checker, scope="bets")
        if e is not None and _bounded(lw, ("play", key), e.ast, {}):
            out.append((key, e))
    return tuple(out)
