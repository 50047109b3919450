// The end of a hand, drawn from its record (the server's hand_end message): the
// winning hand as the scorer decomposed it, its patterns as the scorer names
// them, the formula, every payment with its reason and formula, the balances.
import { el, tileSlot, tileLabel } from "./tiles.js";

const REASON = { win: "和 win", kong: "杠 kong" };  // chan: the rule file's word (names.outcome)
const GROUP = { chow: "顺子 chow", pung: "刻子 pung", kong: "杠 kong", pair: "将 pair" };

/** The rule file's text of the flag a declaration of ready sets (its request_flags), or a plain word. */
export const readyWord = (w) => {
  const f = w("play", "ready_declaration");
  return f && f !== "ready_declaration" ? w("flag", f) : "ready";
};

/** A game's status, in words (the protocol's ids: playing, stopping, over, stopped): the table's and the lobby's. */
export const STATUS = { playing: "进行中 playing", stopping: "本手后结束 stopping after this hand", over: "已结束 all hands played",
  stopped: "已停止 stopped" };

const signed = (n) => (n > 0 ? `+${n}` : String(n));
const signClass = (n) => (n > 0 ? "pos" : n < 0 ? "neg" : "");

/** One group of the scorer's decomposition, captioned as the rulebook captions it. */
function group(g) {
  const box = el("span", "grp" + (g.declared ? " declared" : ""));
  box.title = (GROUP[g.meld] || g.meld) + (g.declared ? (g.concealed ? " (concealed)" : " (declared)") : "");
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", box.title);
  g.tiles.forEach((t, i) => {
    const hun = !!(g.huns && g.huns[i]);
    const win = g.winning_slot === i;
    const cap = [hun ? (g.faces[i] !== t ? "=" + tileLabel(g.faces[i]).split(" ")[0] : "混") : "", win ? "和" : ""].filter(Boolean).join(" ");
    box.append(tileSlot(t, { hun, win, caption: cap }));
  });
  return box;
}

/** The panel; `word(group, id)` is what the rule file calls a kind of kong ("kong") or a fact of an
 * outcome ("outcome"): the page names no rule of its own. */
export function endPanel(msg, glosses, seatName, hunKinds = null, word = (group, id) => id) {
  const reason = (r) => REASON[r] || (r === "chan" ? `${word("outcome", "chan")} chan` : r);
  const rec = msg.record;
  const res = rec.result;
  const box = el("section", "end");
  box.id = "hand-end";
  box.dataset.hand = String(msg.hand);
  box.setAttribute("aria-label", `第${msg.hand + 1}手结果 result of hand ${msg.hand + 1}`);
  const title = res.winner == null
    ? `第${msg.hand + 1}手 Hand ${msg.hand + 1}: ${word("outcome", "drawn")} drawn hand, no winner`
    : `第${msg.hand + 1}手 Hand ${msg.hand + 1}: ${seatName(res.winner)} 和 wins`;
  const h = el("h2", "", title);
  h.id = "end-title";
  box.append(h);

  const sc = res.score && res.score.result;
  const huns = (sc && sc.hun_kinds) || hunKinds || [];
  const hunLine = el("p", "small");
  hunLine.append("翻牌 indicator ", tileSlot(rec.indicator), huns.length ? " 混 huns " : "", ...huns.map((t) => tileSlot(t, { hun: true })));
  box.append(hunLine);
  if (sc) {
    const groups = el("div", "groups");
    groups.id = "win-hand";
    for (const g of sc.decomposition || []) groups.append(group(g));
    box.append(groups);
    const pats = el("div", "patterns");
    pats.id = "patterns";
    (sc.patterns || []).forEach((id, i) => {
      const p = el("span", "pattern");
      p.dataset.pattern = id;
      const name = (sc.names && sc.names[i]) || id;
      const gloss = glosses && glosses[id] && glosses[id].gloss;
      p.append(el("strong", "", name), ` ${gloss || id}`);
      pats.append(p);
    });
    box.append(pats);
    const f = el("p");
    f.append("番 fan ", el("strong", "", String(sc.fan)), " · 算法 formula ");
    const code = el("span", "formula", sc.formula || "");
    code.id = "formula";
    f.append(code);
    box.append(f);
  }
  const facts = [];
  if (res.kongs && res.kongs.length) {
    facts.push("杠 kongs: " + res.kongs.map((k) => `${seatName(k.seat)} ${word("kong", k.type)} ${k.type} ${tileLabel(k.tile)} (${k.points} ${k.points === 1 ? "point" : "points"})${k.from !== null && k.from !== undefined ? ` on a discard of ${seatName(k.from)}` : ""}${k.won ? " → 和 won on its replacement" : ""}${k.ended ? " → 和 it ended the hand as a win" : ""}`).join("; "));
  }
  if (res.chan) facts.push(`${word("outcome", "chan")} chan`);
  if (res.xianggong && res.xianggong.length) facts.push(`${word("outcome", "xianggong")} xianggong: ` + res.xianggong.map(seatName).join(", "));
  if (res.ready && res.ready.length) facts.push(`declared ready (${readyWord(word)}): ` + res.ready.map(seatName).join(", "));
  for (const f of facts) box.append(el("p", "", f));

  // every payment, with its reason and formula
  const tw = el("div", "tw");
  const t = el("table", "pay");
  t.id = "payments";
  const cap = el("caption", "sr", "付款 payments");
  const head = el("tr");
  for (const c of ["付 from", "收 to", "数 amount", "因 reason"]) head.append(el("th", "", c));
  t.append(cap, head);
  for (const p of res.payments) {
    const tr = el("tr");
    tr.className = "payment";
    Object.assign(tr.dataset, { from: String(p.from), to: String(p.to), amount: String(p.amount), reason: p.reason });
    tr.append(el("td", "", seatName(p.from)), el("td", "", seatName(p.to)), el("td", "n", String(p.amount)),
      el("td", "", reason(p.reason)));
    const fr = el("tr", "formula-row");
    const f = el("td", "f", p.formula || "");
    f.colSpan = 4;
    fr.append(f);
    t.append(tr, fr);
  }
  if (!res.payments.length) {
    const tr = el("tr");
    const td = el("td", "muted", "无付款 no payments");
    td.colSpan = 4;
    tr.append(td);
    t.append(tr);
  }
  tw.append(t);
  box.append(tw);

  // this hand's balances and the game's running ones
  const bt = el("table", "pay");
  bt.id = "balances";
  const bh = el("tr");
  bh.append(el("th", "", "座 seat"), el("th", "", "本手 this hand"), el("th", "", "累计 running"));
  bt.append(bh);
  for (let s = 0; s < 4; s++) {
    const tr = el("tr");
    tr.dataset.seat = String(s);
    const a = el("td", "n " + signClass(res.balances[s]), signed(res.balances[s]));
    a.dataset.hand = String(res.balances[s]);
    const run = msg.balances ? msg.balances[s] : null;
    const b = el("td", "n " + signClass(run ?? 0), run == null ? "" : signed(run));
    if (run != null) b.dataset.running = String(run);
    tr.append(el("td", "", seatName(s)), a, b);
    bt.append(tr);
  }
  const tw2 = el("div", "tw");
  tw2.append(bt);
  box.append(tw2);
  if (msg.download) {
    const a = el("a", "", "下载这手的记录 download this hand's record (JSON)");
    a.href = msg.download;
    box.append(a);
  }
  return box;
}
