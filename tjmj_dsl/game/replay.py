"""Replay: play a recorded hand again from its wall, dice, bets and events,
with every action checked against the table's legal menu, the win scored
again and the hand settled again; then compare what comes out with what the
record says. The first difference is reported."""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema

from ..api import Scorer
from ..diagnostics import RuleError
from ..inert import lone_surrogate_at
from ..tiles import NAMES
from .facts import GameFacts
from .record import FORMAT, record_schema
from .rules import GameRules, GameRulesError, game_rules
from .session import record as make_record
from .session import seeded, settle
from .table import PASS, Action, EngineError, IllegalAction, SeatView, Table
from .wall import check_deal

_KIND = {n: i for i, n in enumerate(NAMES)}


# the fields of a record replay cannot check, and why (docs/reliability.md lists them): every other field is
# either the input of the replay (the wall, dice, bets and events, checked against the seed and the table's
# legal menus) or re-made by it and compared
UNVERIFIED = {
    "players": "the names of who played each seat: free text, nothing in the hand depends on them",
}


class ReplayDiff(Exception):
    """Where the replayed hand departs from its record."""


def _event_text(e: dict[str, Any]) -> str:
    extra = " (replacement)" if e.get("replacement") else f" from seat {e['from']}" if "from" in e else ""
    return f"seat {e['seat']} {e['type']} {e['tile'] if e.get('tile') is not None else ''}{extra}".replace("  ", " ").strip()


