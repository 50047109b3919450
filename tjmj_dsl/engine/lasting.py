"""Caches that live as long as a scorer, kept out of the garbage collector's way.

A full collection walks every entry of every container it tracks (some
milliseconds per hundred thousand entries), and it lands on whichever call
is running. Building a scorer ends with a freeze (runtime.settle_collector):
every object tracked then moves to the permanent generation, which no
collection walks again, however many entries it gains later. A cache made
as a plain `{}` escapes the freeze: an empty dict is not tracked, so the
freeze skips it, and its first entry holding a new tuple makes it tracked in
the youngest generation, from where every full collection walks it as it
grows. `lasting()` makes a cache tracked from birth (it holds one entry that
no lookup can name) and `restart()` empties one and keeps it so. Tables the
search makes while scoring are entries of such a cache under int keys, never
dicts of their own.
"""

from __future__ import annotations

_PIN_KEY = object()  # not tracked, equal only to itself: no request, tile or table key can name it
_PIN: list = []  # type: ignore[type-arg]  # a tracked value: the dict holding it is tracked


def lasting() -> dict:  # type: ignore[type-arg]
    """An empty cache (but for the pin) that the next freeze will move out of the collector's way."""
    return {_PIN_KEY: _PIN}


def restart(cache: dict) -> None:  # type: ignore[type-arg]
    """Empty a cache made by lasting() and keep it tracked: a collection
    before the next freeze would otherwise stop tracking it, and the freeze
    would miss it."""
    cache.clear()
    cache[_PIN_KEY] = _PIN
