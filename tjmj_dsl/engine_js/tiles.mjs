// The 34 tile kinds and their notation: a port of tjmj_dsl/tiles.py (the same
// reading, the same messages, positions counted in characters as Python does).
// A kind is an int 0..33: 万 1-9 are 0-8, 饼 9-17, 条 18-26, then the honors
// 东南西北中发白 27-33.

import { pyStrRepr } from "./pyjson.mjs";

export const SUITS = "mps";
export const HONOR_LETTERS = "ESWNCFP"; // 东 南 西 北 中 发 白, also 1z..7z
export const NUM_KINDS = 34;

const SUIT_ALIASES = { "万": "m", "萬": "m", "筒": "p", "饼": "p", "餅": "p", "条": "s", "條": "s", "索": "s" };
const CN_DIGITS = { "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "伍": 5, "六": 6, "七": 7, "八": 8, "九": 9 };
const HONOR_ALIASES = [ // longest first, as tiles.py tries them
  ["东风", 27], ["南风", 28], ["西风", 29], ["北风", 30], ["红中", 31], ["发财", 32], ["白板", 33],
  ["东", 27], ["南", 28], ["西", 29], ["北", 30], ["中", 31], ["发", 32], ["發", 32], ["白", 33],
];

// Python's str.isspace(): the characters it calls whitespace (not quite JavaScript's \s)
const PY_SPACE = new Set(["\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f", " ", "\x85", "\xa0",
  "\u1680", "\u2000", "\u2001", "\u2002", "\u2003", "\u2004", "\u2005", "\u2006", "\u2007", "\u2008", "\u2009",
  "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]);
export function isSpace(c) { return PY_SPACE.has(c); }

/** A tile or hand string that cannot be read; `pos` is the 0-based offset (in characters). */
export class TileError extends Error {
  constructor(message, text, pos, hint = "") {
    super(message);
    this.name = "TileError";
    this.text = text;
    this.pos = pos;
    this.hint = hint;
  }
}

export function kind(suit, rank) { return suit === "z" ? 27 + rank - 1 : SUITS.indexOf(suit) * 9 + rank - 1; }

export const SUIT_OF = [..."m".repeat(9) + "p".repeat(9) + "s".repeat(9) + "z".repeat(7)];
export const RANK_OF = [1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7];

/** Canonical notation: `5m`, `9s`, and the honor letters `E`..`P`. */
export function tileName(k) { return k >= 27 ? HONOR_LETTERS[k - 27] : `${k % 9 + 1}${SUITS[(k / 9) | 0]}`; }
export const NAMES = Array.from({ length: NUM_KINDS }, (_, k) => tileName(k));

const COMPACT_RE = /^(?:[1-9]+[mps]|[ESWNCFP])*$/; // e.g. 345m123sEEE77m45s
const COMPACT = new Map(); // compact text → kinds; bounded (tiles.py's limits)
const COMPACT_KEY = 64; // longest text kept
const COMPACT_SIZE = 20000; // entries before the cache starts over
const FULL_WIDTH_RE = /[\uff01-\uff5e]/g;

/** Full-width ASCII (an IME's ３４５ｍ) as ASCII: the same positions (tiles.FULL_WIDTH). */
export function halfWidth(text) {
  return text.replace(FULL_WIDTH_RE, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
}

/** Read a run of tiles: `345m123sEEE`, `1z`, `五万`, `7筒 9条 白板` (TileError when it cannot). */
export function parseTiles(text) {
  const fast = COMPACT.get(text);
  if (fast !== undefined) return fast.slice();
  if (COMPACT_RE.test(text)) { // the common compact form: one pass, no aliases
    const out = [];
    let run = [];
    for (const c of text) {
      if (c >= "1" && c <= "9") run.push(c.charCodeAt(0) - 48);
      else if (c === "m" || c === "p" || c === "s") {
        const base = 9 * "mps".indexOf(c) - 1;
        for (const r of run) out.push(base + r);
        run = [];
      } else out.push(27 + HONOR_LETTERS.indexOf(c));
    }
    if (text.length <= COMPACT_KEY) { // a hand is short; a long string is not kept
      if (COMPACT.size >= COMPACT_SIZE) COMPACT.clear();
      COMPACT.set(text, out.slice());
    }
    return out;
  }
  FULL_WIDTH_RE.lastIndex = 0;
  if (FULL_WIDTH_RE.test(text)) {
    text = halfWidth(text);
    if (COMPACT_RE.test(text)) return parseTiles(text);
  }
  return parseSlow([...text], text);
}

const isAsciiDigit = (c) => c !== undefined && c.length === 1 && c >= "0" && c <= "9";

function parseSlow(cs, text) {
  const out = [];
  const n = cs.length;
  let i = 0;
  while (i < n) {
    const c = cs[i];
    if (isSpace(c) || c === ",") { i += 1; continue; }
    let j = i;
    while (j < n && cs[j] >= "1" && cs[j] <= "9" && cs[j].length === 1) j += 1;
    if (j > i && j < n && "mpsz".includes(cs[j]) && cs[j].length === 1
        && !(cs[j] === "z" && cs.slice(i, j).some((d) => d === "8" || d === "9"))) {
      for (let q = i; q < j; q++) out.push(kind(cs[j], Number(cs[q])));
      i = j + 1;
      continue;
    }
    const h = HONOR_LETTERS.indexOf(c);
    if (h >= 0 && c.length === 1) { out.push(27 + h); i += 1; continue; }
    if (isAsciiDigit(c) || c in CN_DIGITS) {
      const r = isAsciiDigit(c) ? Number(c) : CN_DIGITS[c];
      if (i + 1 < n && cs[i + 1] in SUIT_ALIASES && r >= 1) {
        out.push(kind(SUIT_ALIASES[cs[i + 1]], r));
        i += 2;
        continue;
      }
      if (isAsciiDigit(c)) {
        let e = i;
        while (e < n && isAsciiDigit(cs[e])) e += 1;
        if (e < n && "mpsz".includes(cs[e]) && cs[e].length === 1) {
          let bad = i;
          while (!(cs[bad] === "0" || (cs[e] === "z" && (cs[bad] === "8" || cs[bad] === "9")))) bad += 1;
          if (cs[e] === "z") throw new TileError(`no honor tile ${cs[bad]}z`, text, bad, "honors are 1z..7z (东南西北中发白)");
          throw new TileError(`no tile ${cs[bad]}${cs[e]}`, text, bad, "ranks are 1 to 9");
        }
        if (e < n && !isSpace(cs[e])) {
          throw new TileError(`${pyStrRepr(cs[e])} is not a suit`, text, e,
            "after the digits write m (万), p (饼/筒), s (条) or z (honors 1z-7z)");
        }
        throw new TileError(`digit ${pyStrRepr(c)} has no suit after it`, text, i,
          "write the suit letter after the digits: 5m (万), 5p (饼/筒), 5s (条), 1z..7z (honors)");
      }
    }
    const rest = cs.slice(i, i + 2).join("");
    const alias = HONOR_ALIASES.find(([a]) => rest.startsWith(a));
    if (alias === undefined) {
      throw new TileError(`${pyStrRepr(c)} is not a tile`, text, i,
        "tiles are 1-9 with m/p/s (345m), honors E S W N C F P or 1z-7z, or Chinese (五万, 7筒, 白板)");
    }
    out.push(alias[1]);
    i += [...alias[0]].length;
  }
  return out;
}

/** Exactly one tile. */
export function parseTile(text) {
  const tiles = parseTiles(text);
  if (tiles.length !== 1) {
    throw new TileError(`expected one tile, found ${tiles.length}`, text, 0, "write one tile, e.g. 7p or E or 五万");
  }
  return tiles[0];
}

/** Compact notation, suits grouped in input order of first appearance: `345m123sEEE`. */
export function formatTiles(kinds) {
  const out = [];
  let runSuit = "";
  let run = [];
  for (const k of kinds) {
    const s = SUIT_OF[k];
    if (s === "z") {
      if (run.length) { out.push(run.join("") + runSuit); run = []; }
      out.push(HONOR_LETTERS[k - 27]);
      runSuit = "";
      continue;
    }
    if (s !== runSuit && run.length) { out.push(run.join("") + runSuit); run = []; }
    runSuit = s;
    run.push(String(RANK_OF[k]));
  }
  if (run.length) out.push(run.join("") + runSuit);
  return out.join("");
}
