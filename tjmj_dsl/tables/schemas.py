"""JSON Schemas (2020-12) of the tables' room API and socket messages
(docs/table-protocol.md), beside the contract's in schemas/: written by
`python tools/make_table_schemas.py`, held fresh by tests/test_tables_schemas.py,
which also holds every message the servers of the tests send to them.

The seat's view is the bot protocol's (game/bot.py ask_schema), the record
the record format's (game/record.py): defined once, used here."""

from __future__ import annotations

import copy
import json
import os
import sys
from typing import Any

from ..game.bot import ask_schema
from ..game.record import record_schema

DIALECT = "https://json-schema.org/draft/2020-12/schema"
NAMES = ("table-room-request", "table-room-created", "table-client-message", "table-server-message")
_seat = {"type": "integer", "minimum": 0, "maximum": 3}
_four_ints = {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4}
_error = {"type": "object", "additionalProperties": False, "required": ["code", "message", "field"],
          "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                         "field": {"type": ["string", "null"]}}}


def _obj(required: list[str], props: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": required, "properties": props, **kw}


def _view() -> dict[str, Any]:
    return copy.deepcopy(ask_schema()["properties"]["view"])


def _public() -> dict[str, Any]:
    v = _view()
    props = {k: x for k, x in v["properties"].items() if k not in ("seat", "tiles", "drawn")}
    props["concealed"] = {**_four_ints, "description": "how many concealed tiles each seat holds"}
    props["events"] = {**props["events"], "description": "the hand's events, every draw and concealed kong with tile null"}
    return _obj(sorted(props), props, description="what every seat sees, built from public facts alone")


def _rules() -> dict[str, Any]:
    """The rules in force, as an ask names them (the bot protocol's, never null here)."""
    got = ask_schema()["properties"]["rules"]["oneOf"]
    return copy.deepcopy(next(x for x in got if x.get("type") == "object"))


def _names() -> dict[str, Any]:
    words = {"type": "object", "additionalProperties": {"type": "string"}}
    return _obj(["kong", "outcome", "flag", "play"], {
        "kong": {**words, "description": "each kind of kong (exposed, added, concealed, hun) by the rule file's name"},
        "outcome": {**words, "description": "each fact of an outcome (zuozhuang, lazhuang, chan, xianggong, drawn) "
                                            "by the rule file's name"},
        "flag": {**words, "description": "each request flag (tianhu, dihu, tianting, ...) with the rule file's text"},
        "play": _obj(["ready_declaration"], {"ready_declaration": {
            "type": "string", "description": "the flag a declaration of ready sets (\"\": none is asked)"}})},
        description="the rule file's words for what the page shows (its kong_names, outcome_names and request_flags)")


def _seats() -> dict[str, Any]:
    return {"type": "array", "minItems": 4, "maxItems": 4, "items": _obj(
        ["seat", "kind", "name", "connected"], {"seat": _seat, "kind": {"type": "string"}, "name": {"type": "string"},
                                                "connected": {"type": "boolean"}})}


def room_request_schema() -> dict[str, Any]:
    return _obj(["seats"], {
        "rules": {"type": "string", "description": "a rule set's name from GET /play/api/config (never a path)"},
        "profile": {"type": "string"}, "options": {"type": "object", "description": "option: value, as the rules declare"},
        "seats": {"type": "array", "minItems": 4, "maxItems": 4, "items": {"type": "string"},
                  "description": "person, or a bot of the config's bots (random, value; external when configured)"},
        "names": {"type": "array", "minItems": 4, "maxItems": 4,
                  "items": {"oneOf": [{"type": "string", "minLength": 1, "maxLength": 40}, {"type": "null"}]}},
        "hands": {"type": "integer", "minimum": 0, "maximum": 64, "description": "0: until stopped"},
        "time_limit": {"type": "number", "minimum": 1, "maximum": 600, "description": "seconds a person has for each question"},
    })


def room_created_schema() -> dict[str, Any]:
    seat = _obj(["seat", "kind", "name", "token", "link"], {
        "seat": _seat, "kind": {"type": "string"}, "name": {"type": "string"},
        "token": {"type": ["string", "null"], "description": "a person's seat token (null for a bot)"},
        "link": {"type": ["string", "null"], "description": "/play/room/<room>#seat=<token>"}})
    return _obj(["room", "seats", "owner_token", "spectator"], {
        "room": {"type": "string"}, "seats": {"type": "array", "minItems": 4, "maxItems": 4, "items": seat},
        "owner_token": {"type": "string", "description": "stops the game (POST /play/api/rooms/<room>/stop)"},
        "spectator": {"type": "string", "description": "/play/room/<room>#watch"}})


def client_message_schema() -> dict[str, Any]:
    return {"oneOf": [
        _obj(["type", "token"], {"type": {"const": "hello"}, "token": {"type": "string", "maxLength": 64}}),
        _obj(["type", "watch"], {"type": {"const": "hello"}, "watch": {"const": True}}),
        _obj(["type", "hand", "seq", "choice"], {"type": {"const": "answer"}, "hand": {"type": "integer"},
                                                  "seq": {"type": "integer"}, "choice": {"type": "integer", "minimum": 0}}),
        _obj(["type"], {"type": {"const": "waits"}}),
        _obj(["type"], {"type": {"const": "ping"}}),
    ], "description": "at most 4096 bytes of UTF-8 JSON text"}


def server_message_schema() -> dict[str, Any]:
    rec = record_schema()
    for k in ("$schema", "$id", "title"):
        rec.pop(k, None)
    wait = {"type": "object", "required": ["tile", "fan", "total"],
            "properties": {"tile": {"type": "string"}, "fan": {"type": "integer"}, "total": {"type": "integer"}}}
    clock = {"deadline": {"type": ["number", "null"], "description": "Unix seconds; null for a bot"},
             "time_left": {"type": ["number", "null"]}}
    menu_ask = ask_schema()
    ask = _obj(["hand", "seq", "kind", "menu", "deadline", "time_left"], {
        "hand": {"type": "integer"}, "seq": {"type": "integer", "minimum": 1},
        "kind": menu_ask["properties"]["ask"], "menu": menu_ask["properties"]["menu"], **clock})
    return {"oneOf": [
        _obj(["type", "room", "seat", "rules", "names", "seats", "hands", "time_limit"], {
            "type": {"const": "welcome"}, "room": {"type": "string"}, "seat": {"oneOf": [_seat, {"type": "null"}]},
            "rules": _rules(), "names": _names(), "seats": _seats(), "hands": {"type": "integer"},
            "time_limit": {"type": "number"}}),
        _obj(["type", "hand", "status", "balances", "view", "concealed", "public", "waiting", "ask"], {
            "type": {"const": "state"}, "hand": {"type": "integer"},
            "status": {"enum": ["playing", "stopping", "over", "stopped"]}, "balances": _four_ints,
            "view": {"oneOf": [_view(), {"type": "null"}], "description": "the seat's own view; null for a spectator"},
            "concealed": {"oneOf": [_four_ints, {"type": "null"}]},
            "public": {"oneOf": [_public(), {"type": "null"}], "description": "a spectator's view; null for a seat"},
            "waiting": {"oneOf": [_obj(["seat", "kind", "deadline", "time_left"],
                                       {"seat": {"oneOf": [_seat, {"type": "null"}]},
                                        "kind": {"type": ["string", "null"]}, **clock}), {"type": "null"}],
                        "description": "who the table waits for; seat and kind null when the question (a claim, a "
                                       "tianting declaration) would tell what that seat holds"},
            "ask": {"oneOf": [ask, {"type": "null"}], "description": "the question, in the asked seat's message only"}}),
        _obj(["type", "hand", "record", "balances", "download"], {
            "type": {"const": "hand_end"}, "hand": {"type": "integer"}, "record": rec, "balances": _four_ints,
            "download": {"type": "string"}}),
        _obj(["type", "status", "hands", "balances", "download"], {
            "type": {"const": "game_end"}, "status": {"enum": ["over", "stopped"]}, "hands": {"type": "integer"},
            "balances": _four_ints, "download": {"type": "string"}}),
        _obj(["type", "hand", "waits", "discards"], {
            "type": {"const": "waits"}, "hand": {"type": "integer"}, "waits": {"type": "array", "items": wait},
            "discards": {"type": "array", "items": _obj(["tile", "waits"], {"tile": {"type": "string"},
                                                                            "waits": {"type": "array", "items": wait}})}}),
        _obj(["type", "error"], {"type": {"const": "error"}, "error": _error}),
        _obj(["type", "seats"], {"type": {"const": "seats"}, "seats": _seats()},
             description="a seat's first socket came or its last one left: who is connected now"),
        _obj(["type"], {"type": {"const": "pong"}}),
    ]}


EXAMPLES: dict[str, list[Any]] = {
    "table-room-request": [{"rules": "tianjin", "profile": "seed-001", "options": {"min_fan": 2},
                            "seats": ["person", "value", "value", "random"], "names": ["Ann", None, None, None],
                            "hands": 8, "time_limit": 60}],
    "table-room-created": [{"room": "q3ZkT0b1nV8xYw2a", "owner_token": "Kq1dN0pX3b5c7e9g1i3k5m7o9q1s3u5w",
                            "spectator": "/play/room/q3ZkT0b1nV8xYw2a#watch",
                            "seats": [{"seat": 0, "kind": "person", "name": "Ann", "token": "Xb9aZ0cD1eF2gH3iJ4kL5mN6oP7qR8sT",
                                       "link": "/play/room/q3ZkT0b1nV8xYw2a#seat=Xb9aZ0cD1eF2gH3iJ4kL5mN6oP7qR8sT"},
                                      {"seat": 1, "kind": "value", "name": "value bot", "token": None, "link": None},
                                      {"seat": 2, "kind": "value", "name": "value bot", "token": None, "link": None},
                                      {"seat": 3, "kind": "random", "name": "random bot", "token": None, "link": None}]}],
    "table-client-message": [{"type": "hello", "token": "Xb9aZ0cD1eF2gH3iJ4kL5mN6oP7qR8sT"}, {"type": "hello", "watch": True},
                             {"type": "answer", "hand": 3, "seq": 17, "choice": 2}, {"type": "waits"}, {"type": "ping"}],
    "table-server-message": [
        {"type": "error", "error": {"code": "stale", "message": "question 16 is not the open one (question 17)",
                                    "field": "seq"}},
        {"type": "waits", "hand": 3, "waits": [{"tile": "6m", "fan": 2, "total": 4}],
         "discards": [{"tile": "9m", "waits": [{"tile": "6m", "fan": 2, "total": 4}]}, {"tile": "4m", "waits": []}]},
        {"type": "game_end", "status": "over", "hands": 8, "balances": [31, -9, -14, -8],
         "download": "/play/api/rooms/q3ZkT0b1nV8xYw2a/records.jsonl"},
        {"type": "pong"}],
}
_TITLES = {
    "table-room-request": ("A room request", "The body of POST /play/api/rooms."),
    "table-room-created": ("A room created", "The answer (201) to POST /play/api/rooms: each person's seat link."),
    "table-client-message": ("A table socket message from the page", "One message a page sends on /play/ws/<room>."),
    "table-server-message": ("A table socket message to the page", "One message the server sends on /play/ws/<room>: "
                             "a seat's messages hold only what that seat may see."),
}


def table_schemas() -> dict[str, dict[str, Any]]:
    bodies = {"table-room-request": room_request_schema(), "table-room-created": room_created_schema(),
              "table-client-message": client_message_schema(), "table-server-message": server_message_schema()}
    out = {}
    for name in NAMES:
        title, desc = _TITLES[name]
        out[name] = {"$schema": DIALECT, "$id": f"urn:tjmj:tables:{name}", "title": title,
                     "description": desc + " See docs/table-protocol.md.", **bodies[name], "examples": EXAMPLES[name]}
    return out


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    out = (argv or sys.argv[1:] or ["schemas"])[0]
    for name, s in table_schemas().items():
        with open(os.path.join(out, f"{name}.schema.json"), "w", encoding="utf-8") as f:
            f.write(render(s))
    return 0
