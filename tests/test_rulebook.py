"""The rulebook: examples in the rule file are checked against the generated
scorer while it is built (a wrong one fails with the example's position),
a pattern or option without an example is a `tjmj check` warning, every
rule-file string is escaped, and the committed rulebooks hold what a learner
needs. Expected numbers are the seeds' (by hand), not the scorer's."""

from __future__ import annotations

import os
import re
import shutil

import pytest

from tjmj_dsl.backends.outputs import outputs
from tjmj_dsl.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = os.path.join(ROOT, "rules", "tianjin.yaml")
GEN = os.path.join(ROOT, "generated", "tianjin")


def _copy_rules(tmp: str, edit: "callable[[str], str] | None" = None) -> str:  # type: ignore[valid-type]
    for name in ("tianjin.yaml", "tianjin.known.yaml", "schema.json"):
        shutil.copy(os.path.join(ROOT, "rules", name), os.path.join(tmp, name))
    path = os.path.join(tmp, "tianjin.yaml")
    if edit is not None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = edit(text)  # type: ignore[misc]
        assert new != text
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    return path


def _read(rel: str) -> str:
    with open(os.path.join(GEN, rel), encoding="utf-8") as f:
        return f.read()


def test_a_wrong_example_fails_the_build_at_its_line(tmp_path: str, capsys: pytest.CaptureFixture[str]) -> None:
    # 素5 is 3 × 2 = 6 (seed-001 牌型番数); say 7 and the build must point at the 7
    path = _copy_rules(str(tmp_path), lambda t: t.replace(
        'indicator: 7p, patterns: [zhuo5, su], fan: 6,', 'indicator: 7p, patterns: [zhuo5, su], fan: 7,', 1))
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    line = next(i for i, x in enumerate(lines, 1) if "patterns: [zhuo5, su], fan: 7," in x)
    col = lines[line - 1].index("7,") + 1
    assert main(["compile", path, "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert f"tianjin.yaml:{line}:{col}: error: example of zhuo5" in err
    assert "the scorer gives fan 6 (3×2 = 6), not 7" in err
    assert "^" in err  # the caret under the 7
    assert not os.path.exists(tmp_path / "out" / "tianjin" / "rulebook.html")
    # tjmj check says the same
    assert main(["check", path]) == 1
    assert f"tianjin.yaml:{line}:{col}: error: example of zhuo5" in capsys.readouterr().err


def test_a_near_miss_that_claims_its_pattern_is_an_error(tmp_path: str, capsys: pytest.CaptureFixture[str]) -> None:
    # the seed's bare 提溜 (seed-001 胡牌条件) given as a near miss of 提溜 itself
    path = _copy_rules(str(tmp_path), lambda t: t.replace(
        '''    near_misses:
      - {hand: "11m 22m 33p 44p 55s 66s 7s +7s", indicator: E, patterns: [], fan: 0, win: false,''',
        '''    near_misses:
      - {hand: "33m 123s 123p 45m 9m 45s +6s", indicator: 8m, patterns: [tiliu], fan: 1, win: false,''', 1))
    assert main(["check", path]) == 1
    assert "a near miss of tiliu must not claim it" in capsys.readouterr().err


def test_a_pattern_or_option_without_an_example_is_a_check_warning(tmp_path: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    def strip(text: str) -> str:
        # drop 龙's examples and near misses, and min_fan's examples
        text = re.sub(r"(    source: seed-001 龙; seed-000 龙\n)(    (examples|near_misses):\n(      .*\n|         .*\n)+)+",
                      r"\1", text)
        return re.sub(r"(    describe: \"A hand needs at least \$value fan to win.\"\n)    examples:\n(      .*\n|         .*\n)+",
                      r"\1", text)
    path = _copy_rules(str(tmp_path), strip)
    assert main(["check", path]) == 0
    out = capsys.readouterr().out
    assert "warning: pattern long has no example" in out
    assert "warning: pattern long has no near miss" in out
    assert "warning: option min_fan has no example" in out
    # the built-in rules have them all
    assert main(["check", RULES]) == 0
    assert "no example" not in capsys.readouterr().out


def test_an_option_value_that_no_example_tells_apart_is_a_warning(tmp_path: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # keep only the 素提溜 example of min_fan: 1 and 2 both win it, so nothing shows what 1 changes
    path = _copy_rules(str(tmp_path), lambda t: re.sub(
        r"      - \{hand: \"33m 123s 123p 45m 9m 45s \+6s\", indicator: 8m, note: \"seed-001's bare 提溜 \(1 fan\).\",\n.*\n", "",
        t, count=1))
    assert main(["check", path]) == 0
    assert "option min_fan: no example shows what 1 changes" in capsys.readouterr().out


def test_hostile_text_is_escaped_in_both_rulebooks(tmp_path: str) -> None:
    evil = '<script>alert(1)</script> <img src=http://x.invalid/a.png> [a](javascript:alert(1)) `x` | ** # -->'
    path = _copy_rules(str(tmp_path), lambda t: t.replace(
        "description: The 龙 is in the suit of the huns.",
        "description: " + '"' + evil.replace('"', '\\"') + '"', 1).replace(
        'note: "The huns are 9条 and 1条, and the 龙 is in 条."', 'note: "' + evil + '"', 1))
    files = outputs(path, docs_only=True)
    html = files["tianjin/rulebook.html"]
    md = files["tianjin/rulebook.md"]
    # the one script element is the in-page scorer's (book/scorer_page.py): the text opens none
    assert html.count("<script") == 1 and html.count('<script type="module">') == 1
    assert "<img" not in html and "javascript:alert" not in html.replace("javascript:alert(1))", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'src="http' not in html
    assert not re.search(r"(?<!\\)<(script|img)", md)  # only as escaped text
    assert r"\<script\>alert(1)\</script\>" in md
    assert r"\[a\](javascript" in md and not re.search(r"(?<!\\)\]\(javascript", md)
    assert "x.invalid" in md and "http://x.invalid" not in md  # no autolink
    # a description cannot end the generated-file comment or start a block
    assert md.splitlines()[0].startswith("<!-- @generated by tjmj") and md.count("-->") == 1
    assert html.count("-->") == 1


def test_docs_writes_one_profile(tmp_path: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "docs")
    assert main(["docs", "--profile", "seed-000-coins", "--out", out]) == 0
    assert sorted(os.listdir(os.path.join(out, "tianjin", "seed_000_coins"))) == ["combinations.json", "rulebook.html",
                                                                                 "rulebook.md"]
    assert not os.path.exists(os.path.join(out, "tianjin", "scorer.py"))
    assert main(["docs", "--profile", "seed-000-coinz", "--out", out]) == 2
    assert "did you mean 'seed-000-coins'?" in capsys.readouterr().err


def test_compile_check_catches_a_stale_rulebook(tmp_path: str) -> None:
    out = str(tmp_path / "gen")
    assert main(["compile", RULES, "--out", out]) == 0
    page = os.path.join(out, "tianjin", "rulebook.html")
    with open(page, "a", encoding="utf-8") as f:
        f.write("<!-- edited -->\n")
    assert main(["compile", RULES, "--out", out, "--check"]) == 1


@pytest.mark.parametrize("profile_dir", ["", "seed_000_fan", "seed_000_coins"])
def test_the_rulebook_has_every_chapter_pattern_option_and_decision(profile_dir: str) -> None:
    md = _read(os.path.join(profile_dir, "rulebook.md"))
    html = _read(os.path.join(profile_dir, "rulebook.html"))
    for chapter in ("§1 牌", "§2 混", "§3 牌型与和牌", "§4 番种", "§5 叠加", "§6 杠分", "§7 选项", "§8 打牌", "§9 结算",
                    "§10 勘误", "词汇表 Glossary"):
        assert chapter in md and chapter in html, chapter
    for pid in ("tiliu", "zhuo5", "long", "su", "hundiao", "shuanghun", "benhun", "gangkai", "tianhu", "dihu",
                "tianting", "subenlong"):
        assert f'id="pattern-{pid}"' in html and f'<a id="pattern-{pid}"></a>' in md, pid
    for oid in ("score_table", "jin_gang", "tianting", "subenlong", "tianhu", "dihu", "first_draw_multiplier",
                "hun_kinds", "min_fan", "chan_points", "dealer_rotation", "last_tiles_claims", "su_value", "hun_claim_kong", "hun_discard", "hun_wait_counts", "guadafeng"):
        assert f'id="option-{oid.replace("_", "-")}"' in html, oid
    for decision in ("best_decomposition", "shuanghun_apart", "indicator_on_wall", "gangkai_own_kong", "guadafeng_huns"):
        assert f"(`{decision}`)" in md
    for erratum in ("tianhu_max", "gangkai_shuanghun_benhun_zhuo5_long", "coins_hundiao_without_kong",
                    "coins_benhun_zhuo5_long_concealed", "coins_item_3_twice"):
        assert f'id="erratum-{erratum.replace("_", "-")}"' in html
    # no path outside the repository, no outside address in the page
    assert not re.search(r"""(src|href)=["'](?!#)""", html)


def test_the_rulebook_shows_the_seeds_numbers() -> None:
    md = _read("rulebook.md")
    # the seed's bare 提溜 cannot win (seed-001 胡牌条件): 1 fan
    assert "seed-001: 3W3W 1T2T3T 1B2B3B 4W5W9W" in md
    assert re.search(r"提溜: `1 = 1` fan — \*\*不能和 does not win\*\* \(needs 2\)", md)
    # 素5 = 3 × 2 = 6; 双混吊本混捉5龙 = (3+4)×2×2 = 28 (seed-001 牌型番数)
    assert "捉5 + 素: `3×2 = 6` fan" in md
    assert "`(3+4)×2×2 = 28`" in md
    # 天和 of it is 112, printed 102 (erratum)
    assert re.search(r"\| 1b \| 天和 \| `123m 456m 789m EE 3m 4m \+5m` \| 102 \| \*\*112\*\* \(erratum\) \|", md)
    # the indicator → huns table: 9条 → 9条 1条, 白 → 白 中, 北 → 北 东 (seed-001 开混)
    assert "| 9条 | 9条 1条 |" in md and "| 白 | 白 中 |" in md and "| 北 | 北 东 |" in md
    # the score_table option scored three ways after a 暗杠 (2 points): 4, 4 + 2, (4 + 1) × 2
    coins = _read(os.path.join("seed_000_coins", "rulebook.md"))
    for text in (md, coins):
        assert re.search(r"\| `separate` \| 提溜 \+ 素 \+ 杠开 \| `1×2×2 = 4` \| 4 \|", text)
        assert re.search(r"\| `fan_with_kong` \| 提溜 \+ 素 \+ 杠开 \| `1×2×2 = 4` \| 6 \|", text)
        assert re.search(r"\| `coins` \| 提溜 \+ 素 \+ 杠开 \| `1×2×2 = 4` \| 10 \|", text)
    # seed-000 金币: 杠开本混捉5龙 after a 暗杠 is 2 × (28 + 1) = 58, printed 29
    assert re.search(r"\| 29 \| 杠开本混捉5龙 \(暗杠\) \| `123m 46m 789m SS \(EEEE\) \+5m` \| 29 \| \*\*58\*\* \(erratum\) \|", coins)


def test_a_wrong_settlement_example_fails_at_its_balances(tmp_path: str, capsys: pytest.CaptureFixture[str]) -> None:
    # 荒庄 with one 明杠 of seat 3: each other seat pays it 1 (seed-001 荒庄要计算杠分): [-1, -1, -1, 3]
    path = _copy_rules(str(tmp_path), lambda t: t.replace("      balances: [-1, -1, -1, 3]\n", "      balances: [-1, -1, 0, 2]\n", 1))
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    line = next(i for i, x in enumerate(lines, 1) if x == "      balances: [-1, -1, 0, 2]")
    assert main(["check", path]) == 1
    err = capsys.readouterr().err
    assert f"tianjin.yaml:{line}:17: error: example of settlement" in err
    assert "settle() gives the balances [-1, -1, -1, 3], not [-1, -1, 0, 2]" in err


def test_the_settlement_chapter_has_a_worked_payment_table() -> None:
    md = _read("rulebook.md")
    sec = md[md.index("## §9 结算 Settlement"):md.index("## §10")]
    # the payment rules, as the rule file writes them
    assert "`total * base_unit * pair(payer, payee)`" in sec
    # seed-001's 铲 example: dealer sat, A no 拉庄, B once, C twice → the dealer pays 2, 4, 8
    for to, amount in ((1, 2), (2, 4), (3, 8)):
        assert f"| 0 | {to} | {amount} | chan | " in sec
    # by hand: win 8 × (1, 4, 1); 明杠 of seat 1: 1 × (2, 1, 1); 暗杠 of seat 3: 2 × (8, 1, 1); 铲 2, 4, 8
    assert "Balances by seat: 0: -64, 1: -4, 2: +49, 3: +19 (sum 0). Next dealer: seat 1." in sec
    # 下庄: a drawn hand where only seat 2 has a kong: seed-001 keeps the dealer, seed-000 passes the deal
    opt = md[md.index('<a id="option-dealer-rotation"></a>'):]
    assert re.search(r"\| `seed-001` \| 0: -1, 1: -1, 2: \+3, 3: -1 \| seat 0 \|", opt)
    assert re.search(r"\| `seed-000` \| 0: -1, 1: -1, 2: \+3, 3: -1 \| seat 1 \|", opt)
    # 铲 as one 明杠 point or as a 混吊 (2)
    opt = md[md.index('<a id="option-chan-points"></a>'):]
    assert re.search(r"\| `1` \| 0: -3, 1: \+1, 2: \+1, 3: \+1 \|", opt) and re.search(r"\| `2` \| 0: -6, 1: \+2, 2: \+2, 3: \+2 \|", opt)


def _overlay_books(tmp_path: str, name: str, sets: dict[str, object]) -> dict[str, str]:
    """The default profile's rulebooks of an overlay of the built-in rules that sets `sets`."""
    import yaml

    from tjmj_dsl.backends.docs import generate_rulebooks
    from tjmj_dsl.backends.examples import Scorers
    from tjmj_dsl.passes.lower import lower
    from tjmj_dsl.passes.resolve import apply_options, read
    path = os.path.join(str(tmp_path), f"{name}.yaml")
    with open(path, "w", encoding="utf-8") as f:
        yaml.safe_dump({"extends": RULES, "name": name, "set": sets}, f, allow_unicode=True)
    res = read(path)
    return generate_rulebooks(res, lower(apply_options(res)), Scorers(res), [], path)


def test_kongs_and_outcomes_are_called_by_the_rule_files_names(tmp_path: str) -> None:
    """The claims table and the worked hands name each kind of kong as kong_names says, the worked
    settlements each fact of the outcome as outcome_names says: renamed in an overlay, the new
    names show and the old ones are gone from those lines."""
    books = _overlay_books(tmp_path, "renamed", {
        "kong_names.exposed": "亮杠X", "kong_names.concealed": "闷杠X", "kong_names.hun": "混杠X",
        "outcome_names.zuozhuang": "坐X", "outcome_names.lazhuang": "拉X", "outcome_names.chan": "铲X",
        "outcome_names.drawn": "荒X"})
    md = books["rulebook.md"]
    # the rulebook's scorer asks for a 杠开's kong by those names too
    assert '<option value="exposed">exposed 亮杠X</option>' in books["rulebook.html"]
    assert '<option value="hun">hun 混杠X</option>' in books["rulebook.html"]
    claims = [ln for ln in md.splitlines() if "claim a discard for an exposed kong" in ln or "three of the same hun" in ln]
    assert len(claims) == 2 and "(亮杠X)" in claims[0] and "(亮杠X)" in claims[1], claims  # a claimed hun makes a 明杠
    won = [ln for ln in md.splitlines() if "won on the replacement of a" in ln]
    assert any("亮杠X kong" in ln for ln in won) and any("闷杠X kong" in ln for ln in won)
    assert any("混杠X kong" in ln for ln in won)
    assert not any(old in ln for ln in claims + won for old in ("明杠", "暗杠", "金杠"))
    settled = [ln for ln in md.splitlines() if "Example.** Seat " in ln]
    assert any("deals and sits (坐X); 拉X by seat: " in ln and ln.endswith("; 铲X.") for ln in settled), settled
    assert any("; 荒X, no winner" in ln for ln in settled), settled
    assert not any(old in ln for ln in settled for old in ("坐庄", "拉庄", "铲;", "荒庄"))


def test_the_claims_table_says_a_hun_kong_claim_is_not_allowed_where_it_may_not_be_made(tmp_path: str) -> None:
    """claims.hun_kong allows the claim, but play.hun_kong_exposed_as: none says such a kong may not be
    made: the game offers no such claim, and the rulebook's claims table says so."""
    from gamekit import rules

    md = _overlay_books(tmp_path, "nohunclaim", {"play.hun_kong_exposed_as": "none"})["rulebook.md"]
    row = [ln for ln in md.splitlines() if "three of the same hun" in ln]
    assert row == ["| 杠 a discarded hun with three of the same hun | not allowed |"], row
    built_in = _read("rulebook.md")
    assert "| 杠 a discarded hun with three of the same hun (明杠) | **allowed** |" in built_in
    # nor where no kong may be claimed at all (the engine offers a hun kong claim only as a kong claim)
    md = _overlay_books(tmp_path, "nokongclaim", {"claims.kong": False})["rulebook.md"]
    assert [ln for ln in md.splitlines() if "three of the same hun" in ln] == [
        "| 杠 a discarded hun with three of the same hun (明杠) | not allowed |"]
    # the game engine reads the same: no hun kong claim under either overlay, one under the built-in rules
    for name in ("nohunclaim", "nokongclaim"):
        assert rules(path=os.path.join(str(tmp_path), f"{name}.yaml")).hun_kong is False
    assert rules().hun_kong is True
