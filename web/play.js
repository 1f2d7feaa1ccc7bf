// /play: join a forming game as a power (NME) or rejoin one (IAM), and play it.
//
// Orders are given by clicks on the board or typed in the usual notation; the
// server turns typed notation into a DAIDE order (POST /api/notation) and each
// order is submitted at once (SUB).  What the server thinks of it is its THX
// note, shown in words beside it; MIS says in words what is still missing.
// Everything about the rules comes from the server: the page never decides
// whether an order is legal.  The power and passcode the HLO gave are kept
// in localStorage so that a reload rejoins (IAM).
//
// The board shows the current position with every order the player has given
// (each drawn order carries data-order); Preview (POST /api/preview, Loeb's
// THK) draws its adjudication on the same board, "Last phase's results" the
// position the last phase was played from with its results - one convention:
// a phase is the position it was played from.
//
// Ready is a choice (docs/protocol.md §8.3): the page sends NOT (GOF) at the
// start of each phase, so the phase waits for the Ready button (GOF) or the
// deadline.  Everything a person reads is in words (web/words.js); the DAIDE
// text stays behind the "show DAIDE" switch.
import { DaideSocket, Tokens, api, el, parse, quote, unparse } from "./daide.js";
import { Board, Countdown, centreCounts, turnOf } from "./board.js";
import { Words, pageLanguage, translatePage } from "./words.js";

const STORE = "daide-play";
const $ = (id) => document.getElementById(id);
const board = new Board($("map"));
let countdown;

let tokens, mapInfo, socket, words;
const me = { name: "", power: null, passcode: null, game: null, level: 0 };
let now = null, sco = null, season = "SPR";
let incoming = [];        // ORDs of the phase being announced
let pendingSco = null;    // the SCO announced with them
let last = null;          // {now, sco, results}: the last phase, from its own position
let orders = [];          // {key, daide, tree, typed, note, turn}
let lastMis = null;       // the last MIS tree of this phase
let pick = { first: null, second: null };   // clicked units: "FRA AMY PAR"
let boardMode = "mine";   // mine | preview | last
let previewResults = null;
let ready = false, drawVote = false, over = false, hadDeadline = false;
const chats = new Map();  // recipients "ENG GER" -> [lines]

// A line of words with its DAIDE text behind the switch.
function said(text, daide) {
  const parts = [el("span", { class: "words" }, text)];
  if (daide) parts.push(" ", el("span", { class: "daide" }, daide));
  return parts;
}

function status(text, kind = "") {
  $("status").textContent = text;
  $("status").className = kind;
}

function saved() {
  try { return JSON.parse(localStorage.getItem(STORE) || "null"); } catch { return null; }
}

function save(extra = {}) {
  const old = saved() || {};
  localStorage.setItem(STORE, JSON.stringify({ ...old, name: me.name, power: me.power,
    passcode: me.passcode, game: me.game, ...extra }));
}

// --- joining ----------------------------------------------------------------

// The game this page is for: ?game=N (a Join button, an invitation link) or the one it
// played; null for the server's next forming game.  ?invite=CODE is a seat's invitation.
const params = new URLSearchParams(location.search);
const askedGame = Number(params.get("game")) || null;
const invite = params.get("invite");
// The forming game the join form offers (offerPowers): its door takes the NME, so the
// player joins the game the form described or is told it filled up - never another one.
let joinGame = null;
// A running game whose powers in civil disorder the form offers instead (take over: IAM).
let takeoverGame = null;
// The game the last NME went to (null: the shared port's next game).
let joinedAt = null;

function connect(first) {
  socket = new DaideSocket(tokens, { game: me.game || joinGame });
  socket.onopen = first;
  socket.onmessage = onMessage;
  socket.onclose = () => { if (!over) status(words.say("disconnected: reload the page to rejoin"), "error"); };
  socket.open();
}

async function join() {
  // ':' and brackets would ask for a power or a list (server/assignment.py): not a name.
  me.name = $("name").value.replace(/[[\]:]/g, " ").replace(/\s+/g, " ").trim() || "web player";
  const wanted = $("power").value;
  const list = wanted === LIST ? prefSuffix() : "";
  if (wanted === LIST && !list && !takeoverGame && !invite) {
    status(words.say("Tick at least one power of your list, or choose any free power."), "error");
    return;
  }
  if (socket) {                   // an earlier attempt's connection: closed quietly
    socket.onclose = socket.onmessage = () => {};
    socket.close();
  }
  if (takeoverGame) { takeOver(wanted); return; }
  // An invitation holds its seat ('name [invite CODE]', docs/hosting.md); a preference
  // list or a request for a random power is the name's suffix ('name [FRA ENG=GER]',
  // 'name [random]': docs/hosting.md "Which power you get"); otherwise the 'FRA:name'
  // convention asks for a power (docs/protocol.md §8.1).
  const nme = invite ? `${me.name} [invite ${invite}]`
    : wanted === LIST ? `${me.name} [${list}]`
      : wanted === RANDOM ? `${me.name} [random]`
        : wanted ? `${wanted}:${me.name}` : me.name;
  me.wanted = wanted === LIST || wanted === RANDOM ? "" : wanted;
  me.listed = wanted === LIST && !invite ? list.split(/[ =]/) : null;
  joinedAt = joinGame;
  connect(() => socket.send(`NME ( ${quote(nme)} ) ( 'web' )`));
  $("join-form").hidden = true;
  status(words.say("joining"));
  showWaiting();
}

