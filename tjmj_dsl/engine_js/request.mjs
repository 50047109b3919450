// A scoring request: the JSONL mapping → a checked request, or a RequestError
// naming the field and what is wrong (a port of engine/request.py, the same
// messages). Generic: no rule of any game is here.

import { NAMES, TileError, parseTiles } from "./tiles.mjs";
import { dictGet, dictHas, dictKeys, isDict, pyRepr, pyStrRepr, pyTruthy, typeName } from "./pyjson.mjs";

export const MELD_TYPES = ["pung", "kong", "concealed_kong"];
export const KONG_DRAWS = ["exposed", "concealed", "hun"];
export const FIELDS = ["id", "concealed", "melds", "draw", "indicator", "kong_draw", "profile", "options"];

/** What is wrong with a request, and where (`field`, `pos` inside it). */
export class RequestError extends Error {
  constructor(message, field = "", pos = null, hint = "") {
    super(message);
    this.name = "RequestError";
    this.field = field;
    this.pos = pos;
    this.hint = hint;
  }

  /** The text Python's str(RequestError) gives. */
  toString() {
    const where = this.field + (this.pos !== null ? ` (at character ${this.pos + 1})` : "");
    const out = where ? `${where}: ${this.message}` : this.message;
    return out + (this.hint ? ` (hint: ${this.hint})` : "");
  }
}

function tilesOf(value, field) {
  if (typeof value !== "string") throw new RequestError(`expected a string of tiles, got ${typeName(value)}`, field);
  try {
    return parseTiles(value);
  } catch (e) {
    if (e instanceof TileError) throw new RequestError(e.message, field, e.pos, e.hint);
    throw e;
  }
}

function tileOf(value, field) {
  const ts = tilesOf(value, field);
  if (ts.length !== 1) {
    throw new RequestError(`expected one tile, found ${ts.length}`, field, null, 'e.g. "7p", "E" or "五万"');
  }
  return ts[0];
}

function boolOf(value, field) {
  if (value === null) return false;
  if (typeof value !== "boolean") throw new RequestError(`expected true or false, got ${pyRepr(value)}`, field);
  return value;
}

/** Read a request mapping. Field names are exact (the fixed ones, and the rule
 * file's boolean `flags`); unknown ones are errors, so a typo never silently
 * changes a score. Returns {concealed, melds, draw, indicator, kongDraw, flags, id}. */
export function parseRequest(data, needDraw = true, flags = [], copies = 4) {
  if (!isDict(data)) throw new RequestError(`a request is a JSON object, got ${typeName(data)}`);
  const known = FIELDS.concat(flags);
  for (const k of dictKeys(data)) {
    if (!known.includes(k)) {
      const near = known.filter((f) => close(k, f));
      throw new RequestError(`unknown field ${pyStrRepr(k)}`, k, null,
        near.length ? `did you mean ${pyStrRepr(near[0])}?` : "fields are " + known.join(", "));
    }
  }
  if (!dictHas(data, "concealed")) {
    throw new RequestError("missing", "concealed", null, 'the tiles in hand before the winning tile, e.g. "345m123sEEE77m45s"');
  }
  if (!dictHas(data, "indicator")) {
    throw new RequestError("missing", "indicator", null, 'the flipped tile that names the huns, e.g. "7p"');
  }
  const concealed = tilesOf(dictGet(data, "concealed"), "concealed");
  let meldsIn = dictGet(data, "melds");
  if (!pyTruthy(meldsIn)) meldsIn = [];
  if (!Array.isArray(meldsIn)) throw new RequestError('expected a list of {"type": …, "tile": …}', "melds");
  const melds = [];
  meldsIn.forEach((m, i) => {
    const f = `melds[${i}]`;
    if (!isDict(m) || dictKeys(m).some((k) => k !== "type" && k !== "tile") || !dictHas(m, "type") || !dictHas(m, "tile")) {
      throw new RequestError('expected {"type": "pung"|"kong"|"concealed_kong", "tile": "5p"}', f);
    }
    const type = dictGet(m, "type");
    if (!MELD_TYPES.includes(type)) {
      throw new RequestError(`unknown meld type ${pyRepr(type)}`, f + ".type", null, "one of " + MELD_TYPES.join(", "));
    }
    melds.push({ type, tile: tileOf(dictGet(m, "tile"), f + ".tile") });
  });
  const drawIn = dictGet(data, "draw");
  const draw = drawIn === null ? null : tileOf(drawIn, "draw");
  if (needDraw && draw === null) {
    throw new RequestError("missing", "draw", null, "the winning tile; `waits` takes a request without it");
  }
  if (!needDraw && draw !== null) {
    throw new RequestError("a waits request has no draw", "draw", null, "leave out draw to list the tiles that win");
  }
  const kd = dictGet(data, "kong_draw");
  if (kd !== null && !KONG_DRAWS.includes(kd)) {
    throw new RequestError(`unknown kong_draw ${pyRepr(kd)}`, "kong_draw", null, "null, or one of " + KONG_DRAWS.join(", "));
  }
  const indicator = tileOf(dictGet(data, "indicator"), "indicator");
  const set = new Set(flags.filter((f) => boolOf(dictGet(data, f), f)));
  const req = { concealed, melds, draw, indicator, kongDraw: kd, flags: set, id: dictGet(data, "id") };
  checkTiles(req.concealed, req.melds, req.draw, copies);
  return req;
}

/** The hand's size and the number of copies of each kind (RequestError if wrong). */
export function checkTiles(concealed, melds, draw, copies) {
  if (melds.length > 4) throw new RequestError(`${melds.length} declared melds; a hand has at most 4`, "melds");
  const want = 13 - 3 * melds.length;
  if (concealed.length !== want) {
    throw new RequestError(
      `${concealed.length} tiles; with ${melds.length} declared meld(s) the hand holds ${want} before the winning tile`,
      "concealed", null, "a kong counts as one meld of 3 plus one extra tile; do not list declared melds here");
  }
  const counts = new Array(34).fill(0);
  for (const k of concealed) counts[k] += 1;
  if (draw !== null) counts[draw] += 1;
  for (const m of melds) counts[m.tile] += m.type === "pung" ? 3 : 4;
  const k = counts.findIndex((c) => c > copies);
  if (k >= 0) throw new RequestError(`${counts[k]} tiles of ${NAMES[k]}; there are only ${copies}`, "concealed");
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

function close(a, b) { return Math.abs([...a].length - [...b].length) <= 2 && editDistance(a, b) <= 2; }
