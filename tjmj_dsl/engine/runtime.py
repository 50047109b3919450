"""The entry points: a request in, a result out (and the JSONL batch).

The rules reach this module as a `rules` object (compiled Python from the code
generator, or closures over the AST from the interpreter) with these members:
  hun_count, cycles, chow, copies, min_fan       plain data
  flags                                          boolean request fields the rules declare
  ids, names, kinds, kind_of, values             the patterns, in rule-file order
  requires[i], conflicts [(i, j)]                 claim bindings
  wild_melds, wild_pairs                          faces a group of huns alone may take
  plan                                            the algebra as a render plan
  request_errors(h) -> list[str]                 ids of the request rules that refuse the hand
  request_errors_plain(h)                         the same for a hand with no declared meld, flag or kong_draw
  free_t_plain                                    whether free_t can be true for such a hand
  request_messages {id: message}, info {name, profile, sha256, options}   for answers
  free_t(h) -> bool                               may any tile of the hand be t?
  holds(h, melds, pair, groups) -> bitmask of patterns that hold
  unless(h, melds, pair, groups) -> bitmask of conflicts lifted
  fan(mask) -> int                                the algebra
  total(h, fan) -> int                            the score table
  best(rules, h)                                  search.best_of, or search.best_by_masks with
                                                  nbits, ctx, hkey, gmask, gmask_ctx, holds_agg, unless_agg,
                                                  monotone, reads_and
and the tables and caches prepare(rules) adds.
Nothing in engine/ knows a pattern: it finds decompositions, places the
winning tile, asks the rules, and keeps the best claim. The modules import
only the standard library and each other (marked lines), because the code
generator inlines them, in the order tiles, request, hand, search, result,
runtime, into the standalone scorer.
"""

from __future__ import annotations

import io as _io
import json as _json
import os
import threading as _threading
from typing import Any

from ..tiles import _COMPACT_KEY, _COMPACT_SIZE, NAMES, TileError, parse_tiles  # tjmj:inline-drop
from .hand import Hand, make_hand, new_hand, split_huns, tally, wild_groups, with_t  # tjmj:inline-drop
from .contract import CONTRACT, KONG_DRAWS, MELD_TYPES  # tjmj:inline-drop
from .request import (_ONE_TILE, Meld, Request, RequestError, _short, check_tiles, kong_chain_error, option_value,  # tjmj:inline-drop
                      parse_request)  # tjmj:inline-drop
from .result import (Claim, _result, _result_text, _safe_text, claim_display, claim_of, refusal, rule_error,  # tjmj:inline-drop
                     rules_info, waits_refusal)  # tjmj:inline-drop
from .search import _GROUPS, TooManyHeld, shape_by_parts, witness_groups  # tjmj:inline-drop
from .lasting import lasting, restart  # tjmj:inline-drop

# a plain request's 13-tile text → (tally, most of a kind, *kinds), bounded as the tile parser's cache is
_PLAIN_TILES: dict = lasting()  # type: ignore[type-arg]


def other_rules(rules: Any, data: Any) -> dict | None:  # type: ignore[type-arg]
    """The error object when a request's `profile`/`options` are not the rules
    in force (None if they are): a request is never scored under rules it did not ask for."""
    if not isinstance(data, dict):
        return None
    prof = data.get("profile")
    if prof is not None and not isinstance(prof, str):  # null: absent
        return RequestError("expected a profile name", "profile", code="wrong_type").error()
    if prof is not None and prof != rules.profile:
        return RequestError(f"this scorer is compiled for profile {rules.profile!r}, not {_short(prof)}", "profile",
                            code="rules_mismatch").error()
    opts = data.get("options")
    if opts is None:
        return None
    if not isinstance(opts, dict):
        return RequestError("expected a mapping of option names to values", "options", code="wrong_type").error()
    for k, v in opts.items():
        if k not in rules.choices:  # null too: a misspelt option is never silently nothing
            return RequestError(f"no option {_short(k)}", f"options.{str(k)[:60]}", code="unknown_option").error()
        if v is None:  # null: absent
            continue
        try:  # the one rule for option values (request.option_value): "2" names 2, 2.0 and true name nothing
            value = option_value(v, rules.option_values[k])
        except ValueError as e:
            return RequestError(str(e), f"options.{k}", code="bad_option").error()
        if value != rules.choices[k]:
            return RequestError(f"this scorer is compiled with {k}={rules.choices[k]!r}, not {value!r}", f"options.{k}",
                                code="rules_mismatch").error()
    return None


