"""One hand at the table: bets, deal, flip, turns, claims, kongs, the end —
mechanics only. What a variant changes comes from GameRules (the rule file's
claims and play settings); every win is scored by the compiled scorer with a
request built from the table, and the hand is paid by the scorer's settle().

A turn: the player draws (or has just claimed), then wins, makes a concealed
or added kong (a replacement follows from the tail), or discards. After a
discard the one player who can may pong or kong it. Actions are (type, tile)
pairs — ("discard", 5), ("win", None), ("concealed_kong", 9), ("added_kong", 9),
("pong", 5), ("kong", 5), ("pass", None) — and each player picks one from the
menu of legal ones it is given; anything else raises IllegalAction.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from itertools import compress
from typing import Any, Protocol

from ..engine.contract import ERROR_CODES
from ..engine.result import Claim
from ..engine.settle import make_outcome
from ..notation import format_hand
from ..tiles import NAMES
from .facts import GameFacts
from .rules import REQUEST_MELD_TYPES, GameRules
from .shape import completing, part_key, short, shortfalls
from .wall import Wall, check_deal

Action = tuple[str, Any]
PASS: Action = ("pass", None)
WIN: Action = ("win", None)
DISCARD: tuple[Action, ...] = tuple(("discard", k) for k in range(34))
# who takes each tile of the deal (seats after the dealer): 3 rounds of 4, then 1 each, then the dealer's 14th
DEAL_TO: tuple[int, ...] = tuple(i for n in (4, 4, 4, 1) for i in range(4) for _ in range(n)) + (0,)


class IllegalAction(ValueError):
    """A player (or a replayed record) chose an action outside its menu."""


class EngineError(RuntimeError):
    """The scorer (or the settlement) refused what the table built: rules `tjmj check` warns of
    as unplayable, or a bug of the engine. Its message names the rule and the hand (or outcome)."""


def refusal_text(answer: Any, request: dict[str, Any], seat: int, what: str = "score") -> str:
    """One line: which rule (or which of the contract's errors) refused which hand the table built (`answer`: the
    scorer's refusal)."""
    err = answer.get("error") or {} if isinstance(answer, dict) else {}
    hand = format_hand(request)
    flags = sorted(k for k, v in request.items() if v is True)
    extra = "".join(f", {k}" for k in flags) + (f", kong_draw {request['kong_draw']}" if request.get("kong_draw") else "")
    code = err.get("code")
    what_refused = f"error {code}" if code in ERROR_CODES else f"rule {code}"  # the contract's own, or a request rule
    return (f"the scorer refused the table's {what} request for seat {seat}: {what_refused} "
            f"({err.get('message')}) refused {hand} (indicator {request['indicator']}{extra}); "
            "`tjmj check` reports rules that refuse hands the table builds")


class Player(Protocol):
    """What the table asks a player. `view` shows only what that seat may see;
    every answer must be one of the menu's actions (or a count in range)."""

    name: str

    def begin(self, view: "SeatView", rng: random.Random) -> None: ...
    def zuozhuang(self, view: "SeatView") -> bool: ...
    def lazhuang(self, view: "SeatView", most: int) -> int: ...
    def declare_ready(self, view: "SeatView") -> bool: ...
    def act(self, view: "SeatView", menu: list[Action]) -> Action: ...
    def claim(self, view: "SeatView", menu: list[Action]) -> Action: ...


@dataclass
class HandResult:
    """What happened: the table's facts (the record is built from these)."""

    dealer: int
    zuozhuang: bool
    lazhuang: list[int]
    dice: tuple[tuple[int, int], tuple[int, int]]
    wall: list[int]
    indicator: int
    deal: list[list[int]]
    events: list[tuple[Any, ...]]  # (seat, type, tile, extra): extra is replacement (draw) or from (pong/kong)
    winner: int | None = None
    request: dict[str, Any] | None = None  # the scoring request sent for the winner (JSONL form)
    claim: Claim | None = None
    kongs: list[list[Any]] = field(default_factory=list)  # [seat, type, tile, won, from, ended]: from, the seat whose
    # discard was konged; ended, the kong ended the hand as its maker's win (play.kong_ends_hand)
    rounds: list[tuple[list[int], bool]] = field(default_factory=list)  # the go-rounds: (discards, one was claimed)
    chan: bool = False  # set by the settlement: a payment of reason chan was made
    xianggong: list[int] = field(default_factory=list)
    ready: list[int] = field(default_factory=list)  # seats that declared tianting
    turns: int = 0  # draws made (the deal aside)
    settlement: dict[str, Any] | None = None
    win_total: int | None = None  # the total of a win a kong ended the hand with (no scoring request, no claim)
    game: GameFacts = field(default_factory=GameFacts)  # the game before this hand, the bets were offered under

    def outcome(self) -> dict[str, Any]:
        """The settle() input for this hand."""
        o: dict[str, Any] = {"dealer": self.dealer, "zuozhuang": self.zuozhuang, "lazhuang": list(self.lazhuang),
                             "winner": self.winner, "xianggong": list(self.xianggong),
                             "rounds": [{"discards": [NAMES[t] for t in ds], "claimed": c} for ds, c in self.rounds],
                             "kongs": [{"seat": s, "type": t, "tile": NAMES[k], "won": w, "from": f, "ended": e}
                                       for s, t, k, w, f, e in self.kongs]}
        if self.winner is not None:
            assert self.claim is not None or self.win_total is not None
            o["total"] = self.claim.total if self.claim is not None else self.win_total
        return o


class Table:
    """One hand. Build it with the rules, the wall (136 tiles, physical order),
    the dealer and the two rolls; `play(players)` runs it to the end."""

    def __init__(self, rules: GameRules, wall: list[int], dealer: int, dice: tuple[tuple[int, int], tuple[int, int]],
                 game: GameFacts | None = None) -> None:
        check_deal(wall, dealer, dice)  # ValueError naming what is wrong
        self.rules = rules
        self.game = GameFacts() if game is None else game  # the game so far: the bets' expressions read it
        self.dealer = dealer
        self.dice = dice
        self.tiles = list(wall)
        self.wall = Wall(self.tiles, dealer, dice[0], dice[1], rules.deal_start, rules.take_at_indicator)
        self.indicator = self.wall.indicator
        self.hun_kinds = rules.hun_kinds(self.indicator)
        self.hun_set = frozenset(self.hun_kinds)
        self.counts = [[0] * 34 for _ in range(4)]
        # per seat the packed counts of its natural tiles: suits m p s and the honors (shape.short reads them)
        self.keys = [[0, 0, 0, 0] for _ in range(4)]
        self.part = [None if t in self.hun_set else part_key(t) for t in range(34)]
        self.hun_tuple = tuple(sorted(self.hun_set))  # the kinds whose part is None
        self.huns = [0] * 4
        self.melds: list[list[list[Any]]] = [[] for _ in range(4)]  # [type, tile, from]: pung / exposed / added / concealed
        self.discards: list[list[int]] = [[] for _ in range(4)]
        self.xianggong = [False] * 4
        self.ready = [False] * 4
        self.events: list[tuple[Any, ...]] = []
        self.kongs: list[list[Any]] = []
        self.melded = False  # anyone has ponged or konged
        self.first_draw_done = [False] * 4
        self.dealer_acted = False
        self.n_discards = 0
        self.discarded: list[int] = []  # every discard of the hand, in order
        self.claimed_at: set[int] = set()  # the indexes in it of the claimed ones
        self.drawn: int | None = None
        self.drawn_by = -1  # the seat whose turn it is: only it sees `drawn`
        self.dealt = False  # the deal is done and the indicator flipped (the bets come before)
        self._offer: tuple[Claim | None, dict[str, Any] | None] = (None, None)
        self.last_discard: tuple[int, int] | None = None
        self.turns = 0
        self.zuozhuang = False
        self.lazhuang = [0] * 4
        self.views = [SeatView(self, s) for s in range(4)]

    # ---------------------------------------------------------------- tiles in hand

    def _add(self, s: int, t: int) -> None:
        self.counts[s][t] += 1
        pk = self.part[t]
        if pk is None:
            self.huns[s] += 1
        else:
            self.keys[s][pk[0]] += pk[1]

    def _remove(self, s: int, t: int, n: int = 1) -> None:
        c = self.counts[s]
        if c[t] < n:
            raise IllegalAction(f"seat {s} holds {c[t]} {NAMES[t]}, not {n}")
        c[t] -= n
        pk = self.part[t]
        if pk is None:
            self.huns[s] -= n
        else:
            self.keys[s][pk[0]] -= n * pk[1]

    def concealed(self, s: int) -> list[int]:
        c = self.counts[s]
        return [k for k in range(34) for _ in range(c[k])]

    def missing(self, s: int, extra_huns: int = 0) -> int:
        """Huns short of a winning shape (0: the shape is there); the engine's gate before the scorer."""
        return short(self.keys[s], self.huns[s] + extra_huns, self.rules.chow_melds)

    def request_melds(self, s: int) -> list[tuple[str, int]]:
        return [(REQUEST_MELD_TYPES[m[0]], m[1]) for m in self.melds[s]]

    # ---------------------------------------------------------------- the hand

    def play(self, players: list[Player], rngs: list[random.Random]) -> HandResult:
        d = self.dealer
        for s in range(4):
            players[s].begin(self.views[s], rngs[s])
        game = self.game
        if self.rules.may_sit(game, d):
            z = players[d].zuozhuang(self.views[d])
            if z is not True and z is not False:
                raise IllegalAction(f"seat {d} answered {z!r} to sitting (zuozhuang); True or False")
            self.zuozhuang = z
        for s in range(4):
            most = self.rules.most_pulls(game, d, s, self.zuozhuang) if s != d else 0
            if most > 0:
                n = players[s].lazhuang(self.views[s], most)
                if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= most:
                    raise IllegalAction(f"seat {s} chose to raise (lazhuang) {n!r} times; 0 to {most} are allowed"
                                        + (" (the game so far)" if most < self.rules.lazhuang_max else ""))
                self.lazhuang[s] = n
        deal = self._deal()
        self.dealt = True
        res = HandResult(d, self.zuozhuang, list(self.lazhuang), self.dice, self.tiles, self.indicator,
                         [list(h) for h in deal], self.events, game=game)
        self._run(players, deal[d][-1])
        res.winner = self.winner
        res.request = self.win_request
        res.claim = self.win_claim
        res.win_total = self.win_total
        res.kongs = self.kongs
        res.rounds = self.go_rounds()
        res.xianggong = [s for s in range(4) if self.xianggong[s]]
        res.ready = [s for s in range(4) if self.ready[s]]
        res.turns = self.turns
        return res

    def _deal(self) -> list[list[int]]:
        """Three rounds of 4 tiles, then 1 each, from the dealer on in turn order; the dealer takes one more (14)."""
        d = self.dealer
        hands: list[list[int]] = [[] for _ in range(4)]
        tiles = self.wall.deal(len(DEAL_TO))
        for i, off in enumerate(DEAL_TO):
            hands[(d + off) % 4].append(tiles[i])
        for s in range(4):
            for t in hands[s]:
                self._add(s, t)
        return hands

    def _run(self, players: list[Player], dealt_last: int) -> None:
        self.winner: int | None = None
        self.win_request: dict[str, Any] | None = None
        self.win_claim: Claim | None = None
        self.win_total: int | None = None
        views = self.views
        event = self.events.append
        draw = self.wall.draw
        act_menu = self._act_menu
        claim_menu = self._claim_menu
        bars = self.rules.hun_discard_bars_win
        hun_set = self.hun_set
        dealer = self.dealer
        declare = bool(self.rules.ready_declaration_flag)
        counts, part, huns, keys = self.counts, self.part, self.huns, self.keys
        s = dealer
        drawn: int | None = dealt_last  # the dealer's 14th tile stands as the draw for a dealt win (tianhu)
        kong_type: str | None = None
        chain = 0  # the kongs made in a row this turn, each on the previous one's replacement (the request's kong_chain)
        after_pong = False
        while True:
            self.drawn, self.drawn_by = drawn, s
            menu = act_menu(s, drawn, kong_type, after_pong, chain)
            a = players[s].act(views[s], menu)
            if a not in menu:
                raise IllegalAction(f"seat {s}: {a!r} is not one of {menu}")
            typ, t = a
            if typ == "win":
                event((s, "win", drawn, None))
                self.winner = s
                self.win_claim, self.win_request = self._offer
                if kong_type is not None:
                    mine = [k for k in self.kongs if k[0] == s]
                    mine[-1][3] = True
                return
            if s == dealer:
                self.dealer_acted = True
            if not after_pong:
                self.first_draw_done[s] = True
            if typ != "discard":  # a concealed or added kong
                self._own_kong(s, typ, t)
                if self._kong_ends(s):
                    return
                drawn = self._replace(s)
                chain = chain + 1 if kong_type is not None else 1  # made on a replacement: the chain goes on
                kong_type = self.kongs[-1][1]
                after_pong = False
                continue
            c = counts[s]  # inlined _remove(s, t): the hot path of every turn
            if not c[t]:
                raise IllegalAction(f"seat {s} holds no {NAMES[t]}")
            c[t] -= 1
            pk = part[t]
            if pk is None:
                huns[s] -= 1
            else:
                keys[s][pk[0]] -= pk[1]
            self.discards[s].append(t)
            event((s, "discard", t, None))
            self.last_discard = (s, t)
            self.n_discards += 1
            self.discarded.append(t)
            if declare and self.n_discards == 1 and s == dealer:
                self._declarations(players)
            if bars and t in hun_set:
                self.xianggong[s] = True
            if counts[(s + 1) % 4][t] >= 2 or counts[(s + 2) % 4][t] >= 2 or counts[(s + 3) % 4][t] >= 2:
                claimer, cmenu = claim_menu(s, t)
            else:
                claimer = -1
            if claimer >= 0:
                ca = players[claimer].claim(views[claimer], cmenu)
                if ca not in cmenu:
                    raise IllegalAction(f"seat {claimer}: {ca!r} is not one of {cmenu}")
                if ca[0] != "pass":
                    self._claimed(claimer, s, ca[0], t)
                    if ca[0] == "pong":
                        s, drawn, kong_type, after_pong, chain = claimer, None, None, True, 0
                    else:
                        if self._kong_ends(claimer):
                            return
                        drawn = self._replace(claimer)
                        s, kong_type, after_pong, chain = claimer, self.kongs[-1][1], False, 1
                    continue
            s = (s + 1) % 4
            drawn = draw()
            if drawn is None:  # huangzhuang
                self.drawn = None
                return
            self.turns += 1
            counts[s][drawn] += 1  # inlined _add(s, drawn)
            pk = part[drawn]
            if pk is None:
                huns[s] += 1
            else:
                keys[s][pk[0]] += pk[1]
            event((s, "draw", drawn, False))
            kong_type, after_pong, chain = None, False, 0

    # ---------------------------------------------------------------- menus

    def _discards(self, c: list[int]) -> list[Action]:
        """The discards of a hand with these counts: any tile held, less the huns where play.may_discard_hun
        is false, unless every tile held is a hun (then a hun must go)."""
        menu = list(compress(DISCARD, c))
        if self.rules.may_discard_hun:
            return menu
        hun_set = self.hun_set
        return [a for a in menu if a[1] not in hun_set] or menu

    def _act_menu(self, s: int, drawn: int | None, kong_type: str | None, after_pong: bool,
                  chain: int = 0) -> list[Action]:
        c = self.counts[s]
        if after_pong:
            return self._discards(c)
        ready = self.ready[s]
        menu = [DISCARD[drawn]] if ready and drawn is not None else self._discards(c)  # tianting: no changes
        r = self.rules
        if drawn is not None and not (r.hun_discard_bars_win and self.xianggong[s]) \
                and short(self.keys[s], self.huns[s], r.chow_melds) == 0:
            if self._score_win(s, drawn, kong_type, self._first_draw(s, kong_type), chain) is not None:
                menu.insert(0, WIN)
        melds = self.melds[s]
        if ready or not (melds or 4 in c) or not r.kong or not self.wall.can_replace():
            return menu
        if 4 in c:
            for k in range(34):
                if c[k] == 4 and (k not in self.hun_set or r.may_kong_huns("concealed")):
                    menu.append(("concealed_kong", k))
        for m in melds:
            k = m[1]
            if m[0] == "pung" and c[k] and (r.added_kong_from_hand or k == drawn) and (k not in self.hun_set or r.may_kong_huns("added")):
                menu.append(("added_kong", k))
        return menu

    def _first_draw(self, s: int, kong_type: str | None) -> str:
        """The request flag a win now would carry for being a first draw ("" if none)."""
        if kong_type is not None or self.melds[s] or (self.rules.first_draw_ends_on_meld and self.melded):
            return ""
        if s == self.dealer:
            return self.rules.dealer_first_draw_flag if not self.dealer_acted else ""
        return self.rules.first_draw_flag if not self.first_draw_done[s] else ""

    def _score_win(self, s: int, drawn: int, kong_type: str | None, first: str, chain: int = 0) -> Claim | None:
        """The scorer's claim when these tiles win (kept, with the request, as the offer a win takes).
        chain: the kongs made in a row whose last replacement is `drawn` (kong_chain, sent when 2 or more)."""
        flags = [first] if first else []
        if self.ready[s]:
            flags.append(self.rules.ready_declaration_flag)
        conc = self.concealed(s)
        conc.remove(drawn)
        kd = self.rules.kong_draw(kong_type) if kong_type is not None else None
        kc = chain if kd is not None and chain > 1 else 1
        claim = self.rules.scorer.score_tiles(conc, drawn, self.indicator, self.request_melds(s), kd, flags, kc)
        request = {"concealed": "".join(NAMES[k] for k in conc),
                   "melds": [{"type": t, "tile": NAMES[k]} for t, k in self.request_melds(s)],
                   "draw": NAMES[drawn], "indicator": NAMES[self.indicator], "kong_draw": kd,
                   **({"kong_chain": kc} if kc > 1 else {}), **{f: True for f in flags}}
        if claim.reason == "invalid_request":
            raise EngineError(refusal_text(self.rules.scorer.score(request), request, s))
        if not claim.win:
            return None
        self._offer = claim, request
        return claim

    def _claim_menu(self, d: int, t: int) -> tuple[int, list[Action]]:
        """The one seat that may claim the discard t of seat d, and its menu (-1 if none)."""
        r = self.rules
        if self.wall.live_left < r.no_claim_in_last_tiles:
            return -1, []
        hun = t in self.hun_set
        for i in (1, 2, 3):
            s = (d + i) % 4
            n = self.counts[s][t]
            if n >= 2 and not self.ready[s]:
                menu: list[Action] = [PASS]
                if r.pung and (not hun or r.hun_pung):
                    menu.append(("pong", t))
                if n >= 3 and r.kong and (not hun or r.hun_kong) and self.wall.can_replace():
                    menu.append(("kong", t))
                return (s, menu) if len(menu) > 1 else (-1, [])
        return -1, []

    # ---------------------------------------------------------------- doing it

    def _claimed(self, s: int, d: int, typ: str, t: int) -> None:
        self.discards[d].pop()
        self.melded = True
        self.claimed_at.add(self.n_discards - 1)
        if typ == "pong":
            self._remove(s, t, 2)
            self.melds[s].append(["pung", t, d])
            self.events.append((s, "pong", t, d))
        else:
            self._remove(s, t, 3)
            self.melds[s].append(["exposed", t, d])
            self.events.append((s, "kong", t, d))
            self.kongs.append([s, self.rules.kong_type("exposed", t in self.hun_set), t, False, d, False])

    def _own_kong(self, s: int, typ: str, t: int) -> None:
        self.melded = True
        if typ == "concealed_kong":
            self._remove(s, t, 4)
            self.melds[s].append(["concealed", t, None])
            self.kongs.append([s, self.rules.kong_type("concealed", t in self.hun_set), t, False, None, False])
        else:
            self._remove(s, t, 1)
            m = next(m for m in self.melds[s] if m[0] == "pung" and m[1] == t)
            m[0] = "added"
            self.kongs.append([s, self.rules.kong_type("added", t in self.hun_set), t, False, None, False])
        self.events.append((s, typ, t, None))

    def go_rounds(self) -> list[tuple[list[int], bool]]:
        """The hand's go-rounds so far: its discards four at a time in the order made, each with whether
        one of them was claimed."""
        return [(self.discarded[i:i + 4], any(j in self.claimed_at for j in range(i, i + 4)))
                for i in range(0, len(self.discarded), 4)]

    def _kong_ends(self, s: int) -> bool:
        """Whether the kong seat s just made ends the hand at once as its win (play.kong_ends_hand, read on
        the outcome so far); then s is the winner, with play.kong_win_total's total. A player barred from
        winning (xiao xianggong) goes on."""
        kw = self.rules.kong_win
        if kw is None or (self.xianggong[s] and self.rules.hun_discard_bars_win):
            return False
        o = make_outcome(dealer=self.dealer, zuozhuang=self.zuozhuang, lazhuang=tuple(self.lazhuang), winner=None,
                         total=0, chan=False,
                         rounds=[(n, ds, c) for n, (ds, c) in enumerate(self.go_rounds(), 1)],  # the go-rounds so far
                         kongs=[(k[0], k[1], k[2], self.rules.kong_points_of(k[1]), k[3], k[4], k[5]) for k in self.kongs],
                         xianggong=frozenset(i for i in range(4) if self.xianggong[i]),
                         score_table=self.rules.scorer.ruleset.score_table)
        total = kw(o, o.kongs[-1])
        if total is None:
            return False
        self.kongs[-1][5] = True
        self.winner, self.win_total = s, total
        return True

    def _replace(self, s: int) -> int:
        t = self.wall.replacement()
        assert t is not None  # a kong is offered only when a replacement is left
        self.turns += 1
        self._add(s, t)
        self.events.append((s, "draw", t, True))
        return t

    def _declarations(self, players: list[Player]) -> None:
        """tianting: after the dealer's first discard, each non-dealer whose dealt 13 tiles are ready may declare."""
        d = self.dealer
        for i in (1, 2, 3):
            s = (d + i) % 4
            if self.first_draw_done[s] or self.missing(s, 1) or not self._ready_waits(s):
                continue
            r = players[s].declare_ready(self.views[s])
            if r is not True and r is not False:
                raise IllegalAction(f"seat {s} answered {r!r} to declaring ready (tianting); True or False")
            if r:
                self.ready[s] = True
                self.events.append((s, "ready", None, None))

    def _ready_waits(self, s: int) -> list[Any]:
        """The tiles that would win seat s's hand once declared: the waits asked with the
        declaration's flag, so a win the declaration itself makes worth enough counts."""
        req: dict[str, Any] = {"concealed": "".join(NAMES[k] for k in self.concealed(s)), "indicator": NAMES[self.indicator],
                               "melds": [{"type": t, "tile": NAMES[k]} for t, k in self.request_melds(s)]}
        req[self.rules.ready_declaration_flag] = True
        w = self.rules.scorer.waits(req)
        got = w.get("waits") if isinstance(w, dict) else w
        if isinstance(w, dict) and w.get("error"):
            raise EngineError(refusal_text(w, req, s, "waits"))
        return list(got or [])


class SeatView:
    """What one seat may see: its own tiles, everyone's discards and exposed
    melds (a concealed kong's tile only for its owner), the indicator, the
    live wall's size, the bets and who is xiaoxianggong or declared ready."""

    __slots__ = ("_t", "seat")

    def __init__(self, table: Table, seat: int) -> None:
        self._t = table
        self.seat = seat

    @property
    def dealer(self) -> int:
        return self._t.dealer

    # the indicator is flipped after the deal: the bets (zuozhuang, lazhuang) see none of it
    @property
    def indicator(self) -> int | None:
        return self._t.indicator if self._t.dealt else None

    @property
    def hun_kinds(self) -> tuple[int, ...] | None:
        return self._t.hun_kinds if self._t.dealt else None

    @property
    def rules(self) -> GameRules:
        return self._t.rules

    @property
    def live_left(self) -> int | None:
        return self._t.wall.live_left if self._t.dealt else None  # the dice that place the flip decide it

    @property
    def zuozhuang(self) -> bool:
        return self._t.zuozhuang

    @property
    def lazhuang(self) -> tuple[int, ...]:
        return tuple(self._t.lazhuang)

    @property
    def drawn(self) -> int | None:
        """The tile this seat just drew (None after a pong, before the deal, and when it is not this
        seat's turn: another seat's draw is hidden)."""
        t = self._t
        return t.drawn if t.drawn_by == self.seat else None

    @property
    def last_discard(self) -> tuple[int, int] | None:
        return self._t.last_discard

    def counts(self) -> tuple[int, ...]:
        return tuple(self._t.counts[self.seat])

    def hand(self) -> list[int]:
        return self._t.concealed(self.seat)

    def missing(self, extra_huns: int = 0) -> int:
        """Huns this hand is short of a winning shape (with `extra_huns` more)."""
        return self._t.missing(self.seat, extra_huns)

    def missing_after_discard(self, tile: int, extra_huns: int = 0) -> int:
        """The same, had this seat discarded `tile` (one it holds)."""
        t = self._t
        t._remove(self.seat, tile)  # noqa: SLF001 - put back at once: the view changes nothing
        try:
            return t.missing(self.seat, extra_huns)
        finally:
            t._add(self.seat, tile)  # noqa: SLF001

    def missing_without(self, tile: int, n: int, extra_huns: int = 0) -> int:
        """The same, had this seat `n` fewer tiles of `tile` (a kong taken out of the hand)."""
        t = self._t
        t._remove(self.seat, tile, n)  # noqa: SLF001 - put back at once: the view changes nothing
        try:
            return t.missing(self.seat, extra_huns)
        finally:
            for _ in range(n):
                t._add(self.seat, tile)  # noqa: SLF001

    def shortfalls(self, extra_huns: int = 0) -> dict[int, int]:
        """missing_after_discard(t, extra_huns) for every kind t this seat holds, at once."""
        t = self._t
        s = self.seat
        return shortfalls(t.keys[s], t.huns[s], t.part, t.counts[s], extra_huns, t.rules.chow_melds, t.hun_tuple)

    def completing_after_discard(self, tile: int) -> list[int]:
        """The kinds whose drawing would give a winning shape, had this seat discarded `tile`."""
        return self.completing_after_discards([tile])[0]

    def completing_after_discards(self, tiles: list[int], cache: dict[Any, list[int]] | None = None) -> list[list[int]]:
        """completing_after_discard(t) for each t of `tiles` (kinds this seat holds), the table left
        as it is; `cache`: the answers kept by the 13-tile hand they were asked for (the caller's,
        for one hand: the same rules and huns throughout)."""
        t = self._t
        s = self.seat
        keys, huns, part, counts = t.keys[s], t.huns[s], t.part, t.counts[s]
        chow, hk = t.rules.chow_melds, t.hun_tuple
        out = []
        for tile in tiles:
            pk = part[tile]
            if pk is None:
                k2, h2 = keys, huns - 1
                c2 = list(counts)
                c2[tile] -= 1
            else:
                k2 = list(keys)
                k2[pk[0]] -= pk[1]
                h2, c2 = huns, counts
            if cache is None:
                out.append(completing(k2, h2, part, c2, chow, hk))
                continue
            ck = (k2[0], k2[1], k2[2], k2[3], h2, *[c2[k] for k in hk])
            got = cache.get(ck)
            if got is None:
                got = cache[ck] = completing(k2, h2, part, c2, chow, hk)
            out.append(got)
        return out

    def missing_after_swap(self, out: int, into: int) -> int:
        """The same, had this seat discarded `out` and then drawn `into`."""
        t = self._t
        t._remove(self.seat, out)  # noqa: SLF001 - put back at once: the view changes nothing
        t._add(self.seat, into)  # noqa: SLF001
        try:
            return t.missing(self.seat)
        finally:
            t._remove(self.seat, into)  # noqa: SLF001
            t._add(self.seat, out)  # noqa: SLF001

    def melds(self, seat: int) -> list[tuple[str, int | None]]:
        own = seat == self.seat
        return [(m[0], m[1] if own or m[0] != "concealed" else None) for m in self._t.melds[seat]]

    def request_melds(self) -> list[tuple[str, int]]:
        return self._t.request_melds(self.seat)

    def discards(self, seat: int) -> tuple[int, ...]:
        return tuple(self._t.discards[seat])

    def xianggong(self, seat: int) -> bool:
        return self._t.xianggong[seat]

    def declared_ready(self, seat: int) -> bool:
        return self._t.ready[seat]

    def seen(self) -> list[int]:
        """How many tiles of each kind this seat can see: its hand, every discard, the exposed melds, the indicator."""
        t = self._t
        out = list(t.counts[self.seat])
        out[t.indicator] += 1
        for s in range(4):
            for k in t.discards[s]:
                out[k] += 1
            for m in t.melds[s]:
                if m[0] != "concealed" or s == self.seat:
                    out[m[1]] += 3 if m[0] == "pung" else 4
        return out
