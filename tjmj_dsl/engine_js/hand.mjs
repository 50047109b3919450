// A hand as the rules see it: its tiles split into naturals and huns, its
// groups (the values the expression language reads), and the request flags.
// A port of engine/hand.py. Groups are interned: one Group object per distinct
// group, so === is Python's tuple equality and a group can carry its cached masks.

import { NAMES, RANK_OF, SUIT_OF } from "./tiles.mjs";

export const PAIR = 0, CHOW = 1, PUNG = 2, KONG = 3;
export const GROUP_KIND_NAMES = ["pair", "chow", "pung", "kong"];

/** Suits wrap 9→1; honors follow the rule file's cycles. */
export function nextKind(k, cycles) {
  if (k < 27) return k - (k % 9) + ((k % 9) + 1) % 9;
  for (const cyc of cycles) {
    const i = cyc.indexOf(k);
    if (i >= 0) return cyc[(i + 1) % cyc.length];
  }
  return k;
}

/** The natural tiles as counts by kind, and how many hun tiles (isHun: a 0/1 array by kind). */
export function splitHuns(tiles, isHun) {
  const counts = new Array(34).fill(0);
  let wild = 0;
  for (const x of tiles) {
    if (isHun[x]) wild += 1;
    else counts[x] += 1;
  }
  return [counts, wild];
}

/** One group of a decomposition: kind (PAIR/CHOW/PUNG/KONG), faces (the tile each
 * slot stands for, lowest first), hunmask (that slot holds a hun tile), declared,
 * concealed, tslot (the winning tile's slot, or -1), nhuns, suit and rank of the
 * lowest face. `key` names it. */
export class Group {
  constructor(kind, faces, hunmask, declared, concealed, tslot, key) {
    this.kind = kind;
    this.faces = faces;
    this.hunmask = hunmask;
    this.declared = declared;
    this.concealed = concealed;
    this.tslot = tslot;
    let nhuns = 0;
    const faceNames = new Array(faces.length);
    for (let i = 0; i < faces.length; i++) {
      if (hunmask[i]) nhuns += 1;
      faceNames[i] = NAMES[faces[i]];
    }
    this.nhuns = nhuns;
    this.suit = SUIT_OF[faces[0]];
    this.rank = RANK_OF[faces[0]];
    this.key = key;
    this.faceNames = faceNames;
    this.smask = undefined; // its atom bits that read it alone (search.mjs)
    this.text = undefined; // its text when every tile is its own face (result.mjs)
    this.cat = false; // not a concatenation of witnesses (search.mjs)
  }
}

const GROUPS = new Map();

export function makeGroup(kind, faces, hunmask, declared = false, concealed = true, tslot = -1) {
  // the faces follow from the kind and the lowest face; hunmask holds at most 4 slots
  let hun = 0;
  for (let i = 0; i < hunmask.length; i++) if (hunmask[i]) hun |= 1 << i;
  const key = ((((kind * 34 + faces[0]) * 16 + hun) * 2 + (declared ? 1 : 0)) * 2 + (concealed ? 1 : 0)) * 8 + tslot + 1;
  let g = GROUPS.get(key);
  if (g === undefined) {
    g = new Group(kind, faces.slice(), hunmask.slice(), declared, concealed, tslot, key);
    GROUPS.set(key, g);
  }
  return g;
}

/** The group with the winning tile in slot s (-1: nowhere). */
export function withSlot(g, s) { return makeGroup(g.kind, g.faces, g.hunmask, g.declared, g.concealed, s); }

/** Python's order of group tuples (kind, faces, hunmask, declared, concealed, t_slot, …). */
export function compareGroups(a, b) {
  if (a.kind !== b.kind) return a.kind - b.kind;
  const c = compareSeq(a.faces, b.faces) || compareSeq(a.hunmask.map(Number), b.hunmask.map(Number));
  if (c) return c;
  if (a.declared !== b.declared) return a.declared ? 1 : -1;
  if (a.concealed !== b.concealed) return a.concealed ? 1 : -1;
  return a.tslot - b.tslot;
}

