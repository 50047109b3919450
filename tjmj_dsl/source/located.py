"""YAML → plain data plus the position of every node, so that any later pass
can point at the line and column a value came from."""

from __future__ import annotations

import bisect
import copy
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..diagnostics import Diagnostic, Pos, RuleError
from ..expr.parser import MAX_DIGITS  # a whole number's digits, as in expressions: exact in every target language

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


class _Resolver(yaml.SafeLoader):
    """SafeLoader whose plain true/false are booleans and on/off/yes/no stay strings
    (it resolves and builds scalars; the events come from the fastest parser)."""


_Resolver.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:bool"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Resolver.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                list("tTfF"))


_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_DECIMAL = re.compile(r"[-+]?(0|[1-9][0-9]*)\Z")
_FLOAT_12 = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z|[-+]?\.(inf|Inf|INF)\Z|\.(nan|NaN|NAN)\Z")

# Limits on one YAML document (see docs/reliability.md). A rule file is a few
# hundred lines; these stop a hostile one from taking the machine.
MAX_TEXT = 1_000_000  # characters of one file
MAX_NODES = 200_000  # values once aliases are expanded (a "billion laughs" expands to 10^9)
MAX_EXPANDED = 2 * MAX_TEXT  # characters of text once aliases are expanded (one long text repeated by aliases)
MAX_DEPTH = 64  # nesting of mappings and lists

_Loader = yaml.CSafeLoader if getattr(yaml, "__with_libyaml__", False) else yaml.SafeLoader
_PLAIN_TAGS = {"tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
               "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"}
_STR = "tag:yaml.org,2002:str"


class _Stop(Exception):
    """A limit was passed: the document is not read further."""


def load(file: str, text: str) -> Located:
    """Parse YAML, keeping positions. Syntax errors, duplicate keys, keys that
    are not plain names, tags, and documents past the limits (size, nesting,
    aliases that expand too far) are RuleErrors with positions, not
    tracebacks. Every mapping key is read as the text written (`4:` is "4")."""
    if len(text) > MAX_TEXT:
        raise RuleError([Diagnostic("error", "limit", f"the file has {len(text):,} characters; a rule file may have at most {MAX_TEXT:,}",
                                    Pos(file, 1, 1))], {})
    doc = Located(file, text, None)
    diags: list[Diagnostic] = []
    if _Loader is yaml.SafeLoader and _flow_depth(text) > MAX_DEPTH:  # PyYAML alone is slow on deep [[[…
        raise RuleError([Diagnostic("error", "limit", f"values nest more than {MAX_DEPTH} levels deep", Pos(file, 1, 1))],
                        {file: text})
    try:
        doc.data = _Builder(doc, diags).build(text)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        pos = Pos(file, mark.line + 1, mark.column + 1) if mark else None
        problem = str(e.problem or e.context).replace(" in this context", " here")  # libyaml's words → PyYAML's
        if "maximum nesting depth" in problem:
            problem = f"values nest more than {MAX_DEPTH} levels deep"
        raise RuleError([Diagnostic("error", "yaml", f"YAML syntax: {problem}", pos,
                                    "check indentation and quoting; an expression with ':' or '#' needs quotes")],
                        {file: text}) from None
    except yaml.YAMLError as e:  # e.g. a character YAML does not allow
        raise RuleError([Diagnostic("error", "yaml", f"YAML: {str(e).splitlines()[0] if str(e) else type(e).__name__}",
                                    Pos(file, 1, 1))], {file: text}) from None
    except _Stop:
        pass
    if diags:
        raise RuleError(diags, {file: text})
    if doc.data is None:
        doc.data = {}
    return doc


