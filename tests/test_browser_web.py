"""The web page in a real browser: headless Chromium against ``daide serve --http-port``.

Everything is real: the server and the bots are subprocesses
(``daide serve``, ``daide bot``), the page speaks DAIDE over the WebSocket
and the tests read the state from the DOM it keeps (the map root's
``data-turn``, each unit's ``data-unit``, each centre's ``data-sc`` and
``data-owner``).  Screenshots of the board are saved in ``build/browser/``.
Without Chromium these tests are skipped with the install line
(`tests.browser_helpers`); ``.ci/run`` sets ``DAIDE_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser_helpers import bots, browser_page, screenshot, served

#: Records every turn the board has shown, in order (window.turns).
RECORD_TURNS = """() => {
  window.turns = [];
  const note = () => {
    const svg = document.querySelector('#map svg');
    if (svg && window.turns[window.turns.length - 1] !== svg.dataset.turn)
      window.turns.push(svg.dataset.turn);
  };
  note();
  new MutationObserver(note).observe(document.getElementById('map'), {childList: true, subtree: true});
}"""


def units(page: Any) -> set[str]:
    return set(page.eval_on_selector_all("#map [data-unit]", "nodes => nodes.map(n => n.dataset.unit)"))


def owners(page: Any) -> dict[str, str]:
    return dict(page.eval_on_selector_all(
        "#map [data-sc]", "nodes => nodes.map(n => [n.dataset.sc, n.dataset.owner])"))


def test_a_page_watching_bots_sees_the_turn_advance_and_units_move(tmp_path: Path) -> None:
    with served(tmp_path, "--max-year", "1903") as server, browser_page("watch") as page:
        with bots(server.port, "randbot", 1):
            # The first bot opens game 1; the page watches it before it starts.
            server.wait_for("game_opened")
            page.goto(server.url + "watch/1")
            page.wait_for_selector("#map svg[data-turn='SPR 1901']")
            server.wait_for("observing")
            page.evaluate(RECORD_TURNS)
            start_units, start_owners = units(page), owners(page)
            assert "FRA AMY PAR" in start_units and "RUS FLT (STP SCS)" in start_units
            assert start_owners["PAR"] == "FRA" and start_owners["BEL"] == "UNO"
            with bots(server.port, "randbot", 6):
                page.wait_for_selector("[data-event=drw]", timeout=40_000)
        # The draw seen live ends the game on the page too (title, countdown).
        assert page.inner_text("#title").endswith("(standard, finished)")
        # The last position drawn: the game was drawn at the end of 1903.
        page.wait_for_function("() => document.querySelector('#map svg').dataset.turn.endsWith('1903')")
        turns = page.evaluate("window.turns")
        # Bots play fast: a picture still being drawn gives way to the newer position.
        assert turns[0] == "SPR 1901" and len(turns) >= 2, turns
        years = [int(t.split()[1]) for t in turns]
        assert years == sorted(years) and years[-1] == 1903, turns
        assert units(page) != start_units                     # units have moved
        assert owners(page) != start_owners                   # centres have changed hands
        # The slider went through the phases, the chart has a point per year.
        assert int(page.get_attribute("#slider", "max")) >= 6
        assert page.get_attribute("#chart", "data-points") == "3"
        screenshot(page, "watch-end")
        # Back to the start with the slider: the stored phases (the game is over),
        # spring 1901 from the starting position with its orders.
        page.fill("#slider", "0")
        page.wait_for_selector("#map svg[data-turn='SPR 1901'] g.order")
        assert units(page) == start_units
        assert page.get_attribute("#phase", "data-turn") == "SPR 1901"
        page.goto(server.url)
        page.wait_for_selector("#games tr[data-game='1'][data-status='finished']")
        assert "draw" in page.inner_text("#games tr[data-game='1']")
        screenshot(page, "games")


def state(page: Any) -> str:
    """What the play page shows, for a failure message."""
    return " | ".join(f"{part}: {page.inner_text(part)}"
                      for part in ("#status", "#missing", "#order-list", "#events"))


def play_phase(page: Any) -> str:
    """Complete France's orders of the current phase if it owes any; returns the turn."""
    turn = page.get_attribute("#map svg", "data-turn")
    # The server's MIS for this phase - unless the phase went by without France, or the
    # game ended with it.
    # Predicates are functions: a string expression is eval'ed, which the pages' CSP refuses.
    page.wait_for_function(
        f"() => document.querySelector('#missing').dataset.turn === '{turn}'"
        f" || document.querySelector('#map svg').dataset.turn !== '{turn}'"
        " || document.body.dataset.over === 'true'")
    if page.get_attribute("#missing", "data-turn") != turn:
        return turn
    missing = page.get_attribute("#missing", "data-missing")
    if missing.startswith("MIS ( ") and missing.split()[2].isdigit():
        # MIS ( n ), n > 0: removals, the player's choice (the page has no rule for it).
        count = int(missing.split()[2])
        mine = sorted(u for u in units(page) if u.startswith("FRA "))
        for unit in mine[:count]:
            kind, where = unit.split()[1], unit.split()[2].strip("(")
            page.fill("#order-text", f"remove {'A' if kind == 'AMY' else 'F'} {where}")
            page.press("#order-text", "Enter")
    elif missing.startswith("MIS ( -"):
        # Builds: a click on a free home centre builds an army there; waive the rest.
        taken = {u.split()[2].strip("(") for u in units(page)}
        free = [c for c in ("PAR", "MAR", "BRE") if owners(page)[c] == "FRA" and c not in taken]
        if free:
            page.locator(f"#map [data-province='{free[0]}']").dispatch_event("click")
            # The server's MIS after the build, or (the last build owed) the next phase.
            page.wait_for_function(
                f"() => document.querySelector('#missing').dataset.missing !== '{missing}'"
                f" || document.querySelector('#map svg').dataset.turn !== '{turn}'")
            if page.get_attribute("#missing", "data-turn") != turn \
                    or page.get_attribute("#map svg", "data-turn") != turn:
                page.wait_for_selector(f"#map [data-unit='FRA AMY {free[0]}']")
                return turn
            page.wait_for_selector(f"#order-list li[data-order='( FRA AMY {free[0]} ) BLD']"
                                   "[data-note=MBV]")
        if page.get_attribute("#missing", "data-missing") != "MIS":
            page.click("#defaults")
    elif missing != "MIS":
        page.click("#defaults")
    # Ready is the player's choice (issue 28, finding 1): the phase waits for it.
    page.wait_for_selector("#missing[data-complete=true], body[data-over=true]")
    if page.get_attribute("#gof", "data-ready") == "false" and not page.query_selector("body[data-over]"):
        page.click("#gof")
    return turn


