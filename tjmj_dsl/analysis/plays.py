"""What `tjmj check` proves the game engine can play: the hands and outcomes a table
makes, found by the witness search (analysis/witness.py), asked of the rule set's own
scorer and settlement. Three classes, each a warning `unplayable` at the rule that
breaks, with the hand or outcome that shows it:

  a request rule refusing a hand the table builds (its claims and play make it: the
      declared melds it offers, the kong_draw of the seat's own kong, the flags play sets)
  a score table whose total for a winning hand leaves what settle() takes: a whole
      number from the rules' min_fan to MAX_TOTAL (engine/contract.py)
  a settlement refusing an outcome the table makes (an outcome rule, a payment or a
      balance past MAX_EXACT): the largest total found, every zuozhuang and lazhuang play allows,
      the most kongs of the best-paid kind, chan, a win by the dealer, by another, none

`tjmj simulate` meets the same refusals at the table and stops with one line naming
the rule and the hand (game/table.py, game/session.py)."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any, Iterator

from ..backends.interpret import interpreter
from ..diagnostics import Diagnostic
from ..engine import runtime
from ..engine.contract import MAX_TOTAL
from ..engine.result import wins
from ..game.rules import (KongWin, discard_kong_types, kong_draw_of, kong_total_refused, kong_win_total,
                          table_kong_types)
from ..ir import NO_KONG, Expr, RuleSet
from ..notation import format_hand
from ..passes.resolve import Resolved
from ..tiles import format_tiles, name
from .witness import Analysis, best_of

NUM_KINDS = 34
MAX_CONCRETE = 24  # concrete hands tried for one abstract reading whose total leaves the range
MAX_REPORTS = 1  # witnesses said per rule (the first found; the fix is the same)


@dataclass(frozen=True)
class Problem:
    path: tuple[str, ...]  # the rule file's place of the rule that breaks
    subject: str  # what `silence: {unplayable: {subject: reason}}` answers
    message: str
    hint: str


def play_checks(res: Resolved, rs: RuleSet, an: Analysis, module: Any, scorers: Any = None) -> list[Diagnostic]:
    """The warnings of one profile (`module`: its generated scorer). With `scorers`
    (backends/examples.Scorers), each value of an option acting on settlement or play that the
    profile does not choose is settled too (`tjmj simulate --option` plays it)."""
    if rs.settlement is None or not dict(rs.play):  # nothing the engine plays (play_problems says so)
        return []
    out: list[Problem] = []
    out += refused_table_hands(rs, an, module)
    totals, problems = table_totals(rs, an, module.RULES)
    out += problems
    out += settlement_refusals(rs, module, totals)
    out += dead_kong_win(rs)
    if not out and scorers is not None:
        out += _other_values(rs, scorers, totals)
    return [Diagnostic("warning", "unplayable", p.message.replace("{profile}", f"under profile {rs.profile}"),
                       res.where(p.path) if _has(res, p.path) else res.where(p.path[:2], key=True), p.hint,
                       p.subject) for p in out]


def _has(res: Resolved, path: tuple[str, ...]) -> bool:
    node: Any = res.data
    for p in path:
        if not isinstance(node, dict) or p not in node:
            return False
        node = node[p]
    return True


# ---- what the table makes -------------------------------------------------------------------

def table_melds(rs: RuleSet) -> dict[tuple[str, bool], set[str]]:
    """The declared melds a table makes, (request type, of huns) → the kong_draws a win on its
    replacement carries (empty for a pung)."""
    play, claims, offered = dict(rs.play), dict(rs.claims), rs.claims_offered()
    out: dict[tuple[str, bool], set[str]] = {}
    if claims.get("pung"):
        out[("pung", False)] = set()
    if offered.get("hun_pung"):
        out[("pung", True)] = set()
    if not claims.get("kong"):
        return out
    added = str(play["added_kong_as"])  # play_problems found every play key the engine reads
    out[("kong", False)] = {"exposed"} | ({kong_draw_of("added", added)} if claims.get("pung") else set())
    out[("concealed_kong", False)] = {"concealed"}
    hun_kong: set[str] = set()
    if offered.get("hun_kong") and play.get("hun_kong_exposed_as") != NO_KONG:
        hun_kong.add(kong_draw_of(str(play["hun_kong_exposed_as"]), added))
    if offered.get("hun_pung") and play.get("hun_kong_added_as") != NO_KONG:
        hun_kong.add(kong_draw_of(str(play["hun_kong_added_as"]), added))
    if hun_kong:
        out[("kong", True)] = hun_kong
    if play.get("hun_kong_concealed_as") != NO_KONG:
        out[("concealed_kong", True)] = {kong_draw_of(str(play["hun_kong_concealed_as"]), added)}
    return out


def table_flags(rs: RuleSet) -> list[frozenset[str]]:
    """The sets of request flags a table's win carries besides none: a first draw (the dealer's or
    another's, no meld, no kong), a ready declaration (no meld, no kong), a first draw after one."""
    play = dict(rs.play)
    first, dealer, ready = (str(play.get(k) or "") for k in ("first_draw_flag", "dealer_first_draw_flag",
                                                              "ready_declaration_flag"))
    sets = [{dealer}, {first}, {ready}, {first, ready}]
    return [frozenset(s) for s in sets if all(s)]


