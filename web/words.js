// The game in the players' words: DAIDE messages (as `parse` trees) written as
// people write Diplomacy - `A Par - Bur`, `F NTH C A Lon - Nwy` - and every
// note, result and event as a sentence.  Nothing here decides a rule: the
// server's THX notes, ORD results and MIS are only put into words.
//
// Results follow the notation of the French adjudicator's reports: a failed
// order is written in lower case (after its unit letter) with what happened
// in brackets - (bounce), (cut), (dislodged), (destroyed), (invalid), (failed).
// Province names come from the variant (GET /api/map); the French page uses
// the French Descartes map's abbreviations where the province has one
// (`french` of /api/map).

// docs/protocol.md §9.3: what each THX note means, in words.
const NOTES = {
  en: {
    MBV: "accepted",
    FAR: "the unit cannot reach that province",
    NSP: "there is no such province on this map",
    NSU: "you have no such unit there",
    NAS: "a fleet can convoy only at sea",
    NSF: "there is no such fleet on the convoy's way",
    NSA: "only an army can be convoyed",
    NYU: "that unit is not yours",
    NRN: "that unit was not dislodged: it has no retreat to make",
    NVR: "the unit cannot retreat there",
    YSC: "you can build only in a supply centre you own",
    ESC: "that centre is occupied or already has a build",
    HSC: "you can build only in your home supply centres",
    NSC: "that province is not a supply centre",
    CST: "say which coast (a fleet there needs one)",
    NMB: "no more builds are allowed",
    NMR: "no more removals are needed",
    NRS: "that kind of order is not for this phase",
  },
  fr: {
    MBV: "accepté",
    FAR: "l'unité ne peut pas atteindre cette région",
    NSP: "cette région n'existe pas sur cette carte",
    NSU: "vous n'avez pas cette unité",
    NAS: "une flotte ne convoie qu'en mer",
    NSF: "aucune flotte sur le chemin du convoi",
    NSA: "seule une armée peut être convoyée",
    NYU: "cette unité n'est pas à vous",
    NRN: "cette unité n'a pas été délogée : pas de retraite",
    NVR: "l'unité ne peut pas faire retraite là",
    YSC: "on ne construit que dans un centre que l'on possède",
    ESC: "ce centre est occupé ou a déjà une construction",
    HSC: "on ne construit que dans ses centres d'origine",
    NSC: "cette région n'est pas un centre",
    CST: "précisez la côte",
    NMB: "plus de construction possible",
    NMR: "plus de suppression nécessaire",
    NRS: "ce genre d'ordre n'est pas de cette saison",
  },
};

const SEASONS = {
  en: { SPR: "Spring", SUM: "Summer retreats", FAL: "Fall", AUT: "Fall retreats", WIN: "Winter adjustments" },
  fr: { SPR: "Printemps", SUM: "Retraites d'été", FAL: "Automne", AUT: "Retraites d'automne", WIN: "Ajustements d'hiver" },
};

const TEXTS = {
  en: {
    allIn: "all your orders are in", nothing: "nothing to order this phase",
    builds: (n) => `${n} build${n === 1 ? "" : "s"} to order (or waive)`,
    removals: (n) => `${n} unit${n === 1 ? "" : "s"} to remove`,
    noOrder: (u) => `${u} has no order`,
    mustRetreat: (u, to) => (to ? `${u} must retreat (to ${to}) or disband` : `${u} must disband`),
    waives: "waives", build: "build", remove: "remove", disband: "disband", via: "via",
    bounce: "bounce", cut: "cut", dislodged: "dislodged", destroyed: "destroyed",
    invalid: "invalid", failed: "failed",
    left: (p) => `${p} left the game - its units hold until it comes back`,
    back: (p) => `${p} is back in the game`,
    drawBetween: (ps) => `the game ended in a draw between ${ps}`,
    solo: (p) => `${p} won the game alone`,
    closed: "the server closed the game",
    and: "and",
  },
  fr: {
    allIn: "tous vos ordres sont donnés", nothing: "aucun ordre à donner cette saison",
    builds: (n) => `${n} construction${n === 1 ? "" : "s"} à ordonner (ou à renoncer)`,
    removals: (n) => `${n} unité${n === 1 ? "" : "s"} à supprimer`,
    noOrder: (u) => `${u} n'a pas d'ordre`,
    mustRetreat: (u, to) => (to ? `${u} doit faire retraite (vers ${to}) ou être dissoute` : `${u} doit être dissoute`),
    waives: "renonce", build: "construit", remove: "supprime", disband: "dissoute", via: "par",
    bounce: "rebond", cut: "coupé", dislodged: "délogée", destroyed: "détruite",
    invalid: "invalide", failed: "échec",
    left: (p) => `${p} a quitté la partie - ses unités tiennent jusqu'à son retour`,
    back: (p) => `${p} est de retour`,
    drawBetween: (ps) => `la partie s'est terminée par une nulle entre ${ps}`,
    solo: (p) => `${p} a gagné seul la partie`,
    closed: "le serveur a fermé la partie",
    and: "et",
  },
};

