// Tiles drawn as the rulebook draws them (backends/book/html.py): the Chinese
// numeral over the suit, an honor's character, the same colours. Tiles are
// the contract's names (1m-9m, 1p-9p, 1s-9s, E S W N C F P); knowing tiles is
// the page's job, what they are worth is the server's (the compiled rules).

const NUMERALS = "一二三四五六七八九";
const SUIT_CN = { m: "万", p: "饼", s: "条" };
const HONORS = "ESWNCFP";
const HONOR_CN = "东南西北中发白";
const HONOR_LONG = ["东风", "南风", "西风", "北风", "红中", "发财", "白板"];
const ORDER = [..."mps"].flatMap((s) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((r) => r + s)).concat([...HONORS]);

/** Whether `t` is a tile's name. */
export function isTile(t) {
  return typeof t === "string" && ORDER.includes(t);
}

/** A tile's place in tile order (万, 饼, 条, then the honors). */
export function tileIndex(t) {
  return ORDER.indexOf(t);
}

/** Tiles sorted as the rulebook lists them. */
export function sortTiles(ts) {
  return [...ts].sort((a, b) => tileIndex(a) - tileIndex(b));
}

/** A tile's Chinese name and its contract name, for titles and screen readers: "7饼 7p", "东风 E". */
export function tileLabel(t) {
  if (!isTile(t)) return "?";
  const h = HONORS.indexOf(t);
  if (h >= 0) return `${HONOR_LONG[h]} ${t}`;
  return `${t[0]}${SUIT_CN[t[1]]} ${t}`;
}

/** An element of `tag` with a class and text. */
export function el(tag, cls = "", text = "") {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text) e.textContent = text;
  return e;
}

/** The face of one tile (a span, or inside a button when `tag` is "button"); null draws a tile's back. */
export function tileFace(t, tag = "span") {
  const e = document.createElement(tag);
  if (!isTile(t)) {
    e.className = "tile back";
    if (tag === "span") { e.setAttribute("role", "img"); e.setAttribute("aria-label", "hidden tile 暗牌"); }
    return e;
  }
  const h = HONORS.indexOf(t);
  e.dataset.tile = t;
  e.title = tileLabel(t);
  if (tag === "span") { e.setAttribute("role", "img"); e.setAttribute("aria-label", tileLabel(t)); }
  if (h >= 0) {
    e.className = `tile z h${t}`;
    e.append(el("span", "r", HONOR_CN[h]));
  } else {
    e.className = `tile ${t[1]}`;
    e.append(el("span", "r", NUMERALS[Number(t[0]) - 1]), el("span", "s", SUIT_CN[t[1]]));
  }
  return e;
}

/** A tile in its slot, with a caption under it (混 for a hun, 和 for the winning tile, =X for what a hun stands for). */
export function tileSlot(t, { hun = false, win = false, caption = "", tag = "span" } = {}) {
  const slot = el("span", "slot" + (hun ? " hun" : "") + (win ? " win" : ""));
  slot.append(tileFace(t, tag), el("span", "cap", caption || [hun ? "混" : "", win ? "和" : ""].filter(Boolean).join(" ")));
  return slot;
}

/** A row of tiles (huns marked when `huns` lists hun kinds). */
export function tileRow(ts, huns = []) {
  const row = el("span", "trow");
  for (const t of ts) row.append(tileSlot(t, { hun: huns.includes(t) }));
  return row;
}

/** The Chinese short name of a tile (the face's text), e.g. 七饼, 中. */
export function tileChinese(t) {
  const h = HONORS.indexOf(t);
  if (h >= 0) return HONOR_CN[h];
  return isTile(t) ? NUMERALS[Number(t[0]) - 1] + SUIT_CN[t[1]] : "?";
}
