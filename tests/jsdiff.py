"""Random request lines for the differential test of the two generated
scorers (tests/test_js.py, and the long campaign benchmarks/js_differential.py):
winning shapes with 0-7 huns, declared melds, kong draws, flags, options and
profiles, random tiles, waits requests, and malformed lines of every kind.
Each line is bytes (some are not UTF-8 on purpose)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from tests.handgen import random_shape
from tjmj_dsl.engine.hand import hun_kinds_of
from tjmj_dsl.tiles import NAMES, chinese, format_tiles

CYCLES = ((27, 28, 29, 30), (31, 32, 33))
FLAGS = ("tianhu", "dihu", "tianting")
WEIRD = [None, True, False, 0, 1, -1, 1.0, 2.5, 1e16, 10**20, "", "x", "5m", "五万", [], ["5m"], {}, {"a": 1}, {"2": 1, "b": 2},
         "\u00e9", "\U0001F600", "a\nb", "'", '"', "\\", float("nan") if False else 0.1]


def winning_request(rng: random.Random, huns: int) -> dict[str, Any]:
    """A hand shaped to win (most of the time), with `huns` hun tiles among its concealed tiles."""
    indicator = rng.randrange(34)
    hk = hun_kinds_of(indicator, 2, CYCLES)
    groups = random_shape(rng)
    n_declared = rng.choice([0, 0, 0, 0, 1, 1, 2, 3])
    melds = []
    kinds = []
    for g in groups[:n_declared]:
        if g[0] == g[1] and rng.random() < 0.7:
            typ = rng.choice(["pung", "kong", "concealed_kong"])
            melds.append({"type": typ, "tile": NAMES[g[0]]})
        else:
            k = rng.choice(hk) if rng.random() < 0.2 else rng.randrange(34)
            typ = rng.choice(["kong", "concealed_kong"])
            melds.append({"type": typ, "tile": NAMES[k]})
        kinds.append("hun" if parse_kind(melds[-1]["tile"]) in hk else melds[-1]["type"])
    tiles = [t for g in groups[len(melds):] for t in g]
    for i in rng.sample(range(len(tiles)), min(huns, len(tiles))):
        tiles[i] = rng.choice(hk)
    if rng.random() < 0.1:  # now and then a hand that need not win
        tiles[rng.randrange(len(tiles))] = rng.randrange(34)
    t = tiles.pop(rng.randrange(len(tiles)))
    rng.shuffle(tiles)
    req: dict[str, Any] = {"id": rng.randrange(10**6), "concealed": format_tiles(tiles if rng.random() < 0.3 else sorted(tiles)),
                           "draw": NAMES[t], "indicator": NAMES[indicator]}
    if melds or rng.random() < 0.3:
        req["melds"] = melds
    drawn = [k for k in kinds if k != "pung"]
    if drawn and rng.random() < 0.5:
        req["kong_draw"] = {"kong": "exposed", "concealed_kong": "concealed", "hun": "hun"}[rng.choice(drawn)]
    elif rng.random() < 0.03:
        req["kong_draw"] = rng.choice(["exposed", "concealed", "hun", None])
    if rng.random() < 0.12:
        req[rng.choice(FLAGS)] = rng.choice([True, True, False, None])
    if rng.random() < 0.04:
        req["tianhu"] = req["dihu"] = True
    return req


def parse_kind(name: str) -> int:
    return NAMES.index(name)


def _chinese_tiles(tiles: str) -> str:
    from tjmj_dsl.tiles import parse_tiles
    return "".join(chinese(k) if k >= 27 else f"{k % 9 + 1}{'万饼条'[k // 9]}" for k in parse_tiles(tiles))


def _full_width(tiles: str, rng: random.Random) -> str:
    """Some characters of the notation as an IME writes them (３４５ｍ)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" and rng.random() < 0.6 else c for c in tiles)


