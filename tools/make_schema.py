"""Writes rules/schema.json (run by hand when the rule format changes; the file is committed)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tjmj_dsl.engine.contract import KONG_CHAIN_MAX, KONG_TYPES, OUTCOME_NAMED  # noqa: E402  (the contract's, not written again)
from tjmj_dsl.game.facts import EXAMPLE_GAME_SCHEMA  # noqa: E402
from tjmj_dsl.game.rules import KONG_WAYS  # noqa: E402
from tjmj_dsl.ir import NO_KONG  # noqa: E402

expr = {"type": "string", "minLength": 1, "description": "an expression (see README: the expression language)"}
ident = {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}
# Names that become file or directory names, or stand in generated code and
# docs: a small alphabet, so no name can reach outside --out or change code.
IDENT = "^[a-z][a-z0-9_]*$"
PROFILE = "^[a-z0-9][a-z0-9_-]*$"  # a directory name once '-' becomes '_' (seed-000-coins → seed_000_coins)
CHOICE = "^[A-Za-z0-9][A-Za-z0-9_-]*$"  # a choice of an option: off, on, 4, seed-001
text = {"type": "string"}
# A name stands in every table and combination row of the rulebooks: bounded, so that a file of 100 kB cannot
# write hundreds of MB of them (a hostile review: a pattern named with 100,000 characters wrote 328 MB).
NAME = {"type": "string", "minLength": 1, "maxLength": 40, "description": "Chinese name (1 to 40 characters)"}
LONG_NAME = {"type": "string", "minLength": 1, "maxLength": 100}  # an option's or the rules' title
tile = {"type": "string", "pattern": "^([1-9][mps]|[1-7]z|[ESWNCFP])$"}
# an example hand: the request (hand notation, indicator, how it was won, options
# on top of the profile) and what the scorer must say of it (checked at build time)
claim = {
    "patterns": {"type": "array", "items": ident, "description": "exactly the patterns the result shows"},
    "fan": {"type": "integer", "minimum": 0},
    "total": {"type": "integer", "minimum": 0, "description": "what the score table shows"},
    "win": {"type": "boolean", "description": "the hand wins (assumed true unless said)"},
    "refused": {"type": "boolean", "description": "the request is refused (invalid under these rules)"},
    "balances": {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4,
                 "description": "a settled outcome: the four seats' balances"},
    "next_dealer": {"type": "integer", "minimum": 0, "maximum": 3, "description": "a settled outcome: who deals next"},
}
outcome = {"type": "object", "description": "what happened at the table, as settle() reads it (dealer, winner, total, "
                                            "zuozhuang, lazhuang, kongs, chan, rounds, xianggong)"}
request_props = {
    "hand": {"type": "string", "description": "the hand in the CLI notation: 345m 123s EEE 77m 45s [5555p] (9999s) +6s"},
    "indicator": tile,
    "kong_draw": {"enum": ["exposed", "concealed", "hun"]},
    "kong_chain": {"type": "integer", "minimum": 1, "maximum": KONG_CHAIN_MAX,
                   "description": "with kong_draw: the kongs made in a row, the winning tile replacing the last"},
    "flags": {"type": "array", "items": ident, "description": "request flags that hold (tianhu, dihu, tianting)"},
    "options": {"type": "object", "description": "options set for this example, on top of the profile"},
    "note": {"type": "string", "description": "what the example shows, for the rulebook"},
}
example = {"type": "object", "additionalProperties": False, "required": ["hand", "indicator"],
           "properties": {**request_props, **claim}}
near_miss = {"type": "object", "additionalProperties": False, "required": ["hand", "indicator", "why"],
             "properties": {**request_props, **claim, "why": {"type": "string", "description": "why it is not the pattern"}}}
# the bets before a deal under given facts of the game so far (expr/bets.py): what the table offers
bets = {"type": "object", "additionalProperties": False, "required": ["dealer"],
        "description": "the bets before a deal: the game so far (its facts, as play.zuozhuang_when and "
                       "play.lazhuang_most read them), this hand's dealer, and whether it sits",
        "properties": {"dealer": {"type": "integer", "minimum": 0, "maximum": 3, "description": "this hand's dealer"},
                       "zuozhuang": {"type": "boolean", "description": "the dealer sits (坐庄) when it may, as the "
                                                                       "pulls are asked (default false)"},
                       "game": EXAMPLE_GAME_SCHEMA}}
bets_claim = {
    "may_zuozhuang": {"type": "boolean", "description": "a bets example: the dealer is asked to sit (坐庄)"},
    "lazhuang_most": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 4, "maxItems": 4,
                      "description": "a bets example: how many times each seat may pull (拉庄), the dealer 0"},
}
option_example = {"type": "object", "additionalProperties": False, "required": ["results"],
                  "oneOf": [{"required": ["hand", "indicator"]}, {"required": ["outcome"]}, {"required": ["bets"]}],
                  "properties": {**request_props, "outcome": outcome, "bets": bets,
                                 "results": {"type": "object", "minProperties": 1,
                                             "description": "option value → what the scorer says under it",
                                             "additionalProperties": {"type": "object", "additionalProperties": False,
                                                                      "properties": {**claim, **bets_claim}}}}}
pattern = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "kind", "value", "when", "description", "source"],
    "properties": {
        "name": NAME,
        "aka": {"type": "array", "items": NAME},
        "gloss": text,
        "kind": ident,
        "value": {"type": "integer", "minimum": 0},
        "when": expr,
        "requires": {"type": "array", "items": ident},
        "conflicts": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["with"],
            "properties": {"with": ident, "unless": expr, "description": text}}},
        "enabled": {"type": "boolean"},
        "any_winning_tile": {"type": "boolean", "description": "when this pattern's condition holds, any tile of the hand may be taken as the winning tile"},
        "description": text,
        "source": text,
        "examples": {"type": "array", "items": example, "description": "hands that show the pattern, checked at build time"},
        "near_misses": {"type": "array", "items": near_miss, "description": "hands that are not the pattern, and why"},
    },
}
request_rule = {
    "type": "object", "additionalProperties": False, "required": ["error_when", "message"],
    "properties": {"error_when": expr, "message": text, "source": text, "enabled": {"type": "boolean"}},
}
setmap = {"type": "object", "description": "dotted path → new value; $value is the option's value",
          "propertyNames": {"pattern": "^[A-Za-z0-9_\\-]+(\\.[A-Za-z0-9_\\-]+)*$"}}
choice = {"type": "object", "additionalProperties": False,
          "properties": {"description": text, "set": setmap}}
option_value = {"type": ["string", "integer", "boolean"]}
option = {
    "type": "object", "additionalProperties": False, "required": ["description", "default"],
    "properties": {
        "name": LONG_NAME, "description": text,
        "default": option_value,
        "choices": {"type": "object", "additionalProperties": choice, "minProperties": 1,
                    "propertyNames": {"pattern": CHOICE}},
        "values": {"type": "array", "items": option_value, "minItems": 1, "uniqueItems": True},
        "set": setmap,
        "after": {"type": "array", "items": ident},
        "acts_on": {"enum": ["scoring", "validation", "play", "settlement"]},
        "source": text,
        "describe": {"type": "string", "description": "one sentence per value: $value is replaced by the value"},
        "examples": {"type": "array", "items": option_example,
                     "description": "hands scored under each value, checked at build time"},
    },
    "oneOf": [{"required": ["choices"]}, {"required": ["values", "set"]}],
}
# §8-9: play settings and the settlement (payments as expressions over the outcome of a hand)
scalar = {"type": ["string", "integer", "boolean"]}
play = {
    "type": "object", "additionalProperties": scalar,
    "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"},
    "description": "settings of play, read by the game engine; each is also a name the settlement reads",
    "properties": {
        "deal_start": {"type": "integer", "minimum": 0, "maximum": 16,
                       "description": "the deal starts at stack (dice sum + this) of the dealer's wall"},
        "first_dealer": {"anyOf": [{"const": "random"}, {"type": "integer", "minimum": 0, "maximum": 3}],
                         "description": "who deals a game's first hand: random (drawn from the game's seed) or a seat "
                                        "0-3; absent: seat 0. The deal then passes by turns or by the rotation"},
        "replacement_at_indicator": {"enum": ["take", "skip"],
                                     "description": "a kong replacement at the indicator's stack takes its remaining tile, or skips the stack"},
        "no_claim_in_last_tiles": {"type": "integer", "minimum": 0, "maximum": 136,
                                   "description": "no pong or exposed kong once fewer live tiles than this are left"},
        "hun_discard_bars_win": {"type": "boolean", "description": "小相公: discarding a hun bars the player from winning"},
        "may_discard_hun": {"type": "boolean", "description": "a hun may be discarded (false: the menu offers a hun only when every tile the player could discard is one)"},
        "added_kong_as": {"enum": ["exposed", "concealed"], "description": "the kong_points key and kong_draw of an added kong (补杠)"},
        "added_kong_from_hand": {"type": "boolean", "description": "an added kong may use a tile held before the draw"},
        **{f"hun_kong_{made}_as": {"enum": [*KONG_TYPES, NO_KONG],
                                   "description": f"the kong type (kong_points key, kong_draw) of a kong of hun tiles made {how}"
                                                  f" ({NO_KONG}: it may not be made)"}
           for made, how in zip(KONG_WAYS, ("from a discard", "of four held", "onto a pung"))},
        "first_draw_ends_on_meld": {"type": "boolean", "description": "天和/地和 end once anyone pongs or kongs"},
        "dealer_first_draw_flag": {"type": "string", "description": "the request flag for the dealer's dealt 14 winning (\"\": none)"},
        "first_draw_flag": {"type": "string", "description": "the request flag for a non-dealer's first draw winning (\"\": none)"},
        "ready_declaration_flag": {"type": "string", "description": "the request flag a declared ready hand (天听) wins with (\"\": not played)"},
        "may_zuozhuang": {"type": "boolean", "description": "the dealer may 坐庄"},
        "lazhuang_max": {"type": "integer", "minimum": 0, "maximum": 8, "description": "how many times a non-dealer may 拉庄"},
        "zuozhuang_when": {**expr, "description": "an expression over the game so far (the bets scope): whether the "
                                                  "dealer may 坐庄 this hand, when may_zuozhuang; absent: it may"},
        "lazhuang_most": {**expr, "description": "an expression over the game so far (the bets scope): how many times "
                                                 "the seat asked may 拉庄 this hand, taken between 0 and lazhuang_max; "
                                                 "absent: lazhuang_max"},
        "base_unit": {"type": "integer", "minimum": 0},
        "chan_points": {"type": "integer", "minimum": 0},
        "dealer_rotation": {"type": "string", "pattern": CHOICE, "description": "which of settlement.rotations passes the deal"},
    },
}
entry = {"name": NAME, "gloss": text, "description": text, "source": text}
settle_definition = {
    "type": "object", "additionalProperties": False, "required": ["name", "value", "description", "source"],
    "properties": {**entry, "value": expr},
}
payment = {
    "type": "object", "additionalProperties": False, "required": ["name", "from", "to", "amount", "description", "source"],
    "properties": {
        **entry,
        "reason": {**ident, "description": "what a payment record says (default: the rule's id)"},
        "for": {"type": "string", "pattern": "^\\s*[a-z][a-z0-9_]*\\s+in\\s+\\S",
                "description": "x in LIST: one round of payments per item, the item named x"},
        "when": expr,
        "from": {**expr, "description": "the seat (or list of seats) that pays"},
        "to": {**expr, "description": "the seat (or list of seats) paid"},
        "amount": {**expr, "description": "what each payer pays each payee; payer and payee name them"},
        "enabled": {"type": "boolean"},
    },
}
outcome_rule = {
    "type": "object", "additionalProperties": False, "required": ["error_when", "field", "message"],
    "properties": {"error_when": expr, "field": text, "message": text, "source": text, "enabled": {"type": "boolean"}},
}
rotation = {
    "type": "object", "additionalProperties": False, "required": ["name", "next_dealer", "description", "source"],
    "properties": {**entry, "next_dealer": expr},
}
settlement = {
    "type": "object", "additionalProperties": False, "required": ["payments", "rotations"],
    "properties": {
        "definitions": {"type": "object", "additionalProperties": settle_definition,
                        "propertyNames": {"pattern": "^[a-z][a-z0-9_]*\\(([a-z][a-z0-9_]*: *[a-z]+(, *[a-z][a-z0-9_]*: *[a-z]+)*)?\\)$"}},
        "payments": {"type": "object", "additionalProperties": payment, "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"}},
        "outcome_rules": {"type": "object", "additionalProperties": outcome_rule,
                          "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"}},
        "rotations": {"type": "object", "minProperties": 1, "additionalProperties": rotation,
                      "propertyNames": {"pattern": CHOICE}},  # a rotation is named as a choice is: seed-001
    },
}
paragraphs = {"oneOf": [
    {"type": "array", "items": text, "description": "paragraphs of the rulebook"},
    {"type": "object", "additionalProperties": False, "required": ["text"],
     "properties": {"text": {"type": "array", "items": text}, "examples": {"type": "array", "items": example},
                    "outcomes": {"type": "array", "description": "hands settled by settle(), checked at build time",
                                 "items": {"type": "object", "additionalProperties": False, "required": ["outcome"],
                                           "properties": {"outcome": outcome, "note": text,
                                                          "balances": claim["balances"],
                                                          "next_dealer": claim["next_dealer"],
                                                          "refused": claim["refused"]}}}}}]}
decision = {"type": "object", "additionalProperties": False, "required": ["title", "text"],
            "properties": {"chapter": {"enum": ["tiles", "hun", "melds", "winning", "patterns", "scoring", "options",
                                                "play", "settlement"]},
                           "title": text, "text": text, "source": text}}
erratum = {"type": "object", "additionalProperties": False, "required": ["source", "printed", "decision"],
           "properties": {"source": text, "printed": text, "decision": text,
                          "known": {"type": "array", "items": text,
                                    "description": "known-values rows (table:item) that show it"}}}
schema = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://tjmj.invalid/schema/rules.json",
    "title": "tjmj rule file",
    "description": "A mahjong rule set for the tjmj compiler: tiles, huns, patterns, algebra, options.",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "format": {"const": "tjmj-rules/1"},
        "extends": {"type": "string", "description": "a base rule file this one patches (an overlay)"},
        "set": setmap,
        "replace": {"type": "array", "uniqueItems": True, "description": "an overlay: sections of the base it replaces "
                    "instead of patching (replace: [profiles] drops the base's profiles)",
                    "items": {"enum": ["profiles", "options", "patterns", "definitions", "request_rules", "score_tables",
                                       "play", "settlement", "sources", "known_values", "silence"]}},
        "name": ident,
        "title": LONG_NAME,
        "sources": {"type": "object", "additionalProperties": text, "propertyNames": {"pattern": PROFILE}},
        "tiles": {"type": "object", "additionalProperties": False, "required": ["suits", "honors", "copies"],
                  "properties": {"suits": {"const": ["m", "p", "s"]}, "honors": {"const": list("ESWNCFP")},
                                 "copies": {"const": 4}}},
        "hun": {"type": "object", "additionalProperties": False, "required": ["kinds", "cycles"],
                "properties": {"kinds": {"type": "integer", "minimum": 0, "maximum": 4},
                               "huns": {**expr, "description": "each indicator's hun kinds: an expression of "
                                        "`indicator` (and `kinds`, hun.kinds) giving a list of tiles, the indicator's "
                                        "first, e.g. run(indicator, kinds) (the default); run(), cycle(), next() and "
                                        "len() may be called"},
                               "cycles": {"type": "array", "items": {"type": "array", "items": tile, "minItems": 1}}}},
        "melds": {"type": "object", "additionalProperties": False, "required": ["chow", "pung", "kong"],
                  "properties": {"chow": {"type": "boolean"},
                                 **{k: {"const": True, "description": "always true: every hand is read with pungs and "
                                        "kongs (the engine's shapes); only chows may be turned off"}
                                    for k in ("pung", "kong")}}},
        "claims": {"type": "object", "additionalProperties": {"type": "boolean"},
                   "propertyNames": {"enum": ["chow", "pung", "kong", "win_on_discard", "rob_kong", "hun_pung", "hun_kong"]}},
        "request_flags": {"type": "object", "additionalProperties": text,
                          "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"},
                          "description": "boolean request fields the expressions may read, with what they mean"},
        "min_fan": {"type": "integer", "minimum": 0},
        "win_when": {**expr, "description": "the winning condition over the claimed reading: the algebra's pattern kinds (lists of the claimed values), fan and min_fan; absent: fan >= min_fan"},
        "kong_points": {"type": "object", "additionalProperties": False, "required": ["exposed", "concealed", "hun"],
                        "properties": {k: {"type": "integer", "minimum": 0} for k in ("exposed", "concealed", "hun")}},
        "kong_names": {"type": "object", "additionalProperties": False,
                       "description": "what each kind of kong is called, as the rulebook shows it",
                       "properties": {k: NAME for k in KONG_TYPES}},
        "outcome_names": {"type": "object", "additionalProperties": False,
                          "description": "what the facts of a settlement outcome are called, as the rulebook says them "
                                         "(drawn: a hand nobody won)",
                          "properties": {k: {"type": "string", "minLength": 1} for k in OUTCOME_NAMED}},
        "pattern_kinds": {"type": "object", "minProperties": 1, "additionalProperties": text,
                          "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"}},
        "algebra": expr,
        "definitions": {"type": "object", "additionalProperties": expr,
                        "propertyNames": {"pattern": "^[a-z][a-z0-9_]*\\(([a-z][a-z0-9_]*(, *[a-z][a-z0-9_]*)*)?\\)$"}},
        "patterns": {"type": "object", "minProperties": 1, "additionalProperties": pattern,
                     "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"}},
        "score_table": ident,
        "score_tables": {"type": "object", "minProperties": 1, "additionalProperties": expr,
                         "propertyNames": {"pattern": IDENT}},
        "request_rules": {"type": "object", "additionalProperties": request_rule, "propertyNames": {"pattern": IDENT}},
        "play": play,
        "settlement": settlement,
        "options": {"type": "object", "additionalProperties": option,
                    "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"}},
        "profiles": {"type": "object", "propertyNames": {"pattern": PROFILE}, "additionalProperties": {
            "type": "object", "additionalProperties": False, "required": ["description"],
            "properties": {"description": text,
                           "options": {"type": "object", "propertyNames": {"pattern": IDENT},
                                       "additionalProperties": {"type": ["string", "integer", "boolean", "null"]}}}}},
        "default_profile": {"type": "string", "pattern": PROFILE},
        "known_values": {"type": "string", "description": "a YAML file beside this one with the printed tables; "
                         "`inherit` in an overlay: the base's"},
        "silence": {"type": "object", "description": "warnings of `tjmj check` answered with a reason: "
                    "{code: {subject: reason}}; a silenced warning is listed as a note, never hidden",
                    "propertyNames": {"pattern": "^[a-z][a-z0-9-]*$"},
                    "additionalProperties": {"type": "object", "minProperties": 1,
                                             "additionalProperties": {"type": "string", "minLength": 1}}},
        "rulebook": {"type": "object", "additionalProperties": False,
                     "description": "the rulebook's prose per chapter, where the data alone does not say it",
                     "properties": {k: paragraphs for k in ("tiles", "hun", "melds", "winning", "patterns", "scoring",
                                                            "options", "play", "settlement")}},
        "decisions": {"type": "object", "additionalProperties": decision,
                      "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"},
                      "description": "how points the sources leave open were decided"},
        "errata": {"type": "object", "additionalProperties": erratum,
                   "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"},
                   "description": "the sources' misprints and what the rules give instead"},
        "glossary": {"type": "object", "description": "Chinese term → pinyin and English",
                     "additionalProperties": {"type": "object", "additionalProperties": False,
                                              "required": ["pinyin", "en"],
                                              "properties": {"pinyin": text, "en": text}}},
    },
    "if": {"required": ["extends"]},
    "then": {},
    "else": {"required": ["format", "name", "tiles", "hun", "melds", "min_fan", "kong_points", "pattern_kinds",
                 "algebra", "patterns", "score_table", "score_tables"]},
}
json.dump(schema, open("rules/schema.json", "w"), indent=2, ensure_ascii=False)
open("rules/schema.json", "a").write("\n")

# the record of a played hand (tjmj simulate --record) has its schema with the contract's, in
# schemas/record.schema.json (tools/make_schemas.py), its score answers held to the score-result schema