def oversized(data: Any) -> dict | None:  # type: ignore[type-arg]
    """The refusal of a request mapping that, written as JSON, would be over MAX_LINE bytes or nested
    over MAX_NESTING deep — what a JSONL line or an HTTP request of it would get — or None. A
    program's mapping is bounded as a line is, before any work whose cost grows with it (a hundred
    thousand options, a megabyte of tiles, an id nested a thousand deep). Its size is counted as
    the most compact JSON text of it would have (no spaces, no escapes: what any text of it has at
    least, so a request a line may carry is never refused here), stopping at the limit: the walk
    costs at most about MAX_LINE steps."""
    size = 0
    stack = [(data, 1)]
    while stack:
        x, depth = stack.pop()
        c = x.__class__
        if c is str:
            size += len(x) + 2  # its characters (code points: engine_js counts them alike) and quotes
        elif c is dict or c is list or c is tuple:
            if depth > MAX_NESTING:
                return dict(NESTED)
            size += 1 + len(x)  # its brackets and commas
            if size > MAX_LINE:  # before walking its items: a million of them cost nothing here
                break
            if c is dict:
                for k, v in x.items():
                    size += (len(k) if k.__class__ is str else 1) + 3  # the key, its quotes, the colon
                    stack.append((v, depth + 1))
            else:
                stack.extend((v, depth + 1) for v in x)
        elif c is int:
            size += x.bit_length() * 30103 // 100000 + 1  # its decimal digits, at least
        else:
            size += 1
        if size > MAX_LINE:
            break
    else:
        return None
    return {"code": "too_large", "message": f"the request is over {MAX_LINE} bytes as JSON; a request is at "
            f"most {MAX_LINE} (as a JSONL line is)", "field": None}


def _score_request(rules: Any, data: Any) -> dict:  # type: ignore[type-arg]
    """A request mapping (or a Request) → a result mapping. Never raises for a
    bad request: the result says what is wrong."""
    if data.__class__ is Request:
        return score_parsed(rules, data)
    big = oversized(data)
    if big is not None:
        return refusal(rules, None, big)
    req_id = data.get("id") if isinstance(data, dict) else None
    if isinstance(data, dict) and (data.get("profile") is not None or data.get("options") is not None):
        err = other_rules(rules, data)
        if err:
            return refusal(rules, req_id, err)
    try:
        req = parse_request(data, need_draw=True, flags=rules.flags, copies=rules.copies)
    except RequestError as e:
        return refusal(rules, req_id, e.error())
    return score_parsed(rules, req)


_PLAIN_TEXT = 1024  # characters of a plain request's concealed text, at most (13 tiles in any notation)


def _plain_hand(rules: Any, data: dict) -> Hand | None:  # type: ignore[type-arg]
    """The hand of a plain request: the contract's own fields in canonical
    form (concealed a string, draw and indicator tile names, no declared
    melds, flags true/false/null), a hand of the right size. None for every
    other request: the full parser takes it (and says what is wrong with a
    bad one), so both read a request alike."""
    if not data.keys() <= rules.plain_keys:
        return None
    c, d, i, m = data.get("concealed"), data.get("draw"), data.get("indicator"), data.get("melds")
    if c.__class__ is not str or d.__class__ is not str or i.__class__ is not str or (m is not None and m != []) \
            or len(c) > _PLAIN_TEXT:
        return None
    draw, indicator = _ONE_TILE.get(d), _ONE_TILE.get(i)
    if draw is None or indicator is None:
        return None
    got = _PLAIN_TILES.get(c)
    if got is None:
        got = _plain_tiles(c)
        if got is None:
            return None
    kd = data.get("kong_draw")
    if kd is not None and kd not in KONG_DRAWS:
        return None
    flags = _NO_FLAGS
    if not rules.flag_set.isdisjoint(data.keys()):
        for f in rules.flags:
            v = data.get(f)
            if v is True:
                flags = flags | {f}
            elif v is not None and v is not False:
                return None
    counts13 = got[0]
    if got[1] > rules.copies or counts13[draw] >= rules.copies:
        return None  # a kind held too often: the full path says so
    return new_hand(rules, got[2:], (), draw, indicator, kd, flags, counts13)


def _plain_tiles(text: str) -> tuple | None:  # type: ignore[type-arg]
    """The 13 tiles of a plain request's `concealed` text after their tally and
    the most of one kind, (tally, most, *kinds), kept in _PLAIN_TILES as the tile
    parser keeps its texts; None when the text is not 13 tiles. One flat tuple:
    the collector stops tracking it at its first collection (a tuple holding
    another is freed a collection later, by when it may have reached the oldest
    generation, which every full collection walks)."""
    try:
        kinds = tuple(parse_tiles(text))
    except TileError:
        return None
    if len(kinds) != 13:
        return None
    counts = bytes(tally(kinds))
    got = (counts, max(counts), *kinds)
    if len(text) <= _COMPACT_KEY:
        if len(_PLAIN_TILES) >= _COMPACT_SIZE:
            restart(_PLAIN_TILES)
        _PLAIN_TILES[text] = got
    return got


_BIG_ID = 1 << 64  # an int id the plain path takes without measuring the request (oversized)
_SHORT_ID = 1024  # ... and a text id


