// The web table: one WebSocket to the bot, the table drawn from its frames. Every word on
// screen comes from the server (the "words" frame and the worded views); the page only
// knows card codes, seat numbers and its own layout.

import { back, face, suitSvg } from "./cards.js";
import { scoreChart } from "./chart.js";

const $ = (id) => document.getElementById(id);
const tg = () => window.Telegram?.WebApp;
const RETRY_MS = [100, 300, 700, 1500, 3000];
const NO_RETRY = new Set([4401, 4404, 1008, 1009]);
const LONG_TIME = 3600; // a turn this long has no timer (local play)
const PASSIVE_MS = 5000; // how long a deal's result stays over the table
const ROBOT =
  '<svg class="robot" viewBox="0 0 24 24" aria-hidden="true"><rect x="4" y="7" width="16" height="12" rx="3"/>' +
  '<circle cx="9" cy="13" r="1.6" class="eye"/><circle cx="15" cy="13" r="1.6" class="eye"/>' +
  '<path d="M12 3v4M9 19v2M15 19v2" class="wire"/></svg>';

const S = {
  ws: null,
  words: {},
  v: -1,
  table: null,
  hand: null,
  me: null,
  agree: false, // this person's agreement to end the match is asked for
  sel: 0,
  pending: null,
  tries: 0,
  refused: null,
  resultShown: null,
  panelKind: null,
  prevTrick: [],
  prevLast: null,
  hello: null,
};

// --- who opens the table ---------------------------------------------------------------

function helloFrame() {
  const hash = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const app = tg();
  const init = app?.initData || hash.get("tgWebAppData") || "";
  if (init) {
    const link = app?.initDataUnsafe?.start_param || query.get("tgWebAppStartParam") || query.get("t") || "";
    return { type: "hello", init, link };
  }
  // local play: the session's token after "#"
  return { type: "hello", local: location.hash.slice(1) };
}

async function telegramReady() {
  // Telegram's script is loaded only inside Telegram, and the page never waits for it long
  const inside = /tgWebApp/.test(location.hash + location.search);
  if (window.Telegram?.WebApp || !inside) return;
  await new Promise((done) => {
    const s = document.createElement("script");
    s.src = "https://telegram.org/js/telegram-web-app.js";
    s.onload = s.onerror = done;
    setTimeout(done, 3000);
    document.head.appendChild(s);
  });
}

function theme() {
  const app = tg();
  if (!app) return;
  app.ready?.();
  app.expand?.();
  const p = app.themeParams || {};
  const root = document.documentElement.style;
  for (const [k, v] of Object.entries(p)) {
    if (typeof v === "string") root.setProperty(`--tg-theme-${k.replace(/_/g, "-")}`, v);
  }
  document.body.classList.add("in-telegram");
  if (app.colorScheme === "dark") document.body.classList.add("dark");
}

function haptic(kind) {
  const h = tg()?.HapticFeedback;
  if (!h) return;
  try {
    if (kind === "tap") h.selectionChanged();
    else if (kind === "move") h.impactOccurred("light");
    else if (kind === "error") h.notificationOccurred("error");
    else if (kind === "turn") h.notificationOccurred("success");
  } catch (_) {
    /* an old client */
  }
}

