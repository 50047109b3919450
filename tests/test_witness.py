"""The witness search (tjmj_dsl/analysis/witness.py): every set of patterns a
best reading can claim has a hand, checked here by the reference interpreter;
every other set has a reason, and the reasons below are the reading's, worked
out by hand."""

from __future__ import annotations

import os
from typing import Any

import pytest

from tjmj_dsl.analysis.witness import Impossible, Undecided, Witness, analyse
from tjmj_dsl.backends.interpret import interpreter
from tjmj_dsl.compiler import load_rules
from tjmj_dsl.engine import runtime
from tjmj_dsl.engine.request import parse_request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REASONS = {"disabled", "requires", "conflict", "never_holds", "never_together", "refused", "always_with",
           "outranked", "dominated", "dropped"}


@pytest.fixture(scope="module")
def an() -> Any:
    return analyse(load_rules())


@pytest.fixture(scope="module")
def ref() -> Any:
    return interpreter(load_rules())


def claimed_by_interpreter(ref: Any, request: dict[str, Any]) -> tuple[str, ...]:
    """What the reference interpreter's best reading claims (every pattern, shown or not)."""
    req = parse_request(request, True, ref.flags, ref.copies)
    assert req.draw is not None
    h = runtime.make_hand(ref, req, req.draw)
    assert not ref.request_errors(h), (request, ref.request_errors(h))
    best, _, _ = runtime.best_claim(ref, h)
    assert best is not None
    return tuple(pid for i, pid in enumerate(ref.ids) if best[2] >> i & 1)


def test_the_built_in_rules_are_searched_exhaustively(an: Any) -> None:
    assert an.exhaustive, an.why_not_exhaustive


def test_every_witness_is_confirmed_by_the_interpreter(an: Any, ref: Any) -> None:
    found = an.claimable()
    assert len(found) >= 40
    for pats, w in found.items():
        assert set(w.patterns) == pats
        assert claimed_by_interpreter(ref, w.request) == w.patterns, w


def test_every_pattern_has_a_witness(an: Any, ref: Any) -> None:
    for pid in an.ids:
        w = an.pattern(pid)
        assert isinstance(w, Witness), w
        assert pid in claimed_by_interpreter(ref, w.request)


@pytest.mark.parametrize("pats", [
    ("tiliu", "su"),
    ("tiliu", "zhuo5", "long", "shuanghun", "benhun"),  # the README's 28
    ("tiliu", "zhuo5", "shuanghun", "gangkai"),
    ("tiliu", "long", "shuanghun"),  # a 龙 apart from the 双混吊 meld
    ("tiliu", "hundiao", "dihu"),
    ("tiliu", "zhuo5", "long", "su", "gangkai"),
])
def test_sets_a_hand_claims(an: Any, ref: Any, pats: tuple[str, ...]) -> None:
    w = an.verdict(pats)
    assert isinstance(w, Witness), w
    assert claimed_by_interpreter(ref, w.request) == pats


@pytest.mark.parametrize("pats, reason, words", [
    # 杠开 + 双混吊 + 捉5 + 龙: 捉5's chow holds the winning tile, so it is the 双混吊 meld; the 龙
    # must keep apart from it (three more chows), and the kong is a fifth meld
    (("tiliu", "zhuo5", "long", "shuanghun", "gangkai"), "conflict", ["双混吊", "龙"]),
    (("tiliu", "su", "hundiao"), "never_together", ["素", "混吊"]),  # a 混吊 pair holds a hun
    (("tiliu", "su", "shuanghun"), "never_together", ["素", "双混吊"]),
    (("tiliu", "long", "su", "benhun"), "never_together", ["素", "本混"]),  # 1-9 of the hun suit holds the hun kinds
    (("tiliu", "hundiao", "shuanghun"), "never_together", ["混吊", "双混吊"]),  # one winning tile
    (("tiliu", "tianhu", "dihu"), "refused", ["not both"]),
    (("tiliu", "gangkai", "tianhu"), "refused", ["first draw"]),
    (("tiliu", "benhun"), "requires", ["龙"]),
    (("tiliu", "tianting"), "disabled", ["tianting"]),
    (("zhuo5",), "always_with", ["提溜"]),  # 提溜 holds on every decomposition
])
def test_sets_no_hand_claims(an: Any, pats: tuple[str, ...], reason: str, words: list[str]) -> None:
    v = an.verdict(pats)
    assert isinstance(v, Impossible) and v.reason == reason, v
    for w in words:
        assert w in v.message, v


