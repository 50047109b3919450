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
    assert code == 1 and "option 'jin_gang': '9' is not one of 'forbidden', '4', '8'" in err
    code, _, err = run(["score", "345m 123s EEE 77m 45s +6s", "-i", "7p", "--profile", "seed-002"])
    assert code == 1 and "no profile 'seed-002'" in err and "did you mean 'seed-001'?" in err
    code, _, err = run(["score", "345m 123s EEE 77m 45s +6s"])
    assert code == 2 and "--indicator" in err


@pytest.mark.parametrize("cmd", ["score", "explain", "waits"])
def test_json_answers_in_json_whatever_is_wrong_with_the_hand(cmd: str) -> None:
    # a program reading --json gets the contract's refusal for a hand it cannot read (the HAND as the line:
    # no field, the position inside it) and for a winning tile missing or given where none belongs, not a
    # message on stderr and an empty stdout
    from jsonschema import Draft202012Validator
    schema = json.load(open(os.path.join(ROOT, "schemas", ("waits" if cmd == "waits" else "score") + "-result.schema.json")))
    hand = "345m 12x3s +6s" if cmd != "waits" else "345m 12x3s"
    code, out, err = run([cmd, hand, "-i", "7p", "--json"])
    answer = json.loads(out)
    assert code == 1 and err == "" and answer["reason"] == "invalid_request"
    assert answer["error"] == {"code": "bad_tile", "field": None, "position": 7, "message": answer["error"]["message"]}
    assert answer["error"]["message"].startswith("hand (at character 8): 'x' is not a suit (hint: ")
    Draft202012Validator(schema).validate(answer)
    code, out, err = run([cmd, "345m 123s EEE 77m 45s" + ("" if cmd != "waits" else " +6s"), "-i", "7p", "--json"])
    answer = json.loads(out)
    assert code == 1 and err == "" and answer["error"]["field"] == "draw"
    assert answer["error"]["code"] == ("unexpected_field" if cmd == "waits" else "missing_field")
    Draft202012Validator(schema).validate(answer)
    # without --json the same mistakes are said to a person, on stderr
    assert run([cmd, hand, "-i", "7p"])[0] == 1
    assert run([cmd, "345m 123s EEE 77m 45s" + ("" if cmd != "waits" else " +6s"), "-i", "7p"])[0] == 2


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
                "hun_kinds", "min_fan", "chan_points", "dealer_rotation", "last_tiles_claims", "su_value", "hun_claim_kong", "hun_discard", "hun_wait_counts", "guadafeng"):
        assert opt in out
    assert "profiles: seed-001, seed-000-fan, seed-000-coins" in out


@pytest.mark.parametrize("args", [["check", "no/such.yaml"], ["score", "1m +1m", "-i", "1m", "--rules", "no/such.yaml"]])
def test_missing_file(args: list[str]) -> None:
    code, _, err = run(args)  # a usage error (cli_args.py), the path named
    assert code == 2 and "no such file: 'no/such.yaml'" in err and "Traceback" not in err


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


def _coprocess(cmd: list[str], waits: bool) -> None:
    """Write one line, wait for its answer, write the next: each answer is
    written out before the process waits for more input. `waits`: a request
    without draw gets a waits answer (the standalone scorer), else a refusal."""
    import subprocess
    import threading
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=ROOT))
    timer = threading.Timer(120, p.kill)  # an answer held back would hang the test: fail it instead
    timer.start()
    try:
        assert p.stdin is not None and p.stdout is not None
        for i, req in enumerate([{"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"},
                                 {"concealed": "345m123sEEE77m45s", "indicator": "7p"}, "not json"] * 2):
            p.stdin.write((json.dumps(dict(req, id=i)) if isinstance(req, dict) else req).encode() + b"\n")
            p.stdin.flush()
            answer = json.loads(p.stdout.readline())
            assert answer["id"] == (i if isinstance(req, dict) else None) and answer["contract"] == 2
            assert ("waits" in answer) == (waits and isinstance(req, dict) and "draw" not in req)
            assert ("error" in answer) == (not isinstance(req, dict) or "draw" not in req and not waits)
        p.stdin.close()
        assert p.wait(60) == 0 and p.stdout.read() == b""
    finally:
        timer.cancel()
        p.kill()
        p.wait()


def test_jsonl_co_process_gets_each_answer_before_it_writes_the_next_line() -> None:
    _coprocess([sys.executable, "-m", "tjmj_dsl.cli", "score", "--jsonl"], waits=False)
    # the standalone scorer's own loop (a waits request without draw, a score request with it)
    _coprocess([sys.executable, os.path.join(ROOT, "generated", "tianjin", "scorer.py")], waits=True)


