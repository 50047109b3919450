"""The rule file's text for people (rulebook chapters, decisions, errata,
glossary) and its example hands → IR. The schema has checked the shapes;
this pass copies them out in file order and reads each example's hand, so a
hand that cannot be read is an error at its line and column."""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostic
from ..game.facts import example_facts, problems
from ..ir import Decision, Erratum, Example, Expect, Prose
from ..notation import parse_hand
from ..tiles import TileError
from .resolve import Path, Resolved

CLAIM_FIELDS = ("patterns", "fan", "total", "win", "refused", "balances", "next_dealer", "may_zuozhuang", "lazhuang_most")
BETS_FIELDS = ("may_zuozhuang", "lazhuang_most")  # what a bets example says; the others are a hand's or an outcome's


def _s(x: Any) -> str:
    return "" if x is None else str(x)


def lower_prose(res: Resolved, d: dict[str, Any], diags: list[Diagnostic]) -> Prose:
    book: dict[str, Any] = d["rulebook"] if isinstance(d.get("rulebook"), dict) else {}
    chapters = []
    examples: list[Example] = []
    for k, v in book.items():
        if isinstance(v, dict):
            chapters.append((str(k), tuple(_s(p) for p in v.get("text") or ())))
            for i, ex in enumerate(v.get("examples") or ()):
                _example(res, ("rulebook", k, "examples", i), str(k), "chapter", ex, examples, diags)
            for i, ex in enumerate(v.get("outcomes") or ()):
                _example(res, ("rulebook", k, "outcomes", i), str(k), "chapter", ex, examples, diags)
        elif isinstance(v, list):
            chapters.append((str(k), tuple(_s(p) for p in v)))
    decisions = tuple(Decision(str(k), _s(v.get("chapter")), _s(v.get("title")), _s(v.get("text")), _s(v.get("source")))
                      for k, v in (d.get("decisions") or {}).items() if isinstance(v, dict))
    errata = tuple(Erratum(str(k), _s(v.get("source")), _s(v.get("printed")), _s(v.get("decision")),
                           tuple(_s(x) for x in v.get("known") or () if x is not None))
                   for k, v in (d.get("errata") or {}).items() if isinstance(v, dict))
    glossary = tuple((str(k), _s(v.get("pinyin")), _s(v.get("en")))
                     for k, v in (d.get("glossary") or {}).items() if isinstance(v, dict))
    for pid, p in (d.get("patterns") or {}).items():
        if not isinstance(p, dict):
            continue
        for role, key in (("example", "examples"), ("near_miss", "near_misses")):
            for i, ex in enumerate(p.get(key) or ()):
                _example(res, ("patterns", pid, key, i), str(pid), role, ex, examples, diags)
    describe = []
    choice_docs = []
    for oid, o in (d.get("options") or {}).items():
        if not isinstance(o, dict):
            continue
        if isinstance(o.get("choices"), dict):
            choice_docs.append((str(oid), tuple((str(k), _s((c or {}).get("description")) if isinstance(c, dict) else "")
                                                for k, c in o["choices"].items())))
        if isinstance(o.get("describe"), str):
            describe.append((str(oid), o["describe"]))
        for i, ex in enumerate(o.get("examples") or ()):
            _example(res, ("options", oid, "examples", i), str(oid), "option", ex, examples, diags)
    return Prose(tuple(chapters), decisions, errata, glossary, tuple(examples), tuple(describe), tuple(choice_docs))


def _expect(res: Resolved, path: Path, c: dict[str, Any]) -> Expect:
    at = tuple((f, res.where(path + (f,))) for f in CLAIM_FIELDS if f in c)
    pats = c.get("patterns")
    bal = c.get("balances")
    return Expect(tuple(str(x) for x in pats) if isinstance(pats, list) else None,
                  c.get("fan") if isinstance(c.get("fan"), int) else None,
                  c.get("total") if isinstance(c.get("total"), int) else None,
                  c.get("win") if isinstance(c.get("win"), bool) else None,
                  bool(c.get("refused")), at,
                  tuple(int(x) for x in bal) if isinstance(bal, list) and all(isinstance(x, int) for x in bal) else None,
                  c.get("next_dealer") if isinstance(c.get("next_dealer"), int) else None,
                  c.get("may_zuozhuang") if isinstance(c.get("may_zuozhuang"), bool) else None,
                  tuple(c["lazhuang_most"]) if isinstance(c.get("lazhuang_most"), list) else None)


def _claims_fit(res: Resolved, path: Path, ex: dict[str, Any], bets: bool, diags: list[Diagnostic]) -> bool:
    """Whether each result says only what its example's kind can say: a bets example the bets
    (may_zuozhuang, lazhuang_most), a hand or an outcome anything else."""
    ok = True
    for k, c in (ex.get("results") or {}).items():
        for f in c if isinstance(c, dict) else ():
            if (f in BETS_FIELDS) != bets:
                allowed = BETS_FIELDS if bets else tuple(x for x in CLAIM_FIELDS if x not in BETS_FIELDS)
                diags.append(Diagnostic("error", "example", f"a {'bets' if bets else 'hand or outcome'} example does "
                                        f"not say {f}", res.where(path + ("results", k, f), True),
                                        "it says " + ", ".join(allowed)))
                ok = False
    return ok


