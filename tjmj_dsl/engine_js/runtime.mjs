// The entry points: a request in, a result out, and the JSONL batch. A port
// of engine/runtime.py. The rules reach it as the `rules` object the
// generated scorer.mjs builds (its plain data and compiled functions, the
// same members as Python's, in camelCase); prepare() adds the engine's caches.
// Nothing here knows a pattern.

import { NAMES } from "./tiles.mjs";
import { hunKindsOf, newHand, splitHuns, wildGroups, withT } from "./hand.mjs";
import { RequestError, parseRequest } from "./request.mjs";
import { claimDisplay, claimOf, invalid, result } from "./result.mjs";
import { aggOps, groupsOf, shapeByParts } from "./search.mjs";
import { dictEntries, dictGet, dictHas, dumps, isDict, loads, pyEq, pyRepr, pyStr, pyStrRepr, pyTruthy } from "./pyjson.mjs";

/** Why a request's `profile`/`options` are not the rules in force ("" if they
 * are): a request is never scored under rules it did not ask for. */
export function otherRules(rules, data) {
  if (!isDict(data)) return "";
  const prof = dictGet(data, "profile");
  if (prof !== null && !pyEq(prof, rules.profile)) {
    return `profile: this scorer is compiled for profile ${pyStrRepr(rules.profile)}, not ${pyRepr(prof)}`;
  }
  let opts = dictGet(data, "options");
  if (!pyTruthy(opts)) opts = new Map();
  if (!isDict(opts)) return "options: expected a mapping of option names to values";
  for (const [k, v] of dictEntries(opts)) {
    if (!Object.prototype.hasOwnProperty.call(rules.choiceStr, k)) return `options: no option ${pyStrRepr(k)}`;
    if (rules.choiceStr[k].toLowerCase() !== pyStr(v).toLowerCase()) {
      return `options: this scorer is compiled with ${k}=${rules.choiceRepr[k]}, not ${pyRepr(v)}`;
    }
  }
  return "";
}

/** Give a rules object the tables and caches the engine keeps on it. */
export function prepare(rules) {
  [rules.wildMelds, rules.wildPairs] = wildGroups(rules.chow);
  rules.hunTable = Array.from({ length: 34 }, (_, k) => {
    const kinds = hunKindsOf(k, rules.hunCount, rules.cycles);
    const isHun = new Uint8Array(34);
    for (const x of kinds) isHun[x] = 1;
    return { kinds, isHun };
  });
  if (rules.nbits !== undefined) rules.agg = aggOps(rules.nbits, rules.readsAnd);
  rules.resolveCache = new Map(); // held → {lifted → claim}
  rules.subsetInfo = new Map(); // a set of patterns → [closed under requires, its conflicts, fan]
  rules.claimCache = new Map(); // hand-level values the tests read → {aggregate: claim}
  rules.displayCache = new Map(); // claimed mask → formula and patterns shown
  rules.claimObjs = new Map(); // claim → {total: its Claim}
}

const requestId = (data) => (isDict(data) ? dictGet(data, "id") : null);

/** A request mapping → a result object. Never throws for a bad request: the result says what is wrong. */
export function scoreRequest(rules, data) {
  const other = otherRules(rules, data);
  if (other) return invalid(requestId(data), other);
  let req;
  try {
    req = parseRequest(data, true, rules.flags, rules.copies);
  } catch (e) {
    if (e instanceof RequestError) return invalid(requestId(data), e.toString());
    throw e;
  }
  return scoreParsed(rules, req);
}

/** [claim, concealed groups, hand] of the best reading; the claim is null when the
 * tiles make no shape. When the rules free the winning tile (天和/地和) every
 * tile of the hand is tried as t. */
export function bestClaim(rules, h) {
  if (!rules.freeT(h)) {
    const [key, groups] = rules.best(rules, h);
    return [key, groups, h];
  }
  let best = null, bestGroups = null, bestH = h;
  for (const t of [...new Set(h.concealed)].sort((a, b) => a - b)) {
    const hh = withT(h, t);
    const [key, groups] = rules.best(rules, hh);
    if (key !== null && (best === null || compareKeys(key, best) > 0)) [best, bestGroups, bestH] = [key, groups, hh];
  }
  return [best, bestGroups, bestH];
}

function compareKeys(a, b) {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] - b[1];
  return a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0;
}

export function scoreParsed(rules, req, display = true) {
  const h = newHand(rules, req.concealed, req.melds, req.draw, req.indicator, req.kongDraw, req.flags);
  const errs = rules.requestErrors(h);
  if (errs.length) return invalid(req.id, errs[0]);
  const [best, groups, bestH] = bestClaim(rules, h);
  return result(rules, req, bestH, best, groups === null || Array.isArray(groups) ? groups : groupsOf(groups), display);
}