def _score_plain(rules: Any, data: dict, text: bool = False) -> Any:  # type: ignore[type-arg]
    """score_request for a plain request (_plain_hand), None for any other; with `text`, the
    answer as one line of JSON (_score_text), None for a request a rule refuses too.

    With no flag set and no kong_draw, only the request rules the code generator found can
    refuse a plain hand (no declared meld) are tested (rules.request_errors_plain), and free_t
    (tianhu/dihu: every tile tried as the winning one) only where it found it can be true for
    one (rules.free_t_plain). Written out here, not called: each call costs some 500 machine
    instructions (docs/performance.md)."""
    h = _plain_hand(rules, data)
    if h is None:
        return None
    if h.flags or h.kong_draw is not None:
        errs = rules.request_errors(h)
        free = True
    else:
        errs = rules.request_errors_plain(h)
        free = rules.free_t_plain
    req_id = data.get("id")
    if req_id is not None and not (req_id.__class__ is int and -_BIG_ID < req_id < _BIG_ID) \
            and not (req_id.__class__ is str and len(req_id) <= _SHORT_ID) and oversized(data) is not None:
        return None  # the full path refuses it as a line of it would be
    if errs:
        return None if text else refusal(rules, req_id, rule_error(rules, errs[0]))
    if text:
        if req_id is None:
            id_text = "null"
        elif req_id.__class__ is int:
            id_text = int.__repr__(req_id)  # as json writes an int
        else:
            try:
                id_text = _safe_text(_json.dumps(req_id, ensure_ascii=False, allow_nan=False))
            except (ValueError, TypeError):  # NaN/Infinity, or not JSON: the mapping's path says so
                return None
    try:
        if free and rules.free_t(h):
            best, groups, h = best_claim(rules, h)
        else:
            best, groups = rules.best(rules, h)
    except rules.too_many_held as e:
        return None if text else refusal(rules, req_id, held_error(e))
    if text:
        return _result_text(rules, id_text, h, best, groups)
    return _result(rules, req_id, h, best, groups)


def _score_text(rules: Any, data: Any) -> str | None:
    """The answer to a plain score request as one line of JSON, the same text
    dumps_answer(score_request(rules, data)) writes, without building the
    mapping (what a batch or a service sends on). None for any other request
    (and for a request a rule refuses): answer those by score_request."""
    if data.__class__ is not dict:
        return None
    return _score_plain(rules, data, True)  # type: ignore[no-any-return]


def prepare(rules: Any) -> None:
    """Give a rules object the tables and caches the engine keeps on it."""
    for k, v in vars(type(rules)).items():
        # The class's tables and static functions as attributes of the object itself: Python 3.11
        # specializes a load from an object's own attributes, not from its class (about 3,000
        # machine instructions a score() call, docs/performance.md).
        if not k.startswith("__") and (v.__class__ is staticmethod or not (callable(v) or hasattr(v, "__get__"))):
            setattr(rules, k, getattr(rules, k))
    rules.wild_melds, rules.wild_pairs = wild_groups(rules.chow)
    rules.wild_static = None  # the mask search's hun-only groups with their static bits (search._tables)
    rules.hun_table = tuple((tuple(kinds), frozenset(kinds)) for kinds in rules.huns)
    rules.resolve_cache = lasting()  # (held, lifted) → claim
    rules.subset_info = lasting()  # a set of patterns → (closed under requires, its conflicts, fan, claim)
    rules.claim_cache = lasting()  # hand-level values the tests read → {aggregate: claim number}
    rules.claim_ids = lasting()  # claim → its number (search._claims_for)
    rules.claim_list = [None]  # the claims by number, from 1
    rules.display_cache = lasting()  # claimed mask → formula and patterns shown
    rules.claim_objs = lasting()  # (claimed mask, fan, total) → its Claim
    rules.witness_groups = witness_groups  # the groups of the search's witnesses
    rules.too_many_held = TooManyHeld  # what this module's search raises: a generated module has its own class,
    # and the package's entry points answer for its rules too (api.Scorer), so they catch the rules' one
    rules.group_list = _GROUPS  # the search's groups by number (a witness holds numbers)
    rules.group_shown = lasting()  # group number → how an answer shows it (result._shown_numbered)
    rules.group_rows = lasting()  # group number → its row, which answers share (result._shown_numbered)
    rules.answer_fields = lasting()  # (claim, total, t, indicator) → an answer's fields (result._answer_kit)
    rules.answer_rest = lasting()  # the same → its lists' numbers and its JSON text around the decomposition
    rules.shared_numbers = lasting()  # the items of a list answers share → its number (result._shared_number)
    rules.shared_lists = lasting()  # that number → the list (engine/shared.py)
    rules.text_head = None  # the answer's text up to its id
    rules.witness_text = lasting()  # mask-search witness → its decomposition's rows as JSON text (result._decomposition_text)
    rules.witness_rows = lasting()  # mask-search witness → its rows' group numbers in an answer's order (result._witness_rows)
    rules.hun_names = tuple(tuple(NAMES[k] for k in kinds) for kinds, _ in rules.hun_table)
    rules.plain_keys = frozenset(("id", "concealed", "melds", "draw", "indicator", "kong_draw") + tuple(rules.flags))
    rules.flag_set = frozenset(rules.flags)
    rules.allowed_counts = bytes(range(rules.copies + 1))


def best_claim(rules: Any, h: Hand, may_free: bool = True) -> tuple:  # type: ignore[type-arg]
    """(claim, concealed groups, hand) of the best reading (the groups as the search's
    witness: result reads them through rules.witness_groups); the claim is None when the
    tiles make no shape. When the rules free the winning tile (tianhu/dihu) every
    tile of the hand is tried as t (asked only when `may_free`: a caller that knows
    free_t is false for the hand says so, _score_plain)."""
    if not (may_free and rules.free_t(h)):
        key, groups = rules.best(rules, h)
        return key, groups, h
    best = None
    best_groups = None
    best_h = h
    for t in sorted(set(h.concealed)):
        hh = with_t(h, t)
        key, groups = rules.best(rules, hh)
        if key is not None and (best is None or key > best):
            best, best_groups, best_h = key, groups, hh
    return best, best_groups, best_h


