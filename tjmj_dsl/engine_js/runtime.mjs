// The entry points: a request in, a result out, and the JSONL batch. A port
// of engine/runtime.py. The rules reach it as the `rules` object the
// generated scorer.mjs builds (its plain data and compiled functions, the
// same members as Python's, in camelCase); prepare() adds the engine's caches.
// Nothing here knows a pattern.

import { NAMES } from "./tiles.mjs";
import { newHand, plainHand, splitHuns, wildGroups, withT, zeros34 } from "./hand.mjs";
import { NO_FLAGS, ONE_TILE, RequestError, optionValue, parseRequest } from "./request.mjs";
import { claimOf, refusal, result, ruleError, rulesInfo, shownOf, waitsRefusal } from "./result.mjs";
import { MASKS, TooManyHeld, aggOps, groupsOf, pairBits, shapeByParts } from "./search.mjs";
import { JSONDecodeError, NotStrictJson, PyFloat, RepeatedKey, TooManyDigits, dictEntries, dictGet, dictHas, dumps, isDict, loads, pyEq, pyHead, pyRepr, pyShort, pyStr, pyStrRepr, pyTruthy } from "./pyjson.mjs";

/** The error object when a request's `profile`/`options` are not the rules in
 * force (null if they are): a request is never scored under rules it did not ask for. */
export function otherRules(rules, data) {
  if (!isDict(data)) return null;
  const prof = dictGet(data, "profile");
  if (prof !== null && typeof prof !== "string") return new RequestError("expected a profile name", "profile", null, "", "wrong_type").error();
  if (prof !== null && prof !== rules.profile) {
    return new RequestError(`this scorer is compiled for profile ${pyStrRepr(rules.profile)}, not ${pyShort(prof)}`, "profile",
      null, "", "rules_mismatch").error();
  }
  const opts = dictGet(data, "options");
  if (opts === null) return null;
  if (!isDict(opts)) return new RequestError("expected a mapping of option names to values", "options", null, "", "wrong_type").error();
  for (const [k, v] of dictEntries(opts)) {
    if (!Object.prototype.hasOwnProperty.call(rules.choiceRepr, k)) { // null too: a misspelt option is never silently nothing
      return new RequestError(`no option ${pyShort(k)}`, `options.${pyHead(k, 60)}`, null, "", "unknown_option").error();
    }
    if (v === null || v === undefined) continue; // null: absent
    let value;
    try { // the one rule for option values (optionValue): "2" names 2, 2.0 and true name nothing
      value = optionValue(v, rules.optionValues[k]);
    } catch (e) {
      return new RequestError(e.message, `options.${k}`, null, "", "bad_option").error();
    }
    if (value !== rules.choices[k]) {
      return new RequestError(`this scorer is compiled with ${k}=${rules.choiceRepr[k]}, not ${pyRepr(value)}`, `options.${k}`,
        null, "", "rules_mismatch").error();
    }
  }
  return null;
}

/** Give a rules object the tables and caches the engine keeps on it. */
export function prepare(rules) {
  [rules.wildMelds, rules.wildPairs] = wildGroups(rules.chow);
  rules.hunTable = Array.from({ length: 34 }, (_, k) => {
    const kinds = rules.huns[k]; // the rule file's hun.huns, evaluated for each indicator when compiled
    const isHun = new Uint8Array(34);
    for (const x of kinds) isHun[x] = 1;
    return { kinds, isHun, names: kinds.map((x) => NAMES[x]) };
  });
  if (rules.nbits !== undefined) {
    const h = newHand(rules, [], [], 0, 0, null, NO_FLAGS); // group atoms that read no hand context read no hand
    rules.agg = aggOps(rules.nbits, rules.readsAnd, pairBits(rules, h));
  }
  rules.noOptions = Object.keys(rules.info.options).length === 0; // answers then carry a fresh {} as their options
  rules.pm = rules.wideMasks ? MASKS.big : MASKS.small; // pattern masks: BigInts past 30 patterns or conflicts
  rules.resolveCache = new Map(); // held → {lifted → claim}
  rules.subsetInfo = new Map(); // a set of patterns → [closed under requires, its conflicts, fan]
  rules.claimCache = new Map(); // hand-level values the tests read → {aggregate: claim}
  rules.displayCache = new Map(); // claimed mask → formula and patterns shown
}

const requestId = (data) => (isDict(data) ? dictGet(data, "id") : null);