# ---- a request rule refusing a hand the table builds ---------------------------------------------

def refused_table_hands(rs: RuleSet, an: Analysis, module: Any) -> list[Problem]:
    """Each situation the search found refused (declared melds, kong_draw, flags, huns, the
    winning tile's role) that the table makes, made concrete and asked of the scorer."""
    an.search.claimable()  # the search run: its refused situations recorded
    melds = table_melds(rs)
    flag_sets = table_flags(rs)
    out: list[Problem] = []
    said: set[str] = set()
    # the plainest hands first: fewest declared melds and huns, no kong_draw or flag; each situation's
    # hands a generator, made only once it passes the tests below (most do not, and most that do end at
    # their first)
    found = [(ds, kd, fs, _concrete_hands(rs, tr, hcl, ds, kd, fs))
             for (tr, hcl, ds, kd, fs), _ in sorted(an.search.refused_hands.items(), key=lambda x: (
                 len(x[0][2]), x[0][1], x[0][3] is not None, len(x[0][4]), repr(x[0])))]
    swept = [(ds, kd, fs, [req]) for ds, kd, fs, req in _swept_hands(rs)]
    for ds, kd, fs, reqs in found + swept:
        if any(d not in melds for d in ds):
            continue
        if kd is not None and not any(kd in melds[d] for d in ds):
            continue
        if fs and (ds or kd is not None or frozenset(fs) not in flag_sets):
            continue
        for req in reqs:
            answer = module.score(req)
            err = answer.get("error") or {}
            rid = str(err.get("code"))
            if answer.get("reason") != "invalid_request" or rid not in {r.id for r in rs.request_rules}:
                continue
            if rid in said:
                break
            said.add(rid)
            why = _why_made(ds, kd, fs)
            out.append(Problem(("request_rules", rid, "error_when"), f"request_rules.{rid}",
                               f"tjmj simulate cannot play these rules {{profile}}: request rule {rid} refuses "
                               f"the hand {format_hand(req)} (indicator {req['indicator']}{_knobs(req)}), a hand the table "
                               f"builds{why}",
                               "a request rule may refuse only hands the table never makes: narrow its error_when, "
                               "or change the claims and play that make such hands"))
            break
    return out


def _why_made(ds: tuple[tuple[str, bool], ...], kd: str | None, fs: Any) -> str:
    parts = []
    for typ, hun in ds:
        parts.append({"pung": "a pung", "kong": "an exposed or added kong",
                      "concealed_kong": "a concealed kong"}[typ] + (" of huns" if hun else ""))
    if kd:
        parts.append(f"the win on its replacement ({kd})")
    if fs:
        parts.append("play's flag " + ", ".join(sorted(fs)))
    return (" (claims and play let it make " + ", ".join(parts) + ")") if parts else ""


