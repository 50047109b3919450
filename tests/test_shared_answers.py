"""A score answer is the caller's; the lists and rows inside it that answers
share (patterns, names, hun_kinds, each decomposition row and its lists) are
read-only: a change in place is refused with a TypeError, and nothing a
caller tries changes the next answer. They are lists and dicts to everything
that reads them, and their copies are plain."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any, Callable

import pytest

from tjmj_dsl import Scorer

PLAIN = {"concealed": "79m66p444567999s", "draw": "8m", "indicator": "C"}  # no hun held: the shared rows
HUNS = {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "6m"}  # huns 6m 7m: 77m stand in
DECLARED = {"concealed": "79m66p444567s", "melds": [{"type": "pung", "tile": "9s"}], "draw": "8m", "indicator": "C"}
NO_SHAPE = {"concealed": "13579m13579p135s", "draw": "7s", "indicator": "C"}
REFUSED = {"concealed": "79m66p444567999s", "draw": "8m", "indicator": "C", "tianhu": "yes"}

LIST_CHANGES: list[tuple[str, Callable[[Any], Any]]] = [
    ("append", lambda x: x.append("x")), ("extend", lambda x: x.extend(["x"])), ("insert", lambda x: x.insert(0, "x")),
    ("pop", lambda x: x.pop()), ("remove", lambda x: x.remove(x[0])), ("clear", lambda x: x.clear()),
    ("sort", lambda x: x.sort()), ("reverse", lambda x: x.reverse()), ("setitem", lambda x: x.__setitem__(0, "x")),
    ("slice", lambda x: x.__setitem__(slice(0, 1), [])), ("delitem", lambda x: x.__delitem__(0)),
    ("iadd", lambda x: x.__iadd__(["x"])), ("imul", lambda x: x.__imul__(2)),
]
DICT_CHANGES: list[tuple[str, Callable[[Any], Any]]] = [
    ("setitem", lambda d: d.__setitem__("text", "x")), ("new key", lambda d: d.__setitem__("mine", 1)),
    ("delitem", lambda d: d.__delitem__("text")), ("pop", lambda d: d.pop("text")), ("popitem", lambda d: d.popitem()),
    ("clear", lambda d: d.clear()), ("update", lambda d: d.update(text="x")),
    ("setdefault", lambda d: d.setdefault("mine", 1)), ("ior", lambda d: d.__ior__({"text": "x"})),
]


def _plain(x: Any) -> Any:
    """x rebuilt of plain lists and dicts (what JSON gives back)."""
    return json.loads(json.dumps(x, ensure_ascii=False))


def _types(x: Any) -> set[type]:
    """The types of every list and dict in x, x included."""
    if isinstance(x, dict):
        return {type(x)}.union(*(_types(v) for v in x.values()))
    if isinstance(x, list):
        return {type(x)}.union(*(_types(v) for v in x))
    return set()


@pytest.mark.parametrize("request_", [PLAIN, HUNS, DECLARED])
@pytest.mark.parametrize("name, change", LIST_CHANGES, ids=[n for n, _ in LIST_CHANGES])
def test_a_shared_list_refuses_each_change(both: Scorer, request_: dict[str, Any], name: str,
                                           change: Callable[[Any], Any]) -> None:
    first = both.score(request_)
    before = _plain(first)
    assert first["win"] and first["patterns"] and first["decomposition"]
    for lst in (first["patterns"], first["names"], first["hun_kinds"], first["decomposition"][0]["faces"],
                first["decomposition"][0]["tiles"], first["decomposition"][-1]["huns"]):
        with pytest.raises(TypeError, match="read-only"):
            change(lst)
    assert _plain(first) == before and _plain(both.score(request_)) == before


@pytest.mark.parametrize("request_", [PLAIN, HUNS, DECLARED])
@pytest.mark.parametrize("name, change", DICT_CHANGES, ids=[n for n, _ in DICT_CHANGES])
def test_a_shared_row_refuses_each_change(both: Scorer, request_: dict[str, Any], name: str,
                                          change: Callable[[Any], Any]) -> None:
    first = both.score(request_)
    before = _plain(first)
    for row in first["decomposition"]:
        with pytest.raises(TypeError, match="copy"):
            change(row)
    assert _plain(first) == before and _plain(both.score(request_)) == before


def test_the_answer_and_its_decomposition_list_are_the_callers(both: Scorer) -> None:
    a = both.score(PLAIN)
    a["patterns"] = ["mine"]
    a["decomposition"].append({"mine": True})
    a["decomposition"][0] = None
    del a["names"]
    a["rules"]["name"] = "mine"
    b = both.score(PLAIN)
    assert b["patterns"] == ["tiliu", "su"] and b["names"] == ["提溜", "素"] and b["rules"]["name"] == "tianjin"
    assert len(b["decomposition"]) == 5 and b["decomposition"][0]["text"] == "7m 8m* 9m"


def test_shared_parts_read_as_lists_and_dicts(both: Scorer) -> None:
    for request_ in (PLAIN, HUNS, DECLARED, NO_SHAPE, REFUSED):
        a = both.score(request_)
        assert a == _plain(a)  # equal to the same answer made of plain lists and dicts
        assert json.loads(json.dumps(a, ensure_ascii=False)) == a
        assert json.dumps(a, ensure_ascii=False, indent=1) == json.dumps(_plain(a), ensure_ascii=False, indent=1)
        assert all(issubclass(t, (list, dict)) for t in _types(a))
    a = both.score(PLAIN)
    assert a["patterns"] == ["tiliu", "su"] and a["decomposition"][0]["faces"] == ["7m", "8m", "9m"]
    assert a["decomposition"][0] == {"meld": "chow", "declared": False, "concealed": True, "faces": ["7m", "8m", "9m"],
                                     "tiles": ["7m", "8m", "9m"], "huns": [False, False, False], "winning_slot": 1,
                                     "text": "7m 8m* 9m"}
    assert sorted(a["patterns"]) == ["su", "tiliu"] and a["patterns"] + ["x"] == ["tiliu", "su", "x"]


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_deep_copy_is_wholly_the_callers(both: Scorer, how: str) -> None:
    for request_ in (PLAIN, HUNS, DECLARED):
        a = both.score(request_)
        b = copy.deepcopy(a) if how == "deepcopy" else pickle.loads(pickle.dumps(a))
        assert b == a and _types(b) == {list, dict}
        b["patterns"].append("mine")
        b["decomposition"][0]["faces"].sort(reverse=True)
        b["decomposition"][0]["text"] = "mine"
        assert _plain(both.score(request_)) == _plain(a) != _plain(b)


def test_shallow_copies_are_plain(both: Scorer) -> None:
    a = both.score(PLAIN)
    row, lst = a["decomposition"][0], a["patterns"]
    for c in (list(lst), lst.copy(), copy.copy(lst), lst[:], [*lst]):
        assert type(c) is list and c == ["tiliu", "su"]
        c.append("mine")
    for d in (dict(row), row.copy(), copy.copy(row), {**row}, row | {}):
        assert type(d) is dict and d == row
        d["text"] = "mine"
    assert both.score(PLAIN)["decomposition"][0]["text"] == "7m 8m* 9m" and both.score(PLAIN)["patterns"] == lst


def test_the_standalone_scorer_shares_the_same_way(gen_module: Any) -> None:
    a = gen_module.score(PLAIN)
    assert a == Scorer().score(PLAIN)
    with pytest.raises(TypeError, match="read-only"):
        a["decomposition"][0]["faces"].append("x")
    with pytest.raises(TypeError, match="read-only"):
        a["patterns"].sort()
    assert _types(copy.deepcopy(a)) == {list, dict}


def test_yaml_writes_shared_parts_as_plain_ones(both: Scorer) -> None:
    # PyYAML's dumpers look a value's exact type up: without the package's representers safe_dump refused
    # an answer ("cannot represent an object") and dump wrote Python tags; the C dumpers where libyaml is
    import yaml
    dumpers = [getattr(yaml, n) for n in ("SafeDumper", "Dumper", "CSafeDumper", "CDumper") if hasattr(yaml, n)]
    for request_ in (PLAIN, HUNS, DECLARED, REFUSED):
        a = both.score(request_)
        for d in dumpers:
            text = yaml.dump(a, Dumper=d, allow_unicode=True)
            assert text == yaml.dump(copy.deepcopy(a), Dumper=d, allow_unicode=True) and "python/" not in text
            assert yaml.safe_load(text) == a
        assert yaml.safe_dump(a) == yaml.safe_dump(copy.deepcopy(a))
