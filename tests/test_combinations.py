"""The rulebook's combination table (§11): every set of patterns decided once; every
row the seeds print found in it with its printed value, the errata marked, not fixed;
the table's cache (generated/<profile>/combinations.json) checked on `--check`.

Expected values come from the seeds (through rules/tianjin.known.yaml, where each
printed row is written as a hand by hand, with its erratum) and from the rule file's
numbers worked out by hand (明杠 1, 暗杠 2, 金杠 4 points; fan + p; (fan + 1) × p)."""

from __future__ import annotations

import json
import os
import re
import shutil
from typing import Any

import pytest

from tjmj_dsl.backends.combinations import FILE, parse
from tjmj_dsl.backends.outputs import outputs
from tjmj_dsl.cli import main
from tjmj_dsl.known import load_known

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = os.path.join(ROOT, "rules", "tianjin.yaml")
PROFILES = {"seed-001": "tianjin", "seed-000-fan": "tianjin/seed_000_fan", "seed-000-coins": "tianjin/seed_000_coins"}
PATTERNS = ("tiliu", "zhuo5", "long", "su", "hundiao", "shuanghun", "benhun", "gangkai", "tianhu", "dihu")


def _read(rel: str) -> str:
    with open(os.path.join(ROOT, "generated", rel), encoding="utf-8") as f:
        return f.read()


def _chapter(profile: str) -> str:
    md = _read(f"{PROFILES[profile]}/rulebook.md")
    return md[md.index("## §11 组合"):md.index("## 词汇表")]


def _rows_of(md: str, names: str) -> list[list[str]]:
    """The cells of every table row of the chapter whose first cell lists exactly these pattern names."""
    out = []
    for line in md.splitlines():
        if line.startswith("| [") and line.count("|") > 8:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            shown = " + ".join(re.findall(r"\[([^\]]+)\]\(#pattern-", cells[0]))
            if shown == names:
                out.append(cells)
    return out


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_set_is_decided_exactly_once(profile: str) -> None:
    v = parse(_read(f"{PROFILES[profile]}/{FILE}"))
    assert v.ids == PATTERNS and v.complete and v.exhaustive
    sets = [frozenset(p) for p, _ in v.witnesses] + [frozenset(p) for g in v.impossible for p in g.sets]
    assert len(sets) == len(set(sets)) == 2 ** len(PATTERNS) and not v.undecided
    # a bare 提溜 holds in every hand: a set without it is never a best reading's claim
    assert all("tiliu" in p for p, _ in v.witnesses)
    md = _chapter(profile)
    assert f"**{len(v.witnesses)} are realisable**" in md and f"**{len(sets) - len(v.witnesses)} are impossible**" in md


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_the_table_holds_every_row_the_seeds_print(profile: str) -> None:
    md = _chapter(profile)
    rows = load_known(os.path.join(ROOT, "rules", "tianjin.known.yaml"))
    assert len(rows) > 100
    impossible = md[md.index("Rows the seeds print that no hand can have"):md.index("不能有的组合")]
    for r in rows:
        label = f"{r.table} {r.item}" + (f" {r.variant}" if r.variant else "")
        if r.request is None:  # the known values say the hand cannot exist: so does the table, with the reason
            para = next(p for p in impossible.split("\n\n") if p.startswith(f"{r.table} {r.item} prints"))
            assert f"{r.printed}" in para and "**impossible**" in para, para
            continue
        cell = f"{label}: {r.printed}"
        assert cell in md, cell
        after = md[md.index(cell) + len(cell):][:120]
        if r.expected == r.printed:
            assert after.startswith(" ✓"), (cell, after)
        else:  # an erratum: the printed value stays, what the rules give beside it, and the erratum linked
            assert after.startswith(f" **≠ {r.expected}** ([erratum "), (cell, after)