class Script:
    """The recorded events, read by the four scripted seats in turn. Events the
    table makes itself (draws, and each action once taken) are compared with
    the record as they come."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events
        self.pos = 0
        self.table: Table | None = None

    def sync(self) -> None:
        assert self.table is not None
        made = self.table.events
        while self.pos < len(made):
            s, typ, t, extra = made[self.pos]
            mine: dict[str, Any] = {"seat": s, "type": typ, "tile": NAMES[t] if t is not None else None}
            if typ == "draw" and extra:
                mine["replacement"] = True
            elif typ in ("pong", "kong"):
                mine["from"] = extra
            if self.pos >= len(self.events):
                raise ReplayDiff(f"event {self.pos}: the record ends, the table goes on with {_event_text(mine)}")
            rec = self.events[self.pos]
            if rec != mine:
                raise ReplayDiff(f"event {self.pos}: the record says {_event_text(rec)}, the table gives {_event_text(mine)}")
            self.pos += 1

    def next(self) -> dict[str, Any] | None:
        self.sync()
        return self.events[self.pos] if self.pos < len(self.events) else None


class ScriptedPlayer:
    """A seat that plays what the record says, and only if it is legal."""

    name = "replay"

    def __init__(self, script: Script, seat: int, zuozhuang: bool, lazhuang: int) -> None:
        self.script = script
        self.seat = seat
        self._zuo = zuozhuang
        self._la = lazhuang

    def begin(self, view: SeatView, rng: random.Random) -> None:
        pass

    def zuozhuang(self, view: SeatView) -> bool:
        return self._zuo

    def lazhuang(self, view: SeatView, most: int) -> int:
        return self._la

    def declare_ready(self, view: SeatView) -> bool:
        e = self.script.next()
        return e is not None and e["seat"] == self.seat and e["type"] == "ready"

    def act(self, view: SeatView, menu: list[Action]) -> Action:
        e = self.script.next()
        pos = self.script.pos
        if e is None:
            raise ReplayDiff(f"event {pos}: the record ends while seat {self.seat} is to play")
        if e["seat"] != self.seat or e["type"] not in ("discard", "win", "concealed_kong", "added_kong"):
            raise ReplayDiff(f"event {pos}: the record says {_event_text(e)}, but seat {self.seat} is to play")
        a: Action = (e["type"], None if e["type"] == "win" else _KIND[e["tile"]])
        if a not in menu:
            raise ReplayDiff(f"event {pos}: {_event_text(e)} is not legal here; seat {self.seat} may "
                             + ", ".join(f"{t} {NAMES[k]}" if k is not None else t for t, k in menu))
        return a

    def claim(self, view: SeatView, menu: list[Action]) -> Action:
        e = self.script.next()
        last = view.last_discard
        if e is None or e["seat"] != self.seat or e["type"] not in ("pong", "kong"):
            return PASS
        a: Action = (e["type"], _KIND[e["tile"]])
        if last is None or e.get("from") != last[0] or a not in menu:
            raise ReplayDiff(f"event {self.script.pos}: {_event_text(e)} is not legal here; seat {self.seat} may "
                             + ", ".join(f"{t} {NAMES[k]}" if k is not None else t for t, k in menu))
        return a


class Replayer:
    """Replays records under one rule file (scorers built per profile and options, once)."""

    def __init__(self, rules_path: str | None = None) -> None:
        self.rules_path = rules_path
        self.cache: dict[Any, GameRules] = {}
        self.validator = jsonschema.Draft202012Validator(record_schema())
        self._last: tuple[Any, int, str, int | None, Any] | None = None  # the record replayed before: seed, hand, rules, next dealer, the game after it
        self.unchecked: str | None = None  # what the last check could not check

    def rules_for(self, rec: dict[str, Any]) -> GameRules:
        r = rec["rules"]
        key = (r["profile"], json.dumps(r["options"], sort_keys=True))
        if key not in self.cache:
            self.cache[key] = game_rules(Scorer(self.rules_path, r["profile"], dict(r["options"])))
        gr = self.cache[key]
        if gr.sha256 != r["sha256"]:
            raise ReplayDiff(f"the record was made under a rule file with sha256 {r['sha256'][:12]}…, "
                             f"these rules are {gr.sha256[:12]}… (give the same --rules)")
        return gr

    def check(self, rec: Any) -> tuple[Table | None, dict[str, Any] | None]:
        """Replay one record: (the table, the re-made record), or ReplayDiff with the first difference."""
        if not isinstance(rec, dict):
            raise ReplayDiff("not a record (a JSON object)")
        err = next(iter(sorted(self.validator.iter_errors(rec), key=lambda e: list(e.absolute_path))), None)
        if err is not None:
            where = "/".join(str(p) for p in err.absolute_path) or "(top)"
            raise ReplayDiff(f"not a valid record at {where}: {err.message[:200]}")
        unwritable = lone_surrogate_at(rec)
        if unwritable is not None:  # JSON's \ud800 escapes read as a string no UTF-8 holds: a seed of it cannot be derived
            raise ReplayDiff(f"not a valid record at {unwritable}: a lone surrogate (\\ud800-\\udfff) is no text")
        if rec["format"] != FORMAT:  # pragma: no cover - the schema says so
            raise ReplayDiff(f"format {rec['format']!r}")
        try:
            gr = self.rules_for(rec)
        except (RuleError, GameRulesError) as e:
            msg = e.render() if isinstance(e, RuleError) else str(e)
            r = rec["rules"]
            raise ReplayDiff(f"its rules cannot be loaded: {msg.splitlines()[0]} (the record's rules are "
                             f"{r['name']!r}, sha256 {r['sha256'][:12]}…: give their rule file with --rules)") from None
        wall = [_KIND[t] for t in rec["wall"]]
        try:
            check_deal(wall, rec["dealer"], rec["dice"])  # what the Table checks, said as the record's difference
        except ValueError as e:
            raise ReplayDiff(str(e)) from None
        if rec["seed"] is not None:  # hand i is dealt from (seed, i) alone; seed null: the record's own deal
            self._check_seeded(rec, wall, gr.first_dealer)
        game = self._game(rec, gr)
        self._check_rotation(rec)
        if rec["seed"] is None:  # said with its OK: nothing ties this wall to a seed
            self.unchecked = "; ".join(x for x in (self.unchecked, "its wall, dice and dealer against a seed "
                                                   "(seed null: a wall dealt elsewhere)") if x)
        lz = rec["lazhuang"]
        table = Table(gr, wall, rec["dealer"], (tuple(rec["dice"][0]), tuple(rec["dice"][1])), game)  # type: ignore[arg-type]
        script = Script(rec["events"])
        script.table = table
        players = [ScriptedPlayer(script, s, rec["zuozhuang"], lz[s]) for s in range(4)]
        try:
            res = table.play(players, [random.Random(0)] * 4)  # type: ignore[arg-type]
            script.sync()
        except IllegalAction as e:
            raise ReplayDiff(f"event {script.pos}: {e}") from None
        except EngineError as e:
            raise ReplayDiff(f"event {script.pos}: {e}") from None
        if script.pos < len(script.events):
            raise ReplayDiff(f"event {script.pos}: the hand is over, but the record goes on with "
                             f"{_event_text(script.events[script.pos])}")
        said = " and the game so far (the record's game)" if gr.bets is not None else ""
        if res.zuozhuang != rec["zuozhuang"]:
            raise ReplayDiff(f"zuozhuang: the dealer may not sit (zuozhuang) under these rules{said}")
        for s, n in enumerate(res.lazhuang):
            if n != lz[s]:  # a seat the table did not ask: it may not pull at all
                raise ReplayDiff(f"lazhuang[{s}]: the record says seat {s} pulled (lazhuang) {lz[s]} times, "
                                 f"it may not pull under these rules{said}")
        settle(gr, res)
        again = make_record(gr, rec["seed"], rec["hand"], res, rec.get("players") or [],
                            rec.get("dealt_by") == "rotation")
        for key in ("dealer", "zuozhuang", "lazhuang", "dice", "wall", "indicator", "deal"):
            if again[key] != rec[key]:
                raise ReplayDiff(f"{key}: the record says {_short(rec[key])}, the table gives {_short(again[key])}")
        for key in ("winner", "score", "kongs", "chan", "xianggong", "ready", "payments", "balances", "next_dealer"):
            a, b = rec["result"].get(key), again["result"][key]
            if a != b:
                raise ReplayDiff(_first_difference(a, b, f"result.{key}"))
        # and every other field the record holds, but for those no replay can check (UNVERIFIED)
        for key in sorted(set(rec) | set(again)):
            if key not in UNVERIFIED and rec.get(key) != again.get(key):
                raise ReplayDiff(_first_difference(rec.get(key), again.get(key), key))
        self._follows(rec)
        return table, again


    def _check_rotation(self, rec: Any) -> None:
        """A hand dealt by rotation that follows its game's previous hand (the line before, same seed
        and rules) is dealt by that hand's next dealer."""
        last, self._last, self.unchecked = self._last, None, None
        if "game" in rec and rec.get("dealt_by") == "rotation" and last is not None \
                and last[:3] == (rec["seed"], rec["hand"] - 1, _rules_key(rec)) and last[4] is not None \
                and rec["game"] != last[4]:
            # the record after another of its game (dealt by its rotation: one game, hand after hand; a hand
            # dealt by turns is played alone) carries that game's facts moved on by that hand
            raise ReplayDiff(_first_difference(rec["game"], last[4], "game").replace(
                "replayed", f"hand {last[1]} leaves the game at"))
        if rec.get("dealt_by") != "rotation":
            return
        if rec["hand"] == 0:
            raise ReplayDiff("dealt_by: rotation, but hand 0 is its game's first hand: no hand before passed it the deal")
        if last is None or last[:3] != (rec["seed"], rec["hand"] - 1, _rules_key(rec)) or last[3] is None:
            if last is not None and last[1:3] == (rec["hand"] - 1, _rules_key(rec)) and last[0] != rec["seed"]:
                self.unchecked = (f"its dealer (the line before, hand {last[1]}, has another seed: a table deals each "
                                  "hand from a seed of its own, and only a game's seed ties a hand to the one before)")
            else:
                self.unchecked = f"its dealer (hand {rec['hand'] - 1} of its game was not replayed just before it)"
            return
        if rec["dealer"] != last[3]:
            raise ReplayDiff(f"dealer: hand {last[1]} passed the deal to seat {last[3]}, the record says seat {rec['dealer']}")

    def _follows(self, rec: Any) -> None:
        """Remember a record that replayed, for the rotation check of the next."""
        after = GameFacts.from_json(rec["game"]).after_record(rec).json() if "game" in rec else None
        self._last = (rec["seed"], rec["hand"], _rules_key(rec), rec["result"]["next_dealer"], after)

    @staticmethod
    def _game(rec: Any, gr: GameRules) -> GameFacts | None:
        """The game before the record's hand, as the record carries it: what its bets were offered under
        (rules whose bets read the game so far need it; a record replays alone)."""
        if "game" not in rec:
            if gr.bets is not None:
                raise ReplayDiff("game: these rules' bets read the game so far (play.zuozhuang_when, "
                                 "play.lazhuang_most), and the record carries no game facts")
            return None
        try:
            return GameFacts.from_json(rec["game"])
        except ValueError as e:
            raise ReplayDiff(str(e)) from None

    @staticmethod
    def _check_seeded(rec: Any, wall: list[int], first: int | None) -> None:
        """The wall, dice and dealer a seeded record holds are those its (seed, hand) deals (its
        dealer only when dealt by turns)."""
        s_wall, s_dice, s_dealer = seeded(rec["seed"], rec["hand"], first)  # hand i is dealt from (seed, i) alone
        if rec.get("dealt_by") == "rotation":  # dealt by the hand before: _check_rotation checks the dealer
            s_dealer = rec["dealer"]
        if wall != s_wall:
            i = next(i for i in range(len(wall)) if wall[i] != s_wall[i])
            raise ReplayDiff(f"wall[{i}]: the record says {NAMES[wall[i]]}, seed {rec['seed']} deals hand "
                             f"{rec['hand']} {NAMES[s_wall[i]]}")
        if [list(d) for d in s_dice] != rec["dice"] or s_dealer != rec["dealer"]:
            raise ReplayDiff(f"dice and dealer: the record says {rec['dice']} and seat {rec['dealer']}, seed "
                             f"{rec['seed']} deals hand {rec['hand']} {[list(d) for d in s_dice]} and seat {s_dealer}")


