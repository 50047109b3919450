// The human hand notation of the command line, and a result shown as the
// command line shows it (ports of notation.py and cli._show), for pages and
// programs that let people type hands:
//
//     345m 123s EEE 77m 45s [5555p] (9999s) +6s
//
// Loose tiles are the concealed hand; `[555p]` an exposed pung, `[5555p]` an
// exposed kong, `(5555p)` a concealed kong; `+6s` the winning tile.

import { TileError, formatTiles, halfWidth, isSpace, parseTiles, tileName } from "./tiles.mjs";

/** Notation → the request fields {concealed, melds, draw?}. Throws TileError pointing into `text`. */
export function parseHand(text) {
  text = halfWidth(text); // ［５５５ｐ］ ＋６ｓ: the same positions
  const cs = [...text];
  const concealed = [];
  const melds = [];
  let draw = null;
  const n = cs.length;
  const stop = (c) => isSpace(c) || c === "[" || c === "(" || c === "+";
  let i = 0;
  while (i < n) {
    const c = cs[i];
    if (isSpace(c)) { i += 1; continue; }
    if (c === "[" || c === "(") {
      const close = c === "[" ? "]" : ")";
      const j = cs.indexOf(close, i);
      if (j < 0) throw new TileError(`'${c}' is not closed`, text, i, `close the meld with '${close}': [5555p]`);
      const body = tilesAt(cs, text, i + 1, j);
      if (new Set(body).size !== 1 || !(c === "[" ? [3, 4] : [4]).includes(body.length)) {
        throw new TileError("a declared meld is 3 or 4 of one tile; a concealed kong is 4", text, i,
          "[555p] pung, [5555p] exposed kong, (5555p) concealed kong");
      }
      melds.push({ type: c === "(" ? "concealed_kong" : body.length === 3 ? "pung" : "kong", tile: tileName(body[0]) });
      i = j + 1;
      continue;
    }
    if (c === "+") {
      let j = i + 1;
      while (j < n && !stop(cs[j])) j += 1;
      const ts = tilesAt(cs, text, i + 1, j);
      if (ts.length !== 1 || draw !== null) throw new TileError("one winning tile after '+'", text, i, "e.g. +6s");
      draw = ts[0];
      i = j;
      continue;
    }
    let j = i;
    while (j < n && !stop(cs[j])) j += 1;
    concealed.push(...tilesAt(cs, text, i, j));
    i = j;
  }
  const out = { concealed: formatTiles(concealed), melds };
  if (draw !== null) out.draw = tileName(draw);
  return out;
}

function tilesAt(cs, text, start, end) {
  try {
    return parseTiles(cs.slice(start, end).join(""));
  } catch (e) {
    if (e instanceof TileError) throw new TileError(e.message, text, start + e.pos, e.hint);
    throw e;
  }
}

/** A score result as `tjmj score` prints it (the lines of cli._show). */
export function showResult(res) {
  if (res.error) return `invalid request: ${typeof res.error === "string" ? res.error : res.error.message}`;
  const lines = [];
  const names = (res.names || []).map((nm, i) => `${nm}(${res.patterns[i]})`).join(" ");
  lines.push(`${res.win ? "WIN" : "no win"}: fan ${res.fan}, total ${res.total}   ${res.formula}   ${names}`);
  if (!res.win) lines.push(`  reason: ${res.reason}: ${res.message || ""}`);
  if (res.decomposition && res.decomposition.length) {
    lines.push("  " + res.decomposition.map((g) => g.text).join("  |  ")
      + `   (huns: ${res.hun_kinds.join(" ")}; * = winning tile ${res.winning_tile})`);
  }
  return lines.join("\n");
}
