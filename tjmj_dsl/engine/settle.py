"""Settlement at run time: an outcome mapping (what happened at the table) →
the payments the rule file's payment rules produce, the four balances and the
next dealer.

Generic: no payment of any game is written here. The rules object (generated
code or the interpreter) carries `settlement`, None when the rule file has no
`settlement:` section, else an object with
  play: dict                 the rule file's play values
  score_table: str           the score table in force
  checks(o) -> [(id, field, message)]                the outcome rules that hold (refuse the outcome)
  payments: ((id, reason, amount_text, spans, when_text, fn), ...)  in rule-file order;
      fn(o) -> ([(payer, payee, amount, term values)], [indexes of the items
      whose `when` did not hold]), term values in the order of `spans`: the
      (start, end) of each term of amount_text
  next_dealer(o) -> seat
and the rules object's kong_points. Seats are ints 0-3, turn order 0→1→2→3→0.
"""

from __future__ import annotations

from typing import Any

from ..tiles import NAMES, TileError, parse_tiles  # tjmj:inline-drop
from .contract import (CONTRACT, KONG_TYPES, MAX_EXACT, MAX_ROUNDS, MAX_TOTAL, OUTCOME_FIELDS,  # tjmj:inline-drop
                       OUTCOME_KONG_FIELDS, OUTCOME_ROUND_FIELDS, PAST_EXACT, REFUSED, SEATS)  # tjmj:inline-drop
from .request import _ONE_TILE, RequestError, _close, _json_type  # tjmj:inline-drop
from .result import rules_info  # tjmj:inline-drop
from .runtime import other_rules, oversized  # tjmj:inline-drop

KONG_FIELDS = OUTCOME_KONG_FIELDS
MAX_KONGS = 16  # four melds a seat, each at most a kong
MAX_LAZHUANG = 62  # far above any rule's limit; keeps pow() of a hostile count small


class Outcome:
    """A checked outcome: the names the settlement's expressions read.
    kongs are (seat, type, tile, points, won, from, ended) tuples (from: the seat whose discard was konged, or
    None; ended: the kong ended the hand as its maker's win), rounds (number, discards, claimed)
    tuples (number 1 for the hand's first go-round)."""

    __slots__ = ("dealer", "zuozhuang", "lazhuang", "winner", "total", "kongs", "chan", "rounds", "xianggong", "seats",
                 "score_table")
    dealer: int
    zuozhuang: bool
    lazhuang: tuple[int, ...]
    winner: int | None
    total: int
    kongs: list[tuple[int, str, int, int, bool, int | None, bool]]
    chan: bool
    rounds: list[tuple[int, list[int], bool]]
    xianggong: frozenset[int]
    seats: list[int]
    score_table: str


def seat_list(x: Any) -> list[int]:
    """A `from`/`to` value as a list of seats: a seat, a list of seats, or none."""
    if x is None:
        return []
    if isinstance(x, list):
        return x
    return [x]


def others(s: Any) -> list[int]:
    """The three seats other than s, in turn order after s (none: no seat)."""
    if s is None:
        return []
    return [(s + 1) % SEATS, (s + 2) % SEATS, (s + 3) % SEATS]


def bounded_pow(b: int, e: int) -> int:
    """b to the power e, with e taken between 0 and 63; a power past 2^53 - 1 is an OverflowError (the
    outcome is refused, settlement_failed), as in the JavaScript scorer: no backend holds it exactly,
    and powers of powers would grow without bound (2^63 to the 63rd, six times over: gigabytes)."""
    b, e = int(b), min(max(int(e), 0), 63)
    if abs(b) > 1 and e * (abs(b).bit_length() - 1) > 53:  # |b|^e >= 2^(e (bits - 1)): past it, not worked out
        raise OverflowError(f"a power past {PAST_EXACT}")
    r = b ** e
    if abs(r) > MAX_EXACT:
        raise OverflowError(f"a power past {PAST_EXACT}")
    return r


def kong_points_of(rules: Any, typ: str) -> int:
    """A kong's points by its record type; an added kong (bugang) counts as play.added_kong_as."""
    key = rules.settlement.play.get("added_kong_as", "exposed") if typ == "added" else typ
    return int(rules.kong_points[key])


def kong_draw_of(rules: Any, typ: str) -> str:
    """The scoring request's kong_draw for a win on this kind of kong's replacement."""
    return str(rules.settlement.play.get("added_kong_as", "exposed")) if typ == "added" else typ


