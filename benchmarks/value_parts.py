"""Where a value hand's instructions go, by elimination (issue 33, item 5): the instruction
protocol of `bench_game.py --instructions` (100 warm-up hands, then hands 1000-1039 of seed 1,
four value players; valgrind's count for n hands minus its count for none), run with a part of
the work replaced by its answers recorded in a first run, so that the same hands are played and
the part costs nothing:

- full: nothing replaced;
- no scorer: every score_tiles call answered from the record;
- no shape questions: the value player's shortfalls and winning draws answered from the record;
- engine: every decision of the four players answered from the record (the engine, its win
  checks by the scorer and the settlement, on the same hands);
- engine, no scorer: the same with the scorer's answers recorded too.

Not a test: run it and read the numbers (a few minutes; valgrind counts instructions whatever
the load).

    python benchmarks/value_parts.py [--hands 40]
"""

from __future__ import annotations

import argparse
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from typing import Any, Callable, Iterator

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

MODES = {"full": (), "no scorer": ("scorer",), "no shape questions": ("shape",),
         "engine": ("players",), "engine, no scorer": ("players", "scorer")}
WARM, FIRST = 100, 1000


def _recorded(fn: Callable[..., Any], store: list[Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        got = fn(*args)
        store.append(got)
        return got
    return call


def _replayed(answers: Iterator[Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        return next(answers)
    return call


def _child(replay: list[str], record: list[str], n: int, path: str) -> None:
    """Warm-up, then n hands; the parts in `replay` answered from `path`, those in `record` recorded
    into it, answer by answer in the order asked (the same hands ask the same questions in the same
    order)."""
    from tjmj_dsl.game import players, table
    from tjmj_dsl.game.simulate import Spec, _rules, hand_summary
    spec = Spec(None, None, (), ("value",) * 4, 1, False)
    rules = _rules(spec)
    store: dict[str, list[Any]] = {}
    if os.path.exists(path):
        with open(path, "rb") as src:
            store = pickle.load(src)
    sites: dict[str, list[tuple[Any, str]]] = {
        "scorer": [(rules.scorer, "score_tiles")],
        "shape": [(table, "shortfalls"), (table, "completing")],
        "players": [(players.ValuePlayer, "act"), (players.ValuePlayer, "claim")]}
    for part in record:
        answers = store[part] = []
        for owner, name in sites[part]:
            setattr(owner, name, _recorded(getattr(owner, name), answers))
    for part in replay:
        answer = _replayed(iter(store[part]))
        for owner, name in sites[part]:
            setattr(owner, name, (lambda f: lambda self, *a: f())(answer) if part == "players" else answer)
    if "players" in replay:
        players.ValuePlayer.begin = lambda self, view, rng: None  # type: ignore[method-assign]
    for h in range(WARM):
        hand_summary(rules, spec, h)
    played = [repr(hand_summary(rules, spec, h)) for h in range(FIRST, FIRST + n)]
    if replay and played != store["played"][:n]:  # an answer replayed out of turn: other hands, no count
        raise SystemExit(f"the replay of {replay} played other hands than its record")
    if record:
        store.setdefault("played", played)
        with open(path, "wb") as dst:
            pickle.dump(store, dst)


def _run(replay: list[str], record: list[str], n: int, path: str, counted: bool) -> int:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", ",".join(replay), ",".join(record), str(n), path]
    env = dict(os.environ, PYTHONHASHSEED="0")
    if not counted:
        subprocess.run(cmd, check=True, env=env)
        return 0
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                         capture_output=True, text=True, env=env)
    m = re.search(r"Collected : (\d+)", out.stderr)
    if not m:
        raise SystemExit(f"valgrind gave no count: {out.stderr[-300:]}")
    return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=40)
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        replay, record, n, path = args.child
        return _child([p for p in replay.split(",") if p], [p for p in record.split(",") if p], int(n), path)
    if shutil.which("valgrind") is None:
        raise SystemExit("needs valgrind (Debian package valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        for label, parts in MODES.items():
            path = os.path.join(tmp, "_".join(parts) or "none")
            for i, part in enumerate(parts):  # the scorer's answers recorded with the players' replayed
                _run(list(parts[:i]), [part], args.hands, path, False)
            per = (_run(list(parts), [], args.hands, path, True) - _run(list(parts), [], 0, path, True)) / args.hands
            print(f"{label:20} {per / 1e6:6.2f} M instructions a hand", flush=True)


if __name__ == "__main__":
    main()
