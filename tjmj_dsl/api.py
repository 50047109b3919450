"""The public Python API: a Scorer over a rule file, and compile_rules."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any, Callable

from .backends.codegen import generate_scorer, load_generated
from .backends.interpret import interpreter
from .compiler import load_rules, read_rules
from .diagnostics import Pos, RuleError
from .engine import result, runtime, settle
from .engine.request import RequestError
from .engine.shared_yaml import register as _register_yaml
from .ir import RuleSet
from .passes.lower import lower
from .passes import resolve
from .passes.resolve import Resolved, apply_options

__all__ = ["Scorer", "load_rules", "compile_rules"]

_register_yaml()  # yaml.safe_dump writes an answer's shared lists and rows as plain ones

_FAMILY_LOCK = threading.Lock()  # made once per Scorer: its family of scorers for other profiles/options
MAX_SCORERS = 32  # compiled scorers kept per process (one per distinct profile/options asked for)
MAX_FAILED = 256  # bad (profile, options) remembered with their error, so they are not compiled again


def names_own_rules(data: Any) -> bool:
    """The request (or outcome) names its own profile or options (null: it does not): it is answered
    under those rules, which may have to be compiled first (about a second)."""
    return isinstance(data, dict) and (data.get("profile") is not None or data.get("options") is not None)


class Scorer:
    """Scores hands under one rule file, profile and options.

    backend="generated" (default) compiles the rules to Python in memory, as
    `tjmj compile` writes them; backend="interpreter" walks the rules' ASTs
    (the reference the generated code is tested against)."""

    def __init__(self, rules: str | None = None, profile: str | None = None,
                 options: dict[str, Any] | None = None, backend: str = "generated") -> None:
        if backend not in ("generated", "interpreter"):
            raise ValueError(f"backend is 'generated' or 'interpreter', not {backend!r}")
        resolved = read_rules(rules)  # read once: a request's own profile/options start from this reading
        self._build(lower(apply_options(resolved, profile, options)), backend)
        self._given: tuple[Any, str | None, dict[str, Any]] = (resolved, profile, dict(options or {}))
        self._family: Scorers | None = None  # the scorers of other profiles/options requests ask for

    @classmethod
    def _of(cls, resolved: Any, profile: str | None, options: dict[str, Any] | None, backend: str,
            family: "Scorers | None" = None) -> "Scorer":
        """A scorer from a rule file already read (the CLI reads it once for many option sets);
        `family`: the Scorers it belongs to, which it asks for the rules a request names."""
        self = cls.__new__(cls)
        self._build(lower(apply_options(resolved, profile, options)), backend)
        self._given = (resolved, profile, dict(options or {}))
        self._family = family
        return self

    def for_request(self, data: Any, backend: str | None = None) -> "tuple[Scorer, Any, dict[str, Any] | None]":
        """(scorer, request, None): the scorer a request asks for by its own `profile` and
        `options` (set on top of this scorer's; null means absent), and the request without
        them; (self, request, error) when they are not the rule file's, error the contract's
        error object. Compiled on first use and kept (Scorers: bounded), shared by the
        scorers made from this one."""
        prof = opts = None
        if isinstance(data, dict):
            prof, opts = data.get("profile"), data.get("options")
        if prof is None and opts is None and backend in (None, self.backend):
            return self, data, None
        if opts is not None and not isinstance(opts, dict):
            return self, data, RequestError("expected a mapping of option names to values", "options",
                                            code="wrong_type").error()
        if prof is not None and not isinstance(prof, str):
            return self, data, RequestError("expected a profile name", "profile", code="wrong_type").error()
        rules, profile, options = self._given
        if self._family is None:
            with _FAMILY_LOCK:  # two first requests in two threads share one family (one compile each)
                if self._family is None:
                    self._family = Scorers(rules, self.backend)
        try:
            merged = dict(options)
            for o, v in (opts or {}).items():  # null: this scorer's own choice (its name is still checked)
                if v is not None or o not in merged:
                    merged[o] = v
            sc = self._family.get(prof if prof is not None else profile, merged, backend)
        except RuleError as e:
            return self, data, options_error(e)
        if isinstance(data, dict) and ("profile" in data or "options" in data):  # sc is compiled with them
            data = {f: v for f, v in data.items() if f not in ("profile", "options")}
        return sc, data, None

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
        (schemas/score-result.schema.json); never raises for a bad request. A
        request's own `profile`/`options` are answered as `tjmj score --jsonl` does.
        The mapping is the caller's; the lists and rows inside it that answers share
        (patterns, names, hun_kinds, decomposition rows) are read-only (engine/shared.py)."""
        got = runtime.score_plain(self._rules, request)  # most requests: only the contract's own fields
        if got is not None:
            return got
        if names_own_rules(request):
            return self._under_own_rules(request, runtime.score_request, self.refusal)
        return runtime.score_request(self._rules, request)

    def score_tiles(self, concealed: Any, draw: int, indicator: int, melds: Any = (),
                    kong_draw: str | None = None, flags: Any = (), kong_chain: int = 1) -> runtime.Claim:
        """The typed fast path for programs that score many hands: tiles as
        kind numbers (0-8 1m-9m, 9-17 1p-9p, 18-26 1s-9s, 27-33 E S W N C F P),
        melds as (type, tile) pairs, flags as names, kong_chain as the request's
        (the kongs in a row, with kong_draw). The same checks and claim
        as `score`, as a Claim(win, fan, total, patterns, reason, error),
        without the request text and the display. Never raises for a bad hand."""
        return runtime.score_tiles_in(self._rules, concealed, draw, indicator, melds, kong_draw, flags, kong_chain)

    def waits(self, request: dict[str, Any]) -> dict[str, Any]:
        """Every tile that wins the 13-tile hand (a request without draw):
        {contract, rules, id, waits: [{tile, fan, total, patterns, names, formula}]},
        or a refusal in the same shape."""
        if names_own_rules(request):
            return self._under_own_rules(request, runtime.waits_request, self.waits_refusal)
        return runtime.waits_request(self._rules, request)

    def settle(self, outcome: dict[str, Any]) -> dict[str, Any]:
        """Settle a hand's outcome: payments (from, to, amount, reason, rule,
        formula), the four balances and the next dealer, by the rule file's
        settlement section. Never raises for a bad outcome: the result says."""
        if names_own_rules(outcome):
            return self._under_own_rules(outcome, settle.settle_in, self.settle_refusal)
        return settle.settle_in(self._rules, outcome)

    def _under_own_rules(self, request: dict[str, Any], answer: Callable[[Any, Any], dict[str, Any]],
                         refuse: Callable[[Any, dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
        """`answer` under the rules a request names by its own profile/options, or its refusal."""
        big = runtime.oversized(request)  # before its options are read, let alone compiled
        if big is not None:
            return refuse(None, big)
        sc, data, error = self.for_request(request)
        if error is not None:
            return refuse(request.get("id"), error)
        return answer(sc._rules, data)

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


class Scorers:
    """Compiled scorers per (profile, options) of one rule file, built on first
    use. The rule file is read once; options are keyed in canonical form
    (engine.request.option_value: "2" and 2 are one scorer). Bounded: the
    MAX_SCORERS most recently used are kept (each holds a compiled module and
    its tables), and the MAX_FAILED most recent bad (profile, options) keep their
    error, so a batch of many option sets, or one bad set on every line,
    neither grows memory nor compiles again."""

    def __init__(self, rules: Any, backend: str = "generated") -> None:
        self.rules = rules  # a rule file's path (None: the built-in rules), or one already read
        self.backend = backend
        self.cache: OrderedDict[Any, Any] = OrderedDict()
        self.failed: OrderedDict[Any, RuleError] = OrderedDict()
        self._res: Any = None
        self._lock = threading.Lock()  # a Scorer may be shared by threads: one at a time moves the caches

    def resolved(self) -> Any:
        """The rule file, read and resolved once."""
        if self._res is None:
            self._res = self.rules if isinstance(self.rules, Resolved) else read_rules(self.rules)
        return self._res

    def get(self, profile: str | None, options: dict[str, Any] | None, backend: str | None = None) -> Any:
        """The scorer for a profile and options; RuleError if they are not the rules'."""
        with self._lock:
            return self._get(profile, options, backend)

    def _get(self, profile: str | None, options: dict[str, Any] | None, backend: str | None) -> Any:
        backend = backend or self.backend
        raw = (_raw_key([profile, options]), backend)  # a hash: a long profile name is not kept 256 times
        if raw in self.failed:
            self.failed.move_to_end(raw)
            raise self.failed[raw]
        try:
            canon = resolve.canonical_options(self.resolved(), options or {}, Pos("<options>", 1, 1))
            key = (profile, tuple(sorted(canon.items())), backend)
            sc = self.cache.get(key)
            if sc is None:
                sc = Scorer._of(self.resolved(), profile, canon, backend, self)
                self.cache[key] = sc
                while len(self.cache) > MAX_SCORERS:
                    self.cache.popitem(last=False)
            else:
                self.cache.move_to_end(key)
            return sc
        except RuleError as e:
            self.failed[raw] = e
            while len(self.failed) > MAX_FAILED:
                self.failed.popitem(last=False)
            raise


def _raw_key(given: Any) -> str:
    """A short exact key for a profile and options as given (any JSON), for remembering a failure."""
    try:
        text = json.dumps(given, sort_keys=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(given)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def options_error(e: RuleError) -> dict[str, Any]:
    """The contract's error object for a request whose profile/options do not compile."""
    def field_of(d: Any) -> str:
        return "profile" if d.code == "profile" else f"options.{d.subject}" if d.subject else "options"

    d = e.diagnostics[0]
    code = {"profile": "unknown_profile", "option": "unknown_option"}.get(d.code, "bad_option")
    # each problem after its field, as every other refusal says it ("options.min_fan: 2.0 is a decimal number …")
    def said(x: Any) -> str:  # the field says which option: "option 'min_fan': " is not said twice
        text = x.message.removeprefix(f"option {x.subject!r}: ") if x.subject else x.message
        return f"{field_of(x)}: {text}" + (f" ({x.hint})" if x.hint else "")

    message = "; ".join(said(x) for x in e.diagnostics)
    return {"code": code, "message": message, "field": field_of(d)}


def compile_rules(path: str | None = None, out: str = "generated", check: bool = False) -> list[str]:
    """Write (or with check=True, compare) every output of a rule file.
    Returns the paths that were written or that differ."""
    from .backends.outputs import write_outputs
    return write_outputs(path, out, check)