def _knobs(req: dict[str, Any]) -> str:
    flags = sorted(k for k, v in req.items() if v is True)
    return "".join(f", {f}" for f in flags) + (f", kong_draw {req['kong_draw']}" if req.get("kong_draw") else "")


def _swept_hands(rs: RuleSet) -> Iterator[tuple[tuple[tuple[str, bool], ...], str | None, Any, dict[str, Any]]]:
    """Beside the search's situations (which a rule reading tile counts or kinds escapes): each
    declared meld the table makes, of every kind it can be made of, with each kong_draw it allows;
    each flag set on a hand of every pair. (ds, kd, flags, request)."""
    melds = table_melds(rs)
    for (typ, hun), kds in melds.items():
        for face in range(NUM_KINDS):
            for kd in [None] + sorted(kds):
                for req in itertools.islice(_concrete_hands(rs, 0, 4 if hun and typ != "pung" else (3 if hun else 0),
                                                            ((typ, hun),), kd, (), face), 1):
                    yield ((typ, hun),), kd, frozenset(), req
    none: list[frozenset[str]] = [frozenset()]
    for fs in none + table_flags(rs):
        for face in range(NUM_KINDS):
            for req in itertools.islice(_concrete_hands(rs, 0, 0, (), None, fs, pair_face=face), 1):
                yield (), None, fs, req


def _concrete_hands(rs: RuleSet, tr: int, hcl: int, ds: tuple[tuple[str, bool], ...], kd: str | None,
                    fs: Any, face: int | None = None, pair_face: int | None = None) -> Iterator[dict[str, Any]]:
    """Winning hands a table could hold with these values: declared melds of their kind (of huns:
    a hun kind with four tiles), the rest chows (or pungs) and a pair of natural tiles, then
    `hcl` hun tiles in all (the winning tile one of them when tr is 2), standing in for natural
    tiles; never four of the indicator's kind (one is on the wall), never more than the set holds."""
    for ind in (27, 0, 13, 31):  # E, 1m, 5p, C: honor and suit indicators
        kinds = rs.hun_table[ind]
        hun_set = set(kinds)

        def room(k: int, counts: list[int]) -> int:
            return rs.copies - (1 if k == ind else 0) - counts[k]

        counts = [0] * NUM_KINDS
        melds: list[dict[str, str]] = []
        naturals = [k for k in range(NUM_KINDS - 1, -1, -1) if k not in hun_set and k != ind]
        huns = 0
        ok = True
        for j, (typ, hun) in enumerate(ds):
            n = 3 if typ == "pung" else 4
            pool = [k for k in reversed(kinds)] if hun else naturals
            if j == 0 and face is not None:  # a swept meld: this kind, or no hand here
                if (face in hun_set) != hun or face == ind:
                    ok = False
                    break
                pool = [face]
            face = next((k for k in pool if room(k, counts) >= n), None)
            if face is None:
                ok = False
                break
            counts[face] += n
            huns += n if hun else 0
            melds.append({"type": typ, "tile": name(face)})
        if not ok:
            continue
        groups: list[list[int]] = []
        need = 4 - len(ds)
        for k in range(27):
            if len(groups) == need:
                break
            run = [k, k + 1, k + 2]
            if rs.chow and k % 9 <= 6 and all(x not in hun_set and x != ind and room(x, counts) >= 1 for x in run):
                groups.append(run)
                for x in run:
                    counts[x] += 1
        for k in naturals:
            if len(groups) == need:
                break
            if room(k, counts) >= 3:
                groups.append([k] * 3)
                counts[k] += 3
        pair = next((k for k in ([pair_face] if pair_face is not None else naturals)
                     if k not in hun_set and room(k, counts) >= 2), None)
        if len(groups) < need or pair is None:
            continue
        counts[pair] += 2
        concealed = [x for g in groups for x in g] + [pair]
        draw = pair
        if tr == 2:  # the winning tile is a hun standing for the pair's second tile
            counts[pair] -= 1
            draw = next((k for k in reversed(kinds) if room(k, counts) >= 1), -1)
            if draw < 0:
                continue
            counts[draw] += 1
            huns += 1
        more = hcl - huns
        i = 0
        while more > 0 and i < len(concealed):  # hun tiles standing for natural ones, from the front
            hk = next((k for k in reversed(kinds) if room(k, counts) >= 1), None)
            if hk is None:
                break
            counts[concealed[i]] -= 1
            counts[hk] += 1
            concealed[i] = hk
            more -= 1
            i += 1
        if more > 0 or huns > hcl:
            continue
        req: dict[str, Any] = {"concealed": format_tiles(sorted(concealed)), "melds": melds,
                               "draw": name(draw), "indicator": name(ind)}
        if kd is not None:
            req["kong_draw"] = kd
        for f in sorted(fs):
            req[f] = True
        yield req


