"""The record of one hand (one JSON object per line of a `--record` file):
its JSON Schema is defined here, once; schemas.py adds the score answer's
schema to it for schemas/record.schema.json (tools/make_schemas.py; a test
keeps the committed file fresh).

A record holds everything needed to play the hand again — the wall, the
dice, the bets and every event — and what came of it, so `tjmj replay` can
re-derive the result and compare."""

from __future__ import annotations

from typing import Any

from ..engine.contract import KONG_TYPES
from ..tiles import NAMES
from .facts import GAME_SCHEMA

FORMAT = "tjmj-record/1"
MAX_RECORD = 1 << 20  # bytes of one record line, as `tjmj replay` and `simulate --resume` read them (a hand's is about 10 KB)
EVENT_TYPES = ("draw", "discard", "pong", "kong", "added_kong", "concealed_kong", "win", "ready")

_tile = {"type": "string", "pattern": "^([1-9][mps]|[ESWNCFP])$", "description": "a tile: 1m-9m, 1p-9p, 1s-9s, E S W N C F P"}
_seat = {"type": "integer", "minimum": 0, "maximum": 3}
_seats = {"type": "array", "items": _seat, "uniqueItems": True, "maxItems": 4}
_four_ints = {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4}


def event_json(seat: int, typ: str, tile: int | None, extra: Any, hidden: bool = False) -> dict[str, Any]:
    """One of the table's events (seat, type, tile, extra) as a record writes it (`hidden`: tile null,
    as a seat that did not see the tile is shown it)."""
    e: dict[str, Any] = {"seat": seat, "type": typ, "tile": NAMES[tile] if tile is not None and not hidden else None}
    if typ == "draw" and extra:
        e["replacement"] = True
    elif typ in ("pong", "kong"):
        e["from"] = extra
    return e


