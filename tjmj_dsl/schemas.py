"""JSON Schemas (2020-12) of the JSON contract, derived from the field
declarations in engine/contract.py (never written twice).

Without a rule set the schemas are generic: the rule file's request flags are
"any other field, boolean", options any values. With one (the HTTP service's
OpenAPI document) the flags, profiles, options and their values are those of
that rule set, the pattern ids and rule codes those any of its profiles and
options may give (a request may name its own). The examples are requests
and the built-in rules' answers to them, read from the file beside those rules.
The committed copies under schemas/ are the generic ones (written by
`python tools/make_schemas.py`; a test holds them fresh)."""

from __future__ import annotations

import functools
import json
from typing import Any

from .engine import contract as C
from .engine.contract import CONTRACT as CONTRACT_VERSION
from .ir import RuleSet
from .source.files import rules_file

EXAMPLES_FILE = "tianjin.examples.yaml"  # beside the built-in rules (shipped with them)
DIALECT = "https://json-schema.org/draft/2020-12/schema"
NAMES = ("score-request", "waits-request", "score-result", "waits-result", "explain-result", "settle-outcome",
         "settle-result", "record", "bot-ask", "bot-reply")
NOT_HTTP = ("record", "bot-ask", "bot-reply")  # no endpoint takes or gives one

_TILE_OUT = {"type": "string", "pattern": "^([1-9][mps]|[ESWNCFP])$",
             "description": "a tile in canonical notation: 1-9 with m (wan, characters), p (bing, dots), s (tiao, bamboo); honors E S W N C F P"}
_TILE_IN = {"type": "string", "minLength": 1,
            "description": "one tile: 5m, 7p, 9s, E (or 1z), 五万, 7筒, 白板, …"}
_IDENT = {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}


def _defs(rs: RuleSet | None) -> dict[str, Any]:
    """Every named part of the contract."""
    rules_props: dict[str, Any] = {
        "name": {"type": "string"}, "profile": {"type": "string"},
        "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "options": {"type": "object"},
    }
    if rs is not None:
        rules_props["name"] = {"const": rs.name}
        rules_props["profile"] = {"enum": [p for p, _ in rs.profiles] or [rs.profile]}
    error_codes = ", ".join(f"{c} ({d})" for c, d in C.ERRORS)
    code: dict[str, Any] = dict(_IDENT, description=(
        "a short snake_case code: " + error_codes + "; or, for a hand that a request rule of the rule file "
        "refuses, that rule's id (likewise an outcome rule of its settlement)"))
    pattern_id: dict[str, Any] = dict(_IDENT)
    if rs is not None:  # a request may name its own profile/options: the ids any of them may give
        code = {"enum": list(C.ERROR_CODES) + [r for r in rs.any_rule_ids if r not in C.ERROR_CODES],
                "description": code["description"]}
        pattern_id = {"enum": list(rs.any_pattern_ids)}
    d: dict[str, Any] = {
        "tile": _TILE_OUT,
        "tile_in": _TILE_IN,
        "tiles_in": {"oneOf": [
            {"type": "string", "description": "tiles written together or with spaces: 345m123sEEE77m45s"},
            {"type": "array", "items": {"$ref": "#/$defs/tile_in"}, "description": "one tile per item: [\"3m\", \"4m\"]"},
        ]},
        "meld_in": {"type": "object", "additionalProperties": False, "required": ["type", "tile"],
                    "properties": {"type": {"enum": list(C.MELD_TYPES)}, "tile": {"$ref": "#/$defs/tile_in"}}},
        "options_in": _options_schema(rs),
        "pattern_id": pattern_id,
        "rules": {"type": "object", "additionalProperties": False, "required": [f for f, _, _ in C.RULES_INFO],
                  "properties": {f: dict(rules_props[f], description=m) for f, _, m in C.RULES_INFO}},
        "error": {"type": "object", "additionalProperties": False, "required": ["code", "message", "field"],
                  "properties": {
                      "code": code,
                      "message": {"type": "string", "description": "what is wrong, for people (names the field)"},
                      "field": {"type": ["string", "null"],
                                "description": "the request field (dotted: melds[0].tile, concealed[3]), or null"},
                      "position": {"type": "integer", "minimum": 0,
                                   "description": "0-based character (or byte, for not_utf8) inside the field's "
                                                  "value, or inside the line/body when field is null"}}},
        "group": _object(C.GROUP),
        "wait": _object(C.WAIT),
        "outcome_kong": {"type": "object", "additionalProperties": False,
                         "required": [f for f, _, req, _ in C.OUTCOME_KONG if req],
                         "properties": {f: dict(_TYPE[t], description=m) for f, t, _, m in C.OUTCOME_KONG}},
        "outcome_round": {"type": "object", "additionalProperties": False,
                          "required": [f for f, _, req, _ in C.OUTCOME_ROUND if req],
                          "properties": {f: dict(_TYPE[t], description=m) for f, t, _, m in C.OUTCOME_ROUND}},
        "explanation": _object(C.EXPLANATION),
        "explained_pattern": _object(C.EXPLAINED_PATTERN),
        "payment": _object(C.PAYMENT),
        "settled_kong": _object(C.SETTLED_KONG),
        "unpaid": _object(C.UNPAID),
    }
    return d