# ---- a score table's total out of settle()'s range -------------------------------------------------

def _out_of_range(total: Any, rs: RuleSet) -> bool:
    return isinstance(total, bool) or not isinstance(total, int) or not rs.min_fan <= total <= MAX_TOTAL


def table_totals(rs: RuleSet, an: Analysis, R: Any) -> tuple[list[int], list[Problem]]:
    """(the in-range totals of the table in force the search saw, a Problem for each score table of
    the file a winning hand takes out of [min_fan, MAX_TOTAL]). The hands: every witness of a claim
    (its best reading), then every abstract reading's hand-level values with its fan, made
    concrete when its total leaves the range (the reading's fan may not be its hand's best). `R`: the
    RULES of rs's scorer, whose winning condition says which hands win (the search may be another
    profile's that claims alike: an.claimable() judges its witnesses by rs)."""
    s = an.search
    ir = interpreter(rs)
    found = an.claimable()
    seen: list[int] = []
    problems: list[Problem] = []
    for tid, expr in rs.score_tables:
        bad: tuple[str, int, int] | None = None  # (hand said, fan, total)
        for w in sorted(found.values(), key=lambda w: (w.fan, len(w.hand), w.hand)):  # the plainest first
            if not w.win:  # the witness's best reading, judged by the winning condition (win_when)
                continue
            got = best_of(R, w.request)
            if got is None:
                continue
            fan, h = w.fan, got[1]
            total = _total(ir, h, fan, expr)
            if tid == rs.score_table and not _out_of_range(total, rs):
                seen.append(int(total))  # type: ignore[arg-type]
            if bad is None and _out_of_range(total, rs):
                bad = (_said(w.request, w.patterns), fan, total)  # type: ignore[assignment]
        if bad is None:
            for mask, reading in s.readings():
                fan = R.fan(mask)
                if not wins(R, mask, fan):
                    continue
                hand = s.valid_hands.get(reading.state[2:] + (reading.kong_draw, reading.flags))
                if hand is None:
                    continue
                total = _total(ir, hand[0], fan, expr)
                if tid == rs.score_table and not _out_of_range(total, rs):
                    seen.append(int(total))  # type: ignore[arg-type]
                if not _out_of_range(total, rs):
                    continue
                bad = _concrete_total(rs, s, ir, R, reading, expr)
                if bad is None:
                    ids = [pid for i, pid in enumerate(s.ids) if mask >> i & 1]
                    bad = (f"a hand read as {' + '.join(ids)}{_situation(reading)}", fan, total)
                break
        if bad is not None:
            said, fan, total = bad
            problems.append(Problem(("score_tables", tid), f"score_tables.{tid}",
                                    f"tjmj simulate cannot play these rules {{profile}}: score table {tid} shows "
                                    f"{total!r} for {said} (fan {fan}), and a win's total is a whole number from "
                                    f"min_fan ({rs.min_fan}) to {MAX_TOTAL:,}, what settle() takes",
                                    "keep the table at least min_fan for every winning fan (e.g. max(fan, ...) is "
                                    "not in the language: add, do not subtract) and below the limit"))
    return seen, problems


def _total(ir: Any, h: Any, fan: int, expr: Expr) -> Any:
    try:
        return ir.total(h, fan, expr)
    except (ArithmeticError, TypeError, ValueError) as e:
        return f"nothing ({type(e).__name__})"


