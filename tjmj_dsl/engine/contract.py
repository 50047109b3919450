"""The JSON contract, declared once: the fields of a request and of every
answer, the error codes, the version. The request parser takes its field
names from here, tjmj_dsl/schemas.py derives the JSON Schemas from here, and
the code generator inlines this module into every standalone scorer.
Bump CONTRACT when a field changes meaning (adding a field does not)."""

from __future__ import annotations

CONTRACT = 2

MELD_TYPES = ("pung", "kong", "concealed_kong")
KONG_DRAWS = ("exposed", "concealed", "hun")
# the longest chain of kongs a win may come at the end of (a request's kong_chain): a hand holds at most 4 kongs
KONG_CHAIN_MAX = 4
MELD_KINDS = ("pair", "chow", "pung", "kong")  # a group of a decomposition
NO_WIN_REASONS = ("no_winning_shape", "below_min_fan")
REFUSED = "invalid_request"
# the largest integer every backend holds exactly (JavaScript's numbers): no fan, total, payment or balance
# passes it (the compiler refuses rules it can bound past it, the settlement an outcome that would)
MAX_EXACT = 2**53 - 1
PAST_EXACT = "2^53 - 1 (9,007,199,254,740,991), the largest integer every backend holds exactly"
# a win's total (a score table's value): a whole number from the rules' min_fan to MAX_TOTAL. settle() refuses
# any other (as every backend's does); `tjmj check` warns of a score table a hand can take out of it
# (unplayable-total), and of a settlement whose payments for an outcome the table can make pass MAX_EXACT
MAX_TOTAL = 10**9
# the most patterns that may hold on one reading of a hand: the best claim among them is found by trying every
# subset (a rule file's algebra need not grow with what is claimed), 2^n of them. A hand on which more hold is
# refused (too_many_patterns) alike by every backend, and `tjmj check` says so of a rule file where its search
# meets one (a search that is not exhaustive may miss one: the scorer still refuses it);
# the built-in rules hold at most 15 patterns in all (a hostile review: 49 patterns that all held scored one
# hand for hours)
MAX_HELD = 16

# A request: (field, type, required, meaning). Types: "any", "tiles" (a string
# of tiles or a list of one-tile strings), "tile", "melds", "kong_draw",
# "kong_chain", "string", "options". The rule file's `request_flags` are boolean fields
# besides these. `null` for any field but `id` means the field is absent.
REQUEST = (
    ("id", "any", False, "any JSON value, echoed back in the answer"),
    ("concealed", "tiles", True, "the tiles in hand before the winning tile, declared melds excluded: "
                                 "\"345m123sEEE77m45s\" or [\"3m\", \"4m\", …]"),
    ("melds", "melds", False, "declared melds, each {\"type\": \"pung\" | \"kong\" | \"concealed_kong\", \"tile\": \"5p\"}"),
    ("draw", "tile", False, "the winning tile (score: required; waits: absent)"),
    ("indicator", "tile", True, "the flipped tile that names the huns"),
    ("kong_draw", "kong_draw", False, "the winning tile replaced a kong of this kind (gangkai): "
                                      "\"exposed\", \"concealed\" or \"hun\""),
    ("kong_chain", "kong_chain", False, "with kong_draw: how many kongs the winner made in a row, each right after "
                                        "the previous one's replacement tile with no discard between, the winning "
                                        "tile replacing the last (1 to 4; absent: 1)"),
    ("profile", "string", False, "score under this profile of the rule file instead of the one in force"),
    ("options", "options", False, "{\"option\": value} set on top of the profile for this request"),
)
REQUEST_FIELDS = tuple(f[0] for f in REQUEST)

