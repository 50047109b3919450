// Settlement at run time: an outcome (what happened at the table) → the
// payments the rule file's payment rules produce, the four balances and the
// next dealer. A port of engine/settle.py (the same checks and messages). The
// rules object carries `settlement` (null without a settlement: section):
// {play, scoreTable, checks(o) -> [[field, message]], payments: [[id, reason,
// amount text, term spans, when text, fn(o) -> [rows, skipped]]], nextDealer(o)}.
// Seats are 0-3, turn order 0→1→2→3→0; a kong is [seat, type, tile, points, won, from, ended] (from: the seat
// whose discard was konged, or null; ended: the kong ended the hand as its maker's win), a go-round
// [number, discards, claimed] (number 1 for the hand's first).

import { NAMES, TileError, parseTiles } from "./tiles.mjs";
import { RequestError, isClose, jsonType } from "./request.mjs";
import { rulesInfo } from "./result.mjs";
import { otherRules, oversized } from "./runtime.mjs";
import { dictGet, dictHas, dictKeys, isDict, isInt, pyEq, pyRepr, pyStrip, pyStrRepr } from "./pyjson.mjs";

// SEATS, KONG_TYPES, OUTCOME_FIELDS, OUTCOME_KONG_FIELDS, OUTCOME_ROUND_FIELDS, MAX_ROUNDS, MAX_TOTAL: the
// contract's (engine/contract.py)
const MAX_KONGS = 16; // four melds a seat, each at most a kong
const MAX_LAZHUANG = 62; // far above any rule's limit; keeps pow() of a hostile count small

/** A `from`/`to` value as a list of seats: a seat, a list of seats, or none. */
export function seatList(x) { return x === null ? [] : Array.isArray(x) ? x : [x]; }

/** The three seats other than s, in turn order after s (none: no seat). */
export function others(s) { return s === null ? [] : [(s + 1) % SEATS, (s + 2) % SEATS, (s + 3) % SEATS]; }

/** Python's OverflowError: the name a refusal's message gives, as the Python scorer's does. */
class OverflowError extends Error {
  constructor(message) { super(message); this.name = "OverflowError"; }
}

/** b to the power e, with e taken between 0 and 63; a power past 2^53 - 1 throws (the outcome is
 * refused, settlement_failed), as in the Python scorer (engine/settle.py bounded_pow). */
export function boundedPow(b, e) {
  const r = Number(b) ** Math.min(Math.max(Math.trunc(Number(e)), 0), 63);
  if (!(Math.abs(r) <= Number.MAX_SAFE_INTEGER)) throw new OverflowError(`a power past ${PAST_EXACT}`);
  return r;
}

function kongPointsOf(rules, typ) {
  const key = typ === "added" ? (rules.settlement.play.added_kong_as ?? "exposed") : typ;
  return Number(rules.kongPoints[key]);
}

const isSeat = (v) => typeof v === "number" && Number.isInteger(v) && v >= 0 && v < SEATS;

function seatOf(v, field, nullable = false) {
  if (v === null && nullable) return null;
  if (!isSeat(v)) {
    throw new RequestError(`expected ${nullable ? "a seat (0-3) or null" : "a seat (0-3)"}, got ${pyRepr(v)}`, field, null, "",
      isInt(v) ? "bad_value" : "wrong_type");
  }
  return v;
}

function flagOf(v, field) {
  if (v === null) return false;
  if (typeof v !== "boolean") throw new RequestError(`expected true or false, got ${pyRepr(v)}`, field, null, "", "wrong_type");
  return v;
}

const problem = (message, field, code, hint = "") => new RequestError(message, field, null, hint, code);

/** Read an outcome mapping; RequestError names the field that is wrong.
 * Absent or null optional fields mean false / none / empty. */
