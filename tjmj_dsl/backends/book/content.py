"""IR + the scorer's answers → the rulebook's document (model.py), in the
order a learner needs it: tiles, huns, melds and winning, patterns,
combining, kong points and score tables, options, play, settlement, errata,
the combination table, glossary. Every hand and number in it comes from the
generated scorer (`Scorers`); every text from the rule file, as plain text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from ...ir import Example, OptionDecl, Pattern, RuleSet
from ...known import Row
from ...tiles import ALL_KINDS, NUM_KINDS, chinese, parse_tile
from ..examples import Scored, Scorers, _value_key, error_text
from . import turns
from .model import (Block, Book, Bullets, Code, Em, Group, Hand, Inline, Inlines, Link, Para, Section, Slot,
                    Strong, Table, TileRef, TileRow, anchor, hand_groups)

# generic mahjong table mechanics: what each claim key of the rule file means ({exposed}: the rule file's
# name of an exposed kong, {hun_claim}: of the kind of kong a claimed hun makes, play.hun_kong_exposed_as)
CLAIM_WORDS = {
    "chow": "吃 chi — claim a discard for a chow",
    "pung": "碰 peng — claim a discard for a pung",
    "kong": "杠 gang — claim a discard for an exposed kong{exposed}",
    "win_on_discard": "点炮 dianpao — win on another player's discard",
    "rob_kong": "抢杠 qianggang — win on the tile another player adds to a kong",
    "hun_pung": "碰 a discarded hun with two of the same hun",
    "hun_kong": "杠 a discarded hun with three of the same hun{hun_claim}",
}
KIND_WORDS = {"chow": "顺子 chow", "pung": "刻子 pung", "kong": "杠 kong", "pair": "将 pair"}
ROLE_WORDS = {"example": "例 Example", "near_miss": "不是 Near miss", "chapter": "例 Example", "option": "例 Example"}


@dataclass
class Inputs:
    """What the book is built from, for one profile."""

    rs: RuleSet
    scorers: Scorers
    scored: list[Scored]
    rows: list[Row]  # every known-values row (all tables)
    source_name: str
    combos: Any = None  # the combination table, when computed
    hand: Any = None  # (the record of the hand §0 walks through, or None, and why not): backends/book/turns.py
    extra: dict[str, Any] = field(default_factory=dict)


def _t(*items: Inline) -> Inlines:
    return tuple(items)


def tiles_of(text: str) -> list[int]:
    return [parse_tile(x) for x in text.split()] if text else []


def pattern_names(rs: RuleSet, ids: Sequence[str]) -> str:
    names = {p.id: p.name for p in rs.patterns}
    return " + ".join(names.get(i, i) for i in ids)


class Builder:
    def __init__(self, inp: Inputs) -> None:
        self.inp = inp
        self.rs = inp.rs
        self.pinyin = self._pinyin()
        self.all_names = {p.id: p.name for p in self.rs.patterns}
        # names of patterns not enabled in this profile, from the examples' results (their scorer knew them)
        for s in inp.scored:
            for _, r in s.results:
                for pid, name in zip(r.get("patterns") or (), r.get("names") or ()):
                    self.all_names.setdefault(pid, name)

    # ---- small pieces
    def _pinyin(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for term, py, _ in self.rs.prose.glossary:
            terms = [t.strip() for t in term.split("/")]
            pys = [p.strip() for p in py.split("/")]
            for i, t in enumerate(terms):
                out.setdefault(t, pys[i] if i < len(pys) else pys[0])
        return out

    def pname(self, pid: str) -> str:
        return self.all_names.get(pid, pid)

    def kong_name(self, kind: str) -> str:
        """A kind of kong (exposed, added, concealed, hun) by its name in the rule file's kong_names."""
        return dict(self.rs.kong_names).get(kind, kind)

    def result_line(self, res: dict[str, Any], show_total: bool = True) -> Inlines:
        if res.get("reason") == "invalid_request":
            return _t(Strong(_t("拒绝 refused:")), " ", error_text(res))
        if not res.get("decomposition") and not res["patterns"]:
            return _t(Strong(_t("不和 no win:")), " these 14 tiles make no four melds and a pair.")
        names = " + ".join(self.pname(p) for p in res["patterns"])
        out: list[Inline] = [names + ": " if names else "", Code(res["formula"]), " fan"]
        if res["win"]:
            out += [" — ", Strong(_t("和 wins"))]
            if show_total and res["total"] != res["fan"]:
                out += [f"; the score table `{self.rs.score_table}` shows ", Strong(_t(str(res["total"])))]
        else:
            out += [" — ", Strong(_t("不能和 does not win")), f" (needs {self.rs.min_fan})"
                    if res.get("reason") == "below_min_fan" else ""]
        return tuple(out)

    def request_line(self, ex: Example) -> Inlines:
        req = ex.request
        bits: list[Inline] = ["Hand ", Code(ex.hand), ", indicator ", TileRef(parse_tile(req["indicator"]))]
        kd = req.get("kong_draw")
        if kd:
            chain = req.get("kong_chain") or 1
            bits.append(f", won on the replacement of a {self.kong_name(str(kd))} kong" +
                        (f", the last of {chain} kongs in a row" if chain > 1 else ""))
        flags = [f for f, _ in self.rs.flags if req.get(f)]
        if flags:
            bits += [", ", ", ".join(flags)]
        if ex.options:
            bits += [", with option ", ", ".join(f"{k}={_value_key(v)}" for k, v in ex.options)]
        bits.append(".")
        return tuple(bits)

    def example_block(self, s: Scored) -> Block:
        ex = s.example
        res = s.results[0][1]
        cls = "near-miss" if ex.role == "near_miss" else ("refused" if res.get("reason") == "invalid_request" else "example")
        lines: list[Inlines] = [(Strong(_t(ROLE_WORDS[ex.role] + ".")), " ", *self.request_line(ex))]
        lines.append(self.result_line(res))
        if ex.note:
            lines.append((Em(_t("Why:")), " ", ex.note) if ex.role == "near_miss" else (ex.note,))
        return Hand(hand_groups(res), tuple(lines), cls)

    def examples_of(self, owner: str, role: str) -> list[Scored]:
        return [s for s in self.inp.scored if s.example.owner == owner and s.example.role == role]

    def paras(self, chapter: str) -> list[Block]:
        return [Para((p,)) for p in self.rs.prose.chapter(chapter)]

    def decisions(self, chapter: str, title: str = "Decisions") -> list[Block]:
        ds = [d for d in self.rs.prose.decisions if d.chapter == chapter]
        if not ds:
            return []
        items = tuple((Strong((d.title,)), " (", Code(d.id), "). ", d.text, *((" Source: " + d.source + ".",) if d.source else ()))
                      for d in ds)
        return [Section(anchor("decisions", chapter), (title,), (Bullets(items, ordered=True),), 3)]

    # ---- chapters
    def tiles(self) -> Section:
        rows: list[Block] = self.paras("tiles")
        suits = {"m": "万 wan (characters)", "p": "饼 bing (dots)", "s": "条 tiao (bamboo)"}
        for i, s in enumerate(self.rs.suits):
            rows.append(TileRow(tuple(range(i * 9, i * 9 + 9)), (suits.get(s, s),)))
        rows.append(TileRow(tuple(range(27, NUM_KINDS)), ("风 feng 东南西北 (winds), 箭 jian 中发白 (dragons)",)))
        return Section("tiles", ("§1 牌 The tiles",), tuple(rows))

    def huns(self) -> Section:
        rs = self.rs
        blocks: list[Block] = self.paras("hun")
        rules = self.inp.scorers.get(rs.profile)[1].RULES
        counts = sorted({len(r) for r in rs.hun_table})
        many = str(counts[0]) if len(counts) == 1 else " or ".join(str(c) for c in counts) + ", by the indicator,"
        blocks.append(Para((f"Under these rules {many} kind(s) are huns. Every indicator and its huns:",)))
        rows = []
        for k in ALL_KINDS:
            kinds = rules.hun_table[k][0]
            cell: list[Inline] = []
            for h in kinds:
                cell += [" "] if cell else []
                cell.append(TileRef(h))
            rows.append(((TileRef(k),), tuple(cell)))
        blocks.append(Table((("翻开 indicator",), ("混 huns",)), tuple(rows), "huns", "hun-table"))
        blocks += self.decisions("hun")
        return Section("huns", ("§2 混 Huns (wild tiles)",), tuple(blocks))

    def melds(self) -> Section:
        rs = self.rs
        blocks: list[Block] = self.paras("melds")
        claims = rs.claims_offered()  # as the game offers them
        names = {kd: f" ({n})" for kd, n in rs.kong_names}
        made = dict(rs.play).get("hun_kong_exposed_as")  # the kind of kong a claimed hun makes
        words = {k: w.format(exposed=names.get("exposed", ""), hun_claim=names.get(str(made), ""))
                 for k, w in CLAIM_WORDS.items()}
        rows = tuple(((words.get(k, k),), (Strong(("allowed",)) if v else "not allowed",)) for k, v in claims.items())
        if rows:
            blocks.append(Table((("claim",), ("under these rules",)), rows, "claims"))
        blocks += self.paras("winning")
        blocks.append(Para(("A hand needs at least ", Strong((str(rs.min_fan),)), " fan to win.")))
        for s in self.examples_of("winning", "chapter"):
            blocks.append(self.example_block(s))
        if rs.request_rules:
            blocks.append(Para(("A request that describes no legal hand is refused:",)))
            blocks.append(Bullets(tuple((r.message,) for r in rs.request_rules)))
        blocks += self.decisions("melds") + self.decisions("winning")
        return Section("melds-and-winning", ("§3 牌型与和牌 Melds, claims and winning",), tuple(blocks))

    def pattern_section(self, p: Pattern | None, pid: str, enabled: bool) -> Section:
        rs = self.rs
        blocks: list[Block] = []
        if p is not None:
            py = self.pinyin.get(p.name, "")
            head: list[Inline] = [Strong((p.kind,)), f" pattern, value {p.value}"]
            if p.aka:
                head.append(". Also called " + ", ".join(p.aka))
            head.append(".")
            blocks.append(Para(tuple(head)))
            if p.description:
                blocks.append(Para((p.description,)))
            extra: list[Inlines] = []
            if p.requires:
                extra.append(("Needs ", ", ".join(self.pname(r) for r in p.requires), "."))
            for c in p.conflicts:
                extra.append(("With ", self.pname(c.other), ": ", c.description or ("not together" + (" unless " + c.unless.text if c.unless else "")), "."))
            extra.append(("Holds when ", Code(p.when.text), "."))
            blocks.append(Bullets(tuple(extra)))
            title: Inlines = (p.name, f" {py}" if py else "", f" — {p.gloss}" if p.gloss else "")
        else:
            title = (self.pname(pid),)
            blocks.append(Para((Em(("Not played under these rules:",)), " ", self.disabled_note(pid))))
        if p is not None and not enabled:
            blocks.insert(0, Para((Em((self.disabled_note(pid),)),)))
        for s in self.examples_of(pid, "example") + self.examples_of(pid, "near_miss"):
            blocks.append(self.example_block(s))
        return Section(anchor("pattern", pid), title, tuple(blocks), 3)

    def disabled_note(self, pid: str) -> str:
        opts = [o for o in self.rs.options if any(o.id == e.owner for e in self.rs.prose.examples if e.role == "option")]
        for s in self.inp.scored:
            ex = s.example
            if ex.owner == pid and ex.options:
                return "not played under this profile; it is played with option " + ", ".join(f"{k}={_value_key(v)}" for k, v in ex.options) + "."
        del opts
        return "not played under this profile."

    def patterns(self) -> Section:
        rs = self.rs
        blocks: list[Block] = self.paras("patterns")
        blocks.append(Para(("In the hands below a hun tile shows under it the face it stands for (=4万; in plain text "
                            "4万=1万, the hun 1万 standing for 4万), 混 marks a hun standing for itself, and 和 (in "
                            "plain text *) the winning tile. Declared melds are framed ([ ] exposed, ( ) concealed kong).",)))
        rows = []
        for p in rs.patterns:
            rows.append(((Link((p.name,), anchor("pattern", p.id)),), (self.pinyin.get(p.name, ""),), (p.gloss,), (p.kind,), (str(p.value),)))
        blocks.append(Table((("番种 pattern",), ("pinyin",), ("English",), ("kind",), ("value",)), tuple(rows), "patterns", "pattern-table"))
        if rs.disabled_patterns:
            blocks.append(Para(("Not played under this profile: ", ", ".join(self.pname(x) for x in rs.disabled_patterns),
                                " (see §7 Options).")))
        for p in rs.patterns:
            blocks.append(self.pattern_section(p, p.id, True))
        for pid in rs.disabled_patterns:
            blocks.append(self.pattern_section(None, pid, False))
        blocks += self.decisions("patterns", "Rules that bind the table (decisions)")
        return Section("patterns", ("§4 番种 Patterns",), tuple(blocks))

    def combining(self) -> Section:
        rs = self.rs
        blocks: list[Block] = [Para(("A hand's fan is ", Code("fan = " + rs.algebra.text),
                                     ", over the patterns claimed in its best decomposition. The kinds:"))]
        blocks.append(Bullets(tuple((Strong((k,)), ": ", d) for k, d in zip(rs.kinds, rs.kind_docs))))
        seen = set()
        rows = []
        for r, res in self.known_results():
            if res is None or res.get("reason") == "invalid_request" or res["formula"] in seen:
                continue
            seen.add(res["formula"])
            rows.append(((r.name,), (pattern_names(rs, res["patterns"]),), (Code(res["formula"]),)))
        if rows:
            blocks.append(Para(("Worked formulas, one per distinct formula of the seeds' table for this profile "
                                "(each scored by the generated scorer):",)))
            blocks.append(Table((("牌型 as printed",), ("patterns claimed",), ("formula",)), tuple(rows), "formulas"))
        return Section("combining", ("§5 叠加 Combining patterns",), tuple(blocks))

    def known_results(self) -> list[tuple[Row, dict[str, Any] | None]]:
        out = []
        for r in self.inp.rows:
            if r.profile != self.rs.profile:
                continue
            res = None if r.request is None else self.inp.scorers.score(self.rs.profile, {}, r.request)
            out.append((r, res))
        return out

    def scoring(self) -> Section:
        rs = self.rs
        kp = dict(rs.kong_points)
        blocks: list[Block] = self.paras("scoring")
        blocks.append(Table((("kong",), ("points from each other player",)),
                            tuple(((f"{self.kong_name(k)} ({k})",), (str(v),)) for k, v in kp.items()), "kong-points"))
        blocks.append(Para(("The score table in force is ", Code(rs.score_table), ": it shows ", Code(rs.total.text),
                            " for a winning hand. The other tables are options (§7).")))
        blocks += self.decisions("scoring")
        rows = []
        for r, res in self.known_results():
            hand = "—" if r.request is None else r.hand
            got: Inlines
            if res is None:
                got = (Strong(("cannot exist",), ),)
            else:
                val = res["total"] if res["win"] else 0
                got = (str(val),) if val == r.printed else (Strong((str(val),)), " (erratum)")
            rows.append(((r.item,), (r.name + (f" ({r.variant})" if r.variant else ""),), (Code(hand),),
                         (str(r.printed),), got))
        if rows:
            blocks.append(Section("known-values", ("The seeds' printed table for this profile",), (
                Para(("Every row the seeds print for this table, as a hand, scored by the generated scorer. "
                      "Where the print differs, the row is an erratum (§10).",)),
                Table((("item",), ("牌型 as printed",), ("hand",), ("printed",), ("the rules give",)), tuple(rows), "known"),
            ), 3))
        return Section("scoring", ("§6 杠分与分数表 Kong points and score tables",), tuple(blocks))

    def option_values(self, o: OptionDecl) -> list[Inlines]:
        rs = self.rs
        current = _value_key(dict(rs.choices).get(o.id))
        describe = dict(rs.prose.describe).get(o.id)
        docs = dict(dict(rs.prose.choice_docs).get(o.id, ()))
        out: list[Inlines] = []
        for c in o.choices:
            k = _value_key(c)
            sentence = docs.get(k) or (describe.replace("$value", k) if describe else "")
            marks = []
            if k == _value_key(o.default):
                marks.append("default")
            if k == current:
                marks.append("in force")
            out.append((Code(k), (" (" + ", ".join(marks) + ")") if marks else "", ": " if sentence else "", sentence))
        return out

    def options(self) -> Section:
        rs = self.rs
        blocks: list[Block] = self.paras("options")
        rows = tuple(((Link((Code(o.id),), anchor("option", o.id)),), (o.name,), (Strong((_value_key(dict(rs.choices).get(o.id)),)),),
                      (o.acts_on,)) for o in rs.options)
        blocks.append(Table((("option",), ("名称 name",), ("in force",), ("acts on",)), rows, "options", "option-table"))
        for o in rs.options:
            sub: list[Block] = [Para((o.description,))]
            sub.append(Bullets(tuple(self.option_values(o))))
            if o.source:
                sub.append(Para((Em(("Source:",)), " ", o.source)))
            for s in self.examples_of(o.id, "option"):
                sub.append(self.option_example(o, s))
            blocks.append(Section(anchor("option", o.id), (o.name + " ", Code(o.id)), tuple(sub), 3))
        blocks += self.decisions("options")
        return Section("options", ("§7 选项 Options (variants)",), tuple(blocks))

    def option_example(self, o: OptionDecl, s: Scored) -> Block:
        ex = s.example
        if ex.kind == "bets":
            brows = tuple(((Code(key),), ("yes" if res["may_zuozhuang"] else "no",),
                           (", ".join(f"{i}: {n}" for i, n in enumerate(res["lazhuang_most"]) if i != ex.request["dealer"]),))
                          for key, res in s.results)
            bparts: list[Block] = [Para((Strong(("例 Example.",)), " ", *self.bets_text(ex.request)))]
            if ex.note:
                bparts.append(Para((ex.note,)))
            bparts.append(Table(((o.id,), (f"dealer may {self.outcome_name('zuozhuang')}",),
                                 (f"{self.outcome_name('lazhuang')} at most, by seat",)), brows, "option-example"))
            return Section(anchor("option", o.id, "example", str(rs_index(self.inp.scored, s))),
                           ("The bets before the deal under each value (the other options as in profile "
                            + self.inp.scorers.default_profile + ")",), tuple(bparts), 4)
        if ex.kind == "outcome":
            orows: list[tuple[Inlines, ...]] = []
            for key, res in s.results:
                if res.get("reason") == "invalid_request":
                    orows.append(((Code(key),), (Strong(("refused",)),), ("—",)))
                    continue
                orows.append(((Code(key),), (", ".join(f"{i}: {b:+d}" for i, b in enumerate(res["balances"])),),
                              (f"seat {res['next_dealer']}",)))
            parts: list[Block] = [Para((Strong(("例 Example.",)), " ", *self.outcome_text(ex.request)))]
            if ex.note:
                parts.append(Para((ex.note,)))
            parts.append(Table(((o.id,), ("balances by seat",), ("next dealer",)), tuple(orows), "option-example"))
            return Section(anchor("option", o.id, "example", str(rs_index(self.inp.scored, s))),
                           ("Settled under each value (the other options as in profile " + self.inp.scorers.default_profile + ")",),
                           tuple(parts), 4)
        first = s.results[0][1]
        rows: list[tuple[Inlines, ...]] = []
        for key, res in s.results:
            if res.get("reason") == "invalid_request":
                rows.append(((Code(key),), (Strong(("refused",)),), ("—",), ("—",)))
                continue
            rows.append(((Code(key),), (pattern_names(self.rs, res["patterns"]) or "—",),
                         (Code(res["formula"] or "no shape"),),
                         (str(res["total"]) if res["win"] else "no win",)))
        groups = hand_groups(next((r for _, r in s.results if r.get("decomposition")), first))
        lines: list[Inlines] = [(Strong(("例 Example.",)), " ", *self.request_line(ex))]
        if ex.note:
            lines.append((ex.note,))
        hand = Hand(groups, tuple(lines), "example")
        table = Table(((o.id,), ("patterns",), ("fan",), ("score table shows",)), tuple(rows), "option-example")
        return Section(anchor("option", o.id, "example", str(rs_index(self.inp.scored, s))), ("Scored under each value (the other options as in profile " + self.inp.scorers.default_profile + ")",),
                       (hand, table), 4)

    def play(self) -> Section:
        # the play: section's settings are the engine's (and the value player's hints): for rule designers, who
        # read them in the rule file and the site's rule-file reference, not in a player's book
        blocks: list[Block] = self.paras("play")
        blocks += self.decisions("play")
        return Section("play", ("§8 打牌 One hand of play",), tuple(blocks))

    def settlement(self) -> Section:
        rs = self.rs
        blocks: list[Block] = self.paras("settlement")
        st = rs.settlement
        if st is not None:
            rows = []
            for p in st.payments:
                each = (Code(f"{p.var} in {p.items.text}"),) if p.var and p.items is not None else ("—",)
                rows.append(((p.name, " ", Code(p.id)), each, (Code(p.when.text),) if p.when is not None else ("always",),
                             (Code(p.payer.text), " → ", Code(p.payee.text)), (Code(p.amount.text),)))
            blocks.append(Para(("Each payment rule of the rule file's ", Code("settlement:"), " section pays ", Em(("amount",)),
                                " from every seat of ", Em(("from",)), " to every seat of ", Em(("to",)),
                                " (never a seat to itself), once for each item, when its condition holds:")))
            blocks.append(Table((("rule",), ("for each",), ("when",), ("from → to",), ("amount",)), tuple(rows), "payments"))
            items: list[Inlines] = []
            for d in st.definitions:
                items.append((Code(f"{d.name}({', '.join(n for n, _ in d.params)})"), f" {d.title}: ", Code(d.body.text),
                              ". ", d.description))
            r = st.rotation
            items.append(("Next dealer (", r.name, "): ", Code(r.next_dealer.text), ". ", r.description))
            blocks.append(Bullets(tuple(items)))
        for s in self.examples_of("settlement", "chapter"):
            blocks.append(self.outcome_block(s))
        blocks += self.decisions("settlement")
        return Section("settlement", ("§9 结算 Settlement",), tuple(blocks))

    def outcome_name(self, fact: str) -> str:
        """A fact of a settlement outcome (zuozhuang, drawn, …) by its name in the rule file's outcome_names."""
        return dict(self.rs.outcome_names).get(fact, fact)

    def outcome_text(self, o: dict[str, Any]) -> Inlines:
        """What happened at the table, in words (the outcome's fields)."""
        bits: list[Inline] = [f"Seat {o.get('dealer')} deals"]
        if o.get("zuozhuang"):
            bits.append(f" and sits ({self.outcome_name('zuozhuang')})")
        lz = o.get("lazhuang") or []
        if any(lz):
            bits.append(f"; {self.outcome_name('lazhuang')} by seat: " + ", ".join(f"{i}×{n}" for i, n in enumerate(lz) if n))
        if o.get("xianggong"):
            bits.append(f"; {self.outcome_name('xianggong')}: seat " + ", ".join(str(i) for i in o["xianggong"]))
        if o.get("winner") is None:
            bits.append(f"; {self.outcome_name('drawn')}, no winner")
        else:
            bits.append(f"; seat {o['winner']} wins with a total of {o.get('total')}")
        for k in o.get("kongs") or []:
            bits.append(f"; seat {k.get('seat')} has a {self.kong_name(str(k.get('type')))} of ")
            bits.append(TileRef(parse_tile(str(k.get("tile")))))
            if k.get("from") is not None:
                bits.append(f" from seat {k.get('from')}'s discard")
            if k.get("won"):
                bits.append(" (its replacement won)")
            if k.get("ended"):
                bits.append(" (it ended the hand as a win)")
        if o.get("chan"):
            bits.append(f"; {self.outcome_name('chan')}")
        rounds = o.get("rounds") or []
        for i, r in enumerate(rounds):
            bits.append(f"; {'discards by go-round: ' if i == 0 else ''}{i + 1}. ")
            for j, t in enumerate(r.get("discards") or []):
                bits += ([" "] if j else []) + [TileRef(parse_tile(str(t)))]
            if r.get("claimed"):
                bits.append(" (one claimed)")
        bits.append(".")
        return tuple(bits)

    def bets_text(self, b: dict[str, Any]) -> Inlines:
        """The game so far and this hand's dealer, in words (a bets example's facts)."""
        g = b["game"]
        zz, lz = self.outcome_name("zuozhuang"), self.outcome_name("lazhuang")
        bits: list[Inline] = [f"Seat {b['dealer']} deals"
                              + (f" and would sit ({zz})" if b.get("zuozhuang") else "")]
        if not g["hands"]:
            bits.append("; the game's first hand.")
            return tuple(bits)
        bits.append(f"; {g['hands']} hand(s) played before, running balances by seat "
                    + ", ".join(f"{i}: {n:+d}" for i, n in enumerate(g["balances"])))
        if any(g["lazhuang"]):
            bits.append(f"; {lz} made by seat " + ", ".join(f"{i}×{n}" for i, n in enumerate(g["lazhuang"]) if n))
        last = g["last"]
        bits.append(f"; the hand before: seat {last['dealer']} dealt" + (f" and sat ({zz})" if last["zuozhuang"] else ""))
        if any(last["lazhuang"]):
            bits.append(f", {lz} by seat " + ", ".join(f"{i}×{n}" for i, n in enumerate(last["lazhuang"]) if n))
        bits.append(", " + (f"seat {last['winner']} won" if last["winner"] is not None else self.outcome_name("drawn"))
                    + ", balances " + ", ".join(f"{i}: {n:+d}" for i, n in enumerate(last["balances"])) + ".")
        return tuple(bits)

    def outcome_block(self, s: Scored) -> Section:
        ex = s.example
        res = s.results[0][1]
        blocks: list[Block] = [Para((Strong(("例 Example.",)), " ", *self.outcome_text(ex.request)))]
        if ex.note:
            blocks.append(Para((ex.note,)))
        if res.get("reason") == "invalid_request":
            blocks.append(Para((Strong(("拒绝 refused:",)), " ", error_text(res))))
        else:
            rows = tuple(((str(p["from"]),), (str(p["to"]),), (str(p["amount"]),), (p["reason"],), (Code(p["formula"]),))
                         for p in res["payments"])
            blocks.append(Table((("from",), ("to",), ("amount",), ("for",), ("formula",)), rows, "payments"))
            blocks.append(Para(("Balances by seat: ", ", ".join(f"{i}: {b:+d}" for i, b in enumerate(res["balances"])),
                                f" (sum {sum(res['balances'])}). Next dealer: seat {res['next_dealer']}.")))
            for u in res.get("unpaid") or ():
                blocks.append(Para((Em(("Not paid:",)), " ", str(u.get("rule")), " — ", Code(str(u.get("when"))),
                                    " does not hold.")))
        return Section(anchor("settlement", "example", str(rs_index(self.inp.scored, s))),
                       ("Worked payment table",), tuple(blocks), 3)

    def errata(self) -> Section:
        rs = self.rs
        blocks: list[Block] = []
        by_id: dict[str, list[Row]] = {}
        for r in self.inp.rows:
            by_id.setdefault(f"{r.table}:{r.item}", []).append(r)
        for er in rs.prose.errata:
            sub: list[Block] = [Para((Em(("Printed:",)), " “", er.printed, "”")), Para((Strong(("Decided:",)), " ", er.decision))]
            rows = []
            for ref in er.known:
                for r in by_id.get(ref, []):
                    if r.request is None:
                        got: Inlines = (Strong(("cannot exist",)),)
                    else:
                        res = self.inp.scorers.score(r.profile, {}, r.request)
                        got = (str(res["total"] if res["win"] else 0),)
                    rows.append(((r.table,), (r.item + (f" {r.variant}" if r.variant else ""),), (r.name,),
                                 (str(r.printed),), got))
            if rows:
                sub.append(Table((("table",), ("item",), ("牌型",), ("printed",), ("the rules give",)), tuple(rows), "errata"))
            blocks.append(Section(anchor("erratum", er.id), (er.source, " — ", er.id), tuple(sub), 3))
        return Section("errata", ("§10 勘误 Errata in the sources",), tuple(blocks))

    def glossary(self) -> Section:
        rows = tuple(((t,), (py,), (en,)) for t, py, en in self.rs.prose.glossary)
        return Section("glossary", ("词汇表 Glossary",), (Table((("中文",), ("pinyin",), ("English",)), rows, "glossary"),))

    def book(self) -> Book:
        rs = self.rs
        prof = dict(rs.profiles).get(rs.profile, "")
        intro: list[Block] = []
        if prof:
            intro.append(Para((Strong(("Profile",)), " ", Code(rs.profile), ": ", prof)))
        if rs.base_file:  # an overlay says what it changes, and what it does not take from its base
            replaced = f"; it replaces the base's {', '.join(rs.replaced)}" if rs.replaced else ""
            intro.append(Para(("A variant of ", Code(rs.base_file), replaced, ".")))
        if rs.sources:
            intro.append(Para(("Sources (the rule texts these rules come from; a rule, a profile or a note that names "
                               "one of them, as ", Code(rs.sources[0][0]), " does, cites it): ",)))
            intro.append(Bullets(tuple((Code(k), ": ", v) for k, v in rs.sources)))
        intro.append(Para(("Options in force: ", ", ".join(f"{k}={_value_key(v)}" for k, v in rs.choices), ". "
                           "Every example hand and every number in this rulebook was computed by the generated scorer "
                           "while the rulebook was built.")))
        sections = [Section("about", ("关于 About this rulebook",), tuple(intro))]
        if self.inp.hand is not None:
            played, why = self.inp.hand
            sections.append(turns.section(self, played, why))
        sections += [self.tiles(), self.huns(), self.melds(), self.patterns(), self.combining(), self.scoring(),
                     self.options(), self.play(), self.settlement(), self.errata()]
        if self.inp.combos is not None:
            sections.append(self.inp.combos(self))
        sections.append(self.glossary())
        footer = (f"Generated by tjmj from {self.inp.source_name} (sha256 {rs.source_sha256[:16]}…), profile {rs.profile}.",)
        return Book(rs.title or rs.name, f"规则书 Rulebook — profile {rs.profile}", "zh-Hans", tuple(sections), footer)


def rs_index(items: list[Scored], s: Scored) -> int:
    for i, x in enumerate(items):
        if x is s:
            return i
    return 0


def build(inp: Inputs) -> Book:
    return Builder(inp).book()
