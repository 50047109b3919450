"""The documentation site builds from the repository (`mkdocs build --strict`: no page outside the
nav, no broken link or anchor MkDocs can see), and the built site holds together on its own: every
relative link and resource of every page resolves to a file of the site (and its #fragment to an
id there), and no page loads anything from another host (it works offline)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from typing import Any

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for k, v in attrs:
            if v is None:
                continue
            if k in ("id", "name"):
                self.ids.add(v)
            if k in ("href", "src"):
                self.links.append((tag, k, v))


@pytest.fixture(scope="module")
def site(tmp_path_factory: Any) -> str:
    out = str(tmp_path_factory.mktemp("site"))
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", out], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    # not -q: with it MkDocs let warnings pass a strict build (a report.html left out of the site went unseen)
    assert "WARNING" not in res.stdout + res.stderr, res.stdout + res.stderr
    return out


def _pages(site: str) -> dict[str, _Page]:
    pages = {}
    for base, _, files in os.walk(site):
        for f in files:
            if f.endswith(".html") and not (base == site and f == "404.html"):  # a server's page for any path: absolute links
                path = os.path.join(base, f)
                p = _Page()
                with open(path, encoding="utf-8") as fh:
                    p.feed(fh.read())
                pages[path] = p
    return pages


def test_every_reader_has_a_section(site: str) -> None:
    for page in ("index.html", "play/index.html", "design/index.html", "use/index.html", "internals/index.html",
                 "decisions/index.html", "design/reference.html", "use/schemas.html", "design/check-codes.html",
                 "play/rulebook-seed-001.html", "internals/layers.html", "decisions/all.html"):
        assert os.path.isfile(os.path.join(site, page)), page


def test_each_worked_impact_report_is_on_the_site_whole(site: str) -> None:
    """Its report.md is a page, and its self-contained report.html is beside it, byte for byte."""
    impact = os.path.join(ROOT, "docs", "impact")
    names = [n for n in sorted(os.listdir(impact)) if os.path.isfile(os.path.join(impact, n, "report.html"))]
    assert len(names) >= 5
    for n in names:
        assert os.path.isfile(os.path.join(site, "impact", n, "report.html"))
        with open(os.path.join(impact, n, "report.html"), "rb") as a, \
                open(os.path.join(site, "impact", n, "standalone.html"), "rb") as b:
            assert a.read() == b.read(), n


def test_every_link_of_the_site_resolves_within_it(site: str) -> None:
    pages = _pages(site)
    broken = []
    for path, page in pages.items():
        for tag, attr, value in page.links:
            if EXTERNAL.match(value) or value.startswith("#") and value[1:] in page.ids or value in ("#", ""):
                continue
            target, _, frag = value.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(path), target.split("?")[0])) if target else path
            if os.path.isdir(full):
                full = os.path.join(full, "index.html")
            if not os.path.exists(full):
                broken.append(f"{os.path.relpath(path, site)}: {value}")
            elif frag and full.endswith(".html") and full in pages and frag not in pages[full].ids:
                broken.append(f"{os.path.relpath(path, site)}: {value} (no such anchor)")
    assert broken == [], "\n".join(broken[:40])


def test_no_page_loads_anything_from_another_host(site: str) -> None:
    loads = []
    for path, page in _pages(site).items():
        for tag, attr, value in page.links:
            if EXTERNAL.match(value) and (attr == "src" or tag == "link") and not value.startswith("data:"):
                loads.append(f"{os.path.relpath(path, site)}: <{tag} {attr}={value}>")
    assert loads == [], "\n".join(loads[:20])


def test_the_reference_pages_are_written_from_the_sources(site: str) -> None:
    import json
    with open(os.path.join(ROOT, "rules", "schema.json"), encoding="utf-8") as f:
        keys = list(json.load(f)["properties"])
    with open(os.path.join(site, "design", "reference.html"), encoding="utf-8") as f:
        ref = f.read()
    assert all(f"<code>{k}</code>" in ref for k in keys)
    schemas = [n.removesuffix(".schema.json") for n in os.listdir(os.path.join(ROOT, "schemas")) if n.endswith(".json")]
    with open(os.path.join(site, "use", "schemas.html"), encoding="utf-8") as f:
        text = f.read()
    assert schemas and all(f">{s}<" in text for s in schemas)


def test_every_warning_code_check_can_print_is_on_the_check_codes_page() -> None:
    codes = set()
    for base, _, files in os.walk(os.path.join(ROOT, "tjmj_dsl")):
        for f in files:
            if f.endswith(".py"):
                with open(os.path.join(base, f), encoding="utf-8") as fh:
                    text = fh.read()
                codes |= set(re.findall(r'Diagnostic\(\s*"warning",\s*"([a-z0-9-]+)"', text))
                codes |= set(re.findall(r'"warning",\s*"([a-z0-9-]+)",\s*f?"silence', text))
                codes |= set(re.findall(r'code = "([a-z0-9-]+)" if', text))
    with open(os.path.join(ROOT, "docs", "design", "check-codes.md"), encoding="utf-8") as f:
        page = f.read()
    assert {"never-claimed", "no-fan-change", "silence-unused", "example-inherited"} <= codes
    missing = sorted(c for c in codes if f"| `{c}` |" not in page)
    assert missing == [], f"codes without a row on docs/design/check-codes.md: {missing}"


def test_the_variants_page_lists_every_option_of_the_built_in_rules() -> None:
    """docs/design/variants.md says `tjmj variants` lists the options, in a table: each one is in it, with its
    values (it had left out four options added after it was written)."""
    import re

    from tjmj_dsl import load_rules
    with open(os.path.join(ROOT, "docs", "design", "variants.md"), encoding="utf-8") as f:
        text = f.read()
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\| (`[a-z_0-9]+`(?:, `[a-z_0-9]+`)*) \| ([^|]+) \|", line)
        if m:
            for name in re.findall(r"`([a-z_0-9]+)`", m.group(1)):
                rows[name] = m.group(2)
    options = load_rules().options
    assert sorted(rows) == sorted(o.id for o in options)
    for o in options:
        shown = rows[o.id]
        if "…" not in shown:
            assert sorted(v.strip() for v in shown.split(",")) == sorted(map(str, o.choices)), o.id