def _rules_key(rec: Any) -> str:
    """The rules a record was played under (file, profile, options): one game is played under one."""
    return json.dumps(rec["rules"], sort_keys=True)


def _short(x: Any) -> str:
    text = json.dumps(x, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "…"


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two JSON values first differ: `path: recorded X, replayed Y`."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if a.get(k) != b.get(k):
                return _first_difference(a.get(k), b.get(k), f"{path}.{k}" if path else str(k))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path + ': ' if path else ''}the record says {_short(a)}, replayed {_short(b)}"


def show(table: Table, rec: dict[str, Any]) -> str:
    """The hand turn by turn, for people."""
    dealt = f"seed {rec['seed']}" if rec["seed"] is not None else "its own wall"
    lines = [f"hand {rec['hand']} ({dealt}): dealer seat {rec['dealer']}"
             f"{', zuozhuang' if rec['zuozhuang'] else ''}; lazhuang {rec['lazhuang']}; dice {rec['dice'][0]} {rec['dice'][1]}",
             f"  indicator {rec['indicator']}, huns {' '.join(NAMES[k] for k in table.hun_kinds)}"]
    for s, h in enumerate(rec["deal"]):
        lines.append(f"  seat {s} dealt {' '.join(sorted(h, key=_KIND.__getitem__))}")
    for i, e in enumerate(rec["events"]):
        lines.append(f"  {i:>3}  {_event_text(e)}")
    r = rec["result"]
    if r["winner"] is None:
        lines.append("  drawn hand (huangzhuang)")
    elif r["score"] is None:  # a kong ended the hand as its maker's win (play.kong_ends_hand): no hand was scored
        lines.append(f"  seat {r['winner']} wins by its kong (it ended the hand)")
    else:
        res = r["score"]["result"]
        names = " ".join(res.get("names", []))
        lines.append(f"  seat {r['winner']} wins: fan {res['fan']}, total {res['total']}   {res['formula']}   {names}")
    for k in r["kongs"]:
        by = f" from seat {k['from']}" if k.get("from") is not None else ""
        lines.append(f"  kong: seat {k['seat']} {k['type']} {k['tile']}{by} ({k['points']} points{', won' if k.get('won') else ''}{', ended the hand' if k.get('ended') else ''})")
    if r["chan"]:
        lines.append("  chan: a chan payment was made")
    if r["xianggong"]:
        lines.append(f"  xiaoxianggong: seat(s) {', '.join(map(str, r['xianggong']))}")
    for p in r["payments"]:
        lines.append(f"  pay {p['from']} → {p['to']}: {p['amount']} ({p['reason']}: {p.get('formula', '')})")
    lines.append(f"  balances {r['balances']}; next dealer seat {r['next_dealer']}")
    return "\n".join(lines)
