"""Validate a rule document against rules/schema.json; every error becomes a
Diagnostic at the line and column of the offending node."""

from __future__ import annotations

import hashlib
import json
import pickle
import re
from collections import OrderedDict
from functools import lru_cache
from typing import Any, Callable

import jsonschema

from ..diagnostics import Diagnostic, Pos, did_you_mean
from ..source.files import rules_file


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    with open(rules_file("schema.json"), encoding="utf-8") as f:
        return json.loads(f.read())


def _props(sch: dict[str, Any]) -> list[str]:
    return list(sch.get("properties", {}))


@lru_cache(maxsize=1)
def _validator() -> Any:
    """The rule file's validator, built once."""
    return _validator_class()(schema())


@lru_cache(maxsize=1)
def _validator_class() -> Any:
    """Draft 2020-12 where an integer is an int: JSON Schema counts 3.0 as an
    integer, but YAML's 3.0 is a float, and a rule file's 3.0 must not pass
    for 3 (nor be replaced by a default later)."""
    def is_int(_: Any, x: Any) -> bool:
        return type(x) is int

    def is_number(_: Any, x: Any) -> bool:
        return type(x) in (int, float)

    def pattern(validator: Any, patrn: str, instance: Any, sch: Any) -> Any:
        """ECMA-262's `$` (the schema's dialect) ends the string; Python's would
        also match before a final newline, so "k\\n" would pass for a name."""
        if not validator.is_type(instance, "string"):
            return
        p = patrn[:-1] + r"\Z" if patrn.endswith("$") and not patrn.endswith("\\$") else patrn
        if not _regex(p).search(instance):
            yield jsonschema.ValidationError(f"{_shown(instance)} does not match {patrn!r}")

    def max_length(validator: Any, most: int, instance: Any, sch: Any) -> Any:
        """Said with the text's length, not the text: a name of 100,000 characters is not echoed whole."""
        if validator.is_type(instance, "string") and len(instance) > most:
            yield jsonschema.ValidationError(f"{_shown(instance)} has {len(instance):,} characters; at most {most} here")

    checker = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many({"integer": is_int, "number": is_number})
    return jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": pattern, "maxLength": max_length},
                                        type_checker=checker)


def _shown(text: str, most: int = 40) -> str:
    """A text in a message: its first `most` characters."""
    return repr(text) if len(text) <= most else repr(text[:most]) + "…"


@lru_cache(maxsize=64)
def _regex(p: str) -> "re.Pattern[str]":
    return re.compile(p)


# Sections found valid, by their fingerprint: `tjmj check` lowers the same file once per option value
# and profile (about a hundred times for the built-in rules), and each lowering validated every
# section again, though an option changes one or two (over a quarter of a check's time went there). A
# section's validity depends on it alone: the top of the schema couples sections only by which keys
# are present (`_top_validator`). Bounded, the oldest forgotten first.
_VALID: "OrderedDict[tuple[str, int, bytes], None]" = OrderedDict()
_VALID_MAX = 1024


def _fingerprint(k: str, value: Any) -> tuple[str, int, bytes] | None:
    """A section's key: the schema's identity and the digest of the section's pickle, which holds
    everything a validator can see — each value's exact type (1, 1.0, True and "1"; an int's
    subclass; a tuple for a list; a key's type) and which container a cycle returns to (a repr's
    `{...}` does not say). The same data shared otherwise, or in another order, is only a miss.
    None if it cannot be made (then the section is walked)."""
    try:
        raw = pickle.dumps(value, protocol=5)
    except Exception:  # noqa: BLE001 - anything that cannot be pickled is walked, never remembered
        return None
    return k, id(schema()), hashlib.blake2b(raw, digest_size=20).digest()


def _known_valid(key: tuple[str, int, bytes] | None) -> bool:
    """Whether the section was found valid (and now the most recent). One call into the memo, so
    that threads lowering rules at once (a server's) cannot remove the key between a test and a move."""
    if key is None:
        return False
    try:
        _VALID.move_to_end(key)
    except KeyError:
        return False
    return True


