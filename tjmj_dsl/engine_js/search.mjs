// Finding the best claim over every decomposition: the plain enumeration
// (for rules the mask search cannot follow) and the mask search. A port of
// engine/search.py, step for step: the same tables, visited in the same order,
// so that when several readings tie the same decomposition is shown.
//
// Witnesses (the groups of a reading) are built by concatenation, as Python's
// tuples are, but lazily: a witness is null (no group), a Group, or a Cat of two.

import { CHOW, PAIR, PUNG, Group, compareGroups, makeGroup, splitHuns, withSlot } from "./hand.mjs";

const DEC = new Map();
const CACHE_LIMIT = 400000;
// the parts of the tile set a natural group never leaves: one per suit, the honors
const PARTS = [[0, 9], [9, 18], [18, 27], [27, 34]];
const PART_OF = Array.from({ length: 34 }, (_, k) => (k < 27 ? (k / 9) | 0 : 3)); // kind → its part

class Cat {
  constructor(l, r) { this.l = l; this.r = r; this.cat = true; }
}
/** The witness a + b. */
function cat(a, b) { return a === null ? b : b === null ? a : new Cat(a, b); }
/** A witness as the list of its groups. */
export function groupsOf(w) {
  const out = [];
  if (w !== null) walkInto(w, out);
  return out;
}

function walkInto(x, out) {
  while (x.cat === true) { // a Cat (a Group's `cat` is false)
    walkInto(x.l, out);
    x = x.r;
  }
  out.push(x);
}

const countsKey = (counts) => counts.join(",");

function lowest(counts) {
  for (let k = 0; k < 34; k++) if (counts[k]) return k;
  return 34;
}

function less(counts, tiles) {
  const out = counts.slice();
  for (const x of tiles) out[x] -= 1;
  return out;
}

/** The groups that can hold one natural tile of kind k, the lowest natural
 * tile left: [group, natural kinds it uses, huns it uses, is pair]. */
function groupOptions(counts, k, wild, melds, pair, chow) {
  const out = [];
  const c = counts[k];
  const F = false, T = true;
  if (!wild) { // no hun left: only natural groups
    if (pair && c >= 2) out.push([makeGroup(PAIR, [k, k], [F, F]), [k, k], 0, true]);
    if (melds) {
      if (c >= 3) out.push([makeGroup(PUNG, [k, k, k], [F, F, F]), [k, k, k], 0, false]);
      if (chow && k < 27 && k % 9 <= 6 && counts[k + 1] && counts[k + 2]) {
        out.push([makeGroup(CHOW, [k, k + 1, k + 2], [F, F, F]), [k, k + 1, k + 2], 0, false]);
      }
    }
    return out;
  }
  if (pair) {
    if (c >= 2) out.push([makeGroup(PAIR, [k, k], [F, F]), [k, k], 0, true]);
    if (wild >= 1) out.push([makeGroup(PAIR, [k, k], [F, T]), [k], 1, true]);
  }
  if (melds) {
    for (const nat of [3, 2, 1]) {
      if (c >= nat && wild >= 3 - nat) {
        const hm = [F, F, F].map((_, i) => i >= nat);
        out.push([makeGroup(PUNG, [k, k, k], hm), new Array(nat).fill(k), 3 - nat, false]);
      }
    }
    if (chow && k < 27) {
      const r = k % 9;
      for (const a of [k - 2, k - 1, k]) {
        if (a < k - r || a + 2 > k - r + 8) continue;
        const options = [];
        for (const f of [a, a + 1, a + 2]) {
          if (f < k) options.push([[true, f]]);
          else if (f === k) options.push([[false, f]]);
          else if (counts[f] > 0) options.push([[false, f], [true, f]]);
          else options.push([[true, f]]);
        }
        for (const s0 of options[0]) {
          for (const s1 of options[1]) {
            for (const s2 of options[2]) {
              const need = s0[0] + s1[0] + s2[0];
              if (need > wild) continue;
              out.push([makeGroup(CHOW, [a, a + 1, a + 2], [s0[0], s1[0], s2[0]]),
                [s0, s1, s2].filter(([hf]) => !hf).map(([, f]) => f), need, false]);
            }
          }
        }
      }
    }
  }
  return out;
}

/** All ways to cover the natural tiles `counts` with `melds` melds and `pair`
 * pairs, `wild` hun tiles filling any slot; groups made only of huns stay
 * abstract: each result is [groups (sorted), wild melds, wild pairs]. Memoised. */
export function decompose(counts, wild, melds, pair, chow) {
  const key = `${countsKey(counts)}|${wild}|${melds}|${pair}|${chow ? 1 : 0}`;
  const got = DEC.get(key);
  if (got !== undefined) return got;
  const k = lowest(counts);
  const out = [];
  if (k === 34) {
    if (wild === 3 * melds + 2 * pair) out.push([[], melds, pair]);
    DEC.set(key, out);
    return out;
  }
  const seen = new Set();
  for (const [g, nat, huns, isPair] of groupOptions(counts, k, wild, melds, pair, chow)) {
    for (const [rest, wm, wp] of decompose(less(counts, nat), wild - huns, melds - (isPair ? 0 : 1),
      pair - (isPair ? 1 : 0), chow)) {
      const groups = [g, ...rest].sort(compareGroups);
      const id = `${groups.map((x) => x.key).join(";")}|${wm}|${wp}`;
      if (!seen.has(id)) {
        seen.add(id);
        out.push([groups, wm, wp]);
      }
    }
  }
  if (DEC.size > 200000) DEC.clear();
  DEC.set(key, out);
  return out;
}

const SHAPE = new Map();

/** Whether any decomposition exists (cheaper than listing them). */
export function hasShape(counts, wild, melds, pair, chow) {
  const key = `${countsKey(counts)}|${wild}|${melds}|${pair}|${chow ? 1 : 0}`;
  const got = SHAPE.get(key);
  if (got !== undefined) return got;
  const k = lowest(counts);
  let ok = false;
  if (k === 34) ok = wild === 3 * melds + 2 * pair;
  else {
    for (const [, nat, huns, isPair] of groupOptions(counts, k, wild, melds, pair, chow)) {
      if (hasShape(less(counts, nat), wild - huns, melds - (isPair ? 0 : 1), pair - (isPair ? 1 : 0), chow)) {
        ok = true;
        break;
      }
    }
  }
  if (SHAPE.size > 400000) SHAPE.clear();
  SHAPE.set(key, ok);
  return ok;
}

/** The ways a part of n natural tiles can take j of `wild` huns: [j, melds, pairs]. */
function budgets(n, wild) {
  const out = [];
  for (let j = 0; j <= Math.min(wild, 2 * n); j++) {
    const m = Math.floor((n + j) / 3), r = (n + j) % 3;
    if (r !== 1) out.push([j, m, r >> 1]);
  }
  return out;
}

