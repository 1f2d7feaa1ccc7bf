// /watch/N: follow game N as a DAIDE observer (OBS over the WebSocket).
//
// The phases stored so far come from GET /api/games/N/history; from then on
// the observer's SCO / ORD / NOW messages extend them live.  The slider
// moves through the phases with one convention (the play page's and the
// replay's too): a phase is shown as the position it was played from, with
// its orders and their results; the position after it is the next phase, and
// the last step is the current (or final) position.  While the game runs a
// step back asks the server with HST ( turn ) (the ORDs of that phase and the
// SCO / NOW after it); a finished game is read from the stored history.
// Everything is in words (web/words.js), the DAIDE text behind "show DAIDE".
import { DaideSocket, Tokens, api, el, parse } from "./daide.js";
import { Board, Countdown, centreCounts, drawChart, turnOf } from "./board.js";
import { Words, pageLanguage, translatePage } from "./words.js";

const gameId = Number(location.pathname.split("/").filter(Boolean)[1]);
const board = new Board(document.getElementById("map"));
board.game = gameId;
const slider = document.getElementById("slider");
const phaseLabel = document.getElementById("phase");
const events = document.getElementById("events");
let countdown;
const statusNode = document.getElementById("status");

let mapInfo, socket, words;
const phases = [];          // {turn, results, sco, now}: entry 0 is the start; results of turn, position after
let following = true;       // the slider sits on the newest step
let live = { sco: null, results: [] };
let hst = null;             // the turn asked with HST, and what has come back
let pendingSco = null;      // an SCO while an HST is answered: its or a new phase's
let finished = false;

function note(text, kind = "info", daide = "") {
  const parts = [el("span", {}, `${new Date().toLocaleTimeString()} ${text}`)];
  if (daide) parts.push(" ", el("span", { class: "daide" }, daide));
  events.prepend(el("li", { class: kind, "data-event": kind }, ...parts));
}

// The steps of the slider: each processed phase from the position it was
// played from, then the position now.
function steps() {
  const out = [];
  for (let k = 1; k < phases.length; k++) {
    out.push({ turn: phases[k].turn, now: phases[k - 1].now, sco: phases[k - 1].sco,
               results: phases[k].results, source: phases[k].source, index: k });
  }
  const lastPhase = phases[phases.length - 1];
  if (lastPhase) {
    out.push({ turn: lastPhase.now ? turnOf(lastPhase.now) : null, now: lastPhase.now,
               sco: lastPhase.sco, results: [], current: true, index: phases.length - 1 });
  }
  return out;
}

function refreshSlider() {
  const all = steps();
  slider.max = Math.max(0, all.length - 1);
  if (following) slider.value = slider.max;
  showLabel(Number(slider.value), all);
  const rows = [];
  for (const p of phases) {
    const year = (turnOf(p.now) || "").split(" ")[1];
    const row = { label: year || "", counts: centreCounts(p.sco) };
    if (rows.length && rows[rows.length - 1].label === row.label) rows[rows.length - 1] = row;
    else rows.push(row);
  }
  drawChart(document.getElementById("chart"), rows, mapInfo.powers, mapInfo.colours);
}

function showLabel(index, all = steps()) {
  const step = all[index];
  if (!step) return;
  const name = step.turn ? words.season(step.turn) : "start";
  const what = step.current ? (finished ? "final position" : "now") : "orders and results";
  phaseLabel.textContent = `${name}: ${what} (${index + 1} / ${all.length})`;
  phaseLabel.dataset.turn = step.turn || "";
  phaseLabel.dataset.step = index;
  phaseLabel.dataset.steps = all.length;
  phaseLabel.dataset.source = step.source || "history";     // "hst": as the server sent it again
}

function showPhase(index) {
  const all = steps();
  const step = all[index];
  if (!step) return;
  showLabel(index, all);
  board.show(step.now, step.sco, step.results).then(() => {
    board.retitle((turn) => words.season(turn));
    if (words.lang === "fr") board.relabel(words.labels());
  });
  const orders = document.getElementById("orders");
  orders.replaceChildren(...step.results.map((r) => {
    const { text, ok } = words.result(parse(r));
    return el("li", { "data-ord": r, class: ok ? "ok" : "failed" }, el("span", {}, text), " ",
      el("span", { class: "daide" }, r));
  }));
}

function addPhase(phase) {
  const last = phases[phases.length - 1];
  if (last && last.now === phase.now) return;         // the position we already have
  if (last && !last.turn && !phase.results.length) {
    Object.assign(last, { now: phase.now, sco: phase.sco || last.sco });   // the game starts
  } else phases.push(phase);
  refreshSlider();
  if (following) showPhase(steps().length - 1);
}

slider.addEventListener("input", () => {
  const index = Number(slider.value);
  const all = steps();
  following = index === all.length - 1;
  const step = all[index];
  if (socket && socket.ready && step && !step.current && step.turn) {
    hst = { turn: step.turn, index: step.index, results: [], sco: null };
    socket.send(`HST ( ${step.turn} )`);
  }
  showPhase(index);
});