// A power in civil disorder, taken over with the passcode the host gave (IAM, docs/hosting.md).
function takeOver(power) {
  const passcode = Number($("passcode").value.trim());
  if (!power || !Number.isInteger(passcode) || passcode <= 0) {
    status(words.say("Type the passcode of the power the host gave you."), "error");
    return;
  }
  Object.assign(me, { power, passcode, game: takeoverGame, wanted: "" });
  board.game = me.game;
  connect(() => socket.send(`IAM ( ${power} ) ( ${passcode} )`));
  $("join-form").hidden = true;
  status(words.say("taking over {power}", { power: words.power(power) }));
}

// While the game forms: which game, how many seats are taken.
async function showWaiting() {
  if (me.power) return;
  try {
    const { games } = await api("/api/games");
    const forming = games.find((g) => g.id === joinedAt && g.status === "forming")
      || games.filter((g) => g.status === "forming").sort((a, b) => a.id - b.id)[0];
    const box = $("waiting");
    box.hidden = false;
    if (forming) {
      const seats = forming.seats || mapInfo.powers.length;
      const taken = seats - forming.open_seats;
      box.dataset.game = forming.id;
      box.dataset.taken = taken;
      box.dataset.seats = seats;
      box.replaceChildren(el("h2", {}, words.say("Waiting for game {game} to start", { game: forming.id })),
        el("p", {}, words.say("{taken} of {seats} seats taken: the game starts when all {seats} are.", { taken, seats })));
    } else box.replaceChildren(el("p", {}, words.say("waiting for the game to start")));
  } catch (error) { /* the next call says it */ }
  if (!me.power) setTimeout(showWaiting, 1000);
}

function rejoin(stored) {
  Object.assign(me, stored);
  connect(() => socket.send(`IAM ( ${me.power} ) ( ${me.passcode} )`));
  status(`rejoining as ${words.power(me.power)}`);
  $("join-form").hidden = true;
}

async function findGame() {
  // HLO names no game: the newest running game where our power has our name.
  for (let attempt = 0; attempt < 20 && !me.game; attempt++) {
    const { games } = await api("/api/games");
    const mine = games.find((g) => g.status === "running" &&
      g.players.some((p) => p.power === me.power && p.name.endsWith(me.name)));
    if (mine) board.game = me.game = mine.id;
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
    case "REJ": onRej(tree, text); break;
    case "SCO":
      // Recounted after a phase: the position it was played from keeps the old one until NOW.
      if (incoming.length) pendingSco = text;
      else { sco = text; if (boardMode === "mine") draw(); }
      break;
    case "ORD": incoming.push(text); break;
    case "NOW": onNow(text, tree); break;
    case "THX": onThx(tree); break;
    case "MIS": showMissing(text, tree); break;
    case "TME": hadDeadline = true; countdown.set(tree[1][0]); break;
    case "FRM": onPress(tree, text); break;
    case "CCD": note(words.left(tree[1][0]), text, "ccd"); break;
    case "NOT":
      if (tree[1][0] === "CCD") note(words.back(tree[1][1][0]), text, "back");
      else if (tree[1][0] === "TME") countdown.pause(tree[1][1][0]);
      break;
    case "DRW": {
      // A DRW without powers is shared by every power still holding a centre (§8.10).
      const powers = tree.length > 1 ? tree.slice(1).flat() : survivors();
      onEnd(words.draw(powers), text, { draw: powers });
      break;
    }
    case "SLO": onEnd(words.solo(tree[1][0]), text, { solo: tree[1][0] }); break;
    case "SMR": finalTable(tree); break;
    case "OFF": note(words.t.closed, text, "off"); break;
    case "HUH": case "PRN":
      note("The server did not understand a message of this page (a fault of the page, not yours).", text, "huh");
      break;
    default: break;
  }
}

function onRej(tree, text) {
  const what = tree[1][0];
  if (what === "IAM" && takeoverGame) {
    // The passcode was wrong, or the power was taken over in between.
    const said = words.say("{power} of game {game} could not be taken over: the passcode is not its passcode, or it is no longer in civil disorder.",
      { power: words.power(me.power), game: takeoverGame });
    Object.assign(me, { power: null, passcode: null, game: null });
    offerPowers().then(() => { $("join-form").hidden = false; status(said, "error"); });
  } else if (what === "IAM") {
    localStorage.removeItem(STORE);
    status("could not rejoin (the game is over or the passcode is wrong): join a new game", "error");
    $("join-form").hidden = false;
    $("waiting").hidden = true;
  } else if (what === "NME") {
    // The game the form offered filled up (or started) before the NME reached it.
    const said = joinedAt
      ? words.say("Game {game} filled up before you joined: choose again.", { game: joinedAt })
      : words.say("The server could not seat you: choose again.");
    $("waiting").hidden = true;
    offerPowers().then(() => { $("join-form").hidden = false; status(said, "error"); });
  } else if (what === "SUB") note("The server refused the orders: the phase had already moved on.", text, "rej");
  else if (what === "GOF" || (what === "NOT" && tree[1][1][0] === "GOF")) { /* nothing owed or no game */ }
  else if (what === "DRW" || (what === "NOT" && tree[1][1][0] === "DRW")) note("The draw vote was refused: no game is running.", text, "rej");
  else if (what === "SND") note("The message was not delivered (press is closed now, or too much of it).", text, "rej");
  else if (!["TME", "MIS", "HST"].includes(what)) note("The server refused a request of this page.", text, "rej");
}