def test_seed_rows_and_their_errata_by_hand() -> None:
    fan, coins = _chapter("seed-000-fan"), _chapter("seed-000-coins")
    # 杠开素提溜: 1 × 2 × 2 = 4; 番数算法 4 + 1 after a 明杠, 4 + 2 after a 暗杠; 金币 (4 + 1) × 1, (4 + 1) × 2
    (row,) = _rows_of(fan, "提溜 + 素 + 杠开")
    assert row[3] == "`1×2×2 = 4`" and row[4:7] == ["4", "明杠 5 · 暗杠 6", "明杠 5 · 暗杠 10"]
    assert "seed-000-fan 4 明杠: 5 ✓; seed-000-fan 4 暗杠: 6 ✓" in row[7]
    # 杠开混吊 (also 1 × 2 × 2 = 4) after a 金杠 (4 points): 4 + 4 and (4 + 1) × 4; the 金币 list prints the bare 4
    (row,) = _rows_of(coins, "提溜 + 混吊 + 杠开")
    assert row[5:7] == ["明杠 5 · 暗杠 6 · 金杠 8", "明杠 5 · 暗杠 10 · 金杠 20"]
    assert "seed-000-coins 8: 4 **≠ 5** ([erratum coins\\_hundiao\\_without\\_kong]" in row[7]
    # 天和 of 双混吊本混捉5龙: (3 + 4) × 2 × 2 × 4 = 112, printed 102
    (row,) = _rows_of(fan, "提溜 + 捉5 + 龙 + 双混吊 + 本混 + 天和")
    assert row[3] == "`(3+4)×2×2×4 = 112`" and "seed-001-fan 1b: 102 **≠ 112** ([erratum tianhu\\_max]" in row[7]
    # 杠开 + 双混吊 + 捉5 + 龙: no room for the kong; printed 57 / 58
    para = next(p for p in fan.split("\n\n") if p.startswith("seed-000-fan 32 prints"))
    assert "57 (明杠) and 58 (暗杠)" in para and "**impossible** (conflict)" in para
    assert "双混吊 (shuanghun) conflicts with 龙 (long)" in para and "erratum gangkai\\_shuanghun\\_benhun\\_zhuo5\\_long" in para


def test_impossible_sets_are_grouped_by_reason() -> None:
    md = _chapter("seed-001")
    # 本混 needs 龙 (its `requires`), a hun pair and no hun never hold together
    assert "本混 (benhun) requires 龙 (long):" in md
    assert "素 (su) + 混吊 (hundiao) never hold on one decomposition of a hand:" in md
    # 天和 and 杠开: a first draw comes before any kong (request rule first_draw_no_melds)
    assert re.search(r"request rules refuse \(first\\_draw\\_no\\_melds: [^)]*\):\n\n[^\n]*杠开 \+ 天和", md)
    html = _read("tianjin/rulebook.html")
    sec = html[html.index('<section id="combinations">'):]
    assert sec.count("<details>") >= 5 and sec.count('<table id="combinations-table-') >= 5


def test_a_fresh_search_gives_the_committed_table() -> None:
    files = outputs(RULES)  # no previous files: the search runs
    for rel in PROFILES.values():
        assert files[f"{rel}/{FILE}"] == _read(f"{rel}/{FILE}")


def _witness_edited(tmp_path: str, request: dict[str, Any]) -> tuple[str, str, str]:
    """A copy of generated/ whose default profile's table has the witness of 提溜 + 素 replaced by
    `request`: (the copy, the table's path, the table's text before the edit)."""
    out = os.path.join(str(tmp_path), "gen")
    shutil.copytree(os.path.join(ROOT, "generated"), out)
    path = os.path.join(out, "tianjin", FILE)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    i = next(i for i, x in enumerate(lines) if x.lstrip().startswith('{"set": "tiliu su",'))
    item = json.loads(lines[i].strip().rstrip(","))
    item["request"] = request
    lines[i] = "  " + json.dumps(item, ensure_ascii=False) + ","
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return out, path, text


def test_a_witness_edited_by_hand_fails_the_check(tmp_path: str, capsys: pytest.CaptureFixture[str]) -> None:
    out, path, text = _witness_edited(tmp_path, {"concealed": "123p46mEEE77678s", "draw": "5m", "indicator": "9p"})  # 捉5, not 素
    assert main(["compile", RULES, "--out", out, "--check"]) == 1
    err = capsys.readouterr().err
    assert f"stale: {path} ({FILE}: the witness of 提溜 (tiliu) + 素 (su)" in err
    assert "is not that set: the generated scorer claims 提溜 (tiliu) + 捉5 (zhuo5)" in err
    assert main(["compile", RULES, "--out", out]) == 0  # searches again and writes the table back
    with open(path, encoding="utf-8") as f:
        assert f.read() == text
    assert main(["compile", RULES, "--out", out, "--check"]) == 0


