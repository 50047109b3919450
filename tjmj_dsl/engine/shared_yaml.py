"""PyYAML's dumpers told what an answer's shared lists and rows are: lists and dicts.

yaml.safe_dump looks a value's exact type up and refuses any other ("cannot
represent an object"), and yaml.dump writes a subclass with a Python tag; with
these representers both write an answer's shared parts (engine/shared.py) as
the plain lists and dicts they are equal to. Registered when the package is
imported (api.py); a standalone generated scorer, which imports nothing but the
standard library, leaves PyYAML alone: dump copy.deepcopy(answer) there."""

from __future__ import annotations

import yaml

from .shared import SharedDict, SharedList


def register() -> None:
    """Add the representers to every dumper PyYAML has (the C ones when libyaml is there)."""
    for name in ("SafeDumper", "Dumper", "CSafeDumper", "CDumper"):
        dumper = getattr(yaml, name, None)
        if dumper is not None:
            dumper.add_representer(SharedList, dumper.represent_list)
            dumper.add_representer(SharedDict, dumper.represent_dict)
