"""The README's bot section names every field of an ask (each one the ask schema has: the top
level, `rules` and `view`), and its example ask and answer are a real game's: the ask the README's
own command sends, and the answer the README's own bot gives it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

from tjmj_dsl.game.bot import ask_schema

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "docs", "use", "bots.md"), encoding="utf-8") as _f:
    SECTION = _f.read()  # the bots page of the documentation site (it was the README's section)
EXAMPLES = re.findall(r"```json\n(.*?)```", SECTION, re.S)
BOT = re.findall(r"```py\n(.*?)```", SECTION, re.S)[0]


def test_the_section_names_every_field_of_an_ask() -> None:
    schema = ask_schema()
    names = set(schema["properties"]) | set(schema["properties"]["view"]["properties"])
    names |= set(schema["properties"]["rules"]["oneOf"][0]["properties"])
    missing = [n for n in sorted(names) if f"`{n}`" not in SECTION]
    assert not missing, f"the README's bot section does not name {missing}"


def test_the_example_ask_and_answer_are_a_real_games(tmp_path: Any) -> None:
    assert len(EXAMPLES) == 2, "the section shows one ask and one answer"
    ask, answer = (json.loads(x) for x in EXAMPLES)
    command = re.search(r"`(tjmj simulate [^`]*--bot \"1=python3 bot\.py\")`", SECTION)
    assert command is not None, "the section names the command its example comes from"
    # the README's bot, logging each ask it reads
    bot = tmp_path / "bot.py"
    bot.write_text("import sys\n_log = open(sys.argv[1], 'a', encoding='utf-8')\n"
                   "class _Tee:\n    def __iter__(self):\n        for line in sys.__stdin__:\n"
                   "            _log.write(line); _log.flush(); yield line\n"
                   "sys.stdin = _Tee()\n" + BOT, encoding="utf-8")
    log = tmp_path / "asks.jsonl"
    args = command.group(1).split()[2:]
    args[args.index('"1=python3')] = f"1={sys.executable} {bot} {log}"
    args.remove('bot.py"')
    res = subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", "simulate", *args], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert res.returncode == 0, res.stderr
    asks = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    # the schema's examples are asks of this game too (an audit found them from older rules: another sha256,
    # 12 options of 23, a lazhuang ask with the indicator already flipped)
    from tjmj_dsl.game.bot import EXAMPLE_ASKS
    assert EXAMPLE_ASKS == [next(a for a in asks if a["ask"] == "act" and a["seq"] == 4),
                            next(a for a in asks if a["ask"] == "claim"),
                            next(a for a in asks if a["ask"] == "lazhuang" and a["seq"] == 1)]
    real = next(a for a in asks if a["seq"] == ask["seq"])
    # the rule file's hash changes with any edit of the rules: the page shows the one of the rules it documents
    assert ask["rules"]["sha256"] == real["rules"]["sha256"], \
        f"docs/use/bots.md: the example's sha256 is stale; the rule file's is {real['rules']['sha256']}"
    assert real == ask
    assert list(real) == list(ask) and list(real["view"]) == list(ask["view"])  # in the order a bot reads them
    # the answer is the README bot's to that ask
    out = subprocess.run([sys.executable, "-c", BOT], input=json.dumps(real) + "\n", capture_output=True, text=True,
                         timeout=60)
    assert json.loads(out.stdout) == answer
