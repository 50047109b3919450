"""The designer's commands: init, explain, --version, every --help with an example,
the rule file given the same way to every command, did-you-mean hints."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest

from conftest import run
from tjmj_dsl import __version__
from tjmj_dsl.cli import build_parser
from tjmj_dsl.diagnostics import did_you_mean

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_version() -> None:
    code, out, _ = run(["--version"])
    assert code == 0 and out.strip() == f"tjmj {__version__}"


def test_every_command_has_help_with_an_example() -> None:
    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    for name in sub.choices:  # type: ignore[union-attr]
        code, out, _ = run([name, "--help"])
        assert code == 0 and "example:\n  tjmj " in out, name


def test_init_writes_an_overlay_that_passes_strict_check(tmp_path: Any) -> None:
    code, out, _ = run(["init", "club", "--dir", str(tmp_path)])
    assert code == 0 and "club.yaml" in out
    path = tmp_path / "club.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# club: a house variant") and "extends: builtin:tianjin" in text
    assert "replace: [profiles]" in text
    code, out, err = run(["check", "--strict", str(path)])
    assert code == 0, out + err
    assert "ok (1 profile(s)" in out  # the house profile alone: the seeds' profiles are replaced
    code, out, _ = run(["score", "345m 123s EEE 77m 45s +6s", "-i", "7p", "--rules", str(path)])
    assert code == 0 and out.startswith("WIN: fan 2, total 2")
    assert run(["init", "club", "--dir", str(tmp_path)])[0] == 1  # never writes over a file
    assert run(["init", "Club!", "--dir", str(tmp_path)])[0] == 2


def test_an_overlay_inherits_known_values_only_when_it_says_so(tmp_path: Any) -> None:
    path = tmp_path / "dragon.yaml"
    path.write_text("extends: builtin:tianjin\nset:\n  patterns.long.value: 5\n", encoding="utf-8")
    code, out, _ = run(["check", str(path)])
    assert "the table expects" not in out
    path.write_text("extends: builtin:tianjin\nknown_values: inherit\nset:\n  patterns.long.value: 5\n", encoding="utf-8")
    code, out, _ = run(["check", "--strict", str(path)])
    # the printed rows with a 龙 disagree with a 龙 of 5: warnings, an error under --strict
    assert code == 1 and "the table expects" in out and "failing (--strict)" in out
    # each such warning quotes its row of the known-values file, as a rule file's warnings quote theirs
    at = out.index("the table expects")
    assert re.match(r'[^\n]*\n +\d+ \|\s+- item: "', out[at:]), out[at:at + 300]


def test_explain_says_why_each_pattern_is_in_or_out() -> None:
    # 素本龙's example of the reading: the 捉5 reading (the huns swapped) scores 14, the one shown 16
    args = ["explain", "123m 4m 5m 789m EEE 2p2p +6m", "-i", "5m", "--option", "subenlong=on"]
    code, out, _ = run(args)
    assert code == 0
    assert "✔ subenlong" in out
    assert "↷ zhuo5" in out and "another reading claims it, for fan 14 ((3+4)×2 = 14), less than 16" in out
    # that reading, written as the answer's decomposition is: the winning 6m (a hun) stands for 5m, the 5m for 6m
    assert "that reading: 1m 2m 3m  |  4m 5m=6m* 6m=5m  |  7m 8m 9m  |  E E E  |  2p 2p   ((3+4)×2 = 14)" in out
    assert "reads: melds = 1m 2m 3m | 4m 5m~ 6m~* |" in out  # the groups the pattern's test reads: faces, ~ a hun
    assert "· su " in out and "reads: huns = 2" in out
    code, out, _ = run(args + ["--json"])
    how = json.loads(out)["explain"]
    by_id = {e["id"]: e for e in how["patterns"]}
    assert by_id["zhuo5"]["status"] == "other_reading" and by_id["zhuo5"]["other"]["fan"] == 14
    assert by_id["su"]["status"] == "not_held" and by_id["su"]["values"] == {"huns": "2"}
    assert by_id["tiliu"]["status"] == "claimed" and by_id["tiliu"]["shown"] is False


def test_explain_names_the_conflict_that_drops_a_pattern() -> None:
    # 双混吊 in a 龙's chow: 龙 (4) beats 双混吊 (×2 on 1) — the conflict's unless does not hold
    code, out, _ = run(["explain", "123m 456m EEE 2p2p 9s 1s +8m", "-i", "9s"])
    assert code == 0
    assert "✗ shuanghun" in out and "conflicts with long" in out


@pytest.mark.parametrize("cmd", [["variants"], ["compile", "--check"]])
def test_every_command_takes_rules_as_an_option(cmd: list[str]) -> None:
    code, out, err = run(cmd + ["--rules", os.path.join(ROOT, "rules", "tianjin.yaml")])
    assert code == 0, out + err


def test_did_you_mean_names_every_equally_close_name() -> None:
    assert did_you_mean("hun", ["huns", "hun_suit", "t_hun"]) == "did you mean 'hun_suit' or 'huns'?"
    assert did_you_mean("seed-000", ["seed-001", "seed-000-fan", "seed-000-coins"]) == \
        "did you mean 'seed-000-coins', 'seed-000-fan' or 'seed-001'?"
    assert did_you_mean("zzzz", ["huns"]) == ""


def test_a_wrong_profile_name_points_at_what_was_typed() -> None:
    code, _, err = run(["score", "345m 123s EEE 77m 45s +6s", "-i", "7p", "--profile", "seed-01"])
    assert code == 1
    assert err.startswith("error: no profile 'seed-01'") and "did you mean 'seed-001'?" in err
    assert "default_profile" not in err


def test_an_overlay_that_replaces_the_profiles_says_so_in_its_rulebook(tmp_path: Any) -> None:
    code, out, err = run(["docs", os.path.join(ROOT, "examples", "house.yaml"), "--out", str(tmp_path)])
    assert code == 0, out + err
    book = (tmp_path / "house" / "rulebook.md").read_text(encoding="utf-8")
    assert "A variant of `builtin:tianjin`; it replaces the base's profiles." in book
    assert "Seed 001's table" not in book and "Profile** `house`" in book


def test_init_from_a_base_copies_its_text_as_values_only(tmp_path: Any) -> None:
    """`tjmj init --from BASE` writes the base's title, path and option values into the overlay as
    YAML values: a line break, a quote or a `#` in them stays inside the value (it wrote them raw,
    and a base could add keys such as `set:` to the overlay it made)."""
    import yaml
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    evil = "b\nset:\n  patterns.long.value: 99\n#"
    title = 'Club "q"\nset:\n  patterns.long.value: 99\n# \u2028x: 1'
    base_dir = tmp_path / "a dir: #1"
    base_dir.mkdir()
    (base_dir / "evilbase.yaml").write_text(
        f"extends: {json.dumps(os.path.join(root, 'rules', 'tianjin.yaml'))}\nname: evilbase\ntitle: {json.dumps(title)}\n"
        "options:\n  house: {name: h, description: d, acts_on: scoring, source: s, set: {patterns.su.source: \"$value\"},\n"
        f"          default: {json.dumps(evil)}, values: [\"a\", {json.dumps(evil)}]}}\n", encoding="utf-8")
    out = tmp_path / "club"
    out.mkdir()
    code, _, err = run(["init", "myclub", "--from", str(base_dir / "evilbase.yaml"), "--dir", str(out)])
    assert code == 0, err
    text = (out / "myclub.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert set(data) == {"extends", "name", "title", "replace", "profiles", "default_profile"}
    assert data["title"] == f"myclub ({title})" and data["extends"] == "../a dir: #1/evilbase.yaml"
    assert data["profiles"]["house"]["options"]["house"] == evil
    assert all(line.startswith("#") or "\u2028" not in line for line in text.splitlines())
    code, _, err = run(["check", str(out / "myclub.yaml")])
    assert code == 0, err
    req = ["score", "123456789p 123s E +E", "-i", "C"]
    assert run(req + ["--rules", str(out / "myclub.yaml")])[1] == run(req + ["--rules", str(base_dir / "evilbase.yaml")])[1]


def test_every_overlay_file_name_gives_a_folder_compile_writes(tmp_path: Any) -> None:
    """An overlay without a name takes its folder from its file's name; check said ok to 天津.yaml
    and _under.yaml, whose folders (__, _under) compile then refused to write. And init refuses a
    name Windows keeps for a device (con): its own check --strict refused the file it wrote."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for stem in ("天津", "_under"):
        path = tmp_path / f"{stem}.yaml"
        path.write_text(f"extends: {json.dumps(os.path.join(root, 'rules', 'tianjin.yaml'))}\n", encoding="utf-8")
        assert run(["check", str(path)])[0] == 0
        code, out, err = run(["compile", str(path), "--out", str(tmp_path / "out")])
        assert code == 0, err
    folders = sorted(f for f in os.listdir(tmp_path / "out") if f != "__init__.py")
    assert len(folders) == 2 and "under" in folders and all(f[0].isalnum() for f in folders), folders
    code, _, err = run(["init", "con", "--dir", str(tmp_path)])
    assert code == 2 and "device" in err and not (tmp_path / "con.yaml").exists()


