"""Settlement as data: the rule file's payment rules, evaluated by the reference
interpreter and by the generated scorer's settle(). Expected values are worked
out by hand from the seeds (rulebook §9): pair multiplier dealer↔non-dealer =
(2 if 坐庄) × 2^(拉庄 count), between non-dealers 1; the winner is paid the
total × multiplier by each of the three; kongs are paid their points ×
multiplier by each other player, drawn hand or not; 铲 after the rest."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tjmj_dsl import RuleError, Scorer
from tjmj_dsl.compiler import load_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = os.path.join(ROOT, "rules", "tianjin.yaml")
PROFILES = ("seed-001", "seed-000-fan", "seed-000-coins")
_CACHE: dict[Any, Scorer] = {}


def scorer(profile: str | None = None, backend: str = "generated", **options: Any) -> Scorer:
    key = (profile, backend, tuple(sorted(options.items())))
    if key not in _CACHE:
        _CACHE[key] = Scorer(profile=profile, options=options or None, backend=backend)
    return _CACHE[key]


@pytest.fixture(params=["generated", "interpreter"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def pays(res: dict[str, Any], reason: str | None = None) -> list[tuple[int, int, int]]:
    assert "error" not in res, res
    return [(p["from"], p["to"], p["amount"]) for p in res["payments"] if reason is None or p["reason"] == reason]


# ------------------------------------------------------------------ the seed's examples

def test_chan_seed_example(backend: str) -> None:
    # seed 001 铲: 庄家坐庄，闲家A不拉庄，B拉庄，C拉两庄 → the dealer pays A 2, B 4, C 8 (drawn hand)
    r = scorer(backend=backend).settle({"dealer": 0, "zuozhuang": True, "lazhuang": [0, 0, 1, 2], "winner": None,
                                        "chan": True})
    assert pays(r) == [(0, 1, 2), (0, 2, 4), (0, 3, 8)]
    assert r["balances"] == [-14, 2, 4, 8]
    assert all(p["reason"] == "chan" for p in r["payments"])
    assert r["payments"][2]["formula"] == "chan_points * base_unit * pair(payer, payee) = 1 * 1 * 8 = 8"
    assert r["next_dealer"] == 0  # drawn hand: the dealer stays


def test_chan_after_a_win(backend: str) -> None:
    # seat 2 (拉庄 once) wins 4; the dealer sat; seat 3 拉 twice.
    # win: 3→2 4 (non-dealers: ×1), 0→2 4×2×2 = 16, 1→2 4; then 铲: 0→1 2, 0→2 4, 0→3 8
    r = scorer(backend=backend).settle({"dealer": 0, "zuozhuang": True, "lazhuang": [0, 0, 1, 2], "winner": 2,
                                        "total": 4, "chan": True})
    assert pays(r) == [(3, 2, 4), (0, 2, 16), (1, 2, 4), (0, 1, 2), (0, 2, 4), (0, 3, 8)]
    assert r["balances"] == [-30, -2, 28, 4]
    assert r["next_dealer"] == 1  # a non-dealer won: the dealer's next deals


def test_chan_points_option_pays_a_hundiao(backend: str) -> None:
    # option chan_points=2 (铲 paid as a 混吊): the seed's example doubles
    r = scorer(backend=backend, chan_points=2).settle({"dealer": 0, "zuozhuang": True, "lazhuang": [0, 0, 1, 2],
                                                       "winner": None, "chan": True})
    assert pays(r) == [(0, 1, 4), (0, 2, 8), (0, 3, 16)]


def test_dealer_win_with_zuozhuang_and_lazhuang(backend: str) -> None:
    # the dealer (seat 0) sat and wins 3; seat 1 拉 once, seat 3 twice: 3×2×2, 3×2, 3×2×4
    r = scorer(backend=backend).settle({"dealer": 0, "zuozhuang": True, "lazhuang": [0, 1, 0, 2], "winner": 0, "total": 3})
    assert pays(r) == [(1, 0, 12), (2, 0, 6), (3, 0, 24)]
    assert r["balances"] == [42, -12, -6, -24]
    assert r["next_dealer"] == 0


def test_lazhuang_without_zuozhuang_and_between_non_dealers(backend: str) -> None:
    # dealer 1 did not sit; seat 3 拉 once. Seat 3 wins 5: dealer pays 5×2, the two others 5 each
    r = scorer(backend=backend).settle({"dealer": 1, "lazhuang": [0, 0, 0, 1], "winner": 3, "total": 5})
    assert pays(r) == [(0, 3, 5), (1, 3, 10), (2, 3, 5)]
    assert r["next_dealer"] == 2


# ------------------------------------------------------------------ kongs

def test_kongs_paid_in_a_drawn_hand(backend: str) -> None:
    # 荒庄要计算杠分: seat 1's 暗杠 (2) and seat 2's 补杠 (as 明杠, 1); dealer 0 sat:
    # the dealer pays seat 1 2×2, seat 2 1×2
    r = scorer(backend=backend).settle({"dealer": 0, "zuozhuang": True, "winner": None, "kongs": [
        {"seat": 1, "type": "concealed", "tile": "5p"}, {"seat": 2, "type": "added", "tile": "E"}]})
    assert pays(r) == [(2, 1, 2), (3, 1, 2), (0, 1, 4), (3, 2, 1), (0, 2, 2), (1, 2, 1)]
    assert r["balances"] == [-6, 7, 2, -3]
    assert [k["points"] for k in r["kongs"]] == [2, 1]


def test_jin_gang_points_follow_the_option(backend: str) -> None:
    kong = {"dealer": 0, "winner": None, "kongs": [{"seat": 3, "type": "hun", "tile": "7p"}]}
    assert pays(scorer(backend=backend).settle(kong)) == [(0, 3, 4), (1, 3, 4), (2, 3, 4)]
    assert pays(scorer(backend=backend, jin_gang="8").settle(kong)) == [(0, 3, 8), (1, 3, 8), (2, 3, 8)]


def test_xianggong_is_paid_for_kongs_but_cannot_win(backend: str) -> None:
    # 小相公: 不能胡牌但计算开杠
    r = scorer(backend=backend).settle({"dealer": 0, "winner": 2, "total": 2, "xianggong": [1],
                                        "kongs": [{"seat": 1, "type": "exposed", "tile": "9s"}]})
    assert pays(r, "kong") == [(2, 1, 1), (3, 1, 1), (0, 1, 1)]
    bad = scorer(backend=backend).settle({"dealer": 0, "winner": 1, "total": 2, "xianggong": [1]})
    assert bad["reason"] == "invalid_request" and bad["error"]["message"].startswith("winner: ")
    assert (bad["error"]["code"], bad["error"]["field"]) == ("xianggong_wins", "winner")  # the outcome rule's id
    assert bad["payments"] == [] and bad["balances"] == [0, 0, 0, 0]


@pytest.mark.parametrize("profile, kong_paid", [("seed-001", True), ("seed-000-fan", False), ("seed-000-coins", False)])
def test_gangkai_kong_paid_apart_only_under_separate(profile: str, kong_paid: bool, backend: str) -> None:
    # seat 2 wins on the replacement of its 暗杠 (杠开); seat 1 has an exposed kong too.
    # seed-000 tables already hold the winning kong's points in the total (含暗杠2番): not paid again.
    r = scorer(profile, backend).settle({"dealer": 0, "winner": 2, "total": 10, "kongs": [
        {"seat": 2, "type": "concealed", "tile": "5p", "won": True}, {"seat": 1, "type": "exposed", "tile": "E"}]})
    won = [(3, 2, 2), (0, 2, 2), (1, 2, 2)]
    other = [(2, 1, 1), (3, 1, 1), (0, 1, 1)]
    assert pays(r, "kong") == (won if kong_paid else []) + other
    unpaid = [u for u in r["unpaid"] if u["rule"] == "kong"]
    if kong_paid:
        assert unpaid == []
    else:  # the explanation says which kong was left out and by which condition
        assert [u["item"] for u in unpaid] == [0]
        assert "k.won" in unpaid[0]["when"]


# ------------------------------------------------------------------ dealer rotation

@pytest.mark.parametrize("outcome, seed001, seed000", [
    ({"dealer": 0, "winner": None}, 0, 0),                                        # drawn, no kong: stays
    ({"dealer": 0, "winner": 0, "total": 2}, 0, 0),                               # dealer wins: stays
    ({"dealer": 3, "winner": 1, "total": 2}, 0, 0),                               # non-dealer wins: next (3→0)
    ({"dealer": 2, "winner": None, "kongs": [{"seat": 0, "type": "exposed", "tile": "1m"}]}, 2, 3),
    ({"dealer": 2, "winner": None, "kongs": [{"seat": 0, "type": "exposed", "tile": "1m"},
                                             {"seat": 2, "type": "concealed", "tile": "2m"}]}, 2, 2),
])
def test_dealer_rotation(outcome: dict[str, Any], seed001: int, seed000: int, backend: str) -> None:
    assert scorer(backend=backend).settle(outcome)["next_dealer"] == seed001
    assert scorer(backend=backend, dealer_rotation="seed-000").settle(outcome)["next_dealer"] == seed000


# ------------------------------------------------------------------ refusals

@pytest.mark.parametrize("outcome, field", [
    ({"dealer": 0, "winner": None, "lazhuang": [0, 3, 0, 0]}, "lazhuang"),        # over lazhuang_max
    ({"dealer": 0, "winner": None, "lazhuang": [1, 0, 0, 0]}, "lazhuang"),        # the dealer never 拉庄
    ({"dealer": 0, "winner": None, "lazhuang": [0, 0, 0]}, "lazhuang"),
    ({"dealer": 0, "winner": None, "lazhuang": [0, -1, 0, 0]}, "lazhuang[1]"),
    ({"dealer": 4, "winner": None}, "dealer"),
    ({"dealer": True, "winner": None}, "dealer"),
    ({"winner": None}, "dealer"),
    ({"dealer": 0}, "winner"),
    ({"dealer": 0, "winner": 1}, "total"),
    ({"dealer": 0, "winner": 1, "total": -2}, "total"),
    ({"dealer": 0, "winner": 1, "total": 1}, "total"),                           # below min_fan 2: no win
    ({"dealer": 0, "winner": 1, "total": 0}, "total"),
    ({"dealer": 0, "winner": None, "total": 5}, "total"),
    ({"dealer": 0, "winner": None, "lazhaung": [0, 0, 0, 0]}, "lazhaung"),
    ({"dealer": 0, "winner": None, "kongs": [{"seat": 1, "type": "big", "tile": "1m"}]}, "kongs[0].type"),
    ({"dealer": 0, "winner": None, "kongs": [{"seat": 1, "type": "exposed", "tile": "1x"}]}, "kongs[0].tile"),
    ({"dealer": 0, "winner": None, "kongs": [{"seat": 1, "type": "exposed"}]}, "kongs[0].tile"),
    ({"dealer": 0, "winner": None, "kongs": [{"seat": 1, "type": "exposed", "tile": "1m"},
                                             {"seat": 2, "type": "exposed", "tile": "1m"}]}, "kongs[1].tile"),
    ({"dealer": 0, "winner": 2, "total": 4, "kongs": [{"seat": 1, "type": "exposed", "tile": "1m", "won": True}]},
     "kongs[0].won"),
    ({"dealer": 0, "winner": None, "xianggong": [1, 1]}, "xianggong[1]"),
    ({"dealer": 0, "winner": None, "chan": "yes"}, "chan"),
    # a kong of the maker's own tiles names no discarder (under exposed_kong_payer=discarder one would pay it all)
    ({"dealer": 0, "winner": None, "kongs": [{"seat": 1, "type": "concealed", "tile": "E", "from": 2}]}, "kongs[0].from"),
    ({"dealer": 0, "winner": None, "kongs": [{"seat": 1, "type": "added", "tile": "E", "from": 2}]}, "kongs[0].from"),
    ({"dealer": 0, "winner": None, "kongs": [{"seat": 1, "type": "hun", "tile": "E", "from": 2}]}, "kongs[0].from"),
    # chan says what rounds say, for a table that keeps no discards: both at once could disagree
    ({"dealer": 0, "winner": None, "chan": True, "rounds": [{"discards": ["S", "E", "S", "S"]}]}, "chan"),
    ({"dealer": 0, "winner": None, "chan": True, "rounds": []}, "chan"),
])
def test_bad_outcomes_are_refused_with_the_field(outcome: dict[str, Any], field: str, backend: str) -> None:
    r = scorer(backend=backend).settle({"id": 7, **outcome})
    assert r["reason"] == "invalid_request" and r["id"] == 7 and r["error"]["field"] == field, r["error"]
    assert r["error"]["message"].startswith(field + ":") or r["error"]["message"].startswith(field + " "), r["error"]
    assert r["payments"] == [] and r["balances"] == [0, 0, 0, 0] and r["next_dealer"] is None


@pytest.mark.parametrize("junk", [None, [], "x", 3, {"dealer": 0, "winner": None, "kongs": "x"},
                                  {"dealer": 0, "winner": None, "kongs": [3]}, {"dealer": 0, "winner": None, "xianggong": {}},
                                  {"dealer": 0, "winner": None, "profile": "seed-000-nope"},
                                  {"dealer": 0, "winner": None, "options": {"chan_points": "x"}}])
def test_junk_never_raises(junk: Any, backend: str) -> None:
    r = scorer(backend=backend).settle(junk)
    assert r["reason"] == "invalid_request" and isinstance(r["error"]["message"], str) and r["error"]["code"]


def test_a_kong_of_a_claimed_discard_names_its_discarder_whatever_type_the_rules_give_it(tmp_path: Any) -> None:
    """`from` belongs to a kong made of a claimed discard: exposed, or the type play.hun_kong_exposed_as gives three
    huns and a discarded one (a rule file may count that kong as a hun kong); under exposed_kong_payer=discarder
    the discarder pays it alone."""
    hun_kong = {"dealer": 0, "winner": None, "kongs": [{"seat": 1, "type": "hun", "tile": "E", "from": 2}]}
    exposed = {"dealer": 0, "winner": None, "kongs": [{"seat": 1, "type": "exposed", "tile": "E", "from": 2}]}
    base = scorer(exposed_kong_payer="discarder")
    assert base.settle(hun_kong)["error"]["field"] == "kongs[0].from"
    assert base.settle(exposed)["balances"] == [0, 1, -1, 0]
    path = tmp_path / "claimed_hun_kong.yaml"
    path.write_text("extends: builtin:tianjin\nset:\n  play.hun_kong_exposed_as: hun\n", encoding="utf-8")
    for backend in ("generated", "interpreter"):
        sc = Scorer(str(path), options={"exposed_kong_payer": "discarder"}, backend=backend)
        r = sc.settle(hun_kong)
        assert "error" not in r, r
        assert sum(r["balances"]) == 0 and r["balances"][1] > 0 and r["balances"][0] == 0 and r["balances"][3] == 0
        refused = sc.settle({**hun_kong, "kongs": [{**hun_kong["kongs"][0], "type": "concealed"}]})
        assert refused["error"]["field"] == "kongs[0].from" and "type exposed or hun" in refused["error"]["message"]


def test_unknown_field_suggests_the_name() -> None:
    r = scorer().settle({"dealer": 0, "winner": None, "lazhaung": [0, 0, 0, 0]})
    assert "did you mean 'lazhuang'" in r["error"]["message"] and r["error"]["code"] == "unknown_field"


# ------------------------------------------------------------------ both backends, every profile

def _outcomes() -> Any:
    @st.composite
    def outcome(draw: Any) -> dict[str, Any]:
        dealer = draw(st.integers(0, 3))
        lz = [0 if s == dealer else draw(st.sampled_from([0, 0, 1, 2, 2, 3])) for s in range(4)]
        winner = draw(st.sampled_from([None, 0, 1, 2, 3]))
        tiles = draw(st.lists(st.sampled_from(["1m", "5p", "9s", "E", "C", "7p", "2s"]), max_size=4, unique=True))
        kongs = []
        for t in tiles:
            seat = draw(st.integers(0, 3))
            kongs.append({"seat": seat, "type": draw(st.sampled_from(["exposed", "added", "concealed", "hun"])), "tile": t})
        mine = [k for k in kongs if k["seat"] == winner]
        if mine and draw(st.booleans()):
            mine[-1]["won"] = True
        o: dict[str, Any] = {"dealer": dealer, "winner": winner, "zuozhuang": draw(st.booleans()), "lazhuang": lz,
                             "kongs": kongs, "chan": draw(st.booleans()),
                             "xianggong": sorted(draw(st.sets(st.integers(0, 3), max_size=2)))}
        if winner is not None:
            o["total"] = draw(st.integers(0, 300))
        return o
    return outcome()


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_outcomes(), st.sampled_from(PROFILES), st.sampled_from([{}, {"chan_points": 2}, {"dealer_rotation": "seed-000"},
                                                                  {"jin_gang": "8"}]))
def test_generated_equals_interpreter_and_sums_to_zero(o: dict[str, Any], profile: str, options: dict[str, Any]) -> None:
    a = scorer(profile, "generated", **options).settle(o)
    b = scorer(profile, "interpreter", **options).settle(o)
    assert a == b
    assert sum(a["balances"]) == 0
    if "error" not in a:
        assert all(p["amount"] > 0 and p["from"] != p["to"] for p in a["payments"])
        assert a["next_dealer"] in (0, 1, 2, 3)


def test_the_generated_module_settles_alone() -> None:
    from generated.tianjin.scorer import settle
    o = {"dealer": 0, "zuozhuang": True, "lazhuang": [0, 0, 1, 2], "winner": None, "chan": True}
    assert settle(o) == scorer().settle(o)


# ------------------------------------------------------------------ house rules are YAML only

def _overlay(tmp_path: Any, body: str) -> str:
    p = tmp_path / "house.yaml"
    p.write_text(f"extends: {RULES}\n" + body, encoding="utf-8")
    return str(p)


def test_lazhuang_three_times_is_a_yaml_change(tmp_path: Any) -> None:
    path = _overlay(tmp_path, "set:\n  play.lazhuang_max: 3\n")
    o = {"dealer": 0, "zuozhuang": True, "lazhuang": [0, 0, 1, 3], "winner": None, "chan": True}
    assert scorer().settle(o)["reason"] == "invalid_request"
    for b in ("generated", "interpreter"):
        assert pays(Scorer(path, backend=b).settle(o)) == [(0, 1, 2), (0, 2, 4), (0, 3, 16)]


def test_a_new_payment_rule_is_a_yaml_change(tmp_path: Any) -> None:
    # a house rule: a 金杠 is paid once more, by the dealer only
    path = _overlay(tmp_path, """settlement:
  payments:
    jin_gang_bonus:
      name: 金杠奖
      for: "k in kongs"
      when: 'k.type == "hun"'
      from: dealer
      to: k.seat
      amount: "k.points"
      description: a demonstration house rule
      source: test