def test_an_unreadable_table_is_searched_again(tmp_path: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = os.path.join(str(tmp_path), "gen")
    shutil.copytree(os.path.join(ROOT, "generated"), out)
    path = os.path.join(out, "tianjin", "seed_000_fan", FILE)
    with open(path, encoding="utf-8") as f:
        header = f.readline()  # tjmj's header line: the file stays tjmj's to replace
    with open(path, "w", encoding="utf-8") as f:
        f.write(header + ' "format": "tjmj-combinations/1", "key": 3}')
    assert main(["compile", RULES, "--out", out, "--check"]) == 1
    assert f"stale: {path} ({FILE} cannot be read (KeyError" in capsys.readouterr().err
    assert main(["compile", RULES, "--out", out]) == 0  # searched again and written back
    assert main(["compile", RULES, "--out", out, "--check"]) == 0


def test_a_table_without_the_header_is_not_replaced(tmp_path: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A combinations.json whose first line is not tjmj's exact header is a person's file: refused, kept."""
    out = os.path.join(str(tmp_path), "gen")
    shutil.copytree(os.path.join(ROOT, "generated"), out)
    path = os.path.join(out, "tianjin", "seed_000_fan", FILE)
    mine = '{"generated": "@generated by tjmj", "format": "tjmj-combinations/1", "key": 3}'
    with open(path, "w", encoding="utf-8") as f:
        f.write(mine)
    assert main(["compile", RULES, "--out", out, "--check"]) == 1
    assert f"stale: {path} (not written by tjmj)" in capsys.readouterr().err
    assert main(["compile", RULES, "--out", out]) != 0
    assert "not a file tjmj wrote" in capsys.readouterr().err
    with open(path, encoding="utf-8") as f:
        assert f.read() == mine


def test_an_impossible_set_edited_by_hand_fails_the_check(tmp_path: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = os.path.join(str(tmp_path), "gen")
    shutil.copytree(os.path.join(ROOT, "generated"), out)
    path = os.path.join(out, "tianjin", "seed_000_coins", FILE)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert "本混 (benhun) requires 龙 (long)" in text
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace("本混 (benhun) requires 龙 (long)", "本混 (benhun) is never played", 1))
    assert main(["compile", RULES, "--out", out, "--check"]) == 1
    assert f"stale: {path} ({FILE} was edited by hand: its digest does not match its verdicts)" in capsys.readouterr().err


def test_a_huge_table_is_not_read(tmp_path: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A cache far larger than tjmj writes (its header kept) is not read back: searched again and replaced."""
    out = os.path.join(str(tmp_path), "gen")
    shutil.copytree(os.path.join(ROOT, "generated"), out)
    path = os.path.join(out, "tianjin", "seed_000_fan", FILE)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.rstrip("\n") + " " * 5_000_000 + "\n")
    assert main(["compile", RULES, "--out", out, "--check"]) == 1
    assert f"stale: {path} ({FILE} is larger than 4,000,000 bytes: not read back)" in capsys.readouterr().err
    assert main(["compile", RULES, "--out", out]) == 0
    with open(path, encoding="utf-8") as f:
        assert f.read() == text


def test_a_witness_that_is_no_request_is_searched_again(tmp_path: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A combinations.json in --out edited to hold a witness that is no request (concealed a
    number, no draw) is a cache that cannot be used: searched again, not a KeyError."""
    out, path, text = _witness_edited(tmp_path, {"concealed": 5})
    assert main(["compile", RULES, "--out", out, "--check"]) == 1
    # said as a cache that cannot be used, whichever check meets the edit first (the hand's text is now
    # written before the missing draw is looked up: a TypeError, once a KeyError)
    assert f"stale: {path} ({FILE} cannot be used (" in capsys.readouterr().err
    assert main(["docs", RULES, "--out", out, "--profile", "seed-001"]) == 0
    with open(path, encoding="utf-8") as f:
        assert f.read() == text