async function onHlo(tree) {
  me.power = tree[1][0];
  me.passcode = tree[2][0];
  for (const option of tree[3] || []) if (option[0] === "LVL") me.level = option[1];
  $("me").textContent = `${words.power(me.power)}${me.name ? " - " + me.name : ""}`;
  $("me").dataset.power = me.power;
  document.body.dataset.power = me.power;
  $("waiting").hidden = true;
  if (me.wanted && me.wanted !== me.power) {
    // Another player had asked for it first: the server gave another power.
    note(words.say("{wanted} was taken by another player: you play {power}.",
      { wanted: words.power(me.wanted), power: words.power(me.power) }), "", "power");
  } else if (me.listed) {
    // Only this page knows the list (the server never tells): say what it gave.
    note(words.say(me.listed.includes(me.power)
      ? "You play {power}, the best of your list that was still free."
      : "No power of your list was still free: you play {power}, dealt at random.",
    { power: words.power(me.power) }), "", "power");
    me.listed = null;
  }
  if (!me.game) await findGame();
  save();
  status(words.say("game {game}", { game: me.game }));
  $("game-link").href = `/watch/${me.game}`;
  $("replay-link").href = `/watch/${me.game}`;
  $("play").hidden = false;
  $("press").hidden = me.level < 8000;
  buildPress();
  loadPress();
  loadLast();
}

async function onRejoined() {
  // Back in the game: ask again for what a new connection does not get by itself.
  for (const request of ["HLO", "SCO", "NOW", "TME"]) socket.send(request);
  try {
    const held = await api("/api/summary", { game: me.game, power: me.power, passcode: me.passcode });
    for (const order of held.orders) addOrder(order, "", "MBV", held.turn);
  } catch (error) { note("The orders the server holds could not be read: " + error.message); }
  socket.send("MIS");
}

function survivors() {
  const counts = centreCounts(sco);
  return Object.keys(counts).filter((p) => counts[p] > 0);
}

function onNow(text, tree) {
  const turn = turnOf(text);
  const newPhase = !now || turnOf(now) !== turn;
  if (newPhase && now && incoming.length) {
    // The phase just processed, from the position it was played from.
    last = { now, sco, results: incoming };
    showResults(incoming, tree);
    if (hadDeadline) missedDeadline();
  }
  incoming = [];
  if (pendingSco) { sco = pendingSco; pendingSco = null; }
  now = text;
  season = turn.split(" ")[0];
  $("turn").textContent = words.season(turn);
  $("turn").dataset.turn = turn;
  if (newPhase) {
    orders = orders.filter((o) => o.turn === turn);
    pick = { first: null, second: null };
    lastMis = null;
    // Until this phase's MIS comes, nothing is known to be missing or complete.
    $("missing").replaceChildren();
    for (const key of ["missing", "complete", "turn"]) delete $("missing").dataset[key];
    hadDeadline = false;
    previewResults = null;
    $("preview").replaceChildren();
    $("summary").replaceChildren();
    $("order-error").textContent = "";
    hideCoasts();
    boardMode = "mine";
    // Ready is the player's choice: the phase waits for the button or the deadline.
    const stored = saved() || {};
    if (stored.readyTurn === turn && stored.game === me.game) socket.send("GOF");
    else { setReady(false); socket.send("NOT ( GOF )"); }
  }
  draw();
  showOrders();
  clickHelp();
  socket.send("MIS");
}

async function loadLast() {
  // After a reload: the last processed phase from the stored history.
  try {
    const history = await api(`/api/games/${me.game}/history`);
    const phases = history.phases;
    const n = phases.length;
    if (n && phases[n - 1].results.length && !last) {
      const before = n >= 2 ? phases[n - 2] : { now: null, sco: null };
      last = { now: before.now, sco: before.sco, results: phases[n - 1].results };
      showResults(last.results, phases[n - 1].now ? parse(phases[n - 1].now) : []);
    }
  } catch (error) { /* no history yet */ }
}

// --- the board ----------------------------------------------------------------

function draw() {
  if (!now) return;
  let shown;
  if (boardMode === "preview" && previewResults) {
    shown = board.show(now, sco, previewResults);
    $("board-caption").textContent = words.say("Preview of {season}: the results if the orders stay as they are", { season: words.season(turnOf(now)) });
  } else if (boardMode === "last" && last) {
    shown = board.show(last.now, last.sco, last.results);
    $("board-caption").textContent = words.say("{season}: the position it was played from, its orders and results", { season: words.season(turnOf(last.results[0])) });
  } else {
    boardMode = "mine";
    const mine = orders.filter((o) => o.note === "MBV" || o.note === "…").map((o) => o.daide);
    shown = board.show(now, sco, mine);
    $("board-caption").textContent = words.say("{season}: your orders", { season: words.season(turnOf(now)) });
  }
  $("map").dataset.mode = boardMode;
  $("board-mine").hidden = boardMode === "mine";
  $("board-last").hidden = !last || boardMode === "last";
  shown.then(() => {
    board.retitle((turn) => words.season(turn));
    if (words.lang === "fr") board.relabel(words.labels());
    markPicked();
  });
}

function markPicked() {
  board.select(pick.first);
  if (pick.second) {
    const node = $("map").querySelector(`[data-unit="${pick.second}"]`);
    if (node) node.classList.add("selected", "second");
  }
}

// --- orders -----------------------------------------------------------------

function keyOf(daide) {
  const tree = parse(daide);
  return unparse(tree.length === 1 && Array.isArray(tree[0]) ? tree[0] : tree);
}

function unitOfKey(key) {
  const t = parse(key);
  return Array.isArray(t[0]) ? unparse(t[0]) : null;
}

