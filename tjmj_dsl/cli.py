"""The `tjmj` command: check, compile, score, explain, waits, variants, simulate, replay."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import sys
from typing import Any

from .diagnostics import RuleError
from .game.rules import GameRulesError
from .engine.contract import KONG_CHAIN_MAX
from .inert import shown
from .notation import parse_hand
from .tiles import TileError

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _options(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in pairs or []:
        if "=" not in p:
            raise SystemExit(_usage(f"--option wants NAME=VALUE, got {p!r}"))
        k, v = p.split("=", 1)
        if k in out:  # the one rule is not chosen for the user (impact's arms refuse it alike)
            raise SystemExit(_usage(f"--option {k!r} given twice ({out[k]!r} and {v!r}): give it once"))
        out[k] = v  # as written: " 1" is refused here as in Scorer(options=) and JSONL (one rule everywhere)
    return out


def _rules_arg(args: argparse.Namespace) -> str | None:
    """The rule file, however it was given: `--rules FILE` (every command) or the positional
    RULES of check, compile and variants."""
    pos, opt = getattr(args, "rules", None), getattr(args, "rules_opt", None)
    if pos and opt and pos != opt:
        raise SystemExit(_usage(f"two rule files: {pos} and --rules {opt}"))
    return opt or pos


def _usage(msg: str) -> int:
    print(f"tjmj: error: {msg}", file=sys.stderr)
    return EXIT_USAGE


def _request(args: argparse.Namespace, need_draw: bool) -> dict[str, Any]:
    hand = parse_hand(args.hand)
    req: dict[str, Any] = {"concealed": hand["concealed"], "melds": hand["melds"], "indicator": args.indicator}
    if "draw" in hand:
        req["draw"] = hand["draw"]
    if args.kong_draw:
        req["kong_draw"] = args.kong_draw
    if args.kong_chain is not None:
        req["kong_chain"] = args.kong_chain  # without --kong-draw the scorer says so
    for flag in args.flag or []:
        req[flag] = True
    return req


def _show(res: dict[str, Any]) -> str:
    if res.get("error"):
        return f"invalid request: {res['error']['message']}"
    lines = []
    verdict = "WIN" if res["win"] else "no win"
    names = " ".join(f"{shown(n)}({p})" for n, p in zip(res.get("names", []), res["patterns"]))  # one line each
    lines.append(f"{verdict}: fan {res['fan']}, total {res['total']}   {res['formula']}   {names}")
    if not res["win"]:
        lines.append(f"  reason: {res.get('reason')}: {res.get('message', '')}")
    if res.get("decomposition"):
        lines.append("  " + "  |  ".join(g["text"] for g in res["decomposition"])
                     + f"   (huns: {' '.join(res['hun_kinds'])}; * = winning tile {res['winning_tile']})")
    return "\n".join(lines)


def _jsonl_loop(rules: str | None, profile: str | None, opts: dict[str, Any], fn: str) -> int:
    from .engine.runtime import run_jsonl
    from .service import Service

    service = Service(rules, profile, opts)
    run_jsonl(sys.stdin, sys.stdout, service.answerer(fn), lambda i, e: service.refuse(fn, i, e), service.texter(fn))
    return EXIT_OK


def _lines(stream: Any) -> Any:
    """Lines of a stream as the JSONL batch reads them: each decoded on its own
    (a line that is not UTF-8 is one refusal), read in bounded pieces."""
    from .engine.runtime import read_lines
    yield from read_lines(getattr(stream, "buffer", stream))  # a generator: `stream` stays open while read


def _say(text: str) -> None:
    """Print text made of rule-file words for a person: each line as a terminal
    may show it (inert.shown: no escape sequence, no bidirectional override
    reordering the numbers after a name)."""
    print("\n".join(shown(line) for line in str(text).split("\n")))


def cmd_score(args: argparse.Namespace, fn: str) -> int:
    from .api import Scorers
    opts = _options(args.option)
    scorers = Scorers(args.rules)
    if args.jsonl:
        if args.hand:
            return _usage("--jsonl reads requests from stdin; give no HAND")
        return _jsonl_loop(args.rules, args.profile, opts, fn)
    if not args.hand or not args.indicator:
        return _usage(f"{fn} needs HAND and --indicator (or --jsonl)")
    try:
        req = _request(args, fn != "waits")
    except TileError as e:
        if args.json:  # --json answers in JSON whatever is wrong: the contract's refusal, the HAND as its line
            from .engine.request import RequestError
            sc = scorers.get(args.profile, opts)
            refuse = sc.waits_refusal if fn == "waits" else sc.refusal
            error = RequestError(e.message, "hand", e.pos, e.hint, "bad_tile").error()  # its words, as a field's
            error["field"] = None  # HAND is no request field: the position is in the line given
            print(json.dumps(refuse(None, error), ensure_ascii=False))
        else:
            print("error: hand: " + e.render(), file=sys.stderr)
        return EXIT_FAIL
    sc = scorers.get(args.profile, opts)
    from .diagnostics import did_you_mean
    flags = [f for f, _ in sc.ruleset.flags]
    for flag in args.flag or []:  # a flag is a request field, but --flag names only the rules' flags
        if flag not in flags:
            hint = did_you_mean(flag, flags) or ("the rules' flags are " + ", ".join(flags) if flags else "the rules declare no flag")
            return _usage(f"--flag {flag!r}: not a request flag of the rules ({hint})")
    if fn == "waits":
        if "draw" in req and not args.json:  # 13 tiles before the draw: a +tile is not dropped unsaid (--json: refused)
            return _usage(f"waits lists the tiles that win 13 tiles: give the hand without +{req['draw']}")
        res = sc.waits(req)
        if args.json:
            print(json.dumps(res, ensure_ascii=False))
            return EXIT_FAIL if res.get("error") else EXIT_OK
        if res.get("error"):
            _say(_show(res))
            return EXIT_FAIL
        if not res["waits"]:
            print("no tile wins this hand")
        else:
            for w in res["waits"]:
                _say(f"{w['tile']:>3}  fan {w['fan']:>3}  total {w['total']:>3}  {w['formula']}  {' '.join(w['patterns'])}")
        return EXIT_OK
    if "draw" not in req and not args.json:  # (--json: the scorer's refusal, missing_field)
        return _usage("the hand needs its winning tile: +6s")
    res = sc.score(req)
    if fn == "explain":
        # scored and searched by the generated scorer (its time is bounded; the reference
        # interpreter tests each pattern on every reading: minutes for a hand of many huns),
        # the values each test reads by the reference interpreter
        from .analysis.explain import explain
        how = explain(scorers.get(args.profile, opts, "interpreter")._rules, req, fast=sc._rules)
        if args.json:  # an explain answer (schemas/explain-result.schema.json): `explanation` as /explain has it, and the walk
            from .service import explanation
            extra = {} if res.get("error") else {"explanation": explanation(sc, res)}
            print(json.dumps({**res, **extra, "explain": how}, ensure_ascii=False))
        else:
            _say(_show(res))
            _say(_explain(sc.ruleset, res, how))
        return EXIT_FAIL if res.get("error") else EXIT_OK
    if args.json:
        print(json.dumps(res, ensure_ascii=False))
    else:
        _say(_show(res))
    return EXIT_FAIL if res.get("error") else EXIT_OK


_MARK = {"claimed": "✔", "dropped": "✗", "other_reading": "↷", "not_held": "·", "unexamined": "?"}


def _explain(rs: Any, res: dict[str, Any], how: dict[str, Any]) -> str:
    """The text form of analysis/explain.py's answer: one entry per pattern."""
    lines = ["", f"rules: {rs.source_file}, profile {rs.profile}; min fan {rs.min_fan}; score table {rs.score_table}"]
    if how.get("error") or "patterns" not in how:
        return "\n".join(lines)
    lines.append("patterns (✔ claimed, ✗ holds but dropped, ↷ claimed by another reading, not a better one, · does not hold), "
                 "on the reading shown (in reads, a tile~ is a hun standing for that tile):")
    for e in how["patterns"]:
        status = {"claimed": "claimed" if e.get("shown", True) else "claimed (value not used)",
                  "dropped": "holds, dropped: " + e["why"], "other_reading": "not on this reading: " + e["why"],
                  "not_held": "does not hold", "unexamined": "not on this reading: " + e["why"]}[e["status"]]
        lines.append(f"  {_MARK[e['status']]} {e['id']:<10} {shown(e['name']):<4} {e['kind']:>4} {e['value']:>2}   {status}")
        lines.append(f"      when: {e['when']}")
        if e.get("values"):
            lines.append("      reads: " + "; ".join(f"{k} = {v}" for k, v in e["values"].items()))
        if e.get("other"):
            lines.append(f"      that reading: {e['other']['reading']}   ({e['other']['formula']})")
    lines.append(f"algebra: {rs.algebra.text}")
    lines.append(f"formula: {res['formula']}")
    lines.append(f"score table {rs.score_table}: {rs.total.text} → {res['total']}")
    return "\n".join(lines)


