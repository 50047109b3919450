"""The tables' JSON Schemas (schemas/table-*.schema.json): fresh, 2020-12, their examples hold,
and the messages a real table sends hold to them (the room API's too)."""

from __future__ import annotations

import json
import os
from typing import Any

import jsonschema
import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from tjmj_dsl.tables.app import TablesConfig, create_app  # noqa: E402
from tjmj_dsl.tables.schemas import NAMES, render, table_schemas  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = table_schemas()


def v(name: str) -> Any:
    return jsonschema.Draft202012Validator(SCHEMAS[name])


@pytest.mark.parametrize("name", NAMES)
def test_committed_table_schemas_are_current_and_their_examples_hold(name: str) -> None:
    with open(os.path.join(ROOT, "schemas", f"{name}.schema.json"), encoding="utf-8") as f:
        assert f.read() == render(SCHEMAS[name]), "run: python tools/make_table_schemas.py"
    jsonschema.Draft202012Validator.check_schema(SCHEMAS[name])
    for ex in SCHEMAS[name]["examples"]:
        v(name).validate(ex)


def test_what_a_table_sends_holds_to_the_schemas(tmp_path: Any) -> None:
    app = create_app(TablesConfig(db=str(tmp_path / "t.sqlite3"), pace=0, rate=1000, burst=1000))
    with TestClient(app) as c:
        body = {"seats": ["person", "value", "random", "random"], "hands": 1, "names": ["Ann", None, None, None]}
        v("table-room-request").validate(body)
        room = c.post("/play/api/rooms", json=body).json()
        v("table-room-created").validate(room)
        seen: set[str] = set()
        for hello in ({"type": "hello", "watch": True}, {"type": "hello", "token": room["seats"][0]["token"]}):
            with c.websocket_connect(f"/play/ws/{room['room']}") as ws:
                v("table-client-message").validate(hello)
                ws.send_text(json.dumps(hello))
                while True:
                    m = ws.receive_json()
                    v("table-server-message").validate(m)
                    seen.add(m["type"])
                    if m["type"] == "game_end" or (hello.get("watch") and m["type"] == "state"):
                        break
                    ask = m.get("ask") if m["type"] == "state" else None
                    if ask:
                        for msg in ({"type": "waits"}, {"type": "answer", "hand": ask["hand"], "seq": ask["seq"] + 5,
                                                        "choice": 0},
                                    {"type": "answer", "hand": ask["hand"], "seq": ask["seq"], "choice": 0}):
                            v("table-client-message").validate(msg)
                            ws.send_text(json.dumps(msg))
        assert {"welcome", "state", "waits", "error", "hand_end", "game_end"} <= seen