function addOrder(daide, typed, note = "…", turn = turnOf(now)) {
  const key = keyOf(daide);
  const unit = unitOfKey(key);
  // A new order for a unit replaces its pending or refused lines; the accepted
  // one stays until the server accepts the new one (a refusal changes nothing).
  orders = orders.filter((o) => o.key !== key && !(unit && unitOfKey(o.key) === unit && o.note !== "MBV"));
  if (note === "MBV") orders = orders.filter((o) => !(unit && unitOfKey(o.key) === unit));
  orders.push({ key, daide: `( ${key} )`, tree: parse(key), typed, note, turn });
  showOrders();
  if (boardMode === "mine") draw();
}

function onThx(tree) {
  const key = unparse(tree[1]);
  const code = tree[2][0];
  const unit = unitOfKey(key);
  const order = orders.find((o) => o.key === key && o.note === "…") || orders.find((o) => o.key === key);
  if (code === "MBV") {
    // The server replaced the unit's earlier order with this one.
    orders = orders.filter((o) => o === order || !(unit && unitOfKey(o.key) === unit));
  }
  if (order) order.note = code;
  else orders.push({ key, daide: `( ${key} )`, tree: tree[1], typed: "", note: code, turn: turnOf(now) });
  showOrders();
  if (boardMode === "mine") draw();
  socket.send("MIS");
}

function showOrders() {
  $("order-list").replaceChildren(...orders.map((o) => {
    const text = words.order(o.tree);
    const verdict = o.note === "MBV" ? "" : o.note === "…" ? ` - ${words.say("sent")}`
      : ` - ${words.say("refused: {why}", { why: words.note(o.note) })}`;
    return el("li", {
      "data-order": o.key, "data-note": o.note,
      class: o.note === "MBV" ? "note-MBV" : o.note === "…" ? "" : "note-bad",
    }, ...said(text + verdict, `( ${o.key} ) ${o.note}`));
  }));
}

function showMissing(text, tree) {
  lastMis = tree;
  const lines = words.missing(tree);
  $("missing").replaceChildren(...said(lines.join("; "), text));
  $("missing").dataset.missing = text;
  $("missing").dataset.turn = turnOf(now) || "";
  $("missing").dataset.complete = String(tree.length === 1);
}

async function submitTyped(text) {
  $("order-error").textContent = "";
  try {
    const answer = await api("/api/notation", { text, game: me.game, power: me.power, lang: words.lang });
    submit(answer.order, text);
  } catch (error) {
    $("order-error").textContent = error.message;
  }
}

function submit(daide, typed = "") {
  $("order-error").textContent = "";
  addOrder(daide, typed);
  socket.send(`SUB ${daide}`);
}

// MIS ( n ) of an adjustment phase: n < 0 builds owed, n > 0 removals (docs/protocol.md §8.3).
function adjustmentsOwed() {
  const m = /^MIS \( (-?\d+) \)$/.exec($("missing").dataset.missing || "");
  return m ? Number(m[1]) : 0;
}

// --- clicks -------------------------------------------------------------------

function unitParts(text) {
  // "RUS FLT (STP SCS)" -> {power, kind, prov, coast, node: "( RUS FLT ( STP SCS ) )"}
  const m = /^(\w+) (AMY|FLT) \(?(\w+)(?: (\w+))?\)?$/.exec(text);
  if (!m) return null;
  const [, power, kind, prov, coast] = m;
  const where = coast ? `( ${prov} ${coast} )` : prov;
  return { power, kind, prov, coast, node: `( ${power} ${kind} ${where} )`, text };
}

function province(id) {
  return mapInfo.provinces.find((p) => p.id === id) || { id, kind: "inland", coasts: [] };
}

function clickHelp() {
  let help;
  const first = pick.first && unitParts(pick.first);
  const second = pick.second && unitParts(pick.second);
  if (season === "WIN") help = words.say("Click a free home centre to build an army (shift-click: a fleet), one of your units to remove it.");
  else if (season === "SUM" || season === "AUT") {
    help = first ? words.say("Click where {unit} retreats (the unit again: it disbands).", { unit: words.unit(parse(first.node)[0]) })
      : words.say("Click a dislodged unit of yours, then where it retreats.");
  } else if (second) {
    help = words.say("Click where {other} goes for {unit} to support it (the same unit again: support it holding).",
      { other: words.unit(parse(second.node)[0]), unit: words.unit(parse(first.node)[0]) });
  } else if (first) {
    help = words.say("{unit}: click a province to move there, the unit again to hold, or another unit to support (or convoy) it.",
      { unit: words.unit(parse(first.node)[0]) });
  } else help = words.say("Click one of your units to order it.");
  $("click-help").textContent = help;
}

function clearPick() {
  pick = { first: null, second: null };
  board.select(null);
  clickHelp();
}

function notYours() {
  $("order-error").textContent = words.say("That unit is not yours: click one of your own units.");
}

board.onUnit = (text, event) => {
  const unit = unitParts(text);
  if (!unit || over) return;
  if (season === "WIN") {
    if (unit.power !== me.power) { board.onProvince(unit.prov, event); return; }
    if (adjustmentsOwed() > 0) submit(`( ${unit.node} REM )`);
    return;
  }
  if (!pick.first) {
    if (unit.power !== me.power) { notYours(); return; }
    if ((season === "SUM" || season === "AUT")) {
      const node = $("map").querySelector(`[data-unit="${text}"][data-dislodged=true]`);
      if (!node) { $("order-error").textContent = words.say("Only a dislodged unit retreats this phase."); return; }
    }
    $("order-error").textContent = "";
    pick.first = text;
  } else if (text === pick.first) {
    const first = unitParts(pick.first);
    submit(season === "SUM" || season === "AUT" ? `( ${first.node} DSB )` : `( ${first.node} HLD )`);
    clearPick();
    return;
  } else if (season === "SUM" || season === "AUT") {
    board.onProvince(unit.prov, event);
    return;
  } else if (!pick.second) {
    pick.second = text;
  } else if (text === pick.second) {
    const first = unitParts(pick.first);
    submit(`( ${first.node} SUP ${unit.node} )`);
    clearPick();
    return;
  } else {
    board.onProvince(unit.prov, event);
    return;
  }
  markPicked();
  clickHelp();
};