def test_an_overlay_named_like_its_base_gets_a_folder_of_its_own(tmp_path: Any) -> None:
    """Tianjin.yaml or _tianjin.yaml without a name over the tianjin rules wrote into tianjin/, the
    base's own folder (its rulebook then showed the overlay's values)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = tmp_path / "_tianjin.yaml"
    path.write_text(f"extends: {json.dumps(os.path.join(root, 'rules', 'tianjin.yaml'))}\n"
                    "set:\n  patterns.long.value: 5\n", encoding="utf-8")
    code, _, err = run(["compile", str(path), "--out", str(tmp_path / "out")])
    assert code == 0, err
    assert sorted(f for f in os.listdir(tmp_path / "out") if f != "__init__.py") == ["tianjin_overlay"]


def test_a_disabled_patterns_when_is_type_checked_before_an_option_enables_it(tmp_path: Any) -> None:
    path = tmp_path / "dp.yaml"
    path.write_text('extends: builtin:tianjin\nname: dp\nset:\n  patterns.tianhu.enabled: false\n'
                    '  patterns.tianhu.when: "huns + 1"\n', encoding="utf-8")
    code, out, err = run(["check", str(path)])
    assert code == 1 and "the `when` of pattern tianhu must be true or false" in out + err
    assert 'dp.yaml:5:26' in out + err  # at the expression, as an enabled pattern's would be
    path.write_text('extends: builtin:tianjin\nname: dp\nset:\n  patterns.tianhu.enabled: false\n'
                    '  patterns.tianhu.when: "tianhoo"\n', encoding="utf-8")
    code, out, err = run(["check", str(path)])
    assert code == 1 and "tianhu" in out + err and "did you mean" in out + err
