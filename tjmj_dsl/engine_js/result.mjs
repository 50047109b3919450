// A result for people and programs: the formula text from the algebra's plan,
// the decomposition with what each hun stood for, and the result object.
// A port of engine/result.py (the same text, the same field order).

import { NAMES } from "./tiles.mjs";
import { GROUP_KIND_NAMES, PAIR } from "./hand.mjs";
import { pyEq, pyTruthy } from "./pyjson.mjs";

/** Evaluate the algebra plan, keeping its text: [value, text, prec, used ids].
 * prec 3 atom, 2 product, 1 sum; an empty text (null) is a factor of 1. */
export function render(plan, byKind) {
  const op = plan[0];
  if (op === "num") return [plan[1], String(plan[1]), 3, []];
  if (op === "kind") return [byKind[plan[1]], null, 3, []];
  if (op === "agg" && plan[2][0] === "list") { // min([a, 16]): each item's value and text; every item's patterns
    const parts = plan[2][1].map((x) => render(x, byKind));
    const vals = parts.map((p) => p[0]);
    const used = parts.flatMap((p) => p[3]);
    if (plan[1] === "len") return [vals.length, String(vals.length), 3, used];
    if (plan[1] === "sum") return [vals.reduce((a, b) => a + b, 0), parts.map((p) => wrap(p[1] || "1", p[2], 1)).join("+") || "0", parts.length > 1 ? 1 : 3, used];
    if (plan[1] === "product") return [vals.reduce((a, b) => a * b, 1), parts.map((p) => wrap(p[1] || "1", p[2], 2)).join("×") || "1", parts.length > 1 ? 2 : 3, used];
    const v = vals.length ? (plan[1] === "min" ? Math.min(...vals) : Math.max(...vals)) : 0;
    return [v, `${plan[1]}(${parts.map((p) => p[1] || "1").join(", ")})`, 3, used];
  }
  if (op === "agg") {
    const items = render(plan[2], byKind)[0];
    const vals = items.map(([v]) => v);
    const used = items.map(([, pid]) => pid);
    if (plan[1] === "sum") return [vals.reduce((a, b) => a + b, 0), vals.join("+") || "0", vals.length > 1 ? 1 : 3, used];
    if (plan[1] === "product") return [vals.reduce((a, b) => a * b, 1), vals.join("×"), vals.length > 1 ? 2 : 3, used];
    if (plan[1] === "len") return [vals.length, String(vals.length), 3, []];
    const v = vals.length ? (plan[1] === "min" ? Math.min(...vals) : Math.max(...vals)) : 0;
    return [v, String(v), 3, items.filter(([val]) => val === v).map(([, pid]) => pid).slice(0, 1)];
  }
  if (op === "if") {
    const [c, , , cu] = render(plan[1], byKind);
    const [v, t, p, u] = render(pyTruthy(c) ? plan[2] : plan[3], byKind);
    return [v, t, p, cu.concat(u)];
  }
  if (op === "bin") {
    const [lv, lt, lp, lu] = render(plan[2], byKind);
    const [rv, rt, rp, ru] = render(plan[3], byKind);
    const o = plan[1];
    const used = lu.concat(ru);
    if (o === "*") {
      const v = lv * rv;
      if (!lt) return [v, rt, rp, used];
      if (!rt) return [v, lt, lp, used];
      return [v, `${wrap(lt, lp, 2)}×${wrap(rt, rp, 2)}`, 2, used];
    }
    if (o === "+") return [lv + rv, `${lt || 1}+${rt || 1}`, 1, used];
    if (o === "-") return [lv - rv, `${lt || 1}-${wrap(rt || "1", rp, 2)}`, 1, used];
    return [rv ? Math.floor(lv / rv) : 0, `${wrap(lt || "1", lp, 2)}/${wrap(rt || "1", rp, 3)}`, 2, used];
  }
  if (op === "not") {
    const [v, , , u] = render(plan[1], byKind);
    return [!pyTruthy(v), null, 3, u];
  }
  if (op === "bool") {
    const parts = plan[2].map((x) => render(x, byKind));
    const vals = parts.map((p) => pyTruthy(p[0]));
    return [plan[1] === "and" ? vals.every(Boolean) : vals.some(Boolean), null, 3, parts.flatMap((p) => p[3])];
  }
  if (op === "cmp") {
    const [lv, , , lu] = render(plan[2], byKind);
    const [rv, , , ru] = render(plan[3], byKind);
    const res = { "==": () => pyEq(lv, rv), "!=": () => !pyEq(lv, rv), "<": () => lv < rv, "<=": () => lv <= rv,
      ">": () => lv > rv, ">=": () => lv >= rv }[plan[1]]();
    return [res, null, 3, lu.concat(ru)];
  }
  if (op === "neg") {
    const [v, t, p, u] = render(plan[1], byKind);
    return [-v, "-" + wrap(t || "1", p, 3), 3, u];
  }
  throw new Error(`cannot render ${op}`);
}

function wrap(text, prec, need) { return prec < need ? `(${text})` : text; }

