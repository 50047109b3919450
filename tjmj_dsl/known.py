"""The known-values table: printed score-table rows as concrete hands, with
their source and, where the print is wrong, the erratum. The rule file names
the table (`known_values:`); its rows become generated tests, and `tjmj check`
warns about every erratum and every unmarked disagreement."""

from __future__ import annotations

import os
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
        return os.path.join(os.path.dirname(res.paths[0]), base_rel) if base_rel and res.paths else None
    return os.path.join(os.path.dirname(res.top_path), rel) if rel else None


INHERIT = "inherit"


def load_known(path: str, display: str | None = None) -> list[Row]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    doc = load(display or path, text)
    diags: list[Diagnostic] = []
    rows: list[Row] = []
    data = doc.data or {}
    if data.get("format") != "tjmj-known/1":
        raise RuleError([Diagnostic("error", "known", "expected `format: tjmj-known/1`", doc.pos(("format",)))],
                        {doc.file: text})
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
                for k in ("kong_draw", "tianhu", "dihu", "tianting"):
                    if r.get(k) is not None:
                        req[k] = r[k]
            expected = None if err.get("impossible") else int(err.get("value", r["printed"]))
            rows.append(Row(table["id"], table["profile"], str(table.get("source", "")), str(r["item"]), str(r["name"]),
                            str(r.get("variant", "")), int(r["printed"]), expected, req,
                            tuple(r.get("patterns") or ()), str(err.get("why", "")), doc.pos(at),
                            str(r.get("hand", ""))))
    if diags:
        raise RuleError(diags, {doc.file: text})
    return rows


def rows_for(rules_path: str | None, profile: str) -> list[Row]:
    from .compiler import builtin_rules_path, display_name, read_rules
    path = rules_path or builtin_rules_path()
    kp = known_path(read_rules(path))
    if not kp:
        return []
    return [r for r in load_known(kp, display_name(kp)) if r.profile == profile]


def check_known(rules_path: str | None) -> list[Diagnostic]:
    """One warning per erratum row (printed X, the rules give Y, why), and one
    per row whose printed value the rules do not give and that is not marked."""
    from .api import Scorer
    from .compiler import builtin_rules_path, display_name, read_rules
    path = rules_path or builtin_rules_path()
    kp = known_path(read_rules(path))
    if not kp:
        return []
    out: list[Diagnostic] = []
    scorers: dict[str, Scorer] = {}
    for row in load_known(kp, display_name(kp)):
        if row.profile not in scorers:
            scorers[row.profile] = Scorer(path, row.profile)
        if row.request is None:
            out.append(Diagnostic("warning", "erratum", f"{row.source} {row.item} {row.name}{' ' + row.variant if row.variant else ''}: "
                                  f"printed {row.printed}, but the hand cannot exist", row.pos, row.why))
            continue
        got = scorers[row.profile].score(row.request)
        value = got["total"] if got["win"] else None
        if row.erratum:
            out.append(Diagnostic("warning", "erratum", f"{row.source} {row.item} {row.name}{' ' + row.variant if row.variant else ''}: "
                                  f"printed {row.printed}, the rules give {row.expected}", row.pos, row.why))
        if value != row.expected:
            out.append(Diagnostic("warning", "disagree", f"{row.id}: the table expects {row.expected}, the rules give {value}"
                                  + (f" ({got['error']['message']})" if got.get("error") else ""), row.pos,
                                  "fix the hand, or mark the row with an erratum saying why the print is wrong"))
    return out