const PART_SHAPE = new Map();

/** hasShape(counts, wild, melds, 1, chow), found part by part (each suit, the honors). */
export function shapeByParts(counts, wild, melds, chow) {
  let reach = [[0, 0, 0]]; // [huns, melds, pairs] taken by the parts so far
  for (const [lo, hi] of PARTS) {
    const vec = counts.slice(lo, hi);
    const n = vec.reduce((a, b) => a + b, 0);
    if (!n) continue;
    const key = `${lo}|${vec.join(",")}|${wild}|${chow ? 1 : 0}`;
    let ok = PART_SHAPE.get(key);
    if (ok === undefined) {
      if (PART_SHAPE.size > CACHE_LIMIT) PART_SHAPE.clear();
      const full = new Array(34).fill(0);
      for (let x = lo; x < hi; x++) full[x] = counts[x];
      ok = budgets(n, wild).filter(([j, m, p]) => hasShape(full, j, m, p, chow));
      PART_SHAPE.set(key, ok);
    }
    const next = new Map();
    for (const [ju, mu, pu] of reach) {
      for (const [j, m, p] of ok) {
        if (ju + j <= wild && mu + m <= melds && pu + p <= 1) next.set(`${ju + j},${mu + m},${pu + p}`, [ju + j, mu + m, pu + p]);
      }
    }
    reach = [...next.values()];
    if (!reach.length) return false;
  }
  return reach.some(([ju, mu, pu]) => wild - ju === 3 * (melds - mu) + 2 * (1 - pu));
}

function* combinationsWithReplacement(pool, r) {
  const n = pool.length;
  if (!n && r) return;
  const idx = new Array(r).fill(0);
  yield idx.map((i) => pool[i]);
  for (;;) {
    let i = r - 1;
    while (i >= 0 && idx[i] === n - 1) i--;
    if (i < 0) return;
    const v = idx[i] + 1;
    for (let j = i; j < r; j++) idx[j] = v;
    yield idx.map((q) => pool[q]);
  }
}

/** Each decomposition of the concealed tiles as a list of groups, groups of
 * huns alone given every face rules.wildMelds/wildPairs allow. */
export function* decompositions(rules, h) {
  const [counts, wild] = splitHuns(h.concealed, h.isHun);
  const nMelds = 4 - h.declared.length;
  for (const [groups, wm, wp] of decompose(counts, wild, nMelds, 1, rules.chow)) {
    if (!wm && !wp) { yield groups.slice(); continue; }
    for (const ms of combinationsWithReplacement(rules.wildMelds, wm)) {
      if (wp) for (const p of rules.wildPairs) yield groups.concat(ms, [p]);
      else yield groups.concat(ms);
    }
  }
}

/** Where the winning tile can sit: [group index, slot], each distinct reading once. */
export function* placements(groups, t, tHun) {
  const seen = new Set();
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    if (seen.has(g)) continue;
    seen.add(g);
    const done = new Set();
    for (let s = 0; s < g.faces.length; s++) {
      const f = g.faces[s];
      if (g.hunmask[s] === tHun && (tHun || f === t) && !done.has(f)) {
        done.add(f);
        yield [i, s];
      }
    }
  }
}

// ---- claims: [fan, number of patterns, pattern mask], compared in that order ----
//
// A pattern mask (and a mask of lifted conflicts) is a Number while the rules have at
// most 30 patterns and conflicts, else a BigInt; MASKS gives the operations for each.

