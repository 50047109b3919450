"""Diagnostics a person can act on: file:line:col, the source line, a caret
under the offending text, and a hint."""

from __future__ import annotations

from dataclasses import dataclass

from .engine.request import edit_distance


@dataclass(frozen=True)
class Pos:
    """A 1-based position in a file; end_col is exclusive (same line) or 0."""

    file: str
    line: int
    col: int
    end_col: int = 0


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" | "warning"
    code: str
    message: str
    pos: Pos | None = None
    hint: str = ""
    subject: str = ""  # what a warning is about (a pattern, option=value): `silence:` names it

    def render(self, source: str | None = None) -> str:
        head = f"{self.severity}: {self.message}"
        if self.pos is not None and not self.pos.file.startswith("<"):  # <options>, <command line>: no file to point into
            head = f"{self.pos.file}:{self.pos.line}:{self.pos.col}: {head}"
        out = [head]
        if self.pos is not None and source is not None:
            lines = source.splitlines()
            if 1 <= self.pos.line <= len(lines):
                text = lines[self.pos.line - 1]
                col = self.pos.col
                width = max(1, (self.pos.end_col or col + 1) - col)
                if len(text) > _LINE:  # a window of a long line around the column
                    first = max(0, min(col - 1 - _LINE // 3, len(text) - _LINE))
                    text = text[first:first + _LINE]
                    col -= first
                    width = min(width, _LINE - col + 1)
                text = "".join(c if c.isprintable() or c == "\t" else "\ufffd" for c in text)
                num = str(self.pos.line)
                out.append(f" {num} | {text}")
                lead = _display_width(text[: col - 1])
                under = _display_width(text[col - 1: col - 1 + width]) or 1
                out.append(f" {' ' * len(num)} | {' ' * lead}{'^' * under}")
        if self.hint:
            out.append(f"hint: {self.hint}")
        return "\n".join(out)


_LINE = 160  # the most of a source line a diagnostic shows


def _display_width(s: str) -> int:
    return sum(2 if ord(c) > 0x2E7F else 1 for c in s)


class RuleError(Exception):
    """Raised by a compiler pass with every diagnostic it found."""

    def __init__(self, diagnostics: list[Diagnostic], sources: dict[str, str] | None = None) -> None:
        super().__init__(f"{len(diagnostics)} error(s)")
        self.diagnostics = diagnostics
        self.sources = sources or {}

    def render(self, most: int | None = None) -> str:
        """Every diagnostic (or the first `most`, then how many more), each with its line and caret."""
        shown = self.diagnostics if most is None else self.diagnostics[:most]
        lines = [d.render(self.sources.get(d.pos.file) if d.pos else None) for d in shown]
        if len(shown) < len(self.diagnostics):
            lines.append(f"... and {len(self.diagnostics) - len(shown)} more")
        return "\n".join(lines)


HINT_MAX_LEN = 64  # longer words get no did-you-mean (edit distance is quadratic)
HINT_MAX_CANDIDATES = 1000


def did_you_mean(word: str, candidates: list[str] | tuple[str, ...] | set[str]) -> str:
    """'did you mean X?' naming every candidate at the least edit distance (when it is small),
    and every one the word begins (seed-000 → seed-000-fan, seed-000-coins). Bounded: words
    over HINT_MAX_LEN characters, and candidates past the first HINT_MAX_CANDIDATES, are not
    compared, and distances past the limit are not worked out."""
    if not isinstance(word, str) or len(word) > HINT_MAX_LEN:
        return ""
    limit = max(1, min(3, len(word) // 3 + 1))
    dist: dict[str, int] = {}
    for c in sorted({str(x) for x in list(candidates)[:HINT_MAX_CANDIDATES]}):
        dist[c] = edit_distance(word, c, limit)
    if not dist:
        return ""
    best_d = min(dist.values())
    best = [c for c, d in dist.items() if (d == best_d and d <= limit) or (len(word) >= 3 and c.startswith(word))]
    if not best:
        return ""
    names = " or ".join(repr(c) for c in best) if len(best) <= 2 else ", ".join(repr(c) for c in best[:-1]) + f" or {best[-1]!r}"
    return f"did you mean {names}?"