function parseOutcome(rules, data) {
  if (!isDict(data)) throw problem(`an outcome is a JSON object, got ${jsonType(data)}`, null, "not_object");
  for (const k of dictKeys(data)) {
    if (!OUTCOME_FIELDS.includes(k)) {
      const near = OUTCOME_FIELDS.filter((f) => isClose(k, f));
      throw problem(`unknown field ${pyStrRepr(k)}`, k, "unknown_field",
        near.length ? `did you mean ${pyStrRepr(near[0])}?` : "fields are " + OUTCOME_FIELDS.join(", "));
    }
  }
  const o = {};
  if (dictGet(data, "dealer") === null) throw problem("missing", "dealer", "missing_field", "the dealer's seat, 0-3");
  o.dealer = seatOf(dictGet(data, "dealer"), "dealer");
  if (!dictHas(data, "winner")) throw problem("missing", "winner", "missing_field", "the winner's seat, or null for a drawn hand (huangzhuang)");
  o.winner = seatOf(dictGet(data, "winner"), "winner", true);
  const total = dictGet(data, "total");
  if (o.winner === null) {
    if (!(total === null || pyEq(total, 0)) || typeof total === "boolean") {
      throw problem(`a drawn hand (winner null) has no total, got ${pyRepr(total)}`, "total", "unexpected_field");
    }
    o.total = 0;
  } else {
    if (total === null) throw problem("missing", "total", "missing_field", "the winner's score-table total (score()'s `total`)");
    if (!isInt(total) || !(total >= 0 && total <= MAX_TOTAL)) {
      throw problem(`expected a whole number from 0 to ${String(MAX_TOTAL).replace(/\B(?=(\d{3})+$)/g, ",")}, got ${pyRepr(total)}`, "total", isInt(total) ? "bad_value" : "wrong_type");
    }
    if (Number(total) < rules.minFan) {  // every score table's total of a win is at least its fan, and a win's fan min_fan
      throw problem(`a win's total is at least ${rules.minFan} (the rules' min_fan), got ${Number(total)}`, "total", "bad_value",
        "the winner's score-table total (score()'s `total`)");
    }
    o.total = Number(total);
  }
  o.zuozhuang = flagOf(dictGet(data, "zuozhuang"), "zuozhuang");
  let lz = dictGet(data, "lazhuang");
  if (lz === null) lz = new Array(SEATS).fill(0);
  if (!Array.isArray(lz) || lz.length !== SEATS) {
    throw problem(`expected a list of ${SEATS} counts, one per seat`, "lazhuang", Array.isArray(lz) ? "bad_value" : "wrong_type");
  }
  lz.forEach((n, i) => {
    if (!isInt(n) || !(n >= 0 && n <= MAX_LAZHUANG)) {
      throw problem(`expected a count from 0 to ${MAX_LAZHUANG}, got ${pyRepr(n)}`, `lazhuang[${i}]`, isInt(n) ? "bad_value" : "wrong_type");
    }
  });
  o.lazhuang = lz.map(Number);
  let kongsIn = dictGet(data, "kongs");
  if (kongsIn === null) kongsIn = [];
  if (!Array.isArray(kongsIn)) throw problem('expected a list of {"seat", "type", "tile", "won", "from", "ended"}', "kongs", "wrong_type");
  if (kongsIn.length > MAX_KONGS) throw problem(`${kongsIn.length} kongs; a hand has at most ${MAX_KONGS}`, "kongs", "bad_value");
  const kongs = [];
  const seen = new Map();
  const perSeat = new Array(SEATS).fill(0);
  let won = -1;
  let ended = -1;
  // the kong types a claimed discard makes: exposed, and what play.hun_kong_exposed_as makes of three huns and
  // a discarded one
  const hx = rules.settlement.play.hun_kong_exposed_as;
  const claimed = ["exposed", ...(KONG_TYPES.includes(hx) && hx !== "exposed" ? [hx] : [])];
  kongsIn.forEach((k, i) => {
    const f = `kongs[${i}]`;
    if (!isDict(k)) {
      throw problem('expected {"seat": 0-3, "type": "exposed"|"added"|"concealed"|"hun", "tile": "5p"}', f, "wrong_type");
    }
    for (const key of dictKeys(k)) {
      if (!OUTCOME_KONG_FIELDS.includes(key)) {
        throw problem(`unknown field ${pyStrRepr(key)}`, `${f}.${key}`, "unknown_field", "fields are " + OUTCOME_KONG_FIELDS.join(", "));
      }
    }
    for (const key of ["seat", "type", "tile"]) if (dictGet(k, key) === null) throw problem("missing", `${f}.${key}`, "missing_field");
    const seat = seatOf(dictGet(k, "seat"), f + ".seat");
    const type = dictGet(k, "type");
    if (!KONG_TYPES.includes(type)) {
      throw problem(`unknown kong type ${pyRepr(type)}`, f + ".type", typeof type === "string" ? "bad_value" : "wrong_type",
        "one of " + KONG_TYPES.join(", "));
    }
    const tile = dictGet(k, "tile");
    if (typeof tile !== "string") throw problem(`expected a tile such as "5p", got ${pyRepr(tile)}`, f + ".tile", "wrong_type");
    let ts;
    try {
      ts = parseTiles(tile);
    } catch (e) {
      if (e instanceof TileError) throw new RequestError(e.message, f + ".tile", e.pos, e.hint, "bad_tile");
      throw e;
    }
    if (ts.length !== 1) throw problem(`expected one tile, found ${ts.length}`, f + ".tile", "bad_tile");
    if (seen.has(ts[0])) {
      throw problem(`a second kong of ${NAMES[ts[0]]} (kongs[${seen.get(ts[0])}]); there are only 4 tiles of a kind`, f + ".tile",
        "too_many_copies");
    }
    seen.set(ts[0], i);
    perSeat[seat] += 1;
    if (perSeat[seat] > 4) throw problem(`seat ${seat} has more than 4 kongs`, f + ".seat", "bad_value");
    const w = flagOf(dictGet(k, "won"), f + ".won");
    if (w) {
      if (won >= 0 || ended >= 0) {
        throw problem(`kongs[${Math.max(won, ended)}] already won the hand: one replacement tile wins`, f + ".won", "bad_value");
      }
      if (seat !== o.winner) {
        throw problem(`the winning replacement (gangkai) follows the winner's own kong; seat ${seat} did not win`, f + ".won", "bad_value");
      }
      won = i;
    }
    const by = seatOf(dictGet(k, "from"), f + ".from", true);
    if (by === seat) {
      throw problem(`seat ${seat} konged its own discard; \`from\` is the seat whose discard was claimed`, f + ".from", "bad_value");
    }
    if (by !== null && !claimed.includes(type)) {
      throw problem(`a kong of type ${type} is made of its maker's own tiles, it has no \`from\``, f + ".from", "bad_value",
        "only a kong of a claimed discard names the discarder: type " + [...claimed].sort().join(" or "));
    }
    const end = flagOf(dictGet(k, "ended"), f + ".ended");
    if (end) {
      if (won >= 0 || ended >= 0) {
        throw problem(`kongs[${Math.max(won, ended)}] already ended the hand: it ends once, by one kong or one replacement`,
          f + ".ended", "bad_value");
      }
      if (seat !== o.winner) {
        throw problem(`a kong that ends the hand is its maker's win; seat ${seat} did not win`, f + ".ended", "bad_value");
      }
      ended = i;
    }
    kongs.push([seat, type, ts[0], kongPointsOf(rules, type), w, by, end]);
  });
  o.kongs = kongs;
  o.chan = flagOf(dictGet(data, "chan"), "chan");
  o.rounds = roundsOf(dictGet(data, "rounds"));
  if (o.chan && dictGet(data, "rounds") !== null) {
    throw problem("true, and the outcome gives its rounds too", "chan", "bad_value", "the rounds say which go-rounds were "
      + "followed; chan is for a table that keeps no discards: give one or the other");
  }
  let xg = dictGet(data, "xianggong");
  if (xg === null) xg = [];
  if (!Array.isArray(xg)) throw problem("expected a list of seats", "xianggong", "wrong_type");
  const xs = new Set();
  xg.forEach((s, i) => {
    const seat = seatOf(s, `xianggong[${i}]`);
    if (xs.has(seat)) throw problem(`seat ${seat} is listed twice`, `xianggong[${i}]`, "bad_value");
    xs.add(seat);
  });
  o.xianggong = [...xs].sort((a, b) => a - b);
  o.seats = [0, 1, 2, 3];
  o.score_table = rules.settlement.scoreTable;
  return o;
}

