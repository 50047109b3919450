"""Overlays and options → one resolved document.

A rule file may `extends:` another and patch it; options are axes with a
default, each choice a set of dotted-path patches; a profile is a named bundle
of choices. Patches keep their origin, so a later error inside a patched value
points at the patch, not at the base file."""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostic, Pos, RuleError, did_you_mean
from ..engine.request import option_value
from ..layout import MODULE_STEMS, profile_folder, windows_device
from ..source.files import FileProblem, read_text, rules_file
from ..source.located import Located, load
from .schema import validate_parts

BUILTIN = "builtin:"  # `extends: builtin:tianjin` names rules/tianjin.yaml as installed
BUILTINS = ("tianjin",)

Path = tuple[Any, ...]


@dataclass
class Resolved:
    """The merged document, and for each patched path the file node it came from."""

    data: Any
    base: Located
    files: dict[str, Located]
    origins: dict[Path, tuple[Located, Path]] = field(default_factory=dict)
    choices: dict[str, Any] = field(default_factory=dict)
    overrides: dict[str, Any] = field(default_factory=dict)  # choices set on top of the profile, where they differ
    profile: str = ""
    top: Located | None = None  # the file that was read (the overlay, if any)
    top_path: str = ""
    paths: list[str] = field(default_factory=list)  # every file read, absolute (the overlay's bases too)
    replaced: list[str] = field(default_factory=list)  # top-level keys an overlay replaced instead of patching

    def origin(self, path: Path) -> tuple[Located, Path]:
        p = tuple(path)
        for i in range(len(p), -1, -1):
            if p[:i] in self.origins:
                doc, op = self.origins[p[:i]]
                return doc, op + p[i:]
        return self.base, p

    def where(self, path: Path, key: bool = False) -> Pos:
        doc, p = self.origin(path)
        return doc.pos(p, key)

    def sources(self) -> dict[str, str]:
        return {d.file: d.text for d in self.files.values()}


MAX_EXTENDS = 8  # overlays on overlays


