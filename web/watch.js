// /watch/N: follow game N as a DAIDE observer (OBS over the WebSocket).
//
// The phases stored so far come from GET /api/games/N/history; from then on
// the observer's SCO / ORD / NOW messages extend them live.  The slider
// moves through the phases: while the game runs it asks the server with
// HST ( turn ) (the ORDs of that phase and the SCO / NOW after it); a
// finished game is read from the stored history.
import { DaideSocket, Tokens, api, el } from "./daide.js";
import { Board, Countdown, centreCounts, drawChart, turnOf } from "./board.js";

const gameId = Number(location.pathname.split("/").filter(Boolean)[1]);
const board = new Board(document.getElementById("map"));
const slider = document.getElementById("slider");
const phaseLabel = document.getElementById("phase");
const events = document.getElementById("events");
const countdown = new Countdown(document.getElementById("deadline"));
const statusNode = document.getElementById("status");

let mapInfo, socket;
const phases = [];          // {turn, results, sco, now}: entry 0 is the start
let following = true;       // the slider sits on the newest phase
let live = { sco: null, results: [] };
let hst = null;             // the turn asked with HST, and what has come back

function note(text, kind = "info") {
  events.prepend(el("li", { class: kind, "data-event": kind }, `${new Date().toLocaleTimeString()} ${text}`));
}

function label(phase) {
  return phase.turn ? `after ${phase.turn}` : "start";
}

function refreshSlider() {
  slider.max = Math.max(0, phases.length - 1);
  if (following) slider.value = slider.max;
  const rows = [];
  for (const p of phases) {
    const year = (turnOf(p.now) || "").split(" ")[1];
    const row = { label: year || "", counts: centreCounts(p.sco) };
    if (rows.length && rows[rows.length - 1].label === row.label) rows[rows.length - 1] = row;
    else rows.push(row);
  }
  drawChart(document.getElementById("chart"), rows, mapInfo.powers, mapInfo.colours);
}

function showPhase(index) {
  const phase = phases[index];
  if (!phase) return;
  phaseLabel.textContent = `${label(phase)} (${index + 1} / ${phases.length})`;
  phaseLabel.dataset.source = phase.source || "history";     // "hst": as the server sent it again
  board.show(phase.now, phase.sco, phase.results);
  const orders = document.getElementById("orders");
  orders.replaceChildren(...phase.results.map((r) => el("li", { "data-ord": r }, r.replace(/^ORD \( \w+ -?\d+ \) /, ""))));
}

function addPhase(phase) {
  const last = phases[phases.length - 1];
  if (last && last.now === phase.now) return;         // the position we already have
  phases.push(phase);
  refreshSlider();
  if (following) showPhase(phases.length - 1);
}

slider.addEventListener("input", () => {
  const index = Number(slider.value);
  following = index === phases.length - 1;
  const phase = phases[index];
  if (socket && socket.ready && phase && phase.turn && !following) {
    hst = { turn: phase.turn, index, results: [], sco: null };
    socket.send(`HST ( ${phase.turn} )`);
  }
  showPhase(index);
});

function onMessage(text) {
  const command = text.split(" ", 1)[0];
  if (hst && (command === "ORD" || command === "SCO" || command === "NOW")) {
    // The answer to HST ( turn ): its ORDs, then the SCO and NOW after it.
    if (command === "ORD" && turnOf(text) === hst.turn) { hst.results.push(text); return; }
    if (command === "SCO") { hst.sco = text; return; }
    if (command === "NOW") {
      const { index, results, sco } = hst;
      hst = null;
      phases[index] = { turn: phases[index].turn, results, sco, now: text, source: "hst" };
      if (Number(slider.value) === index) showPhase(index);
      return;
    }
  }
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
      document.getElementById("current").textContent = turnOf(text);
      break;
    }
    case "TME": countdown.set(Number(text.match(/-?\d+/)[0])); break;
    case "CCD": note(`${text.match(/\( (\w+) \)/)[1]} is in civil disorder`, "ccd"); break;
    case "NOT":
      if (text.startsWith("NOT ( CCD")) note(`${text.match(/CCD \( (\w+) \)/)[1]} is back`, "back");
      else if (text.startsWith("NOT ( TME")) countdown.pause(Number(text.match(/-?\d+/)[0]));
      break;
    case "DRW": note("the game ends in a draw", "drw"); statusNode.textContent = "drawn"; gameOver(); break;
    case "SLO": note(`${text.match(/\( (\w+) \)/)[1]} wins alone`, "slo"); statusNode.textContent = "solo"; gameOver(); break;
    case "SMR": note("game over: " + text.slice(4, 120), "smr"); break;
    case "OFF": note("the server has closed the game", "off"); break;
    case "REJ": note("refused: " + text, "rej"); break;
    default: break;
  }
}

let variantName = "";
function showTitle(status) {
  document.getElementById("title").textContent = `Game ${gameId} (${variantName}, ${status})`;
}

// A solo or a draw seen live: the game is over (the API says so once it is stored).
function gameOver() {
  countdown.stop();
  showTitle("finished");
}

// Title and players from the API (again once the game has started).
async function showInfo(known) {
  const game = known || await api(`/api/games/${gameId}`);
  variantName = game.variant;
  showTitle(game.status);
  document.getElementById("players").replaceChildren(...game.players.map(
    ({ power, name }) => el("li", { style: `border-left: 0.8em solid ${mapInfo.colours[power]}` }, `${power}: ${name}`)));
  return game;
}

async function main() {
  const [tokens, info, game, history] = await Promise.all([
    Tokens.load(), api("/api/map"), api(`/api/games/${gameId}`), api(`/api/games/${gameId}/history`)]);
  mapInfo = info;
  document.title = `Game ${gameId} - DAIDE`;
  await showInfo(game);
  // The start of the game first (the map's starting position when it is not stored).
  if (history.phases.length && history.phases[0].turn) phases.push({ turn: null, results: [], sco: null, now: null });
  for (const p of history.phases) phases.push({ turn: p.turn, results: p.results, sco: p.sco, now: p.now });
  if (!phases.length) {
    await board.show(null, null, []);
  } else {
    refreshSlider();
    showPhase(phases.length - 1);
  }
  statusNode.textContent = game.status;
  if (game.status === "finished") {
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