# The error codes of a refusal's `error.code`. A hand that a request rule of
# the rule file refuses gets that rule's id as its code (e.g. indicator_on_wall),
# and so does an outcome that an outcome rule of its settlement refuses.
ERRORS = (
    ("not_json", "the line or body is not JSON (position: the character where reading stopped), is nested more than "
                 "64 deep, or repeats a key in one object (position: the repeated key)"),
    ("not_utf8", "the line or body is not UTF-8 (position: the first bad byte)"),
    ("not_object", "a request is a JSON object"),
    ("unknown_field", "a field the contract does not have (field: its name)"),
    ("missing_field", "a required field is absent or null"),
    ("unexpected_field", "a field this kind of request must not have (draw in a waits request, kong_chain without "
                         "kong_draw)"),
    ("wrong_type", "a field's JSON type is wrong"),
    ("bad_tile", "tile notation that cannot be read (position: the character, 0-based)"),
    ("bad_value", "a value that is not one of the field's choices"),
    ("tile_count", "the hand has the wrong number of tiles"),
    ("too_many_copies", "more tiles of a kind than the set holds"),
    ("too_many_melds", "more than four declared melds"),
    ("unknown_profile", "the rule file has no such profile"),
    ("unknown_option", "the rule file has no such option (field: options.NAME)"),
    ("bad_option", "an option value the rule file does not offer, or options that cannot be combined"),
    ("rules_mismatch", "a standalone scorer asked for a profile or option it was not compiled with"),
    ("no_settlement", "the rule file has no settlement section"),
    ("settlement_failed", "the rule file's settlement cannot settle this outcome (a mistake in the rules)"),
    ("too_many_patterns", f"more patterns hold on one reading of the hand than the scorer weighs together (at "
                          f"most {MAX_HELD}): a mistake in the rules"),
    ("too_large", "the line or body is over the stated size limit"),
    ("not_found", "HTTP: no such path (GET /openapi.json lists them)"),
    ("method_not_allowed", "HTTP: the path takes another method"),
    ("bad_request", "HTTP: a request the service cannot take as HTTP (message: why)"),
    ("cors_refused", "HTTP: a browser's preflight asks for an origin, method or header the service does not allow, "
                     "or a request comes from a page of an origin it does not allow"),
    ("bad_host", "HTTP: the request names a host (its Host header) the server does not answer to"),
    ("timeout", "HTTP: the request's head or body did not arrive in time"),
    ("busy", "HTTP: the server or this client has as many connections or requests being worked out as it may"),
    ("work_budget", "HTTP: the request's work went over its budget (CPU seconds, or distinct profile/option sets)"),
    ("internal_error", "the scorer failed on this request (a bug: please report it)"),
)
ERROR_CODES = tuple(e[0] for e in ERRORS)

# A score result: (field, type, present when, meaning). "always", "scored"
# (not refused), "no_win" (reason no_winning_shape/below_min_fan), "refused".
SCORE_RESULT = (
    ("contract", "contract", "always", "the contract version"),
    ("rules", "rules", "always", "the rules that produced this answer"),
    ("id", "any", "always", "the request's id (null if it had none)"),
    ("win", "boolean", "always", "the hand wins"),
    ("fan", "integer", "always", "the best value the 14 tiles reach, even when they do not win (0: no winning shape)"),
    ("total", "integer", "always", "what the profile's score table shows (0 when not a win)"),
    ("patterns", "ids", "always", "the patterns the formula used, rule-file order (pinyin ids)"),
    ("names", "strings", "always", "their Chinese names, in the same order"),
    ("formula", "string", "always", "the algebra with the values filled in, e.g. \"(3+4)×2×2 = 28\""),
    ("winning_tile", "tile", "scored", "the winning tile (the best one when the rules free it: tianhu/dihu)"),
    ("hun_kinds", "tile_list", "scored", "the hun kinds, the indicator's first"),
    ("decomposition", "decomposition", "scored", "the best reading's groups, declared melds first, the pair last "
                                                 "([] when the tiles make no winning shape)"),
    ("reason", "reason", "not_win", "why the hand does not win"),
    ("message", "string", "no_win", "the reason in words"),
    ("error", "error", "refused", "what is wrong with the request"),
    ("explain", "any", "explain", "only from `tjmj explain --json`: for each pattern whether it is claimed, dropped "
                                  "(and by what), claimed by another reading (a lower fan, or an equal one the tie decision put second), or does not hold (and the values its "
                                  "test reads)"),
)