def read(file: str, display: str | None = None, _seen: tuple[str, ...] = (), _via: Pos | None = None) -> Resolved:
    """Load a rule file, following `extends` (relative to the file). `_via` is
    the `extends:` that named this file: a file that is not a rule file is then
    reported there, without echoing any of its content."""
    disp = display or file
    try:
        text = read_text(file)
    except FileProblem as e:
        raise RuleError([Diagnostic("error", "file", e.message, _via or Pos(disp, 1, 1), e.hint)]) from None
    if _via is not None and not _looks_like_rules(text):
        raise RuleError([Diagnostic("error", "extends", f"{disp} is not a tjmj rule file", _via,
                                    "a rule file starts with `format: tjmj-rules/1` or `extends:`")]) from None
    doc = load(disp, text)
    if not isinstance(doc.data, dict):
        raise RuleError([Diagnostic("error", "schema", "a rule file is a YAML mapping", Pos(doc.file, 1, 1))],
                        {doc.file: text})
    base_name = doc.data.get("extends")
    if base_name is None:
        return Resolved(copy.deepcopy(doc.data), doc, {doc.file: doc}, top=doc, top_path=file,
                        paths=[os.path.abspath(file)])
    where = doc.pos(("extends",))
    if not isinstance(base_name, str) or not base_name.strip():
        raise RuleError([Diagnostic("error", "extends", "extends names a rule file (text)", where,
                                    "e.g. extends: ../rules/tianjin.yaml")], {doc.file: text})
    if not isinstance(doc.data.get("set", {}), (dict, type(None))):
        raise RuleError([Diagnostic("error", "schema", "set: is a mapping of dotted paths to values", doc.pos(("set",)),
                                    "e.g. set: {patterns.long.value: 5}")], {doc.file: text})
    if base_name.startswith(BUILTIN):  # a rule file that ships with tjmj, wherever it is installed
        name = base_name[len(BUILTIN):]
        base_path, base_disp = "", base_name
        if name in BUILTINS:
            try:
                base_path = rules_file(f"{name}.yaml")
            except (ImportError, OSError):  # pragma: no cover - an installation without its data
                base_path = ""
        if not base_path or not os.path.exists(base_path):
            raise RuleError([Diagnostic("error", "extends", f"no built-in rule file {_short(name)}", where,
                                        "the built-in rules: " + ", ".join(BUILTIN + b for b in BUILTINS))], {doc.file: text})
    else:
        base_path = os.path.join(os.path.dirname(file), base_name)
        base_disp = os.path.join(os.path.dirname(disp), base_name)
    if os.path.abspath(base_path) in _seen or len(_seen) >= MAX_EXTENDS or not os.path.exists(base_path):
        here, base = os.path.abspath(file), os.path.abspath(base_path)
        cycle = _seen[_seen.index(base):] + (here, base) if base in _seen else ()
        why = (("extends itself" if base == here else "a cycle of extends: " + " → ".join(
                    _short(os.path.basename(f)) for f in cycle)) if cycle else
               f"more than {MAX_EXTENDS} overlays extend one another" if len(_seen) >= MAX_EXTENDS else f"no file {base_path}")
        raise RuleError([Diagnostic("error", "extends", why, where,
                                    f"extends names a rule file relative to this one, or a built-in one: "
                                    f"{', '.join(BUILTIN + b for b in BUILTINS)}")], {doc.file: text})
    try:
        res = read(base_path, base_disp, _seen + (os.path.abspath(file),), where)
    except RuleError as e:
        e.sources.setdefault(doc.file, text)
        raise
    res.files[doc.file] = doc
    res.top, res.top_path = doc, file
    res.paths.append(os.path.abspath(file))
    replace = doc.data.get("replace") or []
    for k in replace if isinstance(replace, list) else []:
        # `replace: [profiles]`: the overlay's profiles are the profiles, the base's are dropped
        if isinstance(k, str) and k not in ("extends", "set", "replace"):
            res.data.pop(k, None)
            res.replaced.append(k)
            if k in doc.data:
                res.data[k] = {} if isinstance(doc.data[k], dict) else None
    _merge(res, doc, res.data, doc.data, ())
    diags = []
    for k, v in (doc.data.get("set") or {}).items():
        d = _set(res, tuple(str(k).split(".")), v, doc, ("set", k))
        if d:
            diags.append(d)
    if diags:
        raise RuleError(diags, res.sources())
    return res


def _looks_like_rules(text: str) -> bool:
    """A file an overlay may extend: YAML whose top level says it is a rule file."""
    return re.search(r"^(format:\s*[\"']?tjmj-rules/1[\"']?\s*(#.*)?$|extends:)", text, re.M) is not None


def _merge(res: Resolved, doc: Located, into: dict[str, Any], patch: dict[str, Any], path: Path) -> None:
    for k, v in patch.items():
        if not path and k in ("extends", "set", "replace"):
            continue
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(res, doc, into[k], v, path + (k,))
        else:
            into[k] = copy.deepcopy(v)
            res.origins[path + (k,)] = (doc, path + (k,))


def _set(res: Resolved, target: Path, value: Any, doc: Located, at: Path) -> Diagnostic | None:
    if target[0] in ("extends", "set", "replace"):  # read before set: applies; set here, it would change nothing
        return Diagnostic("error", "set-path", f"{target[0]} is how an overlay is read, not a rule `set:` changes",
                          doc.pos(at, key=True), f"write {target[0]}: at the top of the file")
    cur = res.data
    for i, k in enumerate(target[:-1]):
        if not isinstance(cur, dict) or k not in cur:
            have = list(cur) if isinstance(cur, dict) else []
            return Diagnostic("error", "set-path", f"nothing at {'.'.join(target[:i + 1])!r} to change",
                              doc.pos(at, key=True), did_you_mean(k, have) or "paths are dotted keys, e.g. patterns.tianhu.value")
        cur = cur[k]
    last = target[-1]
    if not isinstance(cur, dict):
        return Diagnostic("error", "set-path", f"{'.'.join(target[:-1])!r} is not a mapping", doc.pos(at, key=True))
    if value is None:
        cur.pop(last, None)
    else:
        cur[last] = copy.deepcopy(value)
    res.origins[target] = (doc, at)
    return None



