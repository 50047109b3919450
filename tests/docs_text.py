"""The README and every page of the documentation site (docs/), read as one text: the tests that
run the examples (```console, ```python, ```js, the bot) and hold the generated tables current
(contract, vocabulary) find them wherever they live. The README comes first."""

from __future__ import annotations

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def doc_files() -> list[str]:
    out = [os.path.join(ROOT, "README.md")]
    for base, dirs, files in os.walk(os.path.join(ROOT, "docs")):
        dirs.sort()
        out += [os.path.join(base, f) for f in sorted(files) if f.endswith(".md")]
    return out


def docs_text() -> str:
    parts = []
    for path in doc_files():
        with open(path, encoding="utf-8") as f:
            parts.append(f.read())
    return "\n".join(parts)
