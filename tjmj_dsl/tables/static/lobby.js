// The lobby: a room is made from what the server declares (GET /play/api/config:
// rule sets, their profiles and options, the bots, the limits); the answer's
// seat links and spectator link are shown to pass on.
import { el } from "./tiles.js";
import { STATUS } from "./result.js";

const API = "/play/api";

/** A labelled <select> of `values` (the first, "" = the server's default, when `def` is given). */
function select(name, values, { def = undefined, label = name, desc = "" } = {}) {
  const lab = el("label");
  const s = el("select");
  s.name = name;
  if (def !== undefined) {
    const o = el("option", "", `默认 default: ${typeof def === "string" ? def : JSON.stringify(def)}`);
    o.value = "";
    s.append(o);
  }
  for (const v of values) {
    const o = el("option", "", typeof v === "string" ? v : JSON.stringify(v));
    o.value = JSON.stringify(v);
    s.append(o);
  }
  lab.append(el("span", "", label), s);
  if (desc) lab.append(el("span", "desc", desc));
  return lab;
}

function number(name, label, { min, max, value }) {
  const lab = el("label");
  const i = el("input");
  Object.assign(i, { type: "number", name, min: String(min), max: String(max), value: String(value), required: true });
  i.inputMode = "numeric";
  lab.append(el("span", "", label), i);
  return lab;
}

/** The error shape of the contract, as a line of text. */
function errorText(body, status) {
  const e = body && body.error;
  return e ? `${e.message}${e.field ? ` (${e.field})` : ""}` : `HTTP ${status}`;
}

export async function lobby(app) {
  document.getElementById("where").textContent = "开房 new room";
  app.replaceChildren(el("p", "muted", "…"));
  let config;
  try {
    const r = await fetch(`${API}/config`);
    config = await r.json();
    if (!r.ok) throw new Error(errorText(config, r.status));
  } catch (e) {
    app.replaceChildren(el("p", "error", `The server's config could not be read: ${e.message}`));
    return;
  }
  const form = el("form", "create");
  form.setAttribute("aria-label", "开房 create a room");
  const rulesBox = el("fieldset");
  rulesBox.append(el("legend", "", "规则 Rules"));
  const ruleNames = config.rules.map((r) => r.name);
  const ruleSel = select("rules", ruleNames, { label: "规则 rule set" });
  const ruleDetail = el("div");
  rulesBox.append(ruleSel, ruleDetail);

  const showRules = () => {
    const rs = config.rules.find((r) => JSON.stringify(r.name) === ruleSel.querySelector("select").value) || config.rules[0];
    const top = el("div", "row");
    top.append(select("profile", rs.profiles, { label: "规则版本 profile", def: rs.default_profile }));
    const more = el("details");
    more.append(el("summary", "", "选项 Options (each defaults to the profile's)"));
    const row = el("div", "row");
    more.append(row);
    for (const [id, o] of Object.entries(rs.options || {})) {
      // every option declares its values (the config's `values`): one select each
      const label = o.name ? `${o.name} ${id}` : id;
      row.append(select(`option:${id}`, o.values, { label, def: o.default, desc: o.description || "" }));
    }
    ruleDetail.replaceChildren(top, more);
  };
  ruleSel.querySelector("select").addEventListener("change", showRules);
  showRules();

  const seatsBox = el("fieldset");
  seatsBox.append(el("legend", "", "座位 Seats"));
  const seatRow = el("div", "row");
  const kinds = ["person", ...config.bots];
  for (let i = 0; i < 4; i++) {
    const lab = el("label");
    const s = el("select");
    s.name = `seat${i}`;
    for (const k of kinds) {
      const o = el("option", "", k === "person" ? "人 person" : `机器人 bot: ${k}`);
      o.value = k;
      s.append(o);
    }
    s.value = i === 0 ? "person" : (config.bots.includes("value") ? "value" : config.bots[0]);
    const name = el("input");
    Object.assign(name, { name: `name${i}`, placeholder: "名字 name (optional)", maxLength: 40, size: 12 });
    name.setAttribute("aria-label", `座 seat ${i + 1} name`);
    lab.append(el("span", "", `座 seat ${i + 1}`), s, name);
    seatRow.append(lab);
  }
  seatsBox.append(seatRow);

  const limits = config.limits || {};
  const gameBox = el("fieldset");
  gameBox.append(el("legend", "", "牌局 Game"));
  const gameRow = el("div", "row");
  gameRow.append(
    number("hands", `手数 hands (0 = until stopped, at most ${limits.hands ?? 64})`, { min: 0, max: limits.hands ?? 64, value: 4 }),
    number("time_limit", `时限 seconds per question (${(limits.time_limit || [5, 600]).join("–")})`,
      { min: (limits.time_limit || [5])[0], max: (limits.time_limit || [5, 600])[1], value: limits.default_time_limit ?? 60 }));
  gameBox.append(gameRow);

  const submit = el("button", "act", "开房 Create the room");
  submit.type = "submit";
  const err = el("p", "error");
  err.setAttribute("role", "alert");
  form.append(rulesBox, seatsBox, gameBox, submit, err);
  const out = el("div");
  let kept;
  try {
    kept = keptSection();
  } catch {
    kept = el("section", "kept-rooms"); // the form is never lost to what the storage holds
  }
  app.replaceChildren(el("h2", "", "开房 Create a room"), form, out, kept);

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    err.textContent = "";
    const fd = new FormData(form);
    const body = { rules: JSON.parse(fd.get("rules")), seats: [], names: [], options: {} };
    if (fd.get("profile")) body.profile = JSON.parse(fd.get("profile"));
    for (const [k, v] of fd.entries()) {
      if (k.startsWith("option:") && v !== "") body.options[k.slice(7)] = JSON.parse(v);
    }
    for (let i = 0; i < 4; i++) {
      body.seats.push(fd.get(`seat${i}`));
      body.names.push(fd.get(`name${i}`) ? String(fd.get(`name${i}`)) : null);
    }
    body.hands = Number(fd.get("hands"));
    body.time_limit = Number(fd.get("time_limit"));
    submit.disabled = true;
    try {
      const r = await fetch(`${API}/rooms`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      const got = await r.json();
      if (!r.ok) throw new Error(errorText(got, r.status));
      keepRoom(got);
      out.replaceChildren(links(got, true));
      out.querySelector("a")?.focus();
    } catch (e) {
      err.textContent = `不能开房 The room was not made: ${e.message}`;
    } finally {
      submit.disabled = false;
    }
  });
}

