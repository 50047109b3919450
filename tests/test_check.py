"""`tjmj check` catches mistakes in meaning: a pattern no hand claims, a value that
changes no fan, an option value that makes the same game; each warning can be
silenced with a reason in the rule file; --strict fails on what is left."""

from __future__ import annotations

import os
from typing import Any

import pytest

from conftest import run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def overlay(tmp_path: Any, text: str, name: str = "house.yaml") -> str:
    path = tmp_path / name
    path.write_text("extends: builtin:tianjin\n" + text, encoding="utf-8")
    return str(path)


def test_the_built_in_rules_pass_strict() -> None:
    code, out, err = run(["check", "--strict"])
    assert code == 0, out + err
    assert "warning" not in out and "ok (3 profile(s)" in out


MENQING_ADD = """
patterns:
  menqing:
    name: 门清
    kind: add
    value: 1
    when: "all(g in melds: g.concealed)"
    description: no meld declared (+1)
    source: house rule
"""


def test_an_add_of_one_over_the_base_is_a_warning_naming_the_fix(tmp_path: Any) -> None:
    path = overlay(tmp_path, MENQING_ADD)
    code, out, _ = run(["check", path])
    assert code == 0
    assert "warning: pattern menqing changes no fan when claimed without other patterns, under every profile" in out
    assert "a kind of its own" in out
    code, out, _ = run(["check", "--strict", path])
    assert code == 1 and "failing (--strict)" in out


def test_a_warning_silenced_with_a_reason_is_a_note(tmp_path: Any) -> None:
    path = overlay(tmp_path, MENQING_ADD + """
silence:
  no-fan-change:
    menqing: "门清 only adds when 捉5 or 龙 is claimed: the club wants exactly that"
  no-example:
    menqing: "a test of silencing: no rulebook is made from this file"
  example-inherited:
    examples: "门清 is claimed in the base's examples too"
""")
    code, out, _ = run(["check", "--strict", path])
    assert code == 0, out
    assert "note: silenced no-fan-change menqing" in out and "the club wants exactly that" in out


def test_a_warning_names_its_code_subject_and_the_silence_entry_that_answers_it(tmp_path: Any) -> None:
    # the line check prints is pasted into the file as it stands: --strict then passes
    path = overlay(tmp_path, MENQING_ADD)
    code, out, _ = run(["check", path])
    fixes = [line for line in out.splitlines() if line.startswith("code: ")]
    assert fixes and all("silence: {" in f for f in fixes), out
    assert "code: no-fan-change, subject: menqing;" in out
    entries: dict[str, dict[str, str]] = {}
    import yaml
    for f in fixes:
        entry = yaml.safe_load(f.split("add to the rule file: ", 1)[1])["silence"]
        for c, subjects in entry.items():
            entries.setdefault(c, {}).update(subjects)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("\n" + yaml.safe_dump({"silence": entries}, allow_unicode=True))
    code, out, _ = run(["check", "--strict", path])
    assert code == 0, out
    assert out.count("note: silenced ") == len(fixes)


def test_the_examples_pass_strict() -> None:
    examples = sorted(f for f in os.listdir(os.path.join(ROOT, "examples")) if f.endswith(".yaml"))
    assert len(examples) >= 5
    for name in examples:
        code, out, err = run(["check", "--strict", os.path.join(ROOT, "examples", name)])
        assert code == 0, name + out + err


def test_the_seeds_errata_are_one_line_each_and_said_to_be_expected() -> None:
    code, out, _ = run(["check"])
    notes = [line for line in out.splitlines() if "note: " in line]
    assert code == 0 and len(notes) == 6, out
    assert all(line.endswith("(a known erratum of the printed table: expected)") for line in notes)
    assert len(out.splitlines()) == 7  # the six notes and `ok`


def test_a_silence_entry_that_silences_nothing_is_a_warning(tmp_path: Any) -> None:
    path = overlay(tmp_path, """
silence:
  never-claimed:
    zhuo5: "an old reason"
""")
    code, out, _ = run(["check", path])
    assert "warning: silence.never-claimed.zhuo5 silences no warning" in out


def test_a_pattern_that_never_holds_is_a_warning(tmp_path: Any) -> None:
    path = overlay(tmp_path, """
patterns:
  qidui:
    name: 七对
    kind: mul
    value: 4
    when: "count(g in groups: g.is_pair) == 7"
    description: seven pairs (a decomposition has one pair)
    source: house rule
""")
    code, out, _ = run(["check", path])
    assert "warning: pattern qidui can never be claimed under every profile: its `when` never holds" in out
    assert "count(g in groups: g.is_pair) is from 0 to 5" in out


