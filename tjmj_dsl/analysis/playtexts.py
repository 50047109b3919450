"""The `play-value-unmatched` warning of `tjmj check`: a text play value that the
expressions reading it never compare it with, though they compare it with a text
close to it — most likely a misspelling, which plays as the expressions' `else`.

A play value the expressions compare with texts (`payer == "winner"`) is a
choice among those texts and a default none of them names (`everyone`, read as
the else). A misspelt `winer` is then neither an error nor a different game: it
plays silently as the default. Only a value close to a
compared text (the same letters in another case, or at most two edits away from a
text of 4 or more characters) is reported, so a default that is meant as the else
is never flagged. A setting compared anywhere with something else than a text
(a definition's parameter: `payer_is(m)` reading `payer == m`) has open values
and is not judged; a quantifier's variable or a definition's parameter named as
a play setting is not that setting. Once per file: the values of `play:`, of
every option's `set` and every value's `set`; at most MAX_PAIRS edit distances
(past them, only a case-blind match is said)."""

from __future__ import annotations

from typing import Any, Iterator

from ..diagnostics import Diagnostic
from ..engine.request import edit_distance
from ..expr import ast as A
from ..expr.parser import ExprError, parse
from ..passes.resolve import Resolved
from ..passes.settlement import definition_head

Path = tuple[str, ...]
MAX_EDITS = 2
MIN_LEN = 4  # compared texts shorter than this are matched only case-blind (a 3-letter text is 2 edits from many)
MAX_LEN = 64  # longer texts are matched only case-blind (a name misspelt, not a sentence)
MAX_PAIRS = 20_000  # edit distances worked out per file, at most: a hostile file's thousands of values and texts


def play_text_warnings(res: Resolved) -> list[Diagnostic]:
    data = res.data
    compared: dict[str, set[str]] = {}
    judged_not: set[str] = set()  # names compared with something else than a text: their values are open
    for text, bound in _texts(data):
        try:
            node = parse(text)
        except ExprError:  # not an expression (a name, a description): nothing compared in it
            continue
        _collect(node, bound, compared, judged_not)
    out = []
    budget = [MAX_PAIRS]
    for path, key, value, where in _values(data):
        lits = compared.get(key)
        if not lits or value in lits or key in judged_not:
            continue
        near = sorted(lit for lit in lits if _close(value, lit, budget))
        if not near:
            continue
        shown = ", ".join(repr(x) for x in sorted(lits)[:6])
        out.append(Diagnostic(
            "warning", "play-value-unmatched",
            f"play.{key} is {value!r}{where}, a text no expression reading it compares it with (they compare it "
            f"with {shown}): it plays as their else",
            res.where(path), f"did you mean {near[0]!r}? If {value!r} is meant as the else, silence it with why",
            f"{key}={value}"[:80]))
    return out


def _texts(data: dict[str, Any]) -> Iterator[tuple[str, frozenset[str]]]:
    """(text, the names it binds) for every string under play:, settlement: and options: (keys aside): the
    expressions among them. A settlement definition's parameters are bound in its texts: `f(kind: str)` —
    a parameter named as a play setting is not that setting there."""
    stack: list[tuple[Any, frozenset[str]]] = [(data.get("play"), frozenset()), (data.get("options"), frozenset())]
    settlement = data.get("settlement")
    if isinstance(settlement, dict):
        defs = settlement.get("definitions")
        for k, v in settlement.items():
            if k != "definitions" or not isinstance(v, dict):
                stack.append((v, frozenset()))
        for key, body in (defs.items() if isinstance(defs, dict) else ()):
            head = definition_head(str(key))  # its parameters are bound in its texts
            stack.append((body, frozenset(p for p, _ in head[1]) if head else frozenset()))
    while stack:
        n, bound = stack.pop()
        if isinstance(n, str):
            yield n, bound
        elif isinstance(n, dict):
            stack.extend((v, bound) for v in n.values())
        elif isinstance(n, list):
            stack.extend((v, bound) for v in n)


def _collect(root: A.Node, bound: frozenset[str], compared: dict[str, set[str]], judged_not: set[str]) -> None:
    """The texts each free name is compared with (`name == "x"`, `"x" != name`, `name in ["x", "y"]`) into
    `compared`; a free name compared with anything else (a parameter, a list of other things) into `judged_not`.
    A quantifier's variable is bound in its body."""
    stack = [(root, bound)]
    while stack:
        n, b = stack.pop()
        if isinstance(n, A.Quant):
            stack += [(n.domain, b), (n.body, b | {n.var})]
            continue
        if isinstance(n, A.Compare):
            if n.op in ("==", "!="):
                for x, y in ((n.left, n.right), (n.right, n.left)):
                    if isinstance(x, A.Name) and x.id not in b:
                        if isinstance(y, A.Str):
                            compared.setdefault(x.id, set()).add(y.value)
                        else:
                            judged_not.add(x.id)
            elif n.op in ("in", "notin") and isinstance(n.left, A.Name) and n.left.id not in b:
                if isinstance(n.right, A.ListLit) and all(isinstance(i, A.Str) for i in n.right.items):
                    compared.setdefault(n.left.id, set()).update(i.value for i in n.right.items
                                                                 if isinstance(i, A.Str))
                else:
                    judged_not.add(n.left.id)
        stack += [(c, b) for c in A.children(n)]


def _values(data: dict[str, Any]) -> Iterator[tuple[Path, str, str, str]]:
    """(place, play key, text value, where it is said) of every text play value the file gives."""
    play = data.get("play")
    if isinstance(play, dict):
        for k, v in play.items():
            if isinstance(k, str) and isinstance(v, str):
                yield ("play", k), k, v, ""
    options = data.get("options")
    if not isinstance(options, dict):
        return
    for oid, o in options.items():
        if not isinstance(o, dict):
            continue
        sets: list[tuple[Path, Any, str]] = [(("options", str(oid), "set"), o.get("set"), f" (option {oid})")]
        choices = o.get("choices")
        if isinstance(choices, dict):
            sets += [(("options", str(oid), "choices", str(c), "set"), cv.get("set") if isinstance(cv, dict) else None,
                      f" (option {oid}={c})") for c, cv in choices.items()]
        for base, st, where in sets:
            if not isinstance(st, dict):
                continue
            for k, v in st.items():
                if isinstance(k, str) and k.startswith("play.") and isinstance(v, str):
                    yield base + (k,), k[5:], v, where


def _close(value: str, lit: str, budget: list[int]) -> bool:
    """Whether `value` is `lit` in another case, or at most MAX_EDITS edits from it (`budget`: the edit
    distances the file may still have worked out; none once it is spent)."""
    if value.casefold() == lit.casefold():
        return True
    if not MIN_LEN <= len(lit) <= MAX_LEN or len(value) > MAX_LEN or abs(len(value) - len(lit)) > MAX_EDITS \
            or budget[0] <= 0:
        return False
    budget[0] -= 1
    return edit_distance(value, lit, MAX_EDITS) <= MAX_EDITS