def cmd_check(args: argparse.Namespace) -> int:
    from .analysis.rulecheck import check_file
    report = check_file(_rules_arg(args))
    for w in report.warnings:
        _say(w.render(report.sources.get(w.pos.file) if w.pos else None) + "\n" + _silence_line(w))
    for w, reason in report.silenced:
        _say(f"note: silenced {w.code} {w.subject}: {w.message}\n  because: {reason}")
    for n in report.notes:  # the seeds' errata: expected, one line each (the why is in the rulebook's errata)
        where = f"{n.pos.file}:{n.pos.line}:{n.pos.col}: " if n.pos else ""
        _say(f"{where}note: {n.message} (a known erratum of the printed table: expected)")
    counts = [f"{len(report.profiles)} profile(s)"]
    if report.warnings:
        counts.append(f"{len(report.warnings)} warning(s)")
    if report.silenced:
        counts.append(f"{len(report.silenced)} silenced")
    if report.notes:
        counts.append(f"{len(report.notes)} note(s)")
    if report.warnings and args.strict:
        print(f"{report.file}: {len(report.warnings)} warning(s), failing (--strict)")
        return EXIT_FAIL
    print(f"{report.file}: ok ({', '.join(counts)})")
    return EXIT_OK


_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.=-]*$")


def _silence_line(w: Any) -> str:
    """What answers a warning on purpose: its code and subject as the rule file's `silence:` entry
    (YAML flow style, pasteable), or why it cannot be silenced."""
    if not w.subject or w.code == "silence-unused":
        return f"code: {w.code} (not silenceable: fix it as the hint says)"
    subject = w.subject if _PLAIN_KEY.match(w.subject) else json.dumps(w.subject, ensure_ascii=False)
    return (f"code: {w.code}, subject: {subject}; to accept it on purpose, add to the rule file: "
            f"silence: {{{w.code}: {{{subject}: \"why\"}}}}")


def cmd_init(args: argparse.Namespace) -> int:
    import os
    from .layout import windows_device
    from .starter import NAME_RE, overlay_text
    if not NAME_RE.match(args.name):
        return _usage(f"NAME is the variant's id, letters a-z, digits and _ (it names generated/NAME/): {args.name!r}")
    if windows_device(args.name):
        return _usage(f"NAME names generated/NAME/, and Windows keeps {args.name!r} for a device: pick another")
    target = os.path.join(args.dir, f"{args.name}.yaml")
    if not args.base.startswith("builtin:") and _same_file(target, args.base):  # --force or not: never over its input
        return _usage(f"{target} is the rule file it changes (--from {args.base}): pick another NAME or --dir")
    if os.path.exists(target) and not args.force:
        print(f"tjmj: error: {target} exists (--force writes over it)", file=sys.stderr)
        return EXIT_FAIL
    text = overlay_text(args.name, args.base, args.dir)
    os.makedirs(args.dir, exist_ok=True)
    with open(target, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"wrote {target}; next: tjmj check {target} --strict")
    return EXIT_OK


def _os_error(e: OSError) -> int:
    """An error of the file system said as such (no traceback)."""
    where = f"{e.filename}: " if e.filename else ""
    print(f"tjmj: error: {where}{e.strerror or e}", file=sys.stderr)
    return EXIT_FAIL


