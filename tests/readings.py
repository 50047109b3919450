"""What it means for two scorers to give the same answer: every field equal; the
decomposition shown may be another of the equally good readings (the generated
scorer searches masks, the interpreter lists every decomposition), so each is
checked for being a true reading of the hand. Used by the property tests and by
benchmarks/fuzz.py's long differential."""

from __future__ import annotations

from typing import Any

from tjmj_dsl.tiles import parse_tile, parse_tiles


def same_answer(request: dict[str, Any], a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Raise AssertionError unless a and b are the same answer to request; a without its decomposition."""
    a, b = dict(a), dict(b)
    da, db = a.pop("decomposition", None), b.pop("decomposition", None)
    assert a == b, (request, a, b)
    assert (da == []) == (db == []) == (a.get("reason") == "no_winning_shape")
    if isinstance(request.get("concealed"), list):  # tiles as a list: the check reads the text form
        request = dict(request, concealed="".join(request["concealed"]))
    for d in (da, db):
        if d:
            true_decomposition(request, a, d)
    return a


def true_decomposition(request: dict[str, Any], r: dict[str, Any], groups: list[dict[str, Any]]) -> None:
    hand = sorted(parse_tiles(request["concealed"]) + [parse_tile(request["draw"])])
    for m in request.get("melds") or []:
        hand += [parse_tile(m["tile"])] * (3 if m["type"] == "pung" else 4)
    shown = sorted(parse_tile(t) for g in groups for t in g["tiles"])
    assert shown == sorted(hand)
    huns = {parse_tile(t) for t in r["hun_kinds"]}
    for g in groups:
        faces = [parse_tile(f) for f in g["faces"]]
        if g["meld"] == "chow":
            assert faces[0] < 27 and faces == [faces[0], faces[0] + 1, faces[0] + 2] and faces[0] % 9 <= 6
        else:
            assert len(set(faces)) == 1
        for f, t, h in zip(g["faces"], g["tiles"], g["huns"]):
            assert h == (parse_tile(t) in huns) and (h or f == t)
    slots = [(g, s) for g in groups if (s := g["winning_slot"]) is not None]
    assert len(slots) == 1 and slots[0][0]["tiles"][slots[0][1]] == r["winning_tile"]
