"""Read-only lists and dicts: the parts a score answer shares with other answers.

A score answer's patterns, names and hun kinds and the rows of its
decomposition are the same for every hand that has them; answers share them
rather than building fresh copies for each (most of what a call cost:
docs/performance.md). Shared, they must not change: each of these refuses
every change in place with a TypeError. They are a list and a dict to
everything else (equality, JSON, isinstance), and their copies are plain:
list(x), dict(x), x.copy(), copy.copy, copy.deepcopy and pickle give a list
or a dict the caller may change.
"""

from __future__ import annotations

from copy import deepcopy as _deepcopy
from typing import Any, NoReturn

_READ_ONLY = ("an answer's patterns, names, hun_kinds and decomposition rows are shared between answers and "
              "read-only: change a copy (list(x), dict(x), or copy.deepcopy(answer) for all of it)")


def _refuse(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(_READ_ONLY)


class SharedList(list):  # type: ignore[type-arg]
    """A list that refuses changes in place; its copies are plain lists."""

    __slots__ = ()
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __copy__(self) -> list:  # type: ignore[type-arg]
        return list(self)

    def __deepcopy__(self, memo: dict) -> list:  # type: ignore[type-arg]
        return [_deepcopy(v, memo) for v in self]

    def __reduce__(self) -> tuple:  # type: ignore[type-arg]
        return list, (list(self),)


class SharedDict(dict):  # type: ignore[type-arg]
    """A dict that refuses changes in place; its copies are plain dicts."""

    __slots__ = ()
    pop = popitem = clear = update = setdefault = _refuse
    __setitem__ = __delitem__ = __ior__ = _refuse

    def __copy__(self) -> dict:  # type: ignore[type-arg]
        return dict(self)

    def __deepcopy__(self, memo: dict) -> dict:  # type: ignore[type-arg]
        return {k: _deepcopy(v, memo) for k, v in self.items()}

    def __reduce__(self) -> tuple:  # type: ignore[type-arg]
        return dict, (dict(self),)


def shared_row(row: dict) -> SharedDict:  # type: ignore[type-arg]
    """A decomposition row as answers share it: its lists shared too."""
    return SharedDict({k: SharedList(v) if v.__class__ is list else v for k, v in row.items()})