def cmd_compile(args: argparse.Namespace) -> int:
    from .backends.outputs import OutputError, write_outputs
    try:
        changed = write_outputs(_rules_arg(args), args.out, check=args.check)
    except OutputError as e:
        print(f"tjmj: error: {e}", file=sys.stderr)
        return EXIT_FAIL
    except OSError as e:  # --out a file, a folder that cannot be made, a full disk
        return _os_error(e)
    if args.check:
        if changed:
            for c in changed:
                print(f"stale: {c}", file=sys.stderr)
            print(f"{len(changed)} generated file(s) differ; run `tjmj compile` and commit", file=sys.stderr)
            return EXIT_FAIL
        print("generated files are up to date")
        return EXIT_OK
    for c in changed:
        print(f"wrote {c}")
    if not changed:
        print("nothing changed")
    return EXIT_OK


def cmd_docs(args: argparse.Namespace) -> int:
    """The rulebooks alone (rulebook.md and rulebook.html per profile, and the
    combination table's combinations.json), their examples checked against the
    generated scorer on the way."""
    from .backends.outputs import write_outputs
    if args.profile is not None:
        from .compiler import profiles
        known = profiles(_rules_arg(args))
        if args.profile not in known:
            from .diagnostics import did_you_mean
            return _usage(f"no profile {args.profile!r}; " + (did_you_mean(args.profile, known) or "profiles: " + ", ".join(known)))
    try:
        changed = write_outputs(_rules_arg(args), args.out, docs_only=True, only_profile=args.profile)
    except OSError as e:
        return _os_error(e)
    for c in changed:
        print(f"wrote {c}")
    if not changed:
        print("nothing changed")
    return EXIT_OK


def cmd_variants(args: argparse.Namespace) -> int:
    from .compiler import load_rules
    rs = load_rules(_rules_arg(args))
    for o in rs.options:
        _say(f"{o.id}  [{o.acts_on}]  {shown(o.name)}")  # a rule file's text, one line (a line break: a space)
        _say(f"    {shown(o.description)}")
        _say("    values: " + ", ".join(f"{c}{' (default)' if str(c) == str(o.default) else ''}" for c in o.choices))
    print()
    _say("profiles: " + ", ".join(f"{p}" for p, _ in rs.profiles) + f"   (default {rs.profile})")
    return EXIT_OK


# simulate's stated limits (docs/reliability.md): its workers each a process (its summaries are counted as they
# come, not kept)
MAX_HANDS = 1_000_000
MAX_JOBS = 64
MAX_SEED = 100
MAX_BOT_TIMEOUT = 3600.0


