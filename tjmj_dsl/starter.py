"""`tjmj init NAME`: a commented overlay to start a house variant from. It passes
`tjmj check --strict` as written: one profile of its own (the base's profiles,
the seeds' printed tables, are replaced), with the base's default choices."""

from __future__ import annotations

import json
import os
import re

from .compiler import read_rules
from .passes.resolve import BUILTIN

NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
# what may not stand raw in a YAML line: line breaks (YAML's, Unicode's) and other control characters
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


# a path YAML reads as itself unquoted (builtin:tianjin, ../rules/tianjin.yaml)
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_./-]*(:[A-Za-z0-9_./-]+)?")


def _scalar(value: object) -> str:
    """A base's value as a YAML scalar meaning that value and nothing more: a string double-quoted
    with JSON's escapes (YAML reads them alike; a line break stays inside the string, never a
    new key of the overlay), the line breaks beyond ASCII escaped too."""
    if not isinstance(value, str):
        return json.dumps(value)
    text = json.dumps(value, ensure_ascii=False)
    return _BREAKS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _comment(text: object) -> str:
    """Text of the base shown in a comment: on one line (a line break would end the comment)."""
    return _BREAKS.sub(" ", str(text))


def overlay_text(name: str, base: str, out_dir: str) -> str:
    """The overlay NAME.yaml (to be written in out_dir) extending `base`: builtin:NAME or a file path."""
    if base.startswith(BUILTIN):
        extends, base_path = base, None
    else:
        base_path = os.path.abspath(base)
        extends = os.path.relpath(base_path, os.path.abspath(out_dir)).replace(os.sep, "/")
    res = read_rules(None if base.startswith(BUILTIN) and base == BUILTIN + "tianjin" else base_path or base)
    data = res.data
    prof = data.get("default_profile") or next(iter(data.get("profiles") or {}), "")
    chosen = dict(((data.get("profiles") or {}).get(prof) or {}).get("options") or {})
    options = data.get("options") or {}
    lines = []
    for oid, o in options.items():
        value = chosen.get(oid, o.get("default"))
        values = list(o.get("choices") or {}) or list(o.get("values") or [])
        entry = f"      {oid if NAME_RE.match(str(oid)) else _scalar(oid)}: {_scalar(value)} "  # a comment follows a space
        lines.append(entry.ljust(40) + f"# {_comment(', '.join(str(v) for v in values))}")
    file = f"{name}.yaml"
    title = data.get("title", "")
    about = _comment(title or extends)
    return f"""# {name}: a house variant of {about}, written as changes to {_comment(extends)}.
#
#   tjmj check {file} --strict     every profile compiles, every pattern can be claimed
#   tjmj variants --rules {file}   the options and their values
#   tjmj score "345m 123s EEE 77m 45s +6s" -i 7p --rules {file}
#   tjmj compile {file}            the scorer and the rulebook, under generated/{name}/
#
extends: {extends if _PLAIN_PATH.fullmatch(extends) else _scalar(extends)}
name: {name}
title: {_scalar(f"{name} ({title or extends})")}

# One profile of this variant's own: the base's profiles are replaced (the rulebook
# says so). Each option starts at the base's {_comment(prof or "default")} choice; the comment
# lists its values (`tjmj variants` says what each does).
replace: [profiles]
profiles:
  house:
    description: "{name}: the house rules"
    options:
{chr(10).join(lines)}
default_profile: house

# Change a value of the base: a dotted path and its new value.
# set:
#   patterns.long.value: 5

# Add a pattern (docs/design/tutorial.md); `tjmj check` finds a hand for it,
# or says why there is none.
# patterns:
#   duidui:
#     name: 对对胡
#     kind: mul
#     value: 2
#     when: "all(g in melds: not g.is_chow)"
#     description: four pungs or kongs and a pair
#     source: house rule

# Keep the base's known values (its printed score tables, as hands) as tests of this
# variant; a row this variant changes is then a warning (an error with --strict).
# known_values: inherit

# A warning of `tjmj check` that is a deliberate choice: answer it with a reason.
# silence:
#   no-fan-change:
#     duidui: "the reason, for whoever reads this file next"
"""