def _options_schema(rs: RuleSet | None) -> dict[str, Any]:
    if rs is None:
        return {"type": ["object", "null"], "additionalProperties": {"type": ["string", "integer", "boolean", "null"]},
                "description": "option name → value (null: the profile's value)"}
    props: dict[str, Any] = {}
    for o in rs.options:
        vals: list[Any] = []
        for c in o.choices:
            vals.append(c)
            if isinstance(c, str) and c.lstrip("-").isdigit():
                vals.append(int(c))  # "8" may be written 8
            if c in ("on", "off"):
                vals.append(c == "on")
        props[o.id] = {"enum": vals + [None], "description": o.description}
    return {"type": ["object", "null"], "additionalProperties": False, "properties": props}


_TYPE: dict[str, Any] = {
    "any": {},
    "boolean": {"type": "boolean"},
    "integer": {"type": "integer"},
    "string": {"type": "string"},
    "contract": {"const": C.CONTRACT},
    "rules": {"$ref": "#/$defs/rules"},
    "ids": {"type": "array", "items": {"$ref": "#/$defs/pattern_id"}},
    "strings": {"type": "array", "items": {"type": "string"}},
    "booleans": {"type": "array", "items": {"type": "boolean"}},
    "tile": {"$ref": "#/$defs/tile"},
    "tile_list": {"type": "array", "items": {"$ref": "#/$defs/tile"}},
    "decomposition": {"type": "array", "items": {"$ref": "#/$defs/group"}, "maxItems": 5},
    "group": {"$ref": "#/$defs/group"},
    "meld_kind": {"enum": list(C.MELD_KINDS)},
    "slot": {"type": ["integer", "null"], "minimum": 0, "maximum": 3},
    "reason": {"enum": list(C.NO_WIN_REASONS) + [C.REFUSED]},
    "error": {"$ref": "#/$defs/error"},
    "waits": {"type": "array", "items": {"$ref": "#/$defs/wait"}},
    "ident": _IDENT,
    "explained_patterns": {"type": "array", "items": {"$ref": "#/$defs/explained_pattern"}},
    "seat": {"type": "integer", "minimum": 0, "maximum": C.SEATS - 1},
    "seat_or_null": {"type": ["integer", "null"], "minimum": 0, "maximum": C.SEATS - 1},
    "kong_type": {"enum": list(C.KONG_TYPES)},
    "item": {"type": ["integer", "null"], "minimum": 0},
    "refused": {"const": C.REFUSED},
    "payments": {"type": "array", "items": {"$ref": "#/$defs/payment"}},
    "balances": {"type": "array", "items": {"type": "integer"}, "minItems": C.SEATS, "maxItems": C.SEATS},
    "settled_kongs": {"type": "array", "items": {"$ref": "#/$defs/settled_kong"}},
    "unpaid": {"type": "array", "items": {"$ref": "#/$defs/unpaid"}},
    # request fields: null means absent
    "flag": {"type": ["boolean", "null"]},
    "counts": {"type": ["array", "null"], "items": {"type": "integer", "minimum": 0}, "minItems": C.SEATS,
               "maxItems": C.SEATS},
    "seats": {"type": ["array", "null"], "items": {"type": "integer", "minimum": 0, "maximum": C.SEATS - 1},
              "uniqueItems": True},
    "kongs": {"type": ["array", "null"], "items": {"$ref": "#/$defs/outcome_kong"}},
    "rounds": {"type": ["array", "null"], "items": {"$ref": "#/$defs/outcome_round"}, "maxItems": C.MAX_ROUNDS},
    "tile_names": {"type": "array", "items": {"$ref": "#/$defs/tile"}, "minItems": 1, "maxItems": 4},
    "tiles": {"$ref": "#/$defs/tiles_in"},
    "melds": {"type": ["array", "null"], "items": {"$ref": "#/$defs/meld_in"}, "maxItems": 4},
    "kong_draw": {"enum": list(C.KONG_DRAWS) + [None]},
    "kong_chain": {"type": "integer", "minimum": 1, "maximum": C.KONG_CHAIN_MAX},
    "options": {"$ref": "#/$defs/options_in"},
}


