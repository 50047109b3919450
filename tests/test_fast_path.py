"""score_tiles, the typed fast path: the same claim as score() on the same
hand (checked against the reference interpreter), and a named error for
every kind of bad input."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings

from tests.test_property import SETTINGS, requests
from tjmj_dsl import Scorer
from tjmj_dsl.tiles import parse_tile, parse_tiles

FLAGS = ("tianhu", "dihu", "tianting")


def typed(request: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """A request mapping → score_tiles' arguments."""
    args = (tuple(parse_tiles(request["concealed"])), parse_tile(request["draw"]), parse_tile(request["indicator"]))
    kw = {"melds": [(m["type"], parse_tile(m["tile"])) for m in request.get("melds") or []],
          "kong_draw": request.get("kong_draw"), "flags": [f for f in FLAGS if request.get(f)]}
    return args, kw


def same_claim(claim: Any, result: dict[str, Any]) -> None:
    assert claim.win == result["win"]
    assert claim.fan == result["fan"]
    assert claim.total == result["total"]
    assert list(claim.patterns) == result["patterns"]
    assert claim.reason == result.get("reason")
    assert claim.error == (result["error"]["message"] if "error" in result else None)


@settings(max_examples=1000, **SETTINGS)
@given(requests(0, 8))
def test_score_tiles_is_score(gen: Scorer, request: dict[str, Any]) -> None:
    args, kw = typed(request)
    same_claim(gen.score_tiles(*args, **kw), gen.score(request))


@settings(max_examples=150, **SETTINGS)
@given(requests(0, 2))
def test_score_tiles_is_the_interpreters_score(gen: Scorer, interp: Scorer, request: dict[str, Any]) -> None:
    args, kw = typed(request)
    same_claim(gen.score_tiles(*args, **kw), interp.score(request))


@settings(max_examples=30, **SETTINGS)
@given(requests(0, 1))
def test_interpreter_score_tiles_is_its_score(interp: Scorer, request: dict[str, Any]) -> None:
    args, kw = typed(request)
    same_claim(interp.score_tiles(*args, **kw), interp.score(request))


def test_standalone_module_has_it() -> None:
    from generated.tianjin.scorer import score_tiles
    c = score_tiles(tuple(parse_tiles("123456789m1m2mEE")), parse_tile("5m"), parse_tile("1m"))
    assert (c.win, c.fan, c.total, c.patterns, c.reason) == (True, 28, 28, ("zhuo5", "long", "shuanghun", "benhun"), None)


