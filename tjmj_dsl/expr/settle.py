"""The settlement's vocabulary: what the payment rules, outcome rules and
rotations of a rule file may read about the outcome of a hand (seats, kongs,
the dealer, the winner, zuozhuang/lazhuang, …), and how the checker, the interpreter
and the Python emitter treat it. One table, read by all three.

Generic: seats, kongs, go-rounds and turn order are the mechanics of any mahjong
table; no payment of any game is named here. At run time a seat is an int 0-3,
a kong a tuple (seat, type, tile, points, won, from, ended), a go-round a tuple
(number, discards, claimed); `o` is the engine.settle.Outcome.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from . import ast as A
from .check import Checker, Env
from .emit import Emitter
from .evaluate import Interpreter
from .vocabulary import ANY, BOOL, FUNCS, INT, STR, TILE, TILE_ATTRS, Func, list_of
from ..engine.settle import bounded_pow, others

SEAT, KONG, ROUND = "seat", "kong", "round"
PARAM_TYPES = (SEAT, KONG, ROUND, INT, BOOL, STR, TILE)


@dataclass(frozen=True)
class SAttr:
    type: str
    doc: str
    py: str  # Python template: {0} is the object, `o` the outcome
    fn: Callable[[Any, Any], Any]  # (value, outcome) → attribute


SEAT_ATTRS: dict[str, SAttr] = {
    "is_dealer": SAttr(BOOL, "this seat deals this hand", "({0} == o.dealer)", lambda s, o: s == o.dealer),
    "lazhuang": SAttr(INT, "how many times this seat raised the stakes with the dealer (lazhuang; 0 for the dealer)", "o.lazhuang[{0}]",
                      lambda s, o: o.lazhuang[s]),
    "next": SAttr(SEAT, "the seat after it in turn order (xiajia)", "(({0} + 1) % 4)", lambda s, o: (s + 1) % 4),
    "xianggong": SAttr(BOOL, "this seat discarded a hun (xiaoxianggong)", "({0} in o.xianggong)",
                       lambda s, o: s in o.xianggong),
}

KONG_ATTRS: dict[str, SAttr] = {
    "seat": SAttr(SEAT, "the kong's owner", "{0}[0]", lambda k, o: k[0]),
    "type": SAttr(STR, '"exposed" (from a discard), "added" (bu gang), "concealed" or "hun" (jin gang)', "{0}[1]",
                  lambda k, o: k[1]),
    "tile": SAttr(TILE, "the kong's tile", "{0}[2]", lambda k, o: k[2]),
    "points": SAttr(INT, "its kong_points (an added kong counts as play.added_kong_as)", "{0}[3]", lambda k, o: k[3]),
    "won": SAttr(BOOL, "its replacement tile won the hand (gangkai)", "{0}[4]", lambda k, o: k[4]),
    "from": SAttr(SEAT + "?", "the seat whose discard was konged (a kong claimed from a discard), or none (a kong "
                  "of one's own tiles: concealed, added)", "{0}[5]", lambda k, o: k[5]),
    "ended": SAttr(BOOL, "the kong ended the hand at once as its maker's win (play.kong_ends_hand)", "{0}[6]",
                   lambda k, o: k[6]),
}

ROUND_ATTRS: dict[str, SAttr] = {
    "number": SAttr(INT, "which go-round of the hand it is: 1 for the first (the dealer's first discard and the next three)",
                    "{0}[0]", lambda r, o: r[0]),
    "discards": SAttr(list_of(TILE), "its discards in the order made (four, or fewer in the hand's last go-round)",
                      "list({0}[1])", lambda r, o: list(r[1])),
    "claimed": SAttr(BOOL, "one of its discards was claimed (ponged or konged)", "{0}[2]", lambda r, o: r[2]),
}

SETTLE_ATTRS: dict[str, dict[str, Any]] = {SEAT: SEAT_ATTRS, KONG: KONG_ATTRS, ROUND: ROUND_ATTRS, TILE: TILE_ATTRS}


@dataclass(frozen=True)
class SVar:
    type: str
    doc: str


SETTLE_VARS: dict[str, SVar] = {
    "seats": SVar(list_of(SEAT), "the four seats in turn order"),
    "dealer": SVar(SEAT, "the dealer (zhuangjia)"),
    "winner": SVar(SEAT + "?", "the winner, or none in a drawn hand (huangzhuang)"),
    "total": SVar(INT, "the winner's score-table total, at least `min_fan` (0 in a drawn hand)"),
    "zuozhuang": SVar(BOOL, "the dealer sat (zuozhuang)"),
    "kongs": SVar(list_of(KONG), "every kong made this hand, in order"),
    "chan": SVar(BOOL, "the outcome's `chan` flag: a table that gives no `rounds` states chan happened (false when absent)"),
    "rounds": SVar(list_of(ROUND), "the hand's go-rounds: its discards in the order made, four to a round from the "
                                   "dealer's first, each with whether one of them was claimed"),
    "score_table": SVar(STR, "the score table in force (the option score_table)"),
}
BOUND = {"payer": "the seat that pays (in `amount`)", "payee": "the seat paid (in `amount`)"}

SETTLE_FUNCS: dict[str, Func] = {
    **{k: FUNCS[k] for k in ("len", "sorted", "sum", "product", "min", "max")},
    "pow": Func((INT, INT), INT, "a to the power b (b taken between 0 and 63; a power past 2^53 - 1 refuses the outcome)"),
    "others": Func((SEAT,), list_of(SEAT), "the three other seats, in turn order after it (none: no seat)"),
}


def play_type(v: Any) -> str:
    return BOOL if isinstance(v, bool) else INT if isinstance(v, int) else STR


def settle_env(play: dict[str, Any], definitions: dict[str, int], extra: dict[str, str] | None = None) -> Env:
    """The names a settlement expression reads: the outcome, the play values, and `extra` (bound names)."""
    names = {"true": BOOL, "false": BOOL, "none": "none", **{k: v.type for k, v in SETTLE_VARS.items()},
             **{k: play_type(v) for k, v in play.items()}, **(extra or {})}
    return Env(names, dict(definitions))


def checker(env: Env) -> Checker:
    return Checker(env, SETTLE_ATTRS, SETTLE_FUNCS)


def amount_terms(n: A.Node) -> list[A.Node]:
    """The terms an amount's explanation shows with their values: the leaves
    of its arithmetic (+ - * and unary -), numbers left out. Each is evaluated
    whenever the amount is, so showing it costs no risk."""
    if isinstance(n, A.BinOp):
        return amount_terms(n.left) + amount_terms(n.right)
    if isinstance(n, A.Neg):
        return amount_terms(n.operand)
    if isinstance(n, A.Num):
        return []
    return [n]


class SettleEmitter(Emitter):
    """Settlement expressions → Python over the outcome `o`; play values are constants."""

    def __init__(self, types: dict[int, str], play: dict[str, Any], definitions: set[str]) -> None:
        super().__init__(types, set())
        self.play = play
        self.sdefs = definitions

    def emit(self, n: A.Node, bound: frozenset[str] = frozenset()) -> str:
        if isinstance(n, A.Name) and n.id not in bound:
            if n.id in SETTLE_VARS:
                return f"o.{n.id}"
            if n.id in self.play:
                return repr(self.play[n.id])
        if isinstance(n, A.Attr):
            t = self.types.get(id(n.obj), ANY)
            table = SETTLE_ATTRS.get(t.rstrip("?"))
            if table is not None and n.name in table:
                obj = self.emit(n.obj, bound)
                code = str(table[n.name].py).format(obj)
                return f"(None if {obj} is None else {code})" if t.endswith("?") else code
        if isinstance(n, A.Call):
            args = [self.emit(a, bound) for a in n.args]
            if n.func in self.sdefs:
                return f"sd_{n.func}(o, {', '.join(args)})"
            if n.func == "pow":
                return f"bounded_pow({', '.join(args)})"
            if n.func == "others":
                return f"others({args[0]})"
        return super().emit(n, bound)


class SettleInterpreter(Interpreter):
    """The reference walk of settlement expressions; the env holds the outcome as `$o`."""

    def __init__(self, types: dict[int, str], definitions: dict[str, tuple[tuple[str, ...], A.Node]]) -> None:
        super().__init__(types, definitions, {"pow": bounded_pow, "others": others})

    def eval(self, n: A.Node, env: dict[str, Any]) -> Any:
        if isinstance(n, A.Attr):
            table = SETTLE_ATTRS.get(self.types.get(id(n.obj), ANY).rstrip("?"))
            if table is not None and n.name in table:
                obj = self.eval(n.obj, env)
                if obj is None:
                    return None
                a = table[n.name]
                return a.fn(obj, env["$o"]) if isinstance(a, SAttr) else a.fn(obj)
        return super().eval(n, env)


def outcome_env(o: Any, play: dict[str, Any]) -> dict[str, Any]:
    """The interpreter's names for an outcome."""
    env: dict[str, Any] = {k: getattr(o, k) for k in SETTLE_VARS}
    env.update(play)
    env["$o"] = o
    return env