/** The refusal of a request (any value: a mapping, as the waits and settle answers measure, or not) whose
 * most compact JSON text would be over MAX_LINE bytes, or that is nested over MAX_NESTING deep (what a JSONL
 * line of it would get), or null: as runtime.py's oversized, counted alike (a text in code points, an
 * integer by its exact bit length), stopping at the limit. */
export function oversized(data) {
  let size = 0;
  const stack = [[data, 1]];
  while (stack.length) {
    const [x, depth] = stack.pop();
    if (typeof x === "string") size += codePointCount(x) + 2;
    else if (Array.isArray(x) || isDict(x)) {
      if (depth > MAX_NESTING) return { ...NESTED };
      const n = Array.isArray(x) ? x.length : x instanceof Map ? x.size : Object.keys(x).length;
      size += 1 + n; // its brackets and commas
      if (size > MAX_LINE) break; // before walking its items
      if (Array.isArray(x)) {
        for (const v of x) stack.push([v, depth + 1]);
      } else {
        for (const [k, v] of dictEntries(x)) {
          size += (typeof k === "string" ? codePointCount(k) : 1) + 3; // the key, its quotes, the colon
          stack.push([v, depth + 1]);
        }
      }
    } else if (typeof x === "bigint" || (typeof x === "number" && Number.isInteger(x))) {
      size += Math.floor((intBitLength(x) * 30103) / 100000) + 1; // its decimal digits, at least
    } else size += 1;
    if (size > MAX_LINE) break;
  }
  if (size <= MAX_LINE) return null;
  return { code: "too_large", message: `the request is over ${MAX_LINE} bytes as JSON; a request is at most ${MAX_LINE} (as a JSONL line is)`, field: null };
}

/** Python's len(s): code points, a surrogate pair one (a text longer than 2 * MAX_LINE is over the limit
 * whatever it holds: its UTF-16 length, halved, is counted without a walk). */
function codePointCount(s) {
  if (s.length > 2 * MAX_LINE) return s.length >> 1;
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { n--; i++; }
    }
  }
  return n;
}

/** Python's int.bit_length() of an integer (a number or a BigInt): exact, as Math.log2 is not near 2**53. */
function intBitLength(x) {
  if (typeof x === "bigint") return x === 0n ? 0 : (x < 0n ? -x : x).toString(2).length;
  return x === 0 ? 0 : Math.abs(x).toString(2).length;
}

/** A request mapping → a result object. Never throws for a bad request: the result says what is wrong. */
export function scoreRequest(rules, data) {
  const got = scorePlain(rules, data);
  if (got !== null) return got;
  const big = oversized(data);
  if (big !== null) return refusal(rules, null, big);
  const reqId = requestId(data);
  if (isDict(data) && (dictGet(data, "profile") !== null || dictGet(data, "options") !== null)) {
    const err = otherRules(rules, data);
    if (err) return refusal(rules, reqId, err);
  }
  let req;
  try {
    req = parseRequest(data, true, rules.flags, rules.copies);
  } catch (e) {
    if (e instanceof RequestError) return refusal(rules, reqId, e.error());
    throw e;
  }
  return scoreParsed(rules, req);
}

// ---- the common request, read without the general parser ----

/** The fields of a plain request (see readPlain), reused from call to call. */
const PLAIN = { concealed: null, draw: null, indicator: null, kongDraw: null, id: null, flagBits: 0 };

/** scoreRequest for the common request: the contract's own fields in canonical
 * form (concealed a compact string such as "345m123sEEE77m45s", draw and
 * indicator tile names, no declared melds, kong_draw one of the contract's or
 * null, flags true/false/null), a hand of the right size. The same answer as the
 * full path, which takes every other request (null here) and says what is
 * wrong with a bad one. As runtime.py's _score_plain. */
