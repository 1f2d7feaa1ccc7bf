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

function turnWords(turn) {
  if (!turn) return "-";
  const [season, year] = turn.split(" ");
  return `${SEASONS[season] || season} ${year || ""}`.trim();
}

function statusText(g) {
  return (g.status || "?") + (g.paused ? " (paused)" : "") + (g.result ? ` (${g.result})` : "");
}

function players(g) {
  const list = g.players || [];
  if (list.length) return list.map((p) => `${p.power} ${p.name}`).join(", ");
  return g.open_seats ? `${g.open_seats} seats free` : "";
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
  const game = await admin(`/games/${id}`);
  const { log } = await admin(`/games/${id}/log`);
  shown = id;
  $("detail").hidden = false;
  $("detail-title").textContent = `Game ${game.id}${game.name ? ` "${game.name}"` : ""}: ${statusText(game)}, ${turnWords(game.turn)}`;
  const settings = game.settings || {};
  const facts = Object.entries(settings).filter(([, v]) => v !== null && v !== false && v !== "")
    .map(([k, v]) => `${k} ${v === true ? "yes" : v}`);
  const parts = [el("p", {}, facts.join("; "))];
  if (Array.isArray(game.seats) && game.seats.length) {
    parts.push(el("table", { class: "games" },
      el("thead", {}, el("tr", {}, ...["power", "player", "bot", "state"].map((h) => el("th", {}, h)))),
      el("tbody", {}, ...game.seats.map((s) => el("tr", {},
        el("td", {}, s.power || "(any)"), el("td", {}, s.name || s.player || ""),
        el("td", {}, s.bot || (s.invited ? "invited" : "")), el("td", {}, s.state || s.status || ""))))));
  } else {
    parts.push(el("p", {}, players(game)));
  }
  $("detail-body").replaceChildren(...parts);
  $("log").tBodies[0].replaceChildren(...log.map((e) => el("tr", {},
    el("td", {}, e.at || ""), el("td", {}, e.origin || ""), el("td", {}, e.action || ""),
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
    const rows = Array.isArray(invitations)
      ? invitations.map((i) => [i.power || "(any)", i.code])
      : Object.entries(invitations);
    $("invitations").replaceChildren(...(rows.length ? [
      el("p", {}, "Invitations, shown this once: each player joins with the name 'NAME [invite CODE]'."),
      el("table", { class: "games" }, el("tbody", {}, ...rows.map(([power, code]) =>
        el("tr", {}, el("td", {}, power), el("td", {}, code))))),
    ] : []));
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
  act("extend", { seconds }, () => `Game ${shown}'s deadline is ${seconds} seconds later.`);
});
$("end").addEventListener("click", () => {
  if (confirm(`End game ${shown} now, in a draw of the survivors?`)) {
    act("end", {}, () => `Game ${shown} is ended.`);
  }
});
$("eject").addEventListener("click", () => {
  const power = $("eject-power").value.trim().toUpperCase();
  act("eject", { power }, (a) => `${a.power} is in civil disorder; a replacement player takes it with passcode ${a.passcode}.`);
});
$("fill").addEventListener("click", () => {
  const power = $("fill-power").value.trim().toUpperCase();
  const bot = $("fill-bot").value;
  act("fill", power ? { bot, power } : { bot }, (a) => `The server starts ${bot}${a.power ? ` on ${a.power}` : ""}.`);
});

if (token()) unlock();