def _profile_folders(res: Resolved) -> list[Diagnostic]:
    """`check` refuses what `compile` could not write: two profiles in one folder, or a
    profile whose folder would hide a generated module."""
    out: list[Diagnostic] = []
    seen: dict[str, str] = {}
    for p in res.data.get("profiles") or {}:
        folder = profile_folder(str(p))
        if folder in MODULE_STEMS:
            out.append(Diagnostic("error", "profile", f"a profile named {_short(p)} would be written to the folder "
                                  f"{folder}/, beside (and hiding) the generated {folder} files",
                                  res.where(("profiles", p), True), "give the profile another name"))
        elif windows_device(folder):
            out.append(Diagnostic("error", "profile", f"a profile named {_short(p)} would be written to the folder "
                                  f"{folder}/, a name Windows keeps for a device (no such folder can be made there)",
                                  res.where(("profiles", p), True), "give the profile another name"))
        elif folder in seen:
            out.append(Diagnostic("error", "profile", f"profiles {_short(seen[folder])} and {_short(p)} would both be "
                                  f"written to the folder {folder}/", res.where(("profiles", p), True),
                                  "rename one of them ('-' and '_' make the same folder name)"))
        seen.setdefault(folder, str(p))
    return out


def apply_options(res: Resolved, profile: str | None = None, overrides: dict[str, Any] | None = None,
                  override_where: Pos | None = None) -> Resolved:
    """Pick each option's value (override > profile > default) and apply the
    patches. Returns a new Resolved; the input is not changed."""
    if profile is not None and not isinstance(profile, str):
        raise RuleError([Diagnostic("error", "profile", f"a profile is named by text, not {type(profile).__name__}",
                                    override_where or Pos("<command line>", 1, 1))], res.sources())
    if overrides is not None and not isinstance(overrides, dict):
        raise RuleError([Diagnostic("error", "option", "options are a mapping of option names to values",
                                    override_where or Pos("<command line>", 1, 1))], res.sources())
    profiles: Any = res.data.get("profiles") or {}
    # a name given is checked as given: "" is no profile, never "the default profile"
    prof_name = profile if profile is not None else res.data.get("default_profile") or ""
    if (isinstance(profiles, dict) and isinstance(prof_name, str) and (prof_name or profile is not None)
            and prof_name not in profiles and (profile is not None or profiles)):  # before the checks and the copy
        given = profile is not None  # named by the caller: point there, not at the file's default
        raise RuleError([Diagnostic("error", "profile", f"no profile {_short(prof_name)}",
                                    (override_where or Pos("<command line>", 1, 1)) if given
                                    else res.where(("default_profile",)),
                                    did_you_mean(prof_name, list(profiles)) or "profiles: " + ", ".join(profiles))],
                        res.sources())
    early = validate_parts(res.data, ("options", "profiles", "default_profile"), res.where)  # needed well formed here
    early += _profile_folders(res)
    if early:
        raise RuleError(early, res.sources())
    out = Resolved(copy.deepcopy(res.data), res.base, res.files, dict(res.origins), top=res.top, top_path=res.top_path,
                   paths=list(res.paths), replaced=list(res.replaced))
    data = out.data
    options: dict[str, Any] = data.get("options") or {}
    profiles = data.get("profiles") or {}
    diags: list[Diagnostic] = []
    picked: dict[str, Any] = {}
    picked_at: dict[str, Pos] = {}  # where an option is named (a name refused is said there)
    value_at: dict[str, Pos] = {}  # where its value is written (a value refused is said there)
    if prof_name:
        if prof_name not in profiles:
            pass  # no profiles at all, and none asked for: the defaults
        else:
            for k, v in (profiles[prof_name].get("options") or {}).items():
                picked_at[k] = out.where(("profiles", prof_name, "options", k), key=True)
                value_at[k] = out.where(("profiles", prof_name, "options", k))
                if v is not None:  # null: the option's default
                    picked[k] = v
    for k, v in (overrides or {}).items():
        picked_at[k] = value_at[k] = override_where or Pos("<command line>", 1, 1)
        if v is not None:  # null means absent: the profile's choice, or the default
            picked[k] = v
    for k in picked_at:  # a name is checked even with null: a misspelt option is never silently nothing
        if k not in options:
            diags.append(Diagnostic("error", "option", f"no option {_short(k)}", picked_at[k],
                                    did_you_mean(k, list(options)) or "options: " + ", ".join(options)))
    writers: dict[Path, tuple[str, Pos, Any]] = {}  # path → (the option that set it, where, the value)
    order = _order(options, out, diags)
    for oid in order:
        opt = options[oid]
        value = picked.get(oid, opt.get("default"))
        patches, ok, value = _patches_for(oid, opt, value, out, value_at.get(oid), diags)
        if not ok:
            continue
        out.choices[oid] = value
        for path_s, (v, at) in patches.items():
            target = tuple(path_s.split("."))
            odoc, opath = res.origin(target)
            if odoc is not res.base and target in res.origins:
                diags.append(Diagnostic(
                    "error", "option-owned", f"{path_s!r} is set by option {oid!r}, so this change would be undone",
                    odoc.pos(opath, True), f"choose the option instead: set `options.{oid}.default` (choices: "
                    + ", ".join(str(c) for c in (opt.get("choices") or opt.get("values") or [])) + "); to keep this change "
                    f"instead, edit the option (`options.{oid}`) so that none of its values sets {path_s!r}"))
                continue
            prev = writers.get(target)
            if prev and prev[0] != oid and prev[0] not in (opt.get("after") or []):
                diags.append(Diagnostic(
                    "error", "option-conflict",
                    f"options {prev[0]!r} and {oid!r} both change {path_s!r} and neither says which comes last",
                    out.where(at, True), f"add `after: [{prev[0]}]` to option {oid} (its change then wins); "
                    f"the other change is at {prev[1].file}:{prev[1].line}:{prev[1].col}"))
                continue
            if prev and prev[0] in picked and prev[2] != v and prev[0] != oid \
                    and str(out.choices[prev[0]]) != str(options[prev[0]].get("default")):
                # a later option (after: [it]) sets the path again: a value other than its default picked for the
                # earlier one would do nothing, which is said, not done silently (its default, named as a record
                # names every choice, is what the later option overrides by design)
                diags.append(Diagnostic(
                    "error", "option-undone",
                    f"option {oid}={value} sets {path_s!r} to {v!r}, so the {prev[0]}={picked[prev[0]]} picked "
                    f"(which sets it to {prev[2]!r}) would do nothing",
                    value_at.get(prev[0]) or out.where(at, True),
                    f"drop {prev[0]} (under {oid}={value} it is {v!r}), or choose another {oid}"))
                continue
            d = _set(out, target, v, *out.origin(at))
            if d:
                diags.append(d)
            writers[target] = (oid, out.where(at, True), v)
    if diags:
        raise RuleError(sorted(diags, key=lambda d: (d.pos.file, d.pos.line, d.pos.col) if d.pos else ("", 0, 0)),
                        out.sources())
    out.profile = prof_name
    for k in out.choices:  # what the profile alone would choose, read the same way
        if k in (overrides or {}):
            base = (profiles.get(prof_name) or {}).get("options") or {} if prof_name in profiles else {}
            opt = options[k]
            canon = _patches_for(k, opt, base.get(k, opt.get("default")), out, None, [])[2]
            if canon != out.choices[k]:
                out.overrides[k] = out.choices[k]
    return out