def mutate(rng: random.Random, req: dict[str, Any], profiles: list[str], options: dict[str, list[Any]]) -> dict[str, Any]:
    """One change a client might make, right or wrong."""
    r = dict(req)
    what = rng.randrange(22)
    if what == 0:
        r.pop(rng.choice(["concealed", "indicator", "draw"]), None)
    elif what == 1:
        r[rng.choice(["concealed", "draw", "indicator", "kong_draw", "melds", "tianhu", "id"])] = rng.choice(WEIRD)
    elif what == 2:
        r[rng.choice(["tianhuu", "draws", "meld", "Indicator", "x", "", "options2", "2"])] = 1
    elif what == 3:
        roll = rng.random()
        r["concealed"] = (_chinese_tiles(r["concealed"]) if roll < 0.4 else " ".join(r["concealed"]) if roll < 0.7
                          else _full_width(r["concealed"], rng))
    elif what == 4:  # a bad character somewhere in the tiles
        s = r["concealed"]
        i = rng.randrange(len(s) + 1)
        r["concealed"] = s[:i] + rng.choice(["0", "x", "9z", "8z", "z", "1", "5", " ", ",", "东", "五", "伍", "十", "\u00e9",
                                             "\U0001F600", "m", "[", "+"]) + s[i:]
    elif what == 5:
        r["melds"] = rng.choice([[{"type": "pung"}], [{"type": "chow", "tile": "5m"}], [{"type": "kong", "tile": "5m5m"}],
                                 [{"type": "pung", "tile": "5m", "x": 1}], ["5m"], {"type": "pung"}, "pung",
                                 [{"type": "kong", "tile": "E"}] * 5, [{"type": 1, "tile": 2}]])
    elif what == 6:
        r["profile"] = rng.choice(profiles + ["nope", None, 1, ""])
    elif what == 7:
        k = rng.choice(list(options) + ["nope"])
        r["options"] = {k: rng.choice(options.get(k, [1]) + ["x", True, 1.0, 2.0, "2.0", "True", "true", 10**30, [2], {},
                                                            None, "x" * 100])}
    elif what == 8:
        r["options"] = rng.choice([[], "x", None, {}, {"min_fan": 2, "nope": 1}])
    elif what == 9:
        r["concealed"] = r["concealed"] + rng.choice(["5m", "E", "1m1m"])
    elif what == 10:
        r["concealed"] = r["concealed"][: max(0, len(r["concealed"]) - rng.randint(1, 3))]
    elif what == 11:
        r["draw"] = rng.choice(["55m", "", "0m", "东风", "7z", "8z", "1z"])
    elif what == 12:
        r["indicator"] = rng.choice(["5m5m", "z", "白板", "P", "3z"])
    elif what == 13:
        r.pop("draw", None)  # a waits request
    elif what == 14:
        r["id"] = rng.choice(WEIRD)
    else:
        pass  # unchanged
    return r


