// /: the games of this server (GET /api/games): each with its variant, press
// level, deadlines, players by name, free seats and the powers still free; a forming
// game has a Join button, a running game with a power in civil disorder a Take over
// button, every game a link to its watch page.  Refreshed every 5 seconds.
import { api, el } from "./daide.js";
import { Words, pageLanguage } from "./words.js";

let words;

function minutes(seconds) {
  if (!seconds) return null;
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

function deadlines(d) {
  const parts = [["moves", d.mtl], ["retreats", d.rtl], ["builds", d.btl]]
    .filter(([, s]) => s).map(([what, s]) => `${what} ${minutes(s)}`);
  return parts.length ? parts.join(", ") : "none";
}

function press(level) {
  if (!level) return "no press";
  if (level >= 8000) return "free text";
  return `DAIDE press level ${level}`;
}

function seatsFree(n) {
  return `${n} seat${n === 1 ? "" : "s"} free`;
}

function statusWords(g) {
  if (g.status === "finished") {
    const [kind, ...powers] = (g.result || "").split(" ");
    if (kind === "solo") return `finished: ${words.power(powers[0])} won alone`;
    if (kind === "draw") return `finished: a draw between ${words.powers(powers)}`;
    return "finished";
  }
  if (g.status === "forming") return `forming: ${seatsFree(g.open_seats)} of ${g.seats}`;
  return g.status;
}

// The powers a newcomer may have (free_powers): those nobody asked for while the game
// forms (said when some are asked for), those in civil disorder once it runs.
function freePowers(g) {
  const free = (g.free_powers || []).map((f) => f.power);
  if (g.status === "forming" && g.open_seats > 0 && free.length < g.seats) {
    return `; powers still free: ${words.powers(free)}`;
  }
  if (g.status === "running" && free.length) {
    return `; in civil disorder: ${words.powers(free)} (a replacement takes over with the passcode from the host)`;
  }
  return "";
}

function row(g) {
  const free = (g.free_powers || []).map((f) => f.power);
  const players = (g.players.length
    ? g.players.map((p) => `${words.power(p.power)}: ${p.name}`).join(", ")
    : g.status === "forming" ? `${g.seats - g.open_seats} joined, ${seatsFree(g.open_seats)}` : "") + freePowers(g);
  const actions = [el("a", { href: `/watch/${g.id}` }, "watch")];
  if (g.status === "forming" && g.open_seats > 0) {
    actions.unshift(el("a", { class: "button join", href: `/play?game=${g.id}`, "data-join": g.id }, "Join"), " ");
  } else if (g.status === "running" && free.length) {
    actions.unshift(el("a", { class: "button join", href: `/play?game=${g.id}`, "data-takeover": g.id }, "Take over"), " ");
  }
  return el("tr", { "data-game": g.id, "data-status": g.status, "data-open": g.open_seats, "data-free": free.join(" ") },
    el("td", {}, `${g.id}${g.name ? " " + g.name : ""}`), el("td", {}, g.variant),
    el("td", {}, press(g.level)), el("td", {}, deadlines(g.deadlines || {})),
    el("td", {}, statusWords(g)), el("td", {}, g.turn ? words.season(g.turn) : ""),
    el("td", {}, Object.entries(g.centres).map(([p, n]) => `${words.power(p)} ${n}`).join(", ")),
    el("td", {}, players), el("td", {}, ...actions));
}

async function main() {
  if (!words) words = new Words(await api("/api/map"), pageLanguage());
  const { games } = await api("/api/games");
  document.querySelector("#games tbody").replaceChildren(...games.map(row));
  document.getElementById("empty").hidden = games.length > 0;
  setTimeout(main, 5000);
}

main();
