"""The generated scorer caches claims per hand-level key; a claim must not be
reused for a hand whose tile counts make it differ."""

from __future__ import annotations


def test_the_generated_scorer_answer_does_not_depend_on_what_it_scored_before() -> None:
    # found by the rulebook's examples: with 素本龙 on, a claim cached for one hand's counts was
    # reused for another (two 9条, no 1条: not 素本龙, seed-000: 当混儿作它本身的牌讲，且每样有且只有一张)
    from tjmj_dsl import Scorer
    s = Scorer(options={"subenlong": "on"})
    first = s.score({"concealed": "123s46s789sEEE55m", "draw": "5s", "indicator": "9s"})
    second = s.score({"concealed": "9s23s46s789sEEE55m", "draw": "5s", "indicator": "9s"})
    assert (first["fan"], first["patterns"]) == (16, ["long", "benhun", "subenlong"])   # 4 × 2 × 2
    assert (second["fan"], second["patterns"]) == (8, ["long", "benhun"])                # 4 × 2