def _remember_valid(key: tuple[str, int, bytes] | None) -> None:
    if key is None:
        return
    _VALID[key] = None
    if len(_VALID) > _VALID_MAX:
        try:
            _VALID.popitem(last=False)
        except KeyError:  # another thread emptied it meanwhile
            pass


@lru_cache(maxsize=1)
def _top_validator() -> Any:
    """The schema's top without what its sections hold: its type, which keys it allows, which it
    requires (each section's schema replaced by `true`)."""
    sch = dict(schema())
    sch["properties"] = {k: True for k in sch.get("properties", {})}
    return _validator_class()(sch)


def _errors(data: Any, keys: dict[str, tuple[str, int, bytes] | None]) -> Any:
    """The schema's errors in `data`, as the whole schema's validator gives them, in its order; with
    `keys` (the sections' fingerprints), the sections known valid are not walked: the top's own
    keywords, then each other section as the `properties` keyword would walk it."""
    v = _validator()
    if not keys:
        yield from v.iter_errors(data)
        return
    sch = schema()
    order = list(sch)
    at = order.index("properties") if "properties" in order else len(order)
    top = list(_top_validator().iter_errors(data))
    rank = [order.index(e.schema_path[0]) if e.schema_path and e.schema_path[0] in order else len(order) for e in top]
    yield from (e for e, r in zip(top, rank) if r < at)
    for k, sub in sch.get("properties", {}).items():
        if k in data and not _known_valid(keys.get(k)):
            for e in v.descend(data[k], sub, path=k, schema_path=k):
                e.schema_path.appendleft("properties")  # as the whole schema's `properties` keyword says it
                yield e
    yield from (e for e, r in zip(top, rank) if r >= at)


def validate(data: Any, where: Callable[[tuple[Any, ...], bool], Pos]) -> list[Diagnostic]:
    """`where(path, key)` gives the position of a path (of its key if asked). A document whose top is
    well formed and whose every section was found valid before is valid without walking it again."""
    keys: dict[str, tuple[str, int, bytes] | None] = {}
    if isinstance(data, dict) and all(type(k) is str for k in data):
        keys = {k: _fingerprint(k, v) for k, v in data.items()}
        if all(_known_valid(f) for f in keys.values()) and _top_validator().is_valid(data):
            return []
    out: list[Diagnostic] = []
    missing: list[str] = []  # keys the document lacks at its top
    bad: set[Any] = set()  # the sections an error is in
    for e in _errors(data, keys):
        if e.absolute_path:
            bad.add(e.absolute_path[0])
        if e.validator == "required" and not e.absolute_path and "'" in e.message:
            missing.append(e.message.split("'")[1])
            continue
        out.extend(convert_error(e, where))
    if "format" in missing:  # not a rule file yet (an empty one, or another YAML): one error that says how to start
        out.append(Diagnostic("error", "schema", f"not a rule file: no `format: tjmj-rules/1` (and no {', '.join(m for m in missing if m != 'format')})"
                              if len(missing) > 1 else "missing key 'format'", where((), True),
                              "to change the built-in rules, start the file with `extends: builtin:tianjin` and write only "
                              "what differs; `tjmj init NAME` writes NAME.yaml, a whole rule file to edit"))
    else:
        out.extend(Diagnostic("error", "schema", f"missing key {m!r}", where((), True), f"add {m}: …") for m in missing)
    props = schema().get("properties", {})
    for k, f in keys.items():
        if k not in bad and k in props:
            _remember_valid(f)
    out.sort(key=lambda d: (d.pos.line, d.pos.col) if d.pos else (0, 0))
    return out


def validate_parts(data: Any, keys: tuple[str, ...], where: Callable[[tuple[Any, ...], bool], Pos]) -> list[Diagnostic]:
    """Validate only the top-level `keys` of a document (those a pass needs
    well formed before the whole is checked), reporting at the same positions."""
    if not isinstance(data, dict):
        return []
    props = schema()["properties"]
    out: list[Diagnostic] = []
    for k in keys:
        if k not in data or k not in props:
            continue
        f = _fingerprint("/" + k, data[k])  # validated by the section's schema alone: kept apart
        if _known_valid(f):
            continue
        v = _validator_class()(props[k])

        def at(p: tuple[Any, ...], key: bool, k: str = k) -> Pos:
            return where((k,) + tuple(p), key)
        found = [d for e in v.iter_errors(data[k]) for d in convert_error(e, at)]
        if not found:
            _remember_valid(f)
        out += found
    return out


