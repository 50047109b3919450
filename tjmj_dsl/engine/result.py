"""A result for people and programs: the formula text from the algebra's
plan, the decomposition with what each hun stood for, and the result mapping."""

from __future__ import annotations

import json as _json
from typing import Any, NamedTuple

from ..tiles import NAMES  # tjmj:inline-drop
from .contract import CONTRACT, REFUSED  # tjmj:inline-drop
from .hand import GROUP_KIND_NAMES, PAIR, Hand  # tjmj:inline-drop
from .request import Request  # tjmj:inline-drop
from .lasting import restart  # tjmj:inline-drop
from .shared import SharedList, shared_row  # tjmj:inline-drop

def render(plan: Any, by_kind: dict) -> tuple:  # type: ignore[type-arg]
    """Evaluate the algebra plan, keeping its text: (value, text, prec, used ids).
    prec 3 atom, 2 product, 1 sum; an empty text is a factor of 1."""
    op = plan[0]
    if op == "num":
        return plan[1], str(plan[1]), 3, []
    if op == "kind":
        return by_kind[plan[1]], None, 3, []
    if op == "agg" and plan[2][0] == "list":  # min([a, 16]): each item's value and text; every item's patterns
        parts = [render(x, by_kind) for x in plan[2][1]]
        vals = [p[0] for p in parts]
        used = [u for p in parts for u in p[3]]
        if plan[1] == "len":
            return len(vals), str(len(vals)), 3, used
        if plan[1] == "sum":
            return sum(vals), "+".join(_wrap(p[1] or "1", p[2], 1) for p in parts) or "0", 1 if len(parts) > 1 else 3, used
        if plan[1] == "product":
            prod = 1
            for v in vals:
                prod *= v
            return prod, "×".join(_wrap(p[1] or "1", p[2], 2) for p in parts) or "1", 2 if len(parts) > 1 else 3, used
        v = (min if plan[1] == "min" else max)(vals) if vals else 0
        return v, f"{plan[1]}({', '.join(p[1] or '1' for p in parts)})", 3, used
    if op == "agg":
        items = render(plan[2], by_kind)[0]
        vals = [v for v, _ in items]
        used = [pid for _, pid in items]
        if plan[1] == "sum":
            return sum(vals), "+".join(map(str, vals)) or "0", 1 if len(vals) > 1 else 3, used
        if plan[1] == "product":
            p = 1
            for v in vals:
                p *= v
            return p, "×".join(map(str, vals)), 2 if len(vals) > 1 else 3, used
        if plan[1] == "len":
            return len(vals), str(len(vals)), 3, []
        v = (min if plan[1] == "min" else max)(vals) if vals else 0
        return v, str(v), 3, [pid for val, pid in items if val == v][:1]
    if op == "if":
        c, _, _, cu = render(plan[1], by_kind)
        v, t, p, u = render(plan[2] if c else plan[3], by_kind)
        return v, t, p, cu + u
    if op == "bin":
        lv, lt, lp, lu = render(plan[2], by_kind)
        rv, rt, rp, ru = render(plan[3], by_kind)
        o = plan[1]
        if o == "*":
            v = lv * rv
            if not lt:
                return v, rt, rp, lu + ru
            if not rt:
                return v, lt, lp, lu + ru
            return v, f"{_wrap(lt, lp, 2)}×{_wrap(rt, rp, 2)}", 2, lu + ru
        if o == "+":
            return lv + rv, f"{lt or 1}+{rt or 1}", 1, lu + ru
        if o == "-":
            return lv - rv, f"{lt or 1}-{_wrap(rt or '1', rp, 2)}", 1, lu + ru
        return lv // rv if rv else 0, f"{_wrap(lt or '1', lp, 2)}/{_wrap(rt or '1', rp, 3)}", 2, lu + ru
    if op == "not":
        v, _, _, u = render(plan[1], by_kind)
        return not v, None, 3, u
    if op == "bool":
        parts = [render(x, by_kind) for x in plan[2]]
        vals = [p[0] for p in parts]
        return (all(vals) if plan[1] == "and" else any(vals)), None, 3, [u for p in parts for u in p[3]]
    if op == "cmp":
        lv, _, _, lu = render(plan[2], by_kind)
        rv, _, _, ru = render(plan[3], by_kind)
        o = plan[1]
        res = {"==": lv == rv, "!=": lv != rv, "<": lv < rv, "<=": lv <= rv, ">": lv > rv, ">=": lv >= rv}[o]
        return res, None, 3, lu + ru
    if op == "neg":
        v, t, p, u = render(plan[1], by_kind)
        return -v, "-" + _wrap(t or "1", p, 3), 3, u
    raise ValueError(f"cannot render {op}")