def _order(options: dict[str, Any], res: Resolved, diags: list[Diagnostic]) -> list[str]:
    """Declaration order, except that an option comes after those it names in `after`."""
    done: list[str] = []
    visiting: set[str] = set()

    def visit(o: str) -> None:
        if o in done:
            return
        if o in visiting:
            diags.append(Diagnostic("error", "option-cycle", f"option {o!r} is in a cycle of `after`",
                                    res.where(("options", o, "after"))))
            return
        visiting.add(o)
        for a in options[o].get("after") or []:
            if a not in options:
                diags.append(Diagnostic("error", "option", f"`after` names no option {a!r}",
                                        res.where(("options", o, "after")), did_you_mean(a, list(options))))
            else:
                visit(a)
        visiting.discard(o)
        done.append(o)

    for o in options:
        visit(o)
    return done


def declared_values(opt: dict[str, Any]) -> tuple[Any, ...]:
    """The values an option declares: its choices (text), or its `values`."""
    return tuple(opt["choices"]) if "choices" in opt else tuple(opt.get("values") or ())


def canonical_options(res: Resolved, overrides: dict[str, Any], where: Pos | None = None) -> dict[str, Any]:
    """Option overrides as the declared values they name (option_value's
    rule), null ones left out: the key under which scorers are shared.
    Raises RuleError for an unknown option or a value it does not declare."""
    options = res.data.get("options") or {}
    out: dict[str, Any] = {}
    diags = []
    at = where or Pos("<options>", 1, 1)
    for k, v in overrides.items():
        if not isinstance(k, str) or k not in options or not isinstance(options[k], dict):  # null too: a typo says so
            diags.append(Diagnostic("error", "option", f"no option {_short(k)}", at,
                                    did_you_mean(k, list(options)) if isinstance(k, str) else "", subject=str(k)[:60]))
            continue
        if v is None:
            continue
        try:
            out[k] = option_value(v, declared_values(options[k]))
        except ValueError as e:
            diags.append(Diagnostic("error", "option-value", f"option {k!r}: {e}", at, subject=k))
    if diags:
        raise RuleError(diags)
    return out