def record_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of a record."""
    event = {
        "type": "object", "additionalProperties": False, "required": ["seat", "type", "tile"],
        "properties": {
            "seat": _seat,
            "type": {"enum": list(EVENT_TYPES), "description": "draw (from the head, or with replacement: from the tail "
                     "after a kong), discard, pong and kong (of the discard of seat `from`), added_kong (bu gang), "
                     "concealed_kong (an gang; of huns: jin gang), win (the winning tile), ready (tianting declared; tile null)"},
            "tile": {"oneOf": [_tile, {"type": "null"}]},
            "replacement": {"const": True, "description": "a draw from the tail after a kong"},
            "from": {**_seat, "description": "the seat whose discard was claimed"},
        },
        # a tile for every event but ready (which names none)
        "if": {"properties": {"type": {"const": "ready"}}},
        "then": {"properties": {"tile": {"type": "null"}}},
        "else": {"properties": {"tile": _tile}},
    }
    payment = {
        "type": "object", "additionalProperties": False, "required": ["from", "to", "amount", "reason"],
        "properties": {"from": _seat, "to": _seat, "amount": {"type": "integer"},
                       "reason": {"type": "string", "description": "win, kong or chan (the payment rule's reason)"},
                       "rule": {"type": "string", "description": "the rule file's payment rule"},
                       "formula": {"type": "string", "description": "the amount's expression and its values"}},
    }
    kong = {
        "type": "object", "additionalProperties": False, "required": ["seat", "type", "tile", "points"],
        "properties": {"seat": _seat, "type": {"enum": list(KONG_TYPES), "description": "hun: the kong of hun tiles the rules count as jin gang (play.hun_kong_*_as)"},
                       "tile": _tile, "points": {"type": "integer", "minimum": 0},
                       "won": {"type": "boolean", "description": "its replacement tile won the hand (gangkai)"},
                       "from": {"oneOf": [_seat, {"type": "null"}],
                                "description": "the seat whose discard was konged; null for a kong of one's own tiles"},
                       "ended": {"type": "boolean", "description": "the kong ended the hand at once as its maker's win "
                                 "(play.kong_ends_hand; the result's score is then null)"}},
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://tjmj.invalid/schema/record.json",
        "title": "tjmj hand record",
        "description": "One hand played by the tjmj game engine: the wall, dice, bets and events that replay it, "
                       "and its result. `tjmj simulate --record FILE` writes one per line; `tjmj replay FILE` checks them.",
        "type": "object", "additionalProperties": False,
        "required": ["format", "rules", "seed", "hand", "dealer", "zuozhuang", "lazhuang", "dice", "wall", "indicator",
                     "deal", "events", "result"],
        "properties": {
            "format": {"const": FORMAT},
            "rules": {"type": "object", "additionalProperties": False, "required": ["name", "sha256", "profile", "options"],
                      "properties": {"name": {"type": "string"},
                                     "sha256": {"type": "string", "description": "of the rule file(s) read"},
                                     "profile": {"type": "string"},
                                     "options": {"type": "object", "description": "every option's value"}}},
            "seed": {"type": ["integer", "string", "null"],
                     "description": "the game seed; hand i's wall, dice and dealer come from (seed, i). null: the wall, "
                                    "dice and dealer are the record's own (a hand dealt by another program or set by "
                                    "hand), replayed as they are"},
            "hand": {"type": "integer", "minimum": 0},
            "players": {"type": "array", "items": {"type": "string"}, "maxItems": 4, "description": "who sat at seats 0-3"},
            "dealt_by": {"enum": ["turns", "rotation"],
                         "description": "who deals: turns (absent too), seat (d + hand) % 4 as the seed says (d the seed's first dealer, drawn at random); rotation, the "
                                        "previous hand's next_dealer (tjmj simulate --rotate; hand 0 or the first of a "
                                        "run is dealt by turns)"},
            "game": GAME_SCHEMA,
            "dealer": _seat,
            "zuozhuang": {"type": "boolean", "description": "the dealer sat (zuozhuang)"},
            "lazhuang": {**_four_ints, "description": "lazhuang counts by seat (the dealer's 0)"},
            "dice": {"type": "array", "minItems": 2, "maxItems": 2, "description": "the dealer's roll (the deal), the "
                     "roll of the seat opposite (the indicator)",
                     "items": {"type": "array", "minItems": 2, "maxItems": 2,
                               "items": {"type": "integer", "minimum": 1, "maximum": 6}}},
            "wall": {"type": "array", "items": _tile, "minItems": 136, "maxItems": 136,
                     "description": "the wall as it lies: sides 0-3, each side's 17 stacks from that seat's right, "
                                    "top tile before bottom"},
            "indicator": _tile,
            "deal": {"type": "array", "minItems": 4, "maxItems": 4, "description": "the starting hands by seat, as dealt",
                     "items": {"type": "array", "items": _tile, "minItems": 13, "maxItems": 14}},
            "events": {"type": "array", "items": event},
            "result": {
                "type": "object", "additionalProperties": False,
                "required": ["winner", "score", "kongs", "chan", "xianggong", "payments", "balances", "next_dealer"],
                "properties": {
                    "winner": {"oneOf": [_seat, {"type": "null"}], "description": "null: a drawn hand (huangzhuang)"},
                    "score": {"oneOf": [{"type": "null"}, {
                        "type": "object", "additionalProperties": False, "required": ["request", "result"],
                        "properties": {"request": {"type": "object", "description": "the scoring request sent for the winner"},
                                       "result": {"type": "object", "description": "what the scorer answered"}}}]},
                    "kongs": {"type": "array", "items": kong},
                    "chan": {"type": "boolean", "description": "a payment of reason chan was made (the rule file's settlement says when)"},
                    "xianggong": {**_seats, "description": "seats that discarded a hun (xiaoxianggong)"},
                    "ready": {**_seats, "description": "seats that declared tianting"},
                    "payments": {"type": "array", "items": payment},
                    "balances": {**_four_ints, "description": "by seat; they sum to 0"},
                    "next_dealer": _seat,
                },
            },
        },
    }

