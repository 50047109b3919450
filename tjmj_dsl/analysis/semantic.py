"""The semantic checks of `tjmj check`: what a rule file means, found by the witness
search (analysis/witness.py) and reported as warnings a designer can act on.

Per profile:
  never-claimed      an enabled pattern no hand's best reading claims (why: never holds,
                     refused by a request rule, dropped by a conflict or requirement,
                     always outscored, or it requires a pattern the profile disables)
  unproven           no hand found, and the rules are outside the exhaustive search
  no-fan-change      a pattern that changes no fan where it is claimed without other
                     patterns (or nowhere at all): an `add` of 1 over a base of 1
  option-no-change   an option value that makes the same game as the profile's own
                     choice: no score, no request rule, no play rule differs
  option-broken      an option value the rules do not compile with under the profile, or one
                     that would undo a change the file makes itself

Each warning carries a subject (the pattern id, or option=value), which the rule
file's `silence:` section answers with a reason: `silence: {code: {subject: reason}}`.
An option value is "the same game" only when that is proved: the two compiled rule
sets differ only where the search shows no accepted hand can tell them apart."""

from __future__ import annotations

from typing import Any

from ..backends.interpret import interpreter
from ..diagnostics import Diagnostic, RuleError
from ..expr.bets import BET_SETTINGS
from ..ir import RuleSet, dump
from ..passes.lower import lower
from ..passes.resolve import Resolved, apply_options
from .bets import bets_checks, never_read
from .ranges import never
from .witness import Analysis, Impossible, Undecided, analyse

# the rule set's fields that decide claims; those only of play; those a check can compare
_CLAIM_FIELDS = ("patterns", "definitions", "algebra", "hun_count", "cycles", "hun_table", "chow", "copies", "suits", "flags",
                 "free_when", "kinds")
_PLAY_FIELDS = ("claims", "play", "settlement")
_NAMELESS = ("name", "title", "source_file", "source_sha256", "profile", "choices", "options", "profiles",
             "sources", "kind_docs", "overrides", "disabled_patterns", "score_table",
             "any_pattern_ids", "any_rule_ids")
# patch paths that can change claims or play: an option value patching them is never "the same game"
# unless the compiled rule sets are equal (checked first)
_CLAIM_PATHS = ("patterns", "definitions", "algebra", "hun", "tiles", "melds", "request_flags", "pattern_kinds")
_PLAY_PATHS = ("play", "claims", "settlement")
_BET_PATHS = {"play." + k for k in BET_SETTINGS}  # the bets' expressions (expr/bets.py)
# a kong_points key and the declared kongs it is paid for (the kinds of kong_draw)
_KONG_OF = {"exposed": {("kong", False)}, "concealed": {("concealed_kong", False)},
            "hun": {("kong", True), ("concealed_kong", True)}}


def check_profile(res: Resolved, rs: RuleSet) -> list[Diagnostic]:
    """Every semantic warning for one profile's rule set."""
    an = analyse(rs)
    return _patterns(res, rs, an) + _fan_changes(res, rs, an) + _options(res, rs, an) + bets_checks(res, rs)


def _label(rs: RuleSet, pid: str) -> str:
    for p in rs.patterns:
        if p.id == pid:
            return f"{p.name} ({pid})"
    return pid


def _patterns(res: Resolved, rs: RuleSet, an: Analysis) -> list[Diagnostic]:
    out = []
    for pid, needs in rs.unclaimable:
        out.append(Diagnostic("warning", "never-claimed", f"pattern {pid} can never be claimed under profile "
                              f"{rs.profile}: it requires {needs}, which is disabled there",
                              res.where(("patterns", pid, "requires")), f"enable {needs} here, or disable {pid} too",
                              pid))
    for p in rs.patterns:
        at = res.where(("patterns", p.id), key=True)
        why = never(p.when.ast, rs)
        if why:
            out.append(Diagnostic("warning", "never-claimed", f"pattern {p.id} can never be claimed under profile "
                                  f"{rs.profile}: its `when` never holds ({why})", at,
                                  "the ranges come from the vocabulary: 4 melds, 5 groups, 4 copies of a tile", p.id))
            continue
        v = an.pattern(p.id)
        if isinstance(v, Impossible):
            hint = {"never_holds": "its `when` holds on no decomposition: try it on a hand it should match "
                                   "with `tjmj explain`",
                    "refused": "every hand where it holds is refused by the request rules named",
                    "dropped": "its conflicts or requirements drop it wherever it holds",
                    "dominated": "where a reading claims it, another reading of the same tiles scores more"}.get(
                v.reason, "")
            out.append(Diagnostic("warning", "never-claimed", f"pattern {p.id} can never be claimed under profile "
                                  f"{rs.profile}: {v.message}", at, hint, p.id))
        elif isinstance(v, Undecided):
            out.append(Diagnostic("warning", "unproven", f"no hand found whose best reading claims pattern {p.id} "
                                  f"under profile {rs.profile}, and no proof that none exists", at, v.message, p.id))
    return out