def _wrap(text: str, prec: int, need: int) -> str:
    return f"({text})" if prec < need else text


def _claimed_by_kind(rules: Any, mask: int) -> dict:  # type: ignore[type-arg]
    by_kind: dict = {k: [] for k in rules.kinds}  # type: ignore[type-arg]
    for i in range(len(rules.ids)):
        if mask >> i & 1:
            by_kind[rules.kind_of[i]].append((rules.values[i], i))
    return by_kind


def _group_shown(g: tuple) -> dict:  # type: ignore[type-arg]
    """A group whose tiles are its faces (no hun standing in it for another
    tile) as an answer shows it: declared melds in [ ] (exposed) or ( )
    (concealed kong), * after the winning tile."""
    faces = [NAMES[f] for f in g[1]]
    text = " ".join(f + ("*" if s == g[5] else "") for s, f in enumerate(faces))
    if g[3]:
        text = f"({text})" if g[4] else f"[{text}]"
    return {"meld": GROUP_KIND_NAMES[g[0]], "declared": g[3], "concealed": g[4], "faces": faces,
            "tiles": list(faces), "huns": list(g[2]), "winning_slot": g[5] if g[5] >= 0 else None, "text": text}


def _shown_numbered(rules: Any, i: int) -> tuple:  # type: ignore[type-arg]
    """How answers show the search's group number i (a witness holds numbers), kept in
    rules.group_shown: (its JSON text, whether it is the pair, i); its row, which answers
    share (engine/shared.py), in rules.group_rows. Only hands without huns come here: at
    most 220 groups (21 chows, 34 pungs and 34 pairs, by where the winning tile sits)."""
    g = rules.group_list[i]
    s = _group_shown(g)
    rules.group_rows[i] = shared_row(s)
    d = rules.group_shown[i] = (_json.dumps(s, ensure_ascii=False), g[0] == PAIR, i)
    return d


