"""`tjmj check`: a rule file compiled under every profile, its semantic warnings
(analysis/semantic.py), its known values, and the rule file's `silence:` answers.

A warning the file silences (`silence: {code: {subject: reason}}`) is listed as a
note with its reason, so a deliberate choice stays visible; an entry that silences
nothing is itself a warning. Errata rows of the known values (a printed value the
file marks wrong, with why) are notes; a row the rules disagree with unmarked is a
warning. `--strict` fails on any warning."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..backends.examples import Scorers, coverage_warnings, run_examples
from ..compiler import display_name, load_rules, read_rules
from ..game.rules import play_problems, refused_plays
from ..diagnostics import Diagnostic, RuleError
from ..known import known_path
from ..source.files import read_text
from ..passes.lower import lower
from ..ir import RuleSet
from ..passes.resolve import Resolved, apply_options
from .known_check import check_known
from .plays import play_checks
from .playtexts import play_text_warnings
from .semantic import check_profile
from .witness import analyse


@dataclass
class Report:
    file: str
    profiles: list[str]
    warnings: list[Diagnostic] = field(default_factory=list)
    silenced: list[tuple[Diagnostic, str]] = field(default_factory=list)  # (warning, the file's reason)
    notes: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)


def check_file(path: str | None) -> Report:
    """Compile every profile (errors raise RuleError) and gather the warnings."""
    res = read_rules(path)
    profiles = list(res.data.get("profiles") or {}) or [""]
    report = Report(res.top.file if res.top else res.base.file, profiles, sources=res.sources())
    by_key: dict[tuple[str, str, str], tuple[Diagnostic, list[str]]] = {}
    scorers = Scorers(res)
    errors: list[Diagnostic] = []
    examples: list[Diagnostic] = []
    seen: set[object] = set()
    for p in profiles:
        rs = load_rules(path, p or None)
        for d in run_examples(rs, scorers)[1]:  # the rule file's examples, checked like its rulebook's
            if d.pos not in seen:  # an example wrong under every profile is said once
                seen.add(d.pos)
                (errors if d.severity == "error" else examples).append(d)
        for w in [*_unplayable(res, rs, p, scorers), *check_profile(res, rs)]:
            text = w.message.replace(f"under profile {p}", "under {where}")
            key = (w.code, w.subject, text)
            if key in by_key:
                by_key[key][1].append(p)
            else:
                by_key[key] = (w, [p])
    if errors:
        raise RuleError(errors, res.sources())
    inherited = [w for w in examples if w.code == "example-inherited"]
    if inherited:  # an overlay that changes the base's examples: one warning, not one per example
        examples = [w for w in examples if w.code != "example-inherited"]
        examples.append(Diagnostic("warning", "example-inherited",
                                   f"{len({(w.pos.file, w.pos.line) for w in inherited if w.pos})} example(s) of the "
                                   "base rules score differently under these rules; they are left out of this rulebook",
                                   inherited[0].pos, f"the first: {inherited[0].message}", "examples"))
    examples += coverage_warnings(apply_options(res, None), lower(apply_options(res, None)))
    examples += play_text_warnings(res)
    semantic = list(examples)
    for (code, subject, text), (w, where) in by_key.items():
        if len(where) == len(profiles) and len(profiles) > 1:
            place = "every profile"
        else:
            place = ("profile " if len(where) == 1 else "profiles ") + ", ".join(where)
        semantic.append(Diagnostic(w.severity, w.code, text.replace("{where}", place), w.pos, w.hint, w.subject))
    for k in check_known(path):
        (report.notes if k.code == "erratum" else semantic).append(k)
    kp = known_path(res)
    if kp:  # its warnings quote their rows, as the rule file's do theirs (check_known has read the file)
        report.sources.setdefault(display_name(kp), read_text(kp))
    answers = res.data.get("silence") or {}
    used: set[tuple[str, str]] = set()
    for w in semantic:
        reason = (answers.get(w.code) or {}).get(w.subject) if w.subject else None
        if reason:
            report.silenced.append((w, str(reason)))
            used.add((w.code, w.subject))
        else:
            report.warnings.append(w)
    for code, subjects in answers.items():
        for subject in subjects or {}:
            if (code, subject) not in used:
                report.warnings.append(Diagnostic(
                    "warning", "silence-unused", f"silence.{code}.{subject} silences no warning",
                    res.where(("silence", code, subject), key=True),
                    "remove it (the rules changed), or check the warning code and subject `tjmj check` prints",
                    f"{code}.{subject}"))
    return report


def _unplayable(res: Resolved, rs: RuleSet, profile: str, scorers: Scorers) -> list[Diagnostic]:
    """A warning when the game engine cannot play a rule set the scorer takes (what `tjmj
    simulate` would refuse it for), at the rule file's place of the first reason: said, not an error."""
    module = scorers.get(profile)[1]
    problems = play_problems(rs)
    hint = "the scorer takes them; the game engine plays only what the rule file's claims and play sections say it knows"
    if not problems:
        problems = refused_plays(rs, module.score_tiles)
        # a claim or play setting whose hands the scorer refuses (a review's finding: the hint said it takes them)
        hint = ("the table would make hands the scorer refuses: turn the setting off, or narrow the request rule "
                "that refuses them (the error named above is its message) so that it accepts them")
    if not problems:  # the engine takes the rules: what the search finds it would meet at the table
        return play_checks(res, rs, analyse(rs, rules=module.RULES), module, scorers)
    return [Diagnostic("warning", "unplayable", f"tjmj simulate cannot play these rules under profile {profile}: "
                       + "; ".join(m for _, m in problems), res.where(problems[0][0], key=True), hint, "game")]