def _said(req: dict[str, Any], patterns: tuple[str, ...]) -> str:
    return f"the hand {format_hand(req)} (indicator {req['indicator']}{_knobs(req)}: {' + '.join(patterns)})"


def _situation(reading: Any) -> str:
    tr, hcl, ds = reading.state[2:]
    parts = [f"{hcl} hun tile(s)"] + [f"a declared {t}{' of huns' if h else ''}" for t, h in ds]
    if reading.kong_draw:
        parts.append(f"kong_draw {reading.kong_draw}")
    parts += sorted(reading.flags)
    return " with " + ", ".join(parts)


def _concrete_total(rs: RuleSet, s: Any, ir: Any, R: Any, reading: Any, expr: Expr) -> tuple[str, int, Any] | None:
    for req in itertools.islice(s._concrete(reading), MAX_CONCRETE):
        got = best_of(R, req)
        if got is None or not wins(R, got[0][2], got[0][0]):
            continue
        total = _total(ir, got[1], got[0][0], expr)
        if _out_of_range(total, rs):
            r = runtime.score_request(R, req)
            return _said(req, tuple(r.get("patterns") or ())), got[0][0], total
    return None


# ---- a settlement refusing an outcome the table makes ------------------------------------------------

def table_outcomes(rs: RuleSet, totals: list[int]) -> Iterator[dict[str, Any]]:
    """Outcomes a table can make, the costliest first: dealer 0; a win by the dealer, by seat 1,
    none; zuozhuang when play allows it; lazhuang every non-dealer the most play allows; chan; no kong, four
    kongs of a kind at one seat (the winner's last won on its replacement), four at every seat."""
    play = dict(rs.play)
    lz = int(play["lazhuang_max"])  # an int (play_problems), from 0 to 8 (the schema)
    zz = [True, False] if play["may_zuozhuang"] else [False]
    top = max(totals, default=rs.min_fan)
    low = min(totals, default=rs.min_fan)
    types = table_kong_types(rs)
    from_discard = discard_kong_types(rs)
    # the kinds of a row with all four tiles in play: every row starts with the indicator's own kind (lower.py
    # refuses a hun.huns that does not), of which the face-up indicator leaves three
    hun_kongs = max(1, rs.hun_count - 1)
    kong_win = KongWin(rs) if rs.settlement is not None and rs.settlement.kong_ends_hand is not None \
        and rs.settlement.kong_win_total is not None else None
    for winner, z, lazhuang, chan, kongs_of, total in itertools.product(
            (1, 0, None), zz, ([0, lz, lz, lz], [0, 0, 0, 0]), (True, False), [None] + types + (["every"] if types else []),
            sorted({top, low}, reverse=True)):
        kongs: list[dict[str, Any]] = []
        tile = iter(range(NUM_KINDS))
        seats = [] if kongs_of is None else (range(4) if kongs_of == "every" else [winner if winner is not None else 1])
        for seat in seats:
            typ = (max(types, key=lambda t: dict(rs.kong_points).get(kong_draw_of(t, str(play["added_kong_as"])), 0))
                   if kongs_of == "every" else kongs_of)
            n = min(4, hun_kongs) if typ not in ("exposed", "added", "concealed") else 4
            for i in range(n):
                kongs.append({"seat": seat, "type": typ, "tile": name(next(tile)),
                              "won": seat == winner and i == n - 1})
                if typ in from_discard and i % 2 == 0:  # a kong of a discard names its discarder: the seat before
                    kongs[-1]["from"] = (seat + 3) % 4
        o: dict[str, Any] = {"dealer": 0, "winner": winner, "zuozhuang": z, "lazhuang": lazhuang, "chan": chan,
                             "kongs": kongs}
        if winner is not None:
            o["total"] = total
        yield o
        if kong_win is not None and winner is not None and kongs and kongs[-1]["seat"] == winner:
            # the same, the winner's last kong ending the hand (play.kong_ends_hand), where it does
            last = {k: v for k, v in kongs[-1].items() if k != "won"}
            ended = kong_win_total(rs, kong_win, o, last)
            if ended is not None:
                yield {**o, "total": ended, "kongs": kongs[:-1] + [{**last, "ended": True}]}


