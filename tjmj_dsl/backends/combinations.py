"""The combination table (the rulebook's last chapter): every set of the patterns in
force, each either realisable — a witness hand whose best reading claims exactly that
set, scored by the generated scorer — or impossible, with the reason
(analysis/witness.py proves it; its reason codes and the rule file's names say it).

The search takes seconds, so its verdicts are kept in generated/<profile>/
combinations.json, keyed by what decides them (`search_key`: the claim-deciding part
of the rules under the options in force, and the code of the search and of the engine
it scores with). A build whose key is the cached one re-scores every cached witness
with the profile's generated scorer (milliseconds) instead of searching; a witness the
scorer does not read as its set (the file edited by hand, or a broken engine) makes
the cache unusable, says why, and the search runs again. The book is always built
from the file's contents (a fresh search is written, then read back), so a build from
the cache and one from a search give the same bytes."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Iterator

from ..analysis.witness import Impossible, Undecided, Witness, analyse, claims_key, hand_text
from ..ir import RuleSet
from .codegen import INLINED
from .interpret import interpreter
from ..layout import COMBINATIONS
from .safe import label

FILE = COMBINATIONS
FORMAT = "tjmj-combinations/1"
LIMIT = 1 << 12  # sets listed one by one; beyond, only the realisable ones are listed
_SEARCH_SOURCES = ("analysis/witness.py", "passes/atoms.py", "backends/combinations.py") + INLINED
_REQUEST_KEYS = ("concealed", "melds", "draw", "indicator", "kong_draw")
# reasons whose sentence names the set itself: a group of them is said once, from what it is about
_SAID_BY_GROUP = ("always_with", "refused", "outranked", "conflict")


@dataclass(frozen=True)
class Group:
    """Impossible sets with one reason (a witness.py code) about the same patterns (or
    request rules); `why` says it for all of them, or `whys` for each set."""

    reason: str
    about: tuple[str, ...]
    why: str
    sets: tuple[tuple[str, ...], ...]
    whys: tuple[str, ...] = ()


@dataclass(frozen=True)
class Verdicts:
    key: str
    ids: tuple[str, ...]  # the enabled patterns, rule-file order
    exhaustive: bool
    why_not_exhaustive: str
    complete: bool  # every subset is listed (False: too many sets, only the realisable ones)
    witnesses: tuple[tuple[tuple[str, ...], dict[str, Any]], ...]  # (set, request the search found)
    impossible: tuple[Group, ...]
    undecided: tuple[tuple[tuple[str, ...], str], ...] = ()
    digest: str = ""  # as written in the file (the digest of its verdicts when it was written)


def digest(v: Verdicts) -> str:
    """A sha256 of the verdicts themselves: a file whose digest does not match was edited."""
    body = [v.key, list(v.ids), v.exhaustive, v.why_not_exhaustive, v.complete,
            [[list(p), req] for p, req in v.witnesses],
            [[g.reason, list(g.about), g.why, [list(x) for x in g.sets], list(g.whys)] for g in v.impossible],
            [[list(p), w] for p, w in v.undecided]]
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def search_key(rs: RuleSet) -> str:
    """What the verdicts depend on: the rules' claims (patterns, definitions, algebra,
    huns, request rules, … under the options in force) and the code that searches and scores."""
    h = hashlib.sha256(claims_key(rs).encode("utf-8"))
    pkg = resources.files("tjmj_dsl")
    for name in _SEARCH_SOURCES:
        h.update(name.encode("utf-8"))
        h.update(pkg.joinpath(name).read_bytes())
    return h.hexdigest()


# ---- reading a hand with the generated scorer ---------------------------------------------

_READS: dict[tuple[str, str], tuple[int, int, Any] | None] = {}


def read(mod: Any, request: dict[str, Any], key: str = "") -> tuple[int, int, Any] | None:
    """(claimed mask of the best reading, fan, the hand read) by the generated scorer `mod`;
    None when the request is refused or the tiles make no winning shape. With `key` (a
    search_key: the claims are the same for every scorer of that key) a hand is read once."""
    if key:
        k = (key, json.dumps(request, sort_keys=True, ensure_ascii=False, default=repr))
        if k not in _READS:
            if len(_READS) > 50_000:
                _READS.clear()
            _READS[k] = read(mod, request)
        return _READS[k]
    R = mod.RULES
    try:
        r = mod.parse_request(dict(request), True, R.flags, R.copies)
    except ValueError:
        return None
    h = mod.make_hand(R, r, r.draw)
    if R.request_errors(h):
        return None
    best, _, bh = mod.best_claim(R, h)
    if best is None:
        return None
    return best[2], best[0], bh


@dataclass(frozen=True)
class Score:
    """What the scorer gives a hand: its claim's fan and formula, whether it wins and what
    the score table in force shows."""

    fan: int
    formula: str
    win: bool
    total: int


def score(mod: Any, request: dict[str, Any], key: str) -> Score | None:
    """The score of a hand by the generated scorer `mod`, from its best reading (read once
    per search key) and the scorer's own least fan and score table."""
    got = read(mod, request, key)
    if got is None:
        return None
    mask, fan, h = got
    R = mod.RULES
    win = bool(mod.wins(R, mask, fan))
    return Score(fan, str(mod.claim_display(R, mask)[0]), win, int(R.total(h, fan)) if win else 0)


