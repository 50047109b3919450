// A scoring request: the JSONL mapping → a checked request, or a RequestError
// naming the field and what is wrong (a port of engine/request.py, the same
// messages). Generic: no rule of any game is here.

import { NAMES, TileError, parseTiles } from "./tiles.mjs";
import { PyFloat, dictGet, dictKeys, isDict, isInt, pyEq, pyHead, pyRepr, pyShort, pyStr, pyStrRepr, pyTruthy } from "./pyjson.mjs";

// MELD_TYPES, KONG_DRAWS, KONG_CHAIN_MAX, REQUEST_FIELDS: the contract's (engine/contract.py), written
// into every scorer.mjs by the code generator
export const ONE_TILE = new Map(NAMES.map((n, k) => [n, k])); // the canonical names, read without the parser

/** What is wrong with a request: a contract error `code`, the `field` (dotted:
 * melds[0].type) and `pos`, the 0-based character inside it. */
export class RequestError {
  constructor(message, field = null, pos = null, hint = "", code = "bad_value") {
    this.message = message;
    this.field = field ?? null;
    this.pos = pos;
    this.hint = hint;
    this.code = code;
  }

  /** The contract's error object. */
  error() {
    const out = { code: this.code, message: this.toString(), field: this.field }; // null: no field; "" a field's name
    if (this.pos !== null) out.position = this.pos;
    return out;
  }

  /** The text Python's str(RequestError) gives. */
  toString() {
    const where = (this.field ?? "") + (this.pos !== null ? ` (at character ${this.pos + 1})` : "");
    const out = where ? `${where}: ${this.message}` : this.message;
    return out + (this.hint ? ` (hint: ${this.hint})` : "");
  }
}

/** A string of tiles, or a list of one-tile strings. */
function tilesOf(value, field) {
  if (typeof value === "string") {
    try {
      return parseTiles(value);
    } catch (e) {
      if (e instanceof TileError) throw new RequestError(e.message, field, e.pos, e.hint, "bad_tile");
      throw e;
    }
  }
  if (Array.isArray(value)) return value.map((x, i) => tileOf(x, `${field}[${i}]`));
  throw new RequestError(`expected a string of tiles or a list of tiles, got ${jsonType(value)}`, field, null, "",
    "wrong_type");
}

function tileOf(value, field) {
  const k = typeof value === "string" ? ONE_TILE.get(value) : undefined;
  if (k !== undefined) return k;
  if (typeof value !== "string") {
    throw new RequestError(`expected one tile as a string, got ${jsonType(value)}`, field, null, "", "wrong_type");
  }
  let ts;
  try {
    ts = parseTiles(value);
  } catch (e) {
    if (e instanceof TileError) throw new RequestError(e.message, field, e.pos, e.hint, "bad_tile");
    throw e;
  }
  if (ts.length !== 1) {
    throw new RequestError(`expected one tile, found ${ts.length}`, field, null, 'e.g. "7p", "E" or "五万"', "bad_tile");
  }
  return ts[0];
}

/** The JSON name of a value's type, for messages. */
export function jsonType(value) {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return "a boolean";
  if (typeof value === "number" || typeof value === "bigint" || value instanceof PyFloat) return "a number";
  if (typeof value === "string") return "a string";
  if (Array.isArray(value)) return "an array";
  return "an object";
}

function boolOf(value, field) {
  if (value === null) return false;
  if (value !== true && value !== false) {
    throw new RequestError(`expected true or false, got ${pyRepr(value)}`, field, null, "", "wrong_type");
  }
  return value;
}

/** Read a request mapping. Field names are exact (the contract's, and the rule
 * file's boolean `flags`); unknown ones are errors, so a typo never silently
 * changes a score. `null` means absent. Returns {concealed, melds, draw,
 * indicator, kongDraw, kongChain, flags, id}. */
