"""The known values checked against the rules: one warning per erratum row (printed X, the rules
give Y, why), one per row whose printed value the rules do not give. Apart from known.py, which
reads the rows, because it scores them (api.Scorer): known.py is read by the backends that
api.compile_rules runs, so it imports no scorer."""

from __future__ import annotations

from ..api import Scorer
from ..compiler import builtin_rules_path
from ..diagnostics import Diagnostic, RuleError
from ..known import known_rows


def check_known(rules_path: str | None) -> list[Diagnostic]:
    """One warning per erratum row (printed X, the rules give Y, why), and one
    per row whose printed value the rules do not give and that is not marked."""
    path = rules_path or builtin_rules_path()
    out: list[Diagnostic] = []
    scorers: dict[str, Scorer] = {}
    for row in known_rows(rules_path):
        if row.profile not in scorers:
            try:
                scorers[row.profile] = Scorer(path, row.profile)
            except RuleError as e:  # said at the row (a hostile review: `no profile 'seed-001'`, with no place)
                if not any(d.code == "profile" for d in e.diagnostics):
                    raise
                raise RuleError([Diagnostic(
                    "error", "profile", f"known value {row.id} is of profile {row.profile!r}, which these rules do not "
                    "have", row.pos, "known_values: inherit keeps the base's rows and their profiles: keep those "
                    "profiles, or name a known-values file of these rules' own")], e.sources) from None
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
