"""Where `tjmj compile` puts a rule set's outputs: the file names it writes in each
folder, and the folder of a profile. One place, read by the writer
(backends/outputs.py) and by `check` (passes/resolve.py refuses profiles whose
folders compile could not write)."""

from __future__ import annotations

import re

COMBINATIONS = "combinations.json"  # the combination table's verdicts (backends/combinations.py)
# every file tjmj writes in a rule set's folder or a profile's (nothing else is written)
OUTPUT_FILES = ("__init__.py", "scorer.py", "scorer.mjs", "scorer.d.mts", "test_known_values.py", "test_known_values.mjs",
                "rulebook.md", "rulebook.html", COMBINATIONS)
# the names a profile's folder may not take: a folder `scorer/` beside scorer.py would be imported instead of it
MODULE_STEMS = tuple(sorted({f.split(".")[0] for f in OUTPUT_FILES} - {"__init__"}))


def profile_folder(profile: str) -> str:
    """The folder of a profile that is not the default: its name with '-' written '_' (a Python package name)."""
    return profile.replace("-", "_")


_WINDOWS_DEVICES = re.compile(r"(con|prn|aux|nul|com[0-9]|lpt[0-9])", re.IGNORECASE)


def windows_device(folder: str) -> bool:
    """A folder name Windows keeps for a device (CON, NUL, COM1, …): no folder of that name can be made there."""
    return bool(_WINDOWS_DEVICES.fullmatch(folder))