function pop32(w) {
  w -= (w >>> 1) & 0x55555555;
  w = (w & 0x33333333) + ((w >>> 2) & 0x33333333);
  return (((w + (w >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export const MASKS = {
  small: { zero: 0, one: 1, bit: (i) => 1 << i, has: (s, i) => ((s >>> i) & 1) === 1, pop: pop32 },
  big: { zero: 0n, one: 1n, bit: (i) => 1n << BigInt(i), has: (s, i) => ((s >> BigInt(i)) & 1n) === 1n, pop: (s) => bitCount(s) },
};

export function compareClaims(a, b) {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] - b[1];
  return a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0;
}

export function bitCount(x) { // of a BigInt
  let n = 0;
  while (x) {
    let w = Number(BigInt.asUintN(32, x));
    w -= (w >>> 1) & 0x55555555;
    w = (w & 0x33333333) + ((w >>> 2) & 0x33333333);
    n += (((w + (w >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
    x >>= 32n;
  }
  return n;
}

/** More than MAX_HELD patterns hold on one reading: the request is refused (too_many_patterns), as
 * search.py's TooManyHeld, with its message. */
export class TooManyHeld extends Error {
  constructor(n) {
    super(`${n} patterns hold on one reading of this hand; the scorer weighs at most ${MAX_HELD} together (it tries `
      + `every subset of them, 2^${n}): a mistake in the rules`);
    this.name = "TooManyHeld";
  }
}

/** The best claim among the patterns that hold (`held`, a BigInt mask): a subset
 * closed under `requires` and free of unlifted conflicts; ties go to more
 * patterns, then the higher mask. Every subset of `held` is tried; TooManyHeld past MAX_HELD of them
 * (the contract's, written into every scorer.mjs). */
export function resolve(rules, held, lifted) {
  const pm = rules.pm;
  let byLifted = rules.resolveCache.get(held);
  if (byLifted !== undefined) {
    const got = byLifted.get(lifted);
    if (got !== undefined) return got;
  }
  const n = pm.pop(held);
  if (n > MAX_HELD) throw new TooManyHeld(n);
  if (byLifted === undefined) rules.resolveCache.set(held, (byLifted = new Map()));
  const info = rules.subsetInfo;
  let best = [-1, 0, pm.zero, null, null];
  let s = held;
  for (;;) {
    let inf = info.get(s);
    if (inf === undefined) info.set(s, (inf = subsetInfo(rules, s)));
    if (inf[0] && !(inf[1] & ~lifted)) {
      const cand = [inf[2], pm.pop(s), s, null, null]; // [3], [4]: result.mjs keeps its display and Claims there
      if (compareClaims(cand, best) > 0) best = cand;
    }
    if (s === pm.zero) break;
    s = (s - pm.one) & held;
  }
  byLifted.set(lifted, best);
  return best;
}

function subsetInfo(rules, s) {
  const pm = rules.pm;
  for (let i = 0; i < rules.requires.length; i++) {
    if (pm.has(s, i) && rules.requires[i] & ~s) return [false, pm.zero, 0];
  }
  let conf = pm.zero;
  rules.conflicts.forEach(([a, b], j) => {
    if (pm.has(s, a) && pm.has(s, b)) conf |= pm.bit(j);
  });
  return [true, conf, rules.fan(s)];
}

/** [claim, groups] of the best decomposition and placement for h.t, or [null, null]. */
export function bestOf(rules, h) {
  let best = null;
  let bestGroups = null;
  for (const cg of decompositions(rules, h)) {
    for (const [i, s] of placements(cg, h.t, h.t_hun)) {
      const placed = cg.slice();
      placed[i] = withSlot(cg[i], s);
      let pair = null;
      const melds = h.declared.slice();
      for (const x of placed) {
        if (x.kind === PAIR) pair = x;
        else melds.push(x);
      }
      const groups = melds.concat([pair]);
      const held = rules.holds(h, melds, pair, groups);
      const lifted = rules.conflicts.length ? rules.unless(h, melds, pair, groups) : rules.pm.zero;
      const key = resolve(rules, held, lifted);
      if (best === null || compareClaims(key, best) > 0) {
        best = key;
        bestGroups = placed;
      }
    }
  }
  return [best, bestGroups];
}

// ---- the mask search (generated scorers whose rules fit passes/atoms.py) ----
//
// An aggregate is one value: the OR of the melds' bits, the complement of the
// AND of their bits above it (only when a test reads it), and the pair's bits
// above that, so that joining two partial readings is one OR. Python keeps it
// in one int; here it is a small int when the pair's field, cut to the bits a
// pair can set at all, makes it fit in 30 bits (packedOps: the Tianjin rules'
// 48 bits become 28), else a Number while it fits in 52 bits (as two 26-bit
// halves), else a BigInt. `aggOps` gives the operations for a rule set; the
// order of aggregates is Python's (the fields keep their order).

const P26 = 67108864, M26 = P26 - 1;


/** An insertion-ordered map from Number aggregates (below 2**53) to values, for
 * the search's hot loops: keys and values in arrays (read in order, as Python
 * reads a dict), found by a linear scan while few, then by an open-addressing
 * index; no key is boxed. */
class NumAggMap {
  constructor() {
    this.ks = [];
    this.vs = [];
    this.index = null; // positions + 1 (0: empty), once there are more than SCAN keys (a plain array of small ints:
    // a typed array of more than 64 bytes lives outside the heap, slow to make)
    this.mask = 0;
  }

  get size() { return this.ks.length; }

  find(x) {
    const ks = this.ks;
    if (this.index === null) {
      for (let i = 0; i < ks.length; i++) if (ks[i] === x) return i;
      return -1;
    }
    const index = this.index, mask = this.mask;
    for (let slot = slotOf(x) & mask; ; slot = (slot + 1) & mask) {
      const i = index[slot] - 1;
      if (i < 0 || ks[i] === x) return i;
    }
  }

  get(x) {
    const i = this.find(x);
    return i < 0 ? undefined : this.vs[i];
  }

  has(x) { return this.find(x) >= 0; }

  /** Set x to v when x is not in the map yet (the only update the search makes). */
  add(x, v) {
    if (this.find(x) >= 0) return false;
    this.push(x, v);
    return true;
  }

  /** Add x, known not to be in the map, with v. */
  push(x, v) {
    const n = this.ks.length;
    this.ks.push(x);
    this.vs.push(v);
    if (this.index !== null) {
      if (2 * (n + 1) > this.mask) this.reindex();
      else this.place(x, n);
    } else if (n + 1 > SCAN) this.reindex();
  }

  place(x, i) {
    const index = this.index, mask = this.mask;
    let slot = slotOf(x) & mask;
    while (index[slot] !== 0) slot = (slot + 1) & mask;
    index[slot] = i + 1;
  }

  reindex() {
    let size = 32;
    while (size < 4 * this.ks.length) size *= 2;
    this.index = new Array(size).fill(0);
    this.mask = size - 1;
    for (let i = 0; i < this.ks.length; i++) this.place(this.ks[i], i);
  }
}
const SCAN = 8;

/** A hash of a Number aggregate: both 32-bit halves mixed. */
function slotOf(x) {
  const h = Math.imul((x | 0) ^ Math.imul((x / 4294967296) | 0, 0x9e3779b1), 0x85ebca6b);
  return h ^ (h >>> 15);
}

/** The same for BigInt aggregates, over a Map. */
class BigAggMap {
  constructor() {
    this.ks = [];
    this.vs = [];
    this.pos = new Map();
  }

  get size() { return this.ks.length; }
  get(x) { const i = this.pos.get(x); return i === undefined ? undefined : this.vs[i]; }
  has(x) { return this.pos.has(x); }
  find(x) { const i = this.pos.get(x); return i === undefined ? -1 : i; }
  add(x, v) {
    if (this.pos.has(x)) return false;
    this.push(x, v);
    return true;
  }

  push(x, v) {
    this.pos.set(x, this.ks.length);
    this.ks.push(x);
    this.vs.push(v);
  }
}

/** The atom bits a pair's mask can hold at all (a Number), found by masking
 * every pair the search can make (each face, hun slots and winning slot), the
 * bits that read the hand context counted in; null when group masks are BigInts. */
export function pairBits(rules, h) {
  if (rules.ctxBits === null || rules.ctxBits === undefined) return null;
  let bits = rules.ctxBits;
  for (let k = 0; k < 34; k++) {
    for (let hm = 0; hm < 4; hm++) {
      for (let t = -1; t < 2; t++) {
        bits |= rules.gmask(h, new Group(PAIR, [k, k], [(hm & 1) === 1, (hm & 2) === 2], false, true, t, -1));
      }
    }
  }
  return bits;
}

/** The positions of the set bits of a Number mask, lowest first. */
function bitsOf(mask) {
  const out = [];
  for (let i = 0; i < 31; i++) if ((mask >>> i) & 1) out.push(i);
  return out;
}

/** The aggregate operations for nbits atom bits (a group mask: a Number below
 * 2**31, else a BigInt), the AND field kept when readsAnd. `pairs` (pairBits,
 * or null): the bits a pair's mask can hold at all. When the pair field cut to
 * those bits fits beside the others in 30 bits, an aggregate is kept so, a
 * small int: the bits no pair can set are always 0, so dropping them changes
 * neither OR, AND, the bit counts nor the order of aggregates (Python's, which
 * keeps them); else the full layout, in a Number up to 52 bits. */
export function aggOps(nbits, readsAnd, pairs = null) {
  if (pairs !== null) {
    const pBits = bitsOf(pairs);
    if (nbits * (readsAnd ? 2 : 1) + pBits.length <= 30) return packedOps(nbits, readsAnd, pBits);
  }
  const fields = readsAnd ? 3 : 2;
  const total = nbits * fields;
  const pairShift = nbits * (fields - 1);
  const wideMask = nbits > 31; // group masks are BigInts
  const toBig = (b) => (wideMask ? b : BigInt(b));
  const fromBig = (b) => (wideMask ? b : Number(b));
  const fullBig = (1n << BigInt(nbits)) - 1n;
  if (total <= 52) {
    const small = total <= 31;
    const full = 2 ** nbits - 1;
    const or = small ? (x, y) => x | y
      : (x, y) => ((((x / P26) | 0) | ((y / P26) | 0)) * P26) + ((x & M26) | (y & M26));
    const and = small ? (x, y) => x & y
      : (x, y) => ((((x / P26) | 0) & ((y / P26) | 0)) * P26) + ((x & M26) & (y & M26));
    const andNot = small ? (x, y) => x & ~y
      : (x, y) => ((((x / P26) | 0) & ~((y / P26) | 0)) * P26) + ((x & M26) & ~(y & M26));
    const na = readsAnd ? full * 2 ** nbits : 0;
    return {
      zero: 0, na, or, and, andNot, map: () => new NumAggMap(),
      pop: small ? pop32 : (x) => pop32(x & M26) + pop32((x / P26) | 0),
      cmp: (x, y) => x - y,
      fromMeld: readsAnd ? (b) => b + (full - b) * 2 ** nbits : (b) => b,
      fromPair: (b) => b * 2 ** pairShift,
      unpack(x) { // [OR of the melds, AND of the melds, the pair] as group masks
        const om = x % 2 ** nbits;
        const rest = Math.floor(x / 2 ** nbits);
        if (!readsAnd) return [om, full, rest];
        return [om, full - (rest % 2 ** nbits), Math.floor(rest / 2 ** nbits)];
      },
    };
  }
  const nb = BigInt(nbits), shift = BigInt(pairShift);
  return {
    zero: 0n, na: readsAnd ? fullBig << nb : 0n, map: () => new BigAggMap(),
    or: (x, y) => x | y, and: (x, y) => x & y, andNot: (x, y) => x & ~y,
    pop: bitCount,
    cmp: (x, y) => (x < y ? -1 : x > y ? 1 : 0),
    fromMeld: readsAnd ? (b) => toBig(b) | ((fullBig & ~toBig(b)) << nb) : toBig,
    fromPair: (b) => toBig(b) << shift,
    unpack(x) {
      const om = x & fullBig;
      if (!readsAnd) return [fromBig(om), fromBig(fullBig), fromBig(x >> nb)];
      return [fromBig(om), fromBig(fullBig & ~(x >> nb)), fromBig(x >> shift)];
    },
  };
}

/** aggOps for the packed layout: the OR of the melds' bits at the bottom, the
 * complemented AND of the melds (when read) above, the pair's possible bits on
 * top, side by side; every aggregate a small int. */
function packedOps(nbits, readsAnd, pBits) {
  const full = 2 ** nbits - 1;
  const pairShift = nbits * (readsAnd ? 2 : 1);
  let pMask = 0;
  for (const b of pBits) pMask |= 1 << b;
  const packPair = (b) => { // the bits of pair mask b side by side
    if ((b & ~pMask) !== 0) throw new Error("internal: a pair atom bit pairBits did not find");
    let out = 0;
    for (let i = 0; i < pBits.length; i++) if ((b >>> pBits[i]) & 1) out |= 1 << i;
    return out;
  };
  const unpackPair = (x) => {
    let out = 0;
    for (let i = 0; i < pBits.length; i++) if ((x >>> i) & 1) out |= 1 << pBits[i];
    return out;
  };
  return {
    zero: 0, na: readsAnd ? full << nbits : 0,
    or: (x, y) => x | y, and: (x, y) => x & y, andNot: (x, y) => x & ~y,
    map: () => new NumAggMap(), pop: pop32, cmp: (x, y) => x - y,
    fromMeld: readsAnd ? (b) => b | ((full & ~b) << nbits) : (b) => b,
    fromPair: (b) => packPair(b) << pairShift,
    unpack(x) { // [OR of the melds, AND of the melds, the pair] as group masks
      return [x & full, readsAnd ? full & ~(x >>> nbits) : full, unpackPair(x >>> pairShift)];
    },
  };
}

/** aggs (a Map aggregate → witness) as a flat [x, w, …] list, cut to the maximal
 * aggregates when the rules are monotone (the others can never score more). */
function prunedFlat(aggs, monotone, A) {
  if (monotone && aggs.size > 1) return maximal(aggs, A);
  const out = [];
  const ks = aggs.ks, vs = aggs.vs;
  for (let i = 0; i < ks.length; i++) out.push(ks[i], vs[i]);
  return out;
}

/** The maximal aggregates of a Map as a flat list: drop every aggregate whose
 * bits another one has too (in the AND field, where fewer bits are more, the
 * other way round). In the order of Python's _maximal: by bits, most first,
 * ties in their order; two aggregates neither covering the other stay as they are. */
function maximal(aggs, A) {
  const na = A.na;
  const xs = aggs.ks, ws = aggs.vs;
  if (!na && xs.length === 2) { // the most common case, without sorting
    if (A.andNot(xs[0], xs[1]) === A.zero) return [xs[1], ws[1]];
    if (A.andNot(xs[1], xs[0]) === A.zero) return [xs[0], ws[0]];
    return [xs[0], ws[0], xs[1], ws[1]];
  }
  const n = xs.length;
  const order = new Array(n);
  const bits = new Array(n);
  for (let i = 0; i < n; i++) {
    const b = na ? A.pop(A.andNot(xs[i], na)) - A.pop(A.and(xs[i], na)) : A.pop(xs[i]);
    let j = i; // insertion sort, most bits first, ties in their order (stable)
    while (j > 0 && bits[j - 1] < b) {
      bits[j] = bits[j - 1];
      order[j] = order[j - 1];
      j--;
    }
    bits[j] = b;
    order[j] = i;
  }
  const out = [];
  for (let q = 0; q < order.length; q++) {
    const x = xs[order[q]];
    let covered = false;
    for (let k = 0; k < out.length; k += 2) {
      const y = out[k];
      if (na ? A.andNot(A.andNot(x, y), na) === A.zero && A.andNot(A.and(y, na), x) === A.zero
        : A.andNot(x, y) === A.zero) { covered = true; break; }
    }
    if (!covered) out.push(x, ws[order[q]]);
  }
  return out;
}

/** Every aggregate of a left one with a right one (flat [x, w, …] lists) into out, one witness each. */
function product(left, right, out, A) {
  for (let i = 0; i < left.length; i += 2) {
    const x = left[i], w = left[i + 1];
    for (let j = 0; j < right.length; j += 2) {
      const k = A.or(x, right[j]);
      if (out.find(k) < 0) out.push(k, cat(w, right[j + 1]));
    }
  }
}

const SHARED_CAP = 4; // from this many huns on, a part's sub-tables are shared across hun budgets
// budgets as bits: bit 2 * huns + pairs (a hand holds at most 14 huns: 30 bits). UPTO[c]: up to c
// huns; FEASIBLE[n % 3]: those n natural tiles can meet; NO_PAIR: those without a pair
const UPTO = Array.from({ length: 32 }, (_, c) => (c >= 14 ? 0x3fffffff : 2 ** (2 * c + 2) - 1));
const FEASIBLE = [0, 1, 2].map((r) => {
  let m = 0;
  for (let w = 0; w < 15; w++) for (const p of [0, 1]) if ((r + w - 2 * p) % 3 === 0) m += 2 ** (2 * w + p);
  return m;
});
const NO_PAIR = 0x15555555;
const bitLength = (x) => 32 - Math.clz32(x); // of a non-negative int32

// the tables, each keyed by what it depends on and nothing else (search.py names them alike)
const BUILDERS = new Map(); // hand context → for each t (34: a hun t), the table builders holding its tables
let nBuilders = 0;
const FREE = new Map(); // hand context → the tables without t: {tab: per part {budgets: {packed counts: dp}}, dp, opts}
const RAW = new Map(); // the groups holding a lowest kind, whatever the hand
const GMASK_CTX = new Map(); // hand context → {group: its atom bits that read the hand}
const HF = new Map(); // hun-free part tables: ctx → for each t, a Map per part: its packed tiles → entry
let tabEntries = 0; // part tables in TAB, all contexts


/** The group with the winning tile in each slot it can take (distinct faces). */
function withTs(g, t, tHun) {
  const out = [];
  const seen = new Set();
  for (let s = 0; s < g.faces.length; s++) {
    const f = g.faces[s];
    if (g.hunmask[s] === tHun && (tHun || f === t) && !seen.has(f)) {
      seen.add(f);
      out.push(withSlot(g, s));
    }
  }
  return out;
}

/** The groups that can hold the lowest natural kind k, whatever the hand:
 * {g, nat (packed 3 bits per kind from lo), nn, huns, isPair, tHun: its
 * variants with a hun t, tNat: {natural t: its variants with t}}. */
function rawOptions(k, c, has1, has2, wild, chow, lo) {
  const key = `${k}|${c}|${has1 ? 1 : 0}|${has2 ? 1 : 0}|${wild}|${chow ? 1 : 0}|${lo}`;
  let got = RAW.get(key);
  if (got === undefined) {
    const near = new Array(36).fill(0);
    near[k] = c;
    near[k + 1] = has1 ? 1 : 0;
    near[k + 2] = has2 ? 1 : 0;
    got = groupOptions(near, k, wild, 1, 1, chow).map(([g, nat, huns, isPair]) => {
      const tNat = new Map();
      for (const f of new Set(g.faces)) tNat.set(f, withTs(g, f, false));
      return { g, nat: nat.reduce((a, x) => a + 2 ** (3 * (x - lo)), 0), nn: nat.length, huns, isPair,
        tHun: withTs(g, -1, true), tNat };
    });
    RAW.set(key, got);
  }
  return got;
}

/** The table builders for hand h: {gmask, part, wildOnly, wildChunks}, each
 * memoised in the tables above under keys that name only what it depends on.
 * One set of builders per table context (the hand context, t, whether t is a
 * hun): what they read of h is the same for every hand of that context. */
function tables(rules, h, ctx) {
  const ti = h.t_hun ? 34 : h.t;
  let row = BUILDERS.get(ctx);
  let got = row === undefined ? null : row[ti];
  if (got === null) {
    if (nBuilders > 256 || tabEntries > CACHE_LIMIT / 8) { // for memory: every table goes
      BUILDERS.clear();
      FREE.clear();
      RAW.clear();
      tabEntries = 0;
      nBuilders = 0;
      row = undefined;
    }
    if (row === undefined) BUILDERS.set(ctx, (row = new Array(35).fill(null)));
    got = builders(rules, h, ctx);
    row[ti] = got;
    nBuilders += 1;
  }
  return got;
}

function builders(rules, h, ctx) {
  const gmaskFn = rules.gmask, gmaskCtxFn = rules.gmaskCtx;
  const A = rules.agg;
  let ctxMasks = null;
  if (gmaskCtxFn !== null) {
    ctxMasks = GMASK_CTX.get(ctx);
    if (ctxMasks === undefined) {
      if (GMASK_CTX.size > 256) GMASK_CTX.clear();
      GMASK_CTX.set(ctx, (ctxMasks = new Map()));
    }
  }

  /** The group's atom bits: those of the group alone cached on it, those that read the hand per context. */
  function gmask(g) {
    let m = g.smask;
    if (m === undefined) m = g.smask = gmaskFn(h, g);
    if (ctxMasks !== null) {
      let c = ctxMasks.get(g);
      if (c === undefined) ctxMasks.set(g, (c = gmaskCtxFn(h, g)));
      m |= c;
    }
    return m;
  }

  const monotone = rules.monotone;
  const t = h.t, tHun = h.t_hun;
  const chow = rules.chow;
  // the tables without the winning tile are shared by every t of the context: one per context
  let free = FREE.get(ctx);
  if (free === undefined) {
    FREE.set(ctx, (free = { tab: [new Map(), new Map(), new Map(), new Map()], part: [], wild: [], chunks: [], wildBase: null,
      opts: new Map() }));
  }
  const tabT = [new Map(), new Map(), new Map(), new Map()], tabFree = free.tab;
  // part(i, v, n, tl, cap): per (i, cap) a Map by v; wildOnly/wildChunks(m, p, tl): by 2 * m + p
  const partT = [], partFree = free.part;
  const wildT = [], wildFree = free.wild, chunksT = [], chunksFree = free.chunks;
  let wildBaseT = null;
  const optsT = new Map(), optsFree = free.opts;
  const EMPTY = [];
  const NOTHING = [0, [A.zero, null]]; // no tile, no hun, no pair: one empty reading

  function wildSets(tl) {
    let base = free.wildBase;
    if (base === null) {
      const m0 = A.map(), p0 = A.map();
      for (const g of rules.wildMelds) m0.add(A.fromMeld(gmask(g)), g);
      for (const g of rules.wildPairs) p0.add(A.fromPair(gmask(g)), g);
      base = free.wildBase = [prunedFlat(m0, monotone, A), prunedFlat(p0, monotone, A)];
    }
    if (!(tl && tHun)) return [base[0], EMPTY, base[1], EMPTY];
    let wt = wildBaseT;
    if (wt === null) {
      const mt = A.map(), pt = A.map();
      for (const g of rules.wildMelds) for (const gt of withTs(g, -1, true)) mt.add(A.fromMeld(gmask(gt)), gt);
      for (const g of rules.wildPairs) for (const gt of withTs(g, -1, true)) pt.add(A.fromPair(gmask(gt)), gt);
      wt = wildBaseT = [prunedFlat(mt, monotone, A), prunedFlat(pt, monotone, A)];
    }
    return [base[0], wt[0], base[1], wt[1]];
  }

  /** The part made only of huns: m melds and p pairs, t among them if tl (a flat list),
   * built one meld at a time, only maximal aggregates kept at each step when monotone. */
  function wildOnly(m, p, tl) {
    const d = tl ? wildT : wildFree;
    const got = d[2 * m + p];
    if (got !== undefined) return got;
    const ws = wildSets(tl);
    const m0 = ws[0], mt = ws[1], p0 = ws[2], pt = ws[3];
    const out = A.map();
    if (m === 0) {
      if (p) {
        const src = tl ? pt : p0;
        for (let i = 0; i < src.length; i += 2) out.add(src[i], src[i + 1]);
      }
      if (!p && !tl) out.add(A.zero, null);
    } else {
      product(wildOnly(m - 1, p, tl), m0, out, A);
      if (tl) product(wildOnly(m - 1, p, 0), mt, out, A);
    }
    const res = prunedFlat(out, monotone, A);
    d[2 * m + p] = res;
    return res;
  }

  /** A group's contribution to an aggregate (as a meld or as the pair). */
  const agg = (g) => (g.kind === PAIR ? A.fromPair(gmask(g)) : A.fromMeld(gmask(g)));

  /** [witness, aggregate, …] for the groups, one per distinct aggregate, only the maximal ones when monotone. */
  function variantsOf(groups) {
    const d = A.map();
    for (const g of groups) d.add(agg(g), g);
    const flatAggs = prunedFlat(d, monotone, A);
    const out = [];
    for (let i = 0; i < flatAggs.length; i += 2) out.push(flatAggs[i + 1], flatAggs[i]);
    return out;
  }

  /** The options of search.py's options(): for the lowest natural kind k (c of
   * it, whether k+1 and k+2 are held, up to `cap` huns in a group), each group
   * with the packed counts it removes and its variants, grouped by whether t
   * is still to place after them: [{nat, nn, huns, isPair, byTl: [tl after,
   * variants, …]}]. Options taking the same tiles and huns share one entry. */
  function options(k, c, has1, has2, cap, tl, lo) {
    c = Math.min(c, 3);
    cap = Math.min(cap, 2);
    const fkey = (k << 9) | (c << 7) | (has1 << 6) | (has2 << 5) | (cap << 3);
    let base = optsFree.get(fkey);
    if (base === undefined) {
      const same = new Map();
      for (const item of rawOptions(k, c, has1, has2, cap, chow, lo)) {
        const dkey = `${item.nat}|${item.nn}|${item.huns}|${item.isPair ? 1 : 0}`;
        let list = same.get(dkey);
        if (list === undefined) same.set(dkey, (list = []));
        list.push(item);
      }
      const entries = [...same.values()].map((items) => ({ items, variants: variantsOf(items.map((it) => it.g)) }));
      base = [entries.map((e) => option(e.items[0], [0, e.variants])), entries];
      optsFree.set(fkey, base);
    }
    if (!tl) return base[0];
    let got = optsT.get(fkey);
    if (got === undefined) {
      got = base[1].map((e) => {
        const gts = [];
        for (const it of e.items) for (const gt of (tHun ? it.tHun : (it.tNat.get(t) || EMPTY))) gts.push(gt);
        const wt = variantsOf(gts);
        return option(e.items[0], wt.length ? [1, e.variants, 0, wt] : [1, e.variants]);
      });
      optsT.set(fkey, got);
    }
    return got;
  }
  const option = (it, byTl) => ({ nat: it.nat, nn: it.nn, huns: it.huns, isPair: it.isPair ? 1 : 0, byTl });

  /** Every way to make one part's natural tiles into groups, each holding a
   * natural tile, with huns beside them, t placed among them if tl: a flat list
   * [2 * huns used + pairs, its maximal aggregates (flat), …], for the budgets
   * whose bits `want` sets. v packs the part's counts 3 bits per kind from
   * kind lo (pi: the part's index). As search.py's dp. */
  function dp(pi, lo, v, n, tl, want, shared) {
    if (!v) return tl || !(want & 1) ? EMPTY : NOTHING;
    const tab = (tl ? tabT : tabFree)[pi];
    let byV = tab.get(want);
    if (byV === undefined) tab.set(want, (byV = new Map()));
    const got = byV.get(v);
    if (got !== undefined) return got;
    const kl = ((31 - Math.clz32(v & -v)) / 3) | 0;
    const sh = 3 * kl;
    const out = new Map();
    const opts = options(lo + kl, (v >>> sh) & 7, ((v >>> (sh + 3)) & 7) > 0 ? 1 : 0, ((v >>> (sh + 6)) & 7) > 0 ? 1 : 0,
      (bitLength(want) - 1) >> 1, tl, lo);
    for (let oi = 0; oi < opts.length; oi++) {
      const o = opts[oi];
      const rest = v - o.nat;
      const n2 = n - o.nn;
      const step = 2 * o.huns + o.isPair;
      let want2;
      if (shared) want2 = UPTO[Math.min(shared, 2 * n2)] & FEASIBLE[n2 % 3];
      else { // the budgets left for the rest; after a pair, none with a pair
        want2 = (want >>> step) & (o.isPair ? NO_PAIR : -1) & UPTO[2 * n2] & FEASIBLE[n2 % 3];
        if (!want2) continue;
      }
      const byTl = o.byTl;
      for (let bi = 0; bi < byTl.length; bi += 2) {
        const tl2 = byTl[bi], variants = byTl[bi + 1];
        const subMap = rest ? dp(pi, lo, rest, n2, tl2, want2, shared) : (tl2 || !(want2 & 1) ? EMPTY : NOTHING);
        for (let q = 0; q < subMap.length; q += 2) {
          const bk0 = subMap[q];
          if (bk0 & o.isPair) continue; // a second pair
          const bk = bk0 + step;
          if (!((want >>> bk) & 1)) continue; // a budget not asked for
          const sub = subMap[q + 1];
          let bucket = out.get(bk);
          if (bucket === undefined) out.set(bk, (bucket = A.map()));
          for (let a = 0; a < variants.length; a += 2) {
            const gv = variants[a], b = variants[a + 1];
            for (let i = 0; i < sub.length; i += 2) {
              const x = A.or(sub[i], b);
              if (bucket.find(x) < 0) bucket.push(x, cat(gv, sub[i + 1]));
            }
          }
        }
      }
    }
    const res = [];
    out.forEach((bucket, bk) => { res.push(bk, prunedFlat(bucket, monotone, A)); });
    byV.set(v, res);
    tabEntries += 1;
    return res;
  }

  /** dp for part i's counts (packed in v, n tiles) and every hun budget up to cap (memoised by them). */
  function part(i, v, n, tl, cap) {
    const d = tl ? partT : partFree;
    let byV = d[32 * i + cap];
    if (byV === undefined) d[32 * i + cap] = byV = new Map();
    let got = byV.get(v);
    if (got === undefined) {
      got = dp(i, PARTS[i][0], v, n, tl, UPTO[cap] & FEASIBLE[n % 3], cap >= SHARED_CAP ? cap : 0);
      byV.set(v, got);
    }
    return got;
  }

  /** wildOnly(m, p, tl) as bounded chunks for bestBounded. */
  function wildChunks(m, p, tl) {
    const d = tl ? chunksT : chunksFree;
    let got = d[2 * m + p];
    if (got === undefined) d[2 * m + p] = got = chunks(wildOnly(m, p, tl), A);
    return got;
  }

  return { gmask, part, wildOnly, wildChunks };
}

/** A part's counts packed 3 bits per kind, and how many tiles: [v, n]. */
function packPart(counts, i) {
  const lo = PARTS[i][0], hi = PARTS[i][1];
  let v = 0, n = 0;
  for (let q = lo; q < hi; q++) {
    v += counts[q] << (3 * (q - lo));
    n += counts[q];
  }
  PACKED[0] = v;
  PACKED[1] = n;
  return PACKED;
}
const PACKED = [0, 0];

/** The declared melds' aggregate: the start of every reading. */
function declaredMasks(rules, h, gmask) {
  const A = rules.agg;
  let x0 = A.zero;
  for (const g of h.declared) x0 = A.or(x0, A.fromMeld(gmask(g)));
  return x0;
}

/** The same answer as bestOf, found over aggregate masks, part by part (each
 * suit, the honors, the groups made only of huns), the parts joined by how
 * many huns, melds and pairs each takes. As search.py's best_by_masks. */
export function bestByMasks(rules, h) {
  const ctx = rules.ctx(h);
  if (!h.huns && !h.declared.length) return bestHunFree(rules, h, ctx, h.counts); // the counts are the concealed tiles
  const sh = splitHuns(h.concealed, h.isHun);
  const counts = sh[0], wild = sh[1];
  if (!wild) return bestHunFree(rules, h, ctx, counts); // huns only among the declared melds
  const A = rules.agg;
  const tb = tables(rules, h, ctx);
  const monotone = rules.monotone;
  const tHun = h.t_hun;
  const nMelds = 4 - h.declared.length;
  const tPart = tHun ? -1 : PART_OF[h.t];
  // the states: [huns, melds, pairs, t placed] taken by the parts so far, and their aggregates (flat)
  let states = [{ ju: 0, mu: 0, pu: 0, tu: 0, aggs: [declaredMasks(rules, h, tb.gmask), null] }];
  for (let i = 0; i < 4; i++) {
    const packed = packPart(counts, i);
    const v = packed[0], n = packed[1];
    if (!n) continue;
    const order = []; // the new states, in the order they were first reached (SLOT finds them by key)
    const cap = Math.min(wild, 2 * n); // a group holds a natural tile and at most 2 huns
    for (let tl = i === tPart ? 1 : 0; tl <= (i === tPart || tHun ? 1 : 0); tl++) {
      const table = tb.part(i, v, n, tl, cap);
      for (let si = 0; si < states.length; si++) {
        const s = states[si];
        if (tl && s.tu) continue;
        for (let q = 0; q < table.length; q += 2) {
          const bk = table[q];
          const j = bk >> 1, p = bk & 1;
          const m = (n + j - 2 * p) / 3;
          if (s.ju + j > wild || s.pu + p > 1 || s.mu + m > nMelds) continue;
          const sk = (((s.ju + j) * 8 + s.mu + m) * 2 + s.pu + p) * 2 + (s.tu | tl);
          let entry = SLOT[sk];
          if (entry === null) {
            SLOT[sk] = entry = { ju: s.ju + j, mu: s.mu + m, pu: s.pu + p, tu: s.tu | tl, map: A.map(), aggs: null, sk };
            order.push(entry);
          }
          product(s.aggs, table[q + 1], entry.map, A);
        }
      }
    }
    for (const e of order) {
      e.aggs = prunedFlat(e.map, monotone, A);
      e.map = null;
      SLOT[e.sk] = null;
    }
    states = order;
  }
  const joins = []; // the natural parts' aggregates and the hun-only readings that complete them
  for (const s of states) {
    const mw = nMelds - s.mu, pw = 1 - s.pu, tlw = 1 - s.tu;
    if (wild - s.ju !== 3 * mw + 2 * pw || (tlw && !tHun)) continue;
    const sub = tb.wildOnly(mw, pw, tlw);
    if (sub.length) joins.push(s.aggs, monotone ? tb.wildChunks(mw, pw, tlw) : sub);
  }
  if (monotone) return bestBounded(rules, h, joins);
  const final = A.map();
  for (let q = 0; q < joins.length; q += 2) product(joins[q], joins[q + 1], final, A);
  return bestClaimOf(rules, h, prunedFlat(final, false, A));
}

// the states of bestByMasks by key (huns, melds, pairs, t placed): null between parts
const SLOT = new Array(2 * 2 * 8 * 32).fill(null);

/** The best claim over every aggregate x | y (x of the natural parts, y a
 * hun-only reading), without scoring them all (see search.py's _best_bounded):
 * the x are tried from the highest bound down and stop once the bound cannot
 * beat the best found; within x, each chunk of the y is skipped the same way,
 * and a y reaching x's bound ends x's turn. joins: [aggregates, chunks, …]. */
function bestBounded(rules, h, joins) {
  const A = rules.agg;
  const d = claimsFor(rules, rules.hkey(h));
  const cands = [];
  for (let q = 0; q < joins.length; q += 2) {
    const aggs = joins[q], chunkList = joins[q + 1];
    const top = chunkList[0];
    for (let i = 0; i < aggs.length; i += 2) {
      const xt = A.or(aggs[i], top);
      const c = { bound: d.get(xt) || claimNew(rules, h, d, xt), x: aggs[i], w: aggs[i + 1], chunks: chunkList };
      let j = cands.length; // insertion sort, highest bound first, ties in their order (a stable sort)
      cands.push(c);
      while (j > 0 && compareClaims(cands[j - 1].bound, c.bound) < 0) {
        cands[j] = cands[j - 1];
        j--;
      }
      cands[j] = c;
    }
  }
  let best = null;
  let bestWit = null;
  for (let ci = 0; ci < cands.length; ci++) {
    const c0 = cands[ci];
    const bound = c0.bound, x = c0.x, chunkList = c0.chunks;
    if (best !== null && compareClaims(bound, best) <= 0) break;
    const many = chunkList.length > 4; // [bound, items] of all, then of each run when there are several
    for (let k = many ? 2 : 0; k < (many ? chunkList.length : 2); k += 2) {
      if (best !== null && many) {
        const xt = A.or(x, chunkList[k]);
        if (compareClaims(d.get(xt) || claimNew(rules, h, d, xt), best) <= 0) continue;
      }
      const items = chunkList[k + 1];
      let reached = false;
      for (let i = 0; i < items.length; i += 2) {
        const xy = A.or(x, items[i]);
        const c = d.get(xy) || claimNew(rules, h, d, xy);
        if (best === null || compareClaims(c, best) > 0) {
          best = c;
          bestWit = cat(c0.w, items[i + 1]);
        }
        if (compareClaims(c, bound) === 0) { reached = true; break; }
      }
      if (reached) break;
    }
  }
  return best === null ? NONE : [best, bestWit];
}
const NONE = [null, null];

/** [bound, items, …] for all the items, then for each run of `size` of them in
 * the order of their bits: the bound of a set is every bit any item has, and
 * the fewest complemented-AND bits any item has. */
function chunks(items, A, size = 8) {
  const bound = (part) => {
    let top = A.zero, topNa = null;
    for (let i = 0; i < part.length; i += 2) {
      top = A.or(top, part[i]);
      topNa = topNa === null ? part[i] : A.and(topNa, part[i]);
    }
    if (!A.na) return top;
    return A.or(A.andNot(top, A.na), topNa === null ? A.na : A.and(topNa, A.na));
  };
  const idx = [];
  for (let i = 0; i < items.length; i += 2) idx.push(i);
  idx.sort((a, b) => A.cmp(items[a], items[b]));
  const runs = [];
  for (let i = 0; i < idx.length; i += size) {
    const run = [];
    for (const q of idx.slice(i, i + size)) run.push(items[q], items[q + 1]);
    runs.push(run);
  }
  const out = [bound(items), items];
  if (runs.length > 1) for (const r of runs) out.push(bound(r), r);
  return out;
}

/** bestByMasks for a hand without huns: one table per part, no budget to share out. */
function bestHunFree(rules, h, ctx, counts) {
  const t = h.t;
  let rows = HF.get(ctx);
  if (rows === undefined) {
    if (HF.size > 64) HF.clear();
    const free = [new Map(), new Map(), new Map(), new Map()];
    // per t: the four parts' tables, t's own part keyed by where t sits
    rows = Array.from({ length: 34 }, (_, k) => free.map((m, i) => (i === PART_OF[k] ? new Map() : m)));
    HF.set(ctx, rows);
  }
  const row = rows[t];
  const A = rules.agg;
  let x = A.zero, pairs = 0;
  let wit = null;
  let multi = null; // the parts with several aggregates, joined (a flat list)
  for (let i = 0; i < 4; i++) {
    const packed = packPart(counts, i);
    const v = packed[0];
    if (v === 0) continue; // an empty part changes nothing
    let ent = row[i].get(v);
    if (ent === undefined) ent = hunFreeEntry(rules, h, ctx, row, i, v, packed[1]);
    if (ent.one !== null) { // one aggregate (or an empty part): fold it in
      x = A.or(x, ent.one);
      wit = cat(wit, ent.oneWit);
      pairs += ent.pairs;
    } else if (ent.sub === null) return NONE;
    else {
      pairs += ent.pairs;
      const sub = ent.sub;
      if (multi === null) multi = sub;
      else {
        const m2 = [];
        for (let a = 0; a < multi.length; a += 2) {
          for (let b = 0; b < sub.length; b += 2) m2.push(A.or(multi[a], sub[b]), cat(multi[a + 1], sub[b + 1]));
        }
        multi = m2;
      }
    }
  }
  if (pairs !== 1) return NONE;
  if (h.declared.length) x = A.or(x, declaredMasks(rules, h, tables(rules, h, ctx).gmask));
  if (multi === null) return bestClaimOf(rules, h, [x, wit]);
  const final = [];
  for (let a = 0; a < multi.length; a += 2) final.push(A.or(x, multi[a]), cat(wit, multi[a + 1]));
  return bestClaimOf(rules, h, final);
}

/** Part i's entry in the hun-free index: {pairs, sub: its aggregates (flat) or
 * null when the part's tiles make no shape, one/oneWit: the aggregate when there is only one}. */
function hunFreeEntry(rules, h, ctx, row, i, v, n) {
  const tab = row[i];
  if (tab.size > CACHE_LIMIT / 16) tab.clear();
  const r = n % 3;
  let ent;
  if (!n) ent = { pairs: 0, sub: EMPTY_SUB, one: rules.agg.zero, oneWit: null }; // an empty part changes nothing
  else if (r === 1) ent = { pairs: 0, sub: null, one: null, oneWit: null };
  else {
    const table = tables(rules, h, ctx).part(i, v, n, i === PART_OF[h.t] ? 1 : 0, 0);
    let sub = null;
    for (let q = 0; q < table.length; q += 2) if (table[q] === r >> 1) sub = table[q + 1];
    const single = sub !== null && sub.length === 2;
    ent = { pairs: r >> 1, sub, one: single ? sub[0] : null, oneWit: single ? sub[1] : null };
  }
  tab.set(v, ent);
  return ent;
}
const EMPTY_SUB = [];

/** The best claim among the final [aggregate, witness, …] (flat), and its decomposition. */
function bestClaimOf(rules, h, final) {
  const d = claimsFor(rules, rules.hkey(h));
  let best = null;
  let bestWit = null;
  for (let i = 0; i < final.length; i += 2) {
    const key = d.get(final[i]) || claimNew(rules, h, d, final[i]);
    if (best === null || compareClaims(key, best) > 0) {
      best = key;
      bestWit = final[i + 1];
    }
  }
  return best === null ? NONE : [best, bestWit];
}

/** The claims cached for one set of hand-level values: aggregate → claim. */
function claimsFor(rules, hk) {
  let d = rules.claimCache.get(hk);
  if (d === undefined || d.size > CACHE_LIMIT) {
    if (rules.claimCache.size > 4096) rules.claimCache.clear();
    rules.claimCache.set(hk, (d = rules.agg.map()));
  }
  return d;
}

/** The claim of one aggregate not yet in d (the claims for h's hand-level values). */
function claimNew(rules, h, d, x) {
  const f = rules.agg.unpack(x);
  const om = f[0], am = f[1], pm = f[2];
  const og = om | pm, ag = am & pm;
  const held = rules.holdsAgg(h, om, am, og, ag, pm);
  const lifted = rules.conflicts.length ? rules.unlessAgg(h, om, am, og, ag, pm) : rules.pm.zero;
  const key = resolve(rules, held, lifted);
  d.add(x, key);
  return key;
}

/** Forget every table and cache the search keeps (for memory, and for tests). */
export function clearTables(rules) {
  for (const m of [DEC, SHAPE, PART_SHAPE, BUILDERS, FREE, RAW, GMASK_CTX, HF]) m.clear();
  tabEntries = 0;
  nBuilders = 0;
  for (const m of [rules.resolveCache, rules.claimCache, rules.displayCache, rules.subsetInfo]) m.clear();
}