export function scorePlain(rules, data) {
  const P = PLAIN;
  const ok = readPlain(data, rules.flags);
  const reqId = P.id;
  P.id = null; // hold no reference to the caller's data
  if (!ok) return null;
  // an id other than null, a number or a short text: the request is measured (a long one goes the full path,
  // which refuses it as a line of it would be), as runtime.py's _score_plain
  if (reqId !== null && typeof reqId !== "number" && !(typeof reqId === "string" && reqId.length <= 1024)
      && oversized(data) !== null) return null;
  if (P.concealed === null || P.draw === null || P.indicator === null) return null;
  const draw = ONE_TILE.get(P.draw), indicator = ONE_TILE.get(P.indicator);
  if (draw === undefined || indicator === undefined) return null;
  const tiles = new Array(14);
  const counts = zeros34();
  if (compactInto(P.concealed, tiles, counts) !== 13) return null;
  tiles[13] = draw;
  counts[draw] += 1;
  const copies = rules.copies;
  for (let k = 0; k < 34; k++) if (counts[k] > copies) return null; // the full path says which kind
  let flags = NO_FLAGS;
  if (P.flagBits) {
    flags = new Set();
    for (let i = 0; i < rules.flags.length; i++) if (P.flagBits & (1 << i)) flags.add(rules.flags[i]);
  }
  const h = plainHand(rules, tiles, counts, draw, indicator, P.kongDraw, flags);
  const errs = rules.requestErrors(h);
  if (errs.length) return refusal(rules, reqId, ruleError(rules, errs[0]));
  const claimed = claimedOrHeld(rules, h);
  if (!Array.isArray(claimed)) return refusal(rules, reqId, claimed);
  const [best, groups, bestH] = claimed;
  return result(rules, reqId, bestH, best, groups === null || Array.isArray(groups) ? groups : groupsOf(groups));
}

/** Read a request that may take the plain path into PLAIN: false when it has a
 * field or a value the plain path does not take (the full path then reads it). */
function readPlain(data, flags) {
  const P = PLAIN;
  P.concealed = P.draw = P.indicator = P.kongDraw = P.id = null;
  P.flagBits = 0;
  if (data instanceof Map) {
    for (const k of data.keys()) if (!takePlain(P, k, data.get(k), flags)) return false;
    return true;
  }
  if (data === null || typeof data !== "object" || Array.isArray(data) || data instanceof PyFloat) return false;
  for (const k in data) {
    if (!Object.prototype.hasOwnProperty.call(data, k) || !takePlain(P, k, data[k], flags)) return false;
  }
  return true;
}

function takePlain(P, k, v, flags) {
  if (v === undefined) v = null; // absent, as dictGet reads it
  switch (k) {
    case "concealed":
      if (typeof v !== "string" || v.length > 1024) return false;
      P.concealed = v;
      return true;
    case "draw":
      if (typeof v !== "string") return false;
      P.draw = v;
      return true;
    case "indicator":
      if (typeof v !== "string") return false;
      P.indicator = v;
      return true;
    case "melds":
      return v === null || (Array.isArray(v) && v.length === 0);
    case "kong_draw":
      if (v !== null && !KONG_DRAWS.includes(v)) return false;
      P.kongDraw = v;
      return true;
    case "id":
      P.id = v;
      return true;
    default: {
      const i = flags.indexOf(k);
      if (i < 0 || i > 30) return false;
      if (v === true) P.flagBits |= 1 << i;
      else if (v !== false && v !== null) return false;
      return true;
    }
  }
}

/** The tiles of a string in the compact notation (digits then their suit
 * letter, honor letters: "345m123sEEE77m45s") into tiles and counts; how many,
 * or -1 when the string is not in that form (the tile parser reads it then). */
function compactInto(text, tiles, counts) {
  let n = 0, run = 0;
  const len = text.length;
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i);
    if (c >= 49 && c <= 57) { // 1-9
      run += 1;
      continue;
    }
    let base;
    if (c === 109) base = -1; // m
    else if (c === 112) base = 8; // p
    else if (c === 115) base = 17; // s
    else {
      const k = c < 128 ? HONOR_KIND[c] : 0;
      if (!k || run) return -1; // not a tile letter, or digits without their suit
      if (n === 14) return -1;
      tiles[n++] = k;
      counts[k] += 1;
      continue;
    }
    if (!run || n + run > 14) return -1;
    for (let j = i - run; j < i; j++) {
      const k = base + text.charCodeAt(j) - 48;
      tiles[n++] = k;
      counts[k] += 1;
    }
    run = 0;
  }
  return run ? -1 : n;
}
const HONOR_KIND = new Uint8Array(128); // E S W N C F P → 27..33 (0: not an honor letter)
for (let i = 0; i < 7; i++) HONOR_KIND["ESWNCFP".charCodeAt(i)] = 27 + i;

/** [claim, concealed groups, hand] of the best reading; the claim is null when the
 * tiles make no shape. When the rules free the winning tile (tianhu/dihu) every
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
  const h = newHand(rules, req.concealed, req.melds, req.draw, req.indicator, req.kongDraw, req.flags, req.kongChain);
  const errs = rules.requestErrors(h);
  if (errs.length) return refusal(rules, req.id, ruleError(rules, errs[0]));
  const claimed = claimedOrHeld(rules, h);
  if (!Array.isArray(claimed)) return refusal(rules, req.id, claimed);
  const [best, groups, bestH] = claimed;
  return result(rules, req.id, bestH, best, groups === null || Array.isArray(groups) ? groups : groupsOf(groups), display);
}

/** bestClaim(rules, h), or the error object of a hand on which more patterns hold than the scorer weighs
 * (MAX_HELD), as runtime.py's held_error. */
