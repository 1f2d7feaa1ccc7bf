// /: the games of this server (GET /api/games), each linked to its watch page.
import { api, el } from "./daide.js";

async function main() {
  const { games } = await api("/api/games");
  const body = document.querySelector("#games tbody");
  body.replaceChildren(...games.map((g) => el("tr", { "data-game": g.id, "data-status": g.status },
    el("td", {}, String(g.id)), el("td", {}, g.status + (g.result ? ` (${g.result})` : "")),
    el("td", {}, g.turn || ""),
    el("td", {}, Object.entries(g.centres).map(([p, n]) => `${p} ${n}`).join(", ")),
    el("td", {}, g.players.map((p) => `${p.power} ${p.name}`).join(", ") || (g.open_seats ? `${g.open_seats} seats free` : "")),
    el("td", {}, el("a", { href: `/watch/${g.id}` }, "watch")))));
  document.getElementById("empty").hidden = games.length > 0;
  setTimeout(main, 5000);
}

main();