def malformed(rng: random.Random, good: str) -> bytes:
    """A line that is not a request object: broken JSON, other JSON values, bad bytes."""
    what = rng.randrange(16)
    if what == 0:
        return good[: rng.randrange(len(good))].encode()
    if what == 14:  # nested around the limit (64), in the id or as the whole line
        n = rng.choice([3, 63, 64, 65, 200, 3000])
        return rng.choice([good.replace('"id": ', '"id": ' + "[" * n + "]" * n + ', "x": ', 1),
                           "[" * n + "]" * n, "{\"a\": " * n + "1" + "}" * n, "[" * n]).encode()
    if what == 15:  # around the line limit (65,536 bytes)
        return good.encode() + b" " * rng.choice([65_536 - len(good.encode()), 65_537 - len(good.encode()), 200_000])
    if what == 1:
        i = rng.randrange(len(good))
        return (good[:i] + rng.choice(['"', "{", "}", ",", ":", "\\", "\x01", "]", " x", "\\u12", "\\ud800"]) + good[i:]).encode()
    if what == 2:
        return rng.choice([b"not json", b"null", b"1", b"[]", b"[1, 2]", b'"score"', b"true", b"{}", b"NaN", b"-Infinity",
                           b"1e400", b"{\"a\": 1}{", b"   ", b"", b"\t\t"])
    if what == 3:
        return b"\xef\xbb\xbf" + good.encode()  # a byte order mark
    if what == 4:
        b = bytearray(good.encode())
        b.insert(rng.randrange(len(b) + 1), rng.choice([0xff, 0xc3, 0xed, 0x80, 0xe0]))
        return bytes(b)
    if what == 5:
        return good.replace(": ", ":").replace(", ", ",").encode()
    if what == 6:
        return ("  " + good + "  \u3000").encode()
    if what == 7:
        return good.encode() + b"\r"
    if what == 8:
        return json.dumps(json.loads(good), ensure_ascii=True).encode()
    if what == 9:
        return good.replace('"id": ', '"id": 1.5e300, "id": ', 1).encode()
    if what == 10:
        return b"[" + good.encode() + b"]"
    if what == 11:  # an id strict JSON cannot write back (both refuse the line the same way)
        return re.sub(r'"id": -?\d+', '"id": ' + rng.choice(["NaN", "Infinity", "-Infinity", "[NaN]", '{"a": -Infinity}']),
                      good, count=1).encode()
    if what == 12 and rng.random() < 0.1:  # nested far past any reader's stack
        return b"[" * 30000 + b"]" * 30000
    return good.encode()


def request_lines(seed: int, n: int, profiles: list[str], options: dict[str, list[Any]], max_huns: int = 7,
                  waits: float = 0.02) -> list[bytes]:
    """n random request lines (0-max_huns huns, melds, kong draws, flags, options, a share of
    waits requests, malformed lines)."""
    rng = random.Random(seed)
    out: list[bytes] = []
    for _ in range(n):
        huns = rng.choice([h for h in (0, 0, 0, 1, 2, 2, 3, 4, 5, 6, 7) if h <= max_huns])
        req = winning_request(rng, huns)
        roll = rng.random()
        if roll < 0.15:
            req = mutate(rng, req, profiles, options)
        elif roll < 0.15 + waits:
            req.pop("draw")
        elif roll < 0.2 + waits:
            tiles = [rng.randrange(34) for _ in range(13 - 3 * len(req.get("melds") or []))]
            req["concealed"] = format_tiles(tiles)
        line = json.dumps(req, ensure_ascii=False)
        if rng.random() < 0.08:
            out.append(malformed(rng, line))
        else:
            out.append(line.encode())
    return out


