"""The rulebook's combination chapter (backends/combinations.py has the verdicts):
the realisable sets in tables by number of patterns, each with its witness drawn,
its formula, what every score table shows (after each kind of kong for a win on a
kong's replacement) and the seeds' rows that print it, errata marked; the seeds' rows
that cannot exist with the reason; every other impossible set grouped by its reason,
collapsed."""

from __future__ import annotations

from typing import Any

from ...known import Row
from ...tiles import parse_tile
from ..combinations import Group, Reader, Shown, Verdicts, mask_of, names_of, order
from .content import Builder
from .model import Block, Code, Details, Em, Inline, Inlines, Link, MiniHand, Para, Section, Strong, Table, TileRef, anchor, hand_groups

# the witness search's reason codes (analysis/witness.py), in the order shown, in words
REASONS = {
    "requires": "a pattern of the set needs another that the set leaves out",
    "conflict": "two patterns of the set are never claimed together",
    "never_holds": "a pattern of the set holds on no hand",
    "never_together": "patterns of the set never hold on one decomposition of a hand",
    "refused": "the patterns hold together only in hands a request rule refuses",
    "always_with": "wherever the set holds, another pattern is claimed too",
    "outranked": "wherever the set holds, another claim scores at least as much",
    "dominated": "every hand tried that holds the set reads better another way (no proof)",
    "dropped": "the pattern holds, but a better reading always leaves it out",
    "disabled": "a pattern of the set is not played under these rules",
}


