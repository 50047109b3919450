"""`tjmj impact`: read the arms, check them, play (or resume) the chunks,
write report.json, report.md and report.html to --out."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from typing import Any

from .. import cli_args as A
from ..atomic import write_atomic
from ..diagnostics import RuleError
from ..game.rules import GameRulesError
from .analyze import MAX_WALLS, Tally, analyze
from .arms import MAX_ARMS, ArmError, compile_arm, parse_arm
from .chunk import IMPACT_PLAYERS
from .measures import SKILL_MIXES
from .runner import Bar, play_all, tasks_for
from .store import Store

MAX_JOBS = 64
MAX_SEED = 100
ENGINES = ("local", "ray")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rules", nargs="?", help="rule file (default: the built-in rules/tianjin.yaml)")
    p.add_argument("--rules", dest="rules_opt", metavar="RULES", help="the same, as an option (as every command takes it)")
    p.add_argument("--base", default="", metavar="PROFILE_OR_OPTIONS",
                   help="the base: a profile, an overlay file and/or NAME=VALUE options, comma-separated "
                        "(default: the rules as they are)")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=PROFILE_OR_OPTIONS",
                   help="a variant, as --base, named NAME (repeatable), e.g. jin8=jin_gang=8 or house=house.yaml")
    p.add_argument("--hands", type=A.int_in(2, MAX_WALLS), default=200, help="walls (seeded hands), each played seated four ways (the seatings of a mix of one player "
                   "are one hand) (default 200)")
    p.add_argument("--seed", default="0", type=A.text_of(MAX_SEED), help="the game seed (default 0)")
    p.add_argument("--players", default="value,value,value,value",
                   help=f"the main player mix, 4 of {', '.join(IMPACT_PLAYERS)} (default value x4)")
    p.add_argument("--no-skill", action="store_true",
                   help="skip the skill measures (value v random, value v a player that never claims)")
    p.add_argument("--jobs", type=A.int_in(1, MAX_JOBS), default=1, help="worker processes (the report does not depend on it)")
    p.add_argument("--engine", choices=ENGINES, default="local", help="local processes, or Ray tasks (the cluster extra: pip install -e \".[cluster]\")")
    p.add_argument("--address", help="the Ray cluster's address (default: start a local one)")
    p.add_argument("--out", default="impact-report", type=A.output_dir, help="directory for report.{json,md,html} and the chunks a "
                   "stopped run resumes from (default impact-report)")
    p.add_argument("--chunks", metavar="DIR", type=A.output_dir, help="where finished chunks are kept (default OUT/chunks); studies that "
                   "share one reuse each other's arms (a chunk is keyed by rules, options, players, seed and walls)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def _usage(msg: str) -> int:
    print(f"tjmj: error: {msg}", file=sys.stderr)
    return 2


def canonical_command(args: argparse.Namespace) -> str:
    """The command that gives the same report (how it is run — jobs, engine, out — left out)."""
    argv = ["tjmj", "impact", *([args.rules] if args.rules else [])]
    if args.base:
        argv += ["--base", args.base]
    for v in args.variant:
        argv += ["--variant", v]
    players = ",".join(p.strip() for p in args.players.split(","))  # "value, value" plays as "value,value"
    argv += ["--hands", str(args.hands), "--seed", str(args.seed), "--players", players]
    if args.no_skill:
        argv.append("--no-skill")
    return shlex.join(argv)


def run(args: argparse.Namespace) -> int:
    opt = getattr(args, "rules_opt", None)
    if opt and args.rules and opt != args.rules:
        return _usage(f"two rule files: {args.rules} and --rules {opt}")
    args.rules = args.rules or opt
    players = tuple(p.strip() for p in args.players.split(","))
    if len(players) != 4 or any(p not in IMPACT_PLAYERS for p in players):
        return _usage(f"--players wants 4 of {', '.join(IMPACT_PLAYERS)}, comma-separated; got {args.players!r}")
    if len(args.variant) + 1 > MAX_ARMS:
        return _usage(f"at most {MAX_ARMS - 1} variants")
    if args.address and args.engine != "ray":
        return _usage("--address is for --engine ray")
    import importlib.util
    if importlib.util.find_spec("matplotlib") is None:  # said before any hand, not after an hour of them
        print('tjmj: error: the report\'s plots need matplotlib: pip install matplotlib (the impact extra: pip install -e ".[impact]")', file=sys.stderr)
        return 1
    seed = A.seed_of(args.seed)  # as `tjmj simulate` reads it: the same hands for the same --seed
    field = "--base"
    try:
        arms = [parse_arm("base", args.base, args.rules, "--base")]
        for i, v in enumerate(args.variant):
            name, eq, spec = v.partition("=")
            if not eq:
                return _usage(f"--variant wants NAME=PROFILE_OR_OPTIONS, got {v!r}")
            if not any(x.strip() for x in spec.split(",")):
                return _usage(f"--variant {name}: names no profile, overlay file or option (it would be the base)")
            if name in [a.name for a in arms]:
                return _usage(f"--variant: the name {name!r} is taken")
            field = f"--variant {name}"
            arms.append(parse_arm(name, spec, args.rules, field))
    except ArmError as e:
        return _usage(str(e))
    except RuleError as e:  # an overlay file that does not check
        return _rule_error(field, e)
    compiled = []
    for a in arms:  # every arm compiled and checked for play before any hand
        field = "--base" if a.name == "base" else "--variant " + a.name
        try:
            compiled.append(compile_arm(a))
        except GameRulesError as e:
            print(f"tjmj: error: {field}: {e}", file=sys.stderr)
            return 1
        except RuleError as e:  # a profile or option the rules do not have
            return _rule_error(field, e)
    try:  # the report's folder (and the chunks') made and written to before any hand, not after them
        for d in (args.out, args.chunks or os.path.join(args.out, "chunks")):
            os.makedirs(d, exist_ok=True)
            if not os.access(d, os.W_OK | os.X_OK):
                raise PermissionError(13, "Permission denied", d)
    except OSError as e:
        print(f"tjmj: error: {e.filename or args.out}: {e.strerror or e}", file=sys.stderr)
        return 1
    skill = not args.no_skill
    mixes = (players, *(SKILL_MIXES if skill else ()))
    tasks = tasks_for([(a, r.sha256) for a, r in zip(arms, compiled)], mixes, seed, args.hands)
    bar = Bar(sys.stderr)
    t0, c0 = time.perf_counter(), _cpu()
    tallies = {id(a): Tally(skill) for a in arms}  # each chunk reduced as it comes (tasks share their arm)
    store = Store(args.chunks or args.out, bare=bool(args.chunks))
    try:
        try:
            play_all(tasks, store, args.engine, args.jobs, args.address,
                     bar, lambda t, walls: tallies[id(t.arm)].add(t.start, walls))
        finally:
            bar.end()
            if store.rejected:
                print(f"tjmj: {store.rejected} stored chunk(s) did not check (their walls' sha256, shape or balances) "
                      "and were played again", file=sys.stderr)
    except OSError as e:
        print(f"tjmj: error: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 1
    except RuntimeError as e:
        print(f"tjmj: error: {e}", file=sys.stderr)
        return 1
    info = [{"name": a.name, "spec": a.spec,
             "rules": {"name": r.name, "profile": r.profile, "sha256": r.sha256,
                       "options": {k: v for k, v in r.options}, "files": list(a.shown)},
             "pattern_names": {p.id: p.name for p in r.scorer.ruleset.patterns}} for a, r in zip(arms, compiled)]
    head = {"seed": seed, "walls": args.hands, "players": list(players), "mixes": mixes,
            "command": canonical_command(args)}
    rep = analyze(info, [tallies[id(a)] for a in arms], skill, head)
    try:
        write_reports(rep, args.out)
    except OSError as e:
        print(f"tjmj: error: {e.filename or args.out}: {e.strerror or e}", file=sys.stderr)
        return 1
    secs, cpu = time.perf_counter() - t0, _cpu() - c0
    if args.json:
        print(json.dumps(rep, ensure_ascii=False, sort_keys=True))
    else:
        for d in rep["differences"]:
            for mid in rep["headline"]:
                print(f"{d['variant']}: {mid}: {d['measures'][mid]['verdict']}")
        print(f"wrote {os.path.join(args.out, 'report.html')} (and .md, .json)")
    print(f"time: {secs:.1f} s wall clock, {cpu:.1f} s CPU here and in worker processes (not Ray's) (engine {args.engine}, "
          f"jobs {args.jobs})", file=sys.stderr)
    return 0


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the --jobs workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def write_reports(rep: dict[str, Any], out: str) -> None:
    """Each report written whole or not at all (a symbolic link in --out is replaced, not written through)."""
    from .render import html_report, markdown
    os.makedirs(out, exist_ok=True)
    texts = {"report.json": json.dumps(rep, ensure_ascii=False, sort_keys=True, indent=1) + "\n",
             "report.md": markdown(rep), "report.html": html_report(rep)}
    for name, text in texts.items():
        write_atomic(os.path.join(out, name), text)


SHOWN_ERRORS = 10  # of a rule error's diagnostics, the first shown (thousands of bad options are one mistake)


def _rule_error(field: str, e: RuleError) -> int:
    print(f"tjmj: error: {field}: the rules do not compile:\n{e.render(SHOWN_ERRORS)}\n{len(e.diagnostics)} error(s)",
          file=sys.stderr)
    return 1