def watch_back(page: Any, url: str) -> None:
    """While the game waits for France, a second page watches it and goes back
    with the slider: the start, then spring 1901 as HST ( SPR 1901 ) returns it."""
    watcher = page.context.browser.new_page()
    try:
        watcher.goto(url + "watch/1")
        try:
            watcher.wait_for_selector("#map svg[data-turn='SPR 1902']")
        except Exception as exc:
            shown = {part: watcher.inner_text(part) for part in ("#status", "#phase", "#events")}
            raise AssertionError(f"the watcher shows {watcher.get_attribute('#map svg', 'data-turn')}"
                                 f" ({watcher.get_attribute('#map', 'data-error')}): {shown}"
                                 ) from exc
        watcher.wait_for_selector("#status:has-text('watching')")
        assert "Tester <img src=x id=injected>" in watcher.inner_text("#players")
        assert watcher.query_selector("#injected") is None
        # One convention (issue 28, finding 13): a step is a phase from the position
        # it was played from, with its orders and results - never arrows from
        # empty provinces - and the HST answer gives the same.
        watcher.fill("#slider", "0")
        watcher.wait_for_selector("#phase[data-source=hst][data-turn='SPR 1901']")
        watcher.wait_for_selector("#orders li[data-ord*='( FRA AMY PAR ) MTO BUR']")
        assert "A Par - Bur" in watcher.inner_text("#orders")
        watcher.wait_for_selector("#map svg[data-turn='SPR 1901'] [data-unit='FRA AMY PAR']")
        watcher.wait_for_selector("#map svg[data-turn='SPR 1901'] "
                                  "g.order[data-order='FRA AMY PAR MTO BUR']")
        watcher.fill("#slider", "1")
        watcher.wait_for_selector("#map svg[data-turn='SUM 1901'], #map svg[data-turn='FAL 1901']")
    finally:
        watcher.close()


