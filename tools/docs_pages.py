"""The documentation site's reference pages, written from what the code and data hold (never by
hand, so never stale): the rule file's reference from rules/schema.json, the JSON Schemas'
reference from schemas/, the decisions and errata from the built-in rule file, and the rulebooks
from generated/. tools/docs_hooks.py adds them to the site as MkDocs builds it; nothing here is
committed as a page."""

from __future__ import annotations

import json
import os
from typing import Any

import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from tjmj_dsl.backends.book.markdown import esc  # noqa: E402  (rule-file text as inert Markdown, as the rulebook writes it)
from tjmj_dsl.backends.outputs import profile_dir  # noqa: E402
from tjmj_dsl.compiler import read_rules  # noqa: E402


def rulebooks() -> list[tuple[str, str]]:
    """(profile, its folder under generated/) of the built-in rules, the default profile first, as
    `tjmj compile` lays them out."""
    data = read_rules(None).data
    profiles = list(data.get("profiles") or {})
    default = data.get("default_profile") or profiles[0]
    ordered = [default] + [p for p in profiles if p != default]
    return [(p, profile_dir(str(data["name"]), p, default)) for p in ordered]


def _read(rel: str) -> str:
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def _cell(text: Any) -> str:
    """Text for a Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _type(s: dict[str, Any]) -> str:
    if "const" in s:
        return f"`{json.dumps(s['const'], ensure_ascii=False)}`"
    if "enum" in s:
        return " \\| ".join(f"`{json.dumps(v, ensure_ascii=False)}`" for v in s["enum"])
    if "anyOf" in s or "oneOf" in s:
        return " or ".join(_type(x) for x in s.get("anyOf") or s.get("oneOf"))
    if "$ref" in s:
        return f"`{s['$ref'].rsplit('/', 1)[-1]}`"
    t = s.get("type", "")
    t = " or ".join(t) if isinstance(t, list) else t
    if t == "array" and isinstance(s.get("items"), dict):
        return f"list of {_type(s['items'])}"
    return t or "any"


def _table(props: dict[str, Any], required: list[str]) -> list[str]:
    rows = ["| key | type | what it is |", "|---|---|---|"]
    for k, s in props.items():
        if not isinstance(s, dict):
            continue
        req = " (required)" if k in required else ""
        rows.append(f"| `{k}`{req} | {_cell(_type(s))} | {_cell(s.get('description', ''))} |")
    return rows


def rule_file_reference() -> str:
    """Every top-level key of a rule file, and the keys of each section that declares them."""
    s = json.loads(_read("rules/schema.json"))
    out = ["# Rule-file reference", "",
           "Written from `rules/schema.json` (itself made by `tools/make_schema.py`) each time the site is built. "
           "Editors that read JSON Schema complete and check a rule file against it (the `yaml-language-server` "
           "line at the top of `rules/tianjin.yaml`). The built-in rule file, "
           "[rules/tianjin.yaml](../../rules/tianjin.yaml), uses every key.", "",
           "## Top level", "", *_table(s["properties"], s.get("required", [])), ""]
    for k, sec in s["properties"].items():
        props = sec.get("properties")
        items = sec.get("additionalProperties")
        if not props and isinstance(items, dict):
            props = items.get("properties")
            req = items.get("required", [])
            what = f"each entry of `{k}:`"
        else:
            req = sec.get("required", [])
            what = f"`{k}:`"
        if props:
            out += [f"## {k}", "", _cell(sec.get("description", "")), "", f"The keys of {what}:", "",
                    *_table(props, req), ""]
    return "\n".join(out)


def schemas_reference() -> str:
    out = ["# JSON Schemas", "",
           "Every request, answer, record and protocol message has a JSON Schema (2020-12) in `schemas/`; this page "
           "is written from them each time the site is built. Each schema's own file is linked; its `examples` are "
           "real requests and the built-in rules' answers, checked by the tests.", ""]
    for name in sorted(os.listdir(os.path.join(ROOT, "schemas"))):
        if not name.endswith(".json"):
            continue
        s = json.loads(_read(f"schemas/{name}"))
        out += [f"## {name.removesuffix('.schema.json')}", "", _cell(s.get("description") or s.get("title") or ""), "",
                f"File: [schemas/{name}](../../schemas/{name})", ""]
        if isinstance(s.get("properties"), dict):
            out += _table(s["properties"], s.get("required", [])) + [""]
    return "\n".join(out)


def decisions_page() -> str:
    d = read_rules(None).data
    out = ["# Decisions and errata", "",
           "The rules come from two Chinese rule texts, cited by name in the rule file's `sources:`. Where they are "
           "unclear or disagree, the rule file says what was decided, in its `decisions:` section (and a comment "
           "beside the rule); their misprints, and the values the rules give instead, are its `errata:`. This page "
           "is written from [rules/tianjin.yaml](../../rules/tianjin.yaml) each time the site is built; each rulebook "
           "prints them too.", "", "## Sources", ""]
    for k, v in (d.get("sources") or {}).items():
        out.append(f"- **{esc(k)}**: {esc(str(v))}")
    out += ["", "## Decisions", ""]
    for k, v in (d.get("decisions") or {}).items():
        out += [f"### {esc(str(v.get('title', k)))}", "", f"{esc(k)} (chapter {esc(str(v.get('chapter', '—')))})", "",
                esc(str(v.get("text", ""))), "", f"Source: {esc(str(v.get('source', '')))}", ""]
    out += ["## Errata", ""]
    for k, v in (d.get("errata") or {}).items():
        out += [f"### {esc(k)}", "", f"{esc(str(v.get('source', '')))} prints: {esc(str(v.get('printed', '')))}", "",
                esc(str(v.get("decision", ""))), ""]
    return "\n".join(out)


def rulebook_page(profile: str, folder: str) -> str:
    text = _read(f"generated/{folder}/rulebook.md")
    head = (f"> The rulebook of profile `{profile}`, as `tjmj compile` generates it "
            f"(`generated/{folder}/rulebook.md`); the one-file HTML book, with its scorer, is "
            f"[rulebook.html](../../generated/{folder}/rulebook.html).\n\n")
    lines = text.split("\n")
    # the generated header comment stays first; the note follows the title
    first_heading = next(i for i, line in enumerate(lines) if line.startswith("# "))
    return "\n".join(lines[:first_heading + 1]) + "\n\n" + head + "\n".join(lines[first_heading + 1:])


def pages() -> dict[str, str]:
    """Site path → Markdown, for every page written at build time."""
    out = {"design/reference.md": rule_file_reference(), "use/schemas.md": schemas_reference(),
           "decisions/all.md": decisions_page(), "internals/layers.md": layers_page()}
    for profile, folder in rulebooks():
        out[f"play/rulebook-{profile}.md"] = rulebook_page(profile, folder)
    return out


def repo_files() -> list[str]:
    """The repository files the site carries as they are, so that its links to them work offline."""
    out = []
    for folder, exts in (("rules", (".yaml", ".json")), ("schemas", (".json",)), ("examples", (".yaml", ".py", ".mjs")),
                         ("generated", (".html", ".py", ".mjs", ".ts", ".json"))):
        for base, _, files in os.walk(os.path.join(ROOT, folder)):
            for f in sorted(files):
                if f.endswith(exts):
                    out.append(os.path.relpath(os.path.join(base, f), ROOT).replace(os.sep, "/"))
    return sorted(out)


def layers_page() -> str:
    """The package's parts and what each imports, read from the source as the site is built, in
    layers: each part imports only parts of the layers below it (or, where two parts import each
    other's modules without a module circle, its own layer says so)."""
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from import_graph import graph

    def part(m: str) -> str:
        bits = m.split(".")
        return ".".join(bits[:2]) if len(bits) > 2 or m in ("tjmj_dsl",) else m
    edges: dict[str, set[str]] = {}
    for m, targets in graph().items():
        edges.setdefault(part(m), set()).update(part(t) for t in targets if part(t) != part(m))
    level: dict[str, int] = {}

    def depth(p: str, seen: tuple[str, ...] = ()) -> int:
        if p in level:
            return level[p]
        if p in seen:
            return 0
        d = 1 + max((depth(t, seen + (p,)) for t in edges.get(p, ())), default=-1)
        level[p] = d
        return d
    for p in edges:
        depth(p)
    mutual = sorted({tuple(sorted((a, b))) for a in edges for b in edges[a] if a in edges.get(b, ())})
    out = ["# Layers, as the code has them", "",
           "Written from the source's imports each time the site is built (`tools/import_graph.py`, which "
           "`tests/test_imports.py` holds to no module circle). A part is a subpackage of `tjmj_dsl` or a "
           "top-level module; layer 0 imports no other part. Read it bottom-up: a part's imports are all in "
           "lower layers, except where two parts use each other's modules (listed below the table: the modules "
           "themselves still import one way).", "", "| layer | part | imports |", "|---|---|---|"]
    for p in sorted(edges, key=lambda x: (-level[x], x)):
        deps = ", ".join(f"`{t.removeprefix('tjmj_dsl.')}`" for t in sorted(edges[p])) or "—"
        out.append(f"| {level[p]} | `{p.removeprefix('tjmj_dsl.')}` | {deps} |")
    if mutual:
        out += ["", "Parts that use each other's modules: " + "; ".join(
            f"`{a.removeprefix('tjmj_dsl.')}` ↔ `{b.removeprefix('tjmj_dsl.')}`" for a, b in mutual) + "."]
    return "\n".join(out) + "\n"