def cmd_simulate(args: argparse.Namespace) -> int:
    from .game.rules import GameRulesError
    from .game.simulate import CHUNK, Spec, render, run, summarize, _rules
    from .game.runstats import RunStats
    from .progress import Bar
    from .game.players import PLAYERS
    from .game.bot import BotError
    from .game.runfile import RecordWriter, RunFileError, check_target, inputs_of, read_kept
    from .compiler import builtin_rules_path, read_rules
    from .interrupt import ended_by
    from .cli_args import seed_of
    players = tuple(p.strip() for p in args.players.split(","))
    if len(players) != 4 or any(p not in PLAYERS for p in players):
        return _usage(f"--players wants 4 of {', '.join(PLAYERS)}, comma-separated; got {args.players!r}")
    bots: dict[int, tuple[str, ...]] = {}
    for b in args.bot or ():
        seat, eq, command = b.partition("=")
        try:
            argv = tuple(shlex.split(command))
        except ValueError as e:  # an unclosed quote
            return _usage(f"--bot {b!r}: {e}")
        if not eq or seat.strip() not in ("0", "1", "2", "3") or not argv:
            return _usage(f"--bot wants SEAT=COMMAND, a seat 0-3 and the bot's command; got {b!r}")
        if int(seat) in bots:
            return _usage(f"--bot names seat {int(seat)} twice")
        bots[int(seat)] = argv
    players = tuple("bot" if s in bots else p for s, p in enumerate(players))
    seed = seed_of(args.seed)
    if args.engine == "ray" and (bots or args.rotate or args.resume):
        return _usage("--engine ray plays neither --bot (a process of this machine), --rotate (one game) nor --resume")
    # --resume FILE goes on in FILE, or (with --record OUT) writes FILE's hands and the rest to OUT
    target = args.record or args.resume
    in_place = bool(args.resume) and (not args.record or _same_file(args.record, args.resume))  # FILE exists (its type)
    spec = Spec(args.rules, args.profile, tuple(sorted(_options(args.option).items())), players, seed, bool(target),
                args.rotate, tuple(sorted(bots.items())), args.bot_timeout)
    try:
        rules = _rules(spec)
    except GameRulesError as e:
        print(f"tjmj: error: {e}", file=sys.stderr)
        return EXIT_FAIL
    kept = None
    out: RecordWriter | None = None
    try:
        if target:
            rule_paths = read_rules(args.rules or builtin_rules_path()).paths
            others = [args.resume] if args.resume and not in_place else []
            check_target(target, inputs_of(rule_paths, bots.values(), others), args.force, in_place)
        if args.resume:
            kept = read_kept(args.resume, rules, seed, list(players), args.rotate, args.hands, CHUNK if bots else None)
            if kept.hands and not bots:  # the last kept hand, played again, is the one in the file
                _check_last(spec, rules, kept, args.resume)
        if target:
            out = RecordWriter.open(target, args.force, kept.offset if kept is not None and in_place else None)
            if kept is not None and not in_place:
                out.copy(args.resume, kept.offset, kept.hands)
    except RunFileError as e:
        if out is not None:
            out.close()
        return _usage(str(e))
    except OSError as e:
        if out is not None:
            out.close()
        named = str(e.filename or "") if e.filename != target else ""  # another file (a rule file), or none
        where = " ".join(x for x in (f"--record {target}" if target else "", named) if x)
        print(f"tjmj: error: {where}: {e.strerror or e}", file=sys.stderr)
        return EXIT_FAIL
    start = kept.hands if kept is not None else 0
    counts = kept.stats if kept is not None else RunStats()  # the kept hands', the new ones folded in after them
    bar = Bar(sys.stderr)
    progress = (lambda d, n: bar(d + start, n + start)) if start else bar
    try:
        try:
            _, secs = run(spec, args.hands - start, args.jobs, start=start, progress=progress, out=out,
                          dealer=kept.dealer if kept is not None else None, engine=args.engine,
                          address=args.address, game=kept.game if kept is not None and args.rotate else None,
                          stats=counts)
        finally:
            bar.end()  # an error, or `interrupted`, said next on a line of its own
    except OSError as e:  # the record file's disk is full
        return _os_error(e)
    # a bot broke the protocol (the game stops, nothing is guessed for it), Ray failed, or the rules refused
    # what the table built (EngineError, a RuntimeError: which rule, which hand, one line)
    except (BotError, RuntimeError) as e:
        print(f"tjmj: error: {e}", file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt as e:  # Ctrl-C, SIGTERM, SIGHUP: the file holds whole hands, and says how to go on
        code, words = ended_by(e)
        if out is not None and target:
            n = out.lines + (start if in_place else 0)
            print(f"tjmj: {words}: {target} holds hands 0-{n - 1} ({n}); the same command with --resume {target} "
                  "goes on" if n else f"tjmj: {words}: {target} holds no hand yet", file=sys.stderr)
        else:
            print(f"tjmj: {words}", file=sys.stderr)
        return code
    finally:
        if out is not None:
            try:
                out.close()
            except OSError:
                pass
    stats = summarize(spec, counts, rules)
    jobs = 1 if args.rotate else args.jobs  # one game is played hand after hand
    played = args.hands - start
    timing = {"seconds": round(secs, 3), "hands_per_second": round(played / secs, 1) if secs else None, "jobs": jobs}
    if args.json:
        print(json.dumps({"stats": stats, "timing": timing}, ensure_ascii=False))
    else:
        _say(render(stats))
        print(f"time: {timing['seconds']} s, {timing['hands_per_second']} hands/s with {jobs} job(s)"
              + ((f" (hands {start}-{args.hands - 1}; 0-{start - 1} from {args.resume})" if start < args.hands
                  else f" (every hand from {args.resume})") if start else ""))
    return EXIT_OK


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _check_last(spec: Any, rules: Any, kept: Any, path: str) -> None:
    """The last hand kept from a stopped run's file, played again: the same line, or RunFileError
    (the file was written by another command: players, options, or another version)."""
    from .game.runfile import RunFileError, same_line
    from .game.simulate import hand_summary
    i = kept.hands - 1
    dealer = kept.last_dealt if spec.rotate and i > 0 else None
    _, line = hand_summary(rules, spec, i, dealer, kept.game_before_last if spec.rotate else None)
    if not same_line(line, kept.last):
        raise RunFileError(f"--resume {path}: hand {i} as recorded is not the hand this command plays "
                           "(resume with the command that wrote it)")


def _short_text(text: str, n: int = 200) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def cmd_replay(args: argparse.Namespace) -> int:
    from .game.record import MAX_RECORD
    from .game.replay import ReplayDiff, Replayer, show
    from .engine.runtime import JSON_SPACE, NotUtf8, TooLong, loads_request, read_lines
    rp = Replayer(args.rules)
    try:
        stream = getattr(sys.stdin, "buffer", sys.stdin) if args.file == "-" else open(args.file, "rb")
    except OSError as e:
        print(f"tjmj: error: {args.file}: {e.strerror}", file=sys.stderr)
        return EXIT_FAIL
    bad = ok = lines = 0
    seen: dict[bytes, int] = {}  # each hand (seed, number, rules) replayed, by a digest of the three: its first line
    records = False  # a line that names the record format: the file is one, whatever else it holds
    try:
        for n, line in enumerate(read_lines(stream, MAX_RECORD), 1):  # bounded: a line past the limit is one refusal
            if isinstance(line, TooLong):
                print(f"line {n}: longer than {MAX_RECORD:,} bytes, the limit of a record line")
                bad += 1
                continue
            if isinstance(line, NotUtf8):
                print(f"line {n}: not UTF-8 at byte {line.pos}")
                bad += 1
                continue
            if not line.strip(JSON_SPACE):  # blank, as the JSONL batch says it (runtime.answer_line)
                continue
            lines += 1
            # the contract's reader (nesting bounded, a repeated key refused), positions in the line as written
            rec, err = loads_request(line.strip(JSON_SPACE), len(line) - len(line.lstrip(JSON_SPACE)))
            if err is not None:
                print(f"line {n}: {err['message']}")
                bad += 1
                continue
            records = records or (isinstance(rec, dict) and "format" in rec)
            hand = rec.get("hand") if isinstance(rec, dict) else None
            if args.hand is not None and hand != args.hand:
                continue
            label = f"hand {hand}" if isinstance(hand, int) else f"line {n}"
            same = None  # a line replaying a hand an earlier line of the file did (a copied or reordered line)
            if isinstance(hand, int) and isinstance(rec, dict):
                key = hashlib.sha256(json.dumps([rec.get("seed"), hand, rec.get("rules")], sort_keys=True,
                                                default=str).encode("utf-8")).digest()[:16]  # 16 bytes a line kept
                same = seen.get(key)
                seen.setdefault(key, n)
                if same is not None:
                    label = f"hand {hand} (line {n})"
            try:
                table, again = rp.check(rec)
            except ReplayDiff as e:
                _say(f"{label}: DIFFERS: {e}")
                bad += 1
                continue
            except (KeyError, TypeError, ValueError, IndexError, RecursionError) as e:  # the next line still gets its answer
                _say(f"{label}: DIFFERS: the record cannot be replayed ({type(e).__name__}: {_short_text(str(e))})")
                bad += 1
                continue
            ok += 1
            _say(f"{label}: OK" + (f" (not checked: {rp.unchecked})" if rp.unchecked else "")
                 + (f" (the same hand as line {same})" if same is not None else ""))
            if args.show and table is not None and again is not None:
                _say(show(table, again))
    finally:
        if args.file != "-":
            stream.close()
    what = "standard input" if args.file == "-" else args.file
    if not lines:
        print(f"tjmj: error: {what} holds no hand: a record is the JSONL `tjmj simulate --record FILE` writes, "
              "one hand per line", file=sys.stderr)
        return EXIT_FAIL
    if args.hand is not None and not ok and not bad:
        print(f"no hand {args.hand} in {args.file}")
        return EXIT_FAIL
    print(f"{ok + bad} hand(s): {ok} OK, {bad} differ")
    if not records:
        print(f"tjmj: error: no line of {what} is a record (an object with \"format\": \"tjmj-record/1\", "
              "as `tjmj simulate --record FILE` writes): is it a record file?", file=sys.stderr)
    return EXIT_FAIL if bad else EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    """Check the rules, then serve them over HTTP until stopped."""
    try:
        from .serve import Config, run
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        print(f"tjmj: error: `tjmj serve` needs the serve extra ({e.name} is missing): pip install -e '.[serve]'",
              file=sys.stderr)
        return EXIT_FAIL
    from .service import Service
    opts = _options(args.option)
    Service(args.rules, args.profile, opts)  # a bad rule file, profile or option fails here, with every diagnostic
    from dataclasses import asdict
    from .guard.limits import from_args
    limits = asdict(from_args(args, args.host))
    tables = _tables_config(args)
    if tables is not None:
        try:
            from .tables.store import unopenable
        except ImportError as e:
            print(f"tjmj: error: `tjmj serve --tables` needs the play extra ({e.name} is missing): "
                  f"pip install -e '.[play]'", file=sys.stderr)
            return EXIT_FAIL
        if args.stop_room is not None:
            return _stop_room(tables["db"], args.stop_room)
        why = unopenable(tables["db"])
        if why:
            print(f"tjmj: error: {why}", file=sys.stderr)
            return EXIT_FAIL
    if args.stop_room is not None:  # with --tables, stopped above
        return _usage("--stop-room stops a room of the tables' database: give --tables (and its --db)")
    config = Config(rules=os.path.abspath(args.rules) if args.rules else None, profile=args.profile, options=opts,
                    cors=tuple(args.cors_origin or ()), max_body=args.max_body, max_batch=args.max_batch,
                    guard=limits, tables=tables)
    run(config, args.host, args.port, args.workers, args.log_level)
    return EXIT_OK


def _stop_room(db: str | None, room_id: str) -> int:
    """--stop-room: the operator's stop of one room of the database, then exit (a SQLite file that does not
    exist is said: opening it would create an empty one)."""
    from .tables.store import Store, sqlite_path, unopenable
    path = sqlite_path(db)
    missing = path is not None and not path.exists()
    why = f"no games' database at {path} (opening it would create an empty one)" if missing else unopenable(db)
    if why:
        print(f"tjmj: error: {why}", file=sys.stderr)
        return EXIT_FAIL
    store = Store(db)
    try:
        status = store.stop_room(room_id)
        where = store.shown_url()
    finally:
        store.close()
    shown = json.dumps(room_id[:64], ensure_ascii=True)
    if status is None:
        print(f"tjmj: error: no room {shown} in {where}", file=sys.stderr)
        return EXIT_FAIL
    if status in ("playing", "stopping"):
        print(f"room {shown} is stopped; its finished hands are kept ({where}); a server playing it now ends it "
              "when the hand being played is over")
    else:
        print(f"room {shown} was already {status}; nothing changed ({where})")
    return EXIT_OK


def cmd_settle(args: argparse.Namespace) -> int:
    """One outcome settled (or a JSONL batch of them), as /settle and settle() answer it: the outcome is
    answered as a line of the batch is (answer_line), bounded as one (MAX_LINE)."""
    from .engine.runtime import MAX_LINE, answer_line
    from .service import Service
    opts = _options(args.option)
    if args.jsonl:
        if args.outcome is not None:
            return _usage("--jsonl reads outcomes from stdin; give no OUTCOME")
        return _jsonl_loop(args.rules, args.profile, opts, "settle")
    needs = "settle needs an OUTCOME (JSON, or - to read it from stdin), or --jsonl"
    if args.outcome is None:
        return _usage(needs)
    text = sys.stdin.read(MAX_LINE + 1) if args.outcome == "-" else args.outcome
    service = Service(args.rules, args.profile, opts)

    def refuse(i: Any, error: dict[str, Any]) -> dict[str, Any]:
        return service.refuse("settle", i, error)
    if len(text) > MAX_LINE:
        res = refuse(None, {"code": "too_large", "message": f"an outcome is at most {MAX_LINE:,} characters", "field": None})
    else:
        line = answer_line(text, service.answerer("settle"), refuse)
        if line is None:  # blank
            return _usage(needs)
        res = json.loads(line)
    if args.json:
        print(json.dumps(res, ensure_ascii=False))
    elif res.get("error"):
        _say(f"invalid outcome: {res['error']['message']}")
    else:
        _say(_settled(res))
    return EXIT_FAIL if res.get("error") else EXIT_OK


def _settled(res: dict[str, Any]) -> str:
    """A settle answer for a person: each seat's balance, who deals next, every payment with its formula."""
    lines = ["balances: " + "  ".join(f"seat {s} {b:+d}" if b else f"seat {s} 0" for s, b in enumerate(res["balances"]))
             + ("" if res.get("next_dealer") is None else f"   next dealer: seat {res['next_dealer']}")]
    for p in res["payments"]:
        lines.append(f"  seat {p['from']} → seat {p['to']}  {p['amount']:>4}  {p['reason']}   {p.get('formula', '')}")
    if not res["payments"]:
        lines.append("  no payment")
    return "\n".join(lines)


def cmd_play(args: argparse.Namespace) -> int:
    """A table on this machine: you and three bots, in the browser (tjmj_dsl/tables)."""
    try:
        from .tables.play import run as play
    except ImportError as e:
        print(f"tjmj: error: `tjmj play` needs the play extra ({e.name} is missing): pip install -e '.[play]'",
              file=sys.stderr)
        return EXIT_FAIL
    if args.stop_room is not None:
        return _stop_room(args.db, args.stop_room)
    from .tables.store import unopenable
    why = unopenable(args.db)
    if why:
        print(f"tjmj: error: {why}", file=sys.stderr)
        return EXIT_FAIL
    return play(db=args.db, port=args.port, browser=not args.no_browser, profile=args.profile, hands=args.hands,
                pace=args.bot_pace, time_limit=args.time_limit, rules=os.path.abspath(args.rules) if args.rules else None,
                rate=args.table_rate)


MAX_ROOMS = 100_000  # tjmj serve --tables: rooms played at once, each a table in this process


def _table_args(p: argparse.ArgumentParser, serve: bool) -> None:
    """The tables' options (tjmj play, and tjmj serve --tables)."""
    from . import cli_args as A
    p.add_argument("--db", metavar="PATH|URL", help="the games' database: a SQLite file (default: "
                   "$XDG_DATA_HOME/tjmj/tables.sqlite3) or postgresql://user@host/db")
    p.add_argument("--bot-pace", type=A.number_in(0, 60, " seconds"), default=0.6, metavar="SECONDS",
                   help="how long a bot waits before it answers (default 0.6; 0: at once)")
    p.add_argument("--table-rate", type=A.number_in(0.001, 1e9), default=10.0, metavar="N",
                   help="messages a second one socket may send (default 10, bursts of twice that; "
                        "scripted clients of a load test need more)")
    p.add_argument("--stop-room", metavar="ROOM", help="stop this room of the database (--db) and exit, serving nothing: "
                   "the operator's stop, no owner token needed (a room the server cannot resume, its rules edited "
                   "since; a game played until stopped); its finished hands are kept (an id that begins with '-', of a "
                   "room made before ids were letters and digits: --stop-room=ID)")
    if serve:
        p.add_argument("--tables", action="store_true", help="serve the tables too: /play, the room API, the sockets")
        p.add_argument("--table-rules", action="append", metavar="FILE", type=A.input_file,
                       help="a rule file rooms may use (repeatable; default: the built-in rules)")
        p.add_argument("--table-bot", metavar="COMMAND",
                       help="the program an `external` bot seat runs (the bot protocol; split on spaces, no shell)")
        from .guard.limits import page_origin
        p.add_argument("--table-origin", action="append", metavar="ORIGIN", type=page_origin,
                       help="a page origin allowed beside the server's own (behind a proxy: https://club.example)")
        p.add_argument("--max-rooms", type=A.int_in(1, MAX_ROOMS), default=1000,
                       help=f"rooms played at once (default 1000; at most {MAX_ROOMS:,})")
        p.add_argument("--rooms-per-client", type=A.int_in(1, MAX_ROOMS), default=16,
                       help="rooms one client address may have playing at once (default 16; behind a reverse proxy, "
                            "name it with --proxy so that each player is a client)")
        p.add_argument("--max-bots", type=A.int_in(1, MAX_ROOMS), default=64,
                       help="`external` bot processes (--table-bot) running at once, every room's (default 64)")
        p.add_argument("--idle-stop", type=A.number_in(1, 1e9, " seconds"), default=600.0, metavar="SECONDS",
                       help="a room no socket has been connected to for this long is stopped after its hand (default 600)")
        p.add_argument("--max-game-hands", type=A.int_in(0, 10 ** 9), default=1000, metavar="N",
                       help="a game played until stopped (hands 0) ends after N hands all the same, what one room may "
                            "store (default 1000; 0: never)")



def _tables_config(args: argparse.Namespace) -> dict[str, Any] | None:
    if not getattr(args, "tables", False):
        return None
    if args.workers != 1:
        raise SystemExit("tjmj: error: --tables plays every room in one process: --workers 1")
    rules = [os.path.abspath(r) for r in args.table_rules] if args.table_rules else [None]
    return {"db": args.db, "rules": rules, "pace": args.bot_pace,
            "bot_command": args.table_bot.split() if args.table_bot else None,
            "origins": list(args.table_origin or ()), "max_rooms": args.max_rooms,
            "rooms_per_client": args.rooms_per_client, "idle_stop": args.idle_stop, "max_bots": args.max_bots,
            "game_hands": args.max_game_hands,
            "rate": args.table_rate, "burst": max(1, int(2 * args.table_rate))}


# every subcommand's --help ends with an example (a test holds every command to it)
EXAMPLES = {
    "check": "tjmj check --strict\n  tjmj check house.yaml",
    "init": "tjmj init club && tjmj check club.yaml --strict",
    "compile": "tjmj compile\n  tjmj compile --check",
    "docs": "tjmj docs --profile seed-001\n  tjmj docs club.yaml --out site",
    "variants": "tjmj variants\n  tjmj variants --rules club.yaml",
    "score": 'tjmj score "345m 123s EEE 77m 45s +6s" --indicator 7p\n'
             '  tjmj score "345m 123s 77m 45s (5555p) +6s" -i 7p --kong-draw concealed --profile seed-000-coins',
    "explain": 'tjmj explain "123m 4m 5m 789m EEE 2p2p +6m" -i 5m --option subenlong=on',
    "waits": 'tjmj waits "345m 123s EEE 77m 45s" --indicator 7p',
    "settle": "tjmj settle '{\"dealer\": 0, \"zuozhuang\": true, \"lazhuang\": [0, 1, 0, 0], \"winner\": 2, \"total\": 4}'\n"
              "  tjmj settle --jsonl < outcomes.jsonl",
    "simulate": "tjmj simulate --hands 1000 --seed 7 --players value,random,random,random",
    "replay": "tjmj simulate --hands 10 --record hands.jsonl && tjmj replay hands.jsonl",
    "play": "tjmj play\n  tjmj play --no-browser --db games.sqlite3 --bot-pace 0",
    "serve": "tjmj serve --port 8000\n"
             "  curl -s localhost:8000/score -d '{\"concealed\": \"345m123sEEE77m45s\", \"draw\": \"6s\", \"indicator\": \"7p\"}'",
    "impact": "tjmj impact --variant jin8=jin_gang=8 --hands 400 --seed 1 --jobs 2\n"
              "  tjmj impact --base seed-000-fan --variant house=house.yaml --hands 1000 --out report",
}


def cmd_impact(args: argparse.Namespace) -> int:
    from .impact.command import run
    return run(args)


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    from . import cli_args as A
    ap = argparse.ArgumentParser(prog="tjmj", description="Tianjin Mahjong rules as data: check, compile, score.")
    ap.add_argument("--version", action="version", version=f"tjmj {__version__}")
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND")  # none given: main() shows the commands

    p = sub.add_parser("check", help="check a rule file (every profile) and its known values")
    p.add_argument("rules", nargs="?", type=A.input_file, help="rule file (default: the built-in rules/tianjin.yaml)")
    p.add_argument("--rules", dest="rules_opt", metavar="RULES", type=A.input_file, help="the same, as an option")
    p.add_argument("--strict", action="store_true", help="fail (exit 1) on any warning, known-value mismatches included")
    p.set_defaults(run=cmd_check)

    p = sub.add_parser("init", help="start a house variant: write NAME.yaml, a commented overlay of the rules")
    p.add_argument("name", help="the variant's id (a-z, 0-9, _): the file NAME.yaml and generated/NAME/")
    p.add_argument("--from", dest="base", default="builtin:tianjin", type=A.rules_source,
                   help="the rules it changes: builtin:tianjin (default) or a rule file")
    p.add_argument("--dir", default=".", type=A.output_dir, help="where to write NAME.yaml (default: here)")
    p.add_argument("--force", action="store_true", help="write over an existing NAME.yaml")
    p.set_defaults(run=cmd_init)

    p = sub.add_parser("compile", help="generate the scorers (Python, JavaScript), rulebooks (md, html) and, where the rules have known "
                       "values, their tests, of every profile")
    p.add_argument("rules", nargs="?", type=A.input_file, help="rule file (default: the built-in rules/tianjin.yaml)")
    p.add_argument("--rules", dest="rules_opt", metavar="RULES", type=A.input_file, help="the same, as an option")
    p.add_argument("--out", default="generated", type=A.output_dir, help="output directory (default: generated)")
    p.add_argument("--check", action="store_true", help="regenerate in memory; fail if anything differs")
    p.set_defaults(run=cmd_compile)

    p = sub.add_parser("docs", help="write the rulebooks (rulebook.md, rulebook.html) of every profile, or of one")
    p.add_argument("rules", nargs="?", type=A.input_file, help="rule file (default: the built-in rules/tianjin.yaml)")
    p.add_argument("--rules", dest="rules_opt", metavar="RULES", type=A.input_file, help="the same, as an option")
    p.add_argument("--profile", help="only this profile's rulebook")
    p.add_argument("--out", default="generated", type=A.output_dir, help="output directory (default: generated)")
    p.set_defaults(run=cmd_docs)

    p = sub.add_parser("variants", help="list the options (variants) and profiles of a rule file")
    p.add_argument("rules", nargs="?", type=A.input_file, help="rule file (default: the built-in rules/tianjin.yaml)")
    p.add_argument("--rules", dest="rules_opt", metavar="RULES", type=A.input_file, help="the same, as an option")
    p.set_defaults(run=cmd_variants)

    for name, helptext in (("score", "score a hand"), ("explain", "score a hand and show how: every pattern, claimed or why not"),
                           ("waits", "list the tiles that win a 13-tile hand")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("hand", nargs="?", help='e.g. "345m 123s EEE 77m 45s [5555p] +6s" ((5555p) = concealed kong)')
        p.add_argument("--indicator", "-i", help="the flipped tile that names the huns, e.g. 7p")
        p.add_argument("--kong-draw", choices=("exposed", "concealed", "hun"), help="the winning tile replaced a kong (gangkai)")
        p.add_argument("--kong-chain", type=A.int_in(1, KONG_CHAIN_MAX), metavar="N",
                       help="with --kong-draw: N kongs were made in a row, the winning tile replacing the last (default 1)")
        p.add_argument("--flag", action="append", metavar="NAME",
                       help="a request flag of the rule file, e.g. tianhu, dihu; repeatable")
        p.add_argument("--rules", type=A.input_file, help="rule file (default: the built-in rules/tianjin.yaml)")
        p.add_argument("--profile", help="a profile of the rule file (default: its default_profile)")
        p.add_argument("--option", action="append", metavar="NAME=VALUE", help="set an option (repeatable)")
        p.add_argument("--json", action="store_true", help="print the result as JSON")
        p.add_argument("--jsonl", action="store_true", help="read JSON requests from stdin, one per line")
        p.set_defaults(run=lambda a, n=name: cmd_score(a, n))

    p = sub.add_parser("settle", help="settle one hand's outcome: who pays whom, by the rule file's settlement")
    p.add_argument("outcome", nargs="?", metavar="OUTCOME",
                   help='the outcome as JSON (schemas/settle-outcome.schema.json), e.g. \'{"dealer": 0, "winner": 2, '
                        '"total": 4}\'; - reads it from stdin')
    p.add_argument("--rules", type=A.input_file, help="rule file (default: the built-in rules/tianjin.yaml)")
    p.add_argument("--profile", help="a profile of the rule file (default: its default_profile)")
    p.add_argument("--option", action="append", metavar="NAME=VALUE", help="set an option (repeatable)")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.add_argument("--jsonl", action="store_true", help="read JSON outcomes from stdin, one per line")
    p.set_defaults(run=cmd_settle)

    p = sub.add_parser("simulate", help="play many hands with bots and summarize them")
    p.add_argument("--hands", type=A.int_in(0, MAX_HANDS), default=100, help="how many hands (default 100)")
    p.add_argument("--seed", default="0", type=A.text_of(MAX_SEED),
                   help="the game seed: hand i is played from (seed, i) (default 0); ASCII digits name an integer")
    p.add_argument("--players", default="value,value,value,value",
                   help="the players of seats 0-3: random or value (default value,value,value,value)")
    p.add_argument("--jobs", type=A.int_in(1, MAX_JOBS), default=1, help="worker processes (the results do not depend on it)")
    p.add_argument("--bot", action="append", metavar="SEAT=COMMAND",
                   help="seat 0-3 played by a program in any language, started by COMMAND (split as a shell would, "
                        "run without one): it reads one JSON ask per line and answers {\"choice\": i} (docs/use/bots.md; "
                        "schemas/bot-ask.schema.json); repeatable")
    p.add_argument("--bot-timeout", type=A.seconds(0, MAX_BOT_TIMEOUT), default=10.0, metavar="SECONDS",
                   help="how long a bot may take over one answer (default 10)")
    p.add_argument("--rotate", action="store_true",
                   help="one game: the deal passes as the rules' rotation says (hand i+1 is dealt by hand i's next "
                        "dealer), hand after hand in one process; default: the deal passes seat to seat, hand by hand, from the seed's first dealer (drawn at random)")
    p.add_argument("--record", metavar="FILE.jsonl", type=A.output_file,
                   help="write one record per hand (see schemas/record.schema.json); never over an existing file "
                        "(unless --force) nor over one of the run's inputs")
    p.add_argument("--force", action="store_true", help="let --record write over an existing file")
    p.add_argument("--resume", metavar="FILE.jsonl", type=A.input_file,
                   help="go on with a stopped run recorded in FILE (the same command otherwise): its complete hands "
                        "are kept and the run goes on after them, in FILE (or into --record); the file is the "
                        "one an unstopped run writes")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="local processes, or Ray tasks on a Ray cluster (the cluster extra: pip install -e \".[cluster]\"): the same hands")
    p.add_argument("--address", help="the Ray cluster's address (default: start a local one)")
    p.add_argument("--rules", type=A.input_file, help="rule file (default: the built-in rules/tianjin.yaml)")
    p.add_argument("--profile", help="a profile of the rule file")
    p.add_argument("--option", action="append", metavar="NAME=VALUE", help="set an option (repeatable)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=cmd_simulate)

    p = sub.add_parser("impact", help="what rule variants do to the game: duplicate play against a base, "
                                      "paired 95 %% intervals, an HTML/Markdown/JSON report")
    from .impact.command import add_arguments as impact_arguments
    impact_arguments(p)
    p.set_defaults(run=cmd_impact)

    p = sub.add_parser("replay", help="play recorded hands again and check every action and result")
    p.add_argument("file", type=A.input_file_or_stdin, help="a record file (JSONL) from simulate --record, or - for stdin")
    p.add_argument("--hand", type=A.int_in(0, MAX_HANDS), help="only the hand with this number")
    p.add_argument("--show", action="store_true", help="print each hand turn by turn")
    p.add_argument("--rules", type=A.input_file, help="rule file (default: the built-in rules/tianjin.yaml)")
    p.set_defaults(run=cmd_replay)
    p = sub.add_parser("serve", help="serve the rules over HTTP: POST /score, /score/batch, /waits, /explain, "
                                     "/settle; GET /rules, /health, /openapi.json")
    p.add_argument("--rules", type=A.input_file, help="rule file (default: the built-in rules/tianjin.yaml)")
    p.add_argument("--profile", help="the profile in force (a request may name its own)")
    p.add_argument("--option", action="append", metavar="NAME=VALUE", help="set an option (repeatable)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    from .guard import limits as guard_limits  # the standard library only: no server imported here
    p.add_argument("--port", type=A.int_in(1, 65535), default=8000, help="port (default 8000; 1–65535)")
    p.add_argument("--workers", type=A.int_in(1, 64), default=1,
                   help="worker processes (default 1; 1–64)")
    p.add_argument("--cors-origin", action="append", metavar="ORIGIN", type=guard_limits.origin,
                   help="let browser pages from this origin call the service, e.g. https://example.org or * "
                        "(repeatable; default: none: a request from another origin's page is refused)")
    p.add_argument("--max-body", type=A.int_in(1, 1 << 30), default=guard_limits.Limits.max_body, metavar="BYTES",
                   help=f"largest request body (default {guard_limits.Limits.max_body}; at most 1 GiB); a larger one gets 413")
    p.add_argument("--max-batch", type=A.int_in(1, 1_000_000), default=10_000, metavar="N",
                   help="most requests in one POST /score/batch (default 10000; at most 1,000,000)")
    guard_limits.add_arguments(p)
    p.add_argument("--log-level", default="warning", choices=("critical", "error", "warning", "info", "debug"),
                   help="uvicorn's log level (default warning)")
    _table_args(p, serve=True)
    p.set_defaults(run=cmd_serve)
    p = sub.add_parser("play", help="play in the browser: a table server on this machine, you and three bots")
    p.add_argument("--rules", type=A.input_file, help="rule file (default: the built-in rules/tianjin.yaml)")
    p.add_argument("--profile", help="the profile played (default: the rules' default)")
    p.add_argument("--port", type=A.int_in(0, 65535), default=0, help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="print the link only")
    p.add_argument("--hands", type=A.int_in(0, 64), default=8, help="hands in the game (default 8; 0: until stopped)")
    p.add_argument("--time-limit", type=A.number_in(1, 600, " seconds"), default=600.0, metavar="SECONDS",
                   help="time for each of your answers before the default action is taken (default 600)")
    _table_args(p, serve=False)
    p.set_defaults(run=cmd_play)
    for name, sp in sub.choices.items():
        if name in EXAMPLES:
            sp.formatter_class = argparse.RawDescriptionHelpFormatter
            sp.epilog = "example:\n  " + EXAMPLES[name]
    return ap


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # tile names and messages are Chinese: always UTF-8
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:  # `tjmj` alone: what there is to do, not `required: cmd`
        print(parser.format_help() + "\nfirst steps:\n  " + EXAMPLES["score"].split("\n")[0] + "\n  tjmj check --strict"
              "\n  tjmj COMMAND --help   (each ends with examples)", file=sys.stderr)
        return 2
    from .interrupt import ended_by, install
    restore = install()  # SIGTERM and SIGHUP end a command as Ctrl-C does
    try:
        return int(args.run(args))
    except RuleError as e:
        print(e.render(), file=sys.stderr)
        print(f"{len(e.diagnostics)} error(s)", file=sys.stderr)
        return EXIT_FAIL
    except FileNotFoundError as e:
        print(f"tjmj: error: {e.strerror}: {e.filename}", file=sys.stderr)
        return EXIT_FAIL
    except GameRulesError as e:  # a table rule file the engine cannot play (serve --tables, play)
        print(f"tjmj: error: {e}", file=sys.stderr)
        return EXIT_FAIL
    except BrokenPipeError:  # e.g. piped into head: the reader has all it wanted
        from .engine.runtime import _quiet_stdout
        _quiet_stdout()
        return EXIT_OK
    except OSError as e:  # e.g. the output cannot be written (stdout on a full disk): one line, not a traceback
        import errno
        from .engine.runtime import _quiet_stdout
        # no space is an error of writing only: with no file named, the output's (the files a command writes
        # are named by its own handlers); another error without a file (EIO reading stdin) is said as it is
        output = e.filename is None and e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
        if output:
            _quiet_stdout()  # what is left in its buffer is not written again at exit
        try:
            where = f" ({e.filename})" if e.filename else " (the output)" if output else ""
            print(f"tjmj: error: {e.strerror or e}{where}", file=sys.stderr)
        except (OSError, ValueError, AttributeError):  # stderr cannot take it either: the exit status says it
            pass
        return EXIT_FAIL
    except KeyboardInterrupt as e:
        code, words = ended_by(e)
        print(f"tjmj: {words}", file=sys.stderr)
        return code
    finally:
        restore()


if __name__ == "__main__":
    sys.exit(main())
