"""The core IR: a resolved rule set, ready to interpret or to generate code
from. Frozen dataclasses; `dump()` prints one for golden tests."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from .expr import ast as A
from .diagnostics import Pos

NO_KONG = "none"  # play.hun_kong_<way>_as: a kong of hun tiles may not be made that way


@dataclass(frozen=True)
class Expr:
    text: str
    ast: A.Node
    scope: str  # hand | decomp | algebra | win | total
    pos: Pos | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Definition:
    name: str
    params: tuple[str, ...]
    body: Expr


@dataclass(frozen=True)
class Conflict:
    other: str
    unless: Expr | None
    description: str = ""


@dataclass(frozen=True)
class Pattern:
    id: str
    name: str
    aka: tuple[str, ...]
    gloss: str
    kind: str
    value: int
    when: Expr
    requires: tuple[str, ...]
    conflicts: tuple[Conflict, ...]
    description: str
    source: str


@dataclass(frozen=True)
class RequestRule:
    id: str
    error_when: Expr
    message: str
    source: str


@dataclass(frozen=True)
class OptionDecl:
    id: str
    name: str
    description: str
    default: Any
    choices: tuple[Any, ...]
    acts_on: str
    source: str


@dataclass(frozen=True)
class SettleDefinition:
    """A named settlement expression with typed parameters, e.g. pair(a: seat, b: seat)."""

    name: str
    params: tuple[tuple[str, str], ...]  # (name, type)
    body: Expr
    title: str  # the Chinese name
    gloss: str
    description: str
    source: str


@dataclass(frozen=True)
class Payment:
    """For each item of `items` (bound as `var`) when `when` holds: every seat
    of `payer` pays every other seat of `payee` the `amount`."""

    id: str
    name: str
    gloss: str
    reason: str
    var: str | None
    items: Expr | None
    when: Expr | None
    payer: Expr
    payee: Expr
    amount: Expr
    terms: tuple[tuple[int, int], ...]  # spans of the amount's terms, shown with their values
    description: str
    source: str


@dataclass(frozen=True)
class OutcomeRule:
    id: str
    error_when: Expr
    field: str
    message: str
    source: str


@dataclass(frozen=True)
class Rotation:
    id: str
    name: str
    gloss: str
    next_dealer: Expr
    description: str
    source: str


@dataclass(frozen=True)
class Settlement:
    definitions: tuple[SettleDefinition, ...]
    payments: tuple[Payment, ...]
    outcome_rules: tuple[OutcomeRule, ...]
    rotation: Rotation  # the one play.dealer_rotation picks
    play: tuple[tuple[str, Any], ...]  # the play values the expressions read (constants)
    # play.kong_ends_hand and play.kong_win_total, over the kong `k` just made (the engine reads them): whether that
    # kong ends the hand at once as its maker's win, and the win's total; None: no kong ends the hand
    kong_ends_hand: Expr | None = None
    kong_win_total: Expr | None = None


@dataclass(frozen=True)
class Decision:
    """How the rule file decided a point its sources leave open (rulebook: in its chapter)."""

    id: str
    chapter: str
    title: str
    text: str
    source: str


@dataclass(frozen=True)
class Erratum:
    """A misprint of a source and what the rules give instead; `known` names
    the known-values rows (table:item) that show it."""

    id: str
    source: str
    printed: str
    decision: str
    known: tuple[str, ...]


@dataclass(frozen=True)
class Expect:
    """What an example says the scorer gives: each field None when not said.
    `at` holds where each said field is written, for a positioned error."""

    patterns: tuple[str, ...] | None = None
    fan: int | None = None
    total: int | None = None
    win: bool | None = None
    refused: bool = False
    at: tuple[tuple[str, Pos], ...] = field(default=(), compare=False)
    balances: tuple[int, ...] | None = None  # a settled outcome's four balances
    next_dealer: int | None = None
    may_zuozhuang: bool | None = None  # a bets example: the dealer is asked to sit
    lazhuang_most: tuple[int, ...] | None = None  # a bets example: each seat's most pulls (the dealer 0)

    def where(self, name: str, default: Pos) -> Pos:
        return dict(self.at).get(name, default)


@dataclass(frozen=True)
class Example:
    """An example hand of the rule file, shown in the rulebook and checked
    while it is built. role: "example" or "near_miss" of a pattern, "option"
    (scored under each value in `expect`), or "chapter" (of a rulebook chapter).
    `request` is the JSONL request; `options` are set on top of the profile."""

    owner: str
    role: str
    hand: str
    request: Any = field(compare=False)
    options: tuple[tuple[str, Any], ...]
    note: str
    expect: tuple[tuple[str, Expect], ...]  # "" → the claim; for an option, each value → its claim
    pos: Pos | None = field(default=None, compare=False)
    inherited: bool = False  # written in a base file, not in the file compiled
    kind: str = "hand"  # "hand": `request` is scored; "outcome": `request` is an outcome, settled; "bets":
    # `request` is {dealer, zuozhuang, game} (game/facts.GameFacts.json), the bets the table offers under it


@dataclass(frozen=True)
class Prose:
    """The rule file's text for people: chapter paragraphs, decisions, errata, glossary."""

    chapters: tuple[tuple[str, tuple[str, ...]], ...] = ()
    decisions: tuple[Decision, ...] = ()
    errata: tuple[Erratum, ...] = ()
    glossary: tuple[tuple[str, str, str], ...] = ()  # (Chinese term, pinyin, English)
    examples: tuple[Example, ...] = ()
    describe: tuple[tuple[str, str], ...] = ()  # option id → its one-sentence-per-value template
    choice_docs: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()  # option id → (choice, its sentence)

    def chapter(self, name: str) -> tuple[str, ...]:
        return dict(self.chapters).get(name, ())


