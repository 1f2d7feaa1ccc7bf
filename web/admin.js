// /admin: the host's page - the games of the server and what a host does to them,
// through the admin API (/api/admin/..., docs/hosting.md), as `daide game` does.
//
// The admin token is typed in by the host and kept in sessionStorage only (this
// tab, until it is closed); every request carries it as Authorization: Bearer.
// Everything shown is set as text (el(), textContent): names come from players.
import { el } from "./daide.js";

const KEY = "daide-admin-token";
const $ = (id) => document.getElementById(id);
const SEASONS = { SPR: "Spring", SUM: "Summer", FAL: "Fall", AUT: "Autumn", WIN: "Winter" };
const LEVELS = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 8000];
let shown = null;          // the game in the detail section
let timer = null;

function token() { return sessionStorage.getItem(KEY) || ""; }

function say(text, kind = "") {
  $("message").textContent = text;
  $("message").className = `row join ${kind}`;
}

// One request to the admin API: JSON in and out, the token as a bearer; a refusal
// throws its one line (401: the token is wrong, and is forgotten).
async function admin(path, body) {
  const headers = { authorization: `Bearer ${token()}` };
  const options = { headers };
  if (body !== undefined) {
    options.method = "POST";
    // As every API POST (server/http.py): JSON with the page's header.
    headers["content-type"] = "application/json";
    headers["x-daide-client"] = "web";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(`/api/admin${path}`, options);
  let data = {};
  try { data = await response.json(); } catch { data = {}; }
  if (response.status === 401) {
    sessionStorage.removeItem(KEY);
    locked(data.error || "the admin token was refused");
  }
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
  return data;
}

// The settings in players' words (the flags of `daide game new`), in this order.
const SETTING_WORDS = [["level", "press level"], ["mtl", "movement deadline (s)"],
  ["rtl", "retreat deadline (s)"], ["btl", "build deadline (s)"], ["ptl", "press stops before deadline (s)"],
  ["dsd", "deadline stops for disconnections"], ["aoa", "any orders accepted"], ["pda", "partial draws allowed"],
  ["npr", "no press in retreats"], ["npb", "no press in builds"], ["idle_years_draw", "draw after idle years"],
  ["max_year", "draw after year"], ["stop_unchanged", "stop when unchanged"], ["expedite", "expedited removal"]];

function settingsText(settings) {
  const shown = SETTING_WORDS.filter(([k]) => ![null, undefined, false, ""].includes(settings[k]))
    .map(([k, words]) => `${words} ${settings[k] === true ? "yes" : settings[k]}`);
  shown.push(settings.access === "invitation" ? "by invitation only" : "open to anyone");
  return shown.join("; ");
}

// "2026-11-29T12:42:34.617+00:00" -> "2026-11-29 12:42:34 UTC"
function timeText(at) {
  return at ? `${at.replace("T", " ").slice(0, 19)} UTC` : "";
}

function turnWords(turn) {
  if (!turn) return "-";
  const [season, year] = turn.split(" ");
  return `${SEASONS[season] || season} ${year || ""}`.trim();
}

function statusText(g) {
  return (g.status || "?") + (g.paused ? " (paused)" : "") + (g.result ? ` (${g.result})` : "");
}

// Who plays: each power and its player (a server-started bot says so), then the free seats.
function players(g) {
  const bots = g.bots || {};
  const list = (g.seats || []).map((s) => `${s.power} ${s.name}` + (bots[s.power] ? " (a bot the server started)" : ""));
  if ((g.invited || []).length) list.push(`${g.invited.length} reserved`);
  if (g.free_seats) list.push(`${g.free_seats} free`);
  return list.join(", ");
}

function locked(why) {
  $("admin").hidden = true;
  $("status").textContent = "enter the admin token";
  clearTimeout(timer);
  if (why) say(why, "error");
}

async function refresh() {
  clearTimeout(timer);
  try {
    const { games } = await admin("/games");
    $("admin").hidden = false;
    $("status").textContent = `${games.length} game${games.length === 1 ? "" : "s"}`;
    $("games").tBodies[0].replaceChildren(...games.map((g) => el("tr", { "data-game": g.id },
      el("td", {}, String(g.id)), el("td", {}, g.name || ""), el("td", {}, g.variant || ""),
      el("td", {}, String((g.settings || {}).level ?? g.level ?? "")),
      el("td", {}, statusText(g)), el("td", {}, turnWords(g.turn)), el("td", {}, players(g)),
      el("td", {}, el("button", { type: "button", onclick: () => show(g.id) }, "manage")))));
    $("no-games").hidden = games.length > 0;
    if (shown !== null) await show(shown, false);
    timer = setTimeout(refresh, 5000);
  } catch (error) {
    if (token()) say(error.message, "error");
  }
}

async function show(id, scroll = true) {
  const game = await admin(`/games/${id}`);      // with its admin log
  const log = game.log || [];
  shown = id;
  $("detail").hidden = false;
  const turn = game.turn ? `, ${turnWords(game.turn)}` : "";
  $("detail-title").textContent = `Game ${game.id}${game.name ? ` "${game.name}"` : ""}: ${statusText(game)}${turn}`;
  const where = game.own_port ? `its own port ${game.port}` : `the shared port ${game.port}`;
  const parts = [el("p", {}, `${game.variant}, on ${where}. ${settingsText(game.settings || {})}.`),
    el("p", {}, players(game) || "no players yet")];
  const invited = game.invited || [];
  if (invited.length) {
    parts.push(el("table", { class: "games" },
      el("thead", {}, el("tr", {}, ...["reserved power", "for", "who"].map((h) => el("th", {}, h)))),
      el("tbody", {}, ...invited.map((i) => el("tr", {},
        el("td", {}, i.power || "(dealt at the start)"), el("td", {}, i.name || ""),
        el("td", {}, i.bot ? "a bot started by the server" : "invited player"))))));
  }
  const free = (game.free_powers || []).map((f) => f.name || f.power);
  if (free.length) {
    parts.push(el("p", {}, `${game.status === "forming" ? "Powers still free" : "Powers in civil disorder"}: ${free.join(", ")}.`));
  }
  $("detail-body").replaceChildren(...parts);
  $("log").tBodies[0].replaceChildren(...log.map((e) => el("tr", {},
    el("td", {}, timeText(e.at)), el("td", {}, e.origin || ""), el("td", {}, e.action || ""),
    el("td", {}, e.outcome || ""))));
  if (scroll) $("detail").scrollIntoView();
}

// An action on the game shown: its answer (or its one-line refusal) in the message line.
async function act(path, body, done) {
  if (shown === null) return;
  try {
    const answer = await admin(`/games/${shown}/${path}`, body);
    say(done(answer));
    await refresh();
  } catch (error) {
    say(error.message, "error");
  }
}

function pairs(text, what) {
  const out = {};
  for (const item of text.split(/[,\s]+/).filter(Boolean)) {
    const [power, name] = item.split("=");
    if (!power || !name) throw new Error(`${what}: write POWER=NAME, e.g. FRA=alice`);
    out[power.toUpperCase()] = name;
  }
  return out;
}

function number(id) {
  const text = $(id).value.trim();
  return text === "" ? undefined : Number(text);
}

async function create(event) {
  event.preventDefault();
  try {
    const body = {
      name: $("new-name").value.trim() || undefined, variant: $("new-variant").value,
      level: Number($("new-level").value), access: $("new-access").value,
      port: number("new-port"), mtl: number("new-mtl"), rtl: number("new-rtl"),
      btl: number("new-btl"), ptl: number("new-ptl"), max_year: number("new-max-year"),
      idle_years_draw: number("new-idle"),
      seats: pairs($("new-seats").value, "invited players"), bots: pairs($("new-bots").value, "bots"),
      // One invited name a line, perhaps with its preference list (docs/hosting.md).
      invites: $("new-invites").value.split("\n").map((line) => line.trim()).filter(Boolean),
    };
    for (const flag of ["dsd", "aoa", "pda", "npr", "npb", "expedite"]) {
      if ($(`new-${flag}`).checked) body[flag] = true;
    }
    if ($("new-stop-unchanged").checked) body.stop_unchanged = true;
    if ($("new-fill").value) {
      body.fill = $("new-fill").value;
      body.fill_after = number("new-fill-after") || 0;
    }
    const game = await admin("/games", body);
    say(`Game ${game.id} created.`);
    const invitations = game.invitations || {};
    // Keyed by power (a seat) or by the invited name (dealt at the start by their list).
    const named = new Map((game.invited || []).map((i) => [i.power, i.name]));
    const rows = Object.entries(invitations).map(([key, code]) => (named.has(key)
      ? [key, named.get(key), code] : ["(dealt at the start)", key, code]));
    $("invitations").replaceChildren(...(rows.length ? [
      el("p", {}, "Invitations, shown this once: each player joins with the name 'NAME [invite CODE]'."),
      el("table", { class: "games" }, el("tbody", {}, ...rows.map((row) =>
        el("tr", {}, ...row.map((cell) => el("td", {}, cell)))))),
    ] : []));
    $("new-invites").value = "";
    await refresh();
    await show(game.id);
  } catch (error) {
    say(error.message, "error");
  }
}

async function fillChoices() {
  const [{ variants }, { bots }] = await Promise.all([admin("/variants"), admin("/bots")]);
  $("new-variant").replaceChildren(...variants.map((v) => el("option", { value: v }, v)));
  $("new-variant").value = variants.includes("standard") ? "standard" : variants[0];
  $("new-level").replaceChildren(...LEVELS.map((l) => el("option", { value: l }, String(l))));
  $("fill-bot").replaceChildren(...bots.map((b) => el("option", { value: b }, b)));
  $("new-fill").replaceChildren(el("option", { value: "" }, "nobody"),
    ...bots.map((b) => el("option", { value: b }, b)));
}

async function unlock() {
  try {
    await fillChoices();
    say("");
    await refresh();
  } catch (error) {
    if (token()) say(error.message, "error");
  }
}

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("token").value.trim();
  $("token").value = "";
  if (!text) return;
  sessionStorage.setItem(KEY, text);
  unlock();
});
$("forget").addEventListener("click", () => { sessionStorage.removeItem(KEY); locked("token forgotten"); });
$("new-form").addEventListener("submit", create);
$("pause").addEventListener("click", () => act("pause", {}, () => `Game ${shown} is paused.`));
$("resume").addEventListener("click", () => act("resume", {}, () => `Game ${shown} runs again.`));
$("extend").addEventListener("click", () => {
  const seconds = Number($("extend-seconds").value);
  act("extend", { seconds }, (a) => `Game ${shown}'s deadline is ${seconds} seconds later: ${a.seconds_left} seconds left.`);
});
$("end").addEventListener("click", () => {
  if (confirm(`End game ${shown} now, in a draw of the survivors?`)) {
    act("end", {}, (a) => `Game ${shown} is ended: a draw between ${(a.draw || []).join(", ")}.`);
  }
});
$("eject").addEventListener("click", () => {
  const power = $("eject-power").value.trim().toUpperCase();
  act("eject", { power }, (a) => `${a.power} is in civil disorder in game ${shown}. A replacement player takes it over by rejoining as ${a.power} with passcode ${a.passcode}.`);
});
$("fill").addEventListener("click", () => {
  const power = $("fill-power").value.trim().toUpperCase();
  const bot = $("fill-bot").value;
  act("fill", power ? { bot, power } : { bot }, (a) => `The server starts ${bot} ${a.power ? `on ${a.power}` : "in a free seat"}.`);
});

// Number fields a few digits wide (through the CSSOM: the CSP refuses style attributes).
for (const input of document.querySelectorAll("input[type=number]")) input.style.width = "6em";

if (token()) unlock();
