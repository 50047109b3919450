"""A run's record file (`tjmj simulate --record`, `--resume`): what it may be written over, how
its lines are written, and how a stopped run goes on from it.

- Never over an existing file unless asked (`--force`), created exclusively (O_EXCL) otherwise,
  so a file made meanwhile is not written over either; never over one of the run's own inputs
  (the rule file and the files it extends, a bot's program and the files its command names, the
  record resumed from), compared by device and inode (a link, a `..` or a symlink is the same
  file), --force or not. A device or pipe (/dev/stdout) holds nothing to write over.
- Each hand's line is written whole: one os.write loop that no Ctrl-C, SIGTERM or SIGHUP cuts
  short (interrupt.holding), so a stopped run leaves complete lines; a run killed outright
  (SIGKILL, power) may leave a last line cut, which --resume drops.
- `--resume FILE`: the file's complete lines must be this run's hands 0, 1, 2, … (the same
  format, rules — name, sha256, profile, every option —, seed, players and deal), the last one
  played again and compared byte for byte (without bots); the run goes on after them, and the
  file is the one an unstopped run writes. With bots it goes on from the first hand of the last
  chunk begun (a bot process plays chunks of 25 hands, its asks counted from 1: a bot that keeps
  state answers as in the unstopped run).
"""

from __future__ import annotations

import os
import shutil
import stat
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..engine.runtime import loads_request
from ..interrupt import holding
from .record import FORMAT, MAX_RECORD
from .facts import GameFacts
from .rules import GameRules
from .runstats import RunStats


class RunFileError(ValueError):
    """The record file cannot be written, or resumed from: the message says why."""