def _object(fields: tuple[tuple[str, str, str], ...]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": [f for f, _, _ in fields],
            "properties": {f: dict(_TYPE[t], description=m) for f, t, m in fields}}


def request_schema(rs: RuleSet | None = None, waits: bool = False) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for f, t, required, meaning in C.REQUEST:
        s: dict[str, Any] = dict(_TYPE.get(t, {}))
        if t == "tile":
            s = {"$ref": "#/$defs/tile_in"}
        elif t == "string":
            s = {"type": ["string", "null"]}
            if rs is not None and f == "profile":
                s = {"enum": [p for p, _ in rs.profiles] + [None]}
        if not required and t not in ("any", "melds", "kong_draw", "options", "string"):
            s = {"anyOf": [s, {"type": "null"}]}
        props[f] = dict(s, description=meaning)
    if waits:
        props["draw"] = {"type": "null", "description": "a waits request has no draw (absent or null)"}
    flag = {"type": ["boolean", "null"]}
    out: dict[str, Any] = {
        "type": "object",
        "required": ["concealed", "indicator"] + ([] if waits else ["draw"]),
        "properties": props,
    }
    if not waits:
        out["properties"]["draw"] = {"$ref": "#/$defs/tile_in", "description": "the winning tile"}
    if rs is None:
        out["additionalProperties"] = dict(flag, description="any other field is one of the rule file's "
                                           "request_flags, a boolean (GET /rules of `tjmj "
                                           "serve` lists those of the rules in force)")
    else:
        for f, meaning in rs.flags:
            out["properties"][f] = dict(flag, description=meaning)
        out["additionalProperties"] = False
    return out


def outcome_schema(rs: RuleSet | None = None) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for f, t, _, meaning in C.OUTCOME:
        x: dict[str, Any] = dict(_TYPE.get(t, {}))
        if t == "string":
            x = {"type": ["string", "null"]}
            if rs is not None and f == "profile":
                x = {"enum": [p for p, _ in rs.profiles] + [None]}
        elif t == "integer":
            x = {"type": ["integer", "null"], "minimum": 0, "maximum": C.MAX_TOTAL}
        props[f] = dict(x, description=meaning)
    return {"type": "object", "additionalProperties": False, "required": [f for f, _, req, _ in C.OUTCOME if req],
            "properties": props,
            "if": {"properties": {"winner": {"type": "integer"}}, "required": ["winner"]},
            "then": {"required": ["total"], "properties": {"total": {"type": "integer"}}},
            "else": {"properties": {"total": {"enum": [0, None]}}}}


def settle_result_schema() -> dict[str, Any]:
    s = _object(tuple((f, t, m) for f, t, _, m in C.SETTLE_RESULT))
    s["required"] = [f for f, _, when, _ in C.SETTLE_RESULT if when == "always"]
    s["dependentRequired"] = {"reason": ["error"], "error": ["reason"]}
    s["if"] = {"required": ["error"]}
    s["then"] = {"properties": {"payments": {"maxItems": 0}, "next_dealer": {"const": None},
                                "balances": {"items": {"const": 0}}}}
    s["else"] = {"properties": {"next_dealer": {"type": "integer"}}}
    return s


