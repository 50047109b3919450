"""The rulebook's walk through one hand, turn by turn: a real hand played by the game engine
with four value players under the rules in force (so it changes when the rules change), told as a
learner meets it — the bets, the deal, the flip, a turn, a pong, a kong and its replacement, the
win and its settlement — with the tiles drawn.

The hand is the first of the game seed `rulebook` whose events show a pong, a kong and a win
(the first with a win, else the first, when none does within SEARCH hands): deterministic, so the
book is the same bytes on every build. Rules the engine cannot play get a sentence saying so."""

from __future__ import annotations

from typing import Any

from ...ir import RuleSet
from ...tiles import parse_tile
from .model import (Block, Bullets, Code, Details, Em, Group, Hand, Inline, Inlines, Para, Section, Slot, Strong, Table,
                    TileRef, TileRow, hand_groups)

SEED = "rulebook"
SEARCH = 60  # hands looked at, at most (a value player's hand costs a few milliseconds)
KONGS = ("kong", "added_kong", "concealed_kong")


class _Seated:
    """A generated scorer with its rule set, as the engine asks for one (game.rules.Scorer)."""

    def __init__(self, rs: RuleSet, module: Any) -> None:
        self.ruleset = rs
        self.score, self.score_tiles, self.waits, self.settle = module.score, module.score_tiles, module.waits, module.settle


def played_hand(rs: RuleSet, module: Any) -> tuple[dict[str, Any] | None, str]:
    """(the record of the hand the book walks through, ""), or (None, why there is none)."""
    from ...game.players import ValuePlayer
    from ...game.rules import GameRulesError, game_rules
    from ...game.session import play, record
    from ...game.table import EngineError
    try:
        rules = game_rules(_Seated(rs, module))
    except GameRulesError as e:
        return None, str(e)
    first: dict[str, Any] | None = None
    first_win: dict[str, Any] | None = None
    for hand in range(SEARCH):
        try:
            res = play(rules, SEED, hand, [ValuePlayer() for _ in range(4)])
        except (EngineError, RuntimeError) as e:  # rules the table or the settlement refuses: the book says so
            return None, f"the game engine stopped on hand {hand}: {e}"
        rec = record(rules, SEED, hand, res, ["value"] * 4)
        types = {e["type"] for e in rec["events"]}
        won = rec["result"]["winner"] is not None
        if won and "pong" in types and types & set(KONGS):
            return rec, ""
        first = first or rec
        first_win = first_win or (rec if won else None)
    return first_win or first, ""


def _tiles(names: list[str]) -> tuple[int, ...]:
    return tuple(sorted(parse_tile(x) for x in names))


def _group(tile: str, n: int, kind: str, concealed: bool) -> Group:
    k = parse_tile(tile)
    return Group(tuple(Slot(k, k, False, False) for _ in range(n)), kind, True, concealed)



# a seat's concealed tiles leave by these events, so many of the event's tile each
_LEAVE = {"discard": 1, "pong": 2, "kong": 3, "concealed_kong": 4, "added_kong": 1}


def _after(tiles: list[str], e: dict[str, Any]) -> None:
    """A seat's concealed tiles after its own event `e` (a draw adds the tile, a discard or a meld removes
    what it takes from the hand)."""
    if e["type"] == "draw":
        tiles.append(e["tile"])
    for _ in range(_LEAVE.get(e["type"], 0)):
        tiles.remove(e["tile"])