def score_parsed(rules: Any, req: Request) -> dict:  # type: ignore[type-arg]
    assert req.draw is not None
    h = make_hand(rules, req, req.draw)
    errs = rules.request_errors(h)
    if errs:
        return refusal(rules, req.id, rule_error(rules, errs[0]))
    try:
        best, groups, best_h = best_claim(rules, h)
    except rules.too_many_held as e:
        return refusal(rules, req.id, held_error(e))
    return _result(rules, req.id, best_h, best, groups)


def held_error(e: Exception) -> dict:  # type: ignore[type-arg]
    """The error object of a hand on which more patterns hold than the scorer weighs (MAX_HELD)."""
    return {"code": "too_many_patterns", "message": str(e), "field": None}


_NO_FLAGS: frozenset[str] = frozenset()


def _score_tiles_in(rules: Any, concealed: Any, draw: int, indicator: int, melds: Any = (),
                kong_draw: str | None = None, flags: Any = (), kong_chain: int = 1) -> Claim:
    """The typed fast path: tiles as kind numbers (0-8 1m-9m, 9-17 1p-9p,
    18-26 1s-9s, 27-33 E S W N C F P), melds as Meld or (type, tile) pairs.
    The same checks and the same claim as score_request, without the
    request's text and the result's display. Never raises for a bad hand."""
    try:
        if concealed.__class__ is not tuple:
            try:
                concealed = tuple(concealed)
            except TypeError:
                raise RequestError(f"{concealed!r} is not a sequence of tile kinds", "concealed") from None
        if melds:
            try:
                melds = tuple(m if isinstance(m, Meld) else Meld(*m) for m in melds)
            except TypeError:
                raise RequestError("expected (type, tile) pairs", "melds", hint='e.g. [("pung", 13)]') from None
            for m in melds:
                if m.type not in MELD_TYPES:
                    raise RequestError(f"unknown meld type {m.type!r}", "melds", hint="one of " + ", ".join(MELD_TYPES))
                if m.tile.__class__ is not int or not 0 <= m.tile < 34:
                    raise RequestError(f"{m.tile!r} is not a tile kind (an int from 0 to 33)", "melds")
        if kong_draw is not None and (kong_draw.__class__ is not str or kong_draw not in KONG_DRAWS):
            raise RequestError(f"unknown kong_draw {kong_draw!r}", "kong_draw", hint="None, or one of " + ", ".join(KONG_DRAWS))
        if kong_chain != 1 or kong_chain.__class__ is not int:
            kong_chain_error(kong_chain, kong_draw)
        if flags:
            try:
                flags = frozenset(flags)
            except TypeError:
                raise RequestError("expected the names of request flags", "flags",
                                   hint="the rules' flags are " + ", ".join(rules.flags)) from None
            if not flags <= rules.flag_set:
                raise RequestError(f"unknown flag(s) {sorted(flags - rules.flag_set)}", "flags",
                                   hint="the rules' flags are " + ", ".join(rules.flags))
        else:
            flags = _NO_FLAGS
        try:  # comparisons refuse None and str, the counting in new_hand refuses floats; a bool is no kind
            if not (0 <= draw < 34 and 0 <= indicator < 34 and min(concealed) >= 0) or draw.__class__ is bool \
                    or indicator.__class__ is bool or bool in map(type, concealed):
                raise TypeError
            h = new_hand(rules, concealed, melds, draw, indicator, kong_draw, flags,  # IndexError past 33
                         kong_chain=kong_chain)
        except (TypeError, ValueError, IndexError):  # ValueError: min() of no tiles
            every = concealed + (draw, indicator)
            i = next((i for i, x in enumerate(every) if not (isinstance(x, int) and x.__class__ is not bool and 0 <= x < 34)), -1)
            if i < 0:
                check_tiles(concealed, melds, draw, rules.copies)  # no tiles: says what is wrong
            bad = every[i]
            field = "concealed" if i < len(concealed) else ("draw" if i == len(concealed) else "indicator")
            raise RequestError(f"{bad!r} is not a tile kind (an int from 0 to 33)", field) from None
        # counts.translate drops every allowed count: what is left is a kind held too often
        if len(concealed) != 13 - 3 * len(melds) or len(melds) > 4 or h.counts.translate(None, rules.allowed_counts):
            check_tiles(concealed, melds, draw, rules.copies)  # says what is wrong
    except RequestError as e:
        return Claim(False, 0, 0, (), "invalid_request", str(e))
    errs = rules.request_errors(h)
    if errs:
        return Claim(False, 0, 0, (), "invalid_request", rules.request_messages[errs[0]])
    try:
        best, _, best_h = best_claim(rules, h)
    except rules.too_many_held as e:
        return Claim(False, 0, 0, (), "invalid_request", str(e))
    return claim_of(rules, best, best_h)