// The rooms made in this browser, kept in its localStorage (only this site's pages read it): a reload, or the
// lobby opened again, still has their seat links and the owner's stop, which the server gives only once.
const KEPT = "tjmj.rooms";
const KEEP = 20; // the most recent ones

const ROOM_ID = /^[A-Za-z0-9_-]{1,64}$/;
const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

/** A kept link, if it is one of this site's links to room `id` (else null: the storage is anyone's to edit,
 * and a link elsewhere, or a script, must not be shown as a seat's). */
function roomLink(link, id) {
  if (typeof link !== "string" || link.length > 512) return null;
  let u;
  try {
    u = new URL(link, location.href);
  } catch {
    return null;
  }
  return u.origin === location.origin && u.pathname === `/play/room/${id}` ? u.pathname + u.search + u.hash : null;
}

/** A kept room as the lobby draws it, each field checked (null: not one). */
function keptRoom(r) {
  if (!r || typeof r !== "object" || typeof r.room !== "string" || !ROOM_ID.test(r.room) || !Array.isArray(r.seats)) return null;
  const seats = [];
  for (const x of r.seats.slice(0, 4)) {
    if (!x || typeof x !== "object" || !Number.isInteger(x.seat) || x.seat < 0 || x.seat > 3) return null;
    seats.push({ seat: x.seat, name: String(x.name ?? "").slice(0, 100), kind: String(x.kind ?? "").slice(0, 32),
      link: x.link == null ? null : roomLink(x.link, r.room) });
  }
  const spectator = roomLink(r.spectator, r.room);
  if (!spectator) return null;
  const owner_token = typeof r.owner_token === "string" && TOKEN.test(r.owner_token) ? r.owner_token : undefined;
  return { room: r.room, seats, spectator, owner_token };
}

function keptRooms() {
  try {
    const v = JSON.parse(localStorage.getItem(KEPT) || "[]");
    return Array.isArray(v) ? v.slice(0, KEEP).map(keptRoom).filter(Boolean) : [];
  } catch {
    return []; // storage refused (a private window's policy) or not JSON: nothing kept
  }
}

function setKept(list) {
  try {
    localStorage.setItem(KEPT, JSON.stringify(list.slice(0, KEEP)));
  } catch {
    // storage refused: the room's links are still on this page
  }
}

/** The room just made, kept first: stored as it is read back (keptRoom), nothing else of the answer. */
function keepRoom(room) {
  const kept = keptRoom(room);
  if (kept) setKept([kept, ...keptRooms().filter((r) => r.room !== kept.room)]);
}

