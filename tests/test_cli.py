"""The `tjmj` command: exit codes, human output, JSON and the JSONL batch."""

from __future__ import annotations

import json
import os
import sys

import pytest

from conftest import run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))




def test_score_human_and_json() -> None:
    code, out, _ = run(["score", "345m 123s EEE 77m 45s +6s", "--indicator", "7p"])
    assert code == 0 and out.startswith("WIN: fan 2, total 2   1×2 = 2")
    code, out, _ = run(["score", "345m 123s EEE 77m 45s +6s", "-i", "7p", "--json"])
    r = json.loads(out)
    assert r["fan"] == 2 and r["patterns"] == ["tiliu", "su"]


def test_score_profile_and_option() -> None:
    hand = ["score", "345m 123s 77m 45s (5555p) +6s", "-i", "7p", "--kong-draw", "concealed", "--json"]
    assert json.loads(run(hand)[1])["total"] == 4
    assert json.loads(run(hand + ["--profile", "seed-000-fan"])[1])["total"] == 6
    assert json.loads(run(hand + ["--profile", "seed-000-coins"])[1])["total"] == 10
    assert json.loads(run(hand + ["--option", "score_table=coins"])[1])["total"] == 10


def test_bad_hand_and_bad_option_are_errors_not_tracebacks() -> None:
    code, _, err = run(["score", "345m 12x3s +6s", "-i", "7p"])
    assert code == 1 and "'x' is not a suit" in err and "^" in err and "Traceback" not in err
    code, _, err = run(["score", "345m 123s EEE 77m 45s +6s", "-i", "7p", "--option", "jin_gang=9"])
    assert code == 1 and "option 'jin_gang' has no choice '9'" in err
    code, _, err = run(["score", "345m 123s EEE 77m 45s +6s", "-i", "7p", "--profile", "seed-002"])
    assert code == 1 and "no profile 'seed-002'" in err and "did you mean 'seed-001'?" in err
    code, _, err = run(["score", "345m 123s EEE 77m 45s +6s"])
    assert code == 2 and "--indicator" in err


def test_explain_shows_predicates() -> None:
    code, out, _ = run(["explain", "123456789m 1m2m EE +5m", "-i", "1m"])
    assert code == 0
    assert "✔ zhuo5" in out and "✔ long" in out and "✔ shuanghun" in out and "✔ benhun" in out
    assert "✔ su" not in out and "✔ hundiao" not in out
    assert "algebra: (sum(add) if len(add) > 0 else sum(base)) * product(mul)" in out


def test_waits() -> None:
    code, out, _ = run(["waits", "345m 123s EEE 77m 45s", "-i", "7p", "--json"])
    assert code == 0 and [w["tile"] for w in json.loads(out)["waits"]] == ["3s", "6s"]
    code, out, _ = run(["waits", "345m 123s 77m 45s [888p]", "-i", "7p"])
    assert code == 1 and out.startswith("invalid request: a pung of hun tiles cannot be claimed")
    code, out, _ = run(["waits", "345m 123s EEE 77m 49s", "-i", "7p"])
    assert out.strip() == "no tile wins this hand"