function claimedOrHeld(rules, h) {
  try {
    return bestClaim(rules, h);
  } catch (e) {
    if (e instanceof TooManyHeld) return { code: "too_many_patterns", message: e.message, field: null };
    throw e;
  }
}

/** Every tile that wins the 13-tile hand, each with its fan: the waits answer
 * {contract, rules, id, waits}, or a refusal in the same shape. */
export function waitsRequest(rules, data) {
  const big = isDict(data) ? oversized(data) : null; // as runtime.py's _waits_request: a mapping is measured
  if (big !== null) return waitsRefusal(rules, null, big);
  const reqId = requestId(data);
  const err = otherRules(rules, data);
  if (err) return waitsRefusal(rules, reqId, err);
  let req;
  try {
    req = parseRequest(data, false, rules.flags, rules.copies);
  } catch (e) {
    if (e instanceof RequestError) return waitsRefusal(rules, reqId, e.error());
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
    const h = newHand(rules, req.concealed, req.melds, k, req.indicator, req.kongDraw, req.flags, req.kongChain);
    if (h.counts[k] > rules.copies) continue; // no fifth tile to draw
    const errs = rules.requestErrors(h);
    if (errs.length) {
      firstError = firstError || errs[0];
      continue;
    }
    anyValid = true;
    const [counts, wild] = splitHuns(h.concealed, h.isHun);
    if (!shapeByParts(counts, wild, 4 - req.melds.length, rules.chow)) continue;
    const claimed = claimedOrHeld(rules, h);
    if (!Array.isArray(claimed)) return waitsRefusal(rules, reqId, claimed);
    const [best, , bestH] = claimed;
    const c = claimOf(rules, best, bestH);
    if (c.win) {
      const shown = shownOf(rules, best);
      out.push({ tile: NAMES[k], fan: c.fan, total: c.total, patterns: c.patterns.slice(), names: shown[4].slice(),
        formula: shown[0] });
    }
  }
  if (!anyValid && firstError) return waitsRefusal(rules, reqId, ruleError(rules, firstError)); // no tile could be drawn
  return { contract: CONTRACT, rules: rulesInfo(rules), id: req.id, waits: out };
}

// Limits of the batch (engine/runtime.py's, docs/reliability.md)
const MAX_LINE = 65536; // bytes of one request line; a request is about 100
const MAX_NESTING = 64; // arrays and objects inside one another in one line; a request needs 3
/** A line the reader could not take (not UTF-8, too long): an object, so no text of a line can pass for one. */
class LineProblem {
  constructor(code, position) { this.code = code; this.position = position; }
}
const TOO_LONG = new LineProblem("too_large", null);

/** How deep arrays and objects nest (brackets inside strings not counted). */
function nesting(text) {
  let depth = 0, best = 0, inStr = false, esc = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inStr) {
      if (esc) esc = false;
      else if (c === "\\") esc = true;
      else if (c === '"') inStr = false;
    } else if (c === '"') inStr = true;
    else if (c === "[" || c === "{") { depth += 1; if (depth > best) best = depth; }
    else if (c === "]" || c === "}") depth -= 1;
  }
  return best;
}

function brackets(text) {
  let n = 0;
  for (let i = 0; i < text.length; i++) { const c = text.charCodeAt(i); if (c === 0x5b || c === 0x7b) n += 1; }
  return n;
}

/** The batch contract for one line: its JSON answer (strict JSON, one line), or
 * null for a blank line. `answer(request)` returns the answer object;
 * `refuse(id, error)` the refusal in the shape this batch answers in. As
 * runtime.py's jsonl, line for line. */
// JSON's whitespace (RFC 8259), all a line may hold around its request (runtime.py's JSON_SPACE)
const JSON_SPACE = /^[ \t\n\r]+|[ \t\n\r]+$/g;
const JSON_LEAD = /^[ \t\n\r]*/;

