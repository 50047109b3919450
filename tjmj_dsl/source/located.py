"""YAML → plain data plus the position of every node, so that any later pass
can point at the line and column a value came from."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..diagnostics import Diagnostic, Pos, RuleError

Path = tuple[Any, ...]


@dataclass
class Located:
    """One YAML document: `data` as plain Python, and where each path sits."""

    file: str
    text: str
    data: Any
    values: dict[Path, tuple[int, int]] = field(default_factory=dict)  # path → (start, end) offsets of the value
    keys: dict[Path, tuple[int, int]] = field(default_factory=dict)  # path → offsets of the mapping key

    def __post_init__(self) -> None:
        self._starts = [0] + [i + 1 for i, c in enumerate(self.text) if c == "\n"]

    def pos_of_offset(self, off: int, end: int | None = None) -> Pos:
        line = bisect.bisect_right(self._starts, off) - 1
        col = off - self._starts[line] + 1
        end_col = 0
        if end is not None:
            eline = bisect.bisect_right(self._starts, max(off, end - 1)) - 1
            end_col = (end - self._starts[line] + 1) if eline == line else len(self.text[self._starts[line]:].split("\n")[0]) + 1
        return Pos(self.file, line + 1, col, end_col)

    def pos(self, path: Path, key: bool = False) -> Pos:
        """Where `path` is (its key, if asked and it has one); the nearest
        enclosing node when the path itself does not exist."""
        p = tuple(path)
        while True:
            table = self.keys if key and p in self.keys else self.values
            if p in table:
                s, e = table[p]
                return self.pos_of_offset(s, e)
            if not p:
                return Pos(self.file, 1, 1)
            p = p[:-1]
            key = True

    def expr_offset(self, path: Path, i: int) -> int:
        """The file offset of character i of the string scalar at `path`,
        through quotes, escapes and line folding."""
        s, e = self.values[tuple(path)]
        raw = self.text[s:e]
        value = self.get(path)
        if not isinstance(value, str):
            return s
        j = 0
        if raw[:1] in "\"'":
            j = 1
        elif raw[:1] in "|>":
            j = raw.find("\n") + 1
        for k, c in enumerate(value):
            while j < len(raw) and raw[j] != c and not (c == " " and raw[j] in " \n"):
                j += 1
            if k == i:
                return s + min(j, len(raw))
            j += 1
        return s + min(j, len(raw))

    def get(self, path: Path) -> Any:
        cur = self.data
        for p in path:
            cur = cur[p]
        return cur

    def has(self, path: Path) -> bool:
        try:
            self.get(path)
            return True
        except (KeyError, IndexError, TypeError):
            return False


# YAML 1.1 reads these as true/false, YAML 1.2 as words: a rule file must mean the same in
# every reader, so the loader keeps them as the words they are and reports them (unquoted).
YAML11_BOOLS = frozenset("yes Yes YES no No NO on On ON off Off OFF".split())  # (y/n too in the spec; no reader in use takes N, 北, for false)


class _Loader(yaml.SafeLoader):
    """SafeLoader whose plain true/false are booleans and on/off/yes/no stay strings."""


_Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:bool"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                              list("tTfF"))


def load(file: str, text: str) -> Located:
    """Parse YAML, keeping positions. Duplicate keys and YAML syntax errors
    are RuleErrors with positions, not tracebacks."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        pos = Pos(file, mark.line + 1, mark.column + 1) if mark else None
        raise RuleError([Diagnostic("error", "yaml", f"YAML syntax: {e.problem or e.context}", pos,
                                    "check indentation and quoting; an expression with ':' or '#' needs quotes")],
                        {file: text}) from None
    doc = Located(file, text, None)
    diags: list[Diagnostic] = []
    loader = _Loader("")
    doc.data = _walk(node, (), doc, loader, diags) if node is not None else {}
    if diags:
        raise RuleError(diags, {file: text})
    return doc


def _yaml11(node: yaml.Node, doc: Located, diags: list[Diagnostic]) -> None:
    """An unquoted on/off/yes/no: a truth value to some YAML readers, a word to others."""
    if isinstance(node, yaml.ScalarNode) and node.style is None and node.value in YAML11_BOOLS:
        diags.append(Diagnostic(
            "error", "yaml-bool", f"`{node.value}` is true or false to YAML 1.1 readers and a word to YAML 1.2 ones",
            doc.pos_of_offset(node.start_mark.index, node.end_mark.index),
            f'quote it: "{node.value}" for the word; write true or false for a truth value'))


def _walk(node: yaml.Node, path: Path, doc: Located, loader: yaml.SafeLoader, diags: list[Diagnostic]) -> Any:
    doc.values[path] = (node.start_mark.index, node.end_mark.index)
    _yaml11(node, doc, diags)
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for knode, vnode in node.value:
            _yaml11(knode, doc, diags)
            k = loader.construct_object(knode, deep=True)
            if k in out:
                diags.append(Diagnostic("error", "duplicate-key", f"key {k!r} appears twice in this mapping",
                                        doc.pos_of_offset(knode.start_mark.index, knode.end_mark.index),
                                        "YAML keeps only the last one; remove or rename one of them"))
            doc.keys[path + (k,)] = (knode.start_mark.index, knode.end_mark.index)
            out[k] = _walk(vnode, path + (k,), doc, loader, diags)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_walk(v, path + (i,), doc, loader, diags) for i, v in enumerate(node.value)]
    return loader.construct_object(node, deep=True)