def dead_kong_win(rs: RuleSet) -> list[Problem]:
    """play.kong_ends_hand set, but holding for no kong the table makes (of any type it makes, of a
    discard or not): no hand ends by a kong (an option that sets it is dead under these rules)."""
    st = rs.settlement
    if st is None or st.kong_ends_hand is None or st.kong_win_total is None:
        return []
    kw = KongWin(rs)
    types = table_kong_types(rs)
    for typ in types:
        for by in (None, 3):
            k = {"seat": 0, "type": typ, "tile": "1m", "from": by}
            try:
                if kong_win_total(rs, kw, {"dealer": 0, "kongs": [k]}, k) is not None:
                    return []
            except Exception:  # noqa: BLE001 - an expression the interpreter cannot take: settle() says so at play
                return []
    return [Problem(("play", "kong_ends_hand"), "play.kong_ends_hand",
                    f"play.kong_ends_hand ({st.kong_ends_hand.text}) holds for no kong the table makes {{profile}} (the "
                    f"kong types it makes: {', '.join(types) or 'none'}): no hand ends by a kong, so what sets it "
                    "changes nothing",
                    "an option that sets it conflicts with the claims or play values that make no such kong")]


def settlement_refusals(rs: RuleSet, module: Any, totals: list[int]) -> list[Problem]:
    for o in table_outcomes(rs, totals):
        st = module.settle(o)
        err = st.get("error")
        if not err:
            continue
        code, msg = str(err.get("code")), str(err.get("message"))
        if err.get("field") == "total":
            ended = next((k for k in o["kongs"] if k.get("ended")), None)
            if ended is None:
                continue  # a total out of range: the score table's problem, said there
            # the total of a win a kong ended the hand with is play.kong_win_total's, no score table's
            return [Problem(("play", "kong_win_total"), "play.kong_win_total",
                            "tjmj simulate cannot play these rules {profile}: "
                            + kong_total_refused(rs, str(ended["type"]), o.get("total")),
                            "keep play.kong_win_total within that range for every kong that ends a hand (e.g. "
                            "k.points + 1 where a kong's points are below min_fan), or end the hand by fewer "
                            "kongs in play.kong_ends_hand")]
        rules = dict((r.id, r) for r in rs.settlement.outcome_rules) if rs.settlement is not None else {}
        if code in rules:
            path: tuple[str, ...] = ("settlement", "outcome_rules", code, "error_when")
            what = f"outcome rule {code}"
        else:
            rid = next((p.id for p in rs.settlement.payments if f"payment rule {p.id}:" in msg), None) \
                if rs.settlement is not None else None
            path = ("settlement", "payments", rid, "amount") if rid else ("settlement",)
            what = f"payment rule {rid}" if rid else "the settlement"
        return [Problem(path, f"settlement.{code if code in rules else (rid or 'payments')}",
                        f"tjmj simulate cannot play these rules {{profile}}: {what} refuses the outcome "
                        f"{json.dumps(o, ensure_ascii=False)}, which the table can make: {msg}",
                        "the outcomes a table makes must settle: every payment and balance a whole number "
                        "within 2^53 - 1, no outcome rule refusing what play allows; smaller units or "
                        "multipliers, or an outcome rule only for what the table never makes")]
    return []


def _other_values(rs: RuleSet, scorers: Any, totals: list[int]) -> list[Problem]:
    """The settlement under each value of an option acting on settlement or play, the profile's
    other choices kept (the first refusal, its message naming the option)."""
    chosen = dict(rs.choices)
    for o in rs.options:
        if o.acts_on not in ("settlement", "play"):
            continue
        for v in o.choices:
            if str(v) == str(chosen.get(o.id)):
                continue
            try:
                other, module = scorers.get(rs.profile or "", {o.id: v})
            except Exception:  # a value the rules do not compile with: option-broken says so
                continue
            for p in settlement_refusals(other, module, totals):
                return [Problem(p.path, p.subject, p.message.replace("{profile}", f"{{profile}} with option {o.id}={v}"),
                                p.hint)]
    return []