def score_result_schema() -> dict[str, Any]:
    s = _object(tuple((f, t, m) for f, t, _, m in C.SCORE_RESULT))
    always = [f for f, _, when, _ in C.SCORE_RESULT if when == "always"]
    scored = [f for f, _, when, _ in C.SCORE_RESULT if when == "scored"]
    s["required"] = always
    refused = {"required": ["reason"], "properties": {"reason": {"const": C.REFUSED}}}
    no_win = {"required": ["reason"], "properties": {"reason": {"enum": list(C.NO_WIN_REASONS)}}}
    s["allOf"] = [
        {"if": {"properties": {"win": {"const": True}}},
         "then": {"required": scored, "not": {"anyOf": [{"required": ["reason"]}, {"required": ["message"]},
                                                        {"required": ["error"]}]}},
         "else": {"required": ["reason"]}},
        {"if": refused,
         "then": {"required": ["error"], "properties": {
             "fan": {"const": 0}, "total": {"const": 0}, "patterns": {"maxItems": 0}, "names": {"maxItems": 0},
             "formula": {"const": ""}},
             "not": {"anyOf": [{"required": [f]} for f in scored + ["message"]]}}},
        {"if": no_win,
         "then": {"required": scored + ["message"], "properties": {"total": {"const": 0}},
                  "not": {"required": ["error"]}}},
    ]
    return s


def explain_result_schema() -> dict[str, Any]:
    s = score_result_schema()
    s["properties"]["explanation"] = {"$ref": "#/$defs/explanation",
                                      "description": "how the answer came about (absent when refused)"}
    s["dependentSchemas"] = {"explanation": {"not": {"required": ["error"]}}}
    s["if"] = {"not": {"required": ["error"]}}
    s["then"] = {"required": ["explanation"]}
    return s


def waits_result_schema() -> dict[str, Any]:
    s = _object(tuple((f, t, m) for f, t, _, m in C.WAITS_RESULT))
    s["required"] = [f for f, _, when, _ in C.WAITS_RESULT if when == "always"]
    s["properties"]["reason"] = {"const": C.REFUSED}
    s["dependentRequired"] = {"reason": ["error"], "error": ["reason"]}
    s["if"] = {"required": ["error"]}
    s["then"] = {"properties": {"waits": {"maxItems": 0}}}
    return s


_TITLES = {
    "score-request": ("A score request", "One hand with its winning tile: POST /score, a line of `tjmj score "
                      "--jsonl`, Scorer.score()."),
    "waits-request": ("A waits request", "A 13-tile hand without its winning tile: POST /waits, a line of "
                      "`tjmj waits --jsonl`, Scorer.waits()."),
    "score-result": ("A score result", "The answer to a score request. A refusal keeps the score fields with "
                     "their empty values and carries `error`; a hand that does not win says why in `reason` "
                     "and `message`."),
    "waits-result": ("A waits result", "The answer to a waits request: every tile that wins, in tile order; "
                     "a refusal has `waits: []` and `error`."),
    "explain-result": ("An explain result", "A score result by the generated scorer (POST /explain, `tjmj "
                       "explain --jsonl`) with `explanation`: every pattern with its predicate and whether the "
                       "formula used it, the algebra and the score table."),
    "settle-outcome": ("A settlement outcome", "What happened at the table after a hand: POST /settle, "
                       "Scorer.settle(), settle() of a generated scorer. Seats are 0-3 in turn order."),
    "settle-result": ("A settlement result", "Who pays whom: every payment with its rule and formula, the four "
                      "balances (summing to 0), the next dealer, and each rule and item left unpaid with why; a "
                      "refusal pays nothing and carries `error`."),
}


def record_schema(score_result: dict[str, Any], example: Any = None) -> dict[str, Any]:
    """The game record's schema (defined by the game engine in game/record.py),
    with the score answer it holds held to the score-result schema."""
    from .game.record import record_schema as engine_record_schema
    s = engine_record_schema()
    s["$id"] = f"urn:tjmj:contract:{CONTRACT_VERSION}:record"
    s["description"] += " The score answer it holds follows the score-result schema."
    scored = s["properties"]["result"]["properties"]["score"]["oneOf"][1]["properties"]
    scored["result"] = {"$ref": "#/$defs/score_result", "description": scored["result"].get("description", "")}
    body = {k: v for k, v in score_result.items() if k not in ("$schema", "$id", "examples", "$defs", "title")}
    s["$defs"] = dict(score_result.get("$defs", {}), score_result=body)
    if example is not None:
        s["examples"] = [example]
    return s


