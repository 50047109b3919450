"""Long fuzzing runs of every input surface (issue 13), and the differential
and memory checks too long for the test suite.

    python benchmarks/fuzz.py                    # everything, defaults below
    python benchmarks/fuzz.py --seconds 60 --differential 20000 --stream 200000   # shorter

Surfaces, each in a process of its own (so its peak memory is its own):
  hand     the hand notation (parse_hand): random and mutated text
  jsonl    one JSONL line (runtime.answer + dump, the generated scorer): random bytes, JSON values, mutated requests
  rules    a whole rule file: tianjin.yaml with random mutations (lines dropped, doubled, swapped, hostile text)
  overlay  an overlay of the built-in rules: random `set:` paths and values, random expressions
  tables   the table server's room API (a real `tjmj play` on 127.0.0.1): hostile room requests, ids,
           hand indexes, stop tokens (benchmarks/fuzz_tables.py)
  tables-ws  its WebSocket: hellos with right, wrong and other seats' tokens, answers right, stale and
           mistyped, deep nesting, bytes, floods, many sockets; no seat ever sees another's hidden tiles
  serve    `tjmj serve --tables` over raw HTTP: odd methods, paths, Host/Origin headers, lengths, bodies
An input is a crash when anything but the documented outcome happens (a
TileError; an answer of strict JSON; a RuleError; a scorer that agrees with
the interpreter), a hang when it takes longer than --hang seconds.
Then `differential`: the interpreter and the generated scorer on --differential
random requests (every field equal; the decomposition shown may be another
equally good reading, each checked to be a true one: tests/readings.py) (0-7 huns, every option, declared melds, kong draws, flags,
malformed requests), and `stream`: `tjmj score --jsonl` on --stream mixed lines
with thousands of distinct option sets, its peak memory measured.
Prints a Markdown table for docs/reliability.md.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Any, Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.hostile import PAYLOADS  # noqa: E402
from tests.reqgen import random_request  # noqa: E402

RULES = os.path.join(ROOT, "rules", "tianjin.yaml")
HANDS = [
    {"concealed": "123456789m1m2mEE", "draw": "5m", "indicator": "1m"},
    {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"},
    {"concealed": "345m123sEEE456s9m", "draw": "7p", "indicator": "7p"},
    {"concealed": "345m123s77m45s", "melds": [{"type": "concealed_kong", "tile": "5p"}], "draw": "6s", "indicator": "7p",
     "kong_draw": "concealed"},
    {"concealed": "11122233344455m", "draw": "5m", "indicator": "E", "tianhu": True},
]


class Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Hang()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---- inputs ----

def _text(rng: random.Random, n: int = 20) -> str:
    pool = "123456789mpsz ESWNCFP[]()+,０１２３４５６７８９ｍｐｓ五万筒条白板东风\u3000\t\n\x00\ud800٣²"
    return "".join(rng.choice(pool) if rng.random() < 0.8 else chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(n)))


def _mutate(rng: random.Random, s: str) -> str:
    for _ in range(rng.randint(1, 4)):
        if not s:
            return rng.choice(PAYLOADS)
        i = rng.randrange(len(s))
        op = rng.randrange(5)
        if op == 0:
            s = s[:i] + s[i + 1:]
        elif op == 1:
            s = s[:i] + rng.choice(PAYLOADS) + s[i:]
        elif op == 2:
            s = s[:i] + s[i] * rng.randint(2, 50) + s[i + 1:]
        elif op == 3:
            j = rng.randrange(len(s))
            s = s[:i] + s[j:] if j > i else s
        else:
            s = s[:i] + chr(rng.randrange(0x20, 0x7f)) + s[i + 1:]
    return s


def _json_value(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if depth > 3 or r < 0.4:
        return rng.choice([None, True, False, 0, -1, 2**70, 1.5, "", "7p", "345m123sEEE77m45s", rng.choice(PAYLOADS)])
    if r < 0.7:
        return [_json_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["id", "concealed", "melds", "draw", "indicator", "kong_draw", "profile", "options", "tianhu", "type", "tile", "x"]
    return {rng.choice(keys): _json_value(rng, depth + 1) for _ in range(rng.randrange(6))}


# ---- surfaces: each returns a function input → None (raises on a crash) ----

def surface_hand(rng: random.Random) -> Callable[[], None]:
    from tjmj_dsl.notation import parse_hand
    from tjmj_dsl.tiles import TileError
    base = ["345m 123s EEE 77m 45s +6s", "123456789m 1m2m EE +5m", "345m 123s 77m 45s (5555p) +6s", "[555p] 五万 7筒 白板 +E"]

    def one() -> None:
        text = _mutate(rng, rng.choice(base)) if rng.random() < 0.6 else _text(rng)
        try:
            out = parse_hand(text)
        except TileError as e:
            e.render()
            return
        assert set(out) <= {"concealed", "melds", "draw"}
    return one


def surface_jsonl(rng: random.Random) -> Callable[[], None]:
    import io
    from tjmj_dsl.engine.runtime import answer_line, read_lines
    from tjmj_dsl.service import Service
    service = Service()  # what `tjmj score --jsonl` answers with
    answer, text = service.answerer("auto"), service.texter("auto")

    def refuse(i: Any, e: Any) -> Any:
        return service.refuse("score", i, e)

    def strict(x: str) -> None:
        raise AssertionError("not strict JSON: " + x)

    def one() -> None:
        r = rng.random()
        if r < 0.3:
            line = bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
        elif r < 0.6:
            line = json.dumps(_json_value(rng)).encode()
        else:
            line = _mutate(rng, json.dumps(random_request(rng), ensure_ascii=False)).encode("utf-8", "surrogatepass")
        got = list(read_lines(io.BytesIO(line.replace(b"\n", b" ") + b"\n")))
        assert len(got) == 1
        out = answer_line(got[0], answer, refuse, text)
        if out is None:
            assert not got[0].strip()
            return
        res = json.loads(out, parse_constant=strict)
        assert isinstance(res, dict) and "contract" in res and "rules" in res, out
        assert "Traceback" not in out and "internal_error" not in out, out
    return one


def _backends_agree(path: str, gen_cls: Any) -> None:
    """The generated scorer and the interpreter of a rule file answer the sample hands alike."""
    from tests.readings import same_answer
    g, i = gen_cls(path), gen_cls(path, backend="interpreter")
    for h in HANDS:
        # as the differential judges: the same answer, the decomposition shown may be another equally good
        # reading (each checked to be a true one) when the readings claim the same patterns
        same_answer(h, g.score(h), i.score(h))


def _scratch() -> str:
    """A folder for a surface's files, removed when the run ends (a run leaves nothing behind)."""
    d = tempfile.mkdtemp(prefix="tjmj-fuzz-")
    atexit.register(shutil.rmtree, d, True)
    return d