board.onProvince = (id, event) => {
  if (over) return;
  if (season === "WIN") {
    if (adjustmentsOwed() < 0) {
      const kind = event && event.shiftKey ? "FLT" : "AMY";
      withCoast(kind, id, (where) => submit(`( ( ${me.power} ${kind} ${where} ) BLD )`));
    }
    return;
  }
  if (!pick.first) return;
  const first = unitParts(pick.first);
  const second = pick.second && unitParts(pick.second);
  if (second) {
    if (first.kind === "FLT" && second.kind === "AMY" && province(first.prov).kind === "sea") {
      submit(`( ${first.node} CVY ${second.node} CTO ${id} )`);
    } else if (id === second.prov) submit(`( ${first.node} SUP ${second.node} )`);
    else submit(`( ${first.node} SUP ${second.node} MTO ${id} )`);
    clearPick();
    return;
  }
  clearPick();
  if (id === first.prov) {
    submit(season === "SUM" || season === "AUT" ? `( ${first.node} DSB )` : `( ${first.node} HLD )`);
    return;
  }
  const verb = season === "SUM" || season === "AUT" ? "RTO" : "MTO";
  if (verb === "MTO" && first.kind === "AMY") {
    // Our own fleets ordered to convoy this army there: the move goes by them (CTO VIA).
    const fleets = orders.filter((o) => o.note === "MBV" && o.tree[1] === "CVY"
      && unparse(o.tree[2]) === unparse(parse(first.node)[0]) && o.tree[4] === id).map((o) => o.tree[0][2]);
    if (fleets.length) { submit(`( ${first.node} CTO ${id} VIA ( ${fleets.join(" ")} ) )`); return; }
  }
  withCoast(first.kind, id, (where) => submit(`( ${first.node} ${verb} ${where} )`));
};

// A fleet into a province of several coasts: the player picks the coast.
function withCoast(kind, id, done) {
  const coasts = province(id).coasts || [];
  if (kind !== "FLT" || coasts.length < 2) { done(id); return; }
  const picker = $("coast-picker");
  picker.replaceChildren(el("span", {}, words.say("Which coast of {province}?", { province: words.provinceName(id) })),
    ...coasts.map((c) => el("button", { type: "button", "data-coast": c,
      onclick: () => { hideCoasts(); done(`( ${id} ${c} )`); } },
    words.location([id, c]))),
    el("button", { type: "button", "data-coast": "", onclick: hideCoasts }, words.say("cancel")));
  picker.hidden = false;
  picker.querySelector("button").focus();
}

function hideCoasts() {
  $("coast-picker").hidden = true;
  $("coast-picker").replaceChildren();
}

// Complete the orders with holds, disbands (retreats) and waives (builds).
function completeWithDefaults() {
  const tree = lastMis;
  if (!tree || tree[0] !== "MIS") return;
  const subs = [];
  for (const item of tree.slice(1)) {
    if (Array.isArray(item) && typeof item[0] === "number") {
      // docs/protocol.md §8.3: n < 0 builds (or waives) still owed, n > 0 removals
      // (which unit goes is the player's choice: not defaulted here).
      for (let i = 0; i < -item[0]; i++) subs.push(`( ${me.power} WVE )`);
    } else if (Array.isArray(item)) {
      const unit = `( ${unparse(item.slice(0, 3))} )`;
      subs.push(item.includes("MRT") ? `( ${unit} DSB )` : `( ${unit} HLD )`);
    }
  }
  for (const order of subs) addOrder(order, "");
  if (subs.length) socket.send(`SUB ${subs.join(" ")}`);
}

// --- ready, draw, deadline --------------------------------------------------------

function setReady(value) {
  ready = value;
  $("gof").textContent = words.say(ready ? "Wait: I am not ready" : "Ready: play my orders");
  $("gof").dataset.ready = String(ready);
  $("gof").setAttribute("aria-pressed", String(ready));
  $("ready-help").textContent = words.say(ready
    ? "You are ready: the phase is played as soon as every player is (or at the deadline)."
    : "You are not ready: the phase waits for your Ready (or for the deadline).");
  if (ready && now) save({ readyTurn: turnOf(now) });
  else if (now) save({ readyTurn: null });
}

function setDraw(value) {
  drawVote = value;
  $("draw").textContent = words.say(drawVote ? "Withdraw my draw vote" : "Vote for a draw");
  $("draw").dataset.vote = drawVote;
}

// The phase was played at its deadline: what happened to the units without orders.
function missedDeadline() {
  const owed = lastMis && lastMis.length > 1 ? lastMis.slice(1) : [];
  const lines = [];
  for (const item of owed) {
    if (!Array.isArray(item)) continue;
    if (typeof item[0] === "number") {
      if (item[0] < 0) lines.push(words.say("{n} build(s) waived", { n: -item[0] }));
      else if (item[0] > 0) lines.push(words.say("the server removed {n} of your units", { n: item[0] }));
    } else if (item.includes("MRT")) lines.push(words.say("{unit} had no order and was disbanded", { unit: words.unit(item) }));
    else lines.push(words.say("{unit} had no order and held", { unit: words.unit(item) }));
  }
  if (lines.length) note(words.say("The deadline passed before your orders were complete: {what}.", { what: lines.join("; ") }), "", "deadline");
  else if (!ready && orders.some((o) => o.note === "MBV")) note(words.say("The deadline passed before you were ready: your orders were played as given."), "", "deadline");
}

