"""Overlays and options → one resolved document.

A rule file may `extends:` another and patch it; options are axes with a
default, each choice a set of dotted-path patches; a profile is a named bundle
of choices. Patches keep their origin, so a later error inside a patched value
points at the patch, not at the base file."""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostic, Pos, RuleError, did_you_mean
from ..source.files import rules_file
from ..source.located import Located, load

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


def read(file: str, display: str | None = None, _seen: tuple[str, ...] = ()) -> Resolved:
    """Load a rule file, following `extends` (relative to the file)."""
    with open(file, encoding="utf-8") as f:
        text = f.read()
    doc = load(display or file, text)
    if not isinstance(doc.data, dict):
        raise RuleError([Diagnostic("error", "schema", "a rule file is a YAML mapping", Pos(doc.file, 1, 1))],
                        {doc.file: text})
    base_name = doc.data.get("extends")
    if base_name is None:
        return Resolved(copy.deepcopy(doc.data), doc, {doc.file: doc}, top=doc, top_path=file,
                        paths=[os.path.abspath(file)])
    if str(base_name).startswith(BUILTIN):  # a rule file that ships with tjmj, wherever it is installed
        name = str(base_name)[len(BUILTIN):]
        base_path, disp = "", str(base_name)
        if name in BUILTINS:
            try:
                base_path = rules_file(f"{name}.yaml")
            except (ImportError, OSError):  # pragma: no cover - an installation without its data
                base_path = ""
        if not base_path or not os.path.exists(base_path):
            raise RuleError([Diagnostic("error", "extends", f"no built-in rule file {name!r}", doc.pos(("extends",)),
                                        "the built-in rules: " + ", ".join(BUILTIN + b for b in BUILTINS))], {doc.file: text})
    else:
        base_path = os.path.join(os.path.dirname(file), str(base_name))
        disp = os.path.join(os.path.dirname(display or file), str(base_name))
    if os.path.abspath(base_path) in _seen or not os.path.exists(base_path):
        why = "extends itself" if os.path.abspath(base_path) in _seen else f"no file {base_path}"
        raise RuleError([Diagnostic("error", "extends", why, doc.pos(("extends",)),
                                    f"extends names a rule file relative to this one, or a built-in one: "
                                    f"{', '.join(BUILTIN + b for b in BUILTINS)}")], {doc.file: text})
    res = read(base_path, disp, _seen + (os.path.abspath(file),))
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
        d = _set(res, tuple(k.split(".")), v, doc, ("set", k))
        if d:
            diags.append(d)
    if diags:
        raise RuleError(diags, res.sources())
    return res


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


def apply_options(res: Resolved, profile: str | None = None, overrides: dict[str, Any] | None = None,
                  override_where: Pos | None = None) -> Resolved:
    """Pick each option's value (override > profile > default) and apply the
    patches. Returns a new Resolved; the input is not changed."""
    out = Resolved(copy.deepcopy(res.data), res.base, res.files, dict(res.origins), top=res.top, top_path=res.top_path,
                   paths=list(res.paths), replaced=list(res.replaced))
    data = out.data
    options: dict[str, Any] = data.get("options") or {}
    profiles: dict[str, Any] = data.get("profiles") or {}
    diags: list[Diagnostic] = []
    prof_name = profile or data.get("default_profile") or ""
    picked: dict[str, Any] = {}
    picked_at: dict[str, Pos] = {}
    if prof_name:
        if prof_name not in profiles:
            if profile is not None or profiles:
                given = profile is not None  # named by the caller: point there, not at the file's default
                raise RuleError([Diagnostic("error", "profile", f"no profile {prof_name!r}",
                                            (override_where or Pos("<command line>", 1, 1)) if given
                                            else out.where(("default_profile",)),
                                            did_you_mean(prof_name, list(profiles)) or "profiles: " + ", ".join(profiles))],
                                out.sources())
        else:
            for k, v in (profiles[prof_name].get("options") or {}).items():
                picked[k] = v
                picked_at[k] = out.where(("profiles", prof_name, "options", k), key=True)
    for k, v in (overrides or {}).items():
        picked[k] = v
        picked_at[k] = override_where or Pos("<command line>", 1, 1)
    for k in picked:
        if k not in options:
            diags.append(Diagnostic("error", "option", f"no option {k!r}", picked_at[k],
                                    did_you_mean(k, list(options)) or "options: " + ", ".join(options)))
    writers: dict[Path, tuple[str, Pos]] = {}
    order = _order(options, out, diags)
    for oid in order:
        opt = options[oid]
        value = picked.get(oid, opt.get("default"))
        patches, ok, value = _patches_for(oid, opt, value, out, picked_at.get(oid), diags)
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
                    + ", ".join(str(c) for c in (opt.get("choices") or opt.get("values") or [])) + ")"))
                continue
            prev = writers.get(target)
            if prev and prev[0] != oid and prev[0] not in (opt.get("after") or []):
                diags.append(Diagnostic(
                    "error", "option-conflict",
                    f"options {prev[0]!r} and {oid!r} both change {path_s!r} and neither says which comes last",
                    out.where(at, True), f"add `after: [{prev[0]}]` to option {oid} (its change then wins); "
                    f"the other change is at {prev[1].file}:{prev[1].line}:{prev[1].col}"))
                continue
            d = _set(out, target, v, *out.origin(at))
            if d:
                diags.append(d)
            writers[target] = (oid, out.where(at, True))
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


def _patches_for(oid: str, opt: dict[str, Any], value: Any, res: Resolved, at: Pos | None,
                 diags: list[Diagnostic]) -> tuple[dict[str, tuple[Any, Path]], bool, Any]:
    if "choices" in opt:
        choices = opt["choices"]
        key = str(value) if not isinstance(value, bool) else ("on" if value else "off")
        if key not in choices:
            diags.append(Diagnostic("error", "option-value", f"option {oid!r} has no choice {value!r}",
                                    at or res.where(("options", oid, "default")),
                                    did_you_mean(key, list(choices)) or "choices: " + ", ".join(map(str, choices))))
            return {}, False, value
        sets = (choices[key] or {}).get("set") or {}
        return {p: (v, ("options", oid, "choices", key, "set", p)) for p, v in sets.items()}, True, key
    allowed = opt.get("values") or []
    if isinstance(value, str) and value not in allowed:  # from the command line: "6" for 6
        value = next((a for a in allowed if str(a).lower() == value.lower()), value)
    if value not in allowed:
        diags.append(Diagnostic("error", "option-value", f"option {oid!r} takes one of {allowed}, not {value!r}",
                                at or res.where(("options", oid, "default"))))
        return {}, False, value
    return ({p: (value if v == "$value" else v, ("options", oid, "set", p)) for p, v in (opt.get("set") or {}).items()},
            True, value)
