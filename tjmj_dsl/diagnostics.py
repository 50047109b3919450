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

    def render(self, source: str | None = None) -> str:
        head = f"{self.severity}: {self.message}"
        if self.pos is not None:
            head = f"{self.pos.file}:{self.pos.line}:{self.pos.col}: {head}"
        out = [head]
        if self.pos is not None and source is not None:
            lines = source.splitlines()
            if 1 <= self.pos.line <= len(lines):
                text = lines[self.pos.line - 1]
                num = str(self.pos.line)
                out.append(f" {num} | {text}")
                width = max(1, (self.pos.end_col or self.pos.col + 1) - self.pos.col)
                lead = _display_width(text[: self.pos.col - 1])
                under = _display_width(text[self.pos.col - 1: self.pos.col - 1 + width]) or 1
                out.append(f" {' ' * len(num)} | {' ' * lead}{'^' * under}")
        if self.hint:
            out.append(f"hint: {self.hint}")
        return "\n".join(out)


def _display_width(s: str) -> int:
    return sum(2 if ord(c) > 0x2E7F else 1 for c in s)


class RuleError(Exception):
    """Raised by a compiler pass with every diagnostic it found."""

    def __init__(self, diagnostics: list[Diagnostic], sources: dict[str, str] | None = None) -> None:
        super().__init__(f"{len(diagnostics)} error(s)")
        self.diagnostics = diagnostics
        self.sources = sources or {}

    def render(self) -> str:
        return "\n".join(d.render(self.sources.get(d.pos.file) if d.pos else None) for d in self.diagnostics)


def did_you_mean(word: str, candidates: list[str] | tuple[str, ...] | set[str]) -> str:
    """'did you mean X?' for the nearest candidate within a small edit distance."""
    best, best_d = "", 99
    for c in sorted(candidates):
        d = edit_distance(word, c)
        if d < best_d:
            best, best_d = c, d
    limit = max(1, min(3, len(word) // 3 + 1))
    return f"did you mean {best!r}?" if best and best_d <= limit else ""

