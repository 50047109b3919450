"""Which expressions are false for every plain hand: a hand with no declared
meld, not won on a kong's replacement tile and with no request flag set (what
most requests are). The code generator leaves such request rules out of the
test the plain path runs on such a hand (engine/runtime.py's _score_plain),
so it is checked only against the rules that can refuse it, and does not ask
whether the winning tile is free (free_when) when that is false for it too. Generic: it knows
the hand's vocabulary (`declared`, `kong_draw`, `kong_chain`, the flags), no rule of any game.

The reference interpreter evaluates the expression, with what a plain hand
fixes and nothing else: reading anything more (a tile, `huns`, `count()`, a
definition) cannot tell, but for `and`/`or`, which an item fixing the answer
decides whatever the others are."""

from __future__ import annotations

from typing import Any

from . import ast as A
from .evaluate import CONSTS, Interpreter


class _Unknown(Exception):
    """A value a plain hand does not fix."""


class _Unfixed(dict):  # type: ignore[type-arg]
    """The functions of the interpreter: none is known on a plain hand."""

    def __missing__(self, name: str) -> Any:
        raise _Unknown(name)


class _PlainInterpreter(Interpreter):
    def __init__(self) -> None:
        super().__init__({}, {}, _Unfixed())

    def _name(self, n: A.Name, env: dict[str, Any]) -> Any:
        if n.id in CONSTS:
            return CONSTS[n.id]
        if n.id in env:
            return env[n.id]
        raise _Unknown(n.id)

    def _boolop(self, n: A.BoolOp, env: dict[str, Any]) -> Any:
        decides = n.op == "or"  # a true item decides an `or`, a false one an `and`, in any place
        unknown = False
        for item in n.items:
            try:
                if bool(self.eval(item, env)) is decides:
                    return decides
            except _Unknown:
                unknown = True
        if unknown:
            raise _Unknown("and/or")
        return not decides


def false_for_plain_hands(n: A.Node, flags: frozenset[str]) -> bool:
    """Whether n is false for every plain hand (False when it cannot tell)."""
    env: dict[str, Any] = {"declared": [], "kong_draw": None, "kong_chain": 0, **{f: False for f in flags}}
    try:
        return _PlainInterpreter().eval(n, env) is False
    except (_Unknown, LookupError, TypeError):  # a value it does not fix, or one it cannot read: cannot tell
        return False