class Combos:
    """Builds the chapter for one profile."""

    def __init__(self, b: Builder, v: Verdicts, reader: Reader) -> None:
        self.b = b
        self.v = v
        self.reader = reader
        self.ids = v.ids
        self.errata = {ref: er.id for er in b.rs.prose.errata for ref in er.known}
        self.seed_rows: dict[frozenset[str], list[Row]] = {}
        self.impossible_rows: list[Row] = []
        self.shown = self._realised()

    # ---- which hand shows each realisable set
    def _preferred(self) -> dict[frozenset[str], tuple[dict[str, Any], str, str, str]]:
        """(request, its text, origin, reference): a seed row's hand, else an example's,
        for each set one of them claims exactly."""
        out: dict[frozenset[str], tuple[dict[str, Any], str, str, str]] = {}
        for r in self.b.inp.rows:
            if r.request is None:
                self.impossible_rows.append(r)
                continue
            got = self.reader.claimed(r.request)
            if got is None:
                continue
            self.seed_rows.setdefault(frozenset(got), []).append(r)
            out.setdefault(frozenset(got), (r.request, r.hand, "seed", self.row_label(r)))
        for s in self.b.inp.scored:
            ex = s.example
            if ex.kind != "hand" or ex.options or ex.role == "option":
                continue
            got = self.reader.claimed(ex.request)
            if got is not None:
                ref = f"an example of {self.b.pname(ex.owner)}" if ex.role == "example" else \
                    f"a near miss of {self.b.pname(ex.owner)}" if ex.role == "near_miss" else "an example of this book"
                out.setdefault(frozenset(got), (ex.request, ex.hand, "example", ref))
        return out

    def _realised(self) -> list[Shown]:
        from ..combinations import hand_text
        preferred = self._preferred()
        found = {frozenset(p): (p, req) for p, req in self.v.witnesses}
        impossible = {frozenset(p): g for g in self.v.impossible for p in g.sets}
        sets = [p for p, _ in self.v.witnesses]
        for fs, (req, _, _, _) in preferred.items():
            if fs in impossible:  # a proof contradicted (a dominated set a hand claims was promoted)
                raise ValueError(f"the witness search calls {' + '.join(sorted(fs))} impossible "
                                 f"({impossible[fs].reason}), but the hand {req} claims it")
            if fs not in found:  # a hand the search did not find (undecided, or beyond the listed sets)
                sets.append(names_of(self.ids, mask_of(self.ids, sorted(fs))))
        out = []
        for pats in order(self.ids, sets):
            fs = frozenset(pats)
            if fs in preferred:
                req, text, origin, ref = preferred[fs]
            else:
                req = found[fs][1]
                text, origin, ref = hand_text(req), "search", "found by the search"
            out.append(self.reader.shown(pats, req, text, origin, ref))
        return out

    # ---- pieces
    def row_label(self, r: Row) -> str:
        return f"{r.table} {r.item}" + (f" {r.variant}" if r.variant else "")

    def names(self, pats: tuple[str, ...] | list[str], link: bool = True) -> Inlines:
        if not pats:
            return ("(no pattern)",)
        out: list[Inline] = []
        for p in pats:
            if out:
                out.append(" + ")
            out.append(Link((self.b.pname(p),), anchor("pattern", p)) if link else self.b.pname(p))
        return tuple(out)

    def plain(self, pats: tuple[str, ...] | list[str]) -> str:
        return " + ".join(self.b.pname(p) for p in pats) or "(no pattern)"

    def hand_cell(self, s: Shown) -> Inlines:
        req = s.request
        bits: list[Inline] = [Code(s.hand), " 翻 ", TileRef(parse_tile(str(req["indicator"])))]
        kd = req.get("kong_draw")
        if kd:
            chain = req.get("kong_chain") or 1
            bits.append(f", after a {self.b.kong_name(str(kd))}" + (f", the last of {chain} kongs in a row" if chain > 1 else ""))
        flags = [f for f, _ in self.b.rs.flags if req.get(f)]
        if flags:
            bits.append(", " + ", ".join(flags))
        bits += [" — ", Em((s.origin_ref if s.origin != "seed" else f"the hand of {s.origin_ref}",))]
        return tuple(bits)

    def table_cell(self, s: Shown, cells: tuple[tuple[str, int], ...]) -> Inlines:
        if not s.score.win or not cells:
            return ("—",)
        if len({t for _, t in cells}) == 1:
            return (str(cells[0][1]),)
        return (" · ".join(f"{self.b.kong_name(k)} {t}" for k, t in cells),)

    def rules_value(self, r: Row) -> int:
        assert r.request is not None
        res = self.b.inp.scorers.score(r.profile, {}, r.request)
        return int(res["total"]) if res["win"] else 0

    def erratum_link(self, r: Row) -> list[Inline]:
        eid = self.errata.get(f"{r.table}:{r.item}")
        return [" (", Link((f"erratum {eid}",), anchor("erratum", eid)), ")"] if eid else []

    def seeds_cell(self, s: Shown) -> Inlines:
        out: list[Inline] = []
        for r in self.seed_rows.get(frozenset(s.patterns), []):
            if out:
                out.append("; ")
            out.append(f"{self.row_label(r)}: {r.printed}")
            got = self.rules_value(r)
            if got == r.printed:
                out.append(" ✓")
            else:
                out += [" ", Strong((f"≠ {got}",))]
                out += self.erratum_link(r)
        return tuple(out) or ("—",)

    # ---- the chapter
    def realisable(self) -> list[Block]:
        rs = self.b.rs
        head: list[Inlines] = [("番种 patterns",), ("例 witness (its best reading)",), ("hand, indicator 翻",), ("fan",)]
        for tid, _ in rs.score_tables:
            head.append((Code(tid), " (in force)" if tid == rs.score_table else ""))
        head.append(("种子表 the seeds print",))
        blocks: list[Block] = []
        for k in sorted({len(s.patterns) for s in self.shown}):
            rows = []
            for s in (x for x in self.shown if len(x.patterns) == k):
                fan: Inlines = (Code(s.score.formula),) if s.score.win else (Code(s.score.formula), " ", Em(("no win",)))
                row: list[Inlines] = [self.names(s.patterns), (MiniHand(hand_groups(s.answer)),), self.hand_cell(s), fan]
                for _, cells in s.totals:
                    row.append(self.table_cell(s, cells))
                row.append(self.seeds_cell(s))
                rows.append(tuple(row))
            blocks.append(Section(anchor("combinations", str(k)), (f"{k} pattern{'s' if k != 1 else ''} ({len(rows)})",),
                                  (Table(tuple(head), tuple(rows), "combinations", f"combinations-table-{k}"),), 4))
        return blocks

    def display_ids(self, pats: tuple[str, ...]) -> tuple[str, ...]:
        """The patterns a score shows for this claimed set (the algebra may leave some out)."""
        mod = self.reader.mod
        return tuple(mod.claim_display(mod.RULES, mask_of(self.ids, pats))[3])

    def seeds_impossible(self) -> list[Block]:
        """The seeds' rows the known values mark as hands that cannot exist (one paragraph a
        row, its exposed/concealed kong variants together), each with the verdict of its set: the set as
        claimed, with the patterns the score does not show (the largest set shown as the row)."""
        rows: dict[tuple[str, str], list[Row]] = {}
        for r in self.impossible_rows:
            rows.setdefault((r.table, r.item), []).append(r)
        items: list[Block] = []
        for same in rows.values():
            r = same[0]
            want = set(r.patterns)
            cands: list[tuple[tuple[str, ...], Group | None]] = \
                [(p, g) for g in self.v.impossible for p in g.sets if want <= set(p) and set(self.display_ids(p)) == want]
            cands += [(s.patterns, None) for s in self.shown
                      if want <= set(s.patterns) and set(self.display_ids(s.patterns)) == want]
            printed = " and ".join(f"{x.printed}" + (f" ({x.variant})" if x.variant else "") for x in same)
            bits: list[Inline] = [f"{r.table} {r.item} prints {printed} for {r.name}. "]
            if cands:
                p, g = max(cands, key=lambda c: len(c[0]))
                bits += [Strong(self.names(p, link=False)), ": "]
                if g is None:
                    bits.append("realisable after all (see the table above). ")
                else:
                    why = g.whys[g.sets.index(p)] if g.whys else g.why
                    bits += [Strong(("impossible",)), f" ({g.reason}) — {why}. "]
            if r.why:
                bits += [Em(("The known values say:",)), " ", r.why]
            bits += self.erratum_link(r)
            items.append(Para(tuple(bits)))
        if not items:
            return []
        return [Section("combinations-seeds-impossible", ("Rows the seeds print that no hand can have",), tuple(items), 3)]

    def group_blocks(self, g: Group) -> list[Block]:
        if g.whys:
            return [Table((("set",), ("why",)), tuple(((self.plain(p),), (w,)) for p, w in zip(g.sets, g.whys)),
                          "impossible")]
        return [Para((g.why[:1].upper() + g.why[1:] + ":",)),
                Para((" · ".join(self.plain(p) for p in g.sets),), "sets")]

    def impossible(self) -> list[Block]:
        by: dict[str, list[Group]] = {}
        for g in self.v.impossible:
            by.setdefault(g.reason, []).append(g)
        blocks: list[Block] = []
        for reason in list(REASONS) + sorted(set(by) - set(REASONS)):
            if reason not in by:
                continue
            n = sum(len(g.sets) for g in by[reason])
            inner: list[Block] = []
            for g in by[reason]:
                inner += self.group_blocks(g)
            blocks.append(Details((f"{REASONS.get(reason, reason)} ({reason}): {n} set{'s' if n != 1 else ''}",),
                                  tuple(inner)))
        if self.v.undecided:
            n = len(self.v.undecided)
            blocks.append(Details((f"undecided: {n} set{'s' if n != 1 else ''}",), (
                Table((("set",), ("why",)), tuple(((self.plain(p),), (w,)) for p, w in self.v.undecided), "impossible"),)))
        return blocks

    def section(self) -> Section:
        v = self.v
        n = len(self.ids)
        real = len(self.shown)
        imp = sum(len(g.sets) for g in v.impossible)
        und = len(v.undecided)
        dom = sum(len(g.sets) for g in v.impossible if g.reason == "dominated")
        intro: list[Block] = [Para((
            f"The {n} patterns in force make {1 << n} sets. For each, the compiler decided while this book was built "
            "whether some legal hand's best reading claims exactly that set. ",
            Strong((f"{real} are realisable",)), ": each is shown with a witness hand (a seed's own hand, or a hand of "
            "this book, where one claims the set; else one the search found), scored by the generated scorer, with "
            "what each score table shows for it; a win on a kong's replacement shows each table after each kind of "
            "kong the same hand can be made with. ",
            Strong((f"{imp} are impossible",)), ", each for a reason, grouped below.",
            (f" {und} are undecided: {v.why_not_exhaustive}." if und else
             " The search is exhaustive: every “impossible” is a proof, not a failure to find a hand"
             + (f", except the {dom} set{'s' if dom != 1 else ''} the same tiles always read better (dominated): "
                "there every hand tried reads better another way, which is no proof." if dom else ".") if v.exhaustive
             else f" The search is not exhaustive ({v.why_not_exhaustive}): a set it did not find is not listed."),
        ))]
        if not v.complete:
            intro.append(Para((f"With {n} patterns there are too many sets to list one by one; the other "
                               f"{(1 << n) - real} sets are not realisable.",)))
        sizes = sorted({len(s.patterns) for s in self.shown} | {len(p) for g in v.impossible for p in g.sets})
        counts = []
        for k in sizes:
            r = sum(1 for s in self.shown if len(s.patterns) == k)
            i = sum(1 for g in v.impossible for p in g.sets if len(p) == k)
            counts.append(((str(k),), (str(r),), (str(i),)))
        intro.append(Table((("patterns in the set",), ("realisable",), ("impossible",)), tuple(counts), "",
                           "combinations-counts"))
        blocks: list[Block] = [*intro, Section("combinations-realisable", ("能和的组合 Realisable combinations",), (
            Para(("Columns: the set; its witness drawn as its best reading; the hand in the book's notation and its "
                  "indicator (翻); the fan as the scorer computes it; what each score table of the rule file shows; "
                  "and every row of the seeds' printed tables whose hand claims this set, with the printed value "
                  "(✓ where the rules give it, else ≠ what the rules give, and the erratum).",)),
            *self.realisable()), 3)]
        blocks += self.seeds_impossible()
        blocks.append(Section("combinations-impossible", ("不能有的组合 Impossible combinations",), (
            Para(("Grouped by the reason the search gives; open a group to see its sets.",)), *self.impossible()), 3))
        return Section("combinations", ("§11 组合 Every combination of patterns",), tuple(blocks))


def section(b: Builder, v: Verdicts, reader: Reader) -> Section:
    return Combos(b, v, reader).section()
