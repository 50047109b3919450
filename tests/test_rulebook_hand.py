"""The rulebook's walk through one hand (§ "A hand, turn by turn"): a real hand of the game engine
under the book's own rules, told from its record — so the book says what `tjmj simulate` plays
(checked here against a record the command line writes), changes when the rules change, and says
why when the engine cannot play the rules."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest

from conftest import run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOOKS = {"seed-001": "generated/tianjin", "seed-000-fan": "generated/tianjin/seed_000_fan",
         "seed-000-coins": "generated/tianjin/seed_000_coins"}


def _section(md: str) -> str:
    start = md.index('<a id="a-hand"></a>')
    return md[start:md.index('<a id="tiles"></a>')]


def _book(profile: str) -> str:
    with open(os.path.join(ROOT, BOOKS[profile], "rulebook.md"), encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("profile", sorted(BOOKS))
def test_the_walked_hand_is_the_one_simulate_plays(profile: str, tmp_path: Any) -> None:
    text = _section(_book(profile))
    cmd = re.search(r"`tjmj simulate (--seed \S+ --hands (\d+) --players \S+) --record hands.jsonl`", text)
    assert cmd, text[:600]
    hand = int(cmd.group(2)) - 1
    out = str(tmp_path / "hands.jsonl")
    args = ["simulate", *cmd.group(1).split(), "--record", out, "--profile", profile]
    args[args.index("--players") + 1] = ",".join([args[args.index("--players") + 1]] * 4)
    code, _, err = run(args)
    assert code == 0, err
    with open(out, encoding="utf-8") as f:
        rec = [json.loads(line) for line in f][hand]
    res = rec["result"]
    # the balances, the payments and the next dealer the book prints are the record's
    balances = ", ".join(f"{i}: {v:+d}" for i, v in enumerate(res["balances"]))
    assert f"Balances by seat: {balances} (they sum to 0). The next hand is dealt by seat {res['next_dealer']}." in text
    for p in res["payments"]:
        assert f"| {p['from']} | {p['to']} | {p['amount']} | {p['reason']} | `{p['formula']}` |" in text
    assert f"Every event of the hand ({len(rec['events'])})" in text
    types = {e["type"] for e in rec["events"]}
    # the search asks for a hand that teaches a pong, a kong and a win; the book shows each it has
    assert res["winner"] is not None and "pong" in types and types & {"kong", "added_kong", "concealed_kong"}
    assert "**碰 A pong.**" in text and "**杠 A kong (" in text and "### 和牌 The win" in text
    assert f"seat {rec['dealer']} deals" in text


def test_the_walked_hand_leaves_the_engine_settings_to_the_designers() -> None:
    md = _book("seed-001")
    play = md[md.index('<a id="play"></a>'):md.index('<a id="settlement"></a>')]
    assert "value_player_keep" not in play and "The game engine reads these settings" not in play


def test_rules_the_engine_cannot_play_get_a_sentence_not_a_hand(tmp_path: Any) -> None:
    path = tmp_path / "wod.yaml"
    path.write_text("extends: builtin:tianjin\nname: wod\nset:\n  claims.win_on_discard: true\n", encoding="utf-8")
    out = str(tmp_path / "out")
    code, _, err = run(["docs", str(path), "--profile", "seed-001", "--out", out])
    assert code == 0, err
    found = [os.path.join(b, f) for b, _, fs in os.walk(out) for f in fs if f == "rulebook.md"]
    with open(found[0], encoding="utf-8") as f:
        text = _section(f.read())
    assert "The game engine cannot play these rules, so this book has no played hand to walk through" in text
    assert "claims.win\\_on\\_discard is true" in text  # the reason, Markdown-escaped


def test_the_html_book_draws_the_hand_in_tiles() -> None:
    with open(os.path.join(ROOT, BOOKS["seed-001"], "rulebook.html"), encoding="utf-8") as f:
        html = f.read()
    part = html[html.index('id="a-hand"'):html.index('id="tiles"')]
    assert part.count('class="tile') > 40 and "<details" in part
