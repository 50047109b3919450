"""Writes schemas/*.schema.json, the JSON Schemas of the JSON contract, from
tjmj_dsl/engine/contract.py (run after changing the contract; the files are
committed and tests/test_contract.py holds them fresh)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tjmj_dsl.schemas import main  # noqa: E402

raise SystemExit(main([os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schemas")]))
