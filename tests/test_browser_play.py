"""A person plays in the browser, in the players' own language (issue 28).

Headless Chromium against a real ``daide serve --http-port 0`` and real
``daide bot`` processes (`tests.browser_helpers`).  Each test names the
findings of issue 28 it covers; the state is read from the DOM the page
keeps (``data-turn``, ``data-order`` on each order drawn on the board,
``data-ready`` on the Ready control, ``data-missing``...), the words from
what a person sees (``inner_text``, which leaves out the hidden "show DAIDE"
texts).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.browser_helpers import (
    bots,
    browser_page,
    join_by_form,
    screenshot,
    scripted_bot,
    served,
)

#: DAIDE tokens of the order grammar and the labels a person should never read.
JARGON = ("MTO", "SUP", "CVY", "CTO", "HLD", "RTO", "DSB", "BLD", "REM", "WVE", "SUC", "BNC",
          "NSO", "MBV", "GOF", "NME", "THK", "SUM", "FAR", "CST", "HSC", "NSU")


#: The labels whose middle is not on their own province's shape, as the browser hit-tests it.
LABELS_ON_THEIR_PROVINCE = """() => {
  const wrong = [];
  for (const label of document.querySelectorAll('#map text[data-label]')) {
    const r = label.getBoundingClientRect();
    const hit = document.elementsFromPoint(r.left + r.width / 2, r.top + r.height / 2)
      .find((e) => e.dataset && e.dataset.province);
    if (!hit || hit.dataset.province !== label.dataset.label)
      wrong.push(`${label.dataset.label} on ${hit ? hit.dataset.province : 'nothing'}`);
  }
  return wrong;
}"""


def jargon(text: str) -> list[str]:
    """The lines of a text a person reads that hold a DAIDE token."""
    return [line for line in text.splitlines()
            if any(re.search(rf"\b{word}\b", line) for word in JARGON)]


def visible(page: Any) -> str:
    return str(page.inner_text("body"))


def turn(page: Any) -> str:
    return str(page.get_attribute("#map svg", "data-turn"))


def typed(page: Any, text: str) -> None:
    page.fill("#order-text", text)
    page.press("#order-text", "Enter")


def click_unit(page: Any, unit: str, shift: bool = False) -> None:
    page.locator(f"#map [data-unit='{unit}']").dispatch_event("click", {"shiftKey": shift})


def click_province(page: Any, province: str, shift: bool = False) -> None:
    page.locator(f"#map [data-province='{province}']").first.dispatch_event(
        "click", {"shiftKey": shift})


def accepted(page: Any, order: str) -> None:
    """The order is in the list, accepted (MBV), and drawn on the board."""
    page.wait_for_selector(f"#order-list li[data-order='{order}'][data-note=MBV]")


def defaults(page: Any, missing: str) -> None:
    """Hold every unit the last MIS lists.  That MIS comes on its own after the
    NOW and after each THX, so wait first for the one `missing` (a condition on
    #missing, e.g. "[data-turn='FAL 1901']") describes: an older list would hold
    a unit that was just given an order."""
    page.wait_for_selector(f"#missing{missing}")
    page.click("#defaults")


def drawn(page: Any, compact: str) -> None:
    page.wait_for_selector(f"#map[data-mode=mine] g.order[data-order='{compact}']")


def retreat_by_clicks(page: Any, unit: str, to: str, missing: str, said: str,
                      shot: str) -> None:
    """The person's dislodged ``unit`` (``FRA AMY BEL``) retreats to ``to`` by two clicks:
    Missing starts with ``missing``, the seat is not ready, the order is accepted,
    drawn and listed as ``said``, in words only; the page's screenshot ``shot``."""
    page.wait_for_selector(f"#missing[data-missing^='MIS ( {unit} MRT']")
    assert page.inner_text("#missing").startswith(missing)
    page.wait_for_selector("#gof[data-ready=false]")
    click_unit(page, unit)
    click_province(page, to)
    accepted(page, f"( {unit} ) RTO {to}")
    drawn(page, f"{unit} RTO {to}")
    assert page.inner_text("#order-list li[data-note=MBV]") == said
    assert not jargon(visible(page)), jargon(visible(page))
    screenshot(page, shot)


def ready_and_wait(page: Any, before: str) -> None:
    """All orders in: the phase waits for Ready (finding 1); then it is played."""
    page.wait_for_selector("#missing[data-complete=true]")
    # The server's answer to the page's MIS came after every THX: had the phase been
    # played at the last order, its NOW would have come before it.
    assert turn(page) == before and page.get_attribute("#gof", "data-ready") == "false"
    page.click("#gof")
    page.wait_for_function(
        f"() => document.querySelector('#map svg').dataset.turn !== '{before}'"
        " || document.body.dataset.over === 'true'")


def test_a_persons_whole_game_by_clicks_in_words(tmp_path: Path) -> None:
    """A person's whole game, Spring 1901 to the final table, against six bots: clicked
    moves, supports, a convoy, a coast choice, builds, a retreat and press, two reloads,
    and no DAIDE token of the order grammar on the page outside "show DAIDE".

    Findings 1 (ready is a choice), 2 (a refusal hides nothing), 3 (coast picker),
    4 (only your units), 5 (your orders on the board, the preview full size),
    6 (winter), 10 (final table), 14 (words, not DAIDE), 15 (notation).  Germany is
    the scripted bot of `tests.scripted_bot` (the others hold): it takes Holland and
    Ruhr in 1901 and Belgium with support in Spring 1902, so France's army there is
    certainly dislodged and retreats, by clicks, to the one free province, Burgundy."""
    with served(tmp_path, "--max-year", "1902", "--level", "8000", "--mtl", "600", "--rtl", "600",
                "--btl", "600") as server, browser_page("play-words") as page:
        join_by_form(page, server, "Alice", "FRA")
        page.wait_for_selector("#waiting[data-game='1']")
        assert "Waiting for game 1" in page.inner_text("#waiting")
        with scripted_bot(server.port, "germany-takes-bel"), bots(server.port, "holdbot", 5):
            page.wait_for_selector("#map svg[data-turn='SPR 1901']")
            assert page.inner_text("#me") == "France - Alice"
            page.wait_for_selector("#map svg text.turn:has-text('standard - Spring 1901')")
            # Finding 1: not ready at the start of the phase.
            page.wait_for_selector("#gof[data-ready=false]")
            # Finding 4: another power's unit cannot be picked.
            click_unit(page, "GER AMY MUN")
            page.wait_for_selector("#order-error:has-text('not yours')")
            assert page.query_selector("#map .selected") is None
            # Finding 15: "moves to"; the order reads as players write it.
            typed(page, "A Par moves to Bur")
            accepted(page, "( FRA AMY PAR ) MTO BUR")
            assert page.inner_text("#order-list li[data-order='( FRA AMY PAR ) MTO BUR']") == "A Par - Bur"
            drawn(page, "FRA AMY PAR MTO BUR")                  # finding 5
            typed(page, "A Mar \u2013 Spa")                      # an en-dash
            accepted(page, "( FRA AMY MAR ) MTO SPA")
            # Clicked: the fleet, then the sea.
            click_unit(page, "FRA FLT BRE")
            click_province(page, "MAO")
            accepted(page, "( FRA FLT BRE ) MTO MAO")
            drawn(page, "FRA FLT BRE MTO MAO")
            # A refused order in words (finding 14), the accepted one stays (finding 2).
            typed(page, "F Bre - Mun")
            page.wait_for_selector("#order-list li[data-order='( FRA FLT BRE ) MTO MUN'][data-note=FAR]")
            assert "refused: the unit cannot reach that province" in page.inner_text("#order-list")
            accepted(page, "( FRA FLT BRE ) MTO MAO")
            drawn(page, "FRA FLT BRE MTO MAO")
            # The preview's results on the main board (finding 5).
            page.click("#preview-btn")
            page.wait_for_selector("#map[data-mode=preview] g.order[data-result=SUC]")
            assert "A Par - Bur" in page.inner_text("#preview")
            page.click("#board-mine")
            drawn(page, "FRA AMY PAR MTO BUR")
            # Press to England, kept over a reload.
            page.check("#recipients input[data-recipient=ENG]")
            page.fill("#press-text", "Hello from Paris")
            page.press("#press-text", "Enter")
            page.wait_for_selector("[data-chat='ENG'] [data-delivered=true]:has-text('France: Hello from Paris')")
            assert not jargon(visible(page)), jargon(visible(page))
            screenshot(page, "play-spring-1901-words")
            page.reload()
            page.wait_for_selector("#map svg[data-turn='SPR 1901']")
            accepted(page, "( FRA FLT BRE ) MTO MAO")
            page.wait_for_selector("[data-chat='ENG']:has-text('France: Hello from Paris')")
            # The bot's protocol answer, kept too, in words (its DAIDE behind the switch).
            page.wait_for_selector("[data-chat='ENG']:has-text('England: (answered in DAIDE: not understood)')")
            assert "HUH" not in page.inner_text("#chats")
            page.wait_for_selector("#gof[data-ready=false]")
            ready_and_wait(page, "SPR 1901")

            # Fall 1901: the convoy by clicks - the fleet, the army, the destination.
            page.wait_for_selector("#map svg[data-turn='FAL 1901']")
            page.wait_for_selector("#results li[data-ord*='( FRA AMY PAR ) MTO BUR']")
            assert "A Par - Bur" in page.inner_text("#results")
            page.wait_for_selector("#gof[data-ready=false]")
            click_unit(page, "FRA FLT MAO")
            click_unit(page, "FRA AMY SPA")
            click_province(page, "POR")
            accepted(page, "( FRA FLT MAO ) CVY ( FRA AMY SPA ) CTO POR")
            drawn(page, "FRA FLT MAO CVY FRA AMY SPA CTO POR")
            click_unit(page, "FRA AMY SPA")
            click_province(page, "POR")
            accepted(page, "( FRA AMY SPA ) CTO POR VIA ( MAO )")
            click_unit(page, "FRA AMY BUR")
            click_province(page, "BEL")
            accepted(page, "( FRA AMY BUR ) MTO BEL")
            ready_and_wait(page, "FAL 1901")

            # Winter 1901 (finding 6): builds in words, the fall on the board on request.
            page.wait_for_selector("#map svg[data-turn='WIN 1901']")
            page.wait_for_selector("#missing[data-missing='MIS ( -2 )']")
            assert page.inner_text("#missing") == "2 builds to order (or waive)"
            page.click("#board-last")
            page.wait_for_selector("#map[data-mode=last] svg[data-turn='FAL 1901'] "
                                   "g.order[data-order='FRA AMY BUR MTO BEL'][data-result=SUC]")
            page.click("#board-mine")
            page.wait_for_selector("#map[data-mode=mine] svg[data-turn='WIN 1901']")
            assert page.inner_text("#summary") == ""
            click_province(page, "BEL")                           # not a home centre
            page.wait_for_selector("#order-list li[data-note=HSC]")
            assert "you can build only in your home supply centres" in page.inner_text("#order-list")
            click_province(page, "PAR")
            accepted(page, "( FRA AMY PAR ) BLD")
            page.reload()                                          # the second reload
            page.wait_for_selector("#map svg[data-turn='WIN 1901']")
            accepted(page, "( FRA AMY PAR ) BLD")
            page.wait_for_selector("#missing[data-missing='MIS ( -1 )']")
            click_province(page, "BRE", shift=True)               # shift: a fleet
            accepted(page, "( FRA FLT BRE ) BLD")
            ready_and_wait(page, "WIN 1901")

            # Spring 1902: a support and a coast by clicks.
            page.wait_for_selector("#map svg[data-turn='SPR 1902']")
            assert page.query_selector("#order-list li[data-note=HSC]") is None   # refused builds gone
            click_unit(page, "FRA AMY PAR")
            click_province(page, "PIC")
            accepted(page, "( FRA AMY PAR ) MTO PIC")
            click_unit(page, "FRA AMY BEL")
            click_unit(page, "FRA AMY PAR")
            click_province(page, "PIC")
            accepted(page, "( FRA AMY BEL ) SUP ( FRA AMY PAR ) MTO PIC")
            drawn(page, "FRA AMY BEL SUP FRA AMY PAR MTO PIC")
            click_unit(page, "FRA FLT MAO")
            click_province(page, "SPA")
            page.wait_for_selector("#coast-picker button[data-coast=NCS]")  # finding 3
            page.click("#coast-picker button[data-coast=NCS]")
            accepted(page, "( FRA FLT MAO ) MTO ( SPA NCS )")
            # Finding 2: the same move without a coast is refused; the accepted one stays.
            typed(page, "F MAO - Spa")
            page.wait_for_selector("#order-list li[data-order='( FRA FLT MAO ) MTO SPA'][data-note=CST]")
            accepted(page, "( FRA FLT MAO ) MTO ( SPA NCS )")
            drawn(page, "FRA FLT MAO MTO (SPA NCS)")
            click_unit(page, "FRA AMY POR")
            click_unit(page, "FRA AMY POR")                        # the unit twice: hold
            accepted(page, "( FRA AMY POR ) HLD")
            page.wait_for_selector("#missing[data-missing='MIS ( FRA FLT BRE )']")
            assert page.inner_text("#missing") == "F Bre has no order"
            page.click("#summary-btn")
            page.wait_for_selector("#summary li[data-held='( ( FRA FLT MAO ) MTO ( SPA NCS ) )']")
            assert "F Mao - Spa/nc" in page.inner_text("#summary")
            page.click("#defaults")
            accepted(page, "( FRA FLT BRE ) HLD")
            assert not jargon(visible(page)), jargon(visible(page))
            ready_and_wait(page, "SPR 1902")

            # Summer 1902: Germany took Belgium with support; France's army retreats by clicks.
            page.wait_for_selector(
                "#map svg[data-turn='SUM 1902'] [data-unit='FRA AMY BEL'][data-dislodged=true]")
            page.wait_for_selector("#map svg text.turn:has-text('Summer retreats 1902')")
            results = page.inner_text("#results")
            assert "F Hol - Bel" in results and "A Ruh S F Hol - Bel" in results, results
            assert re.search(r"A bel s a par - pic \(.*dislodged\)", results), results
            retreat_by_clicks(page, "FRA AMY BEL", "BUR", "A Bel must retreat (to Bur)",
                              "A Bel R Bur", "play-whole-game-retreat")
            ready_and_wait(page, "SUM 1902")
            page.wait_for_selector("#map svg[data-turn='FAL 1902'] [data-unit='FRA AMY BUR']")
            assert "A Bel R Bur" in page.inner_text("#results")
            assert not jargon(visible(page)), jargon(visible(page))
            defaults(page, "[data-turn='FAL 1902']")
            ready_and_wait(page, "FAL 1902")

            # Finding 10: the final table, no order controls, the events in words.
            page.wait_for_selector("#final:not([hidden]) tr[data-power=FRA]")
            assert page.is_hidden("#orders-box") and page.is_hidden("#preview-box")
            assert "the game ended in a draw between" in page.inner_text("#events")
            row = page.inner_text("#final tr[data-power=FRA]")
            assert row.startswith("France") and "Alice" in row, row
            assert page.get_attribute("#replay-link", "href") == "/watch/1"
            text = visible(page)
            assert not jargon(text), jargon(text)
            screenshot(page, "play-final-table")
            # The DAIDE text stays behind the switch.
            page.check("#show-daide")
            assert "DRW" in page.inner_text("#events") or "SMR" in page.inner_text("#events")


def test_a_missed_deadline_says_what_the_units_did_and_failures_read_in_lower_case(
        tmp_path: Path) -> None:
    """Findings 11 (the countdown warns, a missed deadline is explained) and 14
    (results in the French adjudicator's notation: a failed order in lower case,
    with what happened in brackets)."""
    with served(tmp_path, "--mtl", "12", "--level", "0") as server, \
            browser_page("play-deadline") as page:
        join_by_form(page, server, "Bob", "FRA")
        with bots(server.port, "holdbot", 6):
            page.wait_for_selector("#map svg[data-turn='SPR 1901']")
            # The last minute: the countdown is coloured and the tab's title says it.
            page.wait_for_selector("#deadline[data-warning=true]")
            assert page.title().startswith("0:") and "left!" in page.title()
            typed(page, "A Par - Bur")
            typed(page, "A Mar - Bur")
            accepted(page, "( FRA AMY MAR ) MTO BUR")
            page.wait_for_selector("#missing[data-missing='MIS ( FRA FLT BRE )']")
            # Nobody presses Ready: the deadline plays the phase.
            page.wait_for_selector("#map svg[data-turn='FAL 1901']", timeout=40_000)
            page.wait_for_selector("#events [data-event=deadline]")
            assert "F Bre had no order and held" in page.inner_text("#events [data-event=deadline]")
            results = page.inner_text("#results")
            # As the French reports write it: the unit's letter, then the order in lower case.
            assert "A par - bur (bounce)" in results and "A mar - bur (bounce)" in results, results
            assert "F Bre H" in results
            page.wait_for_selector("#gof[data-ready=false]")
            assert not jargon(visible(page)), jargon(visible(page))
            screenshot(page, "play-missed-deadline")
        # The bots' process ends: each power that left is told in words (CCD).
        page.wait_for_selector("#events [data-event=ccd]:has-text('Germany left the game"
                               " - its units hold until it comes back')")
        assert not jargon(page.inner_text("#events")), page.inner_text("#events")


def test_the_french_page(tmp_path: Path) -> None:
    """The page in French: its texts, the Descartes map's names, orders typed in French."""
    with served(tmp_path, "--mtl", "600") as server, browser_page("play-fr") as page:
        join_by_form(page, server, "Claire", "FRA", "fr")
        with bots(server.port, "holdbot", 6):
            page.wait_for_selector("#map svg[data-turn='SPR 1901']")
            assert page.inner_text("#orders-box h2") == "Vos ordres"
            assert page.inner_text("#turn") == "Printemps 1901"
            page.wait_for_selector("#gof[data-ready=false]")
            assert page.inner_text("#gof") == "Prêt : jouer mes ordres"
            assert page.inner_text("#board-caption") == "Printemps 1901 : vos ordres"
            # The board speaks French too: Burgundy is BOU, Marseilles TOU.
            page.wait_for_selector("#map text[data-label=BUR]:has-text('BOU')")
            assert page.text_content("#map text[data-label=MAR]") == "TOU"
            page.wait_for_selector("#deadline[data-seconds]")        # the TME after the NOW
            assert page.inner_text("#deadline").endswith("restantes")
            typed(page, "A Par - Bou")
            accepted(page, "( FRA AMY PAR ) MTO BUR")
            typed(page, "A Tou S A Par - Bourgogne")
            accepted(page, "( FRA AMY MAR ) SUP ( FRA AMY PAR ) MTO BUR")
            typed(page, "F Bre - Man")
            accepted(page, "( FRA FLT BRE ) MTO ECH")
            text = page.inner_text("#order-list")
            assert "A Par - Bou" in text and "A Tou S A Par - Bou" in text and "F Bre - Man" in text
            page.wait_for_selector("#missing[data-complete=true]")     # the MIS after the THXs
            assert page.inner_text("#missing") == "tous vos ordres sont donnés"
            screenshot(page, "play-french")
            # The watch page in French too (the language is remembered).
            page.goto(server.url + "watch/1")
            page.wait_for_selector("#map svg text[data-label=BUR]:has-text('BOU')")
            assert "Ordres et résultats" in page.inner_text("aside")
            screenshot(page, "watch-french")


def test_the_watch_slider_keeps_its_count_and_every_step_is_played_from_its_position(
        tmp_path: Path) -> None:
    """Findings 9 (the slider's label follows the game while the watcher looks back)
    and 13 (one board convention: a phase from the position it was played from)."""
    with served(tmp_path, "--max-year", "1903") as server, browser_page("watch-steps") as page:
        with bots(server.port, "randbot", 1):
            server.wait_for("game_opened")
            page.goto(server.url + "watch/1")
            server.wait_for("observing")
            with bots(server.port, "randbot", 6):
                page.wait_for_function(
                    "() => Number(document.querySelector('#phase').dataset.steps) >= 3")
                page.fill("#slider", "0")                   # back, while the game goes on
                page.wait_for_selector("#phase[data-step='0'][data-turn='SPR 1901']")
                page.wait_for_selector("[data-event=drw]", timeout=40_000)
        steps = int(page.get_attribute("#phase", "data-steps"))
        assert int(page.get_attribute("#slider", "max")) == steps - 1
        assert page.inner_text("#phase").endswith(f"(1 / {steps})"), page.inner_text("#phase")
        assert page.get_attribute("#phase", "data-turn") == "SPR 1901"
        assert "the game ended in a draw between" in page.inner_text("#events")
        assert not jargon(page.inner_text("#events")), page.inner_text("#events")
        # Every step's orders start from units on its board: no arrow from an empty province.
        for step in range(steps):
            page.fill("#slider", str(step))
            page.wait_for_selector(f"#phase[data-step='{step}']")
            wanted = page.get_attribute("#phase", "data-turn")
            page.wait_for_selector(f"#map svg[data-turn='{wanted}']")
            on_board = set(page.eval_on_selector_all(
                "#map [data-unit]", "nodes => nodes.map(n => n.dataset.unit)"))
            ordered = page.eval_on_selector_all(
                "#map g.order", "nodes => nodes.map(n => n.dataset.order)")
            for order in ordered:
                if " WVE" in order or " BLD" in order:
                    continue
                unit = re.match(r"(\w+ (?:AMY|FLT) (?:\(\w+ \w+\)|\w+))", order)
                assert unit and unit.group(1) in on_board, (wanted, order)
            if step < steps - 1:
                assert ordered, wanted                      # a played phase shows its orders
        screenshot(page, "watch-final")


def test_the_games_list_says_what_each_game_is_and_join_goes_to_it(tmp_path: Path) -> None:
    """Findings 7 (the games list: variant, press, deadlines, players by name, free
    seats, a Join button) and 8 (the join form and the waiting page say which game)."""
    with served(tmp_path, "--mtl", "600", "--btl", "120") as server, \
            browser_page("games-join") as page:
        join_by_form(page, server, "Alice", "FRA")
        page.wait_for_selector("#waiting[data-game='1'][data-taken='1'][data-seats='7']")
        with bots(server.port, "holdbot", 5):
            page.wait_for_selector("#waiting[data-taken='6']")
            assert "6 of 7 seats taken" in page.inner_text("#waiting")
            other = page.context.browser.new_page()
            try:
                other.goto(server.url + "?lang=en")
                other.wait_for_selector("#games tr[data-game='1'][data-open='1']")
                text = other.inner_text("#games tr[data-game='1']")
                for part in ("standard", "no press", "moves 10 min, builds 2 min", "1 seat free"):
                    assert part in text, text
                other.click("#games a[data-join='1']")
                other.wait_for_selector("#join-form:not([hidden])")
                assert "You join game 1: the last free seat of 7." in other.inner_text("#join-info")
                # Alice asked for France: the form offers the six others (test_web_free_powers.py).
                offered = other.eval_on_selector_all("#power option", "os => os.map(o => o.value)")
                assert offered == ["", "*random", "*list", "AUS", "ENG", "GER", "ITA", "RUS",
                                   "TUR"], offered
                other.fill("#name", "Bea")
                other.click("#join")
                other.wait_for_selector("#map svg[data-turn='SPR 1901']")
                page.wait_for_selector("#map svg[data-turn='SPR 1901']")
                assert page.inner_text("#me") == "France - Alice"
                assert other.inner_text("#me").endswith(" - Bea")
                other.goto(server.url)
                other.wait_for_selector("#games tr[data-game='1'][data-status='running']")
                players = other.inner_text("#games tr[data-game='1']")
                assert "France: Alice" in players and "FRA:" not in players, players
                screenshot(other, "games-list")
            finally:
                other.close()


def test_a_dislodged_unit_retreats_by_clicks(tmp_path: Path) -> None:
    """A retreat by clicks, in words: two people (France and Germany) and five bots;
    Germany dislodges France's army in Burgundy, which retreats to Gascony."""
    with served(tmp_path, "--mtl", "600", "--rtl", "600", "--btl", "600") as server, \
            browser_page("play-retreat") as page:
        germany = page.context.browser.new_page()
        try:
            for who, name, power in ((page, "Alice", "FRA"), (germany, "Gus", "GER")):
                who.goto(server.url + "play?lang=en")
                who.fill("#name", name)
                who.select_option("#power", power)
                who.click("#join")
                who.wait_for_selector("#waiting[data-game='1']")
            with bots(server.port, "holdbot", 5):
                for who in (page, germany):
                    who.wait_for_selector("#map svg[data-turn='SPR 1901']")
                typed(page, "A Par - Bur")
                accepted(page, "( FRA AMY PAR ) MTO BUR")
                defaults(page, "[data-turn='SPR 1901']:not([data-missing*='FRA AMY PAR'])")
                page.wait_for_selector("#missing[data-complete=true]")
                page.click("#gof")
                typed(germany, "A Mun - Ruh")
                typed(germany, "A Ber - Mun")
                accepted(germany, "( GER AMY BER ) MTO MUN")
                defaults(germany, "[data-turn='SPR 1901'][data-missing='MIS ( GER FLT KIE )']")
                germany.wait_for_selector("#missing[data-complete=true]")
                germany.click("#gof")
                for who in (page, germany):
                    who.wait_for_selector("#map svg[data-turn='FAL 1901']")
                typed(germany, "A Ruh - Bur")
                typed(germany, "A Mun S Ruh - Bur")          # finding 15: no A/F for Ruhr
                accepted(germany, "( GER AMY MUN ) SUP ( GER AMY RUH ) MTO BUR")
                defaults(germany, "[data-turn='FAL 1901'][data-missing='MIS ( GER FLT KIE )']")
                germany.wait_for_selector("#missing[data-complete=true]")
                germany.click("#gof")
                defaults(page, "[data-turn='FAL 1901']")
                accepted(page, "( FRA AMY BUR ) HLD")
                ready_and_wait(page, "FAL 1901")
                page.wait_for_selector("#map svg[data-turn='AUT 1901'] [data-unit='FRA AMY BUR'][data-dislodged=true]")
                assert "A bur h (dislodged)" in page.inner_text("#results")
                retreat_by_clicks(page, "FRA AMY BUR", "GAS", "A Bur must retreat (to ",
                                  "A Bur R Gas", "play-retreat")
                ready_and_wait(page, "AUT 1901")
                page.wait_for_selector("#map [data-unit='FRA AMY GAS']")
                assert "A Bur R Gas" in page.inner_text("#results")
        finally:
            germany.close()


def test_a_phone_sized_screen_and_the_keyboard_alone(tmp_path: Path) -> None:
    """The board scales and the panels stack on a phone-sized screen; orders,
    Ready and press work from the keyboard alone."""
    with served(tmp_path, "--mtl", "600", "--level", "8000") as server, \
            browser_page("play-phone") as page:
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(server.url + "play?lang=en")
        page.fill("#name", "Pat")
        page.select_option("#power", "FRA")
        page.press("#name", "Enter")                        # Enter joins
        with bots(server.port, "holdbot", 6):
            page.wait_for_selector("#map svg[data-turn='SPR 1901']")
            board = page.locator("#map svg").bounding_box()
            aside = page.locator("aside").bounding_box()
            assert board["width"] <= 390 and aside["y"] >= board["y"] + board["height"] - 1
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            page.focus("#order-text")
            for order in ("A Par - Bur", "A Mar - Spa", "F Bre - Mao"):
                page.keyboard.type(order)
                page.keyboard.press("Enter")
            accepted(page, "( FRA FLT BRE ) MTO MAO")
            page.focus("#press-text")
            page.keyboard.type("Bonjour")
            page.check("#recipients input[data-recipient=ITA]")
            page.focus("#press-text")
            page.keyboard.press("Enter")
            page.wait_for_selector("[data-chat='ITA'] [data-delivered=true]")
            page.wait_for_selector("#missing[data-complete=true]")
            page.focus("#gof")
            page.keyboard.press("Enter")
            page.wait_for_selector("#map svg[data-turn='FAL 1901']")
            screenshot(page, "play-phone")


def test_screenshots_of_every_page_for_four_variants(tmp_path: Path) -> None:
    """build/browser/: the games list, the join form and the board of standard,
    modern, world3 and chromatic, at desktop and phone width (docs/web.md)."""
    with browser_page("variants") as page:
        for variant in ("standard", "modern", "world3", "chromatic"):
            (tmp_path / variant).mkdir()
            with served(tmp_path / variant, "--variant", variant) as server:
                with bots(server.port, "holdbot", 1):
                    server.wait_for("game_opened")
                    for width, height, kind in ((1400, 1600, "desktop"), (390, 844, "phone")):
                        page.set_viewport_size({"width": width, "height": height})
                        page.goto(server.url + "watch/1?lang=en")
                        page.wait_for_selector(f"#map svg[data-variant='{variant}' i]")
                        box = page.locator("#map svg").bounding_box()
                        assert box["width"] <= width
                        if kind == "desktop":
                            # Finding 16: each label stands on its own province, drawn
                            # under no other (chromatic's AQU covered ROY's and COB's).
                            assert page.evaluate(LABELS_ON_THEIR_PROVINCE) == [], variant
                        screenshot(page, f"watch-{variant}-{kind}")
                        page.goto(server.url + "?lang=en")
                        page.wait_for_selector("#games tr[data-game='1']")
                        screenshot(page, f"games-{variant}-{kind}")
                        page.goto(server.url + "play?lang=en")
                        page.wait_for_selector("#join-form:not([hidden])")
                        screenshot(page, f"join-{variant}-{kind}")


def play_on(page: Any) -> str:
    """Finish the phase: builds on free home centres, removals, defaults; then Ready."""
    now = turn(page)
    page.wait_for_function(
        f"() => document.querySelector('#missing').dataset.turn === '{now}'"
        f" || document.querySelector('#map svg').dataset.turn !== '{now}'"
        " || document.body.dataset.over === 'true'")
    if turn(page) != now or page.query_selector("body[data-over=true]"):
        return now
    missing = page.get_attribute("#missing", "data-missing") or ""
    owed = re.match(r"MIS \( (-?\d+) \)$", missing)
    mine = sorted(u for u in page.eval_on_selector_all(
        "#map [data-unit]", "nodes => nodes.map(n => n.dataset.unit)") if u.startswith("FRA "))
    if owed and int(owed.group(1)) > 0:
        for unit in mine[:int(owed.group(1))]:
            click_unit(page, unit)
    elif owed:
        taken = {u.split()[2].strip("(") for u in page.eval_on_selector_all(
            "#map [data-unit]", "nodes => nodes.map(n => n.dataset.unit)")}
        owners = dict(page.eval_on_selector_all(
            "#map [data-sc]", "nodes => nodes.map(n => [n.dataset.sc, n.dataset.owner])"))
        free = [c for c in ("PAR", "MAR", "BRE") if owners.get(c) == "FRA" and c not in taken]
        for centre in free[:-int(owed.group(1))]:
            click_province(page, centre)
            accepted(page, f"( FRA AMY {centre} ) BLD")
    page.wait_for_selector("#missing[data-turn]")
    if page.get_attribute("#missing", "data-complete") != "true" and turn(page) == now:
        page.click("#defaults")
    page.wait_for_function(
        "() => document.querySelector('#missing').dataset.complete === 'true'"
        f" || document.querySelector('#map svg').dataset.turn !== '{now}'")
    if turn(page) == now and page.get_attribute("#gof", "data-ready") == "false":
        page.click("#gof")
    return now


def test_a_whole_game_against_six_dumbbots_reads_in_words(tmp_path: Path) -> None:
    """A person's whole game against six DumbBots, with press and two reloads, to the
    final table: at no point does the page show the order grammar's DAIDE tokens."""
    with served(tmp_path, "--max-year", "1903", "--level", "8000", "--mtl", "600",
                "--rtl", "600", "--btl", "600") as server, browser_page("play-dumbbots") as page:
        join_by_form(page, server, "Dana", "FRA")
        with bots(server.port, "dumbbot", 6):
            page.wait_for_selector("#map svg[data-turn='SPR 1901']")
            page.check("#recipients input[data-recipient=GER]")
            page.fill("#press-text", "Peace in Burgundy?")
            page.press("#press-text", "Enter")
            page.wait_for_selector("[data-chat='GER'] [data-delivered=true]")
            seen: list[str] = []
            reloads = 0
            for _ in range(20):
                if page.query_selector("body[data-over=true]"):
                    break
                # Reloaded before the second and the fifth phase played (counted by what
                # was played: the board may still show the last phase for a moment).
                if len(seen) in (1, 4) and reloads < (1 if len(seen) == 1 else 2):
                    page.reload()
                    reloads += 1
                    page.wait_for_selector("#map svg[data-turn]")
                    page.wait_for_selector("[data-chat='GER']:has-text('Peace in Burgundy?')")
                text = visible(page)
                assert not jargon(text), (turn(page), jargon(text))
                now = play_on(page)
                seen.append(now)
                page.wait_for_function(
                    f"() => document.querySelector('#map svg').dataset.turn !== '{now}'"
                    " || document.body.dataset.over === 'true'")
            page.wait_for_selector("#final:not([hidden]) tr[data-power=FRA]")
            assert reloads == 2 and "FAL 1903" in seen and len(seen) >= 5, seen
            text = visible(page)
            assert not jargon(text), jargon(text)
            assert page.is_hidden("#orders-box")
            screenshot(page, "play-dumbbots-final")
