"""A rule file the mask search cannot follow still compiles whole.

A pattern that counts groups (here: at least three chows) is outside what the
generated scorer's mask search can represent; the scorer then enumerates
decompositions, and the rulebook's combination table falls back to a witness
search over random hands. Nothing else in the suite runs `tjmj compile` on such
a rule file end to end (rulebooks, combination table, every profile), which is
what a rule designer who writes such a pattern gets. About a minute of CPU.
"""

from __future__ import annotations

import json
import os
from typing import Any

from tjmj_dsl.api import Scorer, compile_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

OVERLAY = """\
extends: {base}
name: counting_demo
patterns:
  sanshun:
    name: sanshun
    kind: mul
    value: 2
    when: "count(g in melds: g.is_chow) >= 3"
    description: A test overlay, not a Tianjin rule.
    source: tests/test_counting_rules.py (test overlay)
"""


def test_a_counting_rule_file_compiles_whole(tmp_path: Any) -> None:
    path = tmp_path / "counting_demo.yaml"
    path.write_text(OVERLAY.format(base=os.path.join(ROOT, "rules", "tianjin.yaml")), encoding="utf-8")
    out = tmp_path / "out"
    written = compile_rules(str(path), str(out))
    d = out / "counting_demo"
    for f in ("scorer.py", "scorer.mjs", "rulebook.md", "rulebook.html", "combinations.json"):
        assert str(d / f) in written, f
    assert compile_rules(str(path), str(out), check=True) == []  # written once, the same when written again

    combos = json.loads((d / "combinations.json").read_text(encoding="utf-8"))
    assert combos["exhaustive"] is False  # said, not hidden: the mask search cannot enumerate these rules
    assert "cannot follow" in combos["why_not_exhaustive"]
    assert "sanshun" in combos["patterns"]
    # every witness the fallback found, scored again, has the fan, total and verdict written for it and
    # shows only patterns of its set (an answer shows a claimed pattern when the algebra used it). The
    # reference interpreter (not the generated scorer that found them) confirms those with at most 3
    # huns and no request flag: it lists every decomposition, and a 天和 witness with many huns would
    # take it a minute or more
    scorer, ref = Scorer(str(path)), Scorer(str(path), backend="interpreter")
    flags = [f for f, _ in scorer.ruleset.flags]
    assert combos["realisable"]
    confirmed = []
    for row in combos["realisable"]:
        got = scorer.score(row["request"])
        huns = sum(sum(g["huns"]) for g in got["decomposition"])
        checkers = [got] + ([ref.score(row["request"])] if huns <= 3 and not any(row["request"].get(f) for f in flags) else [])
        for res in checkers:
            assert (res["fan"], res["total"], res["win"]) == (row["fan"], row["total"], row["win"]), row
            assert set(res["patterns"]) <= set(row["set"].split()), row
        confirmed += [row["set"]] if len(checkers) == 2 else []
    assert len(confirmed) >= 10 and any("sanshun" in c.split() for c in confirmed), confirmed
    # three chows are easy to hold: the new pattern is met by some witness, and the rulebook shows it
    assert any("sanshun" in row["set"].split() for row in combos["realisable"])
    assert 'id="pattern-sanshun"' in (d / "rulebook.md").read_text(encoding="utf-8")
    assert "sanshun" in (d / "rulebook.html").read_text(encoding="utf-8")
