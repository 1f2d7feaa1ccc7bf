// /: the games of this server (GET /api/games): each with its variant, press
// level, deadlines, players by name, free seats and the powers still free; a forming
// game has a Join button, a running game with a power in civil disorder a Take over
// button, every game a link to its watch page.  Refreshed every 5 seconds.
// In the player's language like the play and watch pages: every sentence through
// `words.say` (PHRASES_FR), the page's fixed texts through data-text (UI_FR).
import { api, el } from "./daide.js";
import { Words, pageLanguage, translatePage } from "./words.js";

let words;

function minutes(seconds) {
  if (!seconds) return null;
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

function deadlines(d) {
  const parts = [["moves {time}", d.mtl], ["retreats {time}", d.rtl], ["builds {time}", d.btl]]
    .filter(([, s]) => s).map(([what, s]) => words.say(what, { time: minutes(s) }));
  return parts.length ? parts.join(", ") : words.say("none");
}

function press(level) {
  if (!level) return words.say("no press");
  if (level >= 8000) return words.say("free text");
  return words.say("DAIDE press level {level}", { level });
}

function seatsFree(n) {
  return words.say(n === 1 ? "{n} seat free" : "{n} seats free", { n });
}

function statusWords(g) {
  if (g.status === "finished") {
    const [kind, ...powers] = (g.result || "").split(" ");
    if (kind === "solo") return words.say("finished: {power} won alone", { power: words.power(powers[0]) });
    if (kind === "draw") return words.say("finished: a draw between {powers}", { powers: words.powers(powers) });
    return words.say("finished");
  }
  if (g.status === "forming") {
    return words.say("forming: {free} of {seats}", { free: seatsFree(g.open_seats), seats: g.seats });
  }
  return words.say(g.status);       // running, suspended
}

// The powers a newcomer may have (free_powers): those nobody asked for while the game
// forms (said when some are asked for), those in civil disorder once it runs.  The
// "; " is part of the sentence: French puts a space before it.
function freePowers(g) {
  const free = (g.free_powers || []).map((f) => f.power);
  if (g.status === "forming" && g.open_seats > 0 && free.length < g.seats) {
    return words.say("; powers still free: {powers}", { powers: words.powers(free) });
  }
  if (g.status === "running" && free.length) {
    return words.say(
      "; in civil disorder: {powers} (a replacement takes over with the passcode from the host)",
      { powers: words.powers(free) });
  }
  return "";
}

function row(g) {
  const free = (g.free_powers || []).map((f) => f.power);
  const players = (g.players.length
    ? g.players.map((p) => words.say("{power}: {name}", { power: words.power(p.power), name: p.name })).join(", ")
    : g.status === "forming"
      ? words.say("{joined} joined, {free}", { joined: g.seats - g.open_seats, free: seatsFree(g.open_seats) })
      : "") + freePowers(g);
  const actions = [el("a", { href: `/watch/${g.id}` }, words.say("watch"))];
  if (g.status === "forming" && g.open_seats > 0) {
    actions.unshift(el("a", { class: "button join", href: `/play?game=${g.id}`, "data-join": g.id }, words.say("Join")), " ");
  } else if (g.status === "running" && free.length) {
    actions.unshift(el("a", { class: "button join", href: `/play?game=${g.id}`, "data-takeover": g.id },
      words.say("Take over")), " ");
  }
  return el("tr", { "data-game": g.id, "data-status": g.status, "data-open": g.open_seats, "data-free": free.join(" ") },
    el("td", {}, `${g.id}${g.name ? " " + g.name : ""}`), el("td", {}, g.variant),
    el("td", {}, press(g.level)), el("td", {}, deadlines(g.deadlines || {})),
    el("td", {}, statusWords(g)), el("td", {}, g.turn ? words.season(g.turn) : ""),
    el("td", {}, Object.entries(g.centres).map(([p, n]) => `${words.power(p)} ${n}`).join(", ")),
    el("td", {}, players), el("td", {}, ...actions));
}

// The language: as the play page, ?lang=, the stored choice or the browser's; the
// menu reloads the page in the other one (and the choice is remembered for the others).
function setLanguage(lang) {
  document.documentElement.lang = lang;
  translatePage(lang);
  const menu = document.getElementById("lang");
  menu.value = lang;
  menu.addEventListener("change", () => {
    const url = new URL(location.href);
    url.searchParams.set("lang", menu.value);
    location.href = url.toString();
  });
}

async function main() {
  if (!words) {
    words = new Words(await api("/api/map"), pageLanguage());
    setLanguage(words.lang);
  }
  const { games } = await api("/api/games");
  document.querySelector("#games tbody").replaceChildren(...games.map(row));
  document.getElementById("empty").hidden = games.length > 0;
  setTimeout(main, 5000);
}

main();