def _fan_changes(res: Resolved, rs: RuleSet, an: Analysis) -> list[Diagnostic]:
    """A pattern whose value changes no fan: in every claim holding it (`never`), or in the
    smallest one (claimed without other patterns), compared with the claim without it."""
    out = []
    found = an.search.claimable()
    R = an.search.R
    index = {pid: i for i, pid in enumerate(an.ids)}
    algebra = rs.algebra.text
    for p in rs.patterns:
        with_p = sorted((s for s in found if p.id in s), key=lambda s: (len(s), sorted(index[x] for x in s)))
        if not with_p:
            continue
        same = []
        for s in with_p:
            rest = s - {p.id}
            if any(p.id in rs.pattern(q).requires for q in rest):
                continue  # without p the rest is no claim: something in it requires p
            m_with = sum(1 << index[x] for x in s)
            m_without = sum(1 << index[x] for x in rest)
            if R.fan(m_with) == R.fan(m_without):
                same.append(s)
        if not same:
            continue
        w = found[same[0]]
        how = (f"the algebra `{algebra}` gives fan {w.fan} with it and without it (e.g. {w.hand}: "
               f"{' + '.join(_label(rs, x) for x in w.patterns)})")
        fix = (f"a `{p.kind}` value {p.value} changes nothing there; for a bonus on top of the other patterns give "
               "it a kind of its own in pattern_kinds and say in the algebra how that kind combines")
        if len(same) == len(with_p):
            out.append(Diagnostic("warning", "no-fan-change", f"pattern {p.id} never changes a fan under profile "
                                  f"{rs.profile}: {how}", res.where(("patterns", p.id, "value")), fix, p.id))
        elif same[0] == with_p[0]:
            out.append(Diagnostic("warning", "no-fan-change", f"pattern {p.id} changes no fan when claimed without "
                                  f"other patterns, under profile {rs.profile}: {how}",
                                  res.where(("patterns", p.id, "value")), fix, p.id))
    return out


def _options(res: Resolved, rs: RuleSet, an: Analysis) -> list[Diagnostic]:
    """An option value that makes the same game as the profile's own choice."""
    out = []
    data = res.data.get("options") or {}
    prof_opts = ((res.data.get("profiles") or {}).get(rs.profile) or {}).get("options") or {}
    for o in rs.options:
        cur = dict(rs.choices).get(o.id)
        decl = data.get(o.id) or {}
        for v in o.choices:
            if str(v) == str(cur):
                continue
            paths = set(_patch_paths(decl, v)) | set(_patch_paths(decl, cur))
            dead = [never_read(p.split(".", 1)[1], dict(rs.play)) for p in sorted(paths) if p in _BET_PATHS]
            if paths and len(dead) == len(paths) and all(dead):  # it sets only bets this profile never reads
                out.append(Diagnostic("warning", "option-no-change",
                                      f"option {o.id}: {v} makes the same game as {cur} under profile {rs.profile} "
                                      f"({'; '.join(dead)})", _option_at(res, o.id, v),
                                      "drop the value, or change what it sets, or the profile's other options",
                                      f"{o.id}={v}"))
                continue
            # every value is compiled, whatever it sets (a hostile review: one setting a pattern was only applied,
            # and a broken one passed check): one that would undo the file's own change cannot be chosen at all (a
            # designer's review: an overlay's own winning condition made an option's other value an error, unsaid),
            # said at that change. A value that can change claims or play has no same game to prove cheaply.
            cheap = bool(paths) and bool({p.split(".")[0] for p in paths} & set(_CLAIM_PATHS + _PLAY_PATHS))
            try:
                other = lower(apply_options(res, rs.profile or None, {o.id: v}))
            except RuleError as e:
                owned = next((d for d in e.diagnostics if d.code == "option-owned"), None) if cheap else None
                first = owned or e.diagnostics[0]
                at = (owned.pos if owned else None) or _option_at(res, o.id, v)
                out.append(Diagnostic("warning", "option-broken", f"option {o.id}={v} does not compile under profile "
                                      f"{rs.profile}: {first.message}", at, first.hint, f"{o.id}={v}"))
                continue
            if cheap:
                continue
            why = same_game(rs, other, an)
            if why:
                at = res.where(("profiles", rs.profile, "options", o.id)) if o.id in prof_opts else _option_at(res, o.id, v)
                out.append(Diagnostic("warning", "option-no-change",
                                      f"option {o.id}: {v} makes the same game as {cur} under profile {rs.profile} ({why})",
                                      at, "drop the value, or change what it sets, or the profile's other options",
                                      f"{o.id}={v}"))
    return out


