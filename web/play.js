// /play: join a forming game as a power (NME) or rejoin one (IAM), and play it.
//
// Orders are entered by clicking a unit then a province, or typed in English
// notation; the server turns the notation into a DAIDE order
// (POST /api/notation) and each order is submitted at once (SUB).  What the
// server thinks of it is its THX note, shown beside it; MIS says what is still
// missing.  Everything about the rules comes from the server.  The power and
// passcode the HLO gave are kept in localStorage so that a reload rejoins
// (IAM).  Preview (POST /api/preview, Loeb's THK) adjudicates the orders the
// server accepted on a copy; Summary (POST /api/summary, Loeb's SUM) shows the
// orders the server holds.  Press at level 8000 is free text: SND ( powers ) ( 'text' ).
import { DaideSocket, Tokens, api, el, parse, quote, unparse } from "./daide.js";
import { Board, Countdown, turnOf } from "./board.js";

const STORE = "daide-play";
const $ = (id) => document.getElementById(id);
const board = new Board($("map"));
const countdown = new Countdown($("deadline"));

let tokens, mapInfo, socket;
const me = { name: "", power: null, passcode: null, game: null, level: 0 };
let now = null, sco = null, season = "SPR";
let results = [];
let orders = [];          // {key, daide, typed, note}
let selected = null;      // unit text "FRA AMY PAR" / "RUS FLT (STP SCS)"
let ready = false, drawVote = false;
const chats = new Map();  // recipients "ENG GER" -> [lines]

function status(text, kind = "") {
  $("status").textContent = text;
  $("status").className = kind;
}

function saved() {
  try { return JSON.parse(localStorage.getItem(STORE) || "null"); } catch { return null; }
}

function save() {
  localStorage.setItem(STORE, JSON.stringify({ name: me.name, power: me.power, passcode: me.passcode, game: me.game }));
}

// --- joining ----------------------------------------------------------------

function connect(first) {
  socket = new DaideSocket(tokens);
  socket.onopen = first;
  socket.onmessage = onMessage;
  socket.onclose = () => status("disconnected: reload the page to rejoin", "error");
  socket.open();
}

function join() {
  me.name = $("name").value.trim() || "web player";
  const wanted = $("power").value;
  // The 'FRA:name' convention asks for a power (docs/protocol.md §8.1).
  const nme = wanted ? `${wanted}:${me.name}` : me.name;
  connect(() => socket.send(`NME ( ${quote(nme)} ) ( 'web' )`));
  status("joining: waiting for the game to start");
  $("join-form").hidden = true;
}

function rejoin(stored) {
  Object.assign(me, stored);
  connect(() => socket.send(`IAM ( ${me.power} ) ( ${me.passcode} )`));
  status(`rejoining as ${me.power}`);
  $("join-form").hidden = true;
}