function onMessage(text) {
  const command = text.split(" ", 1)[0];
  if (hst && (command === "ORD" || command === "SCO" || command === "NOW")) {
    // The answer to HST ( turn ): its ORDs, then the SCO and NOW after it.  A phase
    // played meanwhile is announced the same way: its ORDs name the new turn, and
    // its NOW is not the one after the turn asked for (which is known already).
    if (command === "ORD" && turnOf(text) === hst.turn) { hst.results.push(text); return; }
    if (command === "SCO") { pendingSco = text; return; }
    const asked = phases[hst.index];
    if (command === "NOW" && asked && turnOf(text) === turnOf(asked.now)) {
      const { index, results } = hst;
      hst = null;
      phases[index] = { turn: asked.turn, results, sco: pendingSco, now: text, source: "hst" };
      pendingSco = null;
      if (Number(slider.value) === index - 1) showPhase(index - 1);
      return;
    }
  }
  if (command === "NOW" && pendingSco) { live.sco = pendingSco; pendingSco = null; }
  const tree = parse(text);
  switch (command) {
    case "MAP": socket.send(`YES ( ${text} )`); break;
    case "HLO": statusNode.textContent = `watching game ${gameId}`; showInfo(); break;
    case "SCO": live.sco = text; break;
    case "ORD": live.results.push(text); break;
    case "NOW": {
      const results = live.results;
      live.results = [];
      // The phase just processed is the one the previous NOW announced.
      const previous = phases[phases.length - 1];
      addPhase({ turn: results.length ? turnOf(results[0]) : previous ? turnOf(previous.now) : null,
                 results, sco: live.sco, now: text });
      document.getElementById("current").textContent = words.season(turnOf(text));
      break;
    }
    case "TME": countdown.set(Number(text.match(/-?\d+/)[0])); break;
    case "CCD": note(words.left(tree[1][0]), "ccd", text); break;
    case "NOT":
      if (text.startsWith("NOT ( CCD")) note(words.back(tree[1][1][0]), "back", text);
      else if (text.startsWith("NOT ( TME")) countdown.pause(Number(text.match(/-?\d+/)[0]));
      break;
    case "DRW": {
      const powers = tree.length > 1 ? tree.slice(1).flat() : Object.keys(centreCounts(live.sco || (phases[phases.length - 1] || {}).sco));
      note(words.draw(powers), "drw", text); statusNode.textContent = "drawn"; gameOver(); break;
    }
    case "SLO": note(words.solo(tree[1][0]), "slo", text); statusNode.textContent = "solo"; gameOver(); break;
    case "SMR": note("the game is over: the final table is in Players", "smr", text); finalTable(tree); break;
    case "OFF": note(words.t.closed, "off", text); break;
    case "REJ": note("the server refused a request of this page", "rej", text); break;
    default: break;
  }
}

// SMR ( turn ) ( power ( 'name' ) ( 'version' ) centres [year] ) ...: centres in the players list.
function finalTable(tree) {
  for (const entry of tree.slice(2).filter(Array.isArray)) {
    const row = document.querySelector(`#players li[data-power="${entry[0]}"]`);
    if (row) row.dataset.centres = entry[3];
    if (row) row.append(` - ${entry[3]} centres${entry[4] !== undefined ? `, out in ${entry[4]}` : ""}`);
  }
}

let variantName = "";
function showTitle(status) {
  document.getElementById("title").textContent = `Game ${gameId} (${variantName}, ${status})`;
}

// A solo or a draw seen live: the game is over (the API says so once it is stored).
function gameOver() {
  finished = true;
  countdown.stop();
  showTitle("finished");
  refreshSlider();
}

// Title and players from the API (again once the game has started).
async function showInfo(known) {
  const game = known || await api(`/api/games/${gameId}`);
  variantName = game.variant;
  showTitle(game.status);
  document.getElementById("players").replaceChildren(...game.players.map(
    ({ power, name }) => el("li", { "data-power": power, style: `border-left: 0.8em solid ${mapInfo.colours[power]}` },
      `${words.power(power)}: ${name}`)));
  return game;
}

async function main() {
  const [tokens, info, game, history] = await Promise.all([
    Tokens.load(gameId), api(`/api/map?game=${gameId}`), api(`/api/games/${gameId}`), api(`/api/games/${gameId}/history`)]);
  mapInfo = info;
  const lang = pageLanguage();
  words = new Words(mapInfo, lang);
  document.documentElement.lang = lang;
  translatePage(lang);
  countdown = new Countdown(document.getElementById("deadline"), lang === "fr"
    ? { left: "restantes", none: "pas d'échéance", stopped: "horloge arrêtée" } : {});
  document.getElementById("show-daide").addEventListener("change", (event) =>
    document.body.classList.toggle("show-daide", event.target.checked));
  document.title = `Game ${gameId} - DAIDE`;
  finished = game.status === "finished";
  await showInfo(game);
  // The start of the game first: the stored starting position (a phase without
  // results whose NOW is its own turn), else the map's.
  const start = { turn: null, results: [], sco: null, now: null };
  phases.push(start);
  for (const p of history.phases) {
    if (!p.results.length && (!p.turn || turnOf(p.now) === p.turn)) Object.assign(start, { sco: p.sco, now: p.now });
    else phases.push({ turn: p.turn, results: p.results, sco: p.sco, now: p.now });
  }
  refreshSlider();
  showPhase(steps().length - 1);
  statusNode.textContent = game.status;
  if (finished) {
    countdown.stop();
    if (game.result) note(`ended: ${game.result}`, "end");
    return;
  }
  socket = new DaideSocket(tokens, { watch: gameId });
  socket.onopen = () => socket.send("OBS");
  socket.onmessage = onMessage;
  socket.onclose = () => note("connection closed", "closed");
  socket.open();
}

main().catch((error) => { statusNode.textContent = "error: " + error.message; });