@pytest.mark.parametrize("args, kw, field, text", [
    (((0, 1, 2) * 4 + (None,), 5, 9), {}, "concealed", "None is not a tile kind"),
    (((0, 1, 2) * 4 + ("5m",), 5, 9), {}, "concealed", "'5m' is not a tile kind"),
    (((0, 1, 2) * 4 + (34,), 5, 9), {}, "concealed", "34 is not a tile kind"),
    (((0, 1, 2) * 4 + (-1,), 5, 9), {}, "concealed", "-1 is not a tile kind"),
    (((0, 1, 2) * 4 + (5,), 5.0, 9), {}, "draw", "5.0 is not a tile kind"),
    # a bool is an int to Python, not a tile kind (a fuzzing campaign's finding: True was scored as 2m)
    (((0, 1, 2) * 4 + (True,), 5, 9), {}, "concealed", "True is not a tile kind"),
    (((0, 1, 2) * 4 + (5,), True, 9), {}, "draw", "True is not a tile kind"),
    (((0, 1, 2) * 4 + (5,), 5, False), {}, "indicator", "False is not a tile kind"),
    (((0, 1, 2) * 4 + (5,), 5, None), {}, "indicator", "None is not a tile kind"),
    (((0, 1, 2) * 4,), {}, "concealed", None),  # draw and indicator missing: a TypeError of Python's own
    (((0, 1, 2) * 4 + (5,), 5, 9), {"melds": [("pong", 3)]}, "melds", "unknown meld type 'pong'"),
    (((0, 1, 2) * 4 + (5,), 5, 9), {"melds": [("pung", 40)]}, "melds", "40 is not a tile kind"),
    (((0, 1, 2) * 4 + (5,), 5, 9), {"kong_draw": "open"}, "kong_draw", "unknown kong_draw 'open'"),
    (((0, 1, 2) * 4 + (5,), 5, 9), {"flags": ["tianhoo"]}, "flags", "unknown flag(s) ['tianhoo']"),
    (((0, 1, 2) * 4, 5, 9), {}, "concealed", "12 tiles"),
    (((0,) * 4 + (1, 2) * 4 + (5,), 0, 9), {}, "concealed", "5 tiles of 1m; there are only 4"),
    (((9,) * 3 + (0, 1, 2) * 3 + (5,), 5, 9), {"flags": ["tianting"]}, None, "天听 is not played"),
    (((9,) * 4 + (0, 1, 2) * 3, 5, 9), {}, None, "the indicator stays face up"),
])
def test_bad_input_is_named(gen: Scorer, args: tuple[Any, ...], kw: dict[str, Any], field: str | None, text: str | None) -> None:
    if text is None:
        with pytest.raises(TypeError):  # a call with missing arguments is a programming error
            gen.score_tiles(*args, **kw)
        return
    c = gen.score_tiles(*args, **kw)
    assert (c.win, c.fan, c.total, c.patterns, c.reason) == (False, 0, 0, (), "invalid_request")
    assert c.error is not None and text in c.error
    if field is not None:
        assert c.error.startswith(field + ":")


def test_the_standalone_module_refuses_a_bool_for_a_tile() -> None:
    from generated.tianjin.scorer import score_tiles
    won = score_tiles(tuple(parse_tiles("45m123sEEE77m45s")) + (parse_tile("3m"),), parse_tile("6s"), parse_tile("7p"))
    assert won.win  # the same hand with 3m given as the int 2 ...
    c = score_tiles(tuple(parse_tiles("45m123sEEE77m45s")) + (True,), parse_tile("6s"), parse_tile("7p"))
    assert (c.win, c.reason) == (False, "invalid_request") and c.error is not None  # ... and as True: 1 (2m) no more
    assert c.error.startswith("concealed:") and "True is not a tile kind" in c.error


def test_not_a_win_says_why(gen: Scorer) -> None:
    no_shape = gen.score_tiles((0, 1, 3) * 4 + (5,), 5, 9)
    assert (no_shape.win, no_shape.fan, no_shape.reason) == (False, 0, "no_winning_shape")
    low = gen.score_tiles(tuple(parse_tiles("345m123sEEE456s9m")), parse_tile("7p"), parse_tile("7p"))  # a bare 提溜
    assert (low.win, low.fan, low.total, low.patterns, low.reason) == (False, 1, 0, ("tiliu",), "below_min_fan")


def many_hun_hands(scorer: Scorer, n: int, seed: int) -> list[tuple[tuple[int, ...], int, int]]:
    """Winning shapes with 0 to 11 huns (under three hun kinds, the widest hun
    budgets a hand can have; the hun kinds as the scorer's rules give them),
    as score_tiles arguments."""
    from tests.handgen import random_shape
    rng = random.Random(seed)
    out: list[tuple[tuple[int, ...], int, int]] = []
    while len(out) < n:
        indicator = rng.randrange(34)
        kinds = scorer._rules.hun_table[indicator][0]
        tiles = [t for g in random_shape(rng) for t in g]
        for i in rng.sample(range(14), rng.randrange(12)):
            tiles[i] = rng.choice(kinds)
        if max(tiles.count(k) for k in tiles) > 4 or tiles.count(indicator) > 3:
            continue
        rng.shuffle(tiles)
        out.append((tuple(sorted(tiles[:13])), tiles[13], indicator))
    return out