class _Builder:
    """Plain data from the parser's events, without recursion (so nesting is
    bounded by MAX_DEPTH, not by Python's stack), counting every value an
    alias brings in again."""

    def __init__(self, doc: Located, diags: list[Diagnostic]) -> None:
        self.doc = doc
        self.diags = diags
        self.loader = _Resolver("")
        self.nodes = 0
        self.chars = 0

    def error(self, code: str, msg: str, start: int, end: int, hint: str = "", stop: bool = False) -> None:
        self.diags.append(Diagnostic("error", code, msg, self.doc.pos_of_offset(start, end), hint))
        if stop:
            raise _Stop()

    def count(self, n: int, at: Any, chars: int = 0) -> None:
        self.nodes += n
        self.chars += chars
        if self.nodes > MAX_NODES:
            self.error("limit", f"the document holds more than {MAX_NODES:,} values once its aliases are expanded",
                       at.start_mark.index, at.end_mark.index, "a rule file does not need aliases (*name) that repeat this much",
                       stop=True)
        if self.chars > MAX_EXPANDED:  # every output repeats the text: a 36 KB file made 462 MB of rulebook
            self.error("limit", f"the document holds more than {MAX_EXPANDED:,} characters of text once its aliases "
                       "are expanded", at.start_mark.index, at.end_mark.index,
                       "a rule file does not need aliases (*name) that repeat this much", stop=True)

    def number_form(self, ev: Any, start: int, end: int) -> None:
        """A plain number must mean one thing to every reader: plain decimal, at most
        MAX_DIGITS digits (YAML 1.1 reads 010 as 8, 1:00 as 60 and 1_0 as 10, where YAML 1.2
        reads 10 or text; past 2**53 JavaScript cannot hold an integer exactly)."""
        text = ev.value
        tag = self.loader.resolve(yaml.ScalarNode, text, (True, False))
        if tag == _INT or (tag == _FLOAT and not _FLOAT_12.match(text)):
            if tag == _INT and _DECIMAL.match(text):
                if len(text.lstrip("+-")) > MAX_DIGITS:
                    self.error("yaml-number", f"the number {text[:20]}{'…' if len(text) > 20 else ''} has more than "
                               f"{MAX_DIGITS} digits", start, end, "rule files use small whole numbers")
                return
            self.error("yaml-number", f"`{text[:40]}` is a number YAML readers disagree on (YAML 1.1 reads octal, "
                       f"sexagesimal and underscored forms that YAML 1.2 reads otherwise or as text)", start, end,
                       f'write it in plain decimal, or quote it: "{text[:40]}" for text')

    def scalar(self, ev: Any) -> Any:
        tag = ev.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, ev.value, ev.implicit)
        elif tag not in _PLAIN_TAGS:
            self.error("yaml", f"YAML tag {_tag(tag)} is not used in rule files", ev.start_mark.index, ev.end_mark.index,
                       "write plain values: text, numbers, true/false, lists and mappings")
            return None
        if tag == "tag:yaml.org,2002:timestamp":
            return ev.value  # a date is text in a rule file
        node = yaml.ScalarNode(tag, ev.value, ev.start_mark, ev.end_mark, ev.style)
        if tag not in _PLAIN_TAGS:  # an implicit tag SafeLoader knows but rule files do not use (e.g. '=' for value)
            return ev.value
        return self.loader.construct_object(node, deep=True)

    def build(self, text: str) -> Any:
        events = iter(yaml.parse(text, Loader=_Loader))
        anchors: dict[str, tuple[Any, int, int, tuple[int, int]]] = {}  # anchor → (value, values inside, characters, offsets)
        # the frames of open collections: [container, path, start offset, anchor, pending key, key offsets,
        # values and characters counted at its start]
        stack: list[list[Any]] = []
        root: list[Any] = []
        docs = 0

        def place(value: Any, start: int, end: int, size: int = 1) -> None:
            """Put a finished value where it belongs (the root, a list, or a mapping under its key)."""
            if not stack:
                root.append(value)
                return
            top = stack[-1]
            cont, path = top[0], top[1]
            if isinstance(cont, list):
                p = path + (len(cont),)
                cont.append(value)
                self.doc.values[p] = (start, end)
                return
            if top[4] is _NO_KEY:  # this value is a key
                if isinstance(value, (dict, list)):
                    self.error("yaml", "a key must be a plain name, not a list or a mapping", start, end,
                               "write `name: value`")
                    value = _BAD_KEY
                elif not isinstance(value, str):
                    value = "" if value is None else str(value)
                top[4], top[5] = value, (start, end)
                return
            key, (ks, ke) = top[4], top[5]
            top[4] = _NO_KEY
            if key is _BAD_KEY:
                return
            if key in cont:
                self.error("duplicate-key", f"key {_short(key)} appears twice in this mapping", ks, ke,
                           "YAML keeps only the last one; remove or rename one of them")
            self.doc.keys[path + (key,)] = (ks, ke)
            self.doc.values[path + (key,)] = (start, end)
            cont[key] = value

        def child_path() -> tuple[Any, ...]:
            top = stack[-1]
            cont, path = top[0], top[1]
            if isinstance(cont, list):
                return path + (len(cont),)
            return path + (top[4],) if top[4] not in (_NO_KEY, _BAD_KEY) else path + ("?",)

        def in_key_position() -> bool:
            return bool(stack) and isinstance(stack[-1][0], dict) and stack[-1][4] is _NO_KEY

        ev: Any
        value: Any
        for ev in events:
            if isinstance(ev, yaml.StreamStartEvent) or isinstance(ev, yaml.StreamEndEvent):
                continue
            if isinstance(ev, yaml.DocumentStartEvent):
                docs += 1
                if docs > 1:
                    at = _offset(ev.start_mark)
                    self.error("yaml", "a rule file holds one YAML document; this is a second one",
                               at, at + 3, "remove the '---' and what follows", stop=True)
                continue
            if isinstance(ev, yaml.DocumentEndEvent):
                continue
            start, end = ev.start_mark.index, ev.end_mark.index
            if isinstance(ev, yaml.AliasEvent):
                if ev.anchor not in anchors:  # the parser reports this itself; be safe
                    self.error("yaml", f"unknown alias *{ev.anchor}", start, end, stop=True)
                if in_key_position():
                    self.error("yaml", "an alias cannot be a key", start, end, "keys are plain names", stop=True)
                value, size, chars, (s0, e0) = anchors[str(ev.anchor)]
                self.count(size, ev, chars)
                place(copy.deepcopy(value), s0, e0)
                continue
            if isinstance(ev, yaml.ScalarEvent):
                self.count(1, ev, len(ev.value))
                if not ev.style and ev.value in YAML11_BOOLS:  # plain (PyYAML: None, libyaml: '')
                    self.error("yaml-bool", f"`{ev.value}` is true or false to YAML 1.1 readers and a word to YAML 1.2 ones",
                               start, end, f'quote it: "{ev.value}" for the word; write true or false for a truth value')
                if not ev.style and not in_key_position():
                    self.number_form(ev, start, end)
                if in_key_position():
                    if ev.tag not in (None, "!", _STR):
                        self.error("yaml", f"YAML tag {_tag(ev.tag)} is not used in rule files", start, end)
                    value = ev.value  # a key is the text written
                else:
                    value = self.scalar(ev)
                if ev.anchor is not None:
                    anchors[ev.anchor] = (value, 1, len(ev.value), (start, end))
                place(value, start, end)
                continue
            if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                self.count(1, ev)
                if len(stack) >= MAX_DEPTH:
                    self.error("limit", f"values nest more than {MAX_DEPTH} levels deep", start, end,
                               "a rule file nests a few levels", stop=True)
                if ev.tag not in (None, "!", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"):
                    self.error("yaml", f"YAML tag {_tag(ev.tag)} is not used in rule files", start, end,
                               "write plain lists and mappings")
                path = child_path() if stack else ()
                cont: Any = {} if isinstance(ev, yaml.MappingStartEvent) else []
                stack.append([cont, path, start, ev.anchor, _NO_KEY, (0, 0), self.nodes, self.chars])
                continue
            if isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                cont, path, s0, anchor, _, _, before, chars_before = stack.pop()
                if anchor is not None:
                    anchors[anchor] = (cont, self.nodes - before + 1, self.chars - chars_before, (s0, end))
                if not stack:
                    self.doc.values[()] = (s0, end)
                place(cont, s0, end)
                continue
        if root and () not in self.doc.values:
            self.doc.values[()] = (0, len(text))
        return root[0] if root else None


def _flow_depth(text: str) -> int:
    """The deepest nesting of [ and { outside quotes and comments (an upper bound of YAML's)."""
    bare = re.sub(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"|#[^\n]*", "", text)
    depth = best = 0
    for c in re.findall(r"[\[\]{}]", bare):
        depth = depth + 1 if c in "[{" else max(0, depth - 1)
        best = max(best, depth)
    return best


_NO_KEY = object()
_BAD_KEY = object()


def _offset(mark: Any) -> int:
    return int(mark.index) if mark is not None else 0


def _tag(tag: str) -> str:
    return _short(tag.replace("tag:yaml.org,2002:", "!!"))


def _short(x: Any, n: int = 60) -> str:
    r = repr(x)
    return r if len(r) <= n else r[: n - 1] + "…"
