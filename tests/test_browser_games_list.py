"""The games list (``/``, web/games.js) in French and in English, in a real headless Chromium.

A real ``daide serve`` holds four games: one finished (seven holdbots drawn at
the end of 1901), one running with Germany in civil disorder (its player, a
second browser, ejected by the host), one forming with France asked for by a
bot, and one forming that the host opened through the admin API with press and
its own deadlines.  ``/?lang=fr`` says every one of them in French - status,
press level, deadlines, players, free powers, the Join / Take over / watch
links, the column heads - with no English sentence of the list left; the
language menu turns the same page back into the English it has always had.
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

from tests.browser_helpers import (
    DAIDE,
    Served,
    _running,
    bots,
    browser_page,
    join_by_form,
    screenshot,
    served,
)

#: The English words of the list (sentences, links, heads); none is left on the French page
#: ("centres", "standard", "France" and "min" are French as well).
ENGLISH = ("seat", "seats", "free", "forming", "finished", "running", "won alone", "draw between",
           "no press", "free text", "press level", "moves", "retreats", "builds", "none",
           "joined", "still free", "civil disorder", "replacement", "passcode", "Join",
           "Take over", "watch", "games", "play a game", "game", "variant", "press",
           "deadlines", "status", "turn", "players", "No games yet", "start one",
           "Austria", "England", "Germany", "Italy", "Russia", "Turkey", "Spring", "Fall",
           "Winter")

ALL_FR = "Autriche-Hongrie, Angleterre, France, Allemagne, Italie, Russie et Turquie"
ALL_EN = "Austria, England, France, Germany, Italy, Russia and Turkey"


def _admin(server: Served, token: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{server.url}api/admin/{path}", method="POST", data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                 "X-Daide-Client": "web"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return dict(json.loads(answer.read()))


def cells(page: Any, game: int) -> list[str]:
    return [c.strip() for c in page.locator(f"#games tr[data-game='{game}'] td").all_inner_texts()]


def wait_for_the_four_games(page: Any) -> None:
    page.wait_for_selector("#games tr[data-game='1'][data-status='finished']")
    page.wait_for_selector("#games tr[data-game='2'][data-status='running'][data-free='GER']")
    page.wait_for_selector("#games tr[data-game='3'][data-status='forming'][data-open='6']")
    page.wait_for_selector("#games tr[data-game='4'][data-status='forming'][data-open='7']")


#: What the list says of the four games, in each language: the page's title, header and
#: link, the column heads, then per game the cells asserted (by their column).
SAYS: dict[str, dict[str, Any]] = {
    "fr": {
        "title": "Parties - DAIDE", "header": "Parties DAIDE", "link": "jouer une partie",
        "heads": ["partie", "variante", "messages", "échéances", "état", "saison", "centres",
                  "joueurs"],
        "finished": {2: "sans messages", 3: "mouvements 10 min, ajustements 2 min",
                     4: f"terminée : nulle entre {ALL_FR}", 8: "regarder"},
        "finished player": "Autriche-Hongrie : ",
        "running": {4: "en cours", 5: "Printemps 1901", 8: "Reprendre regarder"},
        "running players": ("Allemagne : Gone",
                            " ; en désordre civil : Allemagne (un remplaçant reprend la main "
                            "avec le code donné par l'organisateur)"),
        "asked": {4: "en formation : 6 places libres sur 7",
                  7: "1 déjà là, 6 places libres ; puissances encore libres : "
                     "Autriche-Hongrie, Angleterre, Allemagne, Italie, Russie et Turquie",
                  8: "Rejoindre regarder"},
        "hosted": {0: "4 Friday", 1: "standard", 2: "messages DAIDE de niveau 10",
                   3: "mouvements 5 min, retraites 90 s, ajustements 1 min",
                   4: "en formation : 7 places libres sur 7", 7: "0 déjà là, 7 places libres"},
    },
    "en": {
        "title": "Games - DAIDE", "header": "DAIDE games", "link": "play a game",
        "heads": ["game", "variant", "press", "deadlines", "status", "turn", "centres",
                  "players"],
        "finished": {2: "no press", 3: "moves 10 min, builds 2 min",
                     4: f"finished: a draw between {ALL_EN}", 8: "watch"},
        "finished player": "Austria: ",
        "running": {4: "running", 5: "Spring 1901", 8: "Take over watch"},
        "running players": ("Germany: Gone",
                            "; in civil disorder: Germany (a replacement takes over with the "
                            "passcode from the host)"),
        "asked": {4: "forming: 6 seats free of 7",
                  7: "1 joined, 6 seats free; powers still free: Austria, England, Germany, "
                     "Italy, Russia and Turkey",
                  8: "Join watch"},
        "hosted": {0: "4 Friday", 1: "standard", 2: "DAIDE press level 10",
                   3: "moves 5 min, retreats 90 s, builds 1 min",
                   4: "forming: 7 seats free of 7", 7: "0 joined, 7 seats free"},
    },
}


def assert_the_list(page: Any, lang: str) -> None:
    """The four games' rows (1 finished, 2 running, 3 asked for, 4 hosted) say `SAYS[lang]`."""
    says = SAYS[lang]
    assert page.title() == says["title"]
    assert page.inner_text("header strong") == says["header"]
    assert page.inner_text("header a") == says["link"]
    assert page.locator("#games th").all_inner_texts()[:8] == says["heads"]
    rows = {"finished": cells(page, 1), "running": cells(page, 2), "asked": cells(page, 3),
            "hosted": cells(page, 4)}
    for game, row in rows.items():
        assert {i: row[i] for i in says[game]} == says[game], (game, row)
    assert says["finished player"] in rows["finished"][7], rows["finished"]
    player, disorder = says["running players"]
    assert player in rows["running"][7] and rows["running"][7].endswith(disorder), rows["running"]