def record_example() -> dict[str, Any]:
    """A real record: hand 0 of seed 7 with four value players, under the built-in rules
    (its rules.sha256 replaced by the examples' placeholder)."""
    from .api import Scorer
    from .game.players import make_player
    from .game.rules import game_rules
    from .game.session import play, record
    rules = game_rules(Scorer())
    names = ["value"] * 4
    rec = record(rules, 7, 0, play(rules, 7, 0, [make_player(n) for n in names]), names)
    rec["rules"]["sha256"] = examples_rules()["sha256"]
    if rec["result"]["score"] is not None:
        rec["result"]["score"]["result"]["rules"]["sha256"] = rec["rules"]["sha256"]
    return rec


def _committed_record_example() -> Any:
    """The example of the committed schemas/record.schema.json (None outside a checkout): playing
    a hand to make it again is left to tools/make_schemas.py."""
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schemas", "record.schema.json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return (json.load(f).get("examples") or [None])[0]


def schemas(rs: RuleSet | None = None, examples: bool = True, record: Any = None) -> dict[str, dict[str, Any]]:
    """name → a standalone schema (its own $defs). Generic without `rs`. The
    record's example is `record`, or the committed one."""
    defs = _defs(rs)
    given = contract_examples() if examples else {}
    bodies = {
        "score-request": request_schema(rs),
        "waits-request": request_schema(rs, waits=True),
        "score-result": score_result_schema(),
        "waits-result": waits_result_schema(),
        "explain-result": explain_result_schema(),
        "settle-outcome": outcome_schema(rs),
        "settle-result": settle_result_schema(),
    }
    out = {}
    for name, body in bodies.items():
        title, desc = _TITLES[name]
        head: dict[str, Any] = {"$schema": DIALECT, "$id": f"urn:tjmj:contract:{C.CONTRACT}:{name}",
                                "title": title + (f" ({rs.name})" if rs is not None else ""),
                                "description": desc + f" JSON contract version {C.CONTRACT}."}
        s = {**head, **body}
        if examples:
            s["examples"] = given[name]
        s["$defs"] = _used_defs(s, defs)
        out[name] = s
    out["record"] = record_schema(out["score-result"], (record or _committed_record_example()) if examples else None)
    out.update(bot_schemas(examples))
    return out


def _asks_with_placeholder(asks: list[Any]) -> list[Any]:
    """Asks as the schema's examples show them: their rules.sha256 the examples' placeholder, as every
    other example's (the asks were met under rules whose text has changed since)."""
    out: list[Any] = _fresh(asks)
    placeholder = examples_rules()["sha256"]
    for a in out:
        a["rules"]["sha256"] = placeholder
    return out


def bot_schemas(examples: bool = True) -> dict[str, dict[str, Any]]:
    """The bot protocol's two schemas (defined by the game engine in game/bot.py): an ask, and an answer."""
    from .game import bot
    out = {}
    for name, body, title, desc, ex in (
            ("bot-ask", bot.ask_schema(), "A bot's ask",
             "One line the game engine writes to a bot (`tjmj simulate --bot SEAT=COMMAND`): the question, what "
             "the seat may see, and the menu of legal answers.", _asks_with_placeholder(bot.EXAMPLE_ASKS)),
            ("bot-reply", bot.reply_schema(), "A bot's answer",
             "One line a bot writes for each ask: the index of its pick in the ask's menu.", bot.EXAMPLE_REPLIES)):
        s: dict[str, Any] = {"$schema": DIALECT, "$id": f"urn:tjmj:protocol:{bot.PROTOCOL}:{name}", "title": title,
                             "description": desc + f" Protocol {bot.PROTOCOL}.", **body}
        if examples:
            s["examples"] = ex
        out[name] = s
    return out