def surface_rules(rng: random.Random) -> Callable[[], None]:
    from tjmj_dsl import RuleError, Scorer
    from tjmj_dsl.compiler import load_rules
    with open(RULES, encoding="utf-8") as f:
        lines = f.read().split("\n")
    d = _scratch()
    path = os.path.join(d, "rules.yaml")

    def one() -> None:
        ls = list(lines)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(ls))
            op = rng.randrange(4)
            if op == 0:
                del ls[i]
            elif op == 1:
                ls.insert(i, ls[rng.randrange(len(ls))])
            elif op == 2:
                ls[i] = _mutate(rng, ls[i])
            else:
                j = rng.randrange(len(ls))
                ls[i], ls[j] = ls[j], ls[i]
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write("\n".join(ls))
        try:
            load_rules(path)
        except RuleError as e:
            e.render()
            return
        if rng.random() < 0.2:  # building both backends is slow: now and then
            _backends_agree(path, Scorer)
    return one


SET_PATHS = ["patterns.su.when", "patterns.long.when", "patterns.su.value", "patterns.long.kind", "hun.kinds", "min_fan",
             "algebra", "score_tables.separate", "request_rules.indicator_on_wall.error_when", "patterns.su.enabled",
             "definitions", "options.min_fan.default", "patterns.zhuo5.requires", "patterns.su.conflicts",
             "kong_points.exposed", "title", "patterns.long.name", "profiles.seed-001.options"]
EXPR_ATOMS = ["huns", "1", "0", "true", "t", "5m", "none", "kong_draw", "len(melds)", "hun_suit", '"m"', "pair.huns",
              "count(t)", "tianhu", "add", "fan", "x", "g.rank", "sum(add)", "long_in(s)"]


def _expr(rng: random.Random, depth: int = 0) -> str:
    if depth > 3 or rng.random() < 0.3:
        return rng.choice(EXPR_ATOMS)
    k = rng.randrange(6)
    a, b = _expr(rng, depth + 1), _expr(rng, depth + 1)
    if k == 0:
        return f"({a} {rng.choice(['+', '-', '*', '/', '==', '!=', '<', 'and', 'or', 'in'])} {b})"
    if k == 1:
        return f"not {a}"
    if k == 2:
        return f"{rng.choice(['any', 'all', 'count', 'sum', 'max'])}(g in {rng.choice(['melds', 'groups', 'declared'])}: {a})"
    if k == 3:
        return f"({a} if {b} else {_expr(rng, depth + 1)})"
    if k == 4:
        return "[" + ", ".join(_expr(rng, depth + 1) for _ in range(rng.randrange(3))) + "]"
    return _mutate(rng, a)


