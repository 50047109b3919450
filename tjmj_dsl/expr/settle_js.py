"""Settlement expressions → JavaScript over the outcome `o` (engine_js/settle.mjs):
the JavaScript counterpart of expr/settle.py's SettleEmitter. A seat is a
number 0-3, a kong a [seat, type, tile, points, won, from, ended] array, a go-round a
[number, discards, claimed] array; play values are constants."""

from __future__ import annotations

from typing import Any

from . import ast as A
from .emit_js import JS_ATTRS, JsEmitter, _PRIMITIVE, js_value
from .settle import KONG, ROUND, SEAT, SETTLE_ATTRS, SETTLE_VARS
from .vocabulary import ANY, TILE

JS_SETTLE_ATTRS: dict[str, dict[str, str]] = {
    SEAT: {"is_dealer": "({0} === o.dealer)", "lazhuang": "o.lazhuang[{0}]", "next": "(({0} + 1) % 4)",
           "xianggong": "o.xianggong.includes({0})"},
    KONG: {"seat": "{0}[0]", "type": "{0}[1]", "tile": "{0}[2]", "points": "{0}[3]", "won": "{0}[4]",
           "from": "{0}[5]", "ended": "{0}[6]"},
    ROUND: {"number": "{0}[0]", "discards": "{0}[1]", "claimed": "{0}[2]"},
    TILE: JS_ATTRS["tile"],
}
assert {t: set(a) for t, a in JS_SETTLE_ATTRS.items()} == {t: set(a) for t, a in SETTLE_ATTRS.items()}, \
    "every settlement attribute needs its JavaScript form"


class JsSettleEmitter(JsEmitter):
    """Settlement expressions → JavaScript over the outcome `o`."""

    def __init__(self, types: dict[int, str], play: dict[str, Any], definitions: set[str]) -> None:
        super().__init__(types, set())
        self.play = play
        self.sdefs = definitions

    def primitive(self, t: str) -> bool:
        return t.rstrip("?") in _PRIMITIVE or t.rstrip("?") == SEAT

    def emit(self, n: A.Node, bound: frozenset[str] = frozenset()) -> str:
        if isinstance(n, A.Name) and n.id not in bound:
            if n.id in SETTLE_VARS:
                return f"o.{n.id}"
            if n.id in self.play:
                return js_value(self.play[n.id])
        if isinstance(n, A.Attr):
            t = self.types.get(id(n.obj), ANY)
            table = JS_SETTLE_ATTRS.get(t.rstrip("?"))
            if table is not None and n.name in table:
                obj = self.emit(n.obj, bound)
                code = table[n.name].format(obj)
                return f"({obj} === null ? null : {code})" if t.endswith("?") else code
        if isinstance(n, A.Call):
            args = [self.emit(a, bound) for a in n.args]
            if n.func in self.sdefs:
                return f"sd_{n.func}(o, {', '.join(args)})"
            if n.func == "pow":
                return f"boundedPow({', '.join(args)})"
            if n.func == "others":
                return f"others({args[0]})"
        return super().emit(n, bound)