export function parseRequest(data, needDraw = true, flags = [], copies = 4) {
  if (!isDict(data)) throw new RequestError(`a request is a JSON object, got ${jsonType(data)}`, null, null, "", "not_object");
  for (const k of data instanceof Map ? data.keys() : ownKeys(data)) {
    if (!REQUEST_FIELDS.includes(k) && !flags.includes(k)) {
      const known = REQUEST_FIELDS.concat(flags);
      const near = known.filter((f) => isClose(k, f));
      throw new RequestError(`unknown field ${pyShort(k)}`, pyHead(k, 60), null,
        near.length ? `did you mean ${pyStrRepr(near[0])}?` : "fields are " + known.join(", "), "unknown_field");
    }
  }
  const cIn = dictGet(data, "concealed");
  if (cIn === null) {
    throw new RequestError("missing", "concealed", null, 'the tiles in hand before the winning tile, e.g. "345m123sEEE77m45s"',
      "missing_field");
  }
  const iIn = dictGet(data, "indicator");
  if (iIn === null) {
    throw new RequestError("missing", "indicator", null, 'the flipped tile that names the huns, e.g. "7p"', "missing_field");
  }
  const concealed = tilesOf(cIn, "concealed");
  const meldsIn = dictGet(data, "melds");
  let melds = [];
  if (pyTruthy(meldsIn)) {
    if (!Array.isArray(meldsIn)) throw new RequestError('expected a list of {"type": …, "tile": …}', "melds", null, "", "wrong_type");
    melds = meldsIn.map((m, i) => {
      const f = `melds[${i}]`;
      const extra = isDict(m) && dictKeys(m).some((k) => k !== "type" && k !== "tile");
      if (!isDict(m) || extra || dictGet(m, "type") === null || dictGet(m, "tile") === null) {
        throw new RequestError('expected {"type": "pung"|"kong"|"concealed_kong", "tile": "5p"}', f, null, "",
          !isDict(m) ? "wrong_type" : extra ? "unknown_field" : "missing_field");
      }
      const type = dictGet(m, "type");
      if (!MELD_TYPES.includes(type)) {
        throw new RequestError(`unknown meld type ${pyRepr(type)}`, f + ".type", null, "one of " + MELD_TYPES.join(", "));
      }
      return { type, tile: tileOf(dictGet(m, "tile"), f + ".tile") };
    });
  } else if (meldsIn !== null && !(Array.isArray(meldsIn) && meldsIn.length === 0)) {
    throw new RequestError('expected a list of {"type": …, "tile": …}', "melds", null, "", "wrong_type");
  }
  const drawIn = dictGet(data, "draw");
  const draw = drawIn === null ? null : tileOf(drawIn, "draw");
  if (needDraw && draw === null) {
    throw new RequestError("missing", "draw", null, "the winning tile; `waits` takes a request without it", "missing_field");
  }
  if (!needDraw && draw !== null) {
    throw new RequestError("a waits request has no draw", "draw", null, "leave out draw to list the tiles that win",
      "unexpected_field");
  }
  const kd = dictGet(data, "kong_draw");
  if (kd !== null && !KONG_DRAWS.includes(kd)) {
    throw new RequestError(`unknown kong_draw ${pyShort(kd)}`, "kong_draw", null, "null, or one of " + KONG_DRAWS.join(", "),
      typeof kd === "string" ? "bad_value" : "wrong_type");
  }
  const kc = dictGet(data, "kong_chain");
  if (kc !== null) kongChainError(kc, kd);
  const indicator = tileOf(iIn, "indicator");
  const set = flags.length ? new Set(flags.filter((f) => boolOf(dictGet(data, f), f))) : NO_FLAGS;
  const req = { concealed, melds, draw, indicator, kongDraw: kd, kongChain: kc === null ? 1 : Number(kc), flags: set,
    id: dictGet(data, "id") };
  checkTiles(req.concealed, req.melds, req.draw, copies);
  return req;
}
export const NO_FLAGS = new Set(); // a request with no flag set (shared: never changed)

/** A RequestError for a kong_chain (not null) that is not a count from 1 to KONG_CHAIN_MAX or comes without
 * kong_draw (as request.py's kong_chain_error). */