def _seat(v: Any, field: str, nullable: bool = False) -> int | None:
    if v is None and nullable:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < SEATS:
        want = "a seat (0-3) or null" if nullable else "a seat (0-3)"
        raise RequestError(f"expected {want}, got {v!r}", field,
                           code="bad_value" if isinstance(v, int) and not isinstance(v, bool) else "wrong_type")
    return v


def _flag(v: Any, field: str) -> bool:
    if v is None:
        return False
    if not isinstance(v, bool):
        raise RequestError(f"expected true or false, got {v!r}", field, code="wrong_type")
    return v


def make_outcome(*, dealer: int, zuozhuang: bool, lazhuang: tuple[int, ...], winner: int | None, total: int,
                 kongs: list[tuple[int, str, int, int, bool, int | None, bool]], chan: bool,
                 rounds: list[tuple[int, list[int], bool]], xianggong: frozenset[int], score_table: str) -> Outcome:
    """An outcome from values already checked (parse_outcome's, the table's own, check's made-up ones): every
    field named here, so that a field added to Outcome is added to every maker of one by the type checker."""
    o = Outcome()
    o.dealer, o.zuozhuang, o.lazhuang, o.winner, o.total = dealer, zuozhuang, lazhuang, winner, total
    o.kongs, o.chan, o.rounds, o.xianggong = kongs, chan, rounds, xianggong
    o.seats = list(range(SEATS))
    o.score_table = score_table
    return o