const POWERS_FR = { AUS: "Autriche-Hongrie", ENG: "Angleterre", FRA: "France", GER: "Allemagne",
  ITA: "Italie", RUS: "Russie", TUR: "Turquie" };

const COASTS = { NCS: "nc", SCS: "sc", ECS: "ec", WCS: "wc", NEC: "nec", NWC: "nwc", SEC: "sec", SWC: "swc" };

function capital(id) {
  return id.charAt(0) + id.slice(1).toLowerCase();
}

export class Words {
  // mapInfo: GET /api/map; lang: "en" or "fr".
  constructor(mapInfo, lang = "en") {
    this.map = mapInfo;
    this.lang = lang === "fr" ? "fr" : "en";
    this.t = TEXTS[this.lang];
    this.french = (this.lang === "fr" && mapInfo.french) || {};
  }

  power(p) {
    if (this.lang === "fr" && POWERS_FR[p] && this.map.variant === "standard") return POWERS_FR[p];
    return (this.map.power_names || {})[p] || capital(String(p));
  }

  powers(list) {
    const names = list.map((p) => this.power(p));
    return names.length > 1 ? `${names.slice(0, -1).join(", ")} ${this.t.and} ${names[names.length - 1]}` : names.join("");
  }

  province(id) {
    const fr = this.french[id];
    return capital(fr ? fr.abbr : String(id));
  }

  // The board's labels: the French abbreviations on the French page (none otherwise).
  labels() {
    const out = {};
    for (const [id, fr] of Object.entries(this.french)) out[id] = fr.abbr;
    return out;
  }

  provinceName(id) {
    const fr = this.french[id];
    if (fr) return fr.name;
    const p = (this.map.provinces || []).find((q) => q.id === id);
    return p ? p.name : String(id);
  }

  location(node) {
    if (Array.isArray(node)) return `${this.province(node[0])}/${COASTS[node[1]] || String(node[1]).toLowerCase()}`;
    return this.province(node);
  }

  unit(node) {
    // ( power AMY|FLT location ) - the power is left out, as players write it.
    return `${node[1] === "FLT" ? "F" : "A"} ${this.location(node[2])}`;
  }

  season(turn) {
    const [s, y] = String(turn || "").split(" ");
    return `${SEASONS[this.lang][s] || s} ${y || ""}`.trim();
  }

  // One order (the tree of `( ( FRA AMY PAR ) MTO BUR )` without its outer brackets).
  order(o) {
    if (!Array.isArray(o)) return String(o);
    if (o.length === 1 && Array.isArray(o[0])) return this.order(o[0]);
    if (o[1] === "WVE") return `${this.power(o[0])} ${this.t.waives}`;
    const unit = this.unit(o[0]);
    const rest = o.slice(2);
    switch (o[1]) {
      case "HLD": return `${unit} H`;
      case "MTO": return `${unit} - ${this.location(rest[0])}`;
      case "RTO": return `${unit} R ${this.location(rest[0])}`;
      case "DSB": return `${unit} ${this.t.disband}`;
      case "BLD": return `${this.t.build} ${unit}`;
      case "REM": return `${this.t.remove} ${unit}`;
      case "SUP":
        return rest.length >= 3 ? `${unit} S ${this.unit(rest[0])} - ${this.location(rest[2])}`
          : `${unit} S ${this.unit(rest[0])}`;
      case "CVY": return `${unit} C ${this.unit(rest[0])} - ${this.location(rest[2])}`;
      case "CTO": {
        const via = rest[2] && Array.isArray(rest[2]) ? ` ${this.t.via} ${rest[2].map((p) => this.province(p)).join(", ")}` : "";
        return `${unit} - ${this.location(rest[0])}${via}`;
      }
      default: return `${unit} ${o[1]}`;
    }
  }

  // THX ( order ) ( note ): the note in words.
  note(code) {
    return NOTES[this.lang][code] || String(code);
  }

