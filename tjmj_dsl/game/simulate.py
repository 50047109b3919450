"""Many hands: hand i of seed S is played from (S, i) alone, in chunks spread
over worker processes and gathered in order, so the summary and the record
file are the same for any number of jobs. Seats keep their players; the deal
passes seat to seat (hand i is dealt by seat (d + i) % 4, d the seed's first
dealer, drawn at random), or, with `rotate`, as the
rules' rotation says (hand i+1 is dealt by hand i's next dealer: one game,
played hand after hand in one process)."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator

from ..api import Scorer
from ..engine.runtime import dumps_answer
from .bot import DEFAULT_TIMEOUT, ProcessPlayer, close_all, finish_all, kill_all, running
from .facts import GameFacts
from .players import make_player
from .rules import GameRules, game_rules
from .runstats import RunStats
from .session import play, record
from .ship import Files, bundle_sha, ray_connected, ray_in_order, rule_files, written

CHUNK = 25


@dataclass(frozen=True)
class Spec:
    """What a worker needs to build the same rules and players."""

    rules: str | None
    profile: str | None
    options: tuple[tuple[str, Any], ...]
    players: tuple[str, ...]
    seed: int | str
    record: bool
    rotate: bool = False  # the deal passes by the rules' rotation (settlement.rotations), not seat to seat
    bots: tuple[tuple[int, tuple[str, ...]], ...] = ()  # (seat, command): that seat played by a bot process (game/bot.py)
    bot_timeout: float = DEFAULT_TIMEOUT  # seconds a bot may take over one answer


_RULES: dict[Spec, GameRules] = {}


def _rules(spec: Spec) -> GameRules:
    got = _RULES.get(spec)
    if got is None:
        got = _RULES[spec] = game_rules(Scorer(spec.rules, spec.profile, dict(spec.options) or None))
    return got


def hand_summary(rules: GameRules, spec: Spec, i: int, dealer: int | None = None,
                 game: GameFacts | None = None) -> tuple[dict[str, Any], str | None]:
    """Play hand i (dealt by `dealer`, or by turns; `game`: the game before it, None for a hand played
    alone): its summary (small, for the statistics) and its record line (when recording)."""
    bots = dict(spec.bots)  # a bot's seat: the same bot process for the hands of a chunk
    players = [ProcessPlayer(running(s, bots[s], spec.bot_timeout), i) if s in bots else make_player(p)
               for s, p in enumerate(spec.players)]
    res = play(rules, spec.seed, i, players, dealer, game)
    st = res.settlement or {}
    won_turn = None
    if res.winner is not None:
        won_turn = sum(1 for e in res.events if e[0] == res.winner and e[1] == "draw")
    c = res.claim
    summ = {
        "winner": res.winner, "dealer": res.dealer, "fan": c.fan if c else None, "total": c.total if c else 0,
        "patterns": list(c.patterns) if c else [], "gangkai": any(k[3] for k in res.kongs), "chan": res.chan,
        "balances": st.get("balances", [0, 0, 0, 0]), "turn": won_turn, "kongs": len(res.kongs),
        "next_dealer": st.get("next_dealer"), "zuozhuang": res.zuozhuang, "lazhuang": list(res.lazhuang),
    }
    line = None
    if spec.record:
        # written as an answer line is (dumps_answer): one line to every reader, a rule file's names with
        # U+2028 and the like included
        line = dumps_answer(record(rules, spec.seed, i, res, list(spec.players), dealer is not None))
    return summ, line


def _chunk(args: tuple[Spec, int, int]) -> list[tuple[dict[str, Any], str | None]]:
    spec, a, b = args
    rules = _rules(spec)
    try:
        part = [hand_summary(rules, spec, i) for i in range(a, b)]
    except BaseException:
        close_all()
        raise
    # a bot process plays one chunk (its asks counted from 1): what it answers, even a bot that
    # keeps state, is the same for any --jobs, and no worker leaves one running; one that wrote
    # a line more than it was asked for is said here
    finish_all()
    return part


def _worker_started(bots: bool, parent: int) -> None:
    """Ctrl-C reaches every process of the terminal's group: a worker leaves it to the parent,
    which ends the pool (a worker's KeyboardInterrupt printed its traceback, one per worker).
    A handler that does nothing, not SIG_IGN: a bot the worker starts gets SIGINT's default back
    (a handler is reset by exec, an ignored signal stays ignored).
    With bots, a worker ended by the pool (SIGTERM: another chunk failed, or the run was interrupted) kills
    its bots and leaves at once. Not by unwinding (sys.exit): a worker's exit then waits for its result queue
    to be flushed to a parent that no longer reads it, and the run hung."""
    signal.signal(signal.SIGINT, _parent_answers)
    if hasattr(signal, "SIGHUP"):  # a terminal's hang-up reaches the group: the parent answers it, as Ctrl-C
        signal.signal(signal.SIGHUP, _parent_answers)
    # the pool's own way to end a worker: at once (a worker forked from a parent that answers
    # SIGTERM by raising would print a traceback)
    signal.signal(signal.SIGTERM, _worker_ended if bots else signal.SIG_DFL)
    _end_with_parent(parent)


def _end_with_parent(parent: int) -> None:
    """On Linux, a worker is sent SIGTERM when the process that started it dies (the run SIGKILLed: its workers
    played their chunk on, their bots with them, then printed a BrokenPipeError each after the shell had
    returned). Elsewhere, or where prctl cannot be had, the workers end with their chunk."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent (the pool's maker) died before the request was made
        os.kill(os.getpid(), signal.SIGTERM)


def watched_imap(pool: Any, fn: Any, items: Any, every: float = 1.0) -> Iterator[Any]:
    """pool.imap(fn, items), in order, watching the workers: the pool replaces a worker that dies (killed: the
    out-of-memory killer, a bot that kills its parents) but its chunk is lost, and imap waited for it for ever.
    A worker gone is a RuntimeError (what the caller has taken so far is kept: a record resumes from it)."""
    workers = list(pool._pool)  # the pool's own processes: one it replaces keeps its exit code here
    it = pool.imap(fn, items)
    while True:
        try:
            yield it.next(timeout=every)
        except StopIteration:
            return
        except mp.TimeoutError:
            code = next((w.exitcode for w in workers if w.exitcode is not None), None)
            if code is not None:
                how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
                raise RuntimeError(f"a worker process ended mid-run ({how}): the hands it was playing are lost; "
                                   "the run stops (a record holds every hand before them: --resume goes on)") from None


def worker_pool(jobs: int, bots: bool = False) -> Any:
    """A pool of `jobs` worker processes for chunks of hands (simulate's, impact's): forked where the
    system can, each set up by _worker_started, so that the pool's terminate() ends a worker at once
    even when the command answers SIGTERM by raising (interrupt.py: a forked worker inherits that
    handler, which runs only once the worker's wait for a task ends, and a terminate() waited for it
    for ever). End it with close() and join() when every chunk is played, with end_pool() when not."""
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    return ctx.Pool(jobs, initializer=_worker_started, initargs=(bots, os.getpid()))


def _parent_answers(*_: Any) -> None:
    """A worker's SIGINT: nothing (the parent ends the pool)."""


def _worker_ended(*_: Any) -> None:
    kill_all()
    os._exit(1)


def run(spec: Spec, hands: int, jobs: int = 1, start: int = 0,
        progress: Callable[[int, int], None] | None = None, out: Any = None,
        dealer: int | None = None, engine: str = "local", address: str | None = None,
        game: GameFacts | None = None, stats: RunStats | None = None) -> tuple[list[dict[str, Any]], float]:
    """Play hands start .. start+hands-1; write record lines to `out` in hand order (`dealer`:
    with rotate, the first one's dealer, the hand before's next dealer; None: by turns; `game`: with
    rotate, the game before the first one, the bets' expressions read it; None: the game's first hand;
    without rotate each hand is played alone, as a game's first).
    Returns the summaries in hand order and the seconds spent; with `stats`, the summaries are
    folded into it in hand order instead, and none is kept (the list returned is empty). engine
    "ray": the chunks are Ray tasks on the Ray cluster at `address` (None: a local one), the same hands."""
    _rules(spec)  # build (and check) the rules before any worker starts; forked workers inherit them
    chunks = [(spec, a, min(a + CHUNK, start + hands)) for a in range(start, start + hands, CHUNK)]
    t0 = time.perf_counter()
    summaries: list[dict[str, Any]] = []
    done = 0

    def take(part: list[tuple[dict[str, Any], str | None]]) -> None:
        nonlocal done
        for summ, line in part:
            if stats is None:
                summaries.append(summ)
            else:
                stats.add(summ)
            if out is not None and line is not None:
                out.write(line + "\n")
        done += len(part)
        if progress:
            progress(done, hands)

    if progress and hands:  # the bar's clock starts here: hands kept from before (a resume) are not in its rate
        progress(0, hands)
    try:
        if engine == "ray":
            _play_ray(spec, chunks, address, take)
        else:
            _play(spec, chunks, jobs, take, dealer, game)
    finally:
        close_all()  # the bots this process started (a worker's see their input end with it)
    return summaries, time.perf_counter() - t0


def _play(spec: Spec, chunks: list[tuple[Spec, int, int]], jobs: int,
          take: Callable[[list[tuple[dict[str, Any], str | None]]], None], dealer: int | None = None,
          game: GameFacts | None = None) -> None:
    if spec.rotate:  # one game: each hand's dealer is the last one's next dealer, so hand after hand
        rules = _rules(spec)
        game = GameFacts() if game is None else game  # the game so far: the bets' expressions read it
        for _, a, b in chunks:
            part = []
            try:
                for i in range(a, b):
                    summ, line = hand_summary(rules, spec, i, dealer, game)
                    dealer = summ["next_dealer"]
                    game = game.after(summ["dealer"], summ["zuozhuang"], summ["lazhuang"], summ["winner"],
                                      summ["balances"])
                    part.append((summ, line))
            except BaseException:
                close_all()
                raise
            finish_all()  # a bot process plays one chunk, as without --rotate
            take(part)
    elif jobs <= 1 or len(chunks) <= 1:
        for c in chunks:
            take(_chunk(c))
    else:
        pool = worker_pool(jobs, bool(spec.bots))
        try:
            for part in watched_imap(pool, _chunk, chunks):
                take(part)
        except BaseException:
            end_pool(pool)
            raise
        # every chunk played: the workers leave by the pool's own word (no signal, see end_pool)
        pool.close()
        pool.join()


def _ray_chunk(files: Files, top: str, sha256: str, spec: Spec, a: int, b: int
               ) -> list[tuple[dict[str, Any], str | None]]:
    """A chunk played by a Ray worker: the rules written from their text and compiled here (once a
    worker: the spec stands for them in the rules' cache under a name of their text)."""
    local = replace(spec, rules=f"<shipped {bundle_sha(files)}>")
    if local not in _RULES:
        with written(files, top) as path:
            _RULES[local] = game_rules(Scorer(path, spec.profile, dict(spec.options) or None))
    got = _rules(local).sha256
    if got != sha256:
        raise RuntimeError(f"the rules compiled on this worker have sha256 {got}, not {sha256}")
    return _chunk((local, a, b))


def _play_ray(spec: Spec, chunks: list[tuple[Spec, int, int]], address: str | None,
              take: Callable[[list[tuple[dict[str, Any], str | None]]], None]) -> None:
    """The chunks as Ray tasks (the rules' text sent once, each worker compiles it); taken in hand order."""
    if spec.bots or spec.rotate:
        raise ValueError("--engine ray plays neither bots (processes of this machine) nor --rotate (one game)")
    ray = ray_connected(address)
    files, top = rule_files(spec.rules)
    sha = _rules(spec).sha256
    text = ray.put(files)  # the rules' text in the object store once, not with every task
    for part in ray_in_order(ray, _ray_chunk, ((text, top, sha, spec, a, b) for _, a, b in chunks)):
        take(part)


def end_pool(pool: Any, grace: float = 5.0) -> None:
    """End a pool whose run failed: pool.terminate(), and a worker still alive after `grace`
    seconds killed outright. A worker's SIGTERM handler (_worker_started) runs at the worker's
    next Python step: one landing just as the worker blocks on the pool's task queue is acted on
    only when that wait ends, which terminate's wait for it never lets happen. Such a worker is
    between chunks, its bots already closed (_chunk), so killing it leaves none running.
    A worker killed at any point (a SIGTERM sent to the whole process group, as a terminal or
    `kill -TERM -PGID` does, ends each worker where it stands) may die holding the lock of the
    task queue (an idle worker waits for a task holding it) or of the result queue; terminate()
    then waits for that lock for ever. Once every worker is dead, a lock still held is a dead
    worker's: it is released, and terminate() goes on (waited for 10 s at most in all)."""
    ender = threading.Thread(target=pool.terminate, name="tjmj pool end", daemon=True)
    ender.start()
    ender.join(grace)
    if not ender.is_alive():
        return
    for p in mp.active_children():
        p.kill()
    for _ in range(100):
        for p in mp.active_children():  # a worker the pool started meanwhile (it replaces the dead ones)
            p.kill()
        for lock in (getattr(pool._inqueue, "_rlock", None), getattr(pool._outqueue, "_wlock", None)):  # noqa: SLF001
            _free(lock)
        ender.join(0.1)
        if not ender.is_alive():
            return
    # still stuck (a result half written by a worker killed mid-write keeps the pool's reader
    # waiting): every worker is dead and the run is ending, so the pool's threads (daemons) are
    # left to end with the process rather than waited for


def _free(lock: Any) -> None:
    """Release a lock only a dead worker can hold (every worker killed)."""
    if lock is None:
        return
    try:
        lock.acquire(False)  # taken if it was free, so the release below leaves it as it was
        lock.release()  # else it was held by the dead: released
    except (ValueError, OSError, AssertionError):
        pass


def summarize(spec: Spec, summaries: Any, rules: GameRules) -> dict[str, Any]:
    """The statistics of a run (no timing: the same for the same seed and options), from its hands'
    summaries in hand order or from the RunStats they were folded into."""
    if isinstance(summaries, RunStats):
        t = summaries
    else:
        t = RunStats()
        for s in summaries:
            t.add(s)
    n, wins = t.hands, t.wins
    names = dict((p.id, p.name) for p in rules.scorer.ruleset.patterns)
    pats = t.patterns

    def rate(k: int, of: int) -> float:
        return round(k / of, 4) if of else 0.0

    return {
        "hands": n, "seed": spec.seed, "players": list(spec.players),
        "rules": {"name": rules.name, "profile": rules.profile, "sha256": rules.sha256,
                  "options": dict(spec.options)},
        "wins": wins, "win_rate": rate(wins, n),
        "drawn": n - wins, "drawn_rate": rate(n - wins, n),
        "gangkai": t.gangkai, "gangkai_rate": rate(t.gangkai, n),
        "chan": t.chan, "chan_rate": rate(t.chan, n),
        "mean_winning_turn": round(t.turn_sum / wins, 2) if wins else None,
        "mean_fan": round(t.fan_sum / t.scored, 2) if t.scored else None,
        "fan_distribution": {str(k): t.fan[k] for k in sorted(t.fan)},
        "patterns": {p: {"name": names.get(p, p), "wins": pats[p], "rate": rate(pats[p], wins)}
                     for p in sorted(pats, key=lambda x: (-pats[x], x))},
        "seat_wins": list(t.seat_wins), "seat_win_rate": [rate(w, n) for w in t.seat_wins],
        "balance": list(t.seat_balance), "mean_balance": [round(b / n, 3) if n else 0.0 for b in t.seat_balance],
        "mean_dealer_balance": round(t.dealer_balance / n, 3) if n else 0.0,
        "deal": "rotation" if spec.rotate else "turns",
        "dealer_kept": t.dealer_kept,
    }


def render(stats: dict[str, Any]) -> str:
    """The summary for people (no timing lines: those are printed apart)."""
    n = stats["hands"]
    pct = lambda r: f"{100 * r:.1f}%"  # noqa: E731
    r = stats["rules"]
    lines = [
        f"{n} hands, seed {stats['seed']}, rules {r['name']} profile {r['profile']}"
        + (f" options {' '.join(f'{k}={v}' for k, v in r['options'].items())}" if r["options"] else ""),
        f"players by seat: {', '.join(f'{i} {p}' for i, p in enumerate(stats['players']))} "
        + ("(the deal passes by the rules' rotation: the dealer kept it "
           f"{stats['dealer_kept']} of {max(n - 1, 0)} times)" if stats["deal"] == "rotation" else "(the deal passes seat to seat, from a first dealer drawn by the seed)"),
        f"wins {stats['wins']} ({pct(stats['win_rate'])}), drawn (huangzhuang) {stats['drawn']} ({pct(stats['drawn_rate'])})",
        f"gangkai {stats['gangkai']} ({pct(stats['gangkai_rate'])} of hands), chan {stats['chan']} ({pct(stats['chan_rate'])})",
    ]
    if stats["wins"]:
        lines.append(f"average winning turn {stats['mean_winning_turn']} (the winner's own draws, replacements included)")
        lines.append(f"fan: mean {stats['mean_fan']}; " + ", ".join(
            f"{k}: {v} ({pct(v / stats['wins'])})" for k, v in stats["fan_distribution"].items()))
        lines.append("patterns among wins: " + ", ".join(
            f"{v['name']}({p}) {pct(v['rate'])}" for p, v in stats["patterns"].items()))
    lines.append("wins by seat: " + ", ".join(f"{i}: {w} ({pct(stats['seat_win_rate'][i])})"
                                             for i, w in enumerate(stats["seat_wins"])))
    lines.append("mean balance by seat: " + ", ".join(f"{i}: {b:+.3f}" for i, b in enumerate(stats["mean_balance"]))
                 + f"; the dealer: {stats['mean_dealer_balance']:+.3f}")
    return "\n".join(lines)


