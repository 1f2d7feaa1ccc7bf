"""The admin page (/admin, web/admin.js) in a real headless Chromium against `daide serve`.

The host types the token in, creates a game, sees it listed and its invitation, acts
on it and reads the refusal; a wrong token is refused and forgotten; the token is kept
in the tab's sessionStorage only.  The page's own errors fail the test; the answers the
API refuses with (401, 409) are what the page shows, not errors of the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.browser_helpers import BROWSER_ARGS, require_browser, screenshot, served


@contextmanager
def admin_page() -> Iterator[Any]:
    path = require_browser()
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=BROWSER_ARGS,
                                             headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(20_000)
            page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
            page.on("console", lambda msg: errors.append(f"console: {msg.text}")
                    if msg.type == "error" and not _refusal(msg.text) else None)
            yield page
        finally:
            browser.close()
    assert not errors, errors


def _refusal(text: str) -> bool:
    return bool(re.search(r"Failed to load resource.*status of (401|409)", text))


def test_the_admin_page_hosts_a_game_with_the_token(tmp_path: Path) -> None:
    with served(tmp_path) as server, admin_page() as page:
        token = (tmp_path / "web.db.admin-token").read_text().strip()
        page.goto(server.url + "admin")
        assert page.locator("#admin").is_hidden()
        # A wrong token: the server's line, and nothing kept.
        page.fill("#token", "w" * 43)
        page.click("#token-form button[type=submit]")
        page.wait_for_function("() => document.getElementById('message').textContent"
                               ".includes('wrong admin token')")
        assert page.locator("#admin").is_hidden()
        assert page.evaluate("() => sessionStorage.length") == 0
        # The right one: the games (none yet), the choices of the server.
        page.fill("#token", token)
        page.click("#token-form button[type=submit]")
        page.wait_for_selector("#admin:not([hidden])")
        assert page.input_value("#token") == ""
        assert page.evaluate("() => sessionStorage.getItem('daide-admin-token')") == token
        assert page.evaluate("() => localStorage.length") == 0
        assert page.locator("#no-games").is_visible()
        assert "modern" in page.locator("#new-variant option").all_inner_texts()
        # A new game with its own settings and an invited player.
        page.fill("#new-name", "Friday <b>club</b>")
        page.select_option("#new-level", "8000")
        page.fill("#new-mtl", "300")
        page.check("#new-pda")
        page.select_option("#new-access", "invitation")
        page.fill("#new-seats", "FRA=alice")
        page.fill("#new-invites", "bob [ENG=GER ITA]")       # dealt by his list
        page.click("#new-form button[type=submit]")
        page.wait_for_selector("#invitations table")
        rows = page.locator("#invitations tr").all_inner_texts()
        code = r"[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}"
        assert re.fullmatch(rf"FRA\s+alice\s+{code}", rows[0].strip()), rows
        assert re.fullmatch(rf"\(dealt at the start\)\s+bob\s+{code}", rows[1].strip()), rows
        assert "ENG=GER" not in page.inner_text("body")     # never shown back
        page.wait_for_selector("#games tr[data-game='1']")
        cells = page.locator("#games tr[data-game='1'] td").all_inner_texts()
        assert cells[:6] == ["1", "Friday <b>club</b>", "standard", "8000", "forming", "-"]
        assert cells[6] == "2 reserved"
        assert page.locator("#games b").count() == 0        # a name is text, never markup
        # The game's detail: its settings, the reserved seat, the admin log. The page
        # asks for it after the list is drawn, so it appears a request later.
        page.wait_for_selector("#detail:not([hidden])")
        assert "press level 8000; movement deadline (s) 300; partial draws allowed yes; by " \
               "invitation only." in page.inner_text("#detail-body")
        assert re.search(r"FRA\s+alice\s+invited player", page.inner_text("#detail-body"))
        assert "new standard game" in page.inner_text("#log")
        # Acting on a game that has not started: the server's one line.
        page.click("#extend")
        page.wait_for_function("() => document.getElementById('message').textContent"
                               ".includes('has not started')")
        assert "error" in (page.get_attribute("#message", "class") or "")
        page.wait_for_function("() => document.getElementById('log').textContent"
                               ".includes('refused')")
        screenshot(page, "admin")
        # Forgotten: the page locks again.
        page.click("#forget")
        assert page.locator("#admin").is_hidden()
        assert page.evaluate("() => sessionStorage.length") == 0