_DRAWN: dict[tuple[str, str], dict[str, Any]] = {}


def drawn(mod: Any, request: dict[str, Any], key: str) -> dict[str, Any]:
    """The scorer's answer for a hand, for its decomposition and huns (the same for every
    scorer of one search key: read once)."""
    k = (key, json.dumps(request, sort_keys=True, ensure_ascii=False, default=repr))
    got = _DRAWN.get(k)
    if got is None:
        if len(_DRAWN) > 10_000:
            _DRAWN.clear()
        got = _DRAWN[k] = dict(mod.score(dict(request)))
    return got


def names_of(ids: tuple[str, ...], mask: int) -> tuple[str, ...]:
    return tuple(pid for i, pid in enumerate(ids) if mask >> i & 1)


def mask_of(ids: tuple[str, ...], patterns: tuple[str, ...] | list[str]) -> int:
    index = {p: i for i, p in enumerate(ids)}
    return sum(1 << index[p] for p in patterns)


def order(ids: tuple[str, ...], sets: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Smaller sets first, then rule-file order (as the search's table)."""
    return sorted(sets, key=lambda s: (len(s), [-(mask_of(ids, s) >> i & 1) for i in range(len(ids))]))


# ---- the search --------------------------------------------------------------------------

def _label(rs: RuleSet, pid: str) -> str:
    for p in rs.patterns:
        if p.id == pid:
            return f"{p.name} ({pid})"
    return pid


def group_why(rs: RuleSet, reason: str, about: tuple[str, ...]) -> str:
    """The sentence of a group whose sets' own sentences name each set."""
    names = " + ".join(_label(rs, p) for p in about)
    if reason == "always_with":
        return (f"{names} {'is' if len(about) == 1 else 'are'} claimed too wherever one of these sets holds, "
                "so no best reading claims the set alone")
    if reason == "refused":
        msg = {r.id: r.message for r in rs.request_rules}
        return ("these hold together only in hands the request rules refuse ("
                + ("; ".join(f"{rid}: {msg.get(rid, rid)}" for rid in about) or "different rules for different hands") + ")")
    if reason == "outranked":
        return f"wherever one of these sets holds, a claim of {names} scores at least as much"
    if reason == "conflict" and len(about) == 2:
        desc = next((c.description for p in rs.patterns if p.id == about[0] for c in p.conflicts
                     if c.other == about[1]), "")
        return (f"{_label(rs, about[0])} conflicts with {_label(rs, about[1])}" + (f": {desc}" if desc else "")
                + ", and no hand where one of these sets holds lifts the conflict")
    return ""


def search(rs: RuleSet, mod: Any, key: str) -> Verdicts:
    """Every set's verdict, by the witness search (shared by rule sets that claim alike)."""
    s = analyse(rs, rules=mod.RULES).search
    ids = tuple(s.ids)
    complete = 1 << len(ids) <= LIMIT
    table = s.table(LIMIT) if complete else list(s.claimable().values())
    witnesses = tuple((v.patterns, dict(v.request)) for v in table if isinstance(v, Witness))
    undecided = tuple((v.patterns, v.message) for v in table if isinstance(v, Undecided))
    by: dict[tuple[str, tuple[str, ...]], list[Impossible]] = {}
    for v in table:
        if isinstance(v, Impossible):
            by.setdefault((v.reason, tuple(v.about)), []).append(v)
    groups = []
    for (reason, about), members in by.items():
        msgs = {m.message for m in members}
        why = members[0].message if len(msgs) == 1 else (group_why(rs, reason, about) if reason in _SAID_BY_GROUP else "")
        groups.append(Group(reason, about, why, tuple(m.patterns for m in members),
                            () if why else tuple(m.message for m in members)))
    return Verdicts(key, ids, s.exhaustive, s.why_not_exhaustive, complete, witnesses, tuple(groups), undecided)


# ---- the file ---------------------------------------------------------------------------

def to_json(rs: RuleSet, v: Verdicts, mod: Any) -> str:
    """The cache file: a generated header, the key, one line per realisable set (with
    what the profile's scorer gives for its witness) and one per group of impossible sets."""
    head = {
        "generated": f"@generated by tjmj from {label(rs.source_file)} (sha256 {rs.source_sha256}) — do not edit",
        "format": FORMAT,
        "about": ("The rulebook's combination table: every set of the patterns in force, with a witness hand "
                  "whose best reading claims exactly that set, or the reason no hand does (sets of patterns are "
                  "written as their ids, space-separated). `tjmj compile` and `--check` re-score every witness "
                  "with the generated scorer, and search again only when `key` (the rules' claims and the "
                  "search's code) changes."),
        "rules": {"name": rs.name, "profile": rs.profile, "sha256": rs.source_sha256, "options": dict(rs.choices)},
        "key": v.key,
        "digest": digest(v),
        "patterns": list(v.ids),
        "exhaustive": v.exhaustive,
        "why_not_exhaustive": v.why_not_exhaustive,
        "complete": v.complete,
    }
    wl = []
    for pats, req in v.witnesses:
        sc = score(mod, req, v.key)
        if sc is None:
            raise ValueError(f"the witness of {' + '.join(pats)} ({hand_text(req)}) is refused or has no winning shape")
        wl.append(json.dumps({"set": " ".join(pats), "witness": hand_text(req), "fan": sc.fan, "total": sc.total,
                              "win": sc.win, "formula": sc.formula, "request": req}, ensure_ascii=False))
    gl = []
    for g in v.impossible:
        item: dict[str, Any] = {"reason": g.reason, "about": list(g.about), "why": g.why,
                                "sets": [" ".join(p) for p in g.sets]}
        if g.whys:
            item["whys"] = list(g.whys)
        gl.append(json.dumps(item, ensure_ascii=False))
    ul = [json.dumps({"set": " ".join(p), "why": why}, ensure_ascii=False) for p, why in v.undecided]

    def arr(lines: list[str]) -> str:
        return "[\n  " + ",\n  ".join(lines) + "\n ]" if lines else "[]"
    fields = [f"{json.dumps(k)}: {json.dumps(x, ensure_ascii=False)}" for k, x in head.items()]
    fields += [f'"realisable": {arr(wl)}', f'"impossible": {arr(gl)}', f'"undecided": {arr(ul)}']
    return "{" + ",\n ".join(fields) + "\n}\n"  # the header on the first line, as every generated file


def _set(text: Any) -> tuple[str, ...]:
    if not isinstance(text, str):
        raise TypeError(f"a set is written as a string of ids, not {type(text).__name__}")
    return tuple(text.split())


def parse(text: str) -> Verdicts:
    """The verdicts a combinations.json holds (ValueError, KeyError or TypeError when it is
    not one)."""
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} file")
    ids = tuple(str(x) for x in data["patterns"])
    witnesses = []
    for w in data["realisable"]:
        req = w["request"]
        if not isinstance(req, dict):
            raise TypeError("a witness's request is not a mapping")
        witnesses.append((_set(w["set"]), dict(req)))
    groups = []
    for g in data["impossible"]:
        sets = tuple(_set(x) for x in g["sets"])
        whys = tuple(str(x) for x in g.get("whys") or ())
        if whys and len(whys) != len(sets):
            raise ValueError("a group's whys do not match its sets")
        groups.append(Group(str(g["reason"]), tuple(str(x) for x in g["about"]), str(g["why"]), sets, whys))
    undecided = tuple((_set(u["set"]), str(u["why"])) for u in data["undecided"])
    return Verdicts(str(data["key"]), ids, bool(data["exhaustive"]), str(data["why_not_exhaustive"]),
                    bool(data["complete"]), tuple(witnesses), tuple(groups), undecided, str(data["digest"]))


def check(v: Verdicts, rs: RuleSet, mod: Any) -> str:
    """"" when the verdicts fit these rules and every witness is read by the scorer as its
    set; else what is wrong."""
    ids = tuple(p.id for p in rs.patterns)
    if v.ids != ids:
        return f"{FILE} lists other patterns than the rules enable"
    listed = [frozenset(p) for p, _ in v.witnesses] + [frozenset(p) for g in v.impossible for p in g.sets] \
        + [frozenset(p) for p, _ in v.undecided]
    if any(p not in ids for s in listed for p in s):
        return f"{FILE} names a pattern the rules do not enable"
    if len(set(listed)) != len(listed) or (v.complete and len(listed) != 1 << len(ids)):
        return f"{FILE} does not list every set of patterns exactly once"
    flags = {f for f, _ in rs.flags}
    for pats, req in v.witnesses:
        name = " + ".join(_label(rs, p) for p in pats) or "(no pattern)"
        if not set(req) <= set(_REQUEST_KEYS) | flags:
            return f"{FILE}: the witness of {name} has fields a request does not have"
        got = read(mod, req, v.key)
        if got is None or got[0] != mask_of(ids, pats):
            said = "refuses it or finds no winning shape" if got is None else \
                "claims " + (" + ".join(_label(rs, p) for p in names_of(ids, got[0])) or "no pattern")
            return (f"{FILE}: the witness of {name}, {hand_text(req)} (indicator {req.get('indicator')}), "
                    f"is not that set: the generated scorer {said}")
    if v.digest != digest(v):
        return f"{FILE} was edited by hand: its digest does not match its verdicts"
    return ""


def promote(v: Verdicts, rs: RuleSet, mod: Any, hands: list[dict[str, Any]]) -> Verdicts:
    """The verdicts with every set the search could not settle — `dominated` (no hand tried
    had it as its best reading: not a proof) or undecided — that one of `hands` (the seeds'
    rows, the rule file's examples) claims exactly, made realisable with that hand."""
    open_sets = {frozenset(p) for g in v.impossible if g.reason == "dominated" for p in g.sets}
    open_sets |= {frozenset(p) for p, _ in v.undecided}
    flags = {f for f, _ in rs.flags}
    found: dict[frozenset[str], dict[str, Any]] = {}
    for req in hands:
        if not open_sets - set(found):
            break
        if not set(req) <= set(_REQUEST_KEYS) | flags:
            continue
        got = read(mod, req, v.key)
        if got is not None:
            fs = frozenset(names_of(v.ids, got[0]))
            if fs in open_sets and fs not in found:
                found[fs] = dict(req)
    if not found:
        return v
    witnesses = list(v.witnesses) + [(names_of(v.ids, mask_of(v.ids, sorted(fs))), req) for fs, req in found.items()]
    rank = {p: i for i, p in enumerate(order(v.ids, [p for p, _ in witnesses]))}
    groups = []
    for g in v.impossible:
        keep = [i for i, p in enumerate(g.sets) if frozenset(p) not in found]
        if keep:
            groups.append(Group(g.reason, g.about, g.why, tuple(g.sets[i] for i in keep),
                                tuple(g.whys[i] for i in keep) if g.whys else ()))
    return Verdicts(v.key, v.ids, v.exhaustive, v.why_not_exhaustive, v.complete,
                    tuple(sorted(witnesses, key=lambda w: rank[w[0]])), tuple(groups),
                    tuple(u for u in v.undecided if frozenset(u[0]) not in found))


def verdicts(rs: RuleSet, mod: Any, previous: str | None, hands: list[dict[str, Any]] | None = None
             ) -> tuple[Verdicts, str, str]:
    """(the verdicts of rs, the file that holds them, why a file that was there could not be
    used: "" when it was, or when it was made for other rules). From the file when it holds
    this key and checks out, else by a search; either way with `hands` tried on the sets
    the search could not settle (promote)."""
    key = search_key(rs)
    why = ""
    if previous is not None:
        try:
            cached: Verdicts | None = parse(previous)
        except (ValueError, KeyError, TypeError) as e:
            cached, why = None, f"{FILE} cannot be read ({type(e).__name__}: {e})"
        if cached is not None and cached.key == key:
            try:
                why = check(cached, rs, mod)
            except (ValueError, KeyError, TypeError, AttributeError, IndexError) as e:  # edited by hand: searched again
                why = f"{FILE} cannot be used ({type(e).__name__}: {e})"
            if not why:
                text = to_json(rs, promote(cached, rs, mod, hands or []), mod)
                return parse(text), text, ""
    text = to_json(rs, promote(search(rs, mod, key), rs, mod, hands or []), mod)
    return parse(text), text, why


# ---- what the book shows for a realisable set ------------------------------------------

@dataclass(frozen=True)
class Shown:
    """A realisable set as the book shows it: the hand (a seed's or an example's when one
    claims exactly the set, else the search's), where it comes from, the scorer's answer,
    and per score table what it shows after each kind of kong the win may follow."""

    patterns: tuple[str, ...]
    request: dict[str, Any]
    hand: str  # the request in the book's notation
    origin: str  # "seed", "example" or "search"
    origin_ref: str
    score: Score
    answer: dict[str, Any]  # the scorer's answer: its decomposition drawn, its huns
    totals: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]  # table → ((kong kind or "", total), ...)