export function kongChainError(kc, kd) {
  if (!isInt(kc)) {
    throw new RequestError(`expected a count from 1 to ${KONG_CHAIN_MAX}, got ${pyShort(kc)}`, "kong_chain", null, "",
      "wrong_type");
  }
  if (!(kc >= 1 && kc <= KONG_CHAIN_MAX)) {
    throw new RequestError(`expected a count from 1 to ${KONG_CHAIN_MAX}, got ${pyShort(kc)}`, "kong_chain", null,
      "the kongs made in a row, the winning tile replacing the last");
  }
  if (kd === null) {
    throw new RequestError("kong_chain without kong_draw", "kong_chain", null,
      "a chain of kongs ends in a win on a replacement tile: set kong_draw too, or leave out kong_chain", "unexpected_field");
  }
}

/** A plain object's own keys, in their order (a generator: no array for the common case). */
function* ownKeys(o) {
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k)) yield k;
}

/** The hand's size and the number of copies of each kind (RequestError if wrong). */
export function checkTiles(concealed, melds, draw, copies) {
  if (melds.length > 4) {
    throw new RequestError(`${melds.length} declared melds; a hand has at most 4`, "melds", null, "", "too_many_melds");
  }
  const want = 13 - 3 * melds.length;
  if (concealed.length !== want) {
    throw new RequestError(
      `${concealed.length} tiles; with ${melds.length} declared meld(s) the hand holds ${want} before the winning tile`,
      "concealed", null, "a kong counts as one meld of 3 plus one extra tile; do not list declared melds here", "tile_count");
  }
  const counts = new Array(34).fill(0);
  for (const k of concealed) counts[k] += 1;
  if (draw !== null) counts[draw] += 1;
  for (const m of melds) counts[m.tile] += m.type === "pung" ? 3 : 4;
  const k = counts.findIndex((c) => c > copies);
  if (k >= 0) {
    throw new RequestError(`${counts[k]} tiles of ${NAMES[k]}; there are only ${copies}`, "concealed", null, "", "too_many_copies");
  }
}

/** A value as the command line writes it: true/false, 3, text (request._text). */
function textOf(v) { return v === true ? "true" : v === false ? "false" : pyStr(v); }

const isFloat = (v) => v instanceof PyFloat || (typeof v === "number" && !Number.isInteger(v));

/** The declared value of an option that `value` names (request.option_value):
 * the value itself (same JSON type), or its text ("3" names 3, "true" names
 * true), or a whole number names the choice spelt with it (4 names "4"). A
 * float or a boolean never names another type's value. Throws an Error saying why. */
export function optionValue(value, declared) {
  for (const d of declared) {
    if (typeof d === "string" ? value === d : typeof d === "boolean" ? value === d : isInt(value) && pyEq(d, value)) return d;
  }
  for (const d of declared) {
    if (typeof value === "string" && typeof d !== "string" && textOf(d) === value) return d;
    if (typeof d === "string" && isInt(value) && String(value) === d) return d;
  }
  const shown = declared.map((d) => (typeof d === "string" ? pyStrRepr(d) : textOf(d))).join(", ");
  let why;
  if (isFloat(value)) why = `${pyRepr(value)} is a decimal number; the values are ${shown}`;
  else if (typeof value === "boolean") why = `${textOf(value)} is a boolean; the values are ${shown}`;
  else if (value === null || value === undefined) why = `expected one of ${shown}, got null`;
  else if (Array.isArray(value)) why = `expected one of ${shown}, got list`;
  else if (isDict(value)) why = `expected one of ${shown}, got dict`;
  else why = `${pyShort(value)} is not one of ${shown}`;
  throw new Error(why);
}

/** Levenshtein distance over characters, for did-you-mean hints. */
export function editDistance(a, b) {
  const A = [...a], B = [...b];
  let prev = Array.from({ length: B.length + 1 }, (_, j) => j);
  A.forEach((ca, i) => {
    const cur = [i + 1];
    B.forEach((cb, j) => cur.push(Math.min(prev[j + 1] + 1, cur[j] + 1, prev[j] + (ca !== cb ? 1 : 0))));
    prev = cur;
  });
  return prev[B.length];
}

/** Near enough for a did-you-mean hint. */
export function isClose(a, b) { return Math.abs([...a].length - [...b].length) <= 2 && editDistance(a, b) <= 2; }
