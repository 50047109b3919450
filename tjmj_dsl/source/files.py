"""Where the built-in rule files are: rules/ of a checkout, or the copy that
`pip install` puts in the package as tjmj_dsl.data (pyproject maps rules/ there)."""

from __future__ import annotations

import os

_CHECKOUT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "rules")


def rules_file(name: str) -> str:
    p = os.path.join(_CHECKOUT, name)
    if os.path.exists(p):
        return p
    from importlib import resources
    return str(resources.files("tjmj_dsl.data").joinpath(name))
