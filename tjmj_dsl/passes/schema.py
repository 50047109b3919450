"""Validate a rule document against rules/schema.json; every error becomes a
Diagnostic at the line and column of the offending node."""

from __future__ import annotations

import json
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
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema())


def validate(data: Any, where: Callable[[tuple[Any, ...], bool], Pos]) -> list[Diagnostic]:
    """`where(path, key)` gives the position of a path (of its key if asked)."""
    v = _validator()
    out: list[Diagnostic] = []
    for e in v.iter_errors(data):
        out.extend(_convert(e, where))
    out.sort(key=lambda d: (d.pos.line, d.pos.col) if d.pos else (0, 0))
    return out


def _convert(e: jsonschema.ValidationError, where: Callable[[tuple[Any, ...], bool], Pos]) -> list[Diagnostic]:
    path = tuple(e.absolute_path)
    sch: dict[str, Any] = e.schema if isinstance(e.schema, dict) else {}
    if e.validator in ("oneOf", "anyOf") and e.context:
        # pick the branch that got furthest, as jsonschema's best_match does
        best = jsonschema.exceptions.best_match(e.context)
        if best is not None and best.validator != "required":
            return _convert(best, where)
        return [Diagnostic("error", "schema", _msg(e), where(path, True), "an option has either choices, or values with set")]
    if e.validator == "additionalProperties" and isinstance(e.instance, dict):
        allowed = _props(sch)
        out = []
        for k in e.instance:
            if k not in allowed and not any(k == p for p in sch.get("patternProperties", {})):
                out.append(Diagnostic("error", "schema", f"unknown key {k!r}", where(path + (k,), True),
                                      did_you_mean(k, allowed) or ("allowed keys: " + ", ".join(allowed))))
        return out
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
                           where(path, False), "tjmj knows the standard 136-tile set only")]
    if e.validator == "enum":
        hint = did_you_mean(str(e.instance), [str(x) for x in e.validator_value])  # type: ignore[union-attr]
        return [Diagnostic("error", "schema", f"{e.instance!r} is not one of {e.validator_value}", where(path, False), hint)]
    return [Diagnostic("error", "schema", _msg(e), where(path, False))]


def _names_hint(e: jsonschema.ValidationError) -> str:
    sch = e.schema.get("propertyNames", {}) if isinstance(e.schema, dict) else {}
    if "enum" in sch:
        return did_you_mean(str(e.instance), sch["enum"]) or "one of " + ", ".join(sch["enum"])
    return "lower-case letters, digits and _ (a pinyin id such as zhuo5)"


def _msg(e: jsonschema.ValidationError) -> str:
    m = e.message
    if e.validator == "type":
        return f"{json.dumps(e.instance, ensure_ascii=False)[:40]} is not of type {e.validator_value}"
    if e.validator == "minimum":
        return f"{e.instance} is below the minimum {e.validator_value}"
    return m