def test_jsonl_over_a_pipe_answers_as_line_by_line() -> None:
    """A batch read a chunk at a time from the descriptor (lines across
    chunks, one over a chunk's size, CRLF, blank lines, a bad byte, no
    final newline) answers exactly as the same lines read one by one."""
    import subprocess
    from benchmarks.bench import hands
    reqs = [dict(h, id=i) for i, h in enumerate(hands(1500, 0, 3) + hands(200, 4, 4))]
    lines = [json.dumps(r).encode() for r in reqs]
    lines[7] += b"\r"
    lines[8] = b""
    lines[9] = b'{"id": "long", "concealed": "' + b"1" * 200_000 + b'm", "draw": "6s", "indicator": "7p"}'
    lines[10] = b'{"id": 10, "concealed": "\xff"}'
    data = b"\n".join(lines)  # no newline after the last line
    res = subprocess.run([sys.executable, "-m", "tjmj_dsl.cli", "score", "--jsonl"], input=data, capture_output=True,
                         env=dict(os.environ, PYTHONPATH=ROOT), timeout=600)
    assert res.returncode == 0, res.stderr
    code, out, _ = run(["score", "--jsonl"], data.decode("utf-8", "replace").replace("\ufffd", "?"))
    piped = res.stdout.decode("utf-8").splitlines()
    in_process = out.splitlines()
    assert len(piped) == len(in_process) == len(lines) - 1  # the blank line has no answer
    bad = [i for i, (a, b) in enumerate(zip(piped, in_process)) if a != b]
    assert [json.loads(piped[i])["error"]["code"] for i in bad] == ["not_utf8"]  # read as "?" in process: not JSON
    assert json.loads(piped[8])["error"]["code"] == "too_large"  # 200 kB: past the line limit (65,536 bytes)


def test_tjmj_alone_lists_the_commands_and_first_steps() -> None:
    code, out, err = run([])
    assert code == 2 and "required" not in err
    for cmd in ("check", "compile", "score", "waits", "simulate", "replay", "serve"):
        assert f"\n    {cmd} " in err, cmd
    assert "first steps:" in err and 'tjmj score "' in err


def test_a_refused_option_is_not_placed_in_a_pseudo_file() -> None:
    for opt in ("jin_gang=5", "nope=1"):
        code, out, err = run(["score", "345m 123s EEE 77m 45s +6s", "-i", "7p", "--option", opt])
        assert code == 1 and err.startswith("error: ") and "<options>" not in err, err
    code, out, err = run(["score", "345m 123s EEE 77m 45s +6s", "-i", "7p", "--option", "jin_gang=5"])
    assert "is not one of 'forbidden', '4', '8'" in err  # the fix: the values there are


def test_an_option_given_twice_is_a_usage_error() -> None:
    # a fuzzing campaign's finding: the second silently won (score, explain, waits, settle, simulate, serve)
    hand = ["345m 123s EEE 77m 45s +6s", "-i", "7p"]
    for cmd in (["score", *hand], ["explain", *hand], ["simulate", "--hands", "1"]):
        code, out, err = run([*cmd, "--option", "min_fan=1", "--option", "min_fan=3"])
        assert code == 2 and out == "" and "--option 'min_fan' given twice ('1' and '3')" in err, (cmd, err)
    assert run(["score", *hand, "--option", "min_fan=1", "--option", "su_value=4"])[0] == 0  # two options: fine


# ------------------------------------------------------------------ every message names its fix (issue 35)

def test_rule_file_arguments_of_serve_and_play_are_files(tmp_path: object) -> None:
    """A folder given as --rules is a usage error at the argument, not a position `DIR:1:1:`."""
    folder = str(tmp_path)
    for argv in (["serve", "--rules", folder], ["play", "--no-browser", "--rules", folder],
                 ["serve", "--tables", "--table-rules", folder]):
        code, _, err = run(argv)
        assert code == 2 and f"{folder!r} is a directory, not a file" in err and ":1:1:" not in err, (argv, err)


def test_an_unknown_flag_lists_the_rules_flags_not_the_request_fields() -> None:
    hand = ["score", "345m 123s EEE 77m 45s +6s", "-i", "7p"]
    code, _, err = run(hand + ["--flag", "nosuch"])
    assert code == 2 and "not a request flag" in err and "tianhu, dihu, tianting" in err and "concealed" not in err
    code, _, err = run(hand + ["--flag", "tianh"])
    assert code == 2 and "did you mean 'tianhu'?" in err
    code, _, err = run(hand + ["--flag", "concealed"])  # a request field, but not a flag: never set to true
    assert code == 2 and "not a request flag" in err
    code, out, _ = run(hand + ["--flag", "tianhu", "--json"])
    assert code == 0 and "tianhu" in json.loads(out)["patterns"]