def test_a_pattern_no_best_reading_claims_is_a_warning_with_the_reason(tmp_path: Any) -> None:
    # 素 and 混吊 never hold on one decomposition: a pattern needing both is never claimed
    path = overlay(tmp_path, """
patterns:
  suhun:
    name: 素混
    kind: mul
    value: 2
    when: "huns == 0 and pair.has_t and pair.huns_besides_t == 1"
    description: no hun, and a hun pair
    source: house rule
""")
    code, out, _ = run(["check", path])
    assert "warning: pattern suhun can never be claimed under every profile: 素混 (suhun) holds on no decomposition" \
        in out


def test_a_pattern_requiring_a_disabled_one_is_a_warning(tmp_path: Any) -> None:
    path = overlay(tmp_path, """
set:
  patterns.long.enabled: false
""")
    code, out, _ = run(["check", path])
    assert code == 0
    assert "warning: pattern benhun can never be claimed under every profile: it requires long" in out


def test_an_option_value_that_makes_the_same_game_is_a_warning(tmp_path: Any) -> None:
    # with one hun kind the indicator's tile is the only hun kind and one of its four copies
    # stays on the wall: no hand holds a kong of huns, so 金杠's points are never paid
    path = overlay(tmp_path, """
profiles:
  one-hun:
    description: one hun kind, 金杠 8
    options: {hun_kinds: 1, jin_gang: "8"}
""")
    code, out, _ = run(["check", path])
    assert "warning: option jin_gang: 4 makes the same game as 8 under profile one-hun" in out
    assert "kong_points.hun is paid for a kong of that kind, and no hand the request rules accept holds one" in out
    # the built-in profiles (two hun kinds) pay 金杠: no such warning for them
    assert "under profile seed-001" not in out


def test_rules_with_no_kong_claim_are_checked_without_a_traceback(tmp_path: Any) -> None:
    # the settlement's search of the outcomes a table makes met no kong type (max() of none)
    path = overlay(tmp_path, "name: nokong\nset:\n  claims.kong: false\n")
    code, out, err = run(["check", "--strict", path])
    assert code == 0 and "Traceback" not in out + err, out + err


def test_check_takes_the_rule_file_as_an_option_too(tmp_path: Any) -> None:
    path = overlay(tmp_path, "")
    assert run(["check", "--rules", path])[0] == 0
    code, _, err = run(["check", path, "--rules", os.path.join(ROOT, "rules", "tianjin.yaml")])
    assert code == 2 and "two rule files" in err