// --- preview, summary, results --------------------------------------------------

async function preview() {
  const accepted = orders.filter((o) => o.note === "MBV").map((o) => o.daide);
  try {
    const answer = await api("/api/preview", {
      game: me.game, power: me.power, orders: accepted, against: $("against").value });
    previewResults = answer.results;
    boardMode = "preview";
    $("preview").dataset.results = answer.results.length;
    $("preview").replaceChildren(...answer.results.map((r) => resultItem(r)));
    draw();
  } catch (error) {
    $("preview").replaceChildren(el("li", { class: "error" }, "preview: " + error.message));
  }
}

async function summary() {
  try {
    const held = await api("/api/summary", { game: me.game, power: me.power, passcode: me.passcode });
    $("summary").replaceChildren(...(held.orders.length
      ? held.orders.map((o) => el("li", { "data-held": o }, ...said(words.order(parse(o)), o)))
      : [el("li", {}, words.say("none yet"))]));
  } catch (error) {
    $("summary").replaceChildren(el("li", { class: "error" }, "summary: " + error.message));
  }
}

function resultItem(text, dislodgedAfter = null) {
  const ord = parse(text);
  let destroyed = false;
  if (dislodgedAfter && (ord[3] || []).includes("RET")) {
    const unit = ord[2][0];
    destroyed = !dislodgedAfter.has(`${unit[0]} ${Array.isArray(unit[2]) ? unit[2][0] : unit[2]}`);
  }
  const { text: words_, ok } = words.result(ord, destroyed);
  return el("li", { "data-ord": text, class: ok ? "ok" : "failed" }, ...said(words_, text));
}

function showResults(results, nextNow) {
  // Dislodged units of the next position: a RET unit missing from them was destroyed.
  const dislodged = new Set();
  for (const unit of (Array.isArray(nextNow) ? nextNow : parse(nextNow)).slice(2)) {
    if (Array.isArray(unit) && unit.includes("MRT")) dislodged.add(`${unit[0]} ${Array.isArray(unit[2]) ? unit[2][0] : unit[2]}`);
  }
  const turn = turnOf(results[0]);
  $("results").replaceChildren(el("li", { class: "turn" }, words.season(turn)),
    // The player's own results first.
    ...results.filter((r) => r.includes(`( ( ${me.power} `)).map((r) => resultItem(r, dislodged)),
    ...results.filter((r) => !r.includes(`( ( ${me.power} `)).map((r) => resultItem(r, dislodged)));
  $("results").dataset.turn = turn;
}

// --- the end ------------------------------------------------------------------

let ending = null;

function onEnd(sentence, text, result) {
  ending = result;
  note(sentence, text, "end");
  status(sentence);
  gameOver();
}

function gameOver() {
  over = true;
  countdown.stop();
  document.body.dataset.over = "true";
  for (const id of ["orders-box", "preview-box", "summary-box"]) $(id).hidden = true;
  $("final").hidden = false;
  localStorage.removeItem(STORE);
}

// SMR ( turn ) ( power ( 'name' ) ( 'version' ) centres [year] ) ...: the final table.
function finalTable(tree) {
  gameOver();
  const rows = tree.slice(2).filter(Array.isArray).map((entry) => ({
    power: entry[0], name: (entry[1] && entry[1][0] && entry[1][0].text) || "",
    centres: entry[3], out: entry[4],
  })).sort((a, b) => b.centres - a.centres);
  const drawn = ending && ending.draw ? ending.draw : [];
  const score = (row) => (ending && ending.solo ? (row.power === ending.solo ? 1 : 0)
    : drawn.includes(row.power) ? 1 / drawn.length : 0);
  const result = (row) => words.say(ending && ending.solo === row.power ? "won alone"
    : drawn.includes(row.power) ? "shares a {n}-way draw"
      : row.out !== undefined ? "eliminated in {year}" : "survived", { n: drawn.length, year: row.out });
  $("final-table").querySelector("tbody").replaceChildren(...rows.map((row) => el("tr", { "data-power": row.power },
    el("td", {}, words.power(row.power)), el("td", {}, row.name.replace(/^[A-Z]{3}:/, "")),
    el("td", {}, String(row.centres)), el("td", {}, result(row)),
    el("td", {}, score(row).toFixed(2)))));
  $("final-result").textContent = words.say("The game ended in {year}.", { year: tree[1][1] });
}

// --- press ------------------------------------------------------------------

function buildPress() {
  const others = mapInfo.powers.filter((p) => p !== me.power);
  $("recipients").replaceChildren(...others.map((p) => el("label", {},
    el("input", { type: "checkbox", value: p, "data-recipient": p }), words.power(p))));
}

function chatKey(powers) {
  return [...new Set(powers)].filter((p) => p !== me.power).sort().join(" ");
}

function showChat(key, line) {
  if (!chats.has(key)) chats.set(key, []);
  chats.get(key).push(line);
  drawChats();
}

function drawChats() {
  $("chats").replaceChildren(...[...chats.entries()].map(([k, lines]) => el("div", { "data-chat": k },
    el("strong", {}, words.say("with {who}", { who: words.powers(k.split(" ")) })), el("div", { class: "chat-log" }, ...lines.map((l) => el("div", {
      "data-delivered": l.delivered, title: l.delivered ? "" : "not yet accepted by the server",
    }, ...said(l.text + (l.delivered ? "" : " …"), l.daide)))))));
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
  const snd = `SND ( ${to.join(" ")} ) ( ${quote(text)} )`;
  socket.send(snd);
  showChat(chatKey(to), { text: `${words.power(me.power)}: ${text}`, mine: true, delivered: false, daide: snd });
  $("press-text").value = "";
}

