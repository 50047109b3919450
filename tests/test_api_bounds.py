"""One contract, one answer: a request given to the Python API (tjmj_dsl.Scorer, a generated
scorer's score/waits/settle, and the JavaScript scorer's) is bounded as a JSONL line or an HTTP
request is — at most MAX_LINE bytes as JSON, nested at most MAX_NESTING deep — and refused with the
same error code (too_large, not_json) before any work whose cost grows with it. Requests of each
class are generated over the fields that can hold them."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from typing import Any

import pytest

from conftest import run
from tjmj_dsl import Scorer
from tjmj_dsl.engine import runtime, settle
from tjmj_dsl.engine.runtime import MAX_LINE, MAX_NESTING

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NODE = shutil.which("node") or shutil.which("nodejs")
HAND = {"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"}
OUTCOME = {"dealer": 0, "winner": 1, "total": 2}


def _deep(n: int) -> Any:
    x: Any = 1
    for _ in range(n):
        x = [x]
    return x


def cases() -> list[tuple[str, dict[str, Any], str]]:
    """(name, request, the code a line of it gets): over the limit by each field that can grow."""
    big = MAX_LINE + 10
    out = []
    for base_name, base in (("hand", HAND), ("outcome", OUTCOME)):
        out += [
            (f"{base_name}: long id", dict(base, id="x" * big), "too_large"),
            (f"{base_name}: long id of many items", dict(base, id=list(range(big // 2))), "too_large"),
            (f"{base_name}: many options", dict(base, options={f"o{i}": 1 for i in range(big // 8)}), "too_large"),
            (f"{base_name}: long profile", dict(base, profile="p" * big), "too_large"),
            (f"{base_name}: long concealed", dict(base, concealed="1m" * (big // 2)), "too_large"),
            (f"{base_name}: deep id", dict(base, id=_deep(MAX_NESTING)), "not_json"),
            (f"{base_name}: deep options", dict(base, options={"a": _deep(MAX_NESTING)}), "not_json"),
        ]
    return out


CASES = cases()


def _line_code(kind: str, request: dict[str, Any]) -> str:
    """The error code `tjmj score|waits --jsonl` gives the request as a line."""
    code, out, _ = run([kind, "--jsonl"], json.dumps(request) + "\n")
    return str(json.loads(out)["error"]["code"])


@pytest.mark.parametrize("name, request_, code", CASES, ids=[c[0] for c in CASES])
def test_the_python_api_refuses_as_a_line_would(name: str, request_: dict[str, Any], code: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def work(*_: Any, **__: Any) -> Any:
        raise AssertionError("the request was worked on (its options read, its tiles or outcome parsed)")
    sc = Scorer()
    # refused before the work whose cost grows with the request: no option set looked up or compiled, no
    # request or outcome parsed (was a time bound; a test of what is not done cannot flake on a slow machine)
    monkeypatch.setattr(Scorer, "for_request", work)
    monkeypatch.setattr(runtime, "parse_request", work)
    monkeypatch.setattr(settle, "parse_outcome", work)
    for answer in (sc.score, sc.waits, sc.settle):
        got = answer(dict(request_))
        assert got["error"]["code"] == code, (answer.__name__, got["error"])
        assert got["id"] is None and got["reason"] == "invalid_request"


def test_a_line_of_each_gets_the_same_code() -> None:
    # one of each class through the command line (it reads text: a long line, a deep one)
    for name, request_, code in (CASES[0], CASES[5]):
        assert _line_code("score", request_) == code, name
        assert _line_code("waits", request_) == code, name


def test_the_generated_python_scorer_refuses_alike() -> None:
    spec = importlib.util.spec_from_file_location("bounded_scorer", os.path.join(ROOT, "generated", "tianjin", "scorer.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    sc = Scorer()
    for name, request_, code in CASES:
        for f in ("score", "waits", "settle"):
            assert getattr(mod, f)(dict(request_))["error"] == getattr(sc, f)(dict(request_))["error"], (name, f)


def test_a_request_under_the_limits_is_answered() -> None:
    sc = Scorer()
    ok = dict(HAND, id={"ticket": "x" * 1000, "path": _deep(MAX_NESTING - 3)})
    got = sc.score(ok)
    assert got["win"] is True and got["id"] == ok["id"]
    assert sc.score(dict(HAND, id=10**30))["win"] is True  # a long int id: the full path, the same answer


@pytest.mark.skipif(NODE is None, reason="node is not installed (tools/setup_test_deps.py installs Debian's nodejs)")
def test_the_javascript_scorer_refuses_alike(tmp_path: Any) -> None:
    sc = Scorer()
    reqs = [c[1] for c in CASES]
    path = tmp_path / "reqs.json"
    path.write_text(json.dumps(reqs), encoding="utf-8")
    script = tmp_path / "run.mjs"
    scorer = os.path.join(ROOT, "generated", "tianjin", "scorer.mjs")
    script.write_text(
        f"import {{ score, waits, settle }} from {json.dumps(scorer)};\n"
        "import { readFileSync } from 'node:fs';\n"
        f"const reqs = JSON.parse(readFileSync({json.dumps(str(path))}, 'utf8'));\n"
        "const out = reqs.map((r) => [score(r), waits(r), settle(r)].map((a) => a.error));\n"
        "process.stdout.write(JSON.stringify(out));\n", encoding="utf-8")
    res = subprocess.run([NODE, str(script)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    for (name, request_, _), errors in zip(CASES, got):
        assert errors == [sc.score(dict(request_))["error"], sc.waits(dict(request_))["error"],
                          sc.settle(dict(request_))["error"]], name


def _at_size(n: int, fill: str) -> dict[str, Any]:
    """HAND with an id of `fill` characters whose most compact JSON text is exactly n characters (code points)."""
    empty = len(json.dumps(dict(HAND, id=""), separators=(",", ":"), ensure_ascii=False))
    return dict(HAND, id=fill * (n - empty))


# requests where a count in UTF-16 units, or a bit length from Math.log2, would tell the two scorers apart
BORDER = [
    ("astral id at the limit", _at_size(MAX_LINE, "\U0001F600"), None),
    ("astral id one past it", _at_size(MAX_LINE + 1, "\U0001F600"), "too_large"),
    ("accented id one past it", _at_size(MAX_LINE + 1, "é"), "too_large"),
    ("ids of 2^53 - 1", dict(HAND, id=[2**53 - 1] * ((MAX_LINE - 100) // 17)), None),
    ("a top-level list", ["x" * (MAX_LINE + 10)], "too_large"),  # not a mapping: score measures it as a line
]


@pytest.mark.parametrize("name, request_, code", BORDER, ids=[b[0] for b in BORDER])
def test_the_count_is_the_compact_texts_characters(name: str, request_: Any, code: str | None) -> None:
    got = Scorer().score(request_)
    assert (got.get("error") or {}).get("code") == code, got.get("error")


@pytest.mark.skipif(NODE is None, reason="node is not installed (tools/setup_test_deps.py installs Debian's nodejs)")
def test_the_javascript_scorer_counts_as_python_does(tmp_path: Any) -> None:
    """engine_js's oversized counts a text in code points (not UTF-16 units) and an integer by its exact bit
    length (Math.log2 rounds 2^53 - 1 up to 53), and measures score()'s request whatever its type."""
    sc = Scorer()
    path = tmp_path / "border.json"
    path.write_text(json.dumps([b[1] for b in BORDER], ensure_ascii=False), encoding="utf-8")
    script = tmp_path / "border.mjs"
    scorer = os.path.join(ROOT, "generated", "tianjin", "scorer.mjs")
    script.write_text(
        f"import {{ score, waits, settle }} from {json.dumps(scorer)};\n"
        "import { readFileSync } from 'node:fs';\n"
        f"const reqs = JSON.parse(readFileSync({json.dumps(str(path))}, 'utf8'));\n"
        "const out = reqs.map((r) => [score(r), waits(r), settle(r)].map((a) => a.error ?? null));\n"
        "process.stdout.write(JSON.stringify(out));\n", encoding="utf-8")
    res = subprocess.run([NODE, str(script)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    for (name, request_, _), errors in zip(BORDER, json.loads(res.stdout)):
        assert errors == [sc.score(request_).get("error"), sc.waits(request_).get("error"),
                          sc.settle(request_).get("error")], name