/** Every tile that wins the 13-tile hand, each with its result; or an invalid-request result. */
export function waitsRequest(rules, data) {
  const other = otherRules(rules, data);
  if (other) return invalid(requestId(data), other);
  let req;
  try {
    req = parseRequest(data, false, rules.flags, rules.copies);
  } catch (e) {
    if (e instanceof RequestError) return invalid(requestId(data), e.toString());
    throw e;
  }
  const out = [];
  let firstError = null;
  let anyValid = false;
  const isHun = rules.hunTable[req.indicator].isHun;
  let near = null;
  if (!req.concealed.some((x) => isHun[x])) {
    // without a hun in hand a drawn tile can only join tiles it touches
    near = new Set(rules.hunTable[req.indicator].kinds);
    for (const x of req.concealed) {
      near.add(x);
      if (x < 27 && rules.chow) for (let y = x - 2; y < x + 3; y++) if (((y / 9) | 0) === ((x / 9) | 0) && y >= 0 && y < 27) near.add(y);
    }
  }
  for (let k = 0; k < 34; k++) {
    if (near !== null && !near.has(k)) continue;
    const h = newHand(rules, req.concealed, req.melds, k, req.indicator, req.kongDraw, req.flags);
    if (h.counts[k] > rules.copies) continue; // no fifth tile to draw
    const errs = rules.requestErrors(h);
    if (errs.length) {
      firstError = firstError || errs[0];
      continue;
    }
    anyValid = true;
    const [counts, wild] = splitHuns(h.concealed, h.isHun);
    if (!shapeByParts(counts, wild, 4 - req.melds.length, rules.chow)) continue;
    const [best, , bestH] = bestClaim(rules, h);
    const c = claimOf(rules, best, bestH);
    if (c.win) {
      out.push({ tile: NAMES[k], fan: c.fan, total: c.total, patterns: c.patterns.slice(),
        formula: claimDisplay(rules, best[2])[0] });
    }
  }
  if (!anyValid && firstError) return invalid(requestId(data), firstError); // no tile could be drawn into a valid hand
  return out;
}

// Python's str.strip(): the whitespace it removes at both ends
const PY_STRIP = /^[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

/** The batch contract for one line (numbered n): its JSON answer, or null for a
 * blank line. `scoreLine(request)` returns a result object (or a list for waits). */
export function jsonlLine(line, n, scoreLine) {
  const text = line.replace(PY_STRIP, "");
  if (!text) return null;
  let data;
  try {
    if (text.startsWith("\x00")) throw new Error(text.slice(1)); // the reader could not decode the line
    data = loads(text);
  } catch (e) {
    const what = text.startsWith("\x00") ? e.message : `not JSON: ${e.message}`;
    return dumps({ id: null, win: false, fan: 0, total: 0, patterns: [], formula: "", reason: "invalid_request",
      error: `line ${n}: ${what}` });
  }
  let res;
  try {
    res = scoreLine(data);
  } catch (e) { // one bad line must not stop the batch
    res = invalid(requestId(data), `line ${n}: ${e.name}: ${e.message}`);
  }
  if (Array.isArray(res)) res = { id: requestId(data), waits: res };
  else if (isDict(res) && pyTruthy(res.error) && !pyStr(res.error).startsWith("line ")) res = { ...res, error: `line ${n}: ${res.error}` };
  return dumps(res);
}

/** Python's UTF-8 decoding of one line: the text, or "\0not UTF-8 at byte N" (N: where the first bad sequence starts). */
export function decodeLine(bytes) {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) { i += 1; continue; }
    let need, lo = 0x80, hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) { need = 2; if (b === 0xe0) lo = 0xa0; if (b === 0xed) hi = 0x9f; }
    else if (b >= 0xf0 && b <= 0xf4) { need = 3; if (b === 0xf0) lo = 0x90; if (b === 0xf4) hi = 0x8f; }
    else return `\x00not UTF-8 at byte ${i}`;
    for (let j = 1; j <= need; j++) {
      const c = bytes[i + j];
      if (c === undefined || c < (j === 1 ? lo : 0x80) || c > (j === 1 ? hi : 0xbf)) return `\x00not UTF-8 at byte ${i}`;
    }
    i += need + 1;
  }
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
}

/** Run the JSONL batch on a byte stream (node's stdin): one answer per line, in
 * order, each written as soon as its line is read. */
export async function runJsonl(input, write, scoreLine) {
  let pending = [];
  let n = 0;
  const flush = (bytes) => {
    n += 1;
    const out = jsonlLine(decodeLine(bytes), n, scoreLine);
    if (out !== null) write(out + "\n");
  };
  for await (const chunk of input) {
    let start = 0;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, i + 1));
      flush(Buffer.concat(pending));
      pending = [];
      start = i + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length) flush(Buffer.concat(pending));
}

export { dictHas };
