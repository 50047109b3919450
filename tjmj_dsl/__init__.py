"""tjmj: the rules of Tianjin Mahjong as data, and their compiler.

    from tjmj_dsl import Scorer
    s = Scorer()                         # built-in rules/tianjin.yaml, default profile
    s.score({"concealed": "345m123sEEE77m45s", "draw": "6s", "indicator": "7p"})["fan"]   # 2
"""

from __future__ import annotations

from .api import Scorer, compile_rules, load_rules
from .diagnostics import Diagnostic, RuleError

__all__ = ["Scorer", "compile_rules", "load_rules", "Diagnostic", "RuleError"]
__version__ = "0.1.0"