/** A number as Python's str() shows it (a boolean as True/False). */
const shown = (v) => (v === true ? "True" : v === false ? "False" : String(v));

function claimedByKind(rules, mask) {
  const byKind = {};
  for (const k of rules.kinds) byKind[k] = [];
  for (let i = 0; i < rules.ids.length; i++) {
    if (rules.pm.has(mask, i)) byKind[rules.kindOf[i]].push([rules.values[i], i]);
  }
  return byKind;
}

/** [formula text, its value, indices of the patterns shown, their ids, their names] for a
 * claimed mask: a claimed pattern shows when the algebra used its value. Cached per mask. */
export function claimDisplay(rules, mask) {
  let got = rules.displayCache.get(mask);
  if (got === undefined) {
    const [value, text, , used] = render(rules.plan, claimedByKind(rules, mask));
    const usedSet = new Set(used);
    const shownIdx = [];
    for (let i = 0; i < rules.ids.length; i++) if (rules.pm.has(mask, i) && usedSet.has(i)) shownIdx.push(i);
    got = [`${text || 1} = ${shown(value)}`, value, shownIdx, shownIdx.map((i) => rules.ids[i]),
      shownIdx.map((i) => rules.names[i])];
    rules.displayCache.set(mask, got);
  }
  return got;
}

/** claimDisplay of a claim ([fan, patterns, mask, display, Claims]), kept on it. */
export function shownOf(rules, best) {
  let got = best[3];
  if (got === null) best[3] = got = claimDisplay(rules, best[2]);
  return got;
}

/** The groups for people, the declared melds first and the pair last: faces, the
 * actual tiles (a hun shows which hun tile stood there; huns standing for
 * their own face first), and a text such as `4m=1m 5m* 6m=2m` (face=hun tile,
 * * the winning tile); declared melds in [ ] (exposed) or ( ) (concealed kong). */
function decomposition(h, concealedGroups) {
  let plain = true; // no hun stands in a concealed group: every group shown as its faces
  for (let i = 0; i < concealedGroups.length; i++) {
    const g = concealedGroups[i];
    if (g.nhuns !== 0 && !g.declared) { plain = false; break; }
  }
  if (plain) {
    const out = [];
    for (let i = 0; i < h.declared.length; i++) out.push(shownFixed(h.declared[i]));
    for (let i = 0; i < concealedGroups.length; i++) if (concealedGroups[i].kind !== PAIR) out.push(shownFixed(concealedGroups[i]));
    for (let i = 0; i < concealedGroups.length; i++) if (concealedGroups[i].kind === PAIR) out.push(shownFixed(concealedGroups[i]));
    return out;
  }
  return decompositionWithHuns(h, concealedGroups);
}

/** A group whose tiles are its faces, for people. */
function shownFixed(g) {
  return { meld: GROUP_KIND_NAMES[g.kind], declared: g.declared, concealed: g.concealed, faces: g.faceNames.slice(),
    tiles: g.faceNames.slice(), huns: g.hunmask.slice(), winning_slot: g.tslot >= 0 ? g.tslot : null, text: fixedText(g) };
}

/** decomposition when huns stand in concealed groups: which hun tile stood where. */
function decompositionWithHuns(h, concealedGroups) {
  const groups = h.declared.slice();
  for (let i = 0; i < concealedGroups.length; i++) if (concealedGroups[i].kind !== PAIR) groups.push(concealedGroups[i]);
  for (let i = 0; i < concealedGroups.length; i++) if (concealedGroups[i].kind === PAIR) groups.push(concealedGroups[i]);
  // the hun tiles of the hand not yet shown, in the hand's order, the winning tile aside (it sits in its own slot)
  const hunLeft = [];
  const isHun = h.isHun, tiles14 = h.concealed;
  let tAside = !h.t_hun;
  for (let i = 0; i < tiles14.length; i++) {
    const k = tiles14[i];
    if (!isHun[k]) continue;
    if (!tAside && k === h.t) tAside = true;
    else hunLeft.push(k);
  }
  const out = [];
  let pending = null;
  for (let gi = 0; gi < groups.length; gi++) {
    const g = groups[gi];
    if (g.nhuns === 0 || g.declared) { // every tile is its own face: the same display every time
      out.push(shownFixed(g));
      continue;
    }
    const tiles = [];
    for (let s = 0; s < g.faces.length; s++) {
      const f = g.faces[s];
      if (!g.hunmask[s]) tiles.push(f);
      else if (s === g.tslot) tiles.push(h.t);
      else {
        const at = hunLeft.indexOf(f);
        if (at >= 0) { // a hun standing for its own face shows as itself
          hunLeft.splice(at, 1);
          tiles.push(f);
        } else {
          tiles.push(-1);
          (pending || (pending = [])).push(out.length, s);
        }
      }
    }
    out.push(shownGroup(g, tiles, null));
  }
  if (pending !== null) for (let i = 0; i < pending.length; i += 2) out[pending[i]].tiles[pending[i + 1]] = hunLeft.shift();
  for (let i = 0; i < out.length; i++) {
    const d = out[i];
    if (d.text !== null) continue;
    let text = "";
    for (let s = 0; s < d.faces.length; s++) {
      const tile = NAMES[d.tiles[s]];
      const face = d.faces[s];
      if (s) text += " ";
      text += tile === face ? tile : face + "=" + tile;
      if (s === d.winning_slot) text += "*";
      d.tiles[s] = tile;
    }
    d.text = text;
  }
  return out;
}

