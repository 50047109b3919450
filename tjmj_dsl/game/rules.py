"""What the game engine reads from the compiled rules: the claims, the play
settings and the hun kinds, and the scorer's public functions (score_tiles,
score, waits, settle). Nothing here is a rule of any game: each value comes
from the rule file, and a missing one is an error, not a default."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Protocol

from ..notation import format_hand
from ..tiles import NAMES, TileError, format_tiles, name, parse_tile, parse_tiles
from ..engine.contract import KONG_TYPES, MAX_TOTAL
from ..engine.settle import make_outcome
from ..expr.bets import Bets
from ..ir import NO_KONG, RuleSet
from .facts import GameFacts

# how a kong is made (exposed from a discard, concealed of four held, added onto a pung): a kong of
# hun tiles made each way has the kong type play.hun_kong_<way>_as gives it
KONG_WAYS = ("exposed", "concealed", "added")
# a table meld's type in a scoring request (and a seat's view), by how it was made
REQUEST_MELD_TYPES = {"pung": "pung", "exposed": "kong", "added": "kong", "concealed": "concealed_kong"}
# play: keys the engine reads, with the type each must have
PLAY_KEYS: dict[str, type] = {
    "deal_start": int, "replacement_at_indicator": str, "no_claim_in_last_tiles": int, "hun_discard_bars_win": bool,
    "may_discard_hun": bool,
    "added_kong_as": str, "added_kong_from_hand": bool, "first_draw_ends_on_meld": bool, "may_zuozhuang": bool,
    "lazhuang_max": int, "dealer_first_draw_flag": str, "first_draw_flag": str, "ready_declaration_flag": str,
    **{f"hun_kong_{way}_as": str for way in KONG_WAYS},
}
# play: keys for the value player (a way to play, not a rule): optional, absent means no hint
HINT_KEYS: dict[str, type] = {"value_player_keep": str, "value_player_run_ranks": int, "value_player_hun_kong_points": int}
# a menu action that makes a kong → how the kong is made (GameRules.kong_type's `made`)
KONG_MADE_BY = {"concealed_kong": "concealed", "added_kong": "added", "kong": "exposed"}
CLAIM_KEYS = ("pung", "kong", "hun_pung", "hun_kong", "chow", "win_on_discard", "rob_kong")


class Scorer(Protocol):
    """What the engine asks of a scorer: api.Scorer, or a generated scorer beside its rule set (the
    rulebook plays a hand with one). A protocol, so that the engine does not import the API that
    compiles rules, and the backends may play a hand."""

    ruleset: RuleSet

    def score(self, request: Any) -> Any: ...

    def score_tiles(self, concealed: Any, draw: Any, indicator: Any, *args: Any, **kwargs: Any) -> Any: ...

    def waits(self, request: Any) -> Any: ...

    def settle(self, outcome: Any) -> Any: ...


class GameRulesError(ValueError):
    """The rules ask for something the engine cannot play, or lack a setting it needs."""


@dataclass(frozen=True)
class GameRules:
    scorer: Scorer
    name: str
    profile: str
    sha256: str
    options: tuple[tuple[str, Any], ...]  # every option's value
    chow_melds: bool  # chows exist in a winning hand (not as claims)
    pung: bool
    kong: bool
    hun_pung: bool
    hun_kong: bool
    deal_start: int
    take_at_indicator: bool
    no_claim_in_last_tiles: int
    hun_discard_bars_win: bool
    may_discard_hun: bool  # false: a hun is offered as a discard only when every tile that could go is one
    added_kong_as: str
    added_kong_from_hand: bool
    hun_kong_as: tuple[tuple[str, str], ...]  # how a kong of huns was made (exposed, concealed, added) → its kong type
    first_draw_ends_on_meld: bool
    may_zuozhuang: bool
    lazhuang_max: int
    dealer_first_draw_flag: str
    first_draw_flag: str
    ready_declaration_flag: str
    flags: tuple[str, ...]
    kong_points: tuple[tuple[str, int], ...]
    hun_count: int
    cycles: tuple[tuple[int, ...], ...]
    hun_table: tuple[tuple[int, ...], ...]  # indicator → its hun kinds (the rule file's hun.huns, compiled)
    first_dealer: int | None = 0  # who deals a game's first hand (play.first_dealer): a seat, or None: drawn from the seed
    keep_tiles: frozenset[int] = frozenset()  # the value player holds on to these (play.value_player_keep)
    run_ranks: int = 0  # ... and to a suit's tiles once it holds this many of its nine ranks; 0: never
    hun_kong_points: int = 0  # ... and makes a kong of its huns worth at least this many points; 0: never
    kong_win: "KongWin | None" = None  # play.kong_ends_hand: which kong ends the hand as its maker's win; None: none
    # the bets' expressions over the game so far (play.zuozhuang_when, play.lazhuang_most; expr/bets.py); None:
    # none, the bets are the hand's own fixed limits and a record carries no game facts
    bets: Bets | None = None

    def may_sit(self, game: GameFacts, dealer: int) -> bool:
        """Whether the dealer is asked to sit (zuozhuang) this hand, the game so far being `game`."""
        return self.may_zuozhuang and (self.bets is None or self.bets.may_sit(game, dealer))

    def most_pulls(self, game: GameFacts, dealer: int, seat: int, zuozhuang: bool) -> int:
        """How many times non-dealer `seat` may pull (lazhuang) this hand: 0 to lazhuang_max, by the game so far."""
        return self.lazhuang_max if self.bets is None else self.bets.most(game, dealer, seat, zuozhuang,
                                                                          self.lazhuang_max)

    def hun_kinds(self, indicator: int) -> tuple[int, ...]:
        return self.hun_table[indicator]

    def kong_draw(self, kong_type: str) -> str:
        """The scoring request's kong_draw for a win on this kong's replacement."""
        return kong_draw_of(kong_type, self.added_kong_as)

    def kong_points_of(self, kong_type: str) -> int:
        return dict(self.kong_points)[self.kong_draw(kong_type)]

    def may_kong_huns(self, made: str) -> bool:
        """Whether a kong of hun tiles may be made this way (exposed, concealed, added): its
        play.hun_kong_*_as is not `none`."""
        return dict(self.hun_kong_as)[made] != NO_KONG

    def kong_type(self, made: str, of_huns: bool) -> str:
        """A kong's type from how it was made (exposed, concealed, added); a kong of hun
        tiles takes the type the rule file gives it (play.hun_kong_*_as)."""
        return dict(self.hun_kong_as)[made] if of_huns else made

    def kong_of_action(self, action: str, of_huns: bool) -> str:
        """The type of the kong a menu's action makes: concealed_kong, added_kong, or a claim's kong."""
        return self.kong_type(KONG_MADE_BY[action], of_huns)


class KongWin:
    """play.kong_ends_hand and play.kong_win_total, evaluated on a kong just made (the rule file's expressions
    over `k`, in the settlement's words, by the reference interpreter): whether the hand ends at once as the
    kong maker's win, and that win's total."""

    def __init__(self, rs: RuleSet) -> None:
        from ..expr.settle import KONG, SettleInterpreter, checker, settle_env
        st = rs.settlement
        assert st is not None and st.kong_ends_hand is not None and st.kong_win_total is not None
        self.play = dict(st.play)
        ndefs = {d.name: len(d.params) for d in st.definitions}
        types: dict[int, str] = {}
        for node, extra in [(d.body.ast, dict(d.params)) for d in st.definitions] + \
                [(st.kong_ends_hand.ast, {"k": KONG}), (st.kong_win_total.ast, {"k": KONG})]:
            ch = checker(settle_env(self.play, ndefs, extra))
            ch.check(node)
            types.update(ch.types)
        self.ends, self.total = st.kong_ends_hand.ast, st.kong_win_total.ast
        self._i = SettleInterpreter(types, {d.name: (tuple(n for n, _ in d.params), d.body.ast) for d in st.definitions})

    def __call__(self, o: Any, kong: tuple[Any, ...]) -> int | None:
        """The total of the win the kong ends the hand with (o: the outcome so far, engine.settle.Outcome),
        or None: the hand goes on."""
        from ..expr.settle import outcome_env
        env = {**outcome_env(o, self.play), "k": kong}
        if self._i.eval(self.ends, env) is not True:
            return None
        total = self._i.eval(self.total, env)
        if isinstance(total, bool) or not isinstance(total, int):
            raise GameRulesError(f"play.kong_win_total gives {total!r}, not a whole number")
        return total


def kong_draw_of(kong_type: str, added_kong_as: str) -> str:
    """A kong type's kong_draw (and kong_points key): an added kong counts as play.added_kong_as."""
    return added_kong_as if kong_type == "added" else kong_type


def play_problems(rs: Any) -> list[tuple[tuple[str, ...], str]]:
    """Why the game engine cannot play a compiled rule set (empty: it can), each with
    the rule file's path it is about: what `tjmj simulate` refuses the rules for, and
    `tjmj check` warns of at that path."""
    play = dict(rs.play)
    claims = dict(rs.claims)
    problems: list[tuple[tuple[str, ...], str]] = []
    for k, t in PLAY_KEYS.items():
        if k not in play:
            problems.append((("play", k), f"play.{k} is missing"))
        elif not isinstance(play[k], t) or (t is int and isinstance(play[k], bool)):
            problems.append((("play", k), f"play.{k} must be a {t.__name__}, not {play[k]!r}"))
    for k, t in HINT_KEYS.items():
        if k in play and (not isinstance(play[k], t) or isinstance(play[k], bool)):
            problems.append((("play", k), f"play.{k} must be a {t.__name__}, not {play[k]!r}"))
    first = play.get("first_dealer", 0)
    if first != "random" and (first.__class__ is not int or not 0 <= first <= 3):
        problems.append((("play", "first_dealer"), f"play.first_dealer is random or a seat 0-3, not {first!r}"))
    if isinstance(play.get("value_player_keep"), str):
        try:
            parse_tiles(play["value_player_keep"])
        except TileError as e:
            problems.append((("play", "value_player_keep"), f"play.value_player_keep: {e}"))
    for k in CLAIM_KEYS:
        if k not in claims:
            problems.append((("claims", k), f"claims.{k} is missing"))
    if rs.settlement is None:
        problems.append((("settlement",), "the rules have no settlement: section"))
    if not problems:
        for k, what in (("chow", "chow claims"), ("win_on_discard", "wins on a discard"), ("rob_kong", "robbing a kong")):
            if claims[k]:
                problems.append((("claims", k), f"claims.{k} is true: the engine plays no {what}"))
        if play["replacement_at_indicator"] not in ("take", "skip"):
            problems.append((("play", "replacement_at_indicator"), "play.replacement_at_indicator is take or skip"))
        for k in ("dealer_first_draw_flag", "first_draw_flag", "ready_declaration_flag"):
            if play[k] and play[k] not in {f for f, _ in rs.flags}:
                problems.append((("play", k), f"play.{k} names no request flag {play[k]!r}"))
        if play["added_kong_as"] not in dict(rs.kong_points):
            problems.append((("play", "added_kong_as"), f"play.added_kong_as names no kong_points key {play['added_kong_as']!r}"))
        for made in KONG_WAYS:
            k = f"hun_kong_{made}_as"
            typ = play[k]
            if typ == NO_KONG:
                continue
            if typ not in KONG_TYPES:
                problems.append((("play", k), f"play.{k} is one of {', '.join(KONG_TYPES)} or {NO_KONG}, not {typ!r}"))
            elif kong_draw_of(typ, play["added_kong_as"]) not in dict(rs.kong_points):
                problems.append((("play", k), f"play.{k} names a kong type with no kong_points key: {typ!r}"))
    if not problems:
        problems += kong_win_problems(rs)
    return problems


def kong_win_problems(rs: Any) -> list[tuple[tuple[str, ...], str]]:
    """A kong that ends the hand (play.kong_ends_hand) as a win whose total (play.kong_win_total) settle()
    refuses: the first hand that has such a kong stops the table. Each kong type the table makes is tried, of
    every tile kind (any kind is a hun kind under some indicator), made by each seat (the dealer is seat 0), of
    a discard of each other seat where the type is one and of one's own tiles where it is one, with and without
    zuozhuang and lazhuang (a review: a total that fell short for the kongs of one suit alone passed, tried on
    1m only, and stopped the tables of every room that met one)."""
    st = rs.settlement
    if st is None or st.kong_ends_hand is None or st.kong_win_total is None:
        return []
    kw = KongWin(rs)
    play = dict(rs.play)
    ways = table_kongs(rs)
    zz, lz = bool(play.get("may_zuozhuang")), int(play.get("lazhuang_max") or 0)
    bets = [(False, [0] * 4)] + ([(True, [0] * 4)] if zz else []) + ([(zz, [0, lz, lz, lz]), (zz, [lz, 0, lz, lz])]
                                                                      if lz else [])
    for typ in table_kong_types(rs):
        for by_discard in (d for d in (False, True) if (typ, d) in ways):  # of one's own tiles, then of a discard
            makers = [(seat, (seat + d) % 4 if by_discard else None) for seat in range(4) for d in ((3, 2, 1) if
                                                                                                 by_discard else (0,))]
            for (seat, giver), tile, (sat, pulled) in itertools.product(makers, NAMES, bets):
                k = {"seat": seat, "type": typ, "tile": tile, "from": giver}
                try:
                    total = kong_win_total(rs, kw, {"dealer": 0, "zuozhuang": sat, "lazhuang": pulled, "kongs": [k]}, k)
                except GameRulesError as e:
                    return [(("play", "kong_win_total"), str(e))]
                except Exception:  # noqa: BLE001 - an expression the interpreter cannot take: settle() says so at play
                    return []
                if total is not None and not rs.min_fan <= total <= MAX_TOTAL:
                    of = f" of seat {giver}'s discard" if by_discard else ""
                    made = (f"of {tile} made by seat {seat}{of} (the dealer is seat 0){', zuozhuang' if sat else ''}"
                            f"{f', lazhuang {pulled}' if any(pulled) else ''}")
                    return [(("play", "kong_win_total"), kong_total_refused(rs, typ, total, made))]
    return []


def kong_total_refused(rs: Any, typ: str, total: Any, made: str = "") -> str:
    """Why a kong of type `typ` ending the hand as a win of `total` cannot be played (`made`: how it was made)."""
    return (f"a kong of type {typ} ends the hand (play.kong_ends_hand) as a win of total {total!r} "
            f"(play.kong_win_total{'; the kong ' + made if made else ''}), and a win's total is a whole number from "
            f"min_fan ({rs.min_fan}) to {MAX_TOTAL:,}")


def discard_kong_types(rs: Any) -> set[str]:
    """The kong types a claim of a discard makes (their kongs name a discarder): exposed, and the type a kong of
    three huns and a discarded one counts as where the claims offer it."""
    return {typ for typ, of_discard in table_kongs(rs) if of_discard}


def refused_plays(rs: Any, score_tiles: Any) -> list[tuple[tuple[str, ...], str]]:
    """The hands the table would ask the scorer about that the rules refuse (the table
    could not go on: it asks only about hands its own claims and settings made), each with
    the rule file's path that lets the table make them: a pung of huns where claims.hun_pung
    offers one, a kong of huns each way play lets one be made (and won on its replacement),
    each request flag play sets. One small hand for each, asked of `score_tiles` (the
    scorer's typed path, as the table asks); empty: none refused. For rules play_problems
    finds nothing wrong with."""
    play = dict(rs.play)
    offered = rs.claims_offered()
    # an indicator none of whose huns is among the tiles below (1m-9m, 1p-4p): an honor's, as a rule
    ind = next((k for k in (*range(27, 34), *range(13, 27)) if not set(rs.hun_table[k]) & set(range(13))), 27)
    hun = rs.hun_table[ind][-1]
    out: list[tuple[tuple[str, ...], str]] = []

    def refused(melds: list[tuple[str, int]], kd: str | None, flags: tuple[str, ...]) -> str | None:
        # three chows and a pair beside the meld, or four chows and a pair
        concealed, draw = (parse_tiles("123456789m1p"), parse_tile("1p")) if melds else \
            (parse_tiles("123456789m1234p"), parse_tile("4p"))
        c = score_tiles(concealed, draw, ind, melds, kd, flags)
        if c.reason != "invalid_request":
            return None
        hand = format_hand({"concealed": format_tiles(concealed), "draw": name(draw),
                            "melds": [{"type": t, "tile": name(k)} for t, k in melds]})
        knobs = "".join(f", {f}" for f in flags) + (f", kong_draw {kd}" if kd else "")
        return f"{c.error} (the hand {hand} (indicator {name(ind)}{knobs}))"

    if offered.get("hun_pung"):
        why = refused([("pung", hun)], None, ())
        if why:
            out.append((("claims", "hun_pung"), f"claims.hun_pung is true, but a hand with a pung of huns is refused: {why}"))
    for made in KONG_WAYS:
        k = f"hun_kong_{made}_as"
        may = {"exposed": offered.get("hun_kong"), "added": offered.get("hun_pung")}.get(made, True)
        if play[k] == NO_KONG or not may or hun == ind:  # four of the indicator's kind: one is on the wall
            continue
        meld = (REQUEST_MELD_TYPES[made], hun)
        for kd in (None, kong_draw_of(play[k], play["added_kong_as"])):
            why = refused([meld], kd, ())
            if why:
                out.append((("play", k), f"play.{k} lets a kong of huns be made, but a hand with one is refused: {why}"))
                break
    for k in ("dealer_first_draw_flag", "first_draw_flag", "ready_declaration_flag"):
        if play[k]:
            why = refused([], None, (play[k],))
            if why:
                out.append((("play", k), f"play.{k} sets {play[k]}, but a hand with it is refused: {why}"))
    return out


def table_kong_types(rs: Any) -> list[str]:
    """The kong types of the outcomes a table makes (a settlement's kongs)."""
    return list(dict.fromkeys(typ for typ, _ in table_kongs(rs)))


def table_kongs(rs: Any) -> list[tuple[str, bool]]:
    """(type, whether made of a discard) for each way the table makes a kong: a discard claimed (exposed), four of
    one's own (concealed), a claimed pung added to (where pungs are claimed); and the same of huns where the claims
    offer them, as the type play counts a hun kong made that way (none: no kong)."""
    play, claims, offered = dict(rs.play), dict(rs.claims), rs.claims_offered()
    if not claims.get("kong"):
        return []
    out = [("exposed", True), ("concealed", False)] + ([("added", False)] if claims.get("pung") else [])
    for made, may, of_discard in (("exposed", offered.get("hun_kong"), True), ("concealed", True, False),
                                  ("added", offered.get("hun_pung"), False)):
        typ = play.get(f"hun_kong_{made}_as")
        if may and typ != NO_KONG and typ in KONG_TYPES:
            out.append((str(typ), of_discard))
    return out


def kong_win_total(rs: Any, kong_win: KongWin, o: dict[str, Any], k: dict[str, Any]) -> int | None:
    """The total of the win kong k (an outcome's kong, of outcome o) ends the hand with, or None."""
    play = dict(rs.play)
    kongs = []
    for x in o.get("kongs") or []:
        points = dict(rs.kong_points).get(kong_draw_of(str(x["type"]), str(play["added_kong_as"])), 0)
        kongs.append((x["seat"], x["type"], parse_tile(x["tile"]), points, False, x.get("from"), False))
    out = make_outcome(dealer=o["dealer"], zuozhuang=bool(o.get("zuozhuang")), lazhuang=tuple(o.get("lazhuang") or [0] * 4),
                       winner=None, total=0, chan=False, kongs=kongs, xianggong=frozenset(), score_table=rs.score_table,
                       rounds=[])  # a kong ends the hand: its go-rounds do not decide whether it does
    return kong_win(out, out.kongs[-1])


def game_rules(scorer: Scorer) -> GameRules:
    rs = scorer.ruleset
    play = dict(rs.play)
    claims = dict(rs.claims)
    problems = play_problems(rs) or refused_plays(rs, scorer.score_tiles)
    if problems:
        raise GameRulesError("these rules cannot be played: " + "; ".join(m for _, m in problems))
    first = play.get("first_dealer", 0)
    keep = frozenset(parse_tiles(play["value_player_keep"])) if isinstance(play.get("value_player_keep"), str) \
        else frozenset()
    offered = rs.claims_offered()
    return GameRules(
        scorer=scorer, name=rs.name, profile=rs.profile, sha256=rs.source_sha256, options=rs.choices,
        chow_melds=rs.chow, pung=bool(claims["pung"]), kong=bool(claims["kong"]), hun_pung=offered["hun_pung"],
        hun_kong=offered["hun_kong"], deal_start=play["deal_start"],
        take_at_indicator=play["replacement_at_indicator"] == "take",
        no_claim_in_last_tiles=play["no_claim_in_last_tiles"], hun_discard_bars_win=play["hun_discard_bars_win"],
        may_discard_hun=play["may_discard_hun"],
        added_kong_as=play["added_kong_as"], added_kong_from_hand=play["added_kong_from_hand"],
        hun_kong_as=tuple((made, play[f"hun_kong_{made}_as"]) for made in KONG_WAYS),
        first_draw_ends_on_meld=play["first_draw_ends_on_meld"], may_zuozhuang=play["may_zuozhuang"],
        lazhuang_max=play["lazhuang_max"], dealer_first_draw_flag=play["dealer_first_draw_flag"],
        first_draw_flag=play["first_draw_flag"], ready_declaration_flag=play["ready_declaration_flag"],
        flags=tuple(f for f, _ in rs.flags), kong_points=rs.kong_points, hun_count=rs.hun_count, cycles=rs.cycles,
        hun_table=rs.hun_table,
        first_dealer=None if first == "random" else first,
        keep_tiles=keep, run_ranks=int(play.get("value_player_run_ranks", 0)),
        hun_kong_points=int(play.get("value_player_hun_kong_points", 0)),
        kong_win=KongWin(rs) if rs.settlement is not None and rs.settlement.kong_ends_hand is not None
        and rs.settlement.kong_win_total is not None else None,
        bets=Bets(rs.bets, play) if getattr(rs, "bets", ()) else None,
    )
