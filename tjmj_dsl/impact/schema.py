"""The JSON Schema (2020-12) of `tjmj impact --json` (and report.json), committed
as schemas/impact.schema.json: `python -m tjmj_dsl.impact.schema` writes it; a
test holds the file fresh and every report the tests make to it."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from .analyze import FORMAT

_num = {"type": ["number", "null"]}
_ci = {"oneOf": [{"type": "null"}, {"type": "array", "items": _num, "minItems": 2, "maxItems": 2}],
       "description": "the 95 % interval [low, high]; null when the measure is undefined"}
_estimate = {"type": "object", "additionalProperties": False, "required": ["value", "ci", "se"],
             "properties": {"value": {**_num, "description": "null: undefined (a ratio over no wins)"},
                            "ci": _ci, "se": {**_num, "description": "standard error over walls"}}}
_diff = {
    "type": "object", "additionalProperties": False,
    "required": ["diff", "ci", "se", "sd_walls", "detected", "detected_bonferroni", "walls_needed", "verdict"],
    "properties": {
        "diff": {**_num, "description": "variant minus base"}, "ci": _ci, "se": _num,
        "sd_walls": {**_num, "description": "standard deviation of the per-wall paired differences"},
        "detected": {"type": "boolean", "description": "the 95 % interval excludes 0"},
        "detected_bonferroni": {"type": "boolean", "description": "the 1 - 0.05/K interval excludes 0 (K: differences_reported)"},
        "walls_needed": {"type": ["integer", "null"], "minimum": 2,
                         "description": "walls that would detect the observed difference (80 % power, 95 %); null when detected or 0"},
        "verdict": {"type": "string"}}}
_bets = {"type": "array", "items": {"type": "object", "additionalProperties": False,
                                    "required": ["value", "hands", "dealer_balance"],
                                    "properties": {"value": {"type": ["boolean", "integer"]}, "hands": {"type": "integer"},
                                                   "dealer_balance": _num}}}


def impact_schema() -> dict[str, Any]:
    arm = {
        "type": "object", "additionalProperties": False,
        "required": ["name", "spec", "rules", "measures", "fan_distribution", "wins_counted", "pattern_wins", "dealer_by_bets"],
        "properties": {
            "name": {"type": "string"}, "spec": {"type": "string", "description": "PROFILE_OR_OPTIONS as given"},
            "rules": {"type": "object", "additionalProperties": False,
                      "required": ["name", "profile", "sha256", "options", "files"],
                      "properties": {"name": {"type": "string"}, "profile": {"type": "string"},
                                     "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                                     "options": {"type": "object", "description": "every option's value"},
                                     "files": {"type": "array", "items": {"type": "string"},
                                               "description": "the rule files read, the base first: each relative "
                                                              "to the folder of the last (the file read), a "
                                                              "built-in one it extends as builtin:NAME"}}},
            "measures": {"type": "object", "additionalProperties": _estimate},
            "fan_distribution": {"type": "object", "additionalProperties": {"type": "integer"},
                                 "description": "wins (main mix, seatings counted) by fan"},
            "wins_counted": {"type": "integer"},
            "pattern_wins": {"type": "object", "additionalProperties": {"type": "integer"}},
            "dealer_by_bets": {"type": "object", "additionalProperties": False, "required": ["zuozhuang", "lazhuang"],
                               "properties": {"zuozhuang": _bets, "lazhuang": _bets},
                               "description": "descriptive: the dealer's mean balance by whether they sat and by the lazhuang against them"}},
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:tjmj:impact-report:1",
        "title": "tjmj impact report",
        "description": "What rule variants do to the game, by duplicate play against a base (`tjmj impact --json`).",
        "type": "object", "additionalProperties": False,
        "required": ["format", "command", "seed", "walls", "seatings_per_wall", "players", "mixes", "confidence", "method",
                     "differences_reported", "headline", "measures", "arms", "differences"],
        "properties": {
            "format": {"const": FORMAT},
            "command": {"type": "string", "description": "the command that gives the same report"},
            "seed": {"type": ["integer", "string"]}, "walls": {"type": "integer", "minimum": 2},
            "seatings_per_wall": {"const": 4},
            "players": {"type": "array", "items": {"type": "string"}, "minItems": 4, "maxItems": 4},
            "mixes": {"type": "array", "items": {"type": "array", "items": {"type": "string"}, "minItems": 4, "maxItems": 4}},
            "confidence": {"type": "number"}, "method": {"type": "string"},
            "differences_reported": {"type": "integer", "minimum": 0},
            "headline": {"type": "array", "items": {"type": "string"}},
            "measures": {"type": "array", "items": {
                "type": "object", "additionalProperties": False, "required": ["id", "label", "kind", "mix", "headline", "unit"],
                "properties": {"id": {"type": "string"}, "label": {"type": "string"},
                               "kind": {"enum": ["mean", "ratio", "sd"]}, "mix": {"type": "integer", "minimum": 0},
                               "headline": {"type": "boolean"}, "unit": {"type": "string"}}}},
            "arms": {"type": "array", "items": arm, "minItems": 1},
            "differences": {"type": "array", "items": {
                "type": "object", "additionalProperties": False, "required": ["variant", "measures"],
                "properties": {"variant": {"type": "string"}, "measures": {"type": "object", "additionalProperties": _diff}}}},
        },
    }


def render() -> str:
    return json.dumps(impact_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else "schemas"
    with open(os.path.join(root, "impact.schema.json"), "w", encoding="utf-8", newline="\n") as f:
        f.write(render())