def parse_outcome(rules: Any, data: Any) -> Outcome:
    """Read an outcome mapping; RequestError names the field that is wrong.
    Absent or null optional fields mean false / none / empty."""
    if not isinstance(data, dict):
        raise RequestError(f"an outcome is a JSON object, got {_json_type(data)}", code="not_object")
    for k in data:
        if k not in OUTCOME_FIELDS:
            near = [f for f in OUTCOME_FIELDS if _close(str(k), f)]
            raise RequestError(f"unknown field {k!r}", str(k), code="unknown_field",
                               hint=f"did you mean {near[0]!r}?" if near else "fields are " + ", ".join(OUTCOME_FIELDS))
    if data.get("dealer") is None:
        raise RequestError("missing", "dealer", hint="the dealer's seat, 0-3", code="missing_field")
    dealer = _seat(data["dealer"], "dealer")
    assert dealer is not None
    if "winner" not in data:
        raise RequestError("missing", "winner", hint="the winner's seat, or null for a drawn hand (huangzhuang)",
                           code="missing_field")
    winner = _seat(data["winner"], "winner", nullable=True)
    total = data.get("total")
    if winner is None:
        if total not in (None, 0) or isinstance(total, bool):
            raise RequestError(f"a drawn hand (winner null) has no total, got {total!r}", "total",
                               code="unexpected_field")
        total = 0
    else:
        if total is None:
            raise RequestError("missing", "total", hint="the winner's score-table total (score()'s `total`)",
                               code="missing_field")
        if isinstance(total, bool) or not isinstance(total, int) or not 0 <= total <= MAX_TOTAL:
            raise RequestError(f"expected a whole number from 0 to {MAX_TOTAL:,}, got {total!r}", "total",
                               code="bad_value" if isinstance(total, int) and not isinstance(total, bool) else "wrong_type")
        if total < rules.min_fan:  # every score table's total of a win is at least its fan, and a win's fan min_fan
            raise RequestError(f"a win's total is at least {rules.min_fan} (the rules' min_fan), got {total}", "total",
                               hint="the winner's score-table total (score()'s `total`)")
    zuozhuang = _flag(data.get("zuozhuang"), "zuozhuang")
    lz = data.get("lazhuang")
    if lz is None:
        lz = [0] * SEATS
    if not isinstance(lz, list) or len(lz) != SEATS:
        raise RequestError(f"expected a list of {SEATS} counts, one per seat", "lazhuang",
                           code="wrong_type" if not isinstance(lz, list) else "bad_value")
    for i, n in enumerate(lz):
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_LAZHUANG:
            raise RequestError(f"expected a count from 0 to {MAX_LAZHUANG}, got {n!r}", f"lazhuang[{i}]",
                               code="bad_value" if isinstance(n, int) and not isinstance(n, bool) else "wrong_type")
    lazhuang = tuple(lz)
    kongs_in = data.get("kongs")
    if kongs_in is None:
        kongs_in = []
    if not isinstance(kongs_in, list):
        raise RequestError('expected a list of {"seat", "type", "tile", "won", "from", "ended"}', "kongs", code="wrong_type")
    if len(kongs_in) > MAX_KONGS:
        raise RequestError(f"{len(kongs_in)} kongs; a hand has at most {MAX_KONGS}", "kongs", code="bad_value")
    kongs = []
    seen: dict[int, int] = {}
    per_seat = [0] * SEATS
    # the kong types a claimed discard makes: exposed, and what play.hun_kong_exposed_as makes of three huns and
    # a discarded one
    hx = rules.settlement.play.get("hun_kong_exposed_as")
    claimed = {"exposed"} | ({hx} if hx in KONG_TYPES else set())
    won = ended = -1
    for i, k in enumerate(kongs_in):
        f = f"kongs[{i}]"
        if not isinstance(k, dict):
            raise RequestError('expected {"seat": 0-3, "type": "exposed"|"added"|"concealed"|"hun", "tile": "5p"}', f,
                               code="wrong_type")
        for key in k:
            if key not in KONG_FIELDS:
                raise RequestError(f"unknown field {key!r}", f"{f}.{key}", hint="fields are " + ", ".join(KONG_FIELDS),
                                   code="unknown_field")
        for key in ("seat", "type", "tile"):
            if k.get(key) is None:
                raise RequestError("missing", f"{f}.{key}", code="missing_field")
        seat = _seat(k["seat"], f + ".seat")
        assert seat is not None
        if k["type"] not in KONG_TYPES:
            raise RequestError(f"unknown kong type {k['type']!r}", f + ".type", hint="one of " + ", ".join(KONG_TYPES),
                               code="bad_value" if isinstance(k["type"], str) else "wrong_type")
        if not isinstance(k["tile"], str):
            raise RequestError(f"expected a tile such as \"5p\", got {k['tile']!r}", f + ".tile", code="wrong_type")
        try:
            ts = parse_tiles(k["tile"])
        except TileError as e:
            raise RequestError(e.message, f + ".tile", e.pos, e.hint, "bad_tile") from None
        if len(ts) != 1:
            raise RequestError(f"expected one tile, found {len(ts)}", f + ".tile", code="bad_tile")
        if ts[0] in seen:
            raise RequestError(f"a second kong of {NAMES[ts[0]]} (kongs[{seen[ts[0]]}]); there are only 4 tiles of a kind",
                               f + ".tile", code="too_many_copies")
        seen[ts[0]] = i
        per_seat[seat] += 1
        if per_seat[seat] > 4:
            raise RequestError(f"seat {seat} has more than 4 kongs", f + ".seat", code="bad_value")
        w = _flag(k.get("won"), f + ".won")
        if w:
            if won >= 0 or ended >= 0:
                raise RequestError(f"kongs[{max(won, ended)}] already won the hand: one replacement tile wins", f + ".won",
                                   code="bad_value")
            if seat != winner:
                raise RequestError(f"the winning replacement (gangkai) follows the winner's own kong; seat {seat} did not win",
                                   f + ".won", code="bad_value")
            won = i
        by = _seat(k.get("from"), f + ".from", nullable=True)
        if by == seat:
            raise RequestError(f"seat {seat} konged its own discard; `from` is the seat whose discard was claimed",
                               f + ".from", code="bad_value")
        if by is not None and k["type"] not in claimed:
            raise RequestError(f"a kong of type {k['type']} is made of its maker's own tiles, it has no `from`",
                               f + ".from", hint="only a kong of a claimed discard names the discarder: type "
                               + " or ".join(sorted(claimed)), code="bad_value")
        end = _flag(k.get("ended"), f + ".ended")
        if end:
            if won >= 0 or ended >= 0:
                raise RequestError(f"kongs[{max(won, ended)}] already ended the hand: it ends once, by one kong or one "
                                   "replacement", f + ".ended", code="bad_value")
            if seat != winner:
                raise RequestError(f"a kong that ends the hand is its maker's win; seat {seat} did not win", f + ".ended",
                                   code="bad_value")
            ended = i
        kongs.append((seat, k["type"], ts[0], kong_points_of(rules, k["type"]), w, by, end))
    chan = _flag(data.get("chan"), "chan")
    rounds = _rounds(data.get("rounds"))
    if chan and data.get("rounds") is not None:
        raise RequestError("true, and the outcome gives its rounds too", "chan", hint="the rounds say which go-rounds were "
                           "followed; chan is for a table that keeps no discards: give one or the other", code="bad_value")
    xg = data.get("xianggong")
    if xg is None:
        xg = []
    if not isinstance(xg, list):
        raise RequestError("expected a list of seats", "xianggong", code="wrong_type")
    xs = set()
    for i, s in enumerate(xg):
        seat = _seat(s, f"xianggong[{i}]")
        if seat in xs:
            raise RequestError(f"seat {seat} is listed twice", f"xianggong[{i}]", code="bad_value")
        xs.add(seat)
    return make_outcome(dealer=dealer, zuozhuang=zuozhuang, lazhuang=lazhuang, winner=winner, total=total, kongs=kongs,
                        chan=chan, rounds=rounds, xianggong=frozenset(s for s in xs if s is not None),
                        score_table=rules.settlement.score_table)