/** The rooms this browser made, each folded: its status (asked of the server), links, stop, and a forget button. */
function keptSection() {
  const kept = keptRooms();
  const box = el("section", "kept-rooms");
  if (!kept.length) return box;
  box.setAttribute("aria-label", "你开的房 your rooms");
  box.append(el("h2", "", "你开的房 Your rooms"),
    el("p", "muted", "Kept in this browser only, with their seat links: forget a room to drop them. 只存在本浏览器."));
  const heading = box.querySelector("h2");
  heading.tabIndex = -1; // the focus goes here when the last room is forgotten
  for (const room of kept) {
    const d = el("details", "kept");
    d.dataset.room = room.room;
    const state = el("span", "muted", "…");
    const sum = el("summary", "", `房间 Room ${room.room} `);
    sum.append(state);
    // forgetting drops the only copy of the room's links and owner token: a second click confirms it
    const forget = el("button", "act pass forget", "忘记 Forget");
    forget.type = "button";
    forget.setAttribute("aria-label", `忘记 Forget room ${room.room}`);
    let armed = false;
    const disarm = () => {
      armed = false;
      forget.textContent = "忘记 Forget";
      forget.setAttribute("aria-label", `忘记 Forget room ${room.room}`);
    };
    forget.addEventListener("blur", disarm); // asked again only while it has the focus
    forget.addEventListener("click", (ev) => {
      if (!armed || ev.detail > 1) { // a double click's second click is not the second thought asked for
        armed = true;
        forget.textContent = "再点确认 Click again: its links and stop are lost";
        forget.setAttribute("aria-label", `再点确认 Press again to forget room ${room.room}: its links and stop are lost`);
        return;
      }
      setKept(keptRooms().filter((r) => r.room !== room.room));
      const next = d.nextElementSibling || d.previousElementSibling;
      d.remove();
      (next && next.matches("details") ? next.querySelector("summary") : heading).focus();
    });
    d.append(sum, links(room, false), forget);
    box.append(d);
    fetch(`${API}/rooms/${encodeURIComponent(room.room)}`).then(async (r) => {
      const got = await r.json();
      state.textContent = r.ok ? `— ${STATUS[got.status] || got.status}` : `— ${errorText(got, r.status)}`;
    }).catch((e) => { state.textContent = `— ${e.message}`; });
  }
  return box;
}

/** The new room's links: one per person's seat (each a secret: it plays that seat), the spectators'.
 * `fresh`: the room just made (its stop button is #stop-room; a kept room's are not numbered). */
function links(room, fresh) {
  const box = el("section", "links");
  box.setAttribute("aria-label", `房间链接 room ${room.room} links`);
  box.append(el("h2", "", `房间 Room ${room.room}`),
    el("p", "muted", "Each seat link plays its seat: give it only to that player. 每个座位链接只给该座的人."));
  const ul = el("ul");
  for (const s of room.seats) {
    const li = el("li");
    li.append(el("strong", "", `座 seat ${s.seat + 1} `), `${s.name} (${s.kind}) `);
    if (s.link) {
      const a = el("a", "seat-link", new URL(s.link, location.href).href);
      a.href = s.link;
      a.target = "_blank"; // a tab of its own: this page keeps the links and the owner's stop button
      a.rel = "noopener";
      a.dataset.seat = String(s.seat);
      li.append(a);
    }
    ul.append(li);
  }
  const li = el("li");
  const a = el("a", "watch-link", new URL(room.spectator, location.href).href);
  a.href = room.spectator;
  a.target = "_blank";
  a.rel = "noopener";
  li.append(el("strong", "", "观战 spectators "), a);
  ul.append(li);
  box.append(ul);
  if (room.owner_token) {
    // the owner's token stays in this page (it stops the game): a button, not a link to share
    const p = el("p");
    const stop = el("button", "act pass", "停止 Stop the game after this hand");
    stop.type = "button";
    if (fresh) stop.id = "stop-room";
    else stop.setAttribute("aria-label", `停止 Stop room ${room.room} after this hand`);
    const said = el("span", "muted");
    said.setAttribute("role", "status");
    stop.addEventListener("click", async () => {
      try {
        const r = await fetch(`${API}/rooms/${encodeURIComponent(room.room)}/stop`, {
          method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: room.owner_token }) });
        const got = await r.json();
        said.textContent = r.ok ? ` ${STATUS[got.status] || got.status}` : ` ${errorText(got, r.status)}`;
      } catch (e) {
        said.textContent = ` ${e.message}`;
      }
    });
    p.append(stop, said);
    box.append(p);
  }
  return box;
}
