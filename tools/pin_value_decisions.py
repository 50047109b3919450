"""Writes tests/data/value_decisions.json: every decision (discard, pong, kong, win, ready) of four
value players over hands 0-11 of seed 33, as the engine makes them today. tests/test_value_pin.py
holds the engine to them, so that making the value player cheaper (issue 33, item 5) cannot change
which hands it wins. Run only when a change of its play is meant (and say so in the commit)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tjmj_dsl.api import Scorer  # noqa: E402
from tjmj_dsl.game.players import ValuePlayer  # noqa: E402
from tjmj_dsl.game.rules import game_rules  # noqa: E402
from tjmj_dsl.game.session import play  # noqa: E402
from tjmj_dsl.tiles import NAMES  # noqa: E402

SEED, HANDS = 33, 12


def decisions() -> list[dict[str, object]]:
    rules = game_rules(Scorer())
    out = []
    for i in range(HANDS):
        res = play(rules, SEED, i, [ValuePlayer() for _ in range(4)])
        ev = [f"{s}{t[0]}{NAMES[k] if k is not None else '-'}" for s, t, k, *_ in res.events if t != "draw"]
        out.append({"hand": i, "winner": res.winner, "balances": (res.settlement or {}).get("balances"), "decisions": ev})
    return out


if __name__ == "__main__":
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "value_decisions.json")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump({"seed": SEED, "hands": decisions()}, f, ensure_ascii=False, indent=0)
        f.write("\n")