function compareSeq(x, y) {
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** A group's tiles as [face, hun, is_t]: the `slots` of the expression language. */
export function groupSlots(g) { return g.faces.map((f, i) => [f, g.hunmask[i], i === g.tslot]); }

/** Every face a group made only of huns may take: [melds, pairs]. */
export function wildGroups(chow) {
  const pairs = [];
  const melds = [];
  for (let k = 0; k < 34; k++) pairs.push(makeGroup(PAIR, [k, k], [true, true]));
  for (let k = 0; k < 34; k++) melds.push(makeGroup(PUNG, [k, k, k], [true, true, true]));
  if (chow) for (let k = 0; k < 27; k++) if (k % 9 <= 6) melds.push(makeGroup(CHOW, [k, k + 1, k + 2], [true, true, true]));
  return [melds, pairs];
}

/** A hand as the rules read it. Its fields are the hand-level names the rules
 * read (snake_case, as in the rule file); one class, so that every hand has the
 * same shape and the code reading them stays monomorphic. */
class Hand {
  constructor(indicator, hk, suits, t, concealed, counts, kongDraw, flags, kongChain = 1) {
    this.indicator = indicator;
    this.hun_kinds = hk.kinds;
    this.isHun = hk.isHun;
    this.hunNames = hk.names;
    this.hun_suit = SUIT_OF[indicator];
    this.suits = suits;
    this.t = t;
    this.t_hun = hk.isHun[t] === 1;
    this.concealed = concealed; // the 14 concealed tiles, t last
    this.counts = counts; // by kind, the declared melds' tiles too
    this.declared = [];
    this.huns = 0;
    this.kong_draw = kongDraw;
    this.kong_chain = kongDraw === null ? 0 : kongChain; // the kongs in a row whose last replacement won
    this.flags = flags;
  }
}

/** The hand of 13 tiles `concealed` (before t), declared `melds` ({type, tile}), won on t. */
export function newHand(rules, concealed, melds, t, indicator, kongDraw, flags, kongChain = 1) {
  const hk = rules.hunTable[indicator];
  const n = concealed.length;
  const tiles = new Array(n + 1);
  const counts = zeros34();
  for (let i = 0; i < n; i++) {
    const k = concealed[i];
    tiles[i] = k;
    counts[k] += 1;
  }
  tiles[n] = t;
  counts[t] += 1;
  const h = new Hand(indicator, hk, rules.suits, t, tiles, counts, kongDraw, flags, kongChain);
  for (const m of melds) {
    const c = m.type === "pung" ? 3 : 4;
    counts[m.tile] += c;
    const hun = hk.isHun[m.tile] === 1;
    h.declared.push(makeGroup(c === 3 ? PUNG : KONG, new Array(c).fill(m.tile), new Array(c).fill(hun), true,
      m.type === "concealed_kong"));
  }
  const kinds = hk.kinds;
  let huns = 0;
  for (let i = 0; i < kinds.length; i++) huns += counts[kinds[i]];
  h.huns = huns;
  return h;
}

/** The hand of the plain request (no declared melds): its 14 tiles (t last) and their counts, made by the caller. */
export function plainHand(rules, tiles, counts, t, indicator, kongDraw, flags) {
  const hk = rules.hunTable[indicator];
  const h = new Hand(indicator, hk, rules.suits, t, tiles, counts, kongDraw, flags);
  const kinds = hk.kinds;
  let huns = 0;
  for (let i = 0; i < kinds.length; i++) huns += counts[kinds[i]];
  h.huns = huns;
  return h;
}

export function zeros34() {
  return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
}

/** The same hand won on another tile t (tianhu/dihu try every tile of the hand as t). */
export function withT(h, t) {
  const out = new Hand(h.indicator, { kinds: h.hun_kinds, isHun: h.isHun, names: h.hunNames }, h.suits, t, h.concealed,
    h.counts, h.kong_draw, h.flags, h.kong_chain);
  out.declared = h.declared;
  out.huns = h.huns;
  return out;
}
