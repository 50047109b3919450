"""The known-values table: printed score-table rows as concrete hands, with
their source and, where the print is wrong, the erratum. The rule file names
the table (`known_values:`); its rows become generated tests, and `tjmj check`
warns about every erratum and every unmarked disagreement."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from .diagnostics import Diagnostic, Pos, RuleError
from .notation import parse_hand
from .source.located import load
from .tiles import TileError


@dataclass(frozen=True)
class Row:
    table: str
    profile: str
    source: str
    item: str
    name: str
    variant: str
    printed: int
    expected: int | None  # None: the hand cannot exist
    request: dict[str, Any] | None
    patterns: tuple[str, ...]
    why: str
    pos: Pos
    hand: str = ""  # as written in the table (the CLI notation)

    @property
    def id(self) -> str:
        return f"{self.table}:{self.item}{'-' + self.variant if self.variant else ''}:{self.name}"

    @property
    def erratum(self) -> bool:
        return self.expected != self.printed


def known_path(res: Any) -> str | None:
    """The known-values file the rule file itself names (relative to it). An overlay
    does not inherit its base's tables unless it says `known_values: inherit` (its rules
    may differ: then every row the overlay changes is a warning, an error under --strict)."""
    rel = (res.top.data or {}).get("known_values") if res.top is not None else None
    if rel == INHERIT:
        base_rel = (res.base.data or {}).get("known_values")
        return os.path.join(os.path.dirname(res.paths[0]), str(base_rel)) if base_rel and res.paths else None
    return os.path.join(os.path.dirname(res.top_path), str(rel)) if rel else None


INHERIT = "inherit"


_NAME = {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]*$"}
_ROW = {
    "type": "object", "required": ["item", "name", "printed"],
    "properties": {
        "item": {"type": ["string", "integer"]}, "name": {"type": "string"}, "variant": {"type": "string"},
        "printed": {"type": "integer"}, "hand": {"type": "string"}, "indicator": {"type": "string"},
        "kong_draw": {"enum": [None, "exposed", "concealed", "hun"]},
        "patterns": {"type": "array", "items": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}},
        "erratum": {"type": "object", "additionalProperties": False,
                    "properties": {"value": {"type": "integer"}, "impossible": {"type": "boolean"}, "why": {"type": "string"}}},
    },
    "additionalProperties": {"type": ["boolean", "null"]},  # the rule file's request flags: tianhu, dihu, …
}
SCHEMA = {
    "type": "object", "required": ["format", "tables"], "additionalProperties": False,
    "properties": {
        "format": {"const": "tjmj-known/1"},
        "tables": {"type": "array", "items": {
            "type": "object", "required": ["id", "profile", "rows"], "additionalProperties": False,
            "properties": {"id": _NAME, "title": {"type": "string"}, "source": {"type": "string"}, "profile": _NAME,
                           "rows": {"type": "array", "items": _ROW}}}},
    },
}


def load_known(path: str, display: str | None = None, via: Pos | None = None) -> list[Row]:
    """The rows of a known-values file. `via` is the rule file's `known_values:`:
    a file that cannot be read, or is not a known-values file, is reported
    there without echoing its content."""
    from .passes.schema import _validator_class, convert_error
    from .source.files import FileProblem, read_text
    disp = display or path
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise RuleError([Diagnostic("error", "known", f"no file {disp}", via or Pos(disp, 1, 1),
                                    "known_values names a file beside the rule file")]) from None
    except FileProblem as e:
        raise RuleError([Diagnostic("error", "known", e.message, via or Pos(disp, 1, 1), e.hint)]) from None
    if via is not None and not re.search(r"^format:\s*[\"']?tjmj-known/1", text, re.M):
        raise RuleError([Diagnostic("error", "known", f"{disp} is not a known-values file", via,
                                    "a known-values file starts with `format: tjmj-known/1`")])
    doc = load(disp, text)
    diags: list[Diagnostic] = []
    rows: list[Row] = []
    data = doc.data
    if not isinstance(data, dict) or data.get("format") != "tjmj-known/1":
        raise RuleError([Diagnostic("error", "known", "expected `format: tjmj-known/1`", doc.pos(("format",)))],
                        {doc.file: text})
    for err in _validator_class()(SCHEMA).iter_errors(data):
        diags.extend(convert_error(err, doc.pos))
    if diags:
        raise RuleError(sorted(diags, key=lambda d: (d.pos.line, d.pos.col) if d.pos else (0, 0)), {doc.file: text})
    for ti, table in enumerate(data.get("tables") or []):
        for ri, r in enumerate(table.get("rows") or []):
            at = ("tables", ti, "rows", ri)
            err = r.get("erratum") or {}
            req = None
            if not err.get("impossible"):
                try:
                    req = dict(parse_hand(str(r["hand"])), indicator=str(r["indicator"]))
                except TileError as e:
                    diags.append(Diagnostic("error", "known", e.message, doc.pos(at + ("hand",)), e.hint))
                    continue
                except KeyError as e:
                    diags.append(Diagnostic("error", "known", f"row without {e.args[0]}", doc.pos(at)))
                    continue
                for k, v in r.items():  # kong_draw and the rule file's request flags
                    if (k == "kong_draw" or k not in _ROW["properties"]) and v is not None:
                        req[k] = v
            expected = None if err.get("impossible") else int(err.get("value", r["printed"]))
            rows.append(Row(table["id"], table["profile"], str(table.get("source", "")), str(r["item"]), str(r["name"]),
                            str(r.get("variant", "")), int(r["printed"]), expected, req,
                            tuple(r.get("patterns") or ()), str(err.get("why", "")), doc.pos(at),
                            str(r.get("hand", ""))))
    if diags:
        raise RuleError(diags, {doc.file: text})
    return rows


def known_rows(rules_path: str | None) -> list[Row]:
    """Every known-values row of a rule file (the built-in one when None), every table."""
    from .compiler import builtin_rules_path, read_rules
    return rows_of(read_rules(rules_path or builtin_rules_path()))


def rows_of(res: Any) -> list[Row]:
    """The rows of the known-values file a read rule file names (none if it
    names none); problems are reported at its `known_values:`."""
    from .compiler import display_name
    kp = known_path(res)
    if not kp:
        return []
    if not isinstance(res.top.data.get("known_values"), str):  # type: ignore[union-attr]
        raise RuleError([Diagnostic("error", "known", "known_values names a file (text)", res.top.pos(("known_values",)))],  # type: ignore[union-attr]
                        res.sources())
    try:
        return load_known(kp, display_name(kp), res.top.pos(("known_values",)))  # type: ignore[union-attr]
    except RuleError as e:
        for k, v in res.sources().items():
            e.sources.setdefault(k, v)
        raise


def rows_for(rules_path: str | None, profile: str) -> list[Row]:
    return [r for r in known_rows(rules_path) if r.profile == profile]
