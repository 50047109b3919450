"""Replay checks everything a record says: every field of a real record, changed, is refused
(as not a valid record, or with the first difference), except the fields replay says it cannot
check (replay.UNVERIFIED, listed in docs/reliability.md). The changes are generated over every
leaf of records that hold a pong, a kong and a win."""

from __future__ import annotations

import copy
import json
import os
import re
from typing import Any, Iterator

import pytest

from gamekit import rules
from tjmj_dsl.game.players import ValuePlayer
from tjmj_dsl.game.replay import UNVERIFIED, ReplayDiff, Replayer
from tjmj_dsl.game.session import play, record
from tjmj_dsl.tiles import NAMES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _records() -> list[dict[str, Any]]:
    gr = rules()
    out = []
    for hand in range(40):
        rec = record(gr, 7, hand, play(gr, 7, hand, [ValuePlayer() for _ in range(4)]), ["value"] * 4)
        types = {e["type"] for e in rec["events"]}
        if rec["result"]["winner"] is not None and "pong" in types and types & {"kong", "added_kong", "concealed_kong"}:
            out.append(rec)
        if len(out) == 2:
            break
    assert out, "no hand of seed 7 with a pong, a kong and a win in 40"
    return out


def _leaves(x: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(x, list) and x:
        # every item of short lists; of the wall and the events a spread of them (each is a leaf like the others)
        idx = range(len(x)) if len(x) <= 16 else sorted({0, 1, len(x) // 3, len(x) // 2, len(x) - 2, len(x) - 1})
        for i in idx:
            yield from _leaves(x[i], path + (i,))
    else:
        yield path


def _changed(v: Any) -> list[Any]:
    if isinstance(v, bool):
        return [not v]
    if isinstance(v, int):
        return [v + 1, v - 1]
    if v is None:
        return [0, "x"]
    if isinstance(v, str):
        if v in NAMES:
            return [NAMES[(NAMES.index(v) + 1) % len(NAMES)]]
        return [v + "x", ""]
    return ["x"]


def _set(rec: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(rec)
    node: Any = out
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return out


RECORDS = _records()
def _get(rec: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        rec = rec[p]
    return rec


CASES = [(i, path, new) for i, rec in enumerate(RECORDS) for path in _leaves(rec) for new in _changed(_get(rec, path))]


def test_the_records_replay_as_they_are() -> None:
    rp = Replayer()
    for rec in RECORDS:
        rp.check(json.loads(json.dumps(rec)))


def _choice(rec: dict[str, Any], path: tuple[Any, ...]) -> bool:
    """A player's choice: a bet, or the tile of a discard. These are the record's input: replay checks that
    each is legal and that all the rest follows from them, so another legal choice is another hand, which
    replay takes (it checks a record's consistency, not that it is the hand that was played)."""
    if path[0] in ("zuozhuang", "lazhuang"):
        return True
    return path[0] == "events" and path[-1] == "tile" and rec["events"][path[1]]["type"] == "discard"


def test_every_field_but_the_unverified_is_checked() -> None:
    rp = Replayer()
    passed = []
    choices = 0
    for i, path, new in CASES:
        if path[0] in UNVERIFIED:
            continue
        if _choice(RECORDS[i], path):
            choices += 1
            continue
        forged = _set(RECORDS[i], path, new)
        try:
            rp.check(json.loads(json.dumps(forged)))
        except ReplayDiff:
            continue
        passed.append(("/".join(map(str, path)), new))
    assert len(CASES) > 300 and choices < len(CASES) // 4
    assert passed == [], f"forged records replay: {passed[:10]}"


def _documented_unverified() -> set[str]:
    """The fields of docs/reliability.md's table of what replay does not check (`| field | why |`)."""
    with open(os.path.join(ROOT, "docs", "reliability.md"), encoding="utf-8") as f:
        text = f.read()
    table = text[text.index("| field | why |"):].split("\n\n", 1)[0]
    return {m.group(1) for m in re.finditer(r"^\| `([^`]+)` \|", table, re.M)}


@pytest.mark.parametrize("field", sorted(UNVERIFIED))
def test_the_unverified_fields_are_documented(field: str) -> None:
    # in the table of fields replay does not check, not merely named somewhere in the document
    assert field in _documented_unverified()


def test_the_documented_table_is_replays_list() -> None:
    """No field the document says is unchecked that replay checks, nor the other way round."""
    assert _documented_unverified() == set(UNVERIFIED)


@pytest.mark.parametrize("field", sorted(UNVERIFIED))
def test_an_unverified_field_is_indeed_not_checked(field: str) -> None:
    """Each field UNVERIFIED names, changed, still replays: were replay to check it, the list (and
    the document) would say wrongly that it cannot."""
    rec = copy.deepcopy(RECORDS[0])
    value = rec[field]
    rec[field] = [v + "x" for v in value] if isinstance(value, list) and all(isinstance(v, str) for v in value) \
        else _changed(value)[0]
    Replayer().check(json.loads(json.dumps(rec)))


def test_a_new_field_is_refused() -> None:
    with pytest.raises(ReplayDiff):
        Replayer().check(dict(copy.deepcopy(RECORDS[0]), note="played on a Tuesday"))
