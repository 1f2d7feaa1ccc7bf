"""A hosted game of another map, played from its invitation link (issues 27 and 28).

A host creates a modern game through the admin API with one seat for an
invited player and the other nine filled by bots the server starts; the
player opens ``/play?game=N&invite=CODE`` in a real headless Chromium.  The
page takes the game's own map and tokens (``/api/map?game=N``), its
WebSocket goes through the game's door (``/daide?game=N``), the NME carries
the invitation, and the player gets the reserved power on the modern board.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from tests.browser_helpers import browser_page, served


def _admin(url: str, token: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        f"{url}api/admin/games", method="POST", data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                 "X-Daide-Client": "web"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def test_an_invitation_link_seats_a_player_in_a_hosted_modern_game(tmp_path: Path) -> None:
    with served(tmp_path) as server, browser_page("hosted-invitation") as page:
        token = (tmp_path / "web.db.admin-token").read_text().strip()
        made = _admin(server.url, token, {"variant": "modern", "mtl": 600, "name": "Friday",
                                          "seats": {"EGY": "alice"}, "fill": "holdbot"})
        code = made["invitations"]["EGY"]
        page.goto(f"{server.url}play?lang=en&game={made['id']}&invite={code}")
        page.fill("#name", "alice")
        page.click("#join")
        page.wait_for_selector("#me:has-text('Egypt - alice')", timeout=60_000)
        page.wait_for_selector("#turn:has-text('Spring 1995')")
        # The modern board: Egypt's own units are there to be ordered.
        page.wait_for_selector("#map [data-unit^='EGY ']")
        assert page.locator("#map [data-unit^='EGY ']").count() == 3      # F Ale, A Asw, F Cai
        # What is missing is the server's MIS, answered after the NOW: not there with the board.
        page.wait_for_selector("#missing[data-turn='SPR 1995']")
        assert "F Ale has no order" in page.inner_text("body")