def test_an_unknown_option_of_score_is_named() -> None:
    code, _, err = run(["score", "345m 123s EEE 77m 45s +6s", "-i", "7p", "--option", "jin_gan=1"])
    assert code == 1 and "no option 'jin_gan'" in err and "did you mean 'jin_gang'" in err


def test_replay_of_what_is_not_a_record_says_so(tmp_path: object) -> None:
    import pathlib
    d = pathlib.Path(str(tmp_path))
    (d / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    code, out, err = run(["replay", str(d / "empty.jsonl")])
    assert code == 1 and "holds no hand" in err and "simulate --record" in err and "OK" not in out
    (d / "notes.md").write_text("# notes\n\nnot a record\n", encoding="utf-8")
    code, out, err = run(["replay", str(d / "notes.md")])
    assert code == 1 and "is it a record file?" in err and "0 OK" in out
    (d / "obj.jsonl").write_text('{"a": 1}\n', encoding="utf-8")
    code, _, err = run(["replay", str(d / "obj.jsonl")])
    assert code == 1 and "is it a record file?" in err


def test_a_file_that_is_not_a_rule_file_is_told_how_to_start_one(tmp_path: object) -> None:
    import pathlib
    d = pathlib.Path(str(tmp_path))
    for name, text in (("empty.yaml", ""), ("other.yaml", "name: x\n")):
        (d / name).write_text(text, encoding="utf-8")
        code, _, err = run(["check", str(d / name)])
        assert code == 1 and "1 error(s)" in err and "not a rule file" in err, err
        assert "extends: builtin:tianjin" in err and "tjmj init" in err, err
    (d / "partial.yaml").write_text("format: tjmj-rules/1\nname: x\n", encoding="utf-8")
    code, _, err = run(["check", str(d / "partial.yaml")])  # a rule file begun: each missing key named
    assert code == 1 and "missing key 'tiles'" in err and "not a rule file" not in err


def test_settle_an_outcome_from_the_command_line() -> None:
    # a designer's review: settlement could be tried only from Python or over HTTP. Worked by hand (rulebook §9):
    # the dealer (seat 0) sits, so its pair with each seat pays double; seat 1's pull (拉庄) is on the dealer, whose
    # pair with seat 2 it does not touch; seat 2 wins 4 by self-draw: seat 0 pays 4 × 2, seats 1 and 3 pay 4 each
    outcome = {"dealer": 0, "zuozhuang": True, "lazhuang": [0, 1, 0, 0], "winner": 2, "total": 4}
    code, out, _ = run(["settle", json.dumps(outcome)])
    assert code == 0 and out.splitlines()[0] == "balances: seat 0 -8  seat 1 -4  seat 2 +16  seat 3 -4   next dealer: seat 1"
    assert sorted(line.split("  win")[0].strip() for line in out.splitlines()[1:]) == \
        ["seat 0 → seat 2     8", "seat 1 → seat 2     4", "seat 3 → seat 2     4"]
    code, out, _ = run(["settle", json.dumps(outcome), "--json"])
    assert code == 0 and json.loads(out)["balances"] == [-8, -4, 16, -4]
    # a refused outcome: said, exit 1; as the contract's refusal with --json; JSON that does not parse likewise
    code, out, _ = run(["settle", '{"dealer": 0, "winner": 9}'])
    assert code == 1 and out.startswith("invalid outcome: winner: expected a seat (0-3) or null, got 9")
    code, out, _ = run(["settle", '{"dealer": 0,', "--json"])
    assert code == 1 and json.loads(out)["error"]["code"] == "not_json"
    code, out, _ = run(["settle", "x" * 70_000, "--json"])
    assert code == 1 and "at most 65,536 characters" in json.loads(out)["error"]["message"]
    # a batch answers every line in order, a bad one included
    code, out, _ = run(["settle", "--jsonl"], stdin='{"dealer": 1, "winner": 0, "total": 2, "id": 1}\nnope\n{"id": 3}\n')
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(answers) == 3 and answers[0]["id"] == 1 and answers[0]["balances"][0] > 0
    assert answers[1]["error"]["code"] == "not_json" and answers[2]["id"] == 3 and answers[2]["error"]
    assert run(["settle"])[0] == 2 and run(["settle", "{}", "--jsonl"])[0] == 2