def _ident(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def inputs_of(rule_paths: Iterable[str], bots: Iterable[tuple[str, ...]],
              others: Iterable[str] = ()) -> dict[tuple[int, int], str]:
    """The files a run reads, by (device, inode): its rule files, each bot's program (found on
    PATH as the bot is) and every argument of its command that names a file, and `others`."""
    found: dict[tuple[int, int], str] = {}

    def add(path: str | None, what: str) -> None:
        if path and os.path.isfile(path):
            ident = _ident(path)
            if ident is not None:
                found.setdefault(ident, what)

    for p in rule_paths:
        add(p, f"the rule file {p}")
    for argv in bots:
        add(shutil.which(argv[0]) or argv[0], f"the bot program {argv[0]}")
        for a in argv[1:]:
            add(a, f"the bot's file {a}")
            if "=" in a:  # --model=weights.bin
                add(a.split("=", 1)[1], f"the bot's file {a.split('=', 1)[1]}")
    for p in others:
        add(p, f"the record resumed from, {p}")
    return found


def check_target(path: str, inputs: dict[tuple[int, int], str], force: bool, resumed_in_place: bool = False) -> None:
    """RunFileError if `path` may not be written: one of the inputs, or an existing file without force."""
    ident = _ident(path)
    if ident is not None and ident in inputs:
        raise RunFileError(f"--record {path} is {inputs[ident]}: a run never writes over its own input")
    if resumed_in_place or ident is None:
        return
    mode = os.stat(path).st_mode
    if stat.S_ISREG(mode) and not force:
        raise RunFileError(f"--record {path} exists: --force writes over it, --resume {path} goes on with its run")


class RecordWriter:
    """Writes a run's record lines, each whole (see the module's docstring)."""

    def __init__(self, fd: int, path: str) -> None:
        self.fd = fd
        self.path = path
        self.lines = 0

    @classmethod
    def open(cls, path: str, force: bool, keep: int | None = None) -> "RecordWriter":
        """`path` opened to write: created exclusively, or (force) truncated; `keep`: the bytes of
        it kept (a run resumed in place), the rest cut off."""
        if keep is not None:
            fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
            try:
                os.ftruncate(fd, keep)
                os.lseek(fd, keep, os.SEEK_SET)
            except OSError:
                os.close(fd)
                raise
            return cls(fd, path)
        flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        exists = os.path.exists(path)
        if exists and not stat.S_ISREG(os.stat(path).st_mode):
            pass  # a device or pipe: written as it is
        elif force:
            flags |= os.O_TRUNC
        else:
            flags |= os.O_EXCL  # made meanwhile: not written over
        try:
            fd = os.open(path, flags, 0o644)
        except FileExistsError:
            raise RunFileError(f"--record {path} exists: --force writes over it, --resume {path} goes on with its run") from None
        return cls(fd, path)

    def write(self, text: str) -> int:
        data = memoryview(text.encode("utf-8"))
        with holding():  # counted inside: a signal held meanwhile is raised as the block ends, and the line
            # written must be counted by then (a run stopped so said one hand fewer than its file held)
            while data:
                n = os.write(self.fd, data)
                data = data[n:]
            self.lines += text.count("\n")
        return len(text)

    def copy(self, path: str, size: int, lines: int) -> None:
        """The first `size` bytes of `path` (`lines` whole lines, a resumed run's kept hands) written
        as they are, read a piece at a time (a long run's hands are not held in memory)."""
        with open(path, "rb") as f, holding():
            left = size
            while left:
                data = f.read(min(left, 1 << 20))
                if not data:
                    raise RunFileError(f"--resume {path} was cut short while its hands were copied")
                left -= len(data)
                view = memoryview(data)
                while view:
                    view = view[os.write(self.fd, view):]
            self.lines += lines

    def flush(self) -> None:
        pass  # every line is written as it comes

    def close(self) -> None:
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            os.close(fd)


@dataclass
class Kept:
    """What a stopped run's file holds that the run keeps."""

    hands: int = 0  # complete hands kept: the run goes on with hand `hands`
    found: int = 0  # complete hands the file holds
    offset: int = 0  # bytes of the kept lines
    dealer: int | None = None  # with --rotate: the next hand's dealer (the last kept hand's next_dealer)
    last: bytes = b""  # the last kept line, with its line break (played again to check the file is this run's)
    stats: RunStats = field(default_factory=RunStats)  # the kept hands' summaries, folded in
    game: GameFacts = field(default_factory=GameFacts)  # the game after the kept hands (--rotate: the next one's)
    game_before_last: GameFacts = field(default_factory=GameFacts)  # the game before the last kept hand
    last_dealt: int | None = None  # the last kept hand's dealer as the rotation gave it (the one before's next_dealer)
    next_dealer: int | None = None  # the last kept hand's next_dealer


def record_rules(rules: GameRules) -> dict[str, Any]:
    """A record's `rules`, as session.record writes them."""
    return {"name": rules.name, "sha256": rules.sha256, "profile": rules.profile,
            "options": {k: v for k, v in rules.options}}


def summary_of(rec: dict[str, Any]) -> dict[str, Any]:
    """A hand's summary (simulate.hand_summary's) from its record."""
    res = rec["result"]
    winner = res["winner"]
    sc = (res.get("score") or {}).get("result") or {} if winner is not None else {}
    return {  # a drawn hand, or a win a kong ended (no hand scored): no fan
        "winner": winner, "dealer": rec["dealer"], "fan": sc.get("fan"), "total": sc.get("total", 0),
        "patterns": list(sc.get("patterns", [])), "gangkai": any(k.get("won") for k in res["kongs"]),
        "chan": res["chan"], "balances": list(res["balances"]),
        "turn": sum(1 for e in rec["events"] if e["seat"] == winner and e["type"] == "draw") if winner is not None else None,
        "kongs": len(res["kongs"]), "next_dealer": res["next_dealer"],
        "zuozhuang": rec["zuozhuang"], "lazhuang": list(rec["lazhuang"]),
    }


def read_kept(path: str, rules: GameRules, seed: int | str, players: list[str], rotate: bool, hands: int,
              chunk: int | None) -> Kept:
    """The complete hands of a stopped run's file, checked to be this run's (RunFileError if not);
    `chunk`: go on from the first hand of the last chunk of that many hands begun (bots)."""
    want_rules = record_rules(rules)
    kept = Kept()
    offset = 0
    # the last lines read with the bytes up to each one's end: the kept hands end at most a chunk back
    recent: deque[tuple[int, bytes]] = deque([(0, b"")], maxlen=(chunk or 1) + 1)
    pending: deque[dict[str, Any]] = deque()  # the summaries of those lines, not yet folded into kept
    with open(path, "rb") as f:
        while True:
            line = f.readline(MAX_RECORD + 1)
            if not line:
                break
            if not line.endswith(b"\n"):
                if len(line) > MAX_RECORD:
                    raise RunFileError(f"--resume {path}: line {kept.found + 1} is longer than {MAX_RECORD:,} bytes: not a record")
                break  # a last line cut short (a run killed outright): dropped, played again
            n = kept.found + 1
            try:
                text = line[:-1].decode("utf-8")
            except UnicodeDecodeError:
                raise RunFileError(f"--resume {path}: line {n} is not UTF-8: not a record of this run") from None
            rec, err = loads_request(text)
            if err is not None or not isinstance(rec, dict):
                raise RunFileError(f"--resume {path}: line {n} is not a record ({err['message'] if err else 'not an object'})")
            why = _differs(rec, want_rules, seed, players, rotate, kept.found)
            if why:
                raise RunFileError(f"--resume {path}: line {n} is not hand {kept.found} of this run: {why} "
                                   "(resume with the command that wrote it)")
            if kept.found >= hands:
                raise RunFileError(f"--resume {path} holds more than --hands {hands} hands")
            kept.found += 1
            offset += len(line)
            recent.append((offset, line))
            try:
                pending.append(summary_of(rec))
            except (KeyError, TypeError, AttributeError):
                raise RunFileError(f"--resume {path}: line {n}: its result is not a record's") from None
            if len(pending) > (chunk or 1):  # kept whatever follows: folded in and let go
                _fold(kept, pending.popleft())
    k = kept.found - kept.found % chunk if chunk else kept.found
    kept.hands = k
    kept.offset, kept.last = recent[k - kept.found - 1]
    for _ in range(k - kept.stats.hands):  # of the last lines, those of the hands kept
        _fold(kept, pending.popleft())
    if rotate and k:
        kept.dealer = kept.next_dealer
    return kept


def _fold(kept: Kept, summ: dict[str, Any]) -> None:
    """One more kept hand's summary, the next in hand order, into what the run keeps of the hands."""
    kept.last_dealt = kept.next_dealer if kept.stats.hands else None
    kept.next_dealer = summ["next_dealer"]
    kept.stats.add(summ)
    kept.game_before_last = kept.game
    kept.game = kept.game.after(summ["dealer"], summ["zuozhuang"], summ["lazhuang"], summ["winner"], summ["balances"])


def _differs(rec: dict[str, Any], rules: dict[str, Any], seed: int | str, players: list[str], rotate: bool,
             hand: int) -> str | None:
    if rec.get("format") != FORMAT:
        return f"format {rec.get('format')!r}, not {FORMAT}"
    if rec.get("hand") != hand or rec.get("hand").__class__ is not int:
        return f"hand {rec.get('hand')!r}"
    if rec.get("rules") != rules:
        raw = rec.get("rules")
        got: dict[str, Any] = raw if isinstance(raw, dict) else {}
        diff = [k for k in ("name", "sha256", "profile", "options") if got.get(k) != rules[k]]
        return "its rules differ (" + ", ".join(diff or ["rules"]) + ")"
    if rec.get("seed") != seed or rec.get("seed").__class__ is not seed.__class__:
        return f"seed {rec.get('seed')!r}, not {seed!r}"
    if rec.get("players") != players:
        return f"players {rec.get('players')!r}, not {players!r}"
    dealt = "rotation" if rotate and hand > 0 else None
    if rec.get("dealt_by") != dealt:
        return "dealt " + ("by rotation" if rec.get("dealt_by") else "by turns") + (", not by rotation (--rotate)" if rotate else ", without --rotate")
    return None


def same_line(line: str | None, kept: bytes) -> bool:
    return line is not None and (line + "\n").encode("utf-8") == kept

