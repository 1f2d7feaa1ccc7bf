"""A preference list handed in from the join form, in a real headless Chromium.

A real ``daide serve`` and real ``daide bot`` processes.  A bot asks for
France by name (``--name FRA:Fritz``): the form does not offer it.  The
person ranks Italy, Austria, then England and Turkey equally - by keyboard,
ticking and moving rows; before the Join, another bot asks for Italy by
name, which the server serves before any list (docs/hosting.md "Which
power you get") - so the person gets Austria, the best power of the list
still free.  The server never writes the list in its log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser_helpers import bots, browser_page, screenshot, served
from tests.test_browser_free_powers import asking, joined, offered


def rows(page: Any) -> list[str]:
    """The list's rows: power, then its rank as shown ('1.', '=', '-' for not listed)."""
    return list(page.eval_on_selector_all(
        "#pref-list li", "ls => ls.map(l => l.dataset.power + ' ' + "
        "l.querySelector('.pref-rank').textContent)"))


def tick(page: Any, power: str) -> None:
    """Tick (or untick) a power's box by keyboard: focus, then Space."""
    page.focus(f"#pref-list li[data-power='{power}'] .pref-on")
    page.keyboard.press("Space")


def test_a_person_hands_in_a_list_and_gets_the_best_power_still_free(tmp_path: Path) -> None:
    with served(tmp_path, "--mtl", "600") as server, browser_page("preference-list") as page, \
            asking(server.port, "FRA:Fritz"):
        joined(server, 1)
        page.goto(server.url + "play?lang=en")
        assert offered(page) == ["", "AUS", "ENG", "GER", "ITA", "RUS", "TUR"]
        assert page.eval_on_selector_all("#power option", "os => os.map(o => o.value)")[:3] \
            == ["", "*random", "*list"]
        assert page.inner_text("#power option[value='*list']") == "my preference list..."
        assert not page.is_visible("#prefs")
        # "a random power" says how powers are dealt, without a list.
        page.select_option("#power", "*random")
        assert page.is_visible("#deal-help") and not page.is_visible("#prefs")
        assert "Your list is secret" in page.inner_text("#deal-help")
        page.select_option("#power", "*list")
        assert page.is_visible("#prefs") and page.is_visible("#deal-help")
        # The form offers the free powers; nothing is listed yet.
        assert rows(page) == ["AUS -", "ENG -", "GER -", "ITA -", "RUS -", "TUR -"]
        # Ticked powers join the end of the ranked ones.
        for power in ("ITA", "ENG", "TUR"):
            tick(page, power)
        assert rows(page) == ["ITA 1.", "ENG 2.", "TUR 3.", "AUS -", "GER -", "RUS -"]
        # Turkey equal to England (the box of its row), by keyboard.
        page.focus("#pref-list li[data-power='TUR'] .pref-eq")
        page.keyboard.press("Space")
        assert rows(page) == ["ITA 1.", "ENG 2.", "TUR =", "AUS -", "GER -", "RUS -"]
        assert page.get_attribute("#prefs", "data-list") == "ITA ENG=TUR"
        # The first listed power cannot be equal to anything; unlisted rows cannot move
        # among the listed ones.
        assert page.is_disabled("#pref-list li[data-power='ITA'] .pref-eq")
        assert page.is_disabled("#pref-list li[data-power='AUS'] .pref-up")
        # Austria ticked and moved up to the top with its arrow (Enter on the button).
        tick(page, "AUS")
        for _ in range(3):
            page.focus("#pref-list li[data-power='AUS'] .pref-up")
            page.keyboard.press("Enter")
        assert page.is_disabled("#pref-list li[data-power='AUS'] .pref-up")
        assert rows(page) == ["AUS 1.", "ITA 2.", "ENG 3.", "TUR =", "GER -", "RUS -"]
        # ... then down again, below Italy: Italy first.
        page.focus("#pref-list li[data-power='AUS'] .pref-down")
        page.keyboard.press("Enter")
        assert rows(page) == ["ITA 1.", "AUS 2.", "ENG 3.", "TUR =", "GER -", "RUS -"]
        assert page.get_attribute("#prefs", "data-list") == "ITA AUS ENG=TUR"
        assert page.get_attribute("#pref-list li[data-power='AUS'] .pref-down",
                                  "aria-label") == "move Austria down"
        page.set_viewport_size({"width": 390, "height": 844})       # a phone
        screenshot(page, "join-preference-list")
        page.set_viewport_size({"width": 1400, "height": 1000})
        page.fill("#name", "Alice")
        with asking(server.port, "ITA:Ivo"):       # Italy, asked for by name: served first
            joined(server, 2)
            page.click("#join")
            page.wait_for_selector("#waiting[data-game='1'][data-taken='3'][data-seats='7']")
            with bots(server.port, "holdbot", 4):
                page.wait_for_selector("#map svg[data-turn='SPR 1901']")
                assert page.get_attribute("#me", "data-power") == "AUS"
                assert page.inner_text("#me") == "Austria - Alice"
                page.wait_for_selector("#events [data-event=power]")
                assert "You play Austria, the best of your list that was still free." \
                    in page.inner_text("#events")
    log = "".join(server.lines)
    assert "ITA AUS" not in log and "ENG=TUR" not in log


def test_an_empty_list_is_not_sent(tmp_path: Path) -> None:
    with served(tmp_path, "--mtl", "600") as server, browser_page("empty-list") as page:
        page.goto(server.url + "play?lang=fr")
        page.wait_for_selector("#join-form:not([hidden])")
        assert page.inner_text("#prefs legend") == "Ma liste de préférences"
        page.select_option("#power", "*list")
        page.click("#join")
        page.wait_for_selector("#status.error")
        assert page.inner_text("#status") == ("Cochez au moins une puissance de votre liste, "
                                              "ou choisissez toute puissance libre.")
        assert page.is_visible("#join-form") and page.is_visible("#prefs")
        assert not any(e.get("event") == "joining" for e in list(server.events))
