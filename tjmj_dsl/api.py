"""The public Python API: a Scorer over a rule file, and compile_rules."""

from __future__ import annotations

from typing import Any

from .backends.codegen import generate_scorer, load_generated
from .backends.interpret import interpreter
from .compiler import load_rules
from .engine import result, runtime, settle
from .ir import RuleSet
from .passes.lower import lower
from .passes.resolve import apply_options

__all__ = ["Scorer", "load_rules", "compile_rules"]


class Scorer:
    """Scores hands under one rule file, profile and options.

    backend="generated" (default) compiles the rules to Python in memory, as
    `tjmj compile` writes them; backend="interpreter" walks the rules' ASTs
    (the reference the generated code is tested against)."""

    def __init__(self, rules: str | None = None, profile: str | None = None,
                 options: dict[str, Any] | None = None, backend: str = "generated") -> None:
        if backend not in ("generated", "interpreter"):
            raise ValueError(f"backend is 'generated' or 'interpreter', not {backend!r}")
        self._build(load_rules(rules, profile, options), backend)

    @classmethod
    def _of(cls, resolved: Any, profile: str | None, options: dict[str, Any] | None, backend: str) -> "Scorer":
        """A scorer from a rule file already read (the CLI reads it once for many option sets)."""
        self = cls.__new__(cls)
        self._build(lower(apply_options(resolved, profile, options)), backend)
        return self

    def _build(self, ruleset: RuleSet, backend: str) -> None:
        self.ruleset: RuleSet = ruleset
        if backend == "generated":
            self._module = load_generated(generate_scorer(self.ruleset))
            self._rules = self._module.RULES
        else:
            self._rules = interpreter(self.ruleset)
        self.backend = backend
        runtime.settle_collector()  # the rules and the code built for them out of the collector's way

    def score(self, request: dict[str, Any]) -> dict[str, Any]:
        """A request mapping → a result mapping, as the JSON contract says
        (schemas/score-result.schema.json); never raises for a bad request."""
        return runtime.score_request(self._rules, request)

    def score_tiles(self, concealed: Any, draw: int, indicator: int, melds: Any = (),
                    kong_draw: str | None = None, flags: Any = ()) -> runtime.Claim:
        """The typed fast path for programs that score many hands: tiles as
        kind numbers (0-8 1m-9m, 9-17 1p-9p, 18-26 1s-9s, 27-33 E S W N C F P),
        melds as (type, tile) pairs, flags as names. The same checks and claim
        as `score`, as a Claim(win, fan, total, patterns, reason, error),
        without the request text and the display. Never raises for a bad hand."""
        return runtime.score_tiles_in(self._rules, concealed, draw, indicator, melds, kong_draw, flags)

    def waits(self, request: dict[str, Any]) -> dict[str, Any]:
        """Every tile that wins the 13-tile hand (a request without draw):
        {contract, rules, id, waits: [{tile, fan, total, patterns, names, formula}]},
        or a refusal in the same shape."""
        return runtime.waits_request(self._rules, request)

    def settle(self, outcome: dict[str, Any]) -> dict[str, Any]:
        """Settle a hand's outcome: payments (from, to, amount, reason, rule,
        formula), the four balances and the next dealer, by the rule file's
        settlement section. Never raises for a bad outcome: the result says."""
        return settle.settle_in(self._rules, outcome)

    def refusal(self, request_id: Any, error: dict[str, Any]) -> dict[str, Any]:
        """A score answer refusing a request with the contract's error object {code, message, field}."""
        return result.refusal(self._rules, request_id, error)

    def waits_refusal(self, request_id: Any, error: dict[str, Any]) -> dict[str, Any]:
        """A waits answer refusing a request."""
        return result.waits_refusal(self._rules, request_id, error)

    def settle_refusal(self, request_id: Any, error: dict[str, Any]) -> dict[str, Any]:
        """A settle answer refusing an outcome."""
        return settle._refused(self._rules, request_id, error)

    @property
    def rules_info(self) -> dict[str, Any]:
        """The `rules` object every answer of this scorer carries: name, profile, sha256, options."""
        return result.rules_info(self._rules)

    @property
    def profile(self) -> str:
        return self.ruleset.profile


def compile_rules(path: str | None = None, out: str = "generated", check: bool = False) -> list[str]:
    """Write (or with check=True, compare) every output of a rule file.
    Returns the paths that were written or that differ."""
    from .backends.outputs import write_outputs
    return write_outputs(path, out, check)