def waits_lines(seed: int, n: int) -> list[bytes]:
    """n waits requests: 13-tile hands one tile short of a winning shape (0-3 huns), some with melds."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        req = winning_request(rng, rng.choice([0, 0, 1, 1, 2, 3]))
        req.pop("draw")
        for f in FLAGS:
            req.pop(f, None)
        if rng.random() < 0.05:
            req["tianting"] = True
        out.append(json.dumps(req, ensure_ascii=False).encode())
    return out


def outcome_lines(seed: int, n: int) -> list[str]:
    """n settlement outcomes as JSON lines: mostly valid ones (drawn hands, wins, kongs
    won and not, 坐庄/拉庄, 铲, 相公), some with a field wrong."""
    rng = random.Random(seed)
    tiles = ["1m", "5p", "9s", "E", "C", "7p", "2s", "5m", "P", "8p"]
    out = []
    for _ in range(n):
        dealer = rng.randrange(4)
        winner = rng.choice([None, 0, 1, 2, 3])
        kongs = []
        for t in rng.sample(tiles, rng.choice([0, 0, 1, 2, 3, 4])):
            kongs.append({"seat": rng.randrange(4), "type": rng.choice(["exposed", "added", "concealed", "hun"]), "tile": t})
            if kongs[-1]["type"] == "exposed" and rng.random() < 0.7:  # the discarder; now and then its own seat or no seat
                k = kongs[-1]
                k["from"] = rng.choice([(k["seat"] + rng.randrange(1, 4)) % 4, None]) if rng.random() < 0.9 else \
                    rng.choice([k["seat"], 4, "1", True])
            elif len(out) % 19 == 7:  # now and then a discarder named for a kong of the maker's own tiles: refused
                kongs[-1]["from"] = (kongs[-1]["seat"] + 1) % 4  # (not drawn from rng: the stream stays the same)
        mine = [k for k in kongs if k["seat"] == winner]
        if mine and rng.random() < 0.5:
            mine[-1]["won"] = True
        elif kongs and rng.random() < 0.15:  # a kong that ended the hand: its maker's (else refused)
            k = rng.choice(mine or kongs)
            k["ended"], k["type"] = True, "hun"
            k.pop("from", None)  # four huns held: a kong of its maker's own tiles names no discarder
        o: dict[str, Any] = {"id": rng.randrange(1000), "dealer": dealer, "winner": winner}
        if rng.random() < 0.7:
            o["lazhuang"] = [0 if s == dealer else rng.choice([0, 0, 1, 2, 2, 3]) for s in range(4)]
        if rng.random() < 0.5:
            o["zuozhuang"] = rng.choice([True, False])
        if kongs or rng.random() < 0.2:
            o["kongs"] = kongs
        if rng.random() < 0.3:
            o["chan"] = rng.choice([True, False, None])
        if rng.random() < 0.3:  # the go-rounds: often followed (one tile four times), sometimes claimed or short
            rounds = []
            for kind in rng.sample(tiles, rng.choice([0, 1, 2, 2, 3])):
                same = rng.random() < 0.6
                rounds.append({"discards": [kind] * 4 if same else [kind, rng.choice(tiles), kind, kind]})
                if rng.random() < 0.2:
                    rounds[-1]["claimed"] = rng.choice([True, False, None])
            if rounds and rng.random() < 0.2:
                rounds[-1]["discards"] = rounds[-1]["discards"][:rng.randrange(1, 4)]
            o["rounds"] = rounds
        if rng.random() < 0.3:
            o["xianggong"] = sorted(rng.sample(range(4), rng.choice([0, 1, 2])))
        if winner is not None:
            o["total"] = rng.choice([0, 1, 2, 4, 28, 112, 300, 10**9])
        if rng.random() < 0.15:
            k = rng.choice(["dealer", "winner", "total", "lazhuang", "kongs", "chan", "xianggong", "zuozhuang", "dealr",
                            "options", "profile", "rounds", "round"])
            o[k] = rng.choice(WEIRD + [4, -1, [0, 0], [0, 0, 0, 0, 0], [{"seat": 0}], [{"seat": 0, "type": "x", "tile": "E"}],
                                       [{"seat": 5, "type": "hun", "tile": "E"}], [{"seat": 0, "type": "hun", "tile": "EE"}],
                                       [{"seat": 0, "type": "hun", "tile": "E", "won": 1}], [0, 0], [1, 1], 10**10,
                                       [{"discards": []}], [{"discards": ["5m"]}, {"discards": ["5m"] * 4}],
                                       [{"discards": ["5m", 5]}], [{"discards": "5m5m"}], [{"discard": ["5m"]}],
                                       [{"discards": ["5m5m"]}], [{"discards": ["5x"]}], [{"discards": ["S"], "claimed": 1}],
                                       [{"discards": ["S"] * 4}, {"discards": ["S"]}], [{"discards": ["S"] * 5}],
                                       [{"discards": ["S"] * 4}] * 35, [{}], ["S"]])
        if rng.random() < 0.03:
            o = rng.choice([[], "x", None, 1])  # type: ignore[assignment]
        out.append(json.dumps(o, ensure_ascii=False))
    return out