function shownGroup(g, tiles, text) {
  return { meld: GROUP_KIND_NAMES[g.kind], declared: g.declared, concealed: g.concealed, faces: g.faceNames.slice(),
    tiles, huns: g.hunmask.slice(), winning_slot: g.tslot >= 0 ? g.tslot : null, text };
}

/** The text of a group whose tiles are their own faces (kept on the group). */
function fixedText(g) {
  if (g.text === undefined) {
    const text = g.faceNames.map((f, s) => f + (s === g.tslot ? "*" : "")).join(" ");
    g.text = !g.declared ? text : g.concealed ? `(${text})` : `[${text}]`;
  }
  return g.text;
}

/** The score of one hand, without the display. reason: null on a win, else
 * "no_winning_shape", "below_min_fan" or "invalid_request" (then `error` says what is wrong). */
export function makeClaim(win, fan, total, patterns, reason = null, error = null) {
  // shared between answers and never handed out: answers copy `patterns` (not frozen:
  // copying a frozen array takes V8's slow path, twenty times slower)
  return { win, fan, total, patterns, reason, error };
}

const NO_SHAPE = makeClaim(false, 0, 0, [], "no_winning_shape");

/** Whether the claimed reading `mask` (worth `fan`) wins: the rule file's win_when over the claimed
 * patterns' values by kind, fan and min_fan, or its default form fan >= min_fan. */
export function wins(rules, mask, fan) {
  if (rules.winPlan === null) return fan >= rules.minFan;
  const byKind = claimedByKind(rules, mask);
  byKind.fan = fan;
  byKind.min_fan = rules.minFan;
  return pyTruthy(render(rules.winPlan, byKind)[0]);
}

/** The claim of the best reading `best` (null: no shape) of hand h: a win needs
 * the rules' minimum fan, and only a win has a total. */
export function claimOf(rules, best, h) {
  if (best === null) return NO_SHAPE;
  const fan = best[0];
  const win = rules.winPlan === null ? fan >= rules.minFan : wins(rules, best[2], fan);
  const total = win ? rules.total(h, fan) : 0;
  let byTotal = best[4]; // the claim's Claim objects by total, kept on the claim (resolve() makes it with two free slots)
  if (byTotal === null) best[4] = byTotal = new Map();
  let c = byTotal.get(total);
  if (c === undefined) {
    const ids = shownOf(rules, best)[3];
    c = win ? makeClaim(true, fan, total, ids) : makeClaim(false, fan, 0, ids, "below_min_fan");
    byTotal.set(total, c);
  }
  return c;
}

/** The `rules` object of an answer (a fresh copy: callers may change theirs). */
export function rulesInfo(rules) {
  const i = rules.info;
  return { name: i.name, profile: i.profile, sha256: i.sha256, options: rules.noOptions ? {} : { ...i.options } };
}

/** A score answer refusing the request: the score fields empty, `error` the contract's error object. */
export function refusal(rules, reqId, error) {
  return { contract: CONTRACT, rules: rulesInfo(rules), id: reqId, win: false, fan: 0, total: 0, patterns: [], names: [],
    formula: "", reason: REFUSED, error };
}

/** A waits answer refusing the request. */
export function waitsRefusal(rules, reqId, error) {
  return { contract: CONTRACT, rules: rulesInfo(rules), id: reqId, waits: [], reason: REFUSED, error };
}

/** The error object of a hand a request rule of the rule file refuses: the rule's id is the code. */
export function ruleError(rules, ruleId) {
  return { code: ruleId, message: rules.requestMessages[ruleId], field: null };
}

export function result(rules, reqId, h, best, groups, display = true) {
  if (best === null) {
    return { contract: CONTRACT, rules: rulesInfo(rules), id: reqId, win: false, fan: 0, total: 0, patterns: [], names: [],
      formula: "", winning_tile: NAMES[h.t], hun_kinds: h.hunNames.slice(), decomposition: [],
      reason: "no_winning_shape", message: "these 14 tiles make no 4 melds and a pair" };
  }
  const c = claimOf(rules, best, h);
  const shown = shownOf(rules, best);
  const res = { contract: CONTRACT, rules: rulesInfo(rules), id: reqId, win: c.win, fan: c.fan, total: c.total,
    patterns: c.patterns.slice(), names: shown[4].slice(), formula: shown[0], winning_tile: NAMES[h.t],
    hun_kinds: h.hunNames.slice() };
  if (display) res.decomposition = decomposition(h, groups);
  if (c.reason) {
    res.reason = c.reason;
    res.message = c.fan < rules.minFan || !rules.winText ? `fan ${c.fan} is below the ${rules.minFan} needed to win`
      : `the winning condition ${rules.winText} does not hold for this hand`;
  }
  return res;
}