""")
    o = {"dealer": 0, "winner": None, "kongs": [{"seat": 3, "type": "hun", "tile": "7p"}]}
    for b in ("generated", "interpreter"):
        r = Scorer(path, backend=b).settle(o)
        assert pays(r, "jin_gang_bonus") == [(0, 3, 4)]
        assert r["balances"] == [-8, -4, -4, 16]


@pytest.mark.parametrize("body, message, hint", [
    ("set:\n  settlement.payments.win.amount: \"totl * 2\"\n", "unknown name 'totl'", "did you mean 'total'?"),
    ("set:\n  settlement.payments.win.to: \"total\"\n", "to must be seat", ""),
    ("set:\n  settlement.payments.kong.for: \"k in dealer\"\n", "`for` needs a list", ""),
    ("set:\n  settlement.payments.win.amount: \"pow(2)\"\n", "pow takes 2 argument(s)", ""),
    ("set:\n  settlement.outcome_rules.lazhuang_max.error_when: \"s.lazhuang\"\n", "unknown name 's'", ""),
])
def test_settlement_mistakes_are_positioned(tmp_path: Any, body: str, message: str, hint: str) -> None:
    path = _overlay(tmp_path, body)
    with pytest.raises(RuleError) as e:
        load_rules(path)
    d = e.value.diagnostics[0]
    assert message in d.message and hint in d.hint
    assert d.pos is not None and d.pos.file.endswith("house.yaml") and d.pos.line == 3


def test_readme_lists_the_settlement_vocabulary() -> None:
    from tjmj_dsl.backends.docs import settle_vocabulary_markdown
    from docs_text import docs_text
    readme = docs_text()
    a, b = "<!-- settle-vocabulary:start -->\n", "<!-- settle-vocabulary:end -->"
    assert readme[readme.index(a) + len(a):readme.index(b)] == settle_vocabulary_markdown()


def test_a_settlement_expression_is_bounded_in_work(tmp_path: Any) -> None:
    """Definitions that call each other twice at each level (2^36 calls) are refused by check at the
    expression, as the patterns' are: they held check (and would
    hold every settle()) for ever."""
    import json
    defs = "".join(f'    "d{i}(a: seat)": {{name: d{i}, description: x, source: y, value: "d{i - 1}(a) + d{i - 1}(a) - d{i - 1}(a)"}}\n'
                   for i in range(1, 37))
    path = tmp_path / "chain.yaml"
    path.write_text(f"extends: {json.dumps(os.path.join(ROOT, 'rules', 'tianjin.yaml'))}\nname: chain\nsettlement:\n"
                    f"  definitions:\n    \"d0(a: seat)\": {{name: d0, description: x, source: y, value: \"1\"}}\n{defs}"
                    "set:\n  settlement.payments.win.amount: \"total * base_unit * pair(payer, payee) * d36(payer)\"\n",
                    encoding="utf-8")
    with pytest.raises(RuleError) as e:
        load_rules(str(path))
    text = e.value.render()
    line = next(i for i, x in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "settlement.payments.win" in x)
    assert f"chain.yaml:{line}:" in text and "takes more than 1,000,000 steps for one outcome" in text


def test_a_settlement_over_seats_and_others_is_within_the_bound(tmp_path: Any) -> None:
    """The bound counts the settlement's own lists at their sizes (4 seats, 3 others, at most 16
    kongs), not as 34 tile kinds: three quantifiers over seats and others (36 steps of pair) pass."""
    import json
    path = tmp_path / "nested.yaml"
    path.write_text(f"extends: {json.dumps(os.path.join(ROOT, 'rules', 'tianjin.yaml'))}\nname: nested\nset:\n"
                    "  settlement.payments.win.amount: \"total * base_unit * pair(payer, payee) + 0 * sum(a in seats: "
                    "sum(b in others(a): sum(c in others(b): pair(a, b) * pair(b, c))))\"\n", encoding="utf-8")
    rs = load_rules(str(path))
    assert rs.settlement is not None
    assert Scorer(str(path)).settle({"dealer": 0, "winner": 1, "total": 4})["balances"] == [-4, 12, -4, -4]