def test_a_person_plays_france_for_two_years_against_six_bots(tmp_path: Path) -> None:
    with served(tmp_path, "--max-year", "1902", "--level", "8000", "--mtl", "600", "--rtl",
                "600", "--btl", "600") as server, \
            browser_page("play") as page:
        page.goto(server.url + "play")
        # Markup in a name or press stays text (the page never parses what players send).
        page.fill("#name", "Tester <img src=x id=injected>")
        page.select_option("#power", "FRA")
        page.click("#join")
        server.wait_for("joining")
        with bots(server.port, "randbot", 6):
            page.wait_for_selector("#map svg[data-turn='SPR 1901']")
            assert page.get_attribute("#me", "data-power") == "FRA"
            # Typed orders, with a synonym; each shows the server's THX note.
            page.fill("#order-text", "A Par - Bur")
            page.press("#order-text", "Enter")
            page.wait_for_selector("#order-list li[data-order='( FRA AMY PAR ) MTO BUR'][data-note=MBV]")
            page.fill("#order-text", "F Bre - Mun")              # a fleet inland: FAR
            page.press("#order-text", "Enter")
            page.wait_for_selector("#order-list li[data-order='( FRA FLT BRE ) MTO MUN'][data-note=FAR]")
            page.fill("#order-text", "A Par - Nowhere")          # not notation: no order sent
            page.press("#order-text", "Enter")
            page.wait_for_selector("#order-error:has-text('not a province')")
            # A clicked order: the unit, then the province.
            page.click("#map [data-unit='FRA AMY MAR']")
            page.locator("#map [data-province='SPA']").dispatch_event("click")
            page.wait_for_selector("#order-list li[data-order='( FRA AMY MAR ) MTO SPA'][data-note=MBV]")
            page.wait_for_selector("#missing[data-missing='MIS ( FRA FLT BRE )']")
            # Preview against holds: drawn by the server on the board, nothing submitted.
            page.click("#preview-btn")
            page.wait_for_selector("#map[data-mode=preview] svg[data-turn='SPR 1901'] "
                                   "g.order[data-order='FRA AMY PAR MTO BUR'][data-result=SUC]")
            assert "A Par - Bur" in page.inner_text("#preview")
            page.click("#board-mine")
            # Summary: what the server holds.
            page.click("#summary-btn")
            page.wait_for_selector("#summary li[data-held='( ( FRA AMY MAR ) MTO SPA )']")
            # Press at level 8000 to England.
            page.check("#recipients input[data-recipient=ENG]")
            page.fill("#press-text", "Hello <b id=bold>from</b> Paris")
            page.click("#press-send")
            page.wait_for_selector("[data-chat='ENG'] [data-delivered=true]"
                                   ":has-text('Hello <b id=bold>from</b> Paris')")
            assert page.query_selector("#bold") is None
            # Ready and draw votes, answered by the server (YES).
            assert page.get_attribute("#gof", "data-ready") == "false"    # ready is a choice
            page.click("#gof")
            page.wait_for_selector("#gof[data-ready=true]")
            page.click("#gof")
            page.wait_for_selector("#gof[data-ready=false]")
            page.click("#draw")
            page.wait_for_selector("#draw[data-vote=true]")
            page.click("#draw")
            page.wait_for_selector("#draw[data-vote=false]")
            # The deadline counts down (TME).
            seconds = int(page.get_attribute("#deadline", "data-seconds"))
            assert 0 < seconds <= 600
            screenshot(page, "play-spring-1901")
            # Reload: the page rejoins with IAM and gets the held orders back.
            page.reload()
            page.wait_for_selector("#map svg[data-turn='SPR 1901']")
            page.wait_for_selector("#order-list li[data-order='( FRA AMY PAR ) MTO BUR'][data-note=MBV]")
            assert page.get_attribute("#me", "data-power") == "FRA"
            page.wait_for_selector("#missing[data-missing='MIS ( FRA FLT BRE )']")
            page.fill("#order-text", "F Brest - Mid-Atlantic")
            page.press("#order-text", "Enter")
            page.wait_for_selector("#missing[data-complete=true]")
            page.click("#gof")
            page.wait_for_selector("#map svg[data-turn='FAL 1901']")   # all orders in, ready: played
            assert "FRA AMY BUR" in units(page) or "FRA AMY PAR" in units(page)
            page.wait_for_selector("#results li")

            # The rest of the two years: hold, disband and waive until the game ends.
            seen = []
            for _ in range(12):
                if page.query_selector("body[data-over=true]"):
                    break
                if page.get_attribute("#map svg", "data-turn") == "SPR 1902":
                    watch_back(page, server.url)
                turn = play_phase(page)
                seen.append(turn)
                try:
                    page.wait_for_function(
                        f"() => document.querySelector('#map svg').dataset.turn !== '{turn}'"
                        " || document.body.dataset.over === 'true'",
                        timeout=20_000)
                except Exception as exc:
                    raise AssertionError(f"stuck in {turn}: {state(page)}") from exc
            page.wait_for_selector("#status:has-text('the game ended in a draw')")
            assert "FAL 1902" in seen, seen
            screenshot(page, "play-end")