class Reader:
    """Reads hands with one profile's generated scorer; totals under every score table of
    the file by the reference interpreter (the scorer computes only the table in force)."""

    def __init__(self, rs: RuleSet, mod: Any, key: str) -> None:
        self.rs = rs
        self.mod = mod
        self.key = key
        self.ids = tuple(p.id for p in rs.patterns)
        self._interp = interpreter(rs)

    def claimed(self, request: dict[str, Any]) -> tuple[str, ...] | None:
        got = self._read(request)
        return None if got is None else names_of(self.ids, got[0])

    def _read(self, request: dict[str, Any]) -> tuple[int, int, Any] | None:
        return read(self.mod, request, self.key)

    def shown(self, patterns: tuple[str, ...], request: dict[str, Any], hand: str, origin: str, ref: str) -> Shown:
        sc = score(self.mod, request, self.key)
        assert sc is not None
        res = drawn(self.mod, request, self.key)
        tables: list[tuple[str, tuple[tuple[str, int], ...]]] = []
        variants = self.kong_variants(request, res) if sc.win else []
        for tid, expr in self.rs.score_tables:
            cells = []
            for kind, req in variants:
                got = self._read(req)
                assert got is not None
                cells.append((kind, self._interp.total(got[2], got[1], expr)))
            tables.append((tid, tuple(cells)))
        return Shown(patterns, request, hand, origin, ref, sc, res, tuple(tables))

    def kong_variants(self, request: dict[str, Any], res: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """(kong kind, request) for each kind of kong of the rules' kong_points whose
        replacement this win could follow with the same claim: the witness's own kong, and
        the same hand with that kong made another kind (exposed, concealed, of huns)."""
        kd = request.get("kong_draw")
        if not kd:
            return [("", request)]
        got = self._read(request)
        assert got is not None
        want = got[0]
        huns = [str(x) for x in res.get("hun_kinds") or ()]
        out: list[tuple[str, dict[str, Any]]] = []
        for kind, _ in self.rs.kong_points:
            if kind == kd:
                out.append((kind, request))
                continue
            for cand in _other_kong(request, str(kd), kind, huns):
                g = self._read(cand)
                if g is not None and g[0] == want:
                    out.append((kind, cand))
                    break
        return out


_DECLARED = {"exposed": "kong", "concealed": "concealed_kong"}
_TILES = ("E", "S", "W", "N", "C", "F", "P") + tuple(f"{r}{s}" for s in "mps" for r in range(1, 10))


def _other_kong(req: dict[str, Any], kd: str, kind: str, huns: list[str]) -> Iterator[dict[str, Any]]:
    """The request with the kong its win followed (kind kd) turned into a kong of `kind`:
    exposed ↔ concealed keeps the tiles; to or from a kong of huns changes them (and,
    to one, tries the meld exposed and concealed: the rules' request rules say which
    way of making a kong of huns that kind is)."""
    melds = list(req.get("melds") or [])
    for i, m in enumerate(melds):
        is_hun = str(m.get("tile")) in huns
        if m.get("type") not in ("kong", "concealed_kong") or is_hun != (kd == "hun") or \
                (kd in _DECLARED and m.get("type") != _DECLARED[kd]):
            continue
        if kind in _DECLARED:
            tiles = [str(m["tile"])] if not is_hun else [t for t in _TILES if t not in huns]
            types = [_DECLARED[kind]]
        else:
            tiles = list(reversed(huns))  # the indicator's own kind last: the wall keeps one of it
            types = [str(m["type"])] + [x for x in _DECLARED.values() if x != m["type"]]
        for typ in types:
            for t in tiles:
                swapped = [dict(x) for x in melds]
                swapped[i] = {"type": typ, "tile": t}
                yield dict(req, melds=swapped, kong_draw=kind)
        return
