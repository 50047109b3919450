"""The schema's memo of valid sections (passes/schema.py): a section found valid is not walked
again, and nothing it remembers lets an invalid document through — a section changed in any
way the schema can see (a type, a key's type, a value) is validated anew, and the top's own
rules (unknown keys, required keys) are checked every time."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tjmj_dsl.compiler import read_rules
from tjmj_dsl.diagnostics import Pos
from tjmj_dsl.passes import schema as S
from tjmj_dsl.passes.resolve import apply_options


def _where(path: tuple[Any, ...], key: bool = False) -> Pos:
    return Pos("<test>", 1, 1)


@pytest.fixture(scope="module")
def base() -> dict[str, Any]:
    return apply_options(read_rules(None), None).data  # type: ignore[no-any-return]


def _codes(data: Any) -> list[str]:
    return [d.message for d in S.validate(data, _where)]


def test_a_valid_file_is_remembered_and_not_walked_again(base: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    S._VALID.clear()  # what other tests left
    assert _codes(base) == []
    walked: list[Any] = []
    real = S._validator

    def counting() -> Any:
        walked.append(1)
        return real()
    monkeypatch.setattr(S, "_validator", counting)
    assert _codes(copy.deepcopy(base)) == []  # an equal document: every section known
    assert walked == []
    changed = copy.deepcopy(base)
    changed["min_fan"] = changed["min_fan"] + 1  # still valid, but not seen: walked
    assert _codes(changed) == []
    assert walked == [1]


@pytest.mark.parametrize("change, message", [
    (lambda d: d.__setitem__("min_fan", float(d["min_fan"])), "is not of type"),  # 1.0 for 1
    (lambda d: d.__setitem__("min_fan", True), "is not of type"),  # true for 1
    (lambda d: d.__setitem__("min_fan", str(d["min_fan"])), "is not of type"),  # "1" for 1
    (lambda d: d["kong_points"].__setitem__(1, d["kong_points"].pop(next(iter(d["kong_points"])))), "unknown key 1"),
    (lambda d: d.__setitem__("colour", "red"), "unknown key 'colour'"),  # the top's own rule
    (lambda d: d.pop("patterns"), "missing key 'patterns'"),
])
def test_a_change_the_schema_can_see_is_refused_after_the_valid_file(
        base: dict[str, Any], change: Any, message: str) -> None:
    assert _codes(base) == []  # every section remembered valid
    bad = copy.deepcopy(base)
    change(bad)
    got = _codes(bad)
    assert any(message in m for m in got), got
    assert _codes(base) == []  # and the valid one is still valid


class _Int(int):
    """An int to repr and to json, but not an int to the schema's type checker (`type(x) is int`)."""


def _cyclic(back_to_the_option: bool) -> dict[str, Any]:
    """An options section whose `choices.set` is a cycle: back to `choices` (to the schema's finite
    depth, a valid section) or back to the option (an option inside `set`: unknown keys). Both
    print the same repr, `{...}` for the cycle."""
    opt: dict[str, Any] = {"description": "d", "default": "x"}
    choices: dict[str, Any] = {}
    opt["choices"] = choices
    choices["set"] = opt if back_to_the_option else choices
    return {"o": opt}


def test_what_a_repr_does_not_tell_apart_is_not_taken_for_a_valid_section(base: dict[str, Any]) -> None:
    """An int's subclass prints as the int, and two different cycles print alike: found by a review
    (a caller of validate may pass either; the loader makes neither)."""
    assert repr(_Int(2)) == "2" and repr(_cyclic(True)) == repr(_cyclic(False))
    S._VALID.clear()
    assert _codes(base) == []
    sub = copy.deepcopy(base)
    sub["min_fan"] = _Int(base["min_fan"])
    assert any("is not of type integer" in m for m in _codes(sub)), _codes(sub)
    good, bad = copy.deepcopy(base), copy.deepcopy(base)
    good["options"], bad["options"] = _cyclic(False), _cyclic(True)
    assert _codes(good) == []
    assert any("unknown key 'default'" in m for m in _codes(bad)), _codes(bad)


def test_a_section_validated_alone_is_remembered_apart(base: dict[str, Any]) -> None:
    """validate_parts checks a section with its own schema: what it remembers is kept apart from
    what a whole document's validation remembers (either may be stricter about references)."""
    S._VALID.clear()
    assert S.validate_parts(base, ("options",), _where) == []
    assert all(k[0] == "/options" for k in S._VALID)
    bad = copy.deepcopy(base)
    first = next(iter(bad["options"]))
    bad["options"][first]["default"] = {"not": "a value"}
    assert S.validate_parts(bad, ("options",), _where)


def test_the_memo_is_bounded(base: dict[str, Any]) -> None:
    S._VALID.clear()
    doc = copy.deepcopy(base)
    for n in range(S._VALID_MAX + 50):
        doc["min_fan"] = n + 1
        assert _codes(doc) == []
    assert len(S._VALID) <= S._VALID_MAX


def _broken(base: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    d = copy.deepcopy(base)
    d["min_fan"], d["colour"] = "x", 1
    del d["patterns"]
    out.append(d)
    d = copy.deepcopy(base)
    d["patterns"][next(iter(d["patterns"]))]["bogus"] = 1
    d["options"] = []
    out.append(d)
    d = copy.deepcopy(base)
    d["kong_points"]["Bad"] = 3
    d.pop("format")
    out.append(d)
    return out


def test_the_sections_walked_give_the_whole_schemas_errors_in_its_order(base: dict[str, Any]) -> None:
    """With every other section known valid, the errors of the sections walked are the ones the
    whole schema's validator gives (paths, schema paths, messages, keywords, order), and so are
    the diagnostics."""
    def described(errors: Any) -> list[tuple[Any, ...]]:
        return [(list(e.absolute_path), list(e.schema_path), e.message, e.validator) for e in errors]
    for bad in _broken(base):
        S._VALID.clear()
        cold = [(d.message, d.hint) for d in S.validate(bad, _where)]
        assert _codes(base) == []
        keys = {k: S._fingerprint(k, v) for k, v in bad.items()}
        assert described(S._errors(bad, keys)) == described(S._validator().iter_errors(bad))
        assert [(d.message, d.hint) for d in S.validate(bad, _where)] == cold and cold


@pytest.mark.parametrize("odd", [object(), b"bytes", {1, 2}, [1, {3}]], ids=["object", "bytes", "set", "list-of-set"])
def test_a_value_no_json_holds_is_an_error_naming_its_type(base: dict[str, Any], odd: Any) -> None:
    # a loaded file holds only what YAML makes, but a program may hand the validator its own data: the type
    # error is said (naming the Python type), not a TypeError out of the message's json.dumps
    doc = copy.deepcopy(base)
    doc["title"] = odd
    msgs = [d.message for d in S.validate(doc, lambda path, key=False: Pos("f", 1, 1))]
    assert f"a value of Python type {type(odd).__name__} is not of type string" in msgs, msgs