def test_tables_do_not_depend_on_the_hands_before() -> None:
    """The mask search shares its tables across hands under keys that must
    name everything a table depends on; a key too narrow would hand one hand
    another's table. A scorer that has scored many hands first must claim what
    a scorer with no table at all claims, with up to 11 huns (three hun kinds)."""
    warm, cold = Scorer(options={"hun_kinds": 3}), Scorer(options={"hun_kinds": 3})
    hands = many_hun_hands(warm, 400, 5)
    for h in hands:
        warm.score_tiles(*h)
    wins = 0
    for h in hands[::4]:
        cold._module.clear_tables(cold._rules)
        c = cold.score_tiles(*h)
        assert warm.score_tiles(*h) == c, h
        wins += c.win
    assert wins > 40  # the hands mostly win: the claims compared are real ones


def test_three_hun_kinds_agree_with_the_interpreter() -> None:
    """Under three hun kinds the generated scorer claims what the reference
    interpreter claims (hands with up to 5 huns: the interpreter spells out
    every face of a group of huns alone, so more would take minutes)."""
    gen, ref = Scorer(options={"hun_kinds": 3}), Scorer(options={"hun_kinds": 3}, backend="interpreter")
    hands = [h for h in many_hun_hands(gen, 300, 11) if sum(x in ref._rules.hun_table[h[2]][1] for x in h[0] + (h[1],)) <= 5][:40]
    assert len(hands) == 40
    for h in hands:
        assert gen.score_tiles(*h) == ref.score_tiles(*h), h


def _full_path(scorer: Scorer, request: dict[str, Any]) -> dict[str, Any]:
    """score() by the full request parser, never the plain-request shortcut."""
    from tjmj_dsl.engine import request as rq
    from tjmj_dsl.engine import result, runtime
    rules = scorer._rules
    try:
        req = rq.parse_request(request, need_draw=True, flags=rules.flags, copies=rules.copies)
    except rq.RequestError as e:
        return result.refusal(rules, request.get("id"), e.error())
    return runtime.score_parsed(rules, req)


@settings(max_examples=300, **SETTINGS)
@given(requests(0, 8))
def test_the_plain_request_shortcut_answers_as_the_full_path(gen: Scorer, request: dict[str, Any]) -> None:
    from tjmj_dsl.engine import runtime
    fast = runtime._score_plain(gen._rules, request)
    if fast is not None:
        assert fast == _full_path(gen, request)
    elif not request["melds"]:  # a request without declared melds is left only when it is refused
        assert _full_path(gen, request)["error"]["code"] in ("tile_count", "too_many_copies")


@settings(max_examples=40, **SETTINGS)
@given(requests(0, 1))
def test_the_interpreters_shortcut_answers_as_its_full_path(interp: Scorer, request: dict[str, Any]) -> None:
    from tjmj_dsl.engine import runtime
    fast = runtime._score_plain(interp._rules, request)
    if fast is not None:
        assert fast == _full_path(interp, request)


@pytest.mark.parametrize("request_", [
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"},
    {"id": [1], "concealed": "345m123sEEE456s9m", "draw": "7p", "indicator": "7p", "melds": [], "tianhu": False},
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "tianting": True},  # refused by a rule
    {"concealed": "1234567891234m", "draw": "6s", "indicator": "7p"},  # no winning shape
    {"concealed": "7p7p8p123sEEE456s9m", "draw": "9m", "indicator": "7p", "dihu": True, "kong_draw": None},
])
def test_the_shortcut_takes_plain_requests(gen: Scorer, request_: dict[str, Any]) -> None:
    from tjmj_dsl.engine import runtime
    fast = runtime._score_plain(gen._rules, request_)
    assert fast is not None and fast == _full_path(gen, request_) == gen.score(request_)


