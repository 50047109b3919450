"""MkDocs hooks of the tjmj site (mkdocs.yml names this file).

- The reference pages (tools/docs_pages.py) are added as the site is built, and each worked impact
  report's self-contained HTML as standalone.html beside the page of its report.md.
- A page's link to a repository file outside docs/ (`../rules/tianjin.yaml`) points at the copy of
  that file the site carries under repo/, and a link to a generated rulebook.md at its site page:
  the site works offline and every link in it resolves (tests/test_docs_site.py checks each one)."""

from __future__ import annotations

import os
import posixpath
import re
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from docs_pages import ROOT, pages, repo_files, rulebooks  # noqa: E402

from mkdocs.structure.files import File, Files  # noqa: E402

LINK = re.compile(r"(\]\()([^)\s]+)(\))")
BOOKS = {f"generated/{folder}/rulebook.md": f"play/rulebook-{profile}.md" for profile, folder in rulebooks()}


def on_files(files: Files, config: Any) -> Files:
    for path, text in pages().items():
        files.append(File.generated(config, path, content=text))
    impact = os.path.join(config["docs_dir"], "impact")
    for name in sorted(os.listdir(impact)) if os.path.isdir(impact) else ():
        html = os.path.join(impact, name, "report.html")
        if os.path.isfile(html):  # the self-contained report, beside the page of its report.md (mkdocs.yml)
            files.append(File.generated(config, f"impact/{name}/standalone.html", abs_src_path=html))
    for rel in repo_files():
        files.append(File.generated(config, f"repo/{rel}", abs_src_path=os.path.join(ROOT, rel)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    here = posixpath.dirname(page.file.src_uri)  # the page's folder, inside docs/
    docs = os.path.relpath(config["docs_dir"], ROOT).replace(os.sep, "/")

    def fix(m: re.Match[str]) -> str:
        target = m.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
            return m.group(0)
        path, sep, frag = target.partition("#")
        in_repo = posixpath.normpath(posixpath.join(docs, here, path))  # the target, from the repository's root
        if in_repo.startswith(docs + "/") or in_repo.startswith(".."):
            return m.group(0)  # a page of the site (or outside the repository: the link check says so)
        site = BOOKS.get(in_repo) or f"repo/{in_repo}"
        return m.group(1) + posixpath.relpath(site, here or ".") + sep + frag + m.group(3)

    return LINK.sub(fix, markdown)
