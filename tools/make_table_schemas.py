"""Writes schemas/table-*.schema.json, the JSON Schemas of the tables' room API and socket
messages, from tjmj_dsl/tables/schemas.py (committed; tests/test_tables_schemas.py holds them fresh)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from tjmj_dsl.tables.schemas import main  # noqa: E402

raise SystemExit(main([os.path.join(ROOT, "schemas")]))