@pytest.mark.parametrize("request_", [
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "profile": "seed-001"},
    {"concealed": ["3m"] * 13, "draw": "6s", "indicator": "7p"},
    {"concealed": "345m123sEEE77m45", "draw": "6s", "indicator": "7p"},
    {"concealed": "345m123sEEE77m45s", "draw": "六条", "indicator": "7p"},
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "tianhu": 1},
    {"concealed": "55555m123sEEE7m4s", "draw": "6s", "indicator": "7p"},  # too_many_copies
    {"concealed": "345m123s77m45s", "melds": [{"type": "pung", "tile": "E"}], "draw": "6s", "indicator": "7p"},
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "melds": ()},  # wrong_type, as a list is expected
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "melds": False},
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "kong_draw": True},
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "drawn": "6s"},
])
def test_the_shortcut_leaves_the_rest_to_the_full_path(gen: Scorer, request_: dict[str, Any]) -> None:
    from tjmj_dsl.engine import runtime
    assert runtime._score_plain(gen._rules, request_) is None
    assert gen.score(request_) == _full_path(gen, request_) or "profile" in request_


def _line(scorer: Scorer, request: Any) -> str:
    from tjmj_dsl.engine import runtime
    return runtime.dumps_answer(scorer.score(request))


@settings(max_examples=300, **SETTINGS)
@given(requests(0, 8))
def test_the_answer_text_is_the_answers_json(gen: Scorer, request: dict[str, Any]) -> None:
    """score_text (what a batch writes) is the text json.dumps writes for score()'s answer."""
    from tjmj_dsl.engine import runtime
    for r in (request, {k: v for k, v in request.items() if k != "melds"}):
        text = runtime.score_text(gen._rules, r)
        if text is not None:
            assert text == _line(gen, r)
        else:
            assert runtime._plain_hand(gen._rules, r) is None or "error" in gen.score(r)


@pytest.mark.parametrize("req_id", [None, 0, -7, 10**30, True, False, 1.5, "a", "天津 \"q\" \\ \n", "\ud800x",
                                    [1, {"a": None}], {"k": [True]}])
def test_the_answer_text_writes_every_id_as_json_does(gen: Scorer, req_id: Any) -> None:
    from tjmj_dsl.engine import runtime
    for hand in ({"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"},  # a win
                 {"concealed": "345m123sEEE456s9m", "draw": "7p", "indicator": "7p"},  # below the minimum fan, a hun
                 {"concealed": "1234567891234m", "draw": "6s", "indicator": "7p"}):  # no winning shape
        r = dict(hand, id=req_id)
        assert runtime.score_text(gen._rules, r) == _line(gen, r)


@pytest.mark.parametrize("request_", [
    {"id": float("nan"), "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"},  # no JSON text for the id
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "tianting": True},  # refused by a rule
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "profile": "seed-001"},
    {"concealed": "345m123s77m45s", "melds": [{"type": "pung", "tile": "E"}], "draw": "6s", "indicator": "7p"},
    {"concealed": "345m123sEEE77m45s", "indicator": "7p"},  # a waits request
    ["not", "a", "mapping"],
])
def test_the_answer_text_leaves_the_rest_to_the_mapping(gen: Scorer, request_: Any) -> None:
    from tjmj_dsl.engine import runtime
    assert runtime.score_text(gen._rules, request_) is None


def test_a_batch_answers_alike_with_and_without_the_text_path(gen: Scorer) -> None:
    import json
    from tjmj_dsl.engine import runtime
    rng = random.Random(5)
    lines = []
    for i in range(300):
        huns = rng.choice([0, 0, 2, 4, 7])
        from benchmarks.bench import hands
        r = dict(hands(1, huns, 1000 + i)[0], id=i)
        lines.append(json.dumps(r))
    lines += ["not json", "", json.dumps({"id": "w", "concealed": "345m123sEEE77m45s", "indicator": "7p"}),
              '{"id": NaN, "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}']
    refuse = gen.refusal
    answer = (lambda r: gen.waits(r) if isinstance(r, dict) and r.get("draw") is None else gen.score(r))
    fast = list(runtime.jsonl(lines, answer, refuse, lambda r: runtime.score_text(gen._rules, r)))
    assert fast == list(runtime.jsonl(lines, answer, refuse))
    assert len(fast) == len(lines) - 1 and json.loads(fast[-1])["error"]["code"] == "bad_value"