  // ORD ( turn ) ( order ) ( result ): {text, ok}; `destroyed`: the dislodged unit had no retreat.
  result(ord, destroyed = false) {
    const order = this.order(ord[2]);
    const codes = (ord[3] || []).filter((c) => typeof c === "string");
    const ok = codes.includes("SUC") || (codes.length === 0);
    const why = [];
    for (const c of codes) {
      if (c === "BNC") why.push(ord[2][1] === "RTO" ? this.t.failed : this.t.bounce);
      else if (c === "CUT") why.push(this.t.cut);
      else if (c === "NSO") why.push(this.t.invalid);
      else if (c === "DSR") why.push(this.t.failed);
      else if (c === "RET") why.push(destroyed ? this.t.destroyed : this.t.dislodged);
      else if (c !== "SUC") why.push(this.note(c));
    }
    const text = ok ? order : order.charAt(0) + order.slice(1).toLowerCase();
    return { text: text + why.map((w) => ` (${w})`).join(""), ok };
  }

  // MIS ...: what is still to order, one sentence each (none: all in).
  missing(mis) {
    const items = mis.slice(1);
    if (!items.length) return [this.t.allIn];
    const out = [];
    for (const item of items) {
      if (!Array.isArray(item)) continue;
      if (typeof item[0] === "number") {
        if (item[0] < 0) out.push(this.t.builds(-item[0]));
        else if (item[0] > 0) out.push(this.t.removals(item[0]));
        else out.push(this.t.allIn);
      } else if (item.includes("MRT")) {
        const to = (item[item.indexOf("MRT") + 1] || []).map((l) => this.location(l)).join(", ");
        out.push(this.t.mustRetreat(this.unit(item), to));
      } else out.push(this.t.noOrder(this.unit(item)));
    }
    return out.length ? out : [this.t.allIn];
  }

  left(p) { return this.t.left(this.power(p)); }
  back(p) { return this.t.back(this.power(p)); }
  draw(powers) { return this.t.drawBetween(this.powers(powers)); }
  solo(p) { return this.t.solo(this.power(p)); }
}

// The page's language: ?lang=, then the player's stored choice, then the browser's.
export function pageLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked === "fr" || asked === "en") { localStorage.setItem("daide-lang", asked); return asked; }
  const stored = localStorage.getItem("daide-lang");
  if (stored === "fr" || stored === "en") return stored;
  return (navigator.language || "en").toLowerCase().startsWith("fr") ? "fr" : "en";
}

// The page's fixed texts (data-text="key") in French; English is the HTML's own.
const UI_FR = {
  play: "Jouer", games: "parties", watch: "regarder", showDaide: "voir le DAIDE", name: "Nom",
  power: "Puissance", prefsLegend: "Ma liste de préférences", passcode: "Code", join: "Rejoindre la partie", myOrders: "Retour à mes ordres",
  lastResults: "Résultats de la saison passée", finalTable: "Classement final", player: "Joueur",
  centres: "Centres", result: "Résultat", score: "Score", replay: "Revoir la partie",
  orders: "Vos ordres", submit: "Donner l'ordre", toOrder: "Reste à ordonner :",
  defaults: "Tenir / dissoudre / renoncer pour le reste", preview: "Prévoir les résultats",
  againstHolds: "si les autres tiennent", againstLast: "contre les derniers ordres des autres",
  previewBtn: "Montrer sur la carte", summary: "Ordres reçus par le serveur", summaryBtn: "Demander au serveur",
  results: "Derniers résultats", press: "Messages", send: "Envoyer",
  phase: "Saison", ordersResults: "Ordres et résultats", supplyCentres: "Centres", players: "Joueurs",
  events: "Événements (les plus récents en haut)", forget: "Oublier cette place",
  // The games list (/): its title, header, column heads and empty-list sentence.
  gamesPage: "Parties - DAIDE", daideGames: "Parties DAIDE", playAGame: "jouer une partie",
  colGame: "partie", colVariant: "variante", colPress: "messages", colDeadlines: "échéances",
  colStatus: "état", colTurn: "saison", colCentres: "centres", colPlayers: "joueurs",
  noGames: "Aucune partie pour l'instant :", startOne: "en commencer une",
  help: "Cliquez une de vos unités puis une région pour la déplacer (l'unité à nouveau : elle tient) ; "
    + "votre unité, une autre unité, puis une région pour la soutenir ; une flotte en mer, une armée, "
    + "puis une région pour la convoyer.  Ou tapez A Par - Bou, F Man C A Lon - Bel, A Par S A Bou.",
};