def _used_defs(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """The $defs a schema refers to, directly or through other defs, in a fixed order."""
    need: set[str] = set()
    todo = [schema]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            ref = x.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] not in need:
                need.add(ref[8:])
                todo.append(defs[ref[8:]])
            todo.extend(v for k, v in x.items() if k != "examples")
        elif isinstance(x, list):
            todo.extend(x)
    return {k: defs[k] for k in defs if k in need}


_EXAMPLES_FORMAT = "tjmj-contract-examples/1"
_STATED = ("score-request", "waits-request", "settle-outcome")  # examples that are requests
_ANSWERED = ("score-result", "waits-result", "explain-result", "settle-result")  # request → answer


@functools.cache
def _examples_file() -> tuple[dict[str, list[Any]], dict[str, list[Any]], dict[str, Any]]:
    """(examples, the requests the result examples answer, the examples' `rules`), read from the
    file kept beside the built-in rules: what those rules answer is theirs to say, so no pattern,
    name or value of them is written here."""
    import yaml
    with open(rules_file(EXAMPLES_FILE), encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    if not isinstance(doc, dict) or doc.get("format") != _EXAMPLES_FORMAT:
        raise ValueError(f"{EXAMPLES_FILE}: not a {_EXAMPLES_FORMAT} file")
    rules = doc["rules"]
    examples: dict[str, list[Any]] = {k: doc[k] for k in _STATED}
    requests: dict[str, list[Any]] = {}
    for k in _ANSWERED:  # every answer names the contract and the rules that made it
        examples[k] = [{"contract": C.CONTRACT, "rules": dict(rules), **e["answer"]} for e in doc[k]]
        requests[k] = [e["request"] for e in doc[k]]
    return examples, requests, rules


def contract_examples() -> dict[str, list[Any]]:
    """name → the examples of that schema: requests, and the built-in rules' answers to requests
    (their rules.sha256 a placeholder)."""
    return _fresh(_examples_file()[0])


def example_requests() -> dict[str, list[Any]]:
    """name → the requests the result examples of that schema answer, in the same order."""
    return _fresh(_examples_file()[1])


def _fresh(x: Any) -> Any:
    """A copy sharing nothing (YAML aliases in the file make shared objects; JSON has none)."""
    return json.loads(json.dumps(x))


def examples_rules() -> dict[str, Any]:
    """The `rules` the result examples carry: the built-in rules' name and profile, a placeholder sha256."""
    return _fresh(_examples_file()[2])  # type: ignore[no-any-return]


def contract_markdown(rs: RuleSet) -> str:
    """The contract's tables for the README, with the request flags of `rs` (kept in sync by a test)."""
    def cell(t: str) -> str:
        return t.replace("|", "\\|")
    out = ["| request field | meaning |", "|---|---|"]
    for f, _, required, m in C.REQUEST:
        out.append(f"| `{f}`{' (required)' if required else ''} | {cell(m)} |")
    for f, m in rs.flags:
        out.append(f"| `{f}` | a request flag of the rule file, boolean: {cell(m)} |")
    out += ["", "| answer field | present | meaning |", "|---|---|---|"]
    when = {"always": "always", "scored": "unless refused", "not_win": "when not a win", "no_win": "no win, not refused",
            "refused": "refused", "explain": "`tjmj explain --json` only"}
    for f, _, w, m in C.SCORE_RESULT:
        out.append(f"| `{f}` | {when[w]} | {cell(m)} |")
    out += ["", "| error code | when |", "|---|---|"]
    for c, m in C.ERRORS:
        out.append(f"| `{c}` | {cell(m)} |")
    ids = ", ".join(f"`{r.id}`" for r in rs.request_rules[:2])
    out.append(f"| a request rule's id | the rule file refuses the hand{', e.g. ' + ids if ids else ''} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the generic schemas: python -m tjmj_dsl.schemas [DIR] (default schemas/)."""
    import os
    import sys
    out = (argv if argv is not None else sys.argv[1:] or ["schemas"])[0]
    os.makedirs(out, exist_ok=True)
    for name, s in schemas(record=record_example()).items():
        with open(os.path.join(out, f"{name}.schema.json"), "w", encoding="utf-8", newline="\n") as f:
            f.write(render(s))
    return 0


def render(schema: dict[str, Any]) -> str:
    """The committed text of a schema."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