// --- the socket ------------------------------------------------------------------------

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws`);
  S.ws = ws;
  ws.onopen = () => {
    S.tries = 0;
    document.body.dataset.connects = String(Number(document.body.dataset.connects || 0) + 1);
    ws.send(JSON.stringify(S.hello));
  };
  ws.onmessage = (e) => {
    let f;
    try {
      f = JSON.parse(e.data);
    } catch (_) {
      return;
    }
    receive(f);
  };
  ws.onclose = (e) => {
    if (S.ws !== ws) return;
    S.pending = null;
    if (NO_RETRY.has(e.code)) {
      document.body.dataset.conn = "refused";
      banner(S.refused || e.reason || "×");
      return;
    }
    document.body.dataset.conn = "closed";
    banner(S.words.reconnecting || "…");
    const wait = RETRY_MS[Math.min(S.tries, RETRY_MS.length - 1)];
    S.tries += 1;
    setTimeout(connect, wait);
  };
}

function send(frame) {
  if (!S.ws || S.ws.readyState !== WebSocket.OPEN) return false;
  S.ws.send(JSON.stringify(frame));
  return true;
}

function newId() {
  const a = new Uint8Array(9);
  crypto.getRandomValues(a);
  return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}

function receive(f) {
  if (f.type === "words") {
    S.words = f.words;
    document.documentElement.lang = f.lang;
    return;
  }
  if (f.type === "state") {
    if (f.v < S.v) return; // an older state sent late
    document.body.dataset.conn = "open";
    banner(null);
    const turned = f.hand?.onMove && !S.hand?.onMove;
    const tokens = (h) => (h ? h.choices.map((c) => c.token).join() : "");
    if (tokens(f.hand) !== tokens(S.hand)) S.sel = 0;
    S.v = f.v;
    S.table = f.table;
    S.hand = f.hand;
    S.me = f.me;
    S.agree = !!f.agree;
    render();
    if (turned) haptic("turn");
    document.body.dataset.version = String(f.v);
    // when this state reached the screen (the frame it is painted in): bench/web.py
    requestAnimationFrame(() => {
      document.body.dataset.drawnAt = (performance.timeOrigin + performance.now()).toFixed(2);
      document.body.dataset.drawnVersion = String(f.v);
    });
    return;
  }
  if (f.type === "answer") {
    if (S.pending === f.id) S.pending = null;
    if (f.ok) {
      S.sel = 0;
      haptic("move");
    } else {
      document.body.dataset.refusals = String(Number(document.body.dataset.refusals || 0) + 1);
      toast(f.text);
      haptic("error");
    }
    renderHand();
    return;
  }
  if (f.type === "hint") {
    toast(f.text || "…", 6000);
    if (f.mask && S.hand) {
      S.sel = f.mask;
      renderHand();
    }
    return;
  }
  if (f.type === "error") {
    S.refused = f.text;
    if (S.pending === f.id) S.pending = null;
    toast(f.text);
    haptic("error");
  }
}

// --- drawing ---------------------------------------------------------------------------

function banner(text) {
  const b = $("banner");
  b.hidden = !text;
  b.textContent = text || "";
}

let toastTimer = null;
function toast(text, ms = 2600) {
  const t = $("toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), ms);
}

// where seat ``i`` sits: the viewer at the bottom, the others clockwise (left, top, right)
function angleOf(i, n) {
  const base = S.me ?? 0;
  const r = (i - base + n) % n;
  return Math.PI / 2 + (r * 2 * Math.PI) / n;
}

function feltBox() {
  const r = $("felt").getBoundingClientRect();
  return { w: r.width, h: r.height };
}

function seatPlace(i, n) {
  const { w, h } = feltBox();
  const a = angleOf(i, n);
  const x = w / 2 + Math.cos(a) * (w / 2 - 48);
  const y = h / 2 + Math.sin(a) * (h / 2 - 52);
  return { x, y, a };
}

function render() {
  const t = S.table;
  if (!t) return;
  renderTop(t);
  renderSeats(t);
  renderTrick(t);
  renderTrump(t);
  renderLines(t);
  renderHand();
  renderResult(t);
}

function renderTop(t) {
  $("title").textContent = [t.title, t.dealLabel].filter(Boolean).join(" · ");
  const box = $("scores");
  box.innerHTML = "";
  for (const side of t.sides) {
    if (side.score === undefined) continue;
    const pill = document.createElement("span");
    pill.className = "pill";
    pill.innerHTML = `<i style="background:${side.colour}"></i><span class="txt"></span><b></b>`;
    pill.querySelector(".txt").textContent = side.name;
    pill.querySelector("b").textContent = side.score;
    box.appendChild(pill);
  }
  // a target to reach (Petukh's records count down to 0: nothing to say)
  if (t.state !== "lobby" && t.sides.length && t.target) {
    const target = document.createElement("span");
    target.className = "target txt";
    target.textContent = (S.words.score_to || "{target}").replace("{target}", t.target);
    box.appendChild(target);
  }
}

function renderSeats(t) {
  const box = $("seats");
  box.innerHTML = "";
  const n = t.seats.length;
  for (const s of t.seats) {
    const p = seatPlace(s.i, n);
    const el = document.createElement("div");
    el.className = "seat";
    el.dataset.seat = s.i;
    const side = Math.cos(p.a);
    el.classList.add(Math.abs(side) > 0.5 ? (side < 0 ? "at-left" : "at-right") : Math.sin(p.a) > 0 ? "at-bottom" : "at-top");
    if (s.onMove) el.classList.add("on-move");
    if (s.out) el.classList.add("out");
    if (s.i === S.me) el.classList.add("mine");
    el.style.left = `${p.x}px`;
    el.style.top = `${p.y}px`;
    if (s.colour) el.style.setProperty("--team", s.colour);
    const initial = s.empty ? "·" : [...s.name][0] || "?";
    el.innerHTML =
      `<div class="avatar"><svg class="ring" viewBox="0 0 44 44"><circle cx="22" cy="22" r="20"/></svg><span></span></div>` +
      `<div class="name txt"></div><div class="backs"></div>`;
    el.querySelector(".avatar span").textContent = initial;
    if (s.computer && !s.auto) el.querySelector(".avatar span").innerHTML = ROBOT;
    el.querySelector(".name").textContent = s.i === S.me ? S.words.you || s.name : s.name;
    if (t.dealer === s.i && t.state === "playing") {
      const chip = document.createElement("i");
      chip.className = "dealer";
      chip.title = S.words.dealer || "";
      chip.textContent = "D";
      el.querySelector(".avatar").appendChild(chip);
    }
    const backs = el.querySelector(".backs");
    if (s.i !== S.me && s.cards) {
      const shown = Math.min(s.cards, 6);
      for (let k = 0; k < shown; k++) backs.appendChild(back("tiny"));
      const count = document.createElement("span");
      count.className = "count txt";
      count.textContent = s.cards;
      backs.appendChild(count);
    }
    const boys = (t.boys || []).filter((b) => b.seat === s.i);
    for (const b of boys) for (const c of b.cards) backs.appendChild(face(c, "tiny"));
    if (s.onMove && t.left !== null && t.left < LONG_TIME && !s.computer) {
      const ring = el.querySelector(".ring circle");
      const frac = Math.max(0, Math.min(1, t.left / t.turn));
      const len = 2 * Math.PI * 20;
      ring.style.strokeDasharray = `${len}`;
      ring.style.strokeDashoffset = `${len * (1 - frac)}`;
      el.classList.add("timed");
      requestAnimationFrame(() =>
        requestAnimationFrame(() => {
          ring.style.transition = `stroke-dashoffset ${t.left}s linear`;
          ring.style.strokeDashoffset = `${len}`;
        }),
      );
    }
    box.appendChild(el);
  }
}

function playKey(p) {
  return `${p.seat}|${p.kind}|${p.cards ? p.cards.join(".") : p.count}`;
}

function playElement(p, t) {
  const el = document.createElement("div");
  el.className = "play";
  if (p.win) el.classList.add("win");
  el.dataset.seat = p.seat;
  const cards = p.cards ? p.cards.map((c) => face(c, "small")) : Array.from({ length: p.count }, () => back("small"));
  cards.forEach((c, k) => {
    c.style.setProperty("--k", k);
    el.appendChild(c);
  });
  el.style.setProperty("--n", cards.length);
  return el;
}

function trickOffset(seat, n) {
  const { w, h } = feltBox();
  const a = angleOf(seat, n);
  const dx = Math.min(140, w * 0.17);
  const dy = Math.min(120, h * 0.17);
  return { x: Math.cos(a) * dx, y: Math.sin(a) * dy };
}

function renderTrick(t) {
  const box = $("trick");
  const n = t.seats.length;
  box.querySelectorAll(".play").forEach((e) => e.remove());
  const before = new Set(S.prevTrick.map(playKey));
  const lastKey = t.last ? t.last.plays.map(playKey).join(";") : null;
  // the trick just taken flies to its taker (a glance, never in the way of the next move)
  if (!t.trick.length && t.last && lastKey !== S.prevLast && S.prevTrick.length) {
    const to = seatPlace(t.last.seat, n);
    const { w, h } = feltBox();
    for (const p of t.last.plays) {
      const el = playElement(p, t);
      const off = trickOffset(p.seat, n);
      el.classList.add("gone");
      el.style.transform = `translate(${off.x}px, ${off.y}px)`;
      box.appendChild(el);
      requestAnimationFrame(() =>
        requestAnimationFrame(() => {
          el.style.transform = `translate(${to.x - w / 2}px, ${to.y - h / 2}px) scale(.4)`;
          el.style.opacity = "0";
        }),
      );
      setTimeout(() => el.remove(), 450);
    }
  }
  for (const p of t.trick) {
    const el = playElement(p, t);
    const off = trickOffset(p.seat, n);
    const final = `translate(${off.x}px, ${off.y}px)`;
    if (!before.has(playKey(p))) {
      // a new card comes from its player's seat
      const from = seatPlace(p.seat, n);
      const { w, h } = feltBox();
      el.style.transition = "none";
      el.style.transform = `translate(${from.x - w / 2}px, ${from.y - h / 2}px) scale(.6)`;
      requestAnimationFrame(() =>
        requestAnimationFrame(() => {
          el.style.transition = "";
          el.style.transform = final;
        }),
      );
    } else {
      el.style.transform = final;
    }
    box.appendChild(el);
  }
  S.prevTrick = t.trick;
  S.prevLast = lastKey;
}

function renderTrump(t) {
  const box = $("trump");
  box.innerHTML = "";
  if (!t.trump || t.state !== "playing") return;
  const pile = document.createElement("div");
  pile.className = "pile";
  if (t.trumpCard) pile.appendChild(face(t.trumpCard, "small turned"));
  if (t.stock) pile.appendChild(back("small stock"));
  box.appendChild(pile);
  const label = document.createElement("div");
  label.className = "trump-label txt";
  label.innerHTML = suitSvg(t.trump, "trump-suit");
  const words = document.createElement("span");
  words.textContent = t.stock ? `${S.words.stock || ""} ${t.stock}` : "";
  label.appendChild(words);
  label.title = t.trumpLabel;
  box.appendChild(label);
}

function renderLines(t) {
  const box = $("lines");
  box.innerHTML = "";
  for (const text of [...(t.vote ? [t.vote] : []), ...t.lines.slice(t.vote ? -1 : -2)]) {
    const d = document.createElement("div");
    d.className = "line txt";
    d.textContent = text;
    box.appendChild(d);
  }
}

// --- the hand: tap cards, then the move ---------------------------------------------------

function bit(i) {
  return 1 << i;
}

function cardChoices(h) {
  return h.choices.filter((c) => !c.bare);
}

function tappable(h, i) {
  // a card that may join the selection: some move holds it and everything selected
  const want = S.sel | bit(i);
  return cardChoices(h).some((c) => (c.mask & want) === want);
}

function tapCard(i, card) {
  const h = S.hand;
  if (!h || S.pending) return;
  if (S.sel & bit(i)) {
    S.sel &= ~bit(i);
  } else if (tappable(h, i)) {
    S.sel |= bit(i);
  } else if (cardChoices(h).some((c) => c.mask & bit(i))) {
    S.sel = bit(i); // starts another move
  } else {
    toast(h.whyNot[card] || S.words.cannot || "");
    haptic("error");
    return;
  }
  haptic("tap");
  renderHand();
}

function play(choice) {
  if (S.pending) return;
  const id = newId();
  if (send({ type: "act", token: choice.token, id })) {
    S.pending = id;
    renderHand();
  }
}

function renderHand() {
  const box = $("hand");
  const bar = $("actions");
  const prompt = $("prompt");
  box.innerHTML = "";
  bar.innerHTML = "";
  const h = S.hand;
  const t = S.table;
  if (!t) return;
  if (!h) {
    prompt.textContent =
      t.state === "lobby" ? S.words.waiting_start || "" : t.finished ? S.words.finished || "" : S.words.spectator || "";
    prompt.className = "txt";
    if (t.finished && S.me !== null && S.me !== undefined) addButton(bar, S.words.again, "again", () => simple("again"));
    return;
  }
  prompt.textContent = h.prompt;
  prompt.className = "txt" + (h.onMove ? " on-move" : "");
  const n = h.cards.length;
  const anyMove = cardChoices(h).length > 0;
  h.cards.forEach(({ c, i }, k) => {
    const el = face(c);
    el.dataset.pos = i;
    el.style.setProperty("--k", k);
    el.style.setProperty("--n", n);
    const selected = (S.sel & bit(i)) !== 0;
    if (selected) el.classList.add("selected");
    else if (anyMove && tappable(h, i)) el.classList.add("legal");
    else if (anyMove || h.onMove) el.classList.add("dim");
    el.addEventListener("click", () => tapCard(i, c));
    box.appendChild(el);
  });
  const matches = cardChoices(h).filter((c) => c.mask === S.sel && S.sel);
  for (const c of matches) addButton(bar, c.label, "move", () => play(c), c.token);
  for (const c of h.choices.filter((c) => c.bare)) addButton(bar, c.label, "bare", () => play(c), c.token);
  if (!matches.length && S.sel === 0 && anyMove && h.onMove) {
    const tip = document.createElement("span");
    tip.className = "tip txt";
    tip.textContent = S.words.pick || "";
    bar.appendChild(tip);
  }
  if (h.back) addButton(bar, S.words.back, "back", () => simple("back"));
  if (h.hint) addButton(bar, S.words.hint, "hint", () => simple("hint"));
  if (t.vote) {
    // a player asked to end the match: the others agree; anyone seated may give up instead
    if (S.agree) addButton(bar, S.words.agree, "agree", () => simple("agree"));
    addButton(bar, S.words.give_up, "give_up", () => simple("give_up"));
  }
  if (t.finished) addButton(bar, S.words.again, "again", () => simple("again"));
}

function addButton(bar, label, kind, onClick, token) {
  const b = document.createElement("button");
  b.className = `btn ${kind}`;
  b.textContent = label || "";
  if (token) b.dataset.token = token;
  b.dataset.kind = kind;
  b.disabled = !!S.pending;
  b.addEventListener("click", onClick);
  bar.appendChild(b);
}

function simple(type) {
  const id = newId();
  if (send({ type, id }) && type !== "hint") S.pending = id;
}

// --- overlays: the last trick, a deal's and the match's result -----------------------------

let panelTimer = null;

// a panel over the table; ``passive``: a glance that lets every tap through to the table
// and goes by itself (a deal's result never holds up the next move)
function showPanel(build, passive = false, kind = null) {
  S.panelKind = kind;
  const panel = $("panel");
  panel.innerHTML = "";
  build(panel);
  clearTimeout(panelTimer);
  $("overlay").classList.toggle("passive", passive);
  if (passive) {
    panelTimer = setTimeout(hidePanel, PASSIVE_MS);
  } else {
    const close = document.createElement("button");
    close.className = "btn close";
    close.textContent = S.words.close || "×";
    close.addEventListener("click", hidePanel);
    panel.appendChild(close);
  }
  $("overlay").hidden = false;
}

function hidePanel() {
  $("overlay").hidden = true;
  S.panelKind = null;
}

function showLastTrick() {
  const t = S.table;
  if (!t) return;
  showPanel((panel) => {
    const head = document.createElement("h3");
    head.className = "txt";
    head.textContent = t.last ? `${S.words.last_trick || ""}: ${t.last.name}` : S.words.no_last_trick || "";
    panel.appendChild(head);
    if (!t.last) return;
    const row = document.createElement("div");
    row.className = "last-row";
    for (const p of t.last.plays) {
      const el = playElement(p, t);
      el.classList.add("static");
      const who = document.createElement("div");
      who.className = "who txt";
      who.textContent = t.seats[p.seat]?.name || "";
      const cell = document.createElement("div");
      cell.className = "cell";
      cell.append(el, who);
      row.appendChild(cell);
    }
    panel.appendChild(row);
  });
}

function renderResult(t) {
  // a new match has begun (another match, an elimination): the last one's result goes
  if (t.state === "playing" && S.panelKind === "match" && (!t.result || t.result.kind !== "match")) {
    hidePanel();
  }
  if (!t.result) return;
  const id = `${t.result.kind}:${t.result.text}`;
  if (S.resultShown === id) return;
  S.resultShown = id;
  document.body.dataset.result = t.result.kind;
  showPanel((panel) => {
    const text = document.createElement("pre");
    text.className = "result txt";
    text.textContent = t.result.text;
    panel.appendChild(text);
    if (t.result.kind === "match" && t.progress && t.progress.length > 1) {
      panel.appendChild(scoreChart(t.progress, t.sides, t.target));
    }
  }, t.result.kind === "deal", t.result.kind);
}

// --- start ---------------------------------------------------------------------------------

async function main() {
  await telegramReady();
  theme();
  S.hello = helloFrame();
  $("trick").addEventListener("click", showLastTrick);
  $("overlay").addEventListener("click", (e) => {
    if (e.target === $("overlay")) hidePanel();
  });
  window.addEventListener("resize", () => render());
  connect();
}

main();