// What a press message says: free text, or a bot's protocol answer put in words.
function pressWords(body) {
  if (body.length === 1 && typeof body[0] === "object" && !Array.isArray(body[0])) return body[0].text;
  const head = Array.isArray(body[0]) ? null : body[0];
  const meaning = { HUH: "not understood", TRY: "it reads no free text", YES: "yes", REJ: "no",
    BWX: "none of your business", PRP: "a proposal", FCT: "a statement", INS: "an insistence",
    QRY: "a question", SUG: "a suggestion", THK: "an opinion", IDK: "it does not know" }[head];
  return `(answered in DAIDE: ${meaning || "a message in the DAIDE press language"})`;
}

function onPress(tree, text) {
  // FRM ( sender ) ( recipients ) ( press ): free text is one string.
  const sender = tree[1][0];
  const recipients = tree[2];
  const body = tree[3];
  const line = { text: `${words.power(sender)}: ${pressWords(body)}`, mine: sender === me.power,
    delivered: true, daide: text };
  showChat(chatKey([sender, ...recipients]), line);
}

// The press of this power kept by the server (POST /api/press): shown again after a reload.
async function loadPress() {
  if (me.level < 10) return;          // no press in this game
  try {
    const answer = await api("/api/press", { game: me.game, power: me.power, passcode: me.passcode });
    chats.clear();
    for (const message of answer.messages) onPress(parse(message.frm), message.frm);
    $("chats").dataset.history = String(answer.messages.length);
  } catch (error) { note("The press history could not be read: " + error.message); }
}

function note(text, daide = "", kind = "info") {
  $("events").prepend(el("li", { "data-event": kind }, `${new Date().toLocaleTimeString()} `, ...said(text, daide)));
}

// --- the preference list ------------------------------------------------------

// The power choice's two values that are not a power: a request for a random power and
// a preference list (the Player's Technical Guide's, server/assignment.py).
const RANDOM = "*random";
const LIST = "*list";

// The list: one row a power (the free ones), in the order the player puts them.  A
// ticked row is listed; the listed rows stay on top, in rank order; "equal to the one
// above" groups a power with the listed power before it.  Everything is a checkbox or
// a button: usable by keyboard; the rows fit a phone's width (style.css).
function drawPrefs(powers) {
  $("pref-list").replaceChildren(...powers.map(prefRow));
  $("prefs-help").textContent = words.say("Tick the powers you want, best first; move a power with its arrows; tick \"equal\" for a power you like as much as the one above it. You may list a few, or all.");
  $("deal-help").textContent = words.say("Your list is secret: nobody sees it, not even after the game, and the server keeps it only until the powers are dealt. At the start, a power asked for by name goes to its asker; then each player who asked for a random power gets one; then the lists, in a random order, each take their best power still free (a random one among equal ones); the powers left go at random to everybody else.");
  refreshPrefs();
}

function prefRow(power) {
  const name = words.power(power);
  const on = el("input", { type: "checkbox", class: "pref-on" });
  const equal = el("input", { type: "checkbox", class: "pref-eq" });
  const row = el("li", { "data-power": power, "data-listed": "false" },
    el("span", { class: "pref-rank", "aria-hidden": "true" }),
    el("label", { class: "pref-power" }, on, " ", name),
    el("label", { class: "pref-equal" }, equal, " ", words.say("equal")),
    el("button", { type: "button", class: "pref-up", "aria-label": words.say("move {power} up", { power: name }) }, "↑"),
    el("button", { type: "button", class: "pref-down", "aria-label": words.say("move {power} down", { power: name }) }, "↓"));
  equal.setAttribute("aria-label", words.say("{power} equal to the power above", { power: name }));
  on.addEventListener("change", () => {
    // A ticked power joins the end of the ranked ones; an unticked one leaves them.
    row.dataset.listed = String(on.checked);
    const listed = [...$("pref-list").children].filter((r) => r !== row && r.dataset.listed === "true");
    const after = listed[listed.length - 1];
    if (after) after.after(row); else $("pref-list").prepend(row);
    if (!on.checked) equal.checked = false;
    on.focus();
    refreshPrefs();
  });
  equal.addEventListener("change", refreshPrefs);
  const move = (button, up) => {
    const other = up ? row.previousElementSibling : row.nextElementSibling;
    if (!other || other.dataset.listed !== row.dataset.listed) return;   // ranked ones stay on top
    if (up) other.before(row); else other.after(row);
    button.focus();
    refreshPrefs();
  };
  row.querySelector(".pref-up").addEventListener("click", (event) => move(event.currentTarget, true));
  row.querySelector(".pref-down").addEventListener("click", (event) => move(event.currentTarget, false));
  return row;
}

// Ranks shown (1, 2, = ...), what cannot be done disabled, the suffix kept for tests.
function refreshPrefs() {
  const rows = [...$("pref-list").children];
  let rank = 0, first = true;
  rows.forEach((row, i) => {
    const listed = row.dataset.listed === "true";
    const equal = row.querySelector(".pref-eq");
    equal.disabled = !listed || first;
    if (equal.disabled) equal.checked = false;
    if (listed && !equal.checked) rank += 1;
    row.querySelector(".pref-rank").textContent = listed ? (equal.checked ? "=" : `${rank}.`) : "-";
    const previous = rows[i - 1], next = rows[i + 1];
    row.querySelector(".pref-up").disabled = !previous || previous.dataset.listed !== row.dataset.listed;
    row.querySelector(".pref-down").disabled = !next || next.dataset.listed !== row.dataset.listed;
    if (listed) first = false;
  });
  $("prefs").dataset.list = prefSuffix();
}