def _patch_paths(decl: dict[str, Any], value: Any) -> list[str]:
    if "choices" in decl:
        return list(((decl["choices"].get(str(value)) or {}).get("set") or {}))
    return list(decl.get("set") or {})


def _option_at(res: Resolved, oid: str, value: Any) -> Any:
    if str(value) in (((res.data.get("options") or {}).get(oid) or {}).get("choices") or {}):
        return res.where(("options", oid, "choices", str(value)), key=True)
    return res.where(("options", oid, "values"))


def same_game(a: RuleSet, b: RuleSet, an: Analysis) -> str:
    """Why rule sets a and b make the same game ("" when they may not): every field that
    differs is shown to change nothing for the hands the search found a accepts."""
    fields = [f for f in a.__dataclass_fields__ if f not in _NAMELESS]
    diff = [f for f in fields if dump(getattr(a, f)) != dump(getattr(b, f))]
    if not diff:
        return "the rules they compile to are the same"
    if set(diff) & set(_CLAIM_FIELDS + _PLAY_FIELDS) or not an.exhaustive:
        return ""
    s = an.search
    s.claimable()
    reasons = []
    fans = {w.fan for w in s.claimable().values()}
    ia, ib = interpreter(a), interpreter(b)
    for f in diff:
        if f == "kong_points":
            ka, kb = dict(a.kong_points), dict(b.kong_points)
            for k in sorted(set(ka) | set(kb)):
                if ka.get(k) == kb.get(k):
                    continue
                kongs = _KONG_OF.get(k)
                if kongs is None:
                    return ""
                for (tr, hcl, ds, kd, fs), _ in s.valid_hands.items():
                    if kd == k or set(ds) & kongs:
                        return ""
                reasons.append(f"kong_points.{k} is paid for a kong of that kind, and no hand the request rules "
                               "accept holds one")
        elif f == "min_fan":
            lo, hi = sorted((a.min_fan, b.min_fan))
            if any(lo <= x < hi for x in fans):
                return ""
            reasons.append(f"no claim has a fan from {lo} to {hi - 1}")
        elif f == "total":
            for hand, _ in s.valid_hands.values():
                for fan in fans:
                    if fan >= max(a.min_fan, b.min_fan) and ia.total(hand, fan) != ib.total(hand, fan):
                        return ""
            reasons.append("the score tables show the same for every claim")
        elif f == "request_rules":
            ra = {(r.id, r.error_when.text) for r in a.request_rules}
            rb = {(r.id, r.error_when.text) for r in b.request_rules}
            for hand, _ in s.valid_hands.values():
                if ib.request_errors(hand):
                    return ""
            for hand, errs in s.refused_hands.values():
                if not ib.request_errors(hand):
                    return ""
            reasons.append("the request rules " + ", ".join(sorted(r for r, _ in ra ^ rb))
                           + " refuse the same hands")
        else:
            return ""
    return "; ".join(reasons)