# U+0085, U+2028 and U+2029: line breaks to Python's str.splitlines (and U+2028/9 to JavaScript before ES2019)
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def _safe_text(text: str) -> str:
    """JSON text with the three line breaks beyond ASCII and each lone surrogate (a request
    may carry one in an escape; UTF-8 cannot) as their \\u escapes, the same JSON value, as
    the JavaScript scorer writes them: an answer is one line to every reader, and valid UTF-8."""
    if text.isascii():
        return text
    if "\x85" in text or "\u2028" in text or "\u2029" in text:
        text = text.translate(_LINE_BREAKS)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return "".join(f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" else c for c in text)


def _without_lists(d: dict) -> dict:  # type: ignore[type-arg]
    """d with None for each list (the copies made from it get lists of their
    own): a dict holding only strings, numbers, booleans and None is never
    tracked by the garbage collector."""
    return {k: None if v.__class__ is list else v for k, v in d.items()}


def _display_groups(h: Hand, concealed_groups: Any) -> list:  # type: ignore[type-arg]
    """The groups in the order an answer lists them: declared melds first, the pair last."""
    return list(h.declared) + [g for g in concealed_groups if g[0] != PAIR] + [g for g in concealed_groups if g[0] == PAIR]


def _decomposition(rules: Any, h: Hand, concealed_groups: Any) -> list:  # type: ignore[type-arg]
    """The groups for people, the declared melds first and the pair last: faces, the actual tiles (a hun shows which hun
    tile stood there; huns standing for their own face first), and a text
    such as `4m=1m 5m* 6m=2m` (face=hun tile, * the winning tile); declared
    melds in [ ] (exposed) or ( ) (concealed kong). A hand without huns read
    by the mask search (its witness: group numbers) is shown by each group's
    row worked out once (rules.group_rows). The list is the caller's; its rows
    are read-only (engine/shared.py), shared by every answer that has them."""
    if concealed_groups.__class__ is int and not h.huns:
        rows = [*map(rules.group_rows.__getitem__,
                     rules.witness_rows.get(concealed_groups) or _witness_rows(rules, concealed_groups))]
        if h.declared:
            return [shared_row(_group_shown(g)) for g in h.declared] + rows
        return rows
    groups = _display_groups(h, rules.witness_groups(concealed_groups))
    if h.huns and any(g[6] and not g[3] for g in groups):
        return [shared_row(d) for d in _decomposition_with_huns(h, groups)]
    return [shared_row(_group_shown(g)) for g in groups]


def _witness_rows(rules: Any, w: int) -> tuple[int, ...]:
    """The group numbers of a mask-search witness in the order an answer lists them
    (_numbered_rows), kept in rules.witness_rows (int → a tuple of ints: the collector
    never walks it), each number's row in rules.group_rows."""
    if len(rules.witness_rows) > 100_000:
        restart(rules.witness_rows)
    got = rules.witness_rows[w] = tuple(d[2] for d in _numbered_rows(rules, w))
    return got


def _numbered_rows(rules: Any, w: int) -> list:  # type: ignore[type-arg]
    """The shown rows (rules.group_shown) of a mask-search witness (16 bits per group
    number + 1, first group lowest), melds in order then the pair."""
    get = rules.group_shown.get
    rows: list[Any] = []
    pairs: list[Any] = []
    while w:
        i = (w & 0xFFFF) - 1
        w >>= 16
        d = get(i) or _shown_numbered(rules, i)
        (pairs if d[1] else rows).append(d)
    return rows + pairs


def _decomposition_text(rules: Any, h: Hand, concealed_groups: Any) -> str:
    """_decomposition as JSON text (the array's items). A mask-search witness's
    rows are written once, kept in rules.witness_text (int → str: a table the
    collector never walks), as group_shown keeps each group's."""
    if concealed_groups.__class__ is int and not h.huns:
        text = rules.witness_text.get(concealed_groups)
        if text is None:
            if len(rules.witness_text) > 100_000:
                restart(rules.witness_text)
            text = rules.witness_text[concealed_groups] = ", ".join([d[0] for d in _numbered_rows(rules, concealed_groups)])
        if h.declared:
            return ", ".join([_json.dumps(_group_shown(g), ensure_ascii=False) for g in h.declared] + ([text] if text else []))
        return text
    return ", ".join([_json.dumps(d, ensure_ascii=False) for d in _decomposition(rules, h, concealed_groups)])


def _decomposition_with_huns(h: Hand, groups: list) -> list:  # type: ignore[type-arg]
    """_decomposition when huns stand in concealed groups: which hun tile stood where."""
    hun_left = [k for k in h.concealed if k in h.hun_set]
    if h.t_hun:
        hun_left.remove(h.t)  # the winning tile sits in its own slot
    out: list[dict[str, Any]] = []
    pending = []
    for g in groups:
        tiles: list = []  # type: ignore[type-arg]
        for s, (f, hf) in enumerate(zip(g[1], g[2])):
            if not hf or g[3]:  # a declared meld's huns are their own faces
                tiles.append(f)
            elif s == g[5]:
                tiles.append(h.t)
            elif f in hun_left:  # a hun standing for its own face shows as itself
                hun_left.remove(f)
                tiles.append(f)
            else:
                tiles.append(None)
                pending.append((len(out), len(tiles) - 1))
        out.append({"meld": GROUP_KIND_NAMES[g[0]], "declared": g[3], "concealed": g[4],
                    "faces": [NAMES[f] for f in g[1]], "tiles": tiles, "huns": list(g[2]),
                    "winning_slot": g[5] if g[5] >= 0 else None})
    for gi, si in pending:
        out[gi]["tiles"][si] = hun_left.pop(0)
    for d in out:
        parts = []
        for s, (f, tl) in enumerate(zip(d["faces"], d["tiles"])):
            text = f if NAMES[tl] == f else f"{f}={NAMES[tl]}"
            parts.append(text + ("*" if s == d["winning_slot"] else ""))
        d["tiles"] = [NAMES[x] for x in d["tiles"]]
        text = " ".join(parts)
        if d["declared"]:
            text = f"({text})" if d["concealed"] else f"[{text}]"
        d["text"] = text
    return out


class Claim(NamedTuple):
    """The score of one hand, without the display: what score_tiles returns.
    reason: None on a win, else "no_winning_shape", "below_min_fan" or
    "invalid_request" (then `error` says what is wrong)."""

    win: bool
    fan: int
    total: int
    patterns: tuple[str, ...]
    reason: str | None = None
    error: str | None = None


_NO_SHAPE = Claim(False, 0, 0, (), "no_winning_shape")


def claim_display(rules: Any, mask: int) -> tuple:  # type: ignore[type-arg]
    """(formula text, its value, indices of the patterns shown, their ids, their
    names) for a claimed mask: a claimed pattern shows when the algebra used
    its value. Cached per mask."""
    cache = rules.display_cache
    got = cache.get(mask)
    if got is None:
        value, text, _, used = render(rules.plan, _claimed_by_kind(rules, mask))
        used_set = set(used)
        shown = tuple(i for i in range(len(rules.ids)) if mask >> i & 1 and i in used_set)
        got = cache[mask] = (f"{text or 1} = {value}", value, shown, tuple(rules.ids[i] for i in shown),
                             tuple(rules.names[i] for i in shown))
    return got


def wins(rules: Any, mask: int, fan: int) -> bool:
    """Whether the claimed reading `mask` (worth `fan`) wins: the rule file's win_when over the
    claimed patterns' values by kind, fan and min_fan, or its default form fan >= min_fan."""
    plan = rules.win_plan
    if plan is None:
        return fan >= rules.min_fan  # type: ignore[no-any-return]
    by_kind = _claimed_by_kind(rules, mask)
    by_kind["fan"], by_kind["min_fan"] = fan, rules.min_fan
    return bool(render(plan, by_kind)[0])


def claim_of(rules: Any, best: Any, h: Hand) -> Claim:
    """The Claim of the best reading `best` (None: no shape) of hand h: a win
    needs the rules' winning condition (win_when; by default the minimum fan), and only a win has a total."""
    if best is None:
        return _NO_SHAPE
    fan = best[0]
    win = fan >= rules.min_fan if rules.win_plan is None else wins(rules, best[2], fan)
    total = rules.total(h, fan) if win else 0
    key = (best[2], fan, total)  # Claims are immutable: one object per distinct claim
    c = rules.claim_objs.get(key)
    if c is None:
        ids = claim_display(rules, best[2])[3]
        c = rules.claim_objs[key] = Claim(True, fan, total, ids) if win else Claim(False, fan, 0, ids, "below_min_fan")
    return c


def rules_info(rules: Any) -> dict:  # type: ignore[type-arg]
    """The `rules` object of an answer (a fresh copy: callers may change theirs)."""
    out = rules.info.copy()  # {name, profile, sha256, options}
    out["options"] = out["options"].copy()
    return out


def refusal(rules: Any, req_id: Any, error: dict) -> dict:  # type: ignore[type-arg]
    """A score answer refusing the request: the score fields empty, `error` the contract's error object."""
    return {"contract": CONTRACT, "rules": rules_info(rules), "id": req_id, "win": False, "fan": 0, "total": 0,
            "patterns": _NONE, "names": _NONE, "formula": "", "reason": REFUSED, "error": error}


_NONE = SharedList()  # a refusal's patterns and names


def waits_refusal(rules: Any, req_id: Any, error: dict) -> dict:  # type: ignore[type-arg]
    """A waits answer refusing the request."""
    return {"contract": CONTRACT, "rules": rules_info(rules), "id": req_id, "waits": [], "reason": REFUSED,
            "error": error}


def rule_error(rules: Any, rule_id: str) -> dict:  # type: ignore[type-arg]
    """The error object of a hand a request rule of the rule file refuses: the rule's id is the code."""
    return {"code": rule_id, "message": rules.request_messages[rule_id], "field": None}


def _answer_fields(rules: Any, h: Hand, best: Any) -> dict:  # type: ignore[type-arg]
    """The score answer of hand h and its best reading, rules, id and the
    decomposition left empty: the one place its fields and their order are
    written (_answer_kit turns it into what each answer is made from)."""
    if best is None:
        return {"contract": CONTRACT, "rules": None, "id": None, "win": False, "fan": 0, "total": 0,
                "patterns": [], "names": [], "formula": "", "winning_tile": NAMES[h.t],
                "hun_kinds": list(rules.hun_names[h.indicator]), "decomposition": [],
                "reason": "no_winning_shape", "message": "these 14 tiles make no 4 melds and a pair"}
    c = claim_of(rules, best, h)
    shown = claim_display(rules, best[2])
    res = {"contract": CONTRACT, "rules": None, "id": None, "win": c.win, "fan": c.fan, "total": c.total,
           "patterns": list(c.patterns), "names": list(shown[4]), "formula": shown[0], "winning_tile": NAMES[h.t],
           "hun_kinds": list(rules.hun_names[h.indicator]), "decomposition": []}
    if c.reason:
        res["reason"] = c.reason
        res["message"] = f"fan {c.fan} is below the {rules.min_fan} needed to win" if c.fan < rules.min_fan or \
            not rules.win_text else f"the winning condition {rules.win_text} does not hold for this hand"
    return res


def _answer_kit(rules: Any, key: tuple, h: Hand, best: Any) -> tuple:  # type: ignore[type-arg]
    """What the answers for one claim, total, winning tile and indicator (the
    key) are made from, worked out once: _answer_fields with None for its
    lists, and (the numbers of its patterns, names and hun kinds among the
    lists answers share, the JSON text from after the id to the decomposition's
    items, the text after them). Kept in two tables, the fields (a dict of
    plain values) apart from the tuple of the rest, so the garbage collector
    tracks neither (a tuple holding a dict or a list stays tracked)."""
    res = _answer_fields(rules, h, best)
    before = {k: v for k, v in res.items() if k not in ("contract", "rules", "id", "decomposition", "reason", "message")}
    after = _safe_text(_json.dumps({k: res[k] for k in ("reason", "message") if k in res}, ensure_ascii=False)[1:-1])
    if len(rules.answer_fields) > 100_000:
        restart(rules.answer_fields)
        restart(rules.answer_rest)
        restart(rules.shared_numbers)
        restart(rules.shared_lists)
    rest = rules.answer_rest[key] = (_shared_number(rules, res["patterns"]), _shared_number(rules, res["names"]),
                                     _shared_number(rules, res["hun_kinds"]),
                                     ", " + _safe_text(_json.dumps(before, ensure_ascii=False)[1:-1]) + ', "decomposition": [',
                                     "]" + (", " + after if after else "") + "}")
    fields = rules.answer_fields[key] = _without_lists(res)
    return fields, rest


def _shared_number(rules: Any, items: list) -> int:  # type: ignore[type-arg]
    """The number of the read-only list of `items` that answers share (rules.shared_lists):
    a few hundred exist (one per pattern set shown, one per indicator's hun kinds)."""
    key = tuple(items)
    n = rules.shared_numbers.get(key)
    if n is None:
        n = rules.shared_numbers[key] = len(rules.shared_numbers)
        rules.shared_lists[n] = SharedList(key)
    return n  # type: ignore[no-any-return]


def _kit_key(rules: Any, h: Hand, best: Any) -> tuple:  # type: ignore[type-arg]
    """What an answer's fields besides rules, id and decomposition depend on (the claim's
    total worked out as claim_of does, without its Claim)."""
    if best is None:
        return (h.t, h.indicator)
    fan = best[0]
    return (best[2], fan, rules.total(h, fan) if wins(rules, best[2], fan) else 0, h.t, h.indicator)


def _result(rules: Any, req_id: Any, h: Hand, best: Any, groups: Any) -> dict:  # type: ignore[type-arg]
    """The score answer of hand h (the one the best reading was found for): a
    copy of its kit's fields, the caller's to change, with the lists and rows
    answers share (read-only: engine/shared.py)."""
    key = _kit_key(rules, h, best)
    fields = rules.answer_fields.get(key)
    if fields is None:
        fields, rest = _answer_kit(rules, key, h, best)
    else:
        rest = rules.answer_rest[key]
    res = fields.copy()
    res["rules"] = rules_info(rules)
    res["id"] = req_id
    shared = rules.shared_lists
    res["patterns"] = shared[rest[0]]
    res["names"] = shared[rest[1]]
    res["hun_kinds"] = shared[rest[2]]
    res["decomposition"] = _decomposition(rules, h, groups) if best is not None else []
    return res


def _result_text(rules: Any, id_text: str, h: Hand, best: Any, groups: Any) -> str:
    """_result as one line of JSON, the same text json.dumps writes for it,
    made of pieces worked out once (the head up to the id, the kit's texts,
    each group's text); id_text is the id's JSON text."""
    key = _kit_key(rules, h, best)
    rest = rules.answer_rest.get(key) or _answer_kit(rules, key, h, best)[1]
    head = rules.text_head
    if head is None:
        head = rules.text_head = ('{"contract": ' + _json.dumps(CONTRACT) + ', "rules": '
                                  + _safe_text(_json.dumps(rules_info(rules), ensure_ascii=False)) + ', "id": ')
    return head + id_text + rest[3] + (_decomposition_text(rules, h, groups) if best is not None else "") + rest[4]