def surface_overlay(rng: random.Random) -> Callable[[], None]:
    import yaml

    from tjmj_dsl import RuleError, Scorer
    from tjmj_dsl.compiler import load_rules
    d = _scratch()
    path = os.path.join(d, "overlay.yaml")

    def value() -> Any:
        r = rng.random()
        if r < 0.5:
            return _expr(rng)
        return rng.choice([3, 3.0, -1, True, "x", None, [], {}, ["long"], {"a": 1}, 10**30, rng.choice(PAYLOADS)])

    def one() -> None:
        sets = {rng.choice(SET_PATHS): value() for _ in range(rng.randint(1, 3))}
        doc: dict[str, Any] = {"extends": RULES, "set": sets}
        if rng.random() < 0.2:
            doc["definitions"] = {f"f{rng.randrange(3)}(x)": _expr(rng)}
        with open(path, "w", encoding="utf-8") as f:
            f.write(yaml.safe_dump(doc, allow_unicode=False))
        try:
            load_rules(path)
        except RuleError as e:
            e.render()
            return
        _backends_agree(path, Scorer)
    return one


def surface_tables(rng: random.Random) -> Callable[[], None]:
    from benchmarks.fuzz_tables import surface_tables as tables
    return tables(rng)


def surface_tables_ws(rng: random.Random) -> Callable[[], None]:
    from benchmarks.fuzz_tables import surface_tables_ws as tables_ws
    return tables_ws(rng)


def surface_serve(rng: random.Random) -> Callable[[], None]:
    from benchmarks.fuzz_tables import surface_serve as serve
    return serve(rng)


SURFACES = {"hand": surface_hand, "jsonl": surface_jsonl, "rules": surface_rules, "overlay": surface_overlay,
            "tables": surface_tables, "tables-ws": surface_tables_ws,
            "serve": surface_serve}


