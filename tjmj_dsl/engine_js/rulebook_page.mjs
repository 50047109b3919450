// The rulebook's in-page scorer: appended to the profile's scorer.mjs inside
// rulebook.html (tjmj_dsl/backends/book/scorer_page.py), so score, waits,
// parseHand, showResult and the tile names are in scope. It reads the form the
// page holds (#hand, #indicator, #kong-draw, the flags), scores on every
// change, and shows the result as `tjmj score` prints it, with the
// decomposition drawn as the book draws its hands. Every text goes in through
// textContent: nothing a reader types becomes markup.

{ // a block of its own: its names cannot meet the scorer's
const NUMERALS = "一二三四五六七八九", HONOR_CN = "东南西北中发白", SUIT_CN = { m: "万", p: "饼", s: "条" };

function chineseName(k) { return k >= 27 ? HONOR_CN[k - 27] : `${(k % 9) + 1}${SUIT_CN["mps"[(k / 9) | 0]]}`; }

function el(tag, cls, text) {
  const x = document.createElement(tag);
  if (cls) x.className = cls;
  if (text !== undefined) x.textContent = text;
  return x;
}

/** One tile, as the book draws it (book/html.py's tile()). */
function tileEl(k) {
  const t = el("span", k >= 27 ? `tile z h${HONOR_LETTERS[k - 27]}` : `tile ${"mps"[(k / 9) | 0]}`);
  t.title = chineseName(k);
  t.setAttribute("role", "img");
  t.setAttribute("aria-label", chineseName(k));
  if (k >= 27) t.append(el("span", "r", HONOR_CN[k - 27]));
  else t.append(el("span", "r", NUMERALS[k % 9]), el("span", "s", SUIT_CN["mps"[(k / 9) | 0]]));
  return t;
}

const GROUP_TITLE = { chow: "顺子 chow", pung: "刻子 pung", kong: "杠 kong", pair: "将 pair" };

/** One group of a result's decomposition (book/html.py's group()). */
function groupEl(g) {
  const box = el("span", `grp ${g.meld}` + (g.declared ? " declared" : "") + (g.declared && g.concealed ? " concealed" : ""));
  box.title = GROUP_TITLE[g.meld] + (g.declared ? (g.concealed ? " (concealed)" : " (declared)") : "");
  g.faces.forEach((face, s) => {
    const hun = g.huns[s], win = s === g.winning_slot;
    const slot = el("span", "slot" + (hun ? " hun" : "") + (win ? " win" : ""));
    const cap = [];
    if (hun) cap.push(face !== g.tiles[s] ? "=" + chineseName(parseTile(face)) : "混");
    if (win) cap.push("和");
    slot.append(tileEl(parseTile(g.tiles[s])), el("span", "cap", cap.join(" ")));
    box.append(slot);
  });
  return box;
}

const $ = (id) => document.getElementById(id);

/** The request the form holds (hand notation, indicator, the kong draw, flags), or a TileError. */
function formRequest() {
  const req = { ...parseHand($("hand").value), indicator: $("indicator").value.trim() };
  const kd = $("kong-draw").value;
  if (kd) req.kong_draw = kd;
  for (const box of document.querySelectorAll("input[data-flag]")) if (box.checked) req[box.dataset.flag] = true;
  return req;
}

function show() {
  const out = $("score-result");
  const tiles = $("score-tiles");
  const text = $("score-text");
  out.replaceChildren();
  tiles.replaceChildren();
  text.textContent = "";
  let req;
  try {
    req = formRequest();
  } catch (e) {
    if (!(e instanceof TileError)) throw e;
    out.append(el("p", "verdict-no", `hand (at character ${e.pos + 1}): ${e.message}` + (e.hint ? ` (hint: ${e.hint})` : "")));
    return;
  }
  if (req.draw === undefined) { // no +tile: the tiles that win this hand
    const w = waits(req);
    if (w.error) out.append(el("p", "verdict-no", `invalid request: ${w.error.message}`));
    else if (!w.waits.length) out.append(el("p", "verdict-no", "no tile wins this hand"));
    else {
      const list = el("ul", "waits");
      for (const x of w.waits) {
        const li = el("li");
        li.append(tileEl(parseTile(x.tile)), ` fan ${x.fan}, total ${x.total}   ${x.formula}   ${x.names.join(" ")}`);
        list.append(li);
      }
      out.append(el("p", "", "听 waits on:"), list);
    }
    return;
  }
  const res = score(req);
  const verdict = el("p", res.win ? "verdict-win" : "verdict-no");
  verdict.id = "score-verdict";
  verdict.textContent = res.error ? "invalid request" : res.win ? "和 WIN" : "不能和 no win";
  out.append(verdict);
  if (!res.error) {
    const fan = el("strong", "", String(res.fan)), total = el("strong", "", String(res.total)), formula = el("code", "", res.formula);
    [fan.id, total.id, formula.id] = ["score-fan", "score-total", "score-formula"];
    const facts = el("p");
    facts.append("fan ", fan, ", total ", total, "   ", formula);
    const names = el("p", "", res.names.map((n, i) => `${n} ${res.patterns[i]}`).join(" · "));
    names.id = "score-patterns";
    out.append(facts, names);
    for (const g of res.decomposition) tiles.append(groupEl(g));
  }
  text.textContent = showResult(res);
}

function pick(k) {
  const target = $(document.querySelector("input[name=pick-into]:checked").value);
  if (target.id === "indicator") target.value = tileName(k);
  else {
    const win = $("pick-win").checked;
    target.value = (target.value.trimEnd() + (win ? " +" : " ") + tileName(k)).trimStart();
    $("pick-win").checked = false;
  }
  show();
}

for (const id of ["hand", "indicator", "kong-draw"]) $(id).addEventListener("input", show);
for (const box of document.querySelectorAll("input[data-flag]")) box.addEventListener("change", show);
for (const b of document.querySelectorAll("button[data-tile]")) b.addEventListener("click", () => pick(Number(b.dataset.tile)));
$("pick-undo").addEventListener("click", () => {
  const h = $("hand");
  h.value = h.value.trimEnd().replace(/\s*\+?\s*\S+$/u, "");
  show();
});
$("pick-clear").addEventListener("click", () => { $("hand").value = ""; show(); });
show();
}