def english_left(text: str) -> list[str]:
    return [w for w in ENGLISH if re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE)]


def test_the_games_list_speaks_french_and_its_english_is_unchanged(tmp_path: Path) -> None:
    with served(tmp_path, "--max-year", "1901", "--mtl", "600", "--btl", "120") as server, \
            browser_page("games-list-french") as page:
        # No game yet: the empty list's sentence, in both languages.
        page.goto(server.url + "?lang=fr")
        page.wait_for_selector("#empty:not([hidden])")
        assert page.inner_text("#empty") == "Aucune partie pour l'instant : en commencer une."
        page.goto(server.url + "?lang=en")
        page.wait_for_selector("#empty:not([hidden])")
        assert page.inner_text("#empty") == "No games yet: start one."

        # Game 1: seven holdbots, drawn at the end of 1901.
        with bots(server.port, "holdbot", 7):
            server.wait_for("game_over", timeout=60)
        # Game 2: Germany is a person's (another browser), the six others holdbots;
        # the host ejects Germany once the game runs, so it is in civil disorder.
        player = page.context.browser.new_context().new_page()
        try:
            join_by_form(player, server, "Gone", "GER")
            with bots(server.port, "holdbot", 6):
                player.wait_for_selector("#map svg[data-turn='SPR 1901']")
                token = (tmp_path / "web.db.admin-token").read_text().strip()
                _admin(server, token, "games/2/eject", {"power": "GER"})
                # Game 3: a bot asking for France (the list names the powers still free).
                with _running([*DAIDE, "bot", "holdbot", "--port", str(server.port),
                               "--name", "FRA:Fritz"]):
                    page.goto(server.url)
                    page.wait_for_selector("#games tr[data-game='3'][data-open='6']")
                    # Game 4: opened by the host, with press and deadlines of its own.
                    _admin(server, token, "games", {"name": "Friday", "level": 10, "mtl": 300,
                                                    "rtl": 90, "btl": 60})

                    page.goto(server.url + "?lang=fr")
                    wait_for_the_four_games(page)
                    assert page.get_attribute("html", "lang") == "fr"
                    assert_the_list(page, "fr")
                    # Not one English word of the list is left on the page (the language
                    # menu's own "English" is not one of them).
                    body = page.inner_text("body")
                    assert english_left(body) == [], (english_left(body), body)
                    screenshot(page, "games-list-french")

                    # The language menu: the same list, in the English it always had.
                    page.select_option("#lang", "en")
                    page.wait_for_selector("html[lang='en']")
                    assert "lang=en" in page.url
                    wait_for_the_four_games(page)
                    assert_the_list(page, "en")
                    screenshot(page, "games-list-english")
        finally:
            player.context.close()
    log = "".join(server.lines)
    assert "Traceback" not in log and "game_step_failed" not in log, log[-3000:]