/** The outcome's go-rounds: the hand's discards in the order made, four to a round (the last may
 * hold fewer), each {discards, claimed}. */
function roundsOf(rs) {
  if (rs === null) return [];
  if (!Array.isArray(rs)) throw problem('expected a list of {"discards": ["5m", ...], "claimed": false}', "rounds", "wrong_type");
  if (rs.length > MAX_ROUNDS) throw problem(`${rs.length} rounds; a hand has at most ${MAX_ROUNDS}`, "rounds", "bad_value");
  const seen = new Array(34).fill(0);
  return rs.map((r, i) => {
    const f = `rounds[${i}]`;
    if (!isDict(r)) throw problem('expected {"discards": ["5m", ...], "claimed": false}', f, "wrong_type");
    for (const key of dictKeys(r)) {
      if (!OUTCOME_ROUND_FIELDS.includes(key)) {
        const near = OUTCOME_ROUND_FIELDS.filter((x) => isClose(key, x));
        throw problem(`unknown field ${pyStrRepr(key)}`, `${f}.${key}`, "unknown_field",
          near.length ? `did you mean ${pyStrRepr(near[0])}?` : "fields are " + OUTCOME_ROUND_FIELDS.join(", "));
      }
    }
    const ds = dictGet(r, "discards");
    if (ds === null) throw problem("missing", f + ".discards", "missing_field", 'its discards in order, e.g. ["5m", "5m", "5m", "5m"]');
    if (!Array.isArray(ds)) throw problem(`expected a list of tiles such as "5p", got ${pyRepr(ds)}`, f + ".discards", "wrong_type");
    if (!(ds.length >= 1 && ds.length <= SEATS)) throw problem(`a round holds 1 to ${SEATS} discards, got ${ds.length}`, f + ".discards", "bad_value");
    if (ds.length < SEATS && i < rs.length - 1) {
      throw problem(`only the hand's last round may hold fewer than ${SEATS} discards`, f + ".discards", "bad_value");
    }
    const tiles = ds.map((t, j) => {
      const ft = `${f}.discards[${j}]`;
      if (typeof t !== "string") throw problem(`expected a tile such as "5p", got ${pyRepr(t)}`, ft, "wrong_type");
      let ts;
      try {
        ts = parseTiles(t);
      } catch (e) {
        if (e instanceof TileError) throw new RequestError(e.message, ft, e.pos, e.hint, "bad_tile");
        throw e;
      }
      if (ts.length !== 1) throw problem(`expected one tile, found ${ts.length}`, ft, "bad_tile");
      seen[ts[0]] += 1;
      if (seen[ts[0]] > 4) throw problem(`a fifth discard of ${NAMES[ts[0]]}; there are only 4 tiles of a kind`, ft, "too_many_copies");
      return ts[0];
    });
    return [i + 1, tiles, flagOf(dictGet(r, "claimed"), f + ".claimed")];
  });
}