def _short(x: Any, n: int = 60) -> str:
    r = repr(x)
    return r if len(r) <= n else r[: n - 1] + "…"


def _patches_for(oid: str, opt: dict[str, Any], value: Any, res: Resolved, at: Pos | None,
                 diags: list[Diagnostic]) -> tuple[dict[str, tuple[Any, Path]], bool, Any]:
    """The patches of the value `value` names (see engine.request.option_value:
    one rule for the command line, the API, JSONL, profiles and defaults)."""
    declared = declared_values(opt)
    try:
        value = option_value(value, declared)
    except ValueError as e:
        hint = ""
        if isinstance(value, float) and value.is_integer():
            hint = f"write {int(value)}"
        elif isinstance(value, bool) and at is None:
            hint = "YAML reads a bare on/off/yes/no as a boolean: quote it, e.g. default: \"off\""
        elif isinstance(value, str):
            hint = did_you_mean(value, [d for d in declared if isinstance(d, str)])
        diags.append(Diagnostic("error", "option-value", f"option {oid!r}: {e}",
                                at or res.where(("options", oid, "default")), hint))
        return {}, False, value
    if "choices" in opt:
        sets = (opt["choices"][value] or {}).get("set") or {}
        return {p: (v, ("options", oid, "choices", value, "set", p)) for p, v in sets.items()}, True, value
    return ({p: (value if v == "$value" else v, ("options", oid, "set", p)) for p, v in (opt.get("set") or {}).items()},
            True, value)