def _waits_request(rules: Any, data: Any) -> dict:  # type: ignore[type-arg]
    """Every tile that wins the 13-tile hand, each with its fan: the waits
    answer {contract, rules, id, waits}, or a refusal in the same shape."""
    if isinstance(data, dict):
        big = oversized(data)
        if big is not None:
            return waits_refusal(rules, None, big)
    req_id = data.get("id") if isinstance(data, dict) else getattr(data, "id", None)
    err = other_rules(rules, data)
    if err:
        return waits_refusal(rules, req_id, err)
    try:
        req = data if isinstance(data, Request) else parse_request(data, need_draw=False, flags=rules.flags, copies=rules.copies)
    except RequestError as e:
        return waits_refusal(rules, req_id, e.error())
    out: list = []  # type: ignore[type-arg]
    first_error = None
    any_valid = False
    huns = rules.hun_table[req.indicator][1]
    near: set[int] | None = None
    if not any(x in huns for x in req.concealed):
        # without a hun in hand a drawn tile can only join tiles it touches
        near = set(huns)
        for x in req.concealed:
            near.add(x)
            if x < 27 and rules.chow:
                near.update(y for y in range(x - 2, x + 3) if y // 9 == x // 9 and 0 <= y < 27)
    for k in range(34):
        if near is not None and k not in near:
            continue
        h = new_hand(rules, req.concealed, req.melds, k, req.indicator, req.kong_draw, req.flags,
                     kong_chain=req.kong_chain)
        if h.counts[k] > rules.copies:
            continue  # no fifth tile to draw
        errs = rules.request_errors(h)
        if errs:
            first_error = first_error or errs[0]
            continue
        any_valid = True
        counts, wild = split_huns(h.concealed, h.hun_set)
        if not shape_by_parts(counts, wild, 4 - len(req.melds), rules.chow):
            continue
        try:
            best, _, best_h = best_claim(rules, h)
        except rules.too_many_held as e:
            return waits_refusal(rules, req_id, held_error(e))
        c = claim_of(rules, best, best_h)
        if c.win:
            shown = claim_display(rules, best[2])
            out.append({"tile": NAMES[k], "fan": c.fan, "total": c.total, "patterns": list(c.patterns),
                        "names": list(shown[4]), "formula": shown[0]})
    if not any_valid and first_error:  # no tile could even be drawn into a valid hand
        return waits_refusal(rules, req_id, rule_error(rules, first_error))
    return {"contract": CONTRACT, "rules": rules_info(rules), "id": req.id, "waits": out}


# ---- the entry points, one at a time ----
# The tables and caches the engine keeps (on the rules object and in
# search's module-level dicts) are filled and cleared as hands are scored;
# the interpreter also binds count() to the hand in hand. So a rules object is
# used by one thread at a time, and Python runs one thread at a time anyway.
# Taken by acquire/try/finally rather than `with` (the same release on every
# way out): `with` costs a call 600 to 1,000 machine instructions more
# (valgrind's count, docs/performance.md). Each generated module inlines
# this file, so it has a lock of its own; the interpreter's scorers share this
# one (they share search's tables).
_LOCK = _threading.RLock()


def score_request(rules: Any, data: Any) -> dict:  # type: ignore[type-arg]
    """A request mapping (or a Request) → a result mapping. Never raises for a
    bad request: the result says what is wrong."""
    _LOCK.acquire()
    try:
        if data.__class__ is dict:
            got = _score_plain(rules, data)
            if got is not None:
                return got
        return _score_request(rules, data)
    finally:
        _LOCK.release()


def score_plain(rules: Any, data: Any) -> dict | None:  # type: ignore[type-arg]
    """score_request for a plain request (a dict of the contract's own fields: none names
    rules of its own), None for any other: a caller that must look for a request's
    profile/options first tries this, and looks only when it says None."""
    if data.__class__ is not dict:
        return None
    _LOCK.acquire()
    try:
        return _score_plain(rules, data)  # type: ignore[no-any-return]
    finally:
        _LOCK.release()


def score_tiles_in(rules: Any, concealed: Any, draw: int, indicator: int, melds: Any = (),
                   kong_draw: str | None = None, flags: Any = (), kong_chain: int = 1) -> Claim:
    """The typed fast path (see _score_tiles_in); never raises for a bad hand."""
    _LOCK.acquire()
    try:
        return _score_tiles_in(rules, concealed, draw, indicator, melds, kong_draw, flags, kong_chain)
    finally:
        _LOCK.release()


def waits_request(rules: Any, data: Any) -> dict:  # type: ignore[type-arg]
    """Every tile that wins the 13-tile hand, each with its fan: the waits
    answer {contract, rules, id, waits}, or a refusal in the same shape."""
    _LOCK.acquire()
    try:
        return _waits_request(rules, data)
    finally:
        _LOCK.release()


def score_text(rules: Any, data: Any) -> str | None:
    """The answer to a plain score request as one line of JSON (see _score_text), or None."""
    _LOCK.acquire()
    try:
        return _score_text(rules, data)
    finally:
        _LOCK.release()


# ---- the batch contract (JSONL): one JSON request per line in, one strict
# JSON answer per line out, in order; the same for `tjmj score --jsonl`, a
# generated scorer run as a program, and a JSONL body over HTTP.
# Limits: docs/reliability.md.

MAX_LINE = 65_536  # bytes of one request line; a request is about 100
MAX_NESTING = 64  # arrays and objects inside one another in one line; a request needs 3
JSON_SPACE = " \t\n\r"  # JSON's whitespace (RFC 8259), all a line may hold around its request: a line of
# nothing else is blank, and any other character (a form feed, U+3000) is a line's text, refused as not JSON
# as the same text in an HTTP body is


class NotUtf8(str):
    """A line that could not be decoded; `pos` is its first bad byte."""

    pos = 0


class TooLong(str):
    """A line of more than MAX_LINE bytes (its text is not kept)."""


def _decoded(b: bytes, limit: int = MAX_LINE) -> str:
    """One line's bytes (without its newline) → its text, or a NotUtf8 / TooLong marker (one refusal each)."""
    if len(b) > limit:
        return TooLong("")
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError as e:
        bad = NotUtf8("")
        bad.pos = e.start
        return bad


def decode_lines(raw: Any) -> Any:
    """Byte lines → text lines, each decoded on its own: a line that is not
    UTF-8 becomes a NotUtf8 marker (one refusal), not the end of the batch,
    and a line over MAX_LINE bytes a TooLong one."""
    for b in raw:
        yield _decoded(b[:-1] if b.endswith(b"\n") else b)


def read_lines(stream: Any, limit: int = MAX_LINE) -> Any:
    """The lines of `stream`, binary (decoded as UTF-8 whatever the locale
    says) or text, as decode_lines gives them, each yielded as soon as it is
    read. A line over `limit` bytes is read to its end in bounded pieces and becomes
    a TooLong marker, so memory stays bounded whatever the input."""
    binary = not isinstance(stream.read(0), str)
    nl: Any = b"\n" if binary else "\n"
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(nl):
            while line and not line.endswith(nl):  # the rest of the line, in bounded pieces
                line = stream.readline(limit)
            yield TooLong("")
            continue
        if line.endswith(nl):
            line = line[:-1]
        yield _decoded(line, limit) if binary else line


def fd_lines(fd: int, before_wait: Any, size: int = 1 << 16) -> Any:
    """The lines of a file descriptor (each decoded on its own, as
    decode_lines), read a chunk at a time: os.read returns what is there and
    waits only when nothing is. before_wait() is called before each read,
    so whatever was answered so far is written out before the reader may
    wait (a program that writes a line and waits for its answer gets it)
    while a batch is answered chunk by chunk, not one write per line. A line
    not ended yet is kept up to MAX_LINE bytes; past that its bytes are
    dropped as they come, and it becomes one TooLong marker."""
    pieces: list[bytes] = []  # a line not ended yet (one chunk or many)
    held = 0  # its bytes
    too_long = False
    while True:
        before_wait()
        chunk = os.read(fd, size)
        if not chunk:
            break
        lines = chunk.split(b"\n")
        last = lines.pop()  # after the chunk's last newline: a line not ended yet
        for i, b in enumerate(lines):
            if i == 0 and (pieces or too_long):  # the end of the line held from before
                if too_long or held + len(b) > MAX_LINE:
                    yield TooLong("")
                else:
                    pieces.append(b)
                    yield _decoded(b"".join(pieces))
                pieces, held, too_long = [], 0, False
            else:
                yield _decoded(b)
        if last and not too_long:
            held += len(last)
            if held > MAX_LINE:
                pieces, too_long = [], True
            else:
                pieces.append(last)
    if too_long:
        yield TooLong("")
    elif pieces:
        yield _decoded(b"".join(pieces))


def _nesting(text: str) -> int:
    """How deep arrays and objects nest (brackets inside strings not counted)."""
    depth = best = 0
    in_str = esc = False
    for c in text:
        if in_str:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == "[" or c == "{":
            depth += 1
            if depth > best:
                best = depth
        elif c == "]" or c == "}":
            depth -= 1
    return best


NESTED = {"code": "not_json", "message": f"not JSON this scorer reads: arrays and objects nested more than "
          f"{MAX_NESTING} deep", "field": None}


_SCAN = _json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # (value, end) of the JSON text starting at an index, as json.loads reads it


def loads_request(text: str, lead: int = 0, depth: int = MAX_NESTING) -> tuple:  # type: ignore[type-arg]
    """(data, None), or (None, the contract's error object) for a text that is
    not JSON this scorer reads: nested more than `depth` deep, or with a key
    repeated in one object (json.loads would keep the last silently; I-JSON,
    RFC 7493, forbids it). `lead`: the characters stripped before the text (a
    JSONL line's leading spaces), so a position is one in the text as sent."""
    if text.count("[") + text.count("{") > depth and _nesting(text) > depth:
        return None, dict(NESTED)
    if text.__class__ is str:  # json.loads's own scanner, without its three Python layers
        try:
            data, end = _SCAN(text, 0)
            if end == len(text):
                # every key is followed by one colon: as many colons as keys read, so no key was repeated
                if data.__class__ is dict and len(data) == text.count(":"):
                    return data, None
                return _unless_repeated(data, text, lead)
        except (StopIteration, ValueError, RecursionError):
            pass  # json.loads reads it again and says what is wrong
    try:
        data = _json.loads(text)
    except _json.JSONDecodeError as e:
        pos, col = e.pos + lead, e.colno + lead if e.lineno == 1 else e.colno
        return None, {"code": "not_json", "message": f"not JSON: {e.msg}: line {e.lineno} column {col} (char {pos})",
                      "field": None, "position": pos}
    except ValueError as e:
        at = _long_integer(text)
        if at is None:  # pragma: no cover - json.loads raises no other ValueError
            return None, {"code": "not_json", "message": f"not JSON: {e}", "field": None, "position": lead}
        d = _json.JSONDecodeError(f"an integer of {at[1]:,} digits (at most {MAX_INT_DIGITS:,})", text, at[0])
        pos, col = d.pos + lead, d.colno + lead if d.lineno == 1 else d.colno
        return None, {"code": "not_json", "message": f"not JSON this scorer reads: {d.msg}: line {d.lineno} column {col} "
                      f"(char {pos})", "field": None, "position": pos}
    except RecursionError:
        return None, dict(NESTED)
    return _unless_repeated(data, text, lead)


MAX_INT_DIGITS = 4300  # Python's bound on the digits of an integer read from text (sys.get_int_max_str_digits)


def _long_integer(text: str) -> tuple[int, int] | None:
    """Where the first integer of the JSON text `text` longer than MAX_INT_DIGITS digits starts, and its
    digits (strings skipped): what json.loads refuses without saying where."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif c == "-" or "0" <= c <= "9":
            j = k = i + (c == "-")
            while k < n and "0" <= text[k] <= "9":
                k += 1
            if k - j > MAX_INT_DIGITS and (k == n or text[k] not in ".eE"):
                return i, k - j
            i = max(k, i + 1)
        else:
            i += 1
    return None


def _unless_repeated(data: Any, text: str, lead: int) -> tuple:  # type: ignore[type-arg]
    """loads_request's answer for the JSON text `text` read as `data`: refused if a key is repeated in one object."""
    if _keys(data) != text.count(":"):  # a colon in a string, or a key repeated
        repeated = _first_repeated_key(text)
        if repeated is not None:
            pos, key = repeated
            at = _json.JSONDecodeError("", text, pos)  # its line and column
            col = at.colno + lead if at.lineno == 1 else at.colno
            return None, {"code": "not_json", "message": f"not JSON this scorer reads: the key {_short(key)} is repeated "
                          f"in its object: line {at.lineno} column {col} (char {pos + lead})", "field": None, "position": pos + lead}
    return data, None


def _keys(x: Any) -> int:
    """The keys of every object in a JSON value."""
    if x.__class__ is dict:
        return len(x) + sum(_keys(v) for v in x.values() if v.__class__ is dict or v.__class__ is list)
    if x.__class__ is list:
        return sum(_keys(v) for v in x if v.__class__ is dict or v.__class__ is list)
    return 0


def _first_repeated_key(text: str) -> tuple[int, str] | None:
    """(position, key) of the first key in a JSON text that repeats a key before it in its object, or None."""
    seen: list[Any] = []  # per open object its keys, per open array None
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            key, end = _json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
            j = end
            while j < n and text[j] in " \t\n\r":
                j += 1
            if j < n and text[j] == ":":  # a key (a string value is followed by , ] or })
                if key in seen[-1]:
                    return i, key
                seen[-1].add(key)
            i = end
            continue
        if c == "{":
            seen.append(set())
        elif c == "[":
            seen.append(None)
        elif c == "}" or c == "]":
            seen.pop()
        i += 1
    return None


def dumps_answer(answer: Any) -> str:
    """An answer as one line of strict JSON: non-ASCII as is, a lone surrogate
    and the three line breaks beyond ASCII as their \\u escapes (_safe_text).
    Raises ValueError for NaN or Infinity (in an id: strict JSON has no text for them)."""
    return _safe_text(_json.dumps(answer, ensure_ascii=False, allow_nan=False))


UNWRITABLE_ID = {"code": "bad_value", "message": "id: NaN, Infinity and numbers past a float's range (1e999) have "
                 "no JSON text, so no answer could carry this id", "field": "id"}


def answer_one(data: Any, answer: Any, refuse: Any) -> Any:
    """answer(data), or an internal_error refusal if it raised (one bad request must not stop a batch)."""
    try:
        return answer(data)
    except Exception as e:  # noqa: BLE001
        return refuse(data.get("id") if isinstance(data, dict) else None,
                      {"code": "internal_error", "message": f"{type(e).__name__}: {e}", "field": None})


def answer_line(line: str, answer: Any, refuse: Any, text: Any = None) -> str | None:
    """The JSON text answering one line (None for a blank line, which gets
    none). `answer(request_mapping)` returns the answer mapping; `refuse(id,
    error)` the refusal in the shape this batch answers in; `text(request_mapping)`,
    if given, the answer's line itself when it can write it faster (score_text), else None."""
    if line.__class__ is not str:  # the markers of decode_lines are str subclasses
        if isinstance(line, NotUtf8):
            return dumps_answer(refuse(None, {"code": "not_utf8", "message": f"not UTF-8 at byte {line.pos}",
                                              "field": None, "position": line.pos}))
        if isinstance(line, TooLong):
            return dumps_answer(refuse(None, {"code": "too_large",
                                              "message": f"the line is longer than {MAX_LINE} bytes", "field": None}))
    text_in = line.strip(JSON_SPACE)
    if not text_in:
        return None
    # a position is one in the line as sent, its leading spaces counted
    data, err = loads_request(text_in, 0 if text_in[0] == line[0] else len(line) - len(line.lstrip(JSON_SPACE)))
    if err is not None:
        return dumps_answer(refuse(None, err))
    if text is not None:
        try:
            out = text(data)
        except Exception:  # noqa: BLE001  (the mapping's path answers, and says what failed)
            out = None
        if out is not None:
            return out  # type: ignore[no-any-return]
    try:
        return dumps_answer(answer_one(data, answer, refuse))
    except ValueError:  # NaN or Infinity in the id: strict JSON has no text for them
        return dumps_answer(refuse(None, UNWRITABLE_ID))


def jsonl(lines: Any, answer: Any, refuse: Any, text: Any = None) -> Any:
    """The batch contract: one JSON request per line in (text, or the markers
    of decode_lines), one JSON answer per line out, same order; blank lines
    are skipped. A bad line gets a refusal and the batch goes on."""
    for line in lines:
        out = answer_line(line, answer, refuse, text)
        if out is not None:
            yield out


def run_jsonl(stdin: Any, stdout: Any, answer: Any, refuse: Any, text: Any = None) -> None:
    """jsonl over a process's standard input and output, in UTF-8 whatever
    the locale says: read a chunk at a time from the descriptor when there
    is one (fd_lines: answers written out before each wait for input), else
    line by line (read_lines), each answer flushed. A closed output (`| head -1`)
    ends the batch quietly."""
    raw = getattr(stdin, "buffer", stdin)
    try:
        fd = raw.fileno()
    except (OSError, ValueError, AttributeError):  # io objects without a descriptor
        fd = None
    out = getattr(stdout, "buffer", None)
    if out is not None:
        stdout.flush()  # anything written as text so far goes first
    try:
        if fd is not None:  # a process serving a stream: what exists now (the rules, the scorer) lives as long as it
            settle_collector()
        lines = fd_lines(fd, (out or stdout).flush) if fd is not None else read_lines(raw)
        for line in jsonl(lines, answer, refuse, text):
            if out is not None:
                out.write(line.encode("utf-8"))
                out.write(b"\n")
            else:
                stdout.write(line)
                stdout.write("\n")
            if fd is None:
                (out or stdout).flush()
        (out or stdout).flush()
    except BrokenPipeError:
        _quiet_stdout()


def settle_collector() -> None:
    """After building what lives as long as the process (compiled rules, a
    scorer's code and tables): collect once, then move every object alive to
    the garbage collector's permanent generation, so that no later
    collection walks them again. A full collection over them costs tens of
    milliseconds and lands on whichever request is running; the tables the
    scorer fills while scoring are made tracked from birth so that they are
    moved too (engine/lasting.py). What this function froze before is first
    unfrozen, so a scorer dropped since (a service keeps a bounded number)
    is collected, but only while the process freezes nothing itself: a
    program that froze its own objects (before forking workers, say) keeps
    them frozen, and a scorer it drops then stays in the permanent
    generation. Called again sooner than ten times what the last one took
    (many scorers built in a row, in a process with a large heap), it does
    nothing: a full collection per build would cost more than the pauses it
    saves (the next one settles what was built meanwhile)."""
    import gc
    import time
    start = time.perf_counter()
    last_end, last_cost, holder, others = _SETTLED
    if start - last_end < 10 * last_cost:
        return
    if holder is None:  # the first time: whatever is frozen now was frozen by the program
        others = gc.get_freeze_count() > 0
    elif not others:  # the holder left unfrozen last time is frozen now: the program froze since
        # (get_referrers looks only at objects not frozen, and hands out nothing but the referrers:
        # gc.get_objects() would hand out another thread's tuple still being filled, and break it)
        others = not any(r is holder for r in gc.get_referrers(holder[0]))
    if not others:
        gc.unfreeze()
    gc.collect()
    gc.freeze()
    end = time.perf_counter()
    _SETTLED[:] = [end, end - start, [object()], others]  # a new holder, made after the freeze: not frozen


# when the last settle_collector ended and what it took (perf_counter seconds), a list it left
# unfrozen, holding a probe (None: it never ran), and whether the program freezes objects itself
_SETTLED: list = [float("-inf"), 0.0, None, False]  # type: ignore[type-arg]


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null, so the interpreter's
    last flush does not complain."""
    import sys as _sys
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, _sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def jsonl_main(answer: Any, refuse: Any, text: Any = None) -> int:
    """A generated scorer run as a program: JSONL from stdin to stdout, as
    `tjmj score --jsonl` does; Ctrl-C ends it with 130 and one line on stderr."""
    import sys as _sys
    try:
        run_jsonl(_sys.stdin, _sys.stdout, answer, refuse, text)
        return 0
    except KeyboardInterrupt:
        _sys.stderr.write("interrupted\n")
        return 130