export function translatePage(lang) {
  if (lang !== "fr") return;
  for (const node of document.querySelectorAll("[data-text]")) {
    const text = UI_FR[node.dataset.text];
    if (text) node.textContent = text;
  }
}

// The page's sentences in French, keyed by the English one ({name}: a value).
const PHRASES_FR = {
  "Waiting for game {game} to start": "En attente du début de la partie {game}",
  "{taken} of {seats} seats taken: the game starts when all {seats} are.":
    "{taken} places prises sur {seats} : la partie commence quand les {seats} le sont.",
  "waiting for the game to start": "en attente du début de la partie",
  "joining": "connexion", "game {game}": "partie {game}",
  "choose a name and a power": "choisissez un nom et une puissance",
  "disconnected: reload the page to rejoin": "déconnecté : rechargez la page pour revenir",
  "{season}: your orders": "{season} : vos ordres",
  "Preview of {season}: the results if the orders stay as they are":
    "Prévision de {season} : les résultats si les ordres restent tels quels",
  "{season}: the position it was played from, its orders and results":
    "{season} : la position de départ, ses ordres et résultats",
  "sent": "envoyé", "refused: {why}": "refusé : {why}",
  "Click one of your units to order it.": "Cliquez une de vos unités pour lui donner un ordre.",
  "Click a free home centre to build an army (shift-click: a fleet), one of your units to remove it.":
    "Cliquez un centre d'origine libre pour construire une armée (maj-clic : une flotte), une de vos unités pour la supprimer.",
  "Click a dislodged unit of yours, then where it retreats.":
    "Cliquez une de vos unités délogées, puis où elle se retire.",
  "Click where {unit} retreats (the unit again: it disbands).":
    "Cliquez où {unit} se retire (l'unité à nouveau : elle est dissoute).",
  "{unit}: click a province to move there, the unit again to hold, or another unit to support (or convoy) it.":
    "{unit} : cliquez une région pour s'y déplacer, l'unité à nouveau pour tenir, ou une autre unité pour la soutenir (ou la convoyer).",
  "Click where {other} goes for {unit} to support it (the same unit again: support it holding).":
    "Cliquez où va {other} pour que {unit} la soutienne (la même unité : soutien sur place).",
  "That unit is not yours: click one of your own units.":
    "Cette unité n'est pas à vous : cliquez une de vos unités.",
  "Only a dislodged unit retreats this phase.": "Seule une unité délogée se retire cette saison.",
  "Which coast of {province}?": "Quelle côte de {province} ?", "cancel": "annuler",
  "Wait: I am not ready": "Attendre : je ne suis pas prêt", "Ready: play my orders": "Prêt : jouer mes ordres",
  "You are ready: the phase is played as soon as every player is (or at the deadline).":
    "Vous êtes prêt : la saison est jouée dès que tous le sont (ou à l'échéance).",
  "You are not ready: the phase waits for your Ready (or for the deadline).":
    "Vous n'êtes pas prêt : la saison attend votre « Prêt » (ou l'échéance).",
  "Withdraw my draw vote": "Retirer mon vote de nulle", "Vote for a draw": "Voter la nulle",
  "The deadline passed before your orders were complete: {what}.":
    "L'échéance est passée avant que vos ordres soient complets : {what}.",
  "The deadline passed before you were ready: your orders were played as given.":
    "L'échéance est passée avant que vous soyez prêt : vos ordres ont été joués tels quels.",
  "{unit} had no order and held": "{unit} n'avait pas d'ordre et a tenu",
  "{unit} had no order and was disbanded": "{unit} n'avait pas d'ordre et a été dissoute",
  "{n} build(s) waived": "{n} construction(s) abandonnée(s)",
  "the server removed {n} of your units": "le serveur a supprimé {n} de vos unités",
  "won alone": "gagne seul", "shares a {n}-way draw": "partage une nulle à {n}",
  "eliminated in {year}": "éliminé en {year}", "survived": "a survécu",
  "The game ended in {year}.": "La partie s'est terminée en {year}.",
  "any free power": "toute puissance libre",
  "You join game {game}: {free} of {seats} seats free.": "Vous rejoignez la partie {game} : {free} places libres sur {seats}.",
  "No game is forming: joining opens a new one.": "Aucune partie en formation : rejoindre en ouvre une nouvelle.",
  "Game {asked} is not forming any more. ": "La partie {asked} n'est plus en formation. ",
  "You join game {game}: the last free seat of {seats}.": "Vous rejoignez la partie {game} : la dernière place libre sur {seats}.",
  "Your invitation holds your seat in game {game}.": "Votre invitation vous garde une place dans la partie {game}.",
  "Game {game} is being played: a power in civil disorder is taken over with the passcode the host gave you.":
    "La partie {game} est en cours : une puissance en désordre civil se reprend avec le code que l'organisateur vous a donné.",
  "Join the game": "Rejoindre la partie", "Take over the power": "Reprendre la puissance",
  "Type the passcode of the power the host gave you.": "Tapez le code de la puissance que l'organisateur vous a donné.",
  "taking over {power}": "reprise de {power}",
  "{power} of game {game} could not be taken over: the passcode is not its passcode, or it is no longer in civil disorder.":
    "{power} de la partie {game} n'a pas pu être reprise : ce n'est pas son code, ou elle n'est plus en désordre civil.",
  "Game {game} filled up before you joined: choose again.": "La partie {game} s'est remplie avant que vous la rejoigniez : choisissez à nouveau.",
  "The server could not seat you: choose again.": "Le serveur n'a pas pu vous donner de place : choisissez à nouveau.",
  "none yet": "aucun pour l'instant", "with {who}": "avec {who}",
  "{wanted} was taken by another player: you play {power}.":
    "{wanted} était déjà prise par un autre joueur : vous jouez {power}.",
  "a random power": "une puissance au hasard", "my preference list...": "ma liste de préférences...",
  "equal": "à égalité", "move {power} up": "monter {power}", "move {power} down": "descendre {power}",
  "{power} equal to the power above": "{power} à égalité avec la puissance au-dessus",
  "Tick the powers you want, best first; move a power with its arrows; tick \"equal\" for a power you like as much as the one above it. You may list a few, or all.":
    "Cochez les puissances que vous voulez, la meilleure en premier ; déplacez une puissance avec ses flèches ; cochez « à égalité » pour une puissance que vous aimez autant que celle du dessus. Vous pouvez en lister quelques-unes, ou toutes.",
  "Your list is secret: nobody sees it, not even after the game, and the server keeps it only until the powers are dealt. At the start, a power asked for by name goes to its asker; then each player who asked for a random power gets one; then the lists, in a random order, each take their best power still free (a random one among equal ones); the powers left go at random to everybody else.":
    "Votre liste est secrète : personne ne la voit, même après la partie, et le serveur ne la garde que jusqu'à l'attribution des puissances. Au début, une puissance demandée par son nom va à qui l'a demandée ; puis chaque joueur qui a demandé une puissance au hasard en reçoit une ; puis les listes, dans un ordre tiré au hasard, prennent chacune leur meilleure puissance encore libre (au hasard entre puissances à égalité) ; les puissances restantes vont au hasard à tous les autres.",
  "Tick at least one power of your list, or choose any free power.":
    "Cochez au moins une puissance de votre liste, ou choisissez toute puissance libre.",
  "You play {power}, the best of your list that was still free.":
    "Vous jouez {power}, la meilleure de votre liste encore libre.",
  "No power of your list was still free: you play {power}, dealt at random.":
    "Aucune puissance de votre liste n'était encore libre : vous jouez {power}, tirée au hasard.",
  // The games list (/): a game's press level, deadlines, status, players and links.
  "no press": "sans messages", "free text": "texte libre",
  "DAIDE press level {level}": "messages DAIDE de niveau {level}",
  "moves {time}": "mouvements {time}", "retreats {time}": "retraites {time}",
  "builds {time}": "ajustements {time}", "none": "aucune",
  "{n} seat free": "{n} place libre", "{n} seats free": "{n} places libres",
  "forming: {free} of {seats}": "en formation : {free} sur {seats}",
  "running": "en cours", "suspended": "suspendue", "finished": "terminée",
  "finished: {power} won alone": "terminée : {power} a gagné seul",
  "finished: a draw between {powers}": "terminée : nulle entre {powers}",
  "{power}: {name}": "{power} : {name}", "{joined} joined, {free}": "{joined} déjà là, {free}",
  "; powers still free: {powers}": " ; puissances encore libres : {powers}",
  "; in civil disorder: {powers} (a replacement takes over with the passcode from the host)":
    " ; en désordre civil : {powers} (un remplaçant reprend la main avec le code donné par l'organisateur)",
  "Join": "Rejoindre", "Take over": "Reprendre", "watch": "regarder",
};

// A sentence of the page in the page's language, its {names} filled in.
Words.prototype.say = function say(english, values = {}) {
  const template = (this.lang === "fr" && PHRASES_FR[english]) || english;
  return template.replace(/\{(\w+)\}/g, (_, key) => String(values[key] ?? `{${key}}`));
};