@pytest.mark.parametrize("name", ["builtin:nosuch", "builtin:../tianjin"])
def test_extends_builtin_names_only_the_built_in_files(tmp_path: Any, name: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(f"extends: {name}\n", encoding="utf-8")
    code, _, err = run(["check", str(path)])
    assert code == 1 and "no built-in rule file" in err and "builtin:tianjin" in err


def test_rules_the_game_engine_cannot_play_are_a_warning_at_their_key(tmp_path: Any) -> None:
    # an audit's finding: check said ok, then simulate refused the rules ("cannot be played")
    path = overlay(tmp_path, "name: wod\nset:\n  claims.win_on_discard: true\n", "wod.yaml")
    code, out, _ = run(["check", path])
    assert code == 0 and "wod.yaml:4:3: warning: tjmj simulate cannot play these rules under every profile: " \
        "claims.win_on_discard is true" in out and out.count("cannot play") == 1
    assert run(["check", "--strict", path])[0] == 1
    code, _, err = run(["simulate", "--hands", "1", "--rules", path])
    assert code != 0 and "claims.win_on_discard is true" in err


@pytest.mark.parametrize("text, key, says, options", [
    # an audit's finding: check said ok, then simulate stopped with a traceback when the table
    # ponged huns and the scorer refused the hand (request rule no_hun_pung)
    ("set:\n  claims.hun_pung: true\n", "claims.hun_pung", "a hand with a pung of huns is refused: a pung of hun tiles cannot be claimed", []),
    # the same for the ready flag set by hand while option tianting stays off (request rule tianting_off)
    ("set:\n  play.ready_declaration_flag: tianting\n", "play.ready_declaration_flag", "a hand with it is refused: 天听 is not played",
     ["--option", "tianting=off"]),
    # 金杠 forbidden by its request rule while play still makes a kong of four huns
    ("set:\n  request_rules.jin_gang_forbidden.enabled: true\n", "play.hun_kong_concealed_as",
     "lets a kong of huns be made, but a hand with one is refused", []),
])
def test_rules_whose_table_makes_hands_the_scorer_refuses_are_unplayable(tmp_path: Any, text: str, key: str, says: str,
                                                                        options: list[str]) -> None:
    path = overlay(tmp_path, "name: odd\n" + text, "odd.yaml")
    if key == "claims.hun_pung":  # check warns at the overlay's key (the same function for each: one is enough)
        code, out, _ = run(["check", path])
        assert code == 0 and "odd.yaml:4:3: warning: tjmj simulate cannot play these rules" in out and says in out, out
        # its hint says what to change (a designer's review: it said "the scorer takes them", the scorer refusing them)
        assert "hint: the table would make hands the scorer refuses: turn the setting off, or narrow the request rule" \
            in out and "the scorer takes them" not in out, out
    code, out, err = run(["simulate", "--hands", "40", "--seed", "1", "--rules", path, *options])
    assert code == 1 and "these rules cannot be played: " + key in err and says in err and "Traceback" not in err, err


def test_no_built_in_choice_makes_a_hand_the_table_cannot_score() -> None:
    """Every option value of the built-in rules: the table's hands (a pung or kong of huns where
    allowed, each flag it sets) are scored, none refused (the probes find no false alarm)."""
    from tjmj_dsl import Scorer
    from tjmj_dsl.game.rules import refused_plays
    base = Scorer(backend="interpreter")  # the reference scorer: no code to generate for each choice
    choices = [(o.id, v) for o in base.ruleset.options for v in o.choices]
    assert len(choices) > 20 and ("tianting", "on") in choices and ("jin_gang", "forbidden") in choices
    for k, v in choices:
        s = Scorer(options={k: v}, backend="interpreter")
        assert refused_plays(s.ruleset, s.score_tiles) == [], (k, v)
    jin = Scorer(options={"jin_gang": "forbidden", "tianting": "on"}, backend="interpreter")
    assert refused_plays(jin.ruleset, jin.score_tiles) == []


def test_an_example_naming_no_pattern_says_so(tmp_path: Any) -> None:
    # an audit's finding: a misspelt id in an example's patterns was said as "the scorer claims [...], not [...]"
    path = overlay(tmp_path, "name: exm\npatterns:\n  su:\n    examples:\n      - {hand: \"345m 123s EEE 77m 45s +6s\", "
                   "indicator: 7p, patterns: [tiliu, suu], fan: 2}\n", "exm.yaml")
    code, _, err = run(["check", path])
    assert code != 0 and "exm.yaml:6:" in err and "no pattern 'suu'" in err and "did you mean 'su'?" in err, err


def test_compile_to_an_empty_out_says_what_is_wrong() -> None:
    # an audit's finding: `--out ''` answered "No such file or directory", naming no path
    code, _, err = run(["compile", "--out", ""])
    assert code == 2 and "argument --out: names no folder (an empty name)" in err


def test_a_profiles_option_value_refused_is_said_at_the_value(tmp_path: Any) -> None:
    # an audit's finding: the caret was under the option's name, not its value
    path = overlay(tmp_path, 'name: m1\nprofiles:\n  club: {description: x, options: {jin_gang: "6"}}\n', "m1.yaml")
    code, _, err = run(["check", path])
    assert code != 0 and "m1.yaml:4:46: error: option 'jin_gang': '6' is not one of" in err, err
    path = overlay(tmp_path, 'name: m2\nprofiles:\n  club: {description: x, options: {jin_gan: "4"}}\n', "m2.yaml")
    code, _, err = run(["check", path])
    assert code != 0 and "m2.yaml:4:36: error: no option 'jin_gan'" in err, err  # a name: at the name


# ---- bets-constant: a bet expression over the game so far that is the same in every hand

@pytest.mark.parametrize("setting, words", [
    # reads nothing of the game: the club's "six a game" written as the number alone, taken as lazhuang_max
    ('play.lazhuang_most: "lazhuang_game_max"', ["play.lazhuang_most is the same in every hand",
                                                 "always 6, taken between 0 and lazhuang_max (2) as 2", "as without it"]),
    ('play.lazhuang_most: "0 - 3"', ["always -3, taken between 0 and lazhuang_max (2) as 0",
                                     "every seat may pull (lazhuang) 0 times in every hand", "say play.lazhuang_max: 0"]),
    ('play.lazhuang_most: "1"', ["always 1:", "pull (lazhuang) 1 times in every hand"]),
    ('play.zuozhuang_when: "lazhuang_max > 1"', ["play.zuozhuang_when is the same in every hand", "always true"]),
    ('play.zuozhuang_when: "false"', ["always false: no dealer is ever asked to sit", "say play.may_zuozhuang: false"]),
    # never read: the hand's own limit asks nothing
    ('play.may_zuozhuang: false\n  play.zuozhuang_when: "hands > 3"',
     ["play.may_zuozhuang is false: no dealer is asked to sit (zuozhuang), and play.zuozhuang_when is never read"]),
    ('play.lazhuang_max: 0\n  play.lazhuang_most: "0 if seat.balance < 0 else 1"',
     ["play.lazhuang_max is 0: no seat is asked to pull (lazhuang), and play.lazhuang_most is never read"]),
])
def test_a_bet_expression_the_game_cannot_change_is_said(tmp_path: Any, setting: str, words: list[str]) -> None:
    path = overlay(tmp_path, f"name: bets\nset:\n  {setting}\n", "bets.yaml")
    code, out, err = run(["check", path])
    said = out + err
    assert code == 0 and "code: bets-constant" in said, said
    key = "zuozhuang_when" if "zuozhuang_when" in setting else "lazhuang_most"
    line = 3 + next(i for i, s in enumerate(setting.splitlines(), 1) if key in s)
    assert f"bets.yaml:{line}:" in said and f"subject: {key};" in said, said
    for w in words:
        assert w in said, said


@pytest.mark.parametrize("setting", [
    'play.lazhuang_most: "0 if seat.balance < 0 - lazhuang_floor else lazhuang_max"',
    'play.zuozhuang_when: "not last_zuozhuang"',
    'play.lazhuang_most: "lazhuang_max - hands"',
])
def test_a_bet_expression_reading_the_game_is_not_said(tmp_path: Any, setting: str) -> None:
    path = overlay(tmp_path, f"name: bets\nset:\n  {setting}\n", "bets.yaml")
    code, out, err = run(["check", path])
    assert code == 0 and "bets-constant" not in out + err, out + err


def test_a_bet_warning_is_silenced_with_a_reason(tmp_path: Any) -> None:
    path = overlay(tmp_path, 'name: bets\nset:\n  play.zuozhuang_when: "false"\nsilence:\n'
                   '  bets-constant: {zuozhuang_when: "the club writes its ban where its limits are"}\n'
                   '  example-inherited: {examples: "no sitting: the sitting examples score otherwise"}\n'
                   '  option-broken: {zuozhuang_game=no_repeat_after_loss: "the club\'s ban replaces that option"}\n',
                   "bets.yaml")
    code, out, err = run(["check", "--strict", path])
    assert code == 0 and "note: silenced bets-constant zuozhuang_when" in out + err, out + err


def test_an_option_setting_only_bets_the_rules_never_read_makes_the_same_game(tmp_path: Any) -> None:
    # no 拉庄 in this club: lazhuang_game's limits over a game are never read
    path = overlay(tmp_path, "name: nola\nset:\n  play.lazhuang_max: 0\n", "nola.yaml")
    code, out, err = run(["check", path])
    said = out + err
    for v in ("capped", "losers_barred"):
        assert (f"option lazhuang_game: {v} makes the same game as free under every profile (play.lazhuang_max is 0: "
                "no seat is asked to pull (lazhuang), and play.lazhuang_most is never read)") in said, said
        assert f"subject: lazhuang_game={v};" in said
    assert "option zuozhuang_game" not in said  # the dealer still sits: its limit is read
    path = overlay(tmp_path, "name: nozz\nset:\n  play.may_zuozhuang: false\n", "nozz.yaml")
    code, out, err = run(["check", path])
    assert "option zuozhuang_game: no_repeat_after_loss makes the same game as free" in out + err, out + err
    assert "option lazhuang_game" not in out + err


def _unmatched(path: str) -> list[tuple[str, str]]:
    from tjmj_dsl.analysis.playtexts import play_text_warnings
    from tjmj_dsl.compiler import read_rules
    return [(d.subject or "", d.hint) for d in play_text_warnings(read_rules(path))]


@pytest.mark.parametrize("value,flagged", [
    ("discarder", False),  # what the settlement compares it with
    ("all", False),  # the default, read as the else: far from every compared text
    ("Discarder", True), ("DISCARDER", True),  # another case
    ("discarer", True), ("dicsarder", True), ("discarders", True),  # one or two edits
    ("discard", True),  # two letters short
    ("disc", False), ("payer", False),  # further: a value of its own, not a misspelling
])
def test_a_play_text_close_to_one_compared_is_said_and_the_else_is_not(tmp_path: Any, value: str, flagged: bool) -> None:
    """A misspelt play value (`discarer`) was no error and no other game: it played as the settlement's else."""
    got = _unmatched(overlay(tmp_path, f"name: t\nset:\n  play.exposed_kong_payer: {value}\n"))
    assert got == ([(f"exposed_kong_payer={value}", "did you mean 'discarder'? If "
                     f"{value!r} is meant as the else, silence it with why")] if flagged else []), got


def test_play_texts_are_read_in_options_and_in_lists_compared(tmp_path: Any) -> None:
    text = """name: t
play:
  house_payer: winnr
settlement:
  outcome_rules:
    house:
      name: house
      error_when: 'house_payer in ["winner", "loser"] and winner == none'
      message: "a house rule"
      source: "the club"
options:
  exposed_kong_payer:
    choices:
      discarder: {description: d, set: {play.exposed_kong_payer: Discarder}}
"""
    got = sorted(s for s, _ in _unmatched(overlay(tmp_path, text)))
    assert got == ["exposed_kong_payer=Discarder", "house_payer=winnr"]


@pytest.mark.parametrize("text", [
    "name: t\nplay: [1, 2]\n",
    "name: t\noptions:\n  x: [1]\n",
    "name: t\noptions:\n  exposed_kong_payer: {choices: {discarder: [1]}}\n",
    "name: t\nsettlement:\n  outcome_rules: {a: {error_when: '((((' }}\n",
])
def test_play_texts_of_any_shape_are_read_without_a_traceback(tmp_path: Any, text: str) -> None:
    from tjmj_dsl.analysis.playtexts import play_text_warnings
    from tjmj_dsl.compiler import read_rules
    from tjmj_dsl.diagnostics import RuleError
    try:
        res = read_rules(overlay(tmp_path, text))
    except RuleError:
        return  # refused where it stands, before this check
    play_text_warnings(res)


def test_play_texts_work_out_a_bounded_number_of_edit_distances(tmp_path: Any, monkeypatch: Any) -> None:
    """A hostile file comparing one play setting with thousands of texts, set by thousands of values, asked
    millions of edit distances; the file is allowed MAX_PAIRS, then close texts are matched case-blind only."""
    from tjmj_dsl.analysis import playtexts
    from tjmj_dsl.compiler import read_rules
    lits = ", ".join(f'"t{i:06d}"' for i in range(3000))
    opts = "".join(f"  o{i}:\n    choices:\n      a: {{set: {{play.kk: T{i:06d}x}}}}\n      b: {{set: {{play.kk: u{i:06d}}}}}\n"
                   for i in range(40))
    path = overlay(tmp_path, f"name: t\nplay:\n  kk: x\nsettlement:\n  outcome_rules:\n    h: {{error_when: 'kk in [{lits}]'}}\n"
                             f"options:\n{opts}")
    calls = []
    real = playtexts.edit_distance
    monkeypatch.setattr(playtexts, "edit_distance", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(playtexts, "MAX_PAIRS", 5000)
    got = playtexts.play_text_warnings(read_rules(path))
    assert len(calls) == 5000  # 80 values × 3,000 texts of the same length asked, the budget spent
    assert {d.subject for d in got} >= {"kk=T000000x"}  # found before the budget was spent (t000000, 1 edit away)


def test_play_texts_compared_through_a_parameter_or_shadowed_are_not_judged(tmp_path: Any) -> None:
    """Two false positives of a review: a value compared through a definition's parameter (`payer_is("x")`
    reading `payer == m`) is open, and a parameter or a quantifier's variable named as a play setting is not it."""
    through = overlay(tmp_path, """name: t
settlement:
  definitions:
    "payer_is(m: str)": {name: p, gloss: g, value: 'exposed_kong_payer == m', description: d, source: s}
options:
  exposed_kong_payer:
    choices:
      discarders: {description: d, set: {play.exposed_kong_payer: discarders}}
""", "through.yaml")
    assert _unmatched(through) == []
    shadowed = overlay(tmp_path, """name: t
play:
  first_dealer: random
  house_rule: winer
settlement:
  definitions:
    "sits_first(first_dealer: str)": {name: x, gloss: x, value: 'first_dealer == "randomly"', description: x, source: x}
  outcome_rules:
    h: {error_when: 'any(house_rule in ["winner"]: house_rule == "winner")'}
""", "shadowed.yaml")
    assert _unmatched(shadowed) == []  # `house_rule` in the quantifier's body is its variable; its domain is a list


def test_an_option_value_that_would_undo_the_files_own_change_is_option_broken(tmp_path: Any) -> None:
    # a designer's review: an overlay setting win_when passed --strict, and then `--option
    # hun_wait_counts=not_counted` (which sets win_when too) was an error nobody had been told of
    win = "(sum(add) if len(add) > 0 else sum(base)) * product(mul) >= min_fan + 1"
    path = overlay(tmp_path, f'name: wins\nwin_when: "{win}"\n', "wins.yaml")
    code, out, _ = run(["check", path])
    assert code == 0, out
    line = ("wins.yaml:3:1: warning: option hun_wait_counts=not_counted does not compile under every profile: "
            "'win_when' is set by option 'hun_wait_counts', so this change would be undone")
    assert line in out and "subject: hun_wait_counts=not_counted" in out, out
    assert run(["score", "345m 123s EEE 77m 45s +6s", "-i", "7p", "--rules", path, "--option",
                "hun_wait_counts=not_counted"])[0] == 1  # what the warning foretells
    assert run(["check", "--strict", path])[0] == 1


def test_an_option_value_that_does_not_compile_is_said_whatever_it_sets(tmp_path: Any) -> None:
    # a hostile review: a value setting a pattern (a path that can change claims, so not compared with the
    # profile's game) was applied but never compiled, and passed `check --strict`; it failed only when played
    path = overlay(tmp_path, 'name: evil\noptions:\n  evil:\n    name: evil\n    description: breaks su\n'
                   '    default: "off"\n    acts_on: scoring\n    choices:\n      "off": {description: nothing}\n'
                   '      "on": {description: broken, set: {patterns.su.when: "huns == 0 +"}}\n'
                   'silence:\n  no-example: {evil: "a test"}\n', "evil.yaml")
    code, out, err = run(["check", "--strict", path])
    assert code == 1 and "warning: option evil=on does not compile under every profile: the expression ends too " \
        "early" in out + err and "subject: evil=on" in out + err, out + err


def test_a_name_is_bounded_and_a_long_one_is_not_echoed(tmp_path: Any) -> None:
    # a hostile review: a pattern named with 100,000 characters (a file of 100 kB) passed check, and compile
    # wrote 328 MB of rulebooks, the name standing in every combination row; the error quotes 40 characters
    long = "龙" * 41
    path = overlay(tmp_path, f"name: longname\nset:\n  patterns.su.name: {long}\n", "long.yaml")
    code, out, err = run(["check", path])
    said = out + err
    assert code == 1 and f"long.yaml:4:21: error: '{'龙' * 40}'… has 41 characters; at most 40 here" in said, said
    assert long not in said.split("\n", 1)[0]
    path = overlay(tmp_path, f"name: ok\nset:\n  patterns.su.name: {long[:40]}\n", "ok.yaml")
    assert run(["check", path])[0] == 0


def test_inherited_known_values_of_a_profile_dropped_are_said_at_their_row(tmp_path: Any) -> None:
    # a hostile review: `known_values: inherit` with the base's profiles replaced said `no profile 'seed-001'`,
    # with no place: the row that names it is given, and why
    path = overlay(tmp_path, "name: kvp\nknown_values: inherit\nreplace: [profiles]\nprofiles:\n  main:\n"
                   "    description: main\ndefault_profile: main\n", "kvp.yaml")
    code, out, err = run(["check", path])
    assert code == 1 and "tianjin.known.yaml:" in err and "error: known value " in err and \
        "is of profile 'seed-001', which these rules do not have" in err, out + err


def test_a_rule_set_has_at_most_64_patterns_in_play(tmp_path: Any) -> None:
    # a hostile review: 160 cheap patterns more than the built-in ones passed every bound and `check` ran past 8
    # minutes; more than 64 in play are refused at the patterns, at once, before any search
    pats = "".join(f"  x{i}:\n    name: X{i}\n    kind: add\n    value: 1\n    when: 'count(1m) == 4'\n"
                   f"    description: d\n    source: s\n" for i in range(55))
    path = overlay(tmp_path, f"name: many\npatterns:\n{pats}", "many.yaml")
    code, out, err = run(["check", path])
    assert code == 1 and "many.yaml:" in err and " patterns in play; a rule set has at most 64 (this one is the 65th)" \
        in err, out + err