def _rounds(rs: Any) -> list[tuple[int, list[int], bool]]:
    """The outcome's go-rounds: the hand's discards in the order made, four to a round (the last may
    hold fewer), each {discards, claimed}."""
    if rs is None:
        return []
    if not isinstance(rs, list):
        raise RequestError('expected a list of {"discards": ["5m", ...], "claimed": false}', "rounds", code="wrong_type")
    if len(rs) > MAX_ROUNDS:
        raise RequestError(f"{len(rs)} rounds; a hand has at most {MAX_ROUNDS}", "rounds", code="bad_value")
    out = []
    seen = [0] * 34
    for i, r in enumerate(rs):
        f = f"rounds[{i}]"
        if not isinstance(r, dict):
            raise RequestError('expected {"discards": ["5m", ...], "claimed": false}', f, code="wrong_type")
        for key in r:
            if key not in OUTCOME_ROUND_FIELDS:
                near = [x for x in OUTCOME_ROUND_FIELDS if _close(str(key), x)]
                raise RequestError(f"unknown field {key!r}", f"{f}.{key}", code="unknown_field",
                                   hint=f"did you mean {near[0]!r}?" if near else "fields are " + ", ".join(OUTCOME_ROUND_FIELDS))
        ds = r.get("discards")
        if ds is None:
            raise RequestError("missing", f + ".discards", hint='its discards in order, e.g. ["5m", "5m", "5m", "5m"]',
                               code="missing_field")
        if not isinstance(ds, list):
            raise RequestError(f"expected a list of tiles such as \"5p\", got {ds!r}", f + ".discards", code="wrong_type")
        if not 1 <= len(ds) <= SEATS:
            raise RequestError(f"a round holds 1 to {SEATS} discards, got {len(ds)}", f + ".discards", code="bad_value")
        if len(ds) < SEATS and i < len(rs) - 1:
            raise RequestError(f"only the hand's last round may hold fewer than {SEATS} discards", f + ".discards",
                               code="bad_value")
        tiles = []
        for j, t in enumerate(ds):
            k = _ONE_TILE.get(t) if t.__class__ is str else None  # a tile's own name (the engine's): no parsing
            if k is None:
                ft = f"{f}.discards[{j}]"
                if not isinstance(t, str):
                    raise RequestError(f"expected a tile such as \"5p\", got {t!r}", ft, code="wrong_type")
                try:
                    ts = parse_tiles(t)
                except TileError as e:
                    raise RequestError(e.message, ft, e.pos, e.hint, "bad_tile") from None
                if len(ts) != 1:
                    raise RequestError(f"expected one tile, found {len(ts)}", ft, code="bad_tile")
                k = ts[0]
            seen[k] += 1
            if seen[k] > 4:
                raise RequestError(f"a fifth discard of {NAMES[k]}; there are only 4 tiles of a kind",
                                   f"{f}.discards[{j}]", code="too_many_copies")
            tiles.append(k)
        out.append((i + 1, tiles, _flag(r.get("claimed"), f + ".claimed")))
    return out


def _show(v: Any) -> str:
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "none"
    return str(v)