export function jsonlLine(line, answer, refuse) {
  if (line instanceof LineProblem) { // the reader could not take the line
    const message = line.code === "not_utf8" ? `not UTF-8 at byte ${line.position}` : `the line is longer than ${MAX_LINE} bytes`;
    const err = { code: line.code, message, field: null };
    if (line.position !== null) err.position = line.position;
    return dumps(refuse(null, err));
  }
  const text = line.replace(JSON_SPACE, ""); // as runtime.py: JSON's whitespace only
  if (!text) return null;
  let data;
  if (brackets(text) > MAX_NESTING && nesting(text) > MAX_NESTING) return dumps(refuse(null, { ...NESTED }));
  try {
    data = loads(text);
  } catch (e) {
    if (e instanceof RangeError) return dumps(refuse(null, { ...NESTED })); // the reader's stack ran out
    const lead = text[0] === line[0] ? 0 : JSON_LEAD.exec(line)[0].length; // where in the line as sent
    const message = e instanceof JSONDecodeError && lead
      ? `${e.msg}: line ${e.lineno} column ${e.lineno === 1 ? e.colno + lead : e.colno} (char ${e.pos + lead})` : e.message;
    const head = e instanceof RepeatedKey || e instanceof TooManyDigits ? "not JSON this scorer reads" : "not JSON";
    return dumps(refuse(null, { code: "not_json", message: `${head}: ${message}`, field: null, position: (e.pos ?? 0) + lead }));
  }
  let res;
  try {
    res = answer(data);
  } catch (e) { // one bad line must not stop the batch
    res = refuse(requestId(data), { code: "internal_error", message: `${e.name}: ${e.message}`, field: null });
  }
  try {
    return dumps(res, true);
  } catch (e) {
    if (e instanceof NotStrictJson) return dumps(refuse(null, { ...UNWRITABLE_ID })); // NaN or Infinity in the id
    throw e;
  }
}
// runtime.py's error objects for these lines
const NESTED = { code: "not_json", message: `not JSON this scorer reads: arrays and objects nested more than ${MAX_NESTING} deep`,
  field: null };
const UNWRITABLE_ID = { code: "bad_value", message: "id: NaN, Infinity and numbers past a float's range (1e999) have no JSON text, so no answer could carry this id",
  field: "id" };

/** Python's UTF-8 decoding of one line: the text, or a not_utf8 LineProblem at the first bad sequence. */
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
    else return new LineProblem("not_utf8", i);
    for (let j = 1; j <= need; j++) {
      const c = bytes[i + j];
      if (c === undefined || c < (j === 1 ? lo : 0x80) || c > (j === 1 ? hi : 0xbf)) return new LineProblem("not_utf8", i);
    }
    i += need + 1;
  }
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
}

/** Run the JSONL batch: request lines from a byte stream (node's stdin), one
 * answer per line on `output` (node's stdout), in order, each written as soon
 * as its line is read (so a co-process gets its answer before it sends the
 * next line), waiting while the reader is behind. A line over MAX_LINE bytes
 * is not kept (its bytes are dropped as they come) and gets one too_large
 * refusal. Returns false when the reader has gone (a closed pipe: the batch
 * stops there, and that is no error), true at the end of the input. */
export async function runJsonl(input, output, answer, refuse) {
  let closed = false;
  const gone = (e) => { // EPIPE: the reader closed the pipe; what is still to write has nobody to read it
    if (e && (e.code === "EPIPE" || e.code === "ERR_STREAM_DESTROYED")) closed = true;
    else throw e;
  };
  output.on("error", gone);
  let pending = [];
  let size = 0;
  let tooLong = false;
  let behind = false;
  const add = (part) => {
    if (tooLong) return;
    size += part.length;
    if (size > MAX_LINE) { tooLong = true; pending = []; } else pending.push(part);
  };
  const finish = () => {
    const out = jsonlLine(tooLong ? TOO_LONG : decodeLine(Buffer.concat(pending)), answer, refuse);
    if (out !== null && !closed && !output.write(out + "\n")) behind = true;
    pending = [];
    size = 0;
    tooLong = false;
  };
  for await (const chunk of input) {
    let start = 0;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, start)) {
      add(chunk.subarray(start, i));
      finish();
      start = i + 1;
    }
    if (start < chunk.length) add(chunk.subarray(start));
    if (behind && !closed) await drained(output);
    behind = false;
    if (closed) return false;
  }
  if (size > 0 || tooLong) finish();
  if (behind && !closed) await drained(output);
  return !closed;
}

/** Until a stream that asked the writer to wait has written its buffer (or failed, or closed). */
function drained(output) {
  return new Promise((done) => {
    const finish = () => {
      output.off("drain", finish);
      output.off("close", finish);
      output.off("error", finish);
      done();
    };
    output.on("drain", finish);
    output.on("close", finish);
    output.on("error", finish);
  });
}