const show = (v) => (v === true ? "true" : v === false ? "false" : v === null ? "none" : String(v));

/** The amount's expression, then the same with each term's value, then the amount:
 * `k.points * pair(payer, payee) = 2 * 4 = 8` (spans count characters, as Python does). */
export function formula(text, spans, values, amount) {
  const cs = [...text];
  const out = [];
  let last = 0;
  spans.forEach(([a, b], i) => {
    out.push(cs.slice(last, a).join(""), show(values[i]));
    last = b;
  });
  out.push(cs.slice(last).join(""));
  const middle = pyStrip(out.join(""));
  const whole = pyStrip(text);
  const parts = [whole];
  if (middle !== whole && middle !== String(amount)) parts.push(middle);
  if (String(amount) !== whole) parts.push(String(amount));
  return parts.join(" = ");
}

/** A settle answer refusing the outcome: nothing paid, `error` the contract's error object. */
function refused(rules, reqId, error) {
  return { contract: CONTRACT, rules: rulesInfo(rules), id: reqId, payments: [], balances: [0, 0, 0, 0], next_dealer: null,
    kongs: [], unpaid: [], reason: REFUSED, error };
}

/** The rules themselves cannot settle this outcome (a rule-file mistake the checks did not catch). */
const cannot = (message) => ({ code: "settlement_failed", message, field: null });
// the largest amount or balance every backend holds exactly (contract.py's MAX_EXACT, PAST_EXACT); past it both refuse alike
const PAST_EXACT = "2^53 - 1 (9,007,199,254,740,991), the largest integer every backend holds exactly";

