"""The settlement's two backends: the reference interpreter (walks the ASTs)
and the Python source emitted into every generated scorer. Both give
engine/settle.py the same object (see its docstring), so settle() is one
piece of run-time code over either."""

from __future__ import annotations

from typing import Any, Callable

from ..engine.settle import seat_list
from ..expr import ast as A
from ..expr.settle import SEAT, SettleEmitter, SettleInterpreter, amount_terms, checker, outcome_env, settle_env
from ..expr.vocabulary import elem
from ..ir import Payment, RuleSet, Settlement
from .safe import inert, word


def settlement_types(st: Settlement) -> dict[int, str]:
    """Re-check every settlement expression for the type of each node."""
    play = dict(st.play)
    ndefs = {d.name: len(d.params) for d in st.definitions}
    types: dict[int, str] = {}

    def run(node: A.Node, extra: dict[str, str] | None = None) -> str:
        ch = checker(settle_env(play, ndefs, extra))
        t = ch.check(node)
        types.update(ch.types)
        return t

    for d in st.definitions:
        run(d.body.ast, dict(d.params))
    for p in st.payments:
        extra = {}
        if p.items is not None and p.var is not None:
            extra[p.var] = elem(run(p.items.ast).rstrip("?")) or "any"
        if p.when is not None:
            run(p.when.ast, extra)
        run(p.payer.ast, extra)
        run(p.payee.ast, extra)
        run(p.amount.ast, {**extra, "payer": SEAT, "payee": SEAT})
    for r in st.outcome_rules:
        run(r.error_when.ast)
    run(st.rotation.next_dealer.ast)
    return types


class InterpretedSettlement:
    """The settlement object of engine/settle.py, by walking the ASTs."""

    def __init__(self, rs: RuleSet, st: Settlement) -> None:
        self.st = st
        self.play = dict(st.play)
        self.score_table = rs.score_table
        self._i = SettleInterpreter(settlement_types(st),
                                    {d.name: (tuple(n for n, _ in d.params), d.body.ast) for d in st.definitions})
        self.payments = tuple((p.id, p.reason, p.amount.text, p.terms, p.when.text if p.when else "", self._payer_fn(p))
                              for p in st.payments)

    def _env(self, o: Any) -> dict[str, Any]:
        return outcome_env(o, self.play)

    def checks(self, o: Any) -> list[tuple[str, str, str]]:
        env = self._env(o)
        return [(r.id, r.field, r.message) for r in self.st.outcome_rules if self._i.eval(r.error_when.ast, env)]

    def next_dealer(self, o: Any) -> Any:
        return self._i.eval(self.st.rotation.next_dealer.ast, self._env(o))

    def _payer_fn(self, p: Payment) -> Callable[[Any], tuple[list[tuple[int, int, int, tuple[Any, ...]]], list[Any]]]:
        ev = self._i.eval
        terms = amount_terms(p.amount.ast)

        def run(o: Any) -> tuple[list[tuple[int, int, int, tuple[Any, ...]]], list[Any]]:
            env = self._env(o)
            items = ev(p.items.ast, env) if p.items is not None else [None]
            out = []
            skipped: list[Any] = []
            for i, x in enumerate(items):
                e = {**env, p.var: x} if p.var is not None else env
                if p.when is not None and not ev(p.when.ast, e):
                    skipped.append(i if p.items is not None else None)
                    continue
                for payer in seat_list(ev(p.payer.ast, e)):
                    for payee in seat_list(ev(p.payee.ast, e)):
                        if payer == payee:
                            continue
                        pe = {**e, "payer": payer, "payee": payee}
                        out.append((payer, payee, ev(p.amount.ast, pe), tuple(ev(t, pe) for t in terms)))
            return out, skipped
        return run


def interpreted_settlement(rs: RuleSet) -> InterpretedSettlement | None:
    return InterpretedSettlement(rs, rs.settlement) if rs.settlement is not None else None


def settlement_code(rs: RuleSet) -> str:
    """The settlement as Python source for the generated scorer: functions over
    the outcome `o`, and `_SETTLEMENT` (None when the rules have none)."""
    st = rs.settlement
    if st is None:
        return "_SETTLEMENT = None\n"
    play = dict(st.play)
    em = SettleEmitter(settlement_types(st), play, {d.name for d in st.definitions})
    out: list[str] = []
    for d in st.definitions:
        params = "".join(f", v_{word(n)}: Any" for n, _ in d.params)
        out += ["", "", f"def sd_{word(d.name)}(o: Any{params}) -> Any:",
                f"    # {_one_line(d.body.text)}",
                f"    return {em.emit(d.body.ast, frozenset(n for n, _ in d.params))}"]
    out += ["", "", "def _settle_checks(o: Any) -> list:  # type: ignore[type-arg]", "    out = []"]
    for r in st.outcome_rules:
        out += [f"    if {em.emit(r.error_when.ast)}:  # {r.id}", f"        out.append(({r.id!r}, {r.field!r}, {r.message!r}))"]
    out += ["    return out"]
    names = []
    for p in st.payments:
        fn = f"_pay_{word(p.id)}"
        names.append(fn)
        bound = frozenset([p.var] if p.var else [])
        inner = bound | {"payer", "payee"}
        terms = ", ".join(em.emit(t, inner) for t in amount_terms(p.amount.ast))
        loop = (f"for _i, v_{word(p.var)} in enumerate({em.emit(p.items.ast)})" if p.items is not None and p.var
                else "for _i in (None,)")
        out += ["", "", f"def {fn}(o: Any) -> tuple:  # type: ignore[type-arg]",
                f"    # {_one_line(p.id)}: {_one_line(p.amount.text)}", "    out = []", "    skipped = []", f"    {loop}:"]
        if p.when is not None:
            out += [f"        if not ({em.emit(p.when.ast, bound)}):", "            skipped.append(_i)", "            continue"]
        out += [f"        for v_payer in seat_list({em.emit(p.payer.ast, bound)}):",
                f"            for v_payee in seat_list({em.emit(p.payee.ast, bound)}):",
                "                if v_payer != v_payee:",
                f"                    out.append((v_payer, v_payee, {em.emit(p.amount.ast, inner)}, ({terms}{',' if terms else ''})))",
                "    return out, skipped"]
    out += ["", "", "def _next_dealer(o: Any) -> Any:", f"    # {_one_line(st.rotation.id)}: {_one_line(st.rotation.next_dealer.text)}",
            f"    return {em.emit(st.rotation.next_dealer.ast)}"]
    payments = ", ".join(f"({p.id!r}, {p.reason!r}, {p.amount.text!r}, {p.terms!r}, {p.when.text if p.when else ''!r}, {n})"
                         for p, n in zip(st.payments, names))
    out += ["", "", "class _Settlement:", f"    play = {play!r}", f"    score_table = {rs.score_table!r}",
            "    checks = staticmethod(_settle_checks)", "    next_dealer = staticmethod(_next_dealer)",
            f"    payments = ({payments}{',' if len(names) == 1 else ''})", "", "", "_SETTLEMENT = _Settlement()", ""]
    return "\n".join(out).lstrip("\n") + "\n"


def _one_line(text: str) -> str:
    """An expression as a one-line comment: rule-file text never ends a comment
    early (safe.inert: no line break, NUL or lone surrogate survives)."""
    return inert(" ".join(text.split()))