// The list as the name's suffix: ranks by spaces, equal powers by '=' ('FRA ENG=GER').
function prefSuffix() {
  const groups = [];
  for (const row of $("pref-list").children) {
    if (row.dataset.listed !== "true") continue;
    if (row.querySelector(".pref-eq").checked && groups.length) groups[groups.length - 1].push(row.dataset.power);
    else groups.push([row.dataset.power]);
  }
  return groups.map((group) => group.join("=")).join(" ");
}

// The list shows for "my preference list"; the sentence on dealing for it and for random.
function showPrefs() {
  const choice = $("power").value;
  $("prefs").hidden = choice !== LIST || $("power-label").hidden;
  $("deal-help").hidden = (choice !== LIST && choice !== RANDOM) || $("power-label").hidden;
}

// --- start ------------------------------------------------------------------

// The join form offers only what the server says is free (GET /api/games: free_powers):
// the powers of the forming game that nobody asked for by name or holds by invitation -
// or, for ?game=N of a running game, its powers in civil disorder, to take over with
// the passcode the host gave.
async function offerPowers() {
  let free = mapInfo.powers, info = "";
  joinGame = takeoverGame = null;
  try {
    const { games } = await api("/api/games");
    const open = (g) => g.status === "forming" && g.open_seats > 0;
    const asked = games.find((g) => g.id === askedGame);
    const forming = asked && open(asked) ? asked
      : games.filter((g) => open(g) && g.variant === mapInfo.variant).sort((a, b) => a.id - b.id)[0];
    if (invite && asked && asked.status === "forming") {
      // The invitation holds a seat of its own game, with the power it reserves (if any).
      joinGame = asked.id;
      free = [];
      info = words.say("Your invitation holds your seat in game {game}.", { game: asked.id });
    } else if (asked && !invite && asked.status === "running" && asked.free_powers.length) {
      takeoverGame = asked.id;
      free = asked.free_powers.map((f) => f.power);
      info = words.say("Game {game} is being played: a power in civil disorder is taken over with the passcode the host gave you.", { game: asked.id });
    } else {
      if (forming) {
        free = forming.free_powers.map((f) => f.power);
        joinGame = forming.id;
        info = forming.open_seats === 1
          ? words.say("You join game {game}: the last free seat of {seats}.", { game: forming.id, seats: forming.seats })
          : words.say("You join game {game}: {free} of {seats} seats free.", { game: forming.id, free: forming.open_seats, seats: forming.seats });
      } else info = words.say("No game is forming: joining opens a new one.");
      if (askedGame && (!forming || forming.id !== askedGame)) info = words.say("Game {asked} is not forming any more. ", { asked: askedGame }) + info;
    }
    $("join-info").dataset.game = joinGame || takeoverGame || "";
  } catch (error) { /* offer every power */ }
  $("join-info").textContent = info;
  $("join-form").dataset.mode = takeoverGame ? "takeover" : "join";
  $("passcode-label").hidden = !takeoverGame;
  $("power-label").hidden = Boolean(invite && joinGame);
  $("join").textContent = words.say(takeoverGame ? "Take over the power" : "Join the game");
  const powers = free.map((p) => el("option", { value: p }, words.power(p)));
  $("power").replaceChildren(...(takeoverGame ? powers
    : [el("option", { value: "" }, words.say("any free power")),
      el("option", { value: RANDOM }, words.say("a random power")),
      el("option", { value: LIST }, words.say("my preference list...")), ...powers]));
  drawPrefs(takeoverGame ? [] : free);
  showPrefs();
}

async function main() {
  const game = askedGame || (saved() || {}).game || null;
  board.game = game;
  [tokens, mapInfo] = await Promise.all([Tokens.load(game), api(game ? `/api/map?game=${game}` : "/api/map")]);
  const lang = pageLanguage();
  words = new Words(mapInfo, lang);
  countdown = new Countdown($("deadline"), lang === "fr"
    ? { title: true, left: "restantes", none: "pas d'échéance", stopped: "horloge arrêtée" } : { title: true });
  if (lang === "fr") $("order-text").placeholder = "A Par - Bou";
  document.documentElement.lang = lang;
  $("lang").value = lang;
  translatePage(lang);
  $("lang").addEventListener("change", () => {
    const url = new URL(location.href);
    url.searchParams.set("lang", $("lang").value);
    location.href = url.toString();
  });
  $("show-daide").addEventListener("change", () => document.body.classList.toggle("show-daide", $("show-daide").checked));
  // The Join button, or Enter in the name or passcode field (the form's submit button:
  // a form of two fields and no submit button would not submit on Enter).
  $("join-form").addEventListener("submit", (event) => { event.preventDefault(); join(); });
  $("power").addEventListener("change", showPrefs);
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
  $("board-mine").addEventListener("click", () => { boardMode = "mine"; draw(); });
  $("board-last").addEventListener("click", () => { boardMode = "last"; draw(); });
  $("summary-btn").addEventListener("click", summary);
  $("press-send").addEventListener("click", sendPress);
  $("press-text").addEventListener("keydown", (event) => { if (event.key === "Enter") sendPress(); });
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") { clearPick(); hideCoasts(); } });
  setReady(false);
  setDraw(false);
  const stored = saved();
  if (stored && stored.power && stored.passcode != null) rejoin(stored);
  else {
    await offerPowers();
    $("join-form").hidden = false;
    status(words.say("choose a name and a power"));
  }
}

main().catch((error) => status("error: " + error.message, "error"));