def formula(text: str, spans: tuple, values: tuple, amount: int) -> str:  # type: ignore[type-arg]
    """The amount's expression, then the same with each term's value, then the amount:
    `k.points * pair(payer, payee) = 2 * 4 = 8`."""
    out = []
    last = 0
    for (a, b), v in zip(spans, values):
        out.append(text[last:a])
        out.append(_show(v))
        last = b
    out.append(text[last:])
    middle = "".join(out).strip()
    text = text.strip()
    parts = [text]
    if middle not in (text, str(amount)):
        parts.append(middle)
    if str(amount) != text:
        parts.append(str(amount))
    return " = ".join(parts)


def _refused(rules: Any, req_id: Any, error: dict) -> dict:  # type: ignore[type-arg]
    """A settle answer refusing the outcome: nothing paid, `error` the contract's error object."""
    return {"contract": CONTRACT, "rules": rules_info(rules), "id": req_id, "payments": [], "balances": [0] * SEATS,
            "next_dealer": None, "kongs": [], "unpaid": [], "reason": REFUSED, "error": error}


def _cannot(message: str) -> dict:  # type: ignore[type-arg]
    """The rules themselves cannot settle this outcome (a rule-file mistake the checks did not catch)."""
    return {"code": "settlement_failed", "message": message, "field": None}


def settle_in(rules: Any, data: Any) -> dict:  # type: ignore[type-arg]
    """An outcome mapping → {contract, rules, id, payments, balances, next_dealer, kongs, unpaid};
    a bad outcome gets reason "invalid_request" and `error` (never an exception).
    Each payment: from, to, amount, reason, rule (the payment rule's id) and
    formula (the amount's expression with its values). `unpaid` lists each
    rule and item (the index in its `for` list, or null) whose `when` did not
    hold, with that condition: why a kong was not paid, why no win was paid.
    `kongs` are the outcome's kongs with their points."""
    big = oversized(data) if isinstance(data, dict) else None
    if big is not None:
        return _refused(rules, None, big)
    req_id = data.get("id") if isinstance(data, dict) else None
    s = rules.settlement
    if s is None:
        return _refused(rules, req_id, {"code": "no_settlement", "message": "these rules have no settlement section",
                                        "field": None})
    why = other_rules(rules, data)
    if why:
        return _refused(rules, req_id, why)
    try:
        o = parse_outcome(rules, data)
    except RequestError as e:
        return _refused(rules, req_id, e.error())
    try:
        bad = s.checks(o)
        if bad:
            rid, field, message = bad[0]
            return _refused(rules, req_id, {"code": rid, "message": f"{field}: {message}", "field": field})
        payments = []
        unpaid = []
        balances = [0] * SEATS
        for rid, reason, text, spans, when, fn in s.payments:
            rows, skipped = fn(o)
            for i in skipped:
                unpaid.append({"rule": rid, "reason": reason, "item": i, "when": when})
            for payer, payee, amount, values in rows:
                if isinstance(amount, bool) or not isinstance(amount, int):
                    return _refused(rules, req_id, _cannot(f"payment rule {rid}: the amount is {amount!r}, "
                                                           "not a whole number"))
                if amount == 0:
                    continue
                if abs(amount) > MAX_EXACT:
                    return _refused(rules, req_id, _cannot(f"payment rule {rid}: an amount past {PAST_EXACT}"))
                payments.append({"from": payer, "to": payee, "amount": amount, "reason": reason, "rule": rid,
                                 "formula": formula(text, spans, values, amount)})
                balances[payer] -= amount
                balances[payee] += amount
                if abs(balances[payer]) > MAX_EXACT or abs(balances[payee]) > MAX_EXACT:
                    return _refused(rules, req_id, _cannot(f"payment rule {rid}: a balance past {PAST_EXACT}"))
        nd = s.next_dealer(o)
    except (TypeError, IndexError, KeyError, ValueError, AttributeError, OverflowError) as e:
        return _refused(rules, req_id, _cannot(f"the settlement rules cannot settle this outcome "
                                               f"({type(e).__name__}: {e})"))
    if isinstance(nd, bool) or not isinstance(nd, int) or not 0 <= nd < SEATS:
        return _refused(rules, req_id, _cannot(f"the rotation gives {nd!r}, not a seat"))
    kongs = [{"seat": k[0], "type": k[1], "tile": NAMES[k[2]], "points": k[3], "won": k[4], "from": k[5],
              "ended": k[6]} for k in o.kongs]
    return {"contract": CONTRACT, "rules": rules_info(rules), "id": req_id, "payments": payments,
            "balances": balances, "next_dealer": nd, "kongs": kongs, "unpaid": unpaid}