def section(builder: Any, rec: dict[str, Any] | None, why: str) -> Section:
    """The hand told turn by turn (builder: the rulebook's Builder, for names and result lines). It says
    what the record shows and names the rules' own words (kong names, outcome names, patterns); what
    a bet or a pattern is worth is left to the chapters that give the rules."""
    title: Inlines = ("一手牌 A hand, turn by turn",)
    if rec is None:
        return Section("a-hand", title, (Para(("The game engine cannot play these rules, so this book has no played "
                                               "hand to walk through: ", why, ".")),))
    kong_word = {"kong": builder.kong_name("exposed"), "concealed_kong": builder.kong_name("concealed"),
                 "added_kong": builder.kong_name("added")}
    dealer, res, events = rec["dealer"], rec["result"], rec["events"]
    hands = [list(d) for d in rec["deal"]]
    winner = res["winner"]
    you = winner if winner is not None else dealer
    parts: list[Section] = []

    def step(anchor_id: str, name: str, blocks: list[Block]) -> None:
        parts.append(Section(f"a-hand-{anchor_id}", (name,), tuple(blocks), 3))

    intro: list[Block] = [Para((
        "This hand was played by the game engine with four value players (bots), under the rules of this book: "
        "every step below is what these rules made happen, and the book is built again with it whenever the rules "
        "change. It is hand ", Code(str(rec["hand"])), " of the game seed ", Code(SEED), " (",
        Code(f"tjmj simulate --seed {SEED} --hands {rec['hand'] + 1} --players value --record hands.jsonl"),
        " plays it again). Seats are numbered 0 to 3 in turn order; seat ", str(dealer), " deals (庄 zhuang, the "
        "dealer). We follow seat ", str(you), (", who wins." if winner is not None else "."))),
    ]
    lz = [f"seat {s} ×{n}" for s, n in enumerate(rec["lazhuang"]) if n]
    step("bets", "下注 The bets", [Para((
        f"Before the deal the dealer, seat {dealer}, ",
        "sits (" + builder.outcome_name("zuozhuang") + " zuozhuang)" if rec["zuozhuang"]
        else "does not sit (" + builder.outcome_name("zuozhuang") + " zuozhuang)",
        " and the others may pull (" + builder.outcome_name("lazhuang") + " lazhuang): ",
        ", ".join(lz) if lz else "no one pulls",
        ". These bets multiply what seats pay each other at the end (§9).",))])
    sizes = sorted({len(d) for d in rec["deal"]})
    (a, b), (c, d) = rec["dice"]
    step("deal", "发牌 The deal", [
        Para((f"The dice roll {a}+{b} and {c}+{d} (§8 says where the deal starts from them). The dealer takes "
              f"{len(rec['deal'][dealer])} tiles, the others {min(sizes)}. Seat {you}'s tiles, sorted:",)),
        TileRow(_tiles(rec["deal"][you]), (f"seat {you}",))])
    hun_kinds = ((res.get("score") or {}).get("result") or {}).get("hun_kinds") or []
    step("flip", "翻混 The flip", [Para((
        "A tile of the wall is turned face up: ", TileRef(parse_tile(rec["indicator"])),
        ". It names this hand's huns (混儿 hunr), wild tiles that stand for any tile",
        *((": ", *[x for k in hun_kinds for x in (TileRef(parse_tile(k)), " ")]) if hun_kinds else ("",)),
        "(§2 says how).",))])
    story: list[Block] = [Para((f"The dealer discards first; then each seat in turn draws a tile and discards one "
                                f"({sum(1 for e in events if e['type'] == 'discard')} discards in this hand). "
                                "The moments a learner meets:",))]
    shown_turn = shown_pong = shown_kong = False
    for i, e in enumerate(events):
        s, typ = e["seat"], e["type"]
        before = list(hands[s])
        _after(hands[s], e)
        nxt = events[i + 1] if i + 1 < len(events) else None
        if typ == "draw" and s == you and not shown_turn and nxt is not None and nxt["type"] == "discard" \
                and nxt["seat"] == s:
            shown_turn = True
            story.append(Para((Strong(("A turn.",)), f" Seat {s} draws ", TileRef(parse_tile(e["tile"])),
                               " from the wall (shown last) and discards ", TileRef(parse_tile(nxt["tile"])), ".")))
            story.append(TileRow(_tiles(before) + (parse_tile(e["tile"]),), (f"seat {s}, the tile drawn last",)))
        elif typ == "pong" and not shown_pong:
            shown_pong = True
            story.append(Para((Strong(("碰 A pong.",)), f" Seat {e['from']} discards ", TileRef(parse_tile(e["tile"])),
                               f"; seat {s}, holding two of it, claims it (碰 peng), shows the three and discards. "
                               "Play goes on from the claimer.")))
            story.append(Hand((_group(e["tile"], 3, "pung", False),), ((f"seat {s}'s pung",),), "example"))
        elif typ in KONGS and not shown_kong:
            shown_kong = True
            how = {"kong": f"claims seat {e.get('from')}'s discard with three of it held",
                   "concealed_kong": "lays down four held tiles, face down to the others",
                   "added_kong": "adds the fourth tile to a pung already shown"}[typ]
            repl = nxt is not None and nxt.get("replacement") and nxt["seat"] == s and nxt["tile"]
            story.append(Para((Strong((f"杠 A kong ({kong_word[typ]}).",)), f" Seat {s} ", how, " (",
                               TileRef(parse_tile(e["tile"])), ") and draws a replacement from the tail of the wall",
                               *((": ", TileRef(parse_tile(nxt["tile"]))) if repl and nxt else ()),
                               ". A kong scores points of its own (§6), paid at the end.")))
            story.append(Hand((_group(e["tile"], 4, "kong", typ == "concealed_kong"),), ((f"seat {s}'s kong",),), "example"))
    step("play", "打牌 Play", story)
    live = sum(1 for e in events if e["type"] == "draw" and not e.get("replacement"))
    if winner is not None and res.get("score"):
        result = res["score"]["result"]
        last = events[-2] if len(events) > 1 else None
        on = (f"on seat {last['seat']}'s discard" if last is not None and last["type"] == "discard" and last["seat"] != winner
              else "on a tile drawn by seat " + str(winner) + " (自摸 zimo)")
        if res["score"]["request"].get("kong_draw"):
            on += ", the replacement of a kong"
        step("win", "和牌 The win", [
            Para((f"Seat {winner} completes four melds and a pair {on}: ", TileRef(parse_tile(result["winning_tile"])),
                  f", after {live} draws from the wall. The scorer reads the hand so (a hun standing for another tile "
                  "shows both; * marks the winning tile):",)),
            Hand(hand_groups(result), (builder.result_line(result),), "example")])
    else:
        step("win", builder.outcome_name("drawn"), [Para((f"No one won before the wall ran out ({live} draws): "
                                                          f"{builder.outcome_name('drawn')}.",))])
    pays = res.get("payments") or []
    blocks: list[Block] = [Para(("Every payment, with the formula of the rule that makes it (§9):",))]
    if pays:
        blocks.append(Table((("from",), ("to",), ("amount",), ("for",), ("formula",)), tuple(
            ((str(p["from"]),), (str(p["to"]),), (str(p["amount"]),), (str(p["reason"]),), (Code(p["formula"]),))
            for p in pays), "payments"))
    blocks.append(Para(("Balances by seat: ", ", ".join(f"{i}: {v:+d}" for i, v in enumerate(res["balances"])),
                        f" (they sum to 0). The next hand is dealt by seat {res['next_dealer']}.",)))
    log: list[Inlines] = []
    for e in events:
        bits: list[Inline] = [f"seat {e['seat']} {e['type'].replace('_', ' ')}"]
        if e.get("replacement"):
            bits.append(" (replacement)")
        if e.get("from") is not None:
            bits.append(f" from seat {e['from']}")
        if e.get("tile"):
            bits += [" ", TileRef(parse_tile(e["tile"]))]
        log.append(tuple(bits))
    blocks.append(Details((f"Every event of the hand ({len(events)})",), (Bullets(tuple(log), True),)))
    step("settlement", "结算 Settlement", blocks)
    intro.append(Para((Em(("Terms",)), " are glossed where they first appear; the glossary at the end has them all.",)))
    return Section("a-hand", title, tuple(intro) + tuple(parts))