def _bets_example(res: Resolved, path: Path, owner: str, ex: dict[str, Any], out: list[Example],
                  diags: list[Diagnostic]) -> None:
    """An option's example of the bets before a deal: the game so far (its fields left out as in a
    game's first hand), checked to be a game's, at the place of the field that cannot be."""
    b = ex["bets"]
    if not _claims_fit(res, path, ex, True, diags):
        return
    game = example_facts(b.get("game") or {})
    bad = problems(game)
    for fpath, msg in bad:
        while fpath and not _has(b.get("game"), fpath):
            fpath = fpath[:-1]
        diags.append(Diagnostic("error", "example", f"example of {owner}: {msg}",
                                res.where(path + ("bets", "game") + fpath if "game" in b else path + ("bets",),
                                          not fpath),
                                "the facts must be a game's: each hand dealt by one seat, balances summing to 0"))
    if bad:
        return
    dealer = b["dealer"]
    for k, c in (ex.get("results") or {}).items():
        most = c.get("lazhuang_most") if isinstance(c, dict) else None
        if isinstance(most, list) and len(most) == 4 and most[dealer] != 0:
            diags.append(Diagnostic("error", "example", f"example of {owner}: the dealer (seat {dealer}) does not pull",
                                    res.where(path + ("results", k, "lazhuang_most")),
                                    f"write 0 for seat {dealer} in lazhuang_most"))
            return
    expect = tuple((str(k), _expect(res, path + ("results", k), v if isinstance(v, dict) else {}))
                   for k, v in (ex.get("results") or {}).items())
    doc, _ = res.origin(path)
    request = {"dealer": dealer, "zuozhuang": bool(b.get("zuozhuang", False)), "game": game}
    opts = tuple((str(k), v) for k, v in (ex.get("options") or {}).items())
    out.append(Example(owner, "option", "", request, opts, _s(ex.get("note")), expect, res.where(path + ("bets",)),
                       res.top is not None and doc is not res.top, "bets"))


def _has(node: Any, path: tuple[str, ...]) -> bool:
    for p in path:
        if not isinstance(node, dict) or p not in node:
            return False
        node = node[p]
    return True


def _example(res: Resolved, path: Path, owner: str, role: str, ex: Any, out: list[Example],
             diags: list[Diagnostic]) -> None:
    if role == "option" and isinstance(ex, dict) and isinstance(ex.get("bets"), dict):
        _bets_example(res, path, owner, ex, out, diags)
        return
    if role == "option" and isinstance(ex, dict) and not _claims_fit(res, path, ex, False, diags):
        return
    if isinstance(ex, dict) and isinstance(ex.get("outcome"), dict):
        if role == "option":
            expect = tuple((str(k), _expect(res, path + ("results", k), v if isinstance(v, dict) else {}))
                           for k, v in (ex.get("results") or {}).items())
        else:
            expect = (("", _expect(res, path, ex)),)
        doc, _ = res.origin(path)
        opts = tuple((str(k), v) for k, v in (ex.get("options") or {}).items())
        out.append(Example(owner, role, "", dict(ex["outcome"]), opts, _s(ex.get("note")), expect,
                           res.where(path + ("outcome",)), res.top is not None and doc is not res.top, "outcome"))
        return
    if not isinstance(ex, dict) or not isinstance(ex.get("hand"), str):
        return  # the schema said so
    hand = ex["hand"]
    try:
        req: dict[str, Any] = dict(parse_hand(hand))
    except TileError as e:
        doc, dpath = res.origin(path + ("hand",))
        try:
            pos = doc.pos_of_offset(doc.expr_offset(dpath, e.pos), doc.expr_offset(dpath, e.pos) + 1)
        except (KeyError, TypeError):
            pos = doc.pos(dpath)
        diags.append(Diagnostic("error", "example", f"example hand: {e.message}", pos, e.hint))
        return
    if "draw" not in req:
        diags.append(Diagnostic("error", "example", "an example hand needs its winning tile", res.where(path + ("hand",)),
                                "add it after '+', e.g. 345m 123s EEE 77m 45s +6s"))
        return
    req["indicator"] = _s(ex.get("indicator"))
    if ex.get("kong_draw") is not None:
        req["kong_draw"] = ex["kong_draw"]
    if ex.get("kong_chain") is not None:
        req["kong_chain"] = ex["kong_chain"]
    for f in ex.get("flags") or ():
        req[str(f)] = True
    opts = tuple((str(k), v) for k, v in (ex.get("options") or {}).items())
    if role == "option":
        expect = tuple((str(k), _expect(res, path + ("results", k), v if isinstance(v, dict) else {}))
                       for k, v in (ex.get("results") or {}).items())
    else:
        expect = (("", _expect(res, path, ex)),)
    doc, _ = res.origin(path)
    out.append(Example(owner, role, hand, req, opts, _s(ex.get("why") if role == "near_miss" else ex.get("note")),
                       expect, res.where(path + ("hand",)), res.top is not None and doc is not res.top))