def run_surface(name: str, seconds: float, hang: float, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    one = SURFACES[name](rng)
    signal.signal(signal.SIGALRM, _alarm)
    n = crashes = hangs = 0
    first: list[str] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        n += 1
        signal.setitimer(signal.ITIMER_REAL, hang)
        try:
            one()
        except Hang:
            hangs += 1
            first.append(f"hang (> {hang} s)")
        except Exception:  # noqa: BLE001 - a crash: anything the surface does not document
            crashes += 1
            if len(first) < 3:
                first.append(traceback.format_exc(limit=6))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return {"surface": name, "inputs": n, "crashes": crashes, "hangs": hangs, "peak_mb": round(_peak_mb()), "first": first}


def _agree(req: dict[str, Any], a: dict[str, Any], b: dict[str, Any]) -> bool:
    """As the suite's property tests judge it (tests/readings.py)."""
    from tests.readings import same_answer
    try:
        same_answer(req, a, b)
    except Exception:  # noqa: BLE001  (AssertionError, or a reading the check cannot read)
        return False
    return True


def differential(n: int, seed: int) -> dict[str, Any]:
    """Interpreter vs generated on n requests, spread over option sets that
    take each value of each option, and the profiles."""
    from tjmj_dsl import Scorer
    from tjmj_dsl.compiler import load_rules
    rs = load_rules(None)
    sets: list[tuple[str | None, dict[str, Any]]] = [(p, {}) for p, _ in rs.profiles]
    for o in rs.options:
        if o.acts_on in ("play", "settlement"):
            continue  # not read by scoring
        for c in o.choices:
            if c != o.default:
                sets.append((None, {o.id: c}))
    rng = random.Random(seed)
    mismatches: list[str] = []
    t0 = time.monotonic()
    per = n // len(sets) + 1
    done = 0
    for prof, opts in sets:
        g, i = Scorer(profile=prof, options=opts), Scorer(profile=prof, options=opts, backend="interpreter")
        kinds = dict(g.ruleset.choices).get("hun_kinds", 2)
        for _ in range(per):
            r = rng.random()
            max_huns = 0 if r < 0.55 else (2 if r < 0.85 else (4 if r < 0.97 else 7))
            req = random_request(rng, hun_kinds=kinds, max_huns=max_huns)
            a, b = g.score(req), i.score(req)
            if not _agree(req, a, b) and len(mismatches) < 5:
                mismatches.append(json.dumps({"profile": prof, "options": opts, "request": req}, ensure_ascii=False))
            done += 1
            if done % 1000 == 0:  # progress, so a run stopped early still says how far it agreed
                print(json.dumps({"differential": done, "mismatches": len(mismatches),
                                  "seconds": round(time.monotonic() - t0)}), file=sys.stderr, flush=True)
    return {"requests": done, "option_sets": len(sets), "mismatches": len(mismatches), "first": mismatches,
            "seconds": round(time.monotonic() - t0)}


def stream(n: int, valid_sets: int, distinct_bad: int, seed: int = 11) -> dict[str, Any]:
    from tests.streamgen import lines
    wrap = ("import resource, runpy, sys\nsys.argv = ['tjmj', 'score', '--jsonl']\n"
            "try:\n    runpy.run_module('tjmj_dsl.cli', run_name='__main__')\n"
            "finally:\n    sys.stderr.write('peak %d\\n' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as f:
        for line in lines(n, seed=seed, valid_sets=valid_sets, distinct_bad=distinct_bad):
            f.write(line + b"\n")
        path = f.name
    t0 = time.monotonic()
    with open(path, "rb") as stdin:
        res = subprocess.run([sys.executable, "-c", wrap], stdin=stdin, capture_output=True, env=dict(os.environ, PYTHONPATH=ROOT))
    os.unlink(path)
    answers = res.stdout.count(b"\n")
    peak = int(res.stderr.decode("utf-8", "replace").strip().splitlines()[-1].split()[1]) / 1024
    return {"lines": n, "answers": answers, "valid_option_sets": valid_sets, "bad_option_sets": distinct_bad,
            "exit": res.returncode, "peak_mb": round(peak), "seconds": round(time.monotonic() - t0)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=300, help="per surface (default 300)")
    ap.add_argument("--hang", type=float, default=20, help="an input taking longer is a hang (default 20 s)")
    ap.add_argument("--differential", type=int, default=100_000, help="requests (default 100,000; 0 skips)")
    ap.add_argument("--stream", type=int, default=1_000_000, help="JSONL lines (default 1,000,000; 0 skips)")
    ap.add_argument("--valid-sets", type=int, default=81, help="distinct valid option sets in the stream")
    ap.add_argument("--bad-sets", type=int, default=100_000, help="distinct invalid option sets in the stream")
    ap.add_argument("--surfaces", default=",".join(SURFACES))
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(run_surface(a.child, a.seconds, a.hang, a.seed)))
        return 0
    started = time.strftime("%Y-%m-%d %H:%M")
    rows = []
    for name in [s for s in a.surfaces.split(",") if s]:
        res = subprocess.run([sys.executable, __file__, "--child", name, "--seconds", str(a.seconds), "--hang", str(a.hang),
                              "--seed", str(a.seed)], capture_output=True, text=True)
        if res.returncode != 0:
            rows.append({"surface": name, "inputs": 0, "crashes": "the run died", "hangs": "?", "peak_mb": "?",
                         "first": [res.stderr[-2000:]]})
        else:
            rows.append(json.loads(res.stdout.strip().splitlines()[-1]))
        print(json.dumps(rows[-1], ensure_ascii=False)[:3000], file=sys.stderr)
    diff = differential(a.differential, a.seed) if a.differential else None
    if diff:
        print(json.dumps(diff, ensure_ascii=False)[:3000], file=sys.stderr)
    st = stream(a.stream, a.valid_sets, a.bad_sets, a.seed) if a.stream else None
    if st:
        print(json.dumps(st), file=sys.stderr)
    load = os.getloadavg()[0]
    print(f"Run of {started} ({os.cpu_count()} cores, load average {load:.1f} at the end), seed {a.seed}, "
          f"{a.seconds:.0f} s per surface:\n")
    print("| surface | inputs | crashes | hangs (> %g s) | peak memory |" % a.hang)
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['surface']} | {r['inputs']:,} | {r['crashes']} | {r['hangs']} | {r['peak_mb']} MB |")
    if diff:
        print(f"\nDifferential: {diff['requests']:,} requests over {diff['option_sets']} option sets and profiles, "
              f"{diff['mismatches']} mismatches, {diff['seconds']} s.")
    if st:
        print(f"\nStream: {st['lines']:,} JSONL lines ({st['valid_option_sets']} valid and {st['bad_option_sets']:,} invalid "
              f"distinct option sets) → {st['answers']:,} answers, exit {st['exit']}, peak {st['peak_mb']} MB, {st['seconds']} s.")
    bad = any(r["crashes"] or r["hangs"] for r in rows) or (diff and diff["mismatches"]) or (st and (st["exit"] or st["answers"] != st["lines"]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
