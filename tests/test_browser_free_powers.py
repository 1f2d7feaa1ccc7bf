"""The join form offers only the free powers, in a real headless Chromium.

A real ``daide serve`` and real ``daide bot`` processes: bots that ask for a
power by name (``--name FRA:Fritz``) take it out of the form, a form loaded
before a bot took its power says which power the page got instead, a form
loaded for the last seat says so - and, the game having filled up before
its Join was clicked, that it filled up.  Once the game runs, the form of
``/play?game=N`` offers the power the host ejected, to take over with its
new passcode.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
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


@contextmanager
def asking(port: int, name: str) -> Iterator[Any]:
    """One holdbot whose NME name is ``name`` ('FRA:Fritz' asks for France)."""
    with _running([*DAIDE, "bot", "holdbot", "--port", str(port), "--name", name]) as process:
        yield process


def joined(server: Served, count: int, timeout: float = 30.0) -> None:
    """Wait until ``count`` clients have joined (the server's ``joining`` lines)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if sum(1 for e in list(server.events) if e.get("event") == "joining") >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"fewer than {count} joined: {''.join(server.lines)[-2000:]}")


def offered(page: Any) -> list[str]:
    """The values of the join form's power choices ('' is "any free power"; "a random
    power" and "my preference list", '*random' and '*list', are left out)."""
    page.wait_for_selector("#join-form:not([hidden])")
    return [v for v in page.eval_on_selector_all("#power option", "os => os.map(o => o.value)")
            if not v.startswith("*")]


def test_the_form_offers_only_the_free_powers_and_says_when_the_game_filled(
        tmp_path: Path) -> None:
    with served(tmp_path, "--mtl", "600") as server, browser_page("free-powers") as page, \
            asking(server.port, "FRA:Fritz"):
        joined(server, 1)
        # The games list names the powers still free.
        page.goto(server.url + "?lang=en")
        page.wait_for_selector("#games tr[data-game='1'][data-free='AUS ENG GER ITA RUS TUR']")
        assert "powers still free: Austria, England, Germany, Italy, Russia and Turkey" \
            in page.inner_text("#games tr[data-game='1']")
        page.goto(server.url + "play?lang=en")
        assert offered(page) == ["", "AUS", "ENG", "GER", "ITA", "RUS", "TUR"]
        assert "You join game 1: 6 of 7 seats free." in page.inner_text("#join-info")
        assert page.inner_text("#power option[value='']") == "any free power"
        assert page.inner_text("#power option[value='ENG']") == "England"
        # England is asked for by a bot after the form was shown: the page asks too,
        # and is told which power it got instead once the game starts.
        with asking(server.port, "ENG:Eddie"):
            joined(server, 2)
            page.fill("#name", "Alice")
            page.select_option("#power", "ENG")
            page.click("#join")
            page.wait_for_selector("#waiting[data-game='1'][data-taken='3'][data-seats='7']")
            with bots(server.port, "holdbot", 3):
                joined(server, 6)
                other = page.context.browser.new_page()
                try:
                    other.goto(server.url + "play?lang=en")
                    assert offered(other) == ["", "AUS", "GER", "ITA", "RUS", "TUR"]
                    assert "You join game 1: the last free seat of 7." \
                        in other.inner_text("#join-info")
                    screenshot(other, "join-last-seat")
                    with bots(server.port, "holdbot", 1):
                        page.wait_for_selector("#map svg[data-turn='SPR 1901']")
                        given = page.get_attribute("#me", "data-power")
                        assert given not in ("FRA", "ENG"), given
                        page.wait_for_selector("#events [data-event=power]")
                        assert "England was taken by another player: you play" \
                            in page.inner_text("#events")
                        # The last seat went to the bot before Bea clicked Join.
                        other.fill("#name", "Bea")
                        other.select_option("#power", "TUR" if given != "TUR" else "AUS")
                        other.click("#join")
                        other.wait_for_selector("#status.error")
                        assert other.inner_text("#status") \
                            == "Game 1 filled up before you joined: choose again."
                        other.wait_for_selector("#join-form:not([hidden])")
                        assert "No game is forming: joining opens a new one." \
                            in other.inner_text("#join-info")
                        assert offered(other) == ["", "AUS", "ENG", "FRA", "GER", "ITA", "RUS",
                                                  "TUR"]
                        # Joining again opens game 2, and the waiting page says so.
                        other.click("#join")
                        other.wait_for_selector(
                            "#waiting[data-game='2'][data-taken='1'][data-seats='7']")
                        assert "Waiting for game 2 to start" in other.inner_text("#waiting")
                        assert other.get_attribute("#status", "class") != "error"
                finally:
                    other.close()


def _eject(url: str, token: str, game: int, power: str) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{url}api/admin/games/{game}/eject", method="POST",
        data=json.dumps({"power": power}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                 "X-Daide-Client": "web"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return dict(json.loads(answer.read()))


def test_a_running_games_form_offers_the_ejected_power_to_take_over(tmp_path: Path) -> None:
    with served(tmp_path, "--mtl", "600") as server, browser_page("take-over") as page:
        join_by_form(page, server, "Gone", "GER")
        with bots(server.port, "holdbot", 6):
            page.wait_for_selector("#map svg[data-turn='SPR 1901']")
            token = (tmp_path / "web.db.admin-token").read_text().strip()
            passcode = _eject(server.url, token, 1, "GER")["passcode"]
            # Another browser (its own storage: not the ejected player's seat).
            context = page.context.browser.new_context(viewport={"width": 1400, "height": 1000})
            taker = context.new_page()
            try:
                # The games list: Germany in civil disorder, and a Take over button.
                taker.goto(server.url + "?lang=en")
                taker.wait_for_selector("#games tr[data-game='1'][data-free='GER']")
                assert "in civil disorder: Germany" in taker.inner_text("#games tr[data-game='1']")
                taker.click("#games a[data-takeover='1']")
                taker.wait_for_url("**/play?game=1")
                taker.goto(server.url + "play?lang=en&game=1")
                taker.wait_for_selector("#join-form[data-mode='takeover']")
                assert offered(taker) == ["GER"]
                assert taker.is_visible("#passcode")
                assert taker.inner_text("#join") == "Take over the power"
                assert "Game 1 is being played" in taker.inner_text("#join-info")
                wrong = passcode % 8191 + 1
                taker.fill("#passcode", str(wrong))
                taker.click("#join")
                taker.wait_for_selector("#status.error")
                assert taker.inner_text("#status") == (
                    "Germany of game 1 could not be taken over: the passcode is not its "
                    "passcode, or it is no longer in civil disorder.")
                taker.wait_for_selector("#join-form:not([hidden])")
                taker.fill("#name", "Hans")
                taker.fill("#passcode", str(passcode))
                taker.click("#join")
                taker.wait_for_selector("#me[data-power='GER']")
                taker.wait_for_selector("#map svg[data-turn='SPR 1901']")
                assert taker.inner_text("#me") == "Germany - Hans"
                taker.wait_for_selector("#status:has-text('game 1')")
                assert taker.get_attribute("#status", "class") != "error"
                screenshot(taker, "take-over")
            finally:
                context.close()