def test_jsonl_batch_keeps_order_and_survives_bad_lines() -> None:
    lines = [
        {"id": "a", "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"},
        "this is not json",
        {"id": "c", "concealed": "345m123sEEE77m45s", "draw": "6s"},
        {"id": "d", "concealed": "345m123s77m45s", "melds": [{"type": "kong", "tile": "5p"}], "draw": "6s",
         "indicator": "7p", "kong_draw": "exposed", "profile": "seed-000-coins"},
        {"id": "e", "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "profile": "nope"},
        {"id": "f", "concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p", "options": {"min_fan": 3}},
        ["a", "list"],
    ]
    stdin = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    code, out, _ = run(["score", "--jsonl"], stdin)
    assert code == 0
    res = [json.loads(x) for x in out.splitlines()]
    assert [r["id"] for r in res] == ["a", None, "c", "d", "e", "f", None]
    assert res[0]["win"] and res[0]["fan"] == 2 and res[0]["rules"]["profile"] == "seed-001"
    assert res[1]["error"]["code"] == "not_json" and res[1]["error"]["message"].startswith("not JSON")
    assert res[1]["error"]["position"] == 0 and res[1]["names"] == [] and res[1]["formula"] == ""
    assert res[2]["error"] == {"code": "missing_field", "field": "indicator", "message":
                               'indicator: missing (hint: the flipped tile that names the huns, e.g. "7p")'}
    assert res[3]["total"] == 5 and res[3]["rules"]["profile"] == "seed-000-coins"  # (4 + 1) × 1 after a 明杠
    assert res[4]["error"]["code"] == "unknown_profile" and res[4]["error"]["field"] == "profile"
    assert "no profile 'nope'" in res[4]["error"]["message"]
    assert res[5]["win"] is False and res[5]["reason"] == "below_min_fan" and res[5]["rules"]["options"] == {"min_fan": 3}
    assert res[6]["error"]["code"] == "not_object" and "JSON object" in res[6]["error"]["message"]


def test_jsonl_refusals_of_waits_are_in_the_waits_shape() -> None:
    stdin = "not json\n" + json.dumps({"id": 2, "concealed": "345m123sEEE77m45s", "indicator": "7p",
                                        "options": {"nope": 1}}) + "\n[1]\n"
    code, out, _ = run(["waits", "--jsonl"], stdin)
    res = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and [r["id"] for r in res] == [None, 2, None]
    assert all(r["waits"] == [] and r["reason"] == "invalid_request" and "win" not in r for r in res)
    assert [r["error"]["code"] for r in res] == ["not_json", "unknown_option", "not_object"]


def test_jsonl_waits() -> None:
    stdin = json.dumps({"id": 9, "concealed": "345m123sEEE77m45s", "indicator": "7p"}) + "\n"
    code, out, _ = run(["waits", "--jsonl"], stdin)
    r = json.loads(out)
    assert code == 0 and r["id"] == 9 and [w["tile"] for w in r["waits"]] == ["3s", "6s"] and r["contract"] == 2


def test_check_and_variants() -> None:
    code, out, _ = run(["check"])
    # the six errata of the printed tables are marked in the known values, with why: notes
    assert code == 0 and "ok (3 profile(s), 6 note(s))" in out
    assert "note: seed-001 1b 天和: printed 102, the rules give 112" in out
    code, out, _ = run(["variants"])
    assert code == 0
    for opt in ("score_table", "jin_gang", "tianting", "subenlong", "tianhu", "dihu", "first_draw_multiplier",
                "hun_kinds", "min_fan", "chan_points", "dealer_rotation", "last_tiles_claims"):
        assert opt in out
    assert "profiles: seed-001, seed-000-fan, seed-000-coins" in out


@pytest.mark.parametrize("args", [["check", "no/such.yaml"], ["score", "1m +1m", "-i", "1m", "--rules", "no/such.yaml"]])
def test_missing_file(args: list[str]) -> None:
    code, _, err = run(args)
    assert code == 1 and "No such file" in err and "Traceback" not in err


def test_jsonl_line_that_is_not_utf8_is_one_error() -> None:
    import subprocess
    data = (b'{"id":1,"concealed":"345m123sEEE77m45s","draw":"6s","indicator":"7p"}\n\xff\xfe\n'
            b'{"id":3,"concealed":"345m123sEEE77m45s","draw":"6s","indicator":"7p"}\n')
    env = dict(os.environ, PYTHONPATH=ROOT, LANG="C", LC_ALL="C")
    res = subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", "score", "--jsonl"], input=data, capture_output=True,
                         env=env, timeout=120)
    lines = [json.loads(x) for x in res.stdout.decode("utf-8").splitlines()]
    assert res.returncode == 0 and [x["id"] for x in lines] == [1, None, 3]
    assert lines[1]["error"] == {"code": "not_utf8", "message": "not UTF-8 at byte 0", "field": None, "position": 0}
    assert lines[0]["names"] == ["提溜", "素"]