# One group of a decomposition.
GROUP = (
    ("meld", "meld_kind", "pair, chow, pung or kong"),
    ("declared", "boolean", "a meld declared before the win"),
    ("concealed", "boolean", "not exposed: formed in hand, or a concealed kong"),
    ("faces", "tile_list", "the tiles it stands for"),
    ("tiles", "tile_list", "the tiles actually there (a hun tile where a hun stands for a face)"),
    ("huns", "booleans", "which of its tiles are hun tiles"),
    ("winning_slot", "slot", "the index of the winning tile in it, or null"),
    ("text", "string", "for people: 4m=1m 5m* 6m=2m (face=hun tile, * the winning tile); [ ] exposed, ( ) concealed kong"),
)

# A waits answer, and one tile of it.
WAITS_RESULT = (
    ("contract", "contract", "always", "the contract version"),
    ("rules", "rules", "always", "the rules that produced this answer"),
    ("id", "any", "always", "the request's id (null if it had none)"),
    ("waits", "waits", "always", "every tile that wins the 13-tile hand, in tile order ([] when refused)"),
    ("reason", "reason", "refused", "invalid_request"),
    ("error", "error", "refused", "what is wrong with the request"),
)
WAIT = (
    ("tile", "tile", "a tile that wins the hand"),
    ("fan", "integer", "the fan with it"),
    ("total", "integer", "what the score table shows"),
    ("patterns", "ids", "the patterns the formula used"),
    ("names", "strings", "their Chinese names"),
    ("formula", "string", "the algebra with the values filled in"),
)

# The `rules` object of every answer.
RULES_INFO = (
    ("name", "string", "the rule set's name"),
    ("profile", "string", "the profile in force"),
    ("sha256", "sha256", "sha256 of the rule file's text (and of the files it extends)"),
    ("options", "options", "the option values set on top of the profile where they differ from it (usually {})"),
)

# A settlement outcome: what happened at the table (settle(), POST /settle).
# Seats are 0-3 in turn order 0→1→2→3→0. `null` for an optional field means absent.
SEATS = 4
KONG_TYPES = ("exposed", "added", "concealed", "hun")
OUTCOME = (
    ("id", "any", False, "any JSON value, echoed back in the answer"),
    ("dealer", "seat", True, "the dealer's seat"),
    ("zuozhuang", "flag", False, "the dealer sat (zuozhuang)"),
    ("lazhuang", "counts", False, "for each seat, how many times it pulled the dealer (lazhuang) (4 counts, the dealer's 0)"),
    ("winner", "seat_or_null", True, "the winner's seat, or null for a drawn hand (huangzhuang)"),
    ("total", "integer", False, "the winner's score-table total (a score answer's `total`), at least min_fan; required with a winner"),
    ("kongs", "kongs", False, "the kongs made this hand, each {seat, type, tile, won, from, ended}"),
    ("chan", "flag", False, "chan happened, for a table that keeps no discards (the rule file's settlement reads it); not with `rounds`, which say it"),
    ("rounds", "rounds", False, "the hand's go-rounds: its discards in the order made, four to a round from the first, "
                                "each {discards, claimed}"),
    ("xianggong", "seats", False, "the seats that are xianggong (discarded a hun)"),
    ("profile", "string", False, "settle under this profile of the rule file instead of the one in force"),
    ("options", "options", False, "{\"option\": value} set on top of the profile for this outcome"),
)
OUTCOME_FIELDS = tuple(f[0] for f in OUTCOME)
# The facts of an outcome a rule file may name (outcome_names; the rulebook says them so): its
# table-play fields, and `drawn`, a hand nobody won (winner null).
OUTCOME_NAMED = ("zuozhuang", "lazhuang", "chan", "xianggong", "drawn")
OUTCOME_KONG = (
    ("seat", "seat", True, "who made the kong"),
    ("type", "kong_type", True, "exposed, added (bugang), concealed, or hun (a kong of hun tiles, jin gang)"),
    ("tile", "tile", True, "the kong's tile"),
    ("won", "flag", False, "its replacement tile won the hand (gangkai)"),
    ("from", "seat_or_null", False, "the seat whose discard was konged (a kong claimed from a discard: exposed, or the type "
                                    "play.hun_kong_exposed_as gives one of huns); null or absent, never a seat, for a kong made "
                                    "of one's own tiles (concealed, added, four huns held)"),
    ("ended", "flag", False, "the kong ended the hand at once as its maker's win (play.kong_ends_hand): its seat is the winner"),
)
OUTCOME_KONG_FIELDS = tuple(f[0] for f in OUTCOME_KONG)
OUTCOME_ROUND = (
    ("discards", "tile_names", True, "its discards in the order made (four; the hand's last round may hold fewer)"),
    ("claimed", "flag", False, "one of them was claimed (ponged or konged)"),
)
OUTCOME_ROUND_FIELDS = tuple(f[0] for f in OUTCOME_ROUND)
MAX_ROUNDS = 34  # a wall of 136 tiles: at most 34 rounds of four discards

