// The table: one socket (/play/ws/<room>, docs/table-protocol.md), every message
// drawn as it comes. The page knows no rule: it offers exactly the ask's menu
// (each entry a button, or a click on a tile for a discard) and shows what the
// server sends — the seat's view, the public table, the record of a finished
// hand with the scorer's patterns, formula and payments.
import { el, sortTiles, tileFace, tileLabel, tileSlot, tileChinese } from "./tiles.js";
import { endPanel, readyWord, STATUS } from "./result.js";

const LEARN_KEY = "tjmj.learner";

/** What an answer is called on its button (table mechanics; no rule is decided here). The kinds of kong
 * a seat makes of its own tiles carry the rule file's names (its kong_names). */
const ACTION = {
  win: ["和", "win"], concealed_kong: [(w) => w("kong", "concealed"), "concealed kong"],
  added_kong: [(w) => w("kong", "added"), "added kong"],
  pong: ["碰", "pong"], kong: ["杠", "kong"], pass: ["过", "pass"], discard: ["打", "discard"],
};
const EVENT = {
  draw: "摸 draws", discard: "打 discards", pong: "碰 pongs", kong: "杠 kongs",
  added_kong: (w) => `${w("kong", "added")} adds a kong`, concealed_kong: (w) => `${w("kong", "concealed")} concealed kong`,
  win: "和 wins", ready: "报听 declares ready",
};
const ASK = {
  act: "轮到你 Your turn: discard (click a tile) or act",
  claim: "要这张吗? Claim this discard?",
  zuozhuang: (w) => `${w("outcome", "zuozhuang")}? Sit as dealer?`,
  lazhuang: (w) => `${w("outcome", "lazhuang")}? Raise the bet on the dealer?`,
  declare_ready: (w) => `报听? Your dealt hand is ready: declare it? (${readyWord(w)})`,
};
/** The error codes that refuse what this page sent (docs/table-protocol.md); the others the server says unasked. */
const REFUSALS = new Set(["malformed", "too_large", "flood", "not_seated", "not_your_turn", "stale", "bad_choice", "room_over"]);
/** Each seat's place around the table, seen from seat `me`: the next seat sits on the right. */
const POS = ["me", "right", "across", "left"];
const PLACE = ["本家 you", "下家 right", "对家 across", "上家 left"];
const KIND = {
  act: "出牌 to play", claim: "碰杠 to claim", zuozhuang: (w) => `${w("outcome", "zuozhuang")} to sit`,
  lazhuang: (w) => `${w("outcome", "lazhuang")} to bet`, declare_ready: "报听 to declare ready",
};