async function findGame() {
  // HLO names no game: the newest running game where our power has our name.
  for (let attempt = 0; attempt < 20 && !me.game; attempt++) {
    const { games } = await api("/api/games");
    const mine = games.find((g) => g.status === "running" &&
      g.players.some((p) => p.power === me.power && p.name.endsWith(me.name)));
    if (mine) me.game = mine.id;
    else await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// --- messages ---------------------------------------------------------------

function onMessage(text) {
  const tree = parse(text);
  const command = tree[0];
  switch (command) {
    case "MAP": socket.send(`YES ( ${text} )`); break;
    case "HLO": onHlo(tree); break;
    case "YES":
      if (tree[1][0] === "IAM") { onRejoined(); }
      else if (tree[1][0] === "GOF") setReady(true);
      else if (tree[1][0] === "NOT" && tree[1][1][0] === "GOF") setReady(false);
      else if (tree[1][0] === "DRW") setDraw(true);
      else if (tree[1][0] === "NOT" && tree[1][1][0] === "DRW") setDraw(false);
      else if (tree[1][0] === "SND") delivered(tree[1]);
      break;
    case "REJ":
      if (tree[1][0] === "IAM") {
        localStorage.removeItem(STORE);
        status("could not rejoin (the game is over or the passcode is wrong): join a new game", "error");
        $("join-form").hidden = false;
      } else if (tree[1][0] === "NME") {
        status("no seat: " + text, "error");
        $("join-form").hidden = false;
      } else if (!["TME", "MIS"].includes(tree[1][0])) note("refused: " + text);  // no deadline / no game
      break;
    case "SCO": sco = text; draw(); break;
    case "ORD": results.push(text); break;
    case "NOW": onNow(text); break;
    case "THX": onThx(tree); break;
    case "MIS": showMissing(text); break;
    case "TME": countdown.set(tree[1][0]); break;
    case "FRM": onPress(tree); break;
    case "CCD": note(`${tree[1][0]} is in civil disorder`); break;
    case "NOT":
      if (tree[1][0] === "CCD") note(`${tree[1][1][0]} is back`);
      else if (tree[1][0] === "TME") countdown.pause(tree[1][1][0]);
      break;
    case "DRW": note("the game ends in a draw"); status("game over: draw"); gameOver(); break;
    case "SLO": note(`${tree[1][0]} wins alone`); status(`game over: ${tree[1][0]} wins`); gameOver(); break;
    case "SMR": note("game over"); localStorage.removeItem(STORE); break;
    case "OFF": note("the server closed the game"); break;
    case "HUH": case "PRN": note("the server did not understand: " + text); break;
    default: break;
  }
}

async function onHlo(tree) {
  me.power = tree[1][0];
  me.passcode = tree[2][0];
  for (const option of tree[3] || []) if (option[0] === "LVL") me.level = option[1];
  $("me").textContent = `${me.power} (${mapInfo.power_names[me.power] || me.power})`;
  $("me").dataset.power = me.power;
  document.body.dataset.power = me.power;
  if (!me.game) await findGame();
  save();
  status(`playing ${me.power} in game ${me.game}`);
  $("game-link").href = `/watch/${me.game}`;
  $("play").hidden = false;
  $("press").hidden = me.level < 8000;
  buildPress();
}

async function onRejoined() {
  // Back in the game: ask again for what a new connection does not get by itself.
  for (const request of ["HLO", "SCO", "NOW", "TME"]) socket.send(request);
  try {
    const held = await api("/api/summary", { game: me.game, power: me.power, passcode: me.passcode });
    for (const order of held.orders) addOrder(order, "(held by the server)", "MBV", held.turn);
  } catch (error) { note("summary: " + error.message); }
  socket.send("MIS");
}

function onNow(text) {
  const turn = turnOf(text);
  const newPhase = !now || turnOf(now) !== turn;
  now = text;
  season = turn.split(" ")[0];
  $("turn").textContent = turn;
  if (newPhase) {
    orders = orders.filter((o) => o.turn === turn);
    selected = null;
    setReady(true);          // GOF is assumed at the start of every phase (docs/protocol.md §8.3)
    $("preview").replaceChildren();
  }
  draw();
  showOrders();
  socket.send("MIS");
}

function draw() {
  if (!now) return;
  board.show(now, sco, results.length ? results : []).then(() => board.select(selected));
  if (results.length) {
    $("results").replaceChildren(...results.map((r) => el("li", {}, r.replace(/^ORD \( \w+ -?\d+ \) /, ""))));
  }
  results = [];
}

// --- orders -----------------------------------------------------------------

function keyOf(daide) {
  const tree = parse(daide);
  return unparse(tree.length === 1 && Array.isArray(tree[0]) ? tree[0] : tree);
}

function addOrder(daide, typed, note = "…", turn = turnOf(now)) {
  const key = keyOf(daide);
  orders = orders.filter((o) => o.key !== key && !(sameUnit(o.key, key)));
  orders.push({ key, daide, typed, note, turn });
  showOrders();
}

function sameUnit(a, b) {
  const unit = (k) => { const t = parse(k); return Array.isArray(t[0]) ? unparse(t[0]) : null; };
  return unit(a) !== null && unit(a) === unit(b);
}

function onThx(tree) {
  const key = unparse(tree[1]);
  const note = tree[2][0];
  const order = orders.find((o) => o.key === key);
  if (order) order.note = note;
  else orders.push({ key, daide: `( ${key} )`, typed: "", note, turn: turnOf(now) });
  showOrders();
  socket.send("MIS");
}

function showOrders() {
  $("order-list").replaceChildren(...orders.map((o) => el("li", {
    "data-order": o.key, "data-note": o.note, class: o.note === "MBV" ? "note-MBV" : o.note === "…" ? "" : "note-bad",
  }, `${o.typed ? o.typed + " → " : ""}${o.key}  [${o.note}]`)));
}

function showMissing(text) {
  $("missing").textContent = text === "MIS" ? "nothing: all orders are in" : text.replace(/^MIS /, "");
  $("missing").dataset.missing = text;
  $("missing").dataset.turn = turnOf(now) || "";
}

async function submitTyped(text) {
  $("order-error").textContent = "";
  try {
    const answer = await api("/api/notation", { text, game: me.game, power: me.power });
    addOrder(answer.order, text);
    socket.send(`SUB ${answer.order}`);
  } catch (error) {
    $("order-error").textContent = error.message;
  }
}

// MIS ( n ) of an adjustment phase: n < 0 builds owed, n > 0 removals (docs/protocol.md §8).
function adjustmentsOwed() {
  const m = /^MIS \( (-?\d+) \)$/.exec($("missing").dataset.missing || "");
  return m ? Number(m[1]) : 0;
}

// A click on a unit selects it; a click on a province then orders it there.
// In winter a click builds an army (shift-click: a fleet) or removes the unit clicked.
board.onUnit = (unit, event) => {
  const [power, kind, ...where] = unit.split(" ");
  if (season === "WIN") {
    const place = where.join(" ").replace(/[()]/g, "").split(" ")[0];
    if (power === me.power && adjustmentsOwed() > 0) submitTyped(`remove ${kind === "AMY" ? "A" : "F"} ${place}`);
    return;
  }
  if (selected && selected !== unit && power !== me.power) {
    // Clicking another power's unit while one of ours is selected: a province click.
    board.onProvince(where.join(" ").replace(/[()]/g, "").split(" ")[0], event);
    return;
  }
  if (selected === unit) {            // twice: hold
    submitTyped(`${kind === "AMY" ? "A" : "F"} ${where.join(" ").replace(/[()]/g, "").split(" ")[0]} H`);
    selected = null;
  } else selected = unit;
  board.select(selected);
};

board.onProvince = (province, event) => {
  if (season === "WIN") {
    if (adjustmentsOwed() < 0) submitTyped(`build ${event && event.shiftKey ? "F" : "A"} ${province}`);
    return;
  }
  if (!selected) return;
  const [, kind, ...where] = selected.split(" ");
  const [from, coast] = where.join(" ").replace(/[()]/g, "").split(" ");
  const unit = `${kind === "AMY" ? "A" : "F"} ${from}${coast ? "/" + coast : ""}`;
  selected = null;
  board.select(null);
  if (province === from) submitTyped(`${unit} H`);
  else submitTyped(`${unit} ${season === "SUM" || season === "AUT" ? "R" : "-"} ${province}`);
};

// Complete the orders with holds, disbands (retreats) and waives (builds).
function completeWithDefaults() {
  const missing = $("missing").dataset.missing || "";
  const tree = parse(missing);
  if (tree[0] !== "MIS") return;
  const subs = [];
  for (const item of tree.slice(1)) {
    if (Array.isArray(item) && typeof item[0] === "number") {
      // docs/protocol.md §8: n < 0 builds (or waives) still owed, n > 0 removals
      // (which unit goes is the player's choice: not defaulted here).
      for (let i = 0; i < -item[0]; i++) subs.push(`( ${me.power} WVE )`);
    } else if (Array.isArray(item)) {
      const unit = `( ${unparse(item.slice(0, 3))} )`;
      subs.push(item.includes("MRT") ? `( ${unit} DSB )` : `( ${unit} HLD )`);
    }
  }
  for (const order of subs) addOrder(order, "default");
  if (subs.length) socket.send(`SUB ${subs.join(" ")}`);
}

function setReady(value) {
  ready = value;
  $("gof").textContent = ready ? "Not ready (NOT GOF)" : "Ready (GOF)";
  $("gof").dataset.ready = ready;
}

function setDraw(value) {
  drawVote = value;
  $("draw").textContent = drawVote ? "Withdraw draw vote" : "Vote draw";
  $("draw").dataset.vote = drawVote;
}

async function preview() {
  const accepted = orders.filter((o) => o.note === "MBV").map((o) => o.daide);
  try {
    const answer = await api("/api/preview", {
      game: me.game, power: me.power, orders: accepted, against: $("against").value });
    $("preview").innerHTML = answer.svg;
    $("preview").dataset.results = answer.results.length;
    $("preview").append(el("ul", {}, ...answer.results.map((r) => el("li", {}, r.replace(/^ORD \( \w+ -?\d+ \) /, "")))));
  } catch (error) {
    $("preview").textContent = "preview: " + error.message;
  }
}

async function summary() {
  try {
    const held = await api("/api/summary", { game: me.game, power: me.power, passcode: me.passcode });
    $("summary").replaceChildren(...(held.orders.length ? held.orders : ["(none)"]).map((o) => el("li", { "data-held": o }, o)));
  } catch (error) {
    $("summary").textContent = "summary: " + error.message;
  }
}

// --- press ------------------------------------------------------------------

function buildPress() {
  const others = mapInfo.powers.filter((p) => p !== me.power);
  $("recipients").replaceChildren(...others.map((p) => el("label", {},
    el("input", { type: "checkbox", value: p, "data-recipient": p }), p)));
}

function chatKey(powers) {
  return [...new Set(powers)].filter((p) => p !== me.power).sort().join(" ");
}

function showChat(key, text, mine = false) {
  if (!chats.has(key)) chats.set(key, []);
  chats.get(key).push({ text, mine, delivered: !mine });
  drawChats();
}

function drawChats() {
  $("chats").replaceChildren(...[...chats.entries()].map(([k, lines]) => el("div", { "data-chat": k },
    el("strong", {}, `with ${k}`), el("div", { class: "chat-log" }, ...lines.map((l) => el("div", {
      "data-delivered": l.delivered, title: l.delivered ? "" : "not yet accepted by the server",
    }, l.text + (l.delivered ? "" : " …")))))));
}

// YES ( SND ( powers ) ( press ) ): the server has relayed our message.
function delivered(snd) {
  const line = (chats.get(chatKey(snd[1])) || []).find((l) => l.mine && !l.delivered);
  if (line) { line.delivered = true; drawChats(); }
}

function sendPress() {
  const to = [...document.querySelectorAll("#recipients input:checked")].map((i) => i.value);
  const text = $("press-text").value;
  if (!to.length || !text) return;
  socket.send(`SND ( ${to.join(" ")} ) ( ${quote(text)} )`);
  showChat(chatKey(to), `${me.power}: ${text}`, true);
  $("press-text").value = "";
}

function onPress(tree) {
  // FRM ( sender ) ( recipients ) ( press ): free text is one string.
  const sender = tree[1][0];
  const recipients = tree[2];
  const body = tree[3];
  const text = body.map((part) => (typeof part === "object" && !Array.isArray(part) ? part.text : unparse([part]))).join(" ");
  showChat(chatKey([sender, ...recipients]), `${sender}: ${text}`);
}

function gameOver() {
  countdown.stop();
  showMissing("MIS");
  localStorage.removeItem(STORE);
}

function note(text) {
  $("events").prepend(el("li", {}, `${new Date().toLocaleTimeString()} ${text}`));
}

// --- start ------------------------------------------------------------------

async function main() {
  [tokens, mapInfo] = await Promise.all([Tokens.load(), api("/api/map")]);
  $("power").replaceChildren(el("option", { value: "" }, "any power"),
    ...mapInfo.powers.map((p) => el("option", { value: p }, `${p} ${mapInfo.power_names[p] || ""}`)));
  $("join").addEventListener("click", join);
  // Enter in the name field does nothing (the page's CSP has no inline handlers).
  $("join-form").addEventListener("submit", (event) => event.preventDefault());
  $("forget").addEventListener("click", () => { localStorage.removeItem(STORE); location.reload(); });
  $("order-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("order-text").value.trim();
    if (text) submitTyped(text);
    $("order-text").value = "";
  });
  $("defaults").addEventListener("click", completeWithDefaults);
  $("gof").addEventListener("click", () => socket.send(ready ? "NOT ( GOF )" : "GOF"));
  $("draw").addEventListener("click", () => socket.send(drawVote ? "NOT ( DRW )" : "DRW"));
  $("preview-btn").addEventListener("click", preview);
  $("summary-btn").addEventListener("click", summary);
  $("press-send").addEventListener("click", sendPress);
  setReady(true);
  setDraw(false);
  const stored = saved();
  if (stored && stored.power && stored.passcode != null) rejoin(stored);
  else { $("join-form").hidden = false; status("choose a name and a power"); }
}

main().catch((error) => status("error: " + error.message, "error"));