SETTLE_RESULT = (
    ("contract", "contract", "always", "the contract version"),
    ("rules", "rules", "always", "the rules that produced this answer"),
    ("id", "any", "always", "the outcome's id (null if it had none)"),
    ("payments", "payments", "always", "every payment, in rule-file order ([] when refused)"),
    ("balances", "balances", "always", "what each seat wins (+) or pays (-); they sum to 0"),
    ("next_dealer", "seat_or_null", "always", "who deals the next hand (null when refused)"),
    ("kongs", "settled_kongs", "always", "the outcome's kongs with their points"),
    ("unpaid", "unpaid", "always", "each payment rule and item whose `when` did not hold"),
    ("reason", "refused", "refused", "invalid_request"),
    ("error", "error", "refused", "what is wrong with the outcome (an outcome rule's id as the code when the "
                                  "rule file refuses it)"),
)
PAYMENT = (
    ("from", "seat", "who pays"),
    ("to", "seat", "who is paid"),
    ("amount", "integer", "how much"),
    ("reason", "string", "what for (the payment rule's reason: win, kong, chan, …)"),
    ("rule", "ident", "the payment rule's id"),
    ("formula", "string", "the amount's expression, then with its values, then the amount"),
)
SETTLED_KONG = (
    ("seat", "seat", "who made the kong"),
    ("type", "kong_type", "its type"),
    ("tile", "tile", "its tile"),
    ("points", "integer", "its points under the rules in force"),
    ("won", "boolean", "its replacement tile won the hand"),
    ("from", "seat_or_null", "the seat whose discard was konged, or null (a kong of one's own tiles)"),
    ("ended", "boolean", "the kong ended the hand at once as its maker's win"),
)
UNPAID = (
    ("rule", "ident", "the payment rule"),
    ("reason", "string", "its reason"),
    ("item", "item", "the index in its `for` list, or null"),
    ("when", "string", "the condition that did not hold"),
)

# An explain answer (POST /explain, `tjmj explain --jsonl`): a score answer by the
# reference interpreter, with `explanation` unless refused.
EXPLANATION = (
    ("min_fan", "integer", "the least fan that wins"),
    ("patterns", "explained_patterns", "every pattern of the rules in force, in rule-file order"),
    ("algebra", "string", "how the claimed patterns' values combine into the fan"),
    ("score_table", "string", "the score table in force"),
    ("total", "string", "the score table's expression of the fan"),
)
EXPLAINED_PATTERN = (
    ("id", "ident", "the pattern's id"),
    ("name", "string", "its Chinese name"),
    ("kind", "ident", "its kind (base, add, mul, …)"),
    ("value", "integer", "its value"),
    ("when", "string", "its predicate on one decomposition"),
    ("used", "boolean", "the answer's formula used it"),
)