export function table(app, room) {
  const frag = new URLSearchParams(location.hash.slice(1));
  const token = frag.get("seat");
  const watching = !token;
  if (token) history.replaceState(null, "", location.pathname + location.search + "#seat=" + encodeURIComponent(token));
  window.addEventListener("hashchange", () => location.reload());
  const S = {
    room, token, watching, welcome: null, state: null, handEnd: null, gameEnd: null, waits: null,
    sent: null, deadline: null, waitDeadline: null, liveStart: {}, learner: localStorage.getItem(LEARN_KEY) === "1",
    waitsKey: null, waitsAsked: [], error: null, huns: {},
    armed: null, // {hand, seq, tile}: a hun clicked once, discarded on the second click
  };
  /** What the rule file calls a kind of kong or a fact of an outcome (the welcome's names), else its id. */
  const word = (group, id) => (S.welcome && S.welcome.names && S.welcome.names[group] && S.welcome.names[group][id]) || id;
  /** A question's label from ASK or KIND (some are worded with the rule file's names). */
  const said = (labels, kind) => { const x = labels[kind]; return typeof x === "function" ? x(word) : x || kind; };
  const statusEl = document.getElementById("status");
  const setStatus = (text, bad = false) => { statusEl.textContent = text; statusEl.className = bad ? "bad" : ""; statusEl.title = ""; };
  document.getElementById("where").textContent = `房间 room ${room}` + (watching ? " · 观战 spectator" : "");

  // the page's parts: built once, filled on each message
  const info = el("section", "info");
  info.setAttribute("aria-label", "牌局 the hand");
  const endBox = el("div");
  const board = el("section", "table");
  board.setAttribute("aria-label", "牌桌 the table");
  const live = el("div", "sr");
  live.setAttribute("aria-live", "polite");
  app.replaceChildren(info, board, endBox, live); // the table first: a hand's result below it, brought into view

  let ws = null;
  let retry = 0;
  let closedForGood = false;
  const send = (msg) => { if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg)); };

  function connect() {
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/play/ws/${encodeURIComponent(room)}`;
    setStatus("连接中 connecting…");
    ws = new WebSocket(url);
    ws.onopen = () => {
      S.waitsAsked = [];
      S.waitsKey = null;
      setStatus("已连接 connected");
      send(watching ? { type: "hello", watch: true } : { type: "hello", token });
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      onMessage(msg);
    };
    ws.onclose = (ev) => {
      if (ev.code === 4404) { closedForGood = true; setStatus("没有这个房间 no such room", true); return; }
      if (ev.code === 1008) { closedForGood = true; setStatus("连接被关闭 closed by the server: " + (ev.reason || "too many refused messages"), true); return; }
      if (ev.code === 4409) {
        // the server cannot play this room now (its rules changed or are gone, or its answers no longer follow
        // the hand): said once, not asked again every second; a reload asks again
        closedForGood = true;
        const why = S.error && S.error.message ? S.error.message : "the server cannot play this room now";
        setStatus(`房间暂不可玩 this room cannot be played here now: ${why} (重新加载 reload the page to try again)`, true);
        return;
      }
      if (closedForGood) return;
      setStatus("断线, 重连中 disconnected, reconnecting…", true);
      retry = Math.min(retry + 1, 6);
      setTimeout(connect, 250 * 2 ** retry);
    };
  }

  function onMessage(msg) {
    switch (msg.type) {
      case "welcome":
        S.welcome = msg;
        if (!watching && msg.seat === null) setStatus("观战 watching");
        break;
      case "state": {
        // this seat's question gone with no answer sent, its time up: the table answered for it (the server's
        // own clock decides; this page's may see the next state before its countdown reaches 0)
        const before = S.state && S.state.ask;
        const moved = !msg.ask || (S.state && (msg.ask.seq !== before?.seq || msg.hand !== S.state.hand));
        if (before && !S.sent && S.deadline != null && moved && performance.now() >= S.deadline - 1500) timeUp(S.state);
        // no table (the game is over, or not dealt yet): the last table stays drawn, its question closed
        // the table as this page sees it: a seat's own view (with everyone's concealed counts), or a spectator's public one
        msg.table = msg.view ? { ...msg.view, concealed: msg.concealed || [0, 0, 0, 0] } : msg.public;
        if (!msg.table) msg = S.state ? { ...S.state, status: msg.status, balances: msg.balances, ask: null, waiting: null } : null;
        S.state = msg;
        retry = 0;
        if (S.error) { S.error = null; setStatus(watching ? "观战 watching" : "已连接 connected"); }
        if (!msg) break;
        if (msg.table.hun_kinds) S.huns[msg.hand] = msg.table.hun_kinds;
        S.sent = null;
        if (moved) S.armed = null; // a hun marked for another question is not marked for this one
        S.deadline = msg.ask && msg.ask.time_left != null ? performance.now() + msg.ask.time_left * 1000 : null;
        S.waitDeadline = msg.waiting && msg.waiting.time_left != null ? performance.now() + msg.waiting.time_left * 1000 : null;
        askWaits();
        announce();
        break;
      }
      case "seats": // a seat's first socket came or its last one left
        if (S.welcome) S.welcome = { ...S.welcome, seats: msg.seats };
        break;
      case "hand_end":
        S.handEnd = msg;
        S.scrollEnd = true; // once drawn, the result is brought into view (a question that follows takes it back)
        live.textContent = `第${msg.hand + 1}手结束 hand ${msg.hand + 1} is over`;
        break;
      case "game_end":
        S.gameEnd = msg;
        S.scrollEnd = true;
        closedForGood = true;
        break;
      case "waits":
        // answers come in the order asked: each is labelled with the position it was asked for
        S.waits = { ...msg, key: S.waitsAsked.shift() };
        break;
      case "error":
        S.error = msg.error;
        if (msg.error && msg.error.code === "bad_token") { closedForGood = true; S.refused = msg.error; }
        // an answer or message refused is said as not taken; what the server says unasked, as it says it
        setStatus(`${REFUSALS.has(msg.error?.code) ? "未接受 not taken: " : ""}${msg.error?.message || msg.error?.code}`, true);
        statusEl.title = msg.error?.code || "";
        if (S.sent) S.sent = null; // the answer was refused: the question is open again
        break;
      case "pong":
        return;
      default:
        return;
    }
    render();
  }

  /** Learner mode: ask the server (the rules' scorer) what the hand waits on, once per new position. */
  function askWaits() {
    const v = S.state && S.state.view;
    if (!S.learner || watching || !v || !v.indicator) return;
    // asked again only when the seat's own tiles or its question change (the socket's rate is limited)
    const key = `${S.state.hand}/${v.tiles.join("")}/${v.drawn}/${S.state.ask ? S.state.ask.seq : ""}`;
    if (key === S.waitsKey) return;
    S.waitsKey = key;
    S.waitsAsked.push(key);
    send({ type: "waits" });
  }

  function announce() {
    const v = S.state.table;
    const e = v && v.events && v.events[v.events.length - 1];
    if (S.state.ask) live.textContent = said(ASK, S.state.ask.kind);
    else if (e && e.type !== "draw") live.textContent = `${seatName(e.seat)} ${said(EVENT, e.type)} ${e.tile ? tileLabel(e.tile) : ""}`;
  }

  /** A seat as the page names it: you, or its name (with its place when two seats share a name). */
  function seatName(s) {
    const seats = (S.welcome && S.welcome.seats) || [];
    if (S.welcome && S.welcome.seat === s) return "你 you";
    const name = (seats[s] && seats[s].name) || `座 seat ${s + 1}`;
    const twins = seats.filter((x) => x && x.name === name).length > 1;
    if (!twins) return name;
    return `${name} · ${S.welcome && S.welcome.seat != null ? PLACE[(s - myPlace() + 4) % 4] : `座${s + 1}`}`;
  }
  const myPlace = () => (S.welcome && S.welcome.seat != null ? S.welcome.seat : 0);

  function answer(i) {
    S.armed = null;
    const a = S.state && S.state.ask;
    if (!a || S.sent) return;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      setStatus("未发送 not sent: the connection is down; answer again once it is back (断线 reconnecting…)", true);
      return;
    }
    S.sent = { hand: a.hand, seq: a.seq, choice: i };
    if (S.notice || S.error) { S.notice = false; S.error = null; setStatus("已连接 connected"); }
    send({ type: "answer", hand: a.hand, seq: a.seq, choice: i });
    render();
  }

  // ---- drawing ----
  /** A selector finding the focused control again once the page is drawn anew (null: none to keep). */
  function focusKey(e) {
    if (!e || e === document.body || !app.contains(e)) return null;
    if (e.id) return "#" + e.id;
    if (e.matches(".hand button.tile")) return `.hand .slot${e.parentElement.classList.contains("drawn") ? ".drawn" : ":not(.drawn)"} button.tile[data-tile="${e.dataset.tile}"]`;
    if (e.dataset.choice !== undefined) return `#ask [data-choice="${e.dataset.choice}"]`;
    return null;
  }

  /** The room's patterns by id ({name, gloss}), from the server's config (labels only: no rule). */
  function patternLabels() {
    const name = S.welcome && S.welcome.rules && S.welcome.rules.name;
    const rs = S.config && (S.config.rules || []).find((r) => r.name === name);
    return Object.fromEntries(((rs && rs.patterns) || []).map((p) => [p.id, p]));
  }

  function render() {
    const st = S.state;
    const key = focusKey(document.activeElement);
    renderInfo();
    if (!st) { board.replaceChildren(S.refused ? refusedBox() : el("p", "", "…")); return; }
    const pub = st.table;
    const view = st.view;
    const me = myPlace();
    const seats = [];
    for (let s = 0; s < 4; s++) seats.push(seatBox(s, POS[(s - me + 4) % 4], pub, view));
    board.replaceChildren(...seats, centerBox(pub));
    endBox.replaceChildren(...(S.handEnd ? [endPanel(S.handEnd, patternLabels(), seatName, S.huns[S.handEnd.hand], word)] : []),
      ...(S.gameEnd ? [gameEndBox()] : []));
    // keyboard: a new question takes the focus (the drawn tile, else its first answer) unless the
    // player is elsewhere on the page; otherwise the focused control keeps it through the redraw
    const ask = st.ask && !S.sent ? st.ask : null;
    const fresh = ask && `${st.hand}/${ask.seq}` !== S.focused;
    let target = key && !(fresh && key.startsWith("#ask")) ? app.querySelector(key) : null;
    if (fresh) {
      S.focused = `${st.hand}/${ask.seq}`;
      if (!key || key.startsWith("#ask") || key.startsWith(".hand")) {
        target = board.querySelector('#ask button[data-action="win"]')
          || board.querySelector(".hand .slot.drawn button.tile:not([disabled])") || board.querySelector("#ask [data-choice]")
          || board.querySelector(".hand button.tile:not([disabled])") || target;
      }
    }
    if (target && target !== document.activeElement) target.focus({ preventScroll: true });
    if (fresh) { // a new question is brought into view
      const bar = board.querySelector("#ask");
      if (bar && bar.scrollIntoView) bar.scrollIntoView({ block: "nearest" });
    } else if (S.scrollEnd && endBox.firstChild && endBox.scrollIntoView) {
      endBox.scrollIntoView({ block: "nearest" }); // a hand's (or the game's) end, where the player looks
    }
    S.scrollEnd = false;
  }

  function renderInfo() {
    const st = S.state;
    const w = S.welcome;
    const parts = [];
    if (w) {
      const r = w.rules || {};
      parts.push(item("规则 rules", `${r.name || ""} · ${r.profile || ""}`));
    }
    if (st) {
      const pub = st.table;
      const hands = w && w.hands ? `/${w.hands}` : "";
      parts.push(item("第几手 hand", `${st.hand + 1}${hands}`, "hand-no"));
      if (pub.indicator) {
        const ind = el("span", "item");
        ind.append(el("span", "label", "翻牌 indicator"), tileSlot(pub.indicator));
        const hun = el("span", "item huns");
        hun.append(el("span", "label", "混 huns"), ...pub.hun_kinds.map((t) => tileSlot(t, { hun: true })));
        parts.push(ind, hun);
      } else {
        parts.push(item("混 huns", "未翻 not flipped yet"));
      }
      if (pub.live_left != null) {
        // the meter's full length: the most live tiles this tab saw in the hand, kept through a reload
        const key = `tjmj.live/${room}/${st.hand}`;
        S.liveStart[key] = Math.max(S.liveStart[key] || Number(sessionStorage.getItem(key)) || 0, pub.live_left);
        sessionStorage.setItem(key, String(S.liveStart[key]));
        const box = el("span", "item live");
        const meter = el("span", "meter");
        meter.setAttribute("role", "img");
        meter.setAttribute("aria-label", `${pub.live_left} of ${S.liveStart[key]} live tiles left`);
        const bar = el("span");
        bar.style.width = `${(100 * pub.live_left) / (S.liveStart[key] || 1)}%`;
        meter.append(bar);
        const n = el("span", "big", String(pub.live_left));
        n.id = "live-left";
        box.append(el("span", "label", "余牌 live tiles"), n, meter, el("span", "muted small", `0 = ${word("outcome", "drawn")} drawn hand`));
        parts.push(box);
      }
      parts.push(item("庄 dealer", `${seatName(pub.dealer)}${pub.zuozhuang ? ` · ${word("outcome", "zuozhuang")} sits` : ""}`));
    }
    const learn = el("label", "item");
    const cb = el("input");
    cb.type = "checkbox";
    cb.id = "learner";
    cb.checked = S.learner;
    cb.disabled = watching;
    cb.addEventListener("change", () => {
      S.learner = cb.checked;
      localStorage.setItem(LEARN_KEY, cb.checked ? "1" : "0");
      S.waitsKey = null;
      if (S.learner) askWaits(); else S.waits = null;
      render();
    });
    learn.append(cb, "学习 learner mode");
    if (!watching) parts.push(learn);
    info.replaceChildren(...parts);
  }

  function item(label, value, id = "") {
    const e = el("span", "item");
    const v = el("strong", "", value);
    if (id) v.id = id;
    e.append(el("span", "label", label), v);
    return e;
  }

  function seatBox(s, pos, pub, view) {
    const st = S.state;
    const box = el("section", `seat pos-${pos}`);
    box.dataset.seat = String(s);
    const waiting = st.waiting && st.waiting.seat === s;
    if (waiting) box.classList.add("turn");
    const who = el("div", "who");
    const sw = S.welcome && S.welcome.seats ? S.welcome.seats[s] : null;
    who.append(el("span", "name", seatName(s)));
    box.setAttribute("aria-label", `座 seat ${s + 1}: ${seatName(s)}`);
    if (sw && sw.kind !== "person") who.append(el("span", "badge bet", `机器人 bot ${sw.kind}`));
    if (sw && sw.kind === "person" && sw.connected === false) who.append(el("span", "badge off", "离线 offline"));
    if (pub.dealer === s) who.append(el("span", "badge dealer", "庄 dealer"));
    if (pub.lazhuang[s]) who.append(el("span", "badge bet", `${word("outcome", "lazhuang")} ×${pub.lazhuang[s]}`));
    if (pub.xianggong[s]) who.append(el("span", "badge xg", `${word("outcome", "xianggong")} may not win`));
    if (pub.ready[s]) who.append(el("span", "badge ready", "听 ready"));
    if (waiting) {
      const t = el("span", "badge turn", "轮到 " + (st.waiting.kind ? said(KIND, st.waiting.kind) : ""));
      if (S.waitDeadline != null) t.append(" ", timerEl(S.waitDeadline));
      who.append(t);
    }
    if (st.balances) {
      const b = st.balances[s];
      const badge = el("span", "badge score", `分 ${b > 0 ? "+" : ""}${b}`);
      badge.title = "总分 the game's running balance";
      badge.dataset.balance = String(b);
      who.append(badge);
    }
    box.append(who);
    // melds
    const melds = el("div", "melds");
    for (const m of pub.melds[s].map((m, i) => (view && view.seat === s ? view.melds[s][i] : m))) melds.append(meldEl(m, pub.hun_kinds || []));
    if (pub.melds[s].length) box.append(melds);
    // concealed tiles: your own as tiles, the others' as a count
    if (view && view.seat === s) {
      box.append(mine(view));
    } else if (pub.concealed[s]) {
      const backs = el("div", "backs");
      backs.setAttribute("role", "img");
      backs.setAttribute("aria-label", `手牌 ${pub.concealed[s]} concealed tiles`);
      backs.title = `手牌 ${pub.concealed[s]} concealed tiles`;
      for (let i = 0; i < pub.concealed[s]; i++) backs.append(el("span", "tile back"));
      box.append(backs);
    }
    // discards, in order
    const dis = el("div", "discards");
    dis.setAttribute("aria-label", `${seatName(s)} 弃牌 discards`);
    const last = pub.last_discard;
    pub.discards[s].forEach((t, i) => {
      const slot = tileSlot(t, { hun: (pub.hun_kinds || []).includes(t) });
      if (last && last.seat === s && i === pub.discards[s].length - 1) slot.classList.add("last");
      dis.append(slot);
    });
    if (!pub.discards[s].length) dis.append(el("span", "label", "弃牌 no discards yet"));
    box.append(dis);
    return box;
  }

  function meldEl(m, huns) {
    const g = el("span", "meld");
    const n = m.type === "pung" ? 3 : 4;
    const name = { pung: "碰 pung", kong: "杠 kong", concealed_kong: `${word("kong", "concealed")} concealed kong` }[m.type] || m.type;
    g.title = name;
    g.setAttribute("role", "group");
    g.setAttribute("aria-label", `${name} ${m.tile ? tileLabel(m.tile) : ""}`);
    for (let i = 0; i < n; i++) {
      const face = m.type === "concealed_kong" && (i === 0 || i === 3) ? null : m.tile;
      g.append(tileSlot(face, { hun: m.tile != null && huns.includes(m.tile) && face != null }));
    }
    return g;
  }

  function timerEl(deadline) {
    const t = el("span", "timer");
    t.dataset.deadline = String(deadline);
    tick(t);
    return t;
  }

  /** Your concealed tiles (sorted, the drawn one apart) and the open question's answers. */
  function mine(view) {
    const st = S.state;
    const ask = st.ask && !S.sent ? st.ask : null;
    const box = el("div", "mine");
    const hand = el("div", "hand");
    hand.setAttribute("role", "group");
    hand.setAttribute("aria-label", "你的手牌 your tiles");
    const huns = view.hun_kinds || [];
    const tiles = [...view.tiles];
    if (view.drawn) tiles.splice(tiles.lastIndexOf(view.drawn), 1);
    const discards = new Map();
    (ask && ask.kind === "act" ? ask.menu : []).forEach((a, i) => { if (a.type === "discard") discards.set(a.tile, i); });
    if (discards.size) hand.classList.add("can-discard");
    const tileButton = (t, drawn) => {
      const hun = huns.includes(t);
      // a hun stands for any tile, the hand's most precious: its discard takes a second click on it, so that a
      // slip of the mouse or of the keys does not throw it away
      const armed = hun && S.armed && ask && S.armed.hand === ask.hand && S.armed.seq === ask.seq && S.armed.tile === t;
      const slot = tileSlot(t, { hun, tag: "button",
        caption: armed ? "再点 again?" : drawn ? (hun ? "混 摸 drawn" : "摸 drawn") : "" });
      if (armed) slot.classList.add("armed");
      if (drawn) slot.classList.add("drawn");
      const b = slot.querySelector("button");
      b.type = "button";
      const i = discards.get(t);
      if (i === undefined) {
        b.disabled = true;
        b.setAttribute("aria-label", tileLabel(t) + (hun ? " 混 hun" : "") + (drawn ? " 摸 drawn" : ""));
      } else {
        b.setAttribute("aria-label", `打 discard ${tileLabel(t)}${hun ? " 混 hun" : ""}${drawn ? " 摸 drawn" : ""}` +
          (armed ? " — 再点一次确认 press again to discard the hun" : ""));
        b.dataset.choice = String(i);
        b.addEventListener("click", (ev) => {
          // a double click's second click (detail 2) is not the second thought a hun's discard waits for
          if (!hun || (armed && ev.detail <= 1)) { answer(i); return; } // answer() forgets the mark
          if (armed) return;
          S.armed = { hand: ask.hand, seq: ask.seq, tile: t };
          setStatus(`混 ${tileLabel(t)} is a hun: 再点一次打出 click it again to discard it`);
          render();
        });
      }
      return slot;
    };
    for (const t of sortTiles(tiles)) hand.append(tileButton(t, false));
    if (view.drawn) hand.append(tileButton(view.drawn, true));
    box.append(hand);
    box.append(askBar(ask, discards, hand));
    if (S.learner) box.append(learnBox(view));
    return box;
  }

  function askBar(ask, discards, hand) {
    const bar = el("div", "ask");
    bar.id = "ask";
    const st = S.state;
    if (S.sent) { bar.append(el("span", "muted", "已答 answered…")); return bar; }
    if (!ask) {
      // the table waiting on this seat with no question for it: its answer is in (a page come back then)
      if (st.waiting && st.waiting.seat != null && S.welcome && st.waiting.seat === S.welcome.seat) bar.append(el("span", "muted", "已答 answered…"));
      else if (st.waiting && st.waiting.seat != null) bar.append(el("span", "muted", `等 waiting for ${seatName(st.waiting.seat)}`));
      else if (st.waiting) bar.append(el("span", "muted", "等 waiting…"));
      return bar;
    }
    bar.dataset.kind = ask.kind;
    bar.dataset.seq = String(ask.seq);
    const locked = ask.kind === "act" && st.table.ready && S.welcome && st.table.ready[S.welcome.seat];
    bar.append(el("span", "prompt", locked
      ? "轮到你 Your turn: your hand is declared ready (报听) and keeps its tiles: discard the drawn tile, or win"
      : said(ASK, ask.kind)));
    const last = st.table.last_discard;
    if (ask.kind === "claim" && last) {
      const what = el("span", "claimed");
      what.append(`${seatName(last.seat)} 打 `, tileFace(last.tile));
      bar.append(what);
    }
    if (S.deadline != null) bar.append(timerEl(S.deadline));
    ask.menu.forEach((a, i) => {
      if (ask.kind === "act" && a && a.type === "discard" && hand.querySelector(`button[data-choice="${i}"]`)) return;
      bar.append(actionButton(ask.kind, a, i));
    });
    return bar;
  }

  function actionButton(kind, a, i) {
    const b = el("button", "act");
    b.type = "button";
    b.dataset.choice = String(i);
    let text;
    if (kind === "zuozhuang") text = a ? `${word("outcome", "zuozhuang")} sit (zuozhuang)` : "不坐 don't sit";
    else if (kind === "declare_ready") text = a ? "报听 declare ready" : "不报 don't declare";
    else if (kind === "lazhuang") text = a === 0 ? "不拉 no raise" : `${word("outcome", "lazhuang")} ×${a} raise`;
    else {
      const [zh, en] = ACTION[a.type] || [a.type, a.type];
      text = `${typeof zh === "function" ? zh(word) : zh} ${en}`;
      b.classList.add(a.type);
      b.dataset.action = a.type;
      if (a.tile) b.dataset.tile = a.tile;
    }
    b.append(text);
    if (a && a.tile) b.append(tileFace(a.tile));
    b.setAttribute("aria-label", text + (a && a.tile ? " " + tileLabel(a.tile) : ""));
    b.addEventListener("click", () => answer(i));
    return b;
  }

  function learnBox(view) {
    const box = el("div", "learn");
    box.id = "learn";
    box.setAttribute("aria-label", "学习 learner mode");
    const w = S.waits;
    if (!view.indicator) { box.append("学习 learner: the hand has not been dealt yet."); return box; }
    if (!w || w.key !== S.waitsKey) { box.append("学习 learner: …"); return box; }  // none yet for this position
    const waitsRow = (ws) => {
      const span = el("span", "trow");
      for (const x of ws) {
        const s = tileSlot(x.tile, { hun: (view.hun_kinds || []).includes(x.tile), caption: `${x.fan}番` });
        s.title = `${tileLabel(x.tile)}: fan ${x.fan}, total ${x.total}` + (x.names ? ` (${x.names.join(" ")})` : "");
        span.append(s);
      }
      return span;
    };
    const p = el("div");
    p.id = "learn-waits";
    if (w.waits && w.waits.length) {
      p.append("听 waits on:");
      const ul = el("ul", "waits");
      for (const x of w.waits) {  // each with the scorer's patterns (its names) and formula
        const li = el("li");
        li.dataset.tile = x.tile;
        li.append(tileSlot(x.tile, { hun: (view.hun_kinds || []).includes(x.tile) }), ` ${x.fan}番 fan`);
        if (x.names && x.names.length) li.append(" · ", el("strong", "", x.names.join(" ")));
        if (x.formula) li.append(" · ", el("span", "formula", x.formula));
        ul.append(li);
      }
      p.append(ul);
    } else {
      p.append("听 waits on: — (no tile wins this hand as it stands)");
    }
    box.append(p);
    if (w.discards && w.discards.length) {
      box.append(el("div", "", "打哪张 each discard leaves:"));
      const ul = el("ul");
      const sorted = [...w.discards].sort((a, b) => b.waits.length - a.waits.length);
      const none = el("li");
      none.append("打 ");
      for (const d of sorted) {
        if (!d.waits.length) {
          const t = tileFace(d.tile);
          t.dataset.discard = d.tile;
          none.append(t);
          continue;
        }
        const li = el("li");
        li.dataset.discard = d.tile;
        li.append("打 ", tileFace(d.tile), " → 听 waits on ", waitsRow(d.waits));
        ul.append(li);
      }
      if (none.childNodes.length > 1) { none.append(" → 不听 no wait"); ul.append(none); }
      box.append(ul);
    }
    return box;
  }

  function centerBox(pub) {
    const c = el("div", "center");
    // the last moves, newest first (another seat's draw is a move without a tile)
    let events = pub.events;
    const rec = S.handEnd && S.handEnd.hand === S.state.hand ? S.handEnd.record : null;
    const won = rec && rec.events && rec.events[rec.events.length - 1];
    if (won && won.type === "win" && events[events.length - 1]?.type !== "win") events = [...events, won]; // the hand's last move
    const recent = events.slice(-6).reverse();
    if (recent.length) {
      const ol = el("ol", "log");
      ol.setAttribute("aria-label", "最近 the last moves");
      recent.forEach((e, i) => {
        const li = el("li", i === 0 ? "last" : "");
        li.append(`${seatName(e.seat)} ${said(EVENT, e.type)} `);
        if (e.tile) li.append(tileFace(e.tile));
        ol.append(li);
      });
      c.append(ol);
    } else if (!pub.indicator) {
      c.append(el("div", "last", `下注 the bets (${word("outcome", "zuozhuang")}, ${word("outcome", "lazhuang")}) come before the deal`));
    }
    if (S.state.status && S.state.status !== "playing") c.append(el("div", "badge off", STATUS[S.state.status] || S.state.status));
    return c;
  }

  /** The seat link was refused (its token is not this room's): say so where the table would be, and how to go on. */
  function refusedBox() {
    const box = el("section", "end");
    box.id = "refused";
    box.setAttribute("role", "alert");
    box.append(el("h2", "", "座位链接无效 This seat link does not seat you"),
      el("p", "", `${S.refused.message}. 请向开房的人要你的座位链接 Ask whoever made the room for your seat's link, or watch:`));
    const a = el("a", "watch-link", "观战 watch as a spectator");
    a.href = location.pathname + location.search + "#watch"; // the spectators' link (the hash change reloads)
    box.append(a);
    return box;
  }

  function gameEndBox() {
    const g = S.gameEnd;
    const box = el("section", "end");
    box.id = "game-end";
    box.append(el("h2", "", `终局 The game is over: ${STATUS[g.status] || g.status} · ${g.hands} ${g.hands === 1 ? "hand" : "hands"}`));
    const p = el("p");
    p.append("总分 balances: ", g.balances.map((b, s) => `${seatName(s)} ${b > 0 ? "+" : ""}${b}`).join(" · "));
    box.append(p);
    if (g.download) {
      const a = el("a", "", "下载记录 download the records (JSONL)");
      a.href = g.download;
      box.append(a);
    }
    return box;
  }

  function tick(t) {
    const left = Math.max(0, (Number(t.dataset.deadline) - performance.now()) / 1000);
    t.textContent = `${Math.ceil(left)}s`;
    t.classList.toggle("low", left < 10);
    t.setAttribute("aria-label", `${Math.ceil(left)} seconds left`);
  }
  setInterval(() => {
    document.querySelectorAll(".timer[data-deadline]").forEach(tick);
    // this seat's time ran out with no answer sent: the table answers for it (docs/table-protocol.md), said here
    // until the next state shows what was played
    const st = S.state;
    if (st && st.ask && !S.sent && S.deadline != null && performance.now() > S.deadline) timeUp(st);
  }, 250);

  /** Said once per question whose time ran out, until this seat answers again. */
  function timeUp(st) {
    const key = `${st.hand}/${st.ask.seq}`;
    if (S.timedOut === key) return;
    S.timedOut = key;
    setStatus("时间到 time's up: the table played the default for you (a claim: pass; your turn: the drawn tile, a hun kept; a bet: none)", true);
    S.notice = true;
  }
  setInterval(() => send({ type: "ping" }), 25000);

  fetch("/play/api/config").then((r) => (r.ok ? r.json() : null)).then((c) => { S.config = c; render(); }).catch(() => {});
  render();
  connect();
}