/** An outcome mapping → {contract, rules, id, payments, balances, next_dealer, kongs,
 * unpaid}; a bad outcome gets reason "invalid_request" and `error` (never an exception). */
export function settleIn(rules, data) {
  const big = isDict(data) ? oversized(data) : null; // as settle.py's settle_in: a mapping is measured
  if (big !== null) return refused(rules, null, big);
  const reqId = isDict(data) ? dictGet(data, "id") : null;
  const s = rules.settlement;
  if (s === null) return refused(rules, reqId, { code: "no_settlement", message: "these rules have no settlement section", field: null });
  const why = otherRules(rules, data);
  if (why) return refused(rules, reqId, why);
  let o;
  try {
    o = parseOutcome(rules, data);
  } catch (e) {
    if (e instanceof RequestError) return refused(rules, reqId, e.error());
    throw e;
  }
  let payments, unpaid, balances, nd;
  try {
    const bad = s.checks(o);
    if (bad.length) {
      const [rid, field, message] = bad[0];
      return refused(rules, reqId, { code: rid, message: `${field}: ${message}`, field });
    }
    payments = [];
    unpaid = [];
    balances = [0, 0, 0, 0];
    for (const [rid, reason, text, spans, when, fn] of s.payments) {
      const [rows, skipped] = fn(o);
      for (const i of skipped) unpaid.push({ rule: rid, reason, item: i, when });
      for (const [payer, payee, amount, values] of rows) {
        if (typeof amount !== "number" || !Number.isInteger(amount)) {
          return refused(rules, reqId, cannot(`payment rule ${rid}: the amount is ${pyRepr(amount)}, not a whole number`));
        }
        if (amount === 0) continue;
        if (Math.abs(amount) > Number.MAX_SAFE_INTEGER) return refused(rules, reqId, cannot(`payment rule ${rid}: an amount past ${PAST_EXACT}`));
        payments.push({ from: payer, to: payee, amount, reason, rule: rid, formula: formula(text, spans, values, amount) });
        balances[payer] -= amount;
        balances[payee] += amount;
        if (Math.abs(balances[payer]) > Number.MAX_SAFE_INTEGER || Math.abs(balances[payee]) > Number.MAX_SAFE_INTEGER) {
          return refused(rules, reqId, cannot(`payment rule ${rid}: a balance past ${PAST_EXACT}`));
        }
      }
    }
    nd = s.nextDealer(o);
  } catch (e) {
    return refused(rules, reqId, cannot(`the settlement rules cannot settle this outcome (${e.name}: ${e.message})`));
  }
  if (!isSeat(nd)) return refused(rules, reqId, cannot(`the rotation gives ${pyRepr(nd)}, not a seat`));
  const kongs = o.kongs.map((k) => ({ seat: k[0], type: k[1], tile: NAMES[k[2]], points: k[3], won: k[4], from: k[5], ended: k[6] }));
  return { contract: CONTRACT, rules: rulesInfo(rules), id: reqId, payments, balances, next_dealer: nd, kongs, unpaid };
}