@dataclass(frozen=True)
class RuleSet:
    name: str
    title: str
    source_file: str
    source_sha256: str
    profile: str
    choices: tuple[tuple[str, Any], ...]  # option id → chosen value, in declaration order
    hun_count: int  # the most hun kinds any indicator names (len of hun_table's longest row)
    cycles: tuple[tuple[int, ...], ...]
    hun_table: tuple[tuple[int, ...], ...]  # indicator kind → its hun kinds, the indicator's first (hun.huns)
    chow: bool
    copies: int
    suits: tuple[str, ...]
    flags: tuple[tuple[str, str], ...]  # request flag → what it means
    min_fan: int
    kong_points: tuple[tuple[str, int], ...]
    kinds: tuple[str, ...]
    kind_docs: tuple[str, ...]
    algebra: Expr
    definitions: tuple[Definition, ...]
    patterns: tuple[Pattern, ...]
    free_when: Expr | None
    score_table: str
    total: Expr
    request_rules: tuple[RequestRule, ...]
    claims: tuple[tuple[str, bool], ...]
    play: tuple[tuple[str, Any], ...]
    options: tuple[OptionDecl, ...]
    profiles: tuple[tuple[str, str], ...]
    sources: tuple[tuple[str, str], ...]
    disabled_patterns: tuple[str, ...] = ()
    settlement: Settlement | None = None
    overrides: tuple[tuple[str, Any], ...] = ()  # the choices set on top of the profile that differ from it
    prose: Prose = Prose()
    unclaimable: tuple[tuple[str, str], ...] = ()  # enabled patterns left out: each requires a disabled one
    base_file: str = ""  # an overlay: the rule file it extends (as written, e.g. builtin:tianjin)
    replaced: tuple[str, ...] = ()  # an overlay: the base's sections it replaced (profiles, ...)
    score_tables: tuple[tuple[str, Expr], ...] = ()  # every score table (id, total), the one in force among them
    # every pattern id, and every request/outcome rule id, the file declares or an option's choice names, in
    # force or not: what an answer under another profile or options of the same file may carry
    any_pattern_ids: tuple[str, ...] = ()
    any_rule_ids: tuple[str, ...] = ()
    # the winning condition (rule file's win_when) over the claimed reading: None is its default form, fan >= min_fan
    win_when: Expr | None = None
    kong_names: tuple[tuple[str, str], ...] = ()  # kind of kong (exposed, added, concealed, hun) → its name
    outcome_names: tuple[tuple[str, str], ...] = ()  # a fact of a settlement outcome (zuozhuang, drawn, …) → its name
    # the bets' expressions over the game so far (play.zuozhuang_when, play.lazhuang_most), each checked in the
    # bets scope (expr/bets.py); absent: the hand's own fixed limits alone
    bets: tuple[tuple[str, Expr], ...] = ()

    def claims_offered(self) -> dict[str, bool]:
        """Each claim of the rule file as a table offers it: a claim of huns needs the claim of its
        kind too (hun_pung a pung, hun_kong a kong), and a kong of a claimed hun must be one that may
        be made (play.hun_kong_exposed_as not none). The game engine and the rulebook both read this."""
        out = {k: bool(v) for k, v in self.claims}
        if "hun_pung" in out:
            out["hun_pung"] = out["hun_pung"] and out.get("pung", False)
        if "hun_kong" in out:
            out["hun_kong"] = out["hun_kong"] and out.get("kong", False) \
                and dict(self.play).get("hun_kong_exposed_as") != NO_KONG
        return out

    def pattern(self, pid: str) -> Pattern:
        for p in self.patterns:
            if p.id == pid:
                return p
        raise KeyError(pid)


def dump(x: Any, indent: int = 0) -> str:
    """A stable text form of any IR value (expressions print canonically)."""
    pad = "  " * indent
    if isinstance(x, Expr):
        return A.show(x.ast)
    if is_dataclass(x) and not isinstance(x, type):
        lines = [f"{type(x).__name__}"]
        for f in fields(x):
            v = getattr(x, f.name)
            lines.append(f"{pad}  {f.name}: {dump(v, indent + 1).lstrip()}")
        return "\n".join(lines)
    if isinstance(x, tuple) and x and all(is_dataclass(i) for i in x):
        return "\n".join(f"{pad}- {dump(i, indent + 1)}" for i in x)
    return repr(x)