def convert_error(e: jsonschema.ValidationError, where: Callable[[tuple[Any, ...], bool], Pos]) -> list[Diagnostic]:
    path = tuple(e.absolute_path)
    sch: dict[str, Any] = e.schema if isinstance(e.schema, dict) else {}
    if e.validator in ("oneOf", "anyOf") and e.context:
        # pick the branch that got furthest, as jsonschema's best_match does
        best = jsonschema.exceptions.best_match(e.context)
        if best is not None and best.validator != "required":
            return convert_error(best, where)
        return [Diagnostic("error", "schema", _msg(e), where(path, True), "an option has either choices, or values with set")]
    if e.validator == "additionalProperties" and isinstance(e.instance, dict):
        allowed = _props(sch)
        out = []
        for k in e.instance:
            if k not in allowed and not any(k == p for p in sch.get("patternProperties", {})):
                out.append(Diagnostic("error", "schema", f"unknown key {k!r}", where(path + (k,), True),
                                      did_you_mean(k, allowed) or ("allowed keys: " + ", ".join(allowed))))
        return out
    if "propertyNames" in list(e.schema_path)[-2:-1] and isinstance(e.instance, str):  # a key that is not a name
        bad: Any = e.instance
        hint = (f"one of {', '.join(sch['enum'])}" if "enum" in sch else
                "lower-case letters, digits and _ (a pinyin id such as zhuo5)" if sch.get("pattern") == "^[a-z][a-z0-9_]*$"
                else f"a name matching {sch.get('pattern', '')}")
        if "enum" in sch:
            hint = did_you_mean(bad, sch["enum"]) or hint
        return [Diagnostic("error", "schema", f"{_short(bad)} is not an allowed name here", where(path + (bad,), True), hint)]
    if e.validator == "propertyNames":
        bad = e.instance
        return [Diagnostic("error", "schema", f"{bad!r} is not an allowed name here", where(path + (bad,), True)
                           if isinstance(bad, str) else where(path, True), _names_hint(e))]
    if e.validator == "required":
        missing = e.message.split("'")[1] if "'" in e.message else e.message
        return [Diagnostic("error", "schema", f"missing key {missing!r}", where(path, True),
                           f"add {missing}: …")]
    if e.validator == "const":
        return [Diagnostic("error", "schema", f"must be {json.dumps(e.validator_value, ensure_ascii=False)}",
                           where(path, False), (e.schema.get("description") if isinstance(e.schema, dict) else None)
                           or "tjmj knows the standard 136-tile set only")]
    if e.validator == "enum":
        hint = did_you_mean(str(e.instance), [str(x) for x in e.validator_value])  # type: ignore[union-attr]
        return [Diagnostic("error", "schema", f"{e.instance!r} is not one of {e.validator_value}", where(path, False), hint)]
    return [Diagnostic("error", "schema", _msg(e), where(path, False))]


def _names_hint(e: jsonschema.ValidationError) -> str:
    sch = e.schema.get("propertyNames", {}) if isinstance(e.schema, dict) else {}
    if "enum" in sch:
        return did_you_mean(str(e.instance), sch["enum"]) or "one of " + ", ".join(sch["enum"])
    return "lower-case letters, digits and _ (a pinyin id such as zhuo5)"


def _short(x: object, n: int = 60) -> str:
    """A value for a message: its repr, cut short (a hostile key may be huge)."""
    r = repr(x)
    return r if len(r) <= n else r[: n - 1] + "…"


def _msg(e: jsonschema.ValidationError) -> str:
    m = e.message
    if e.validator == "type":
        try:
            shown = json.dumps(e.instance, ensure_ascii=False)[:40]
        except (TypeError, ValueError):  # a value no JSON holds (a caller's object, never a loaded file's): its type
            shown = f"a value of Python type {type(e.instance).__name__[:40]}"
        return f"{shown} is not of type {e.validator_value}"
    if e.validator == "minimum":
        return f"{e.instance} is below the minimum {e.validator_value}"
    return m