def test_the_table_decides_every_set(an: Any) -> None:
    table = an.table()
    assert len(table) == 2 ** len(an.ids)
    assert not [v for v in table if isinstance(v, Undecided)]
    assert {v.reason for v in table if isinstance(v, Impossible)} <= REASONS
    assert sum(isinstance(v, Witness) for v in table) == len(an.claimable())


def test_a_variant_pattern_gets_its_witness() -> None:
    an = analyse(load_rules(options={"tianting": "on"}))
    w = an.pattern("tianting")
    assert isinstance(w, Witness) and w.request.get("tianting") is True


def test_rules_outside_the_abstraction_are_undecided_not_impossible(tmp_path: Any) -> None:
    overlay = tmp_path / "qidui.yaml"
    overlay.write_text(
        f"extends: {os.path.join(ROOT, 'rules', 'tianjin.yaml')}\n"
        "patterns:\n"
        "  liangdui:\n"
        "    name: 两对\n"
        "    kind: mul\n"
        "    value: 2\n"
        "    when: \"count(g in groups: g.is_pung) == 2\"\n"
        "    description: two pungs (a test of a predicate the mask search cannot follow)\n"
        "    source: test\n", encoding="utf-8")
    an = analyse(load_rules(str(overlay)))
    assert not an.exhaustive
    assert isinstance(an.pattern("su"), Witness)  # the random search still finds hands
    v = an.verdict(("tiliu", "su", "hundiao"))
    assert isinstance(v, Undecided)


def test_subenlong_is_found_from_the_rule_files_own_example(ref: Any) -> None:
    """素本龙 reads which tile each hun stands for, outside the exhaustive search, and random
    hands rarely hold exactly one tile of each hun kind inside the 龙: the rule file's own
    example hand (one 9条 and one 1条 under a 9条 indicator) is tried as a witness."""
    rs = load_rules(options={"subenlong": "on"})
    an = analyse(rs)
    assert not an.exhaustive
    w = an.pattern("subenlong")
    assert isinstance(w, Witness), w
    assert "subenlong" in claimed_by_interpreter(interpreter(rs), w.request)


def test_a_search_past_its_budget_proves_nothing_it_did_not_find(monkeypatch: pytest.MonkeyPatch) -> None:
    # an audit's file of 34 more patterns kept `tjmj check` busy past 15 minutes: the search stops after
    # MAX_SCORED hands, keeps what it found, and calls what it did not find Undecided, never Impossible
    from tjmj_dsl.analysis import witness
    from tjmj_dsl.analysis.witness import Search
    monkeypatch.setattr(witness, "MAX_SCORED", 5)
    rs = load_rules()
    s = Search(rs)
    found = s.claimable()
    assert s.scored == 6 and not s.exhaustive and "5 hands" in s.why_not_exhaustive
    monkeypatch.setattr(witness, "MAX_SCORED", 30_000)
    full = Search(rs)
    assert full.exhaustive and len(found) < len(full.claimable())
    assert set(found) <= set(full.claimable())  # each one found is a real witness
    verdicts = s.table()
    assert not [v for v in verdicts if isinstance(v, Impossible) and v.reason in ("dominated", "outranked",
                                                                                  "never_holds", "never_together")]
    assert [v for v in verdicts if isinstance(v, Undecided)] and [v for v in verdicts if isinstance(v, Witness)]
