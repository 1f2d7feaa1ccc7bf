"""Whole games over real TCP: seven scripted clients and an observer, to a draw and a solo."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing

from server.settings import GameSettings
from server.store import Seat, Store
from tests.server_helpers import POWERS, ScriptClient, jumping_clock, start_game, start_server
from tests.server_script import END_OF_1901_SCO, play_script


@pytest.fixture
def clock() -> trio.testing.MockClock:
    return jumping_clock()


async def observe(port: int) -> ScriptClient:
    watcher = await ScriptClient.connect(port, "watcher")
    await watcher.send("OBS")
    await watcher.expect("YES ( OBS )", "MAP ( 'STANDARD' )")
    await watcher.send("YES ( MAP ( 'STANDARD' ) )")
    return watcher


async def test_scripted_game_to_an_agreed_draw(nursery: trio.Nursery, tmp_path: Path) -> None:
    server, port = await start_server(nursery, tmp_path / "g.db")
    watcher = await observe(port)
    clients = await start_game(port)
    now = await play_script(clients, "AUT 1901")
    # No SCO after a movement phase followed by retreats (docs/protocol.md §19.5).
    fall = clients["TUR"].log[clients["TUR"].log.index(now) - 23:]
    assert not any(m.startswith("SCO") for m in fall)
    assert "ORD ( FAL 1901 ) ( ( TUR AMY BUL ) HLD ) ( RET )" in fall
    assert "( TUR AMY BUL MRT ( CON ) )" in now
    # MIS in a retreat phase: the dislodged unit with its MRT list (8.3).
    await clients["TUR"].send("MIS")
    await clients["TUR"].expect("MIS ( TUR AMY BUL MRT ( CON ) )")
    await clients["ENG"].send("MIS")
    await clients["ENG"].expect("MIS")
    tur = clients["TUR"]
    await tur.send("SUB ( ( TUR AMY BUL ) RTO SER )")
    await tur.expect("THX ( ( TUR AMY BUL ) RTO SER ) ( NVR )",
                     "MIS ( TUR AMY BUL MRT ( CON ) )")
    now = await play_script(clients, "WIN 1901")
    # After the retreat: ORD, then the year's SCO, then NOW (8.4).
    log = clients["ENG"].log
    assert log[-3:] == ["ORD ( AUT 1901 ) ( ( TUR AMY BUL ) RTO CON ) ( SUC )", END_OF_1901_SCO, now]
    # Builds: MIS (-n) counts builds still owed; bad and surplus orders get notes.
    fra = clients["FRA"]
    await fra.send("MIS")
    await fra.expect("MIS ( -3 )")
    await fra.send("SUB ( ( FRA AMY MUN ) BLD ) ( ( FRA FLT PAR ) BLD )")
    await fra.expect("THX ( ( FRA AMY MUN ) BLD ) ( HSC )", "THX ( ( FRA FLT PAR ) BLD ) ( CST )",
                     "MIS ( -3 )")
    aus = clients["AUS"]
    await aus.send("SUB ( AUS WVE ) ( AUS WVE ) ( AUS WVE ) ( ENG WVE )")
    await aus.expect("THX ( AUS WVE ) ( MBV )", "THX ( AUS WVE ) ( MBV )",
                     "THX ( AUS WVE ) ( NMB )", "THX ( ENG WVE ) ( NYU )")
    await aus.send("NOT ( SUB )")
    await aus.expect("YES ( NOT ( SUB ) )")
    now = await play_script(clients, "SPR 1902")
    winter = log[log.index(END_OF_1901_SCO) + 2:]
    assert winter[:2] == ["THX ( ( ENG FLT LON ) BLD ) ( MBV )", "ORD ( WIN 1901 ) ( AUS WVE ) ( SUC )"]
    assert "ORD ( WIN 1901 ) ( ( ENG FLT LON ) BLD ) ( SUC )" in winter
    assert "ORD ( WIN 1901 ) ( ( FRA AMY PAR ) BLD ) ( SUC )" in winter
    assert not any(m.startswith("SCO") for m in winter)     # SCO once a year only
    assert "( ENG FLT LON )" in now and "( FRA AMY PAR )" in now
    # Bare ORD: the last movement phase's results and everything after it.
    await clients["ITA"].send("ORD")
    results = [await clients["ITA"].receive() for _ in range(22 + 1 + 11)]
    assert results[0].startswith("ORD ( FAL 1901 )") and results[-1].startswith("ORD ( WIN 1901 )")
    # HST: that phase's ORDs, then SCO and NOW after it.
    await clients["ITA"].send("HST ( AUT 1901 )")
    await clients["ITA"].expect("ORD ( AUT 1901 ) ( ( TUR AMY BUL ) RTO CON ) ( SUC )",
                                END_OF_1901_SCO)
    assert (await clients["ITA"].receive()).startswith("NOW ( WIN 1901 )")
    await clients["ITA"].send("HST ( SPR 1907 )")
    await clients["ITA"].expect("REJ ( HST ( SPR 1907 ) )")
    # Everyone votes for the draw; it lapses at the turn end, so all in SPR 1902.
    for power in POWERS:
        await clients[power].send("DRW")
        await clients[power].expect("YES ( DRW )")
        if power == "AUS":
            await clients[power].send("NOT ( DRW )")
            await clients[power].expect("YES ( NOT ( DRW ) )")
            await clients[power].send("DRW")
            await clients[power].expect("YES ( DRW )")
    smr = ("SMR ( SPR 1902 ) ( AUS ( 'AUS:bot' ) ( '1.0' ) 5 ) ( ENG ( 'ENG:bot' ) ( '1.0' ) 4 )"
           " ( FRA ( 'FRA:bot' ) ( '1.0' ) 6 ) ( GER ( 'GER:bot' ) ( '1.0' ) 5 )"
           " ( ITA ( 'ITA:bot' ) ( '1.0' ) 4 ) ( RUS ( 'RUS:bot' ) ( '1.0' ) 6 )"
           " ( TUR ( 'TUR:bot' ) ( '1.0' ) 3 )")
    for client in [*clients.values(), watcher]:
        await client.receive_until("DRW")
        await client.expect(smr, "OFF")
        assert await client.expect_closed() == "FM"
        await client.stream.aclose()
    # The observer saw the whole game, as the players did.
    assert watcher.log.count(END_OF_1901_SCO) == 1
    server.stop()
    await trio.testing.wait_all_tasks_blocked()
    store = Store.open(tmp_path / "g.db")
    [game] = store.games()
    assert game.status == "finished" and game.ending == ("DRW", smr)
    assert [p.turn for p in store.phases(game.id)] == ["SPR 1901", "SPR 1901", "FAL 1901",
                                                       "AUT 1901", "WIN 1901"]
    store.close()


def near_solo(db: Path, settings: GameSettings | None = None) -> dict[str, int]:
    """A stored running game: France holds 17 centres, army in Tyrolia next to Vienna."""
    store = Store.open(db)
    game = store.create_game(settings or GameSettings())
    seats = [Seat(p, 100 + i, f"{p}-bot", "2.0") for i, p in enumerate(POWERS)]
    store.start_game(
        game, seats, "FAL 1905",
        "SCO ( AUS BUD TRI ) ( FRA BEL BER BRE DEN EDI HOL KIE LON LVP MAR MUN NWY PAR POR ROM SPA"
        " SWE ) ( ITA NAP TUN VEN ) ( RUS MOS RUM SEV STP WAR ) ( TUR ANK BUL CON SMY )"
        " ( UNO GRE SER VIE )",
        "NOW ( FAL 1905 ) ( AUS AMY BUD ) ( FRA AMY TYR ) ( FRA FLT NTH ) ( ITA AMY VEN )"
        " ( RUS AMY WAR ) ( TUR AMY BUL )")
    store.close()
    return {s.power: s.passcode for s in seats}


async def test_solo_in_a_resumed_game(nursery: trio.Nursery, tmp_path: Path,
                                      clock: trio.testing.MockClock) -> None:
    codes = near_solo(tmp_path / "g.db")
    server, port = await start_server(nursery, tmp_path / "g.db")
    fra = await ScriptClient.connect(port, "france")
    await fra.send(f"IAM ( FRA ) ( {codes['FRA']} )")
    await fra.expect(f"YES ( IAM ( FRA ) ( {codes['FRA']} ) )", "NOT ( CCD ( FRA ) )")
    await fra.send("HLO")
    await fra.expect(f"HLO ( FRA ) ( {codes['FRA']} ) ( ( LVL 0 ) )")
    aus = await ScriptClient.connect(port, "austria")
    await aus.send(f"IAM ( AUS ) ( {codes['AUS']} )")
    await aus.expect(f"YES ( IAM ( AUS ) ( {codes['AUS']} ) )", "NOT ( CCD ( AUS ) )")
    await fra.expect("NOT ( CCD ( AUS ) )")
    await aus.send("SUB ( ( AUS AMY BUD ) HLD )")
    await aus.expect("THX ( ( AUS AMY BUD ) HLD ) ( MBV )")
    await fra.send("SUB ( ( FRA AMY TYR ) MTO VIE ) ( ( FRA FLT NTH ) HLD )")
    await fra.expect("THX ( ( FRA AMY TYR ) MTO VIE ) ( MBV )", "THX ( ( FRA FLT NTH ) HLD ) ( MBV )")
    # ITA, RUS and TUR are in civil disorder: waited for during their grace
    # (60 s after the restart, jumped over by the mock clock), then not.
    seen = await fra.receive_until("SMR")
    assert seen[-4].startswith("SCO ( AUS BUD TRI ) ( FRA BEL BER BRE DEN EDI HOL KIE LON")
    assert seen[-3] == "SLO ( FRA )"
    assert seen[-2].startswith("NOW ( WIN 1905 )")
    # The SMR names the turn the game reached - the final NOW's (docs/protocol.md §8.10).
    assert seen[-1] == (
        "SMR ( WIN 1905 ) ( AUS ( 'AUS-bot' ) ( '2.0' ) 2 ) ( ENG ( 'ENG-bot' ) ( '2.0' ) 0 1904 )"
        " ( FRA ( 'FRA-bot' ) ( '2.0' ) 18 ) ( GER ( 'GER-bot' ) ( '2.0' ) 0 1904 )"
        " ( ITA ( 'ITA-bot' ) ( '2.0' ) 3 ) ( RUS ( 'RUS-bot' ) ( '2.0' ) 5 )"
        " ( TUR ( 'TUR-bot' ) ( '2.0' ) 4 )")
    await fra.expect("OFF")
    for c in (fra, aus):
        await c.stream.aclose()


async def test_house_rule_max_year_ends_after_the_years_last_autumn_phase(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db", max_year=1901)
    clients = await start_game(port)
    await play_script(clients, "WIN 1901")
    rus = clients["RUS"]
    await rus.receive_until("SMR")                 # no winter is played: the game ends
    log = rus.log
    end = log.index(END_OF_1901_SCO)
    assert log[end - 1] == "ORD ( AUT 1901 ) ( ( TUR AMY BUL ) RTO CON ) ( SUC )"
    assert log[end + 1].startswith("NOW ( WIN 1901 )")
    assert log[end + 2:end + 4] == ["DRW", (
        "SMR ( WIN 1901 ) ( AUS ( 'AUS:bot' ) ( '1.0' ) 5 ) ( ENG ( 'ENG:bot' ) ( '1.0' ) 4 )"
        " ( FRA ( 'FRA:bot' ) ( '1.0' ) 6 ) ( GER ( 'GER:bot' ) ( '1.0' ) 5 )"
        " ( ITA ( 'ITA:bot' ) ( '1.0' ) 4 ) ( RUS ( 'RUS:bot' ) ( '1.0' ) 6 )"
        " ( TUR ( 'TUR:bot' ) ( '1.0' ) 3 )")]
    await clients["RUS"].expect("OFF")
    for client in clients.values():
        await client.stream.aclose()


async def test_press_relay_at_level_10(nursery: trio.Nursery, tmp_path: Path) -> None:
    codes = near_solo(tmp_path / "g.db", GameSettings(level=10))
    _server, port = await start_server(nursery, tmp_path / "g.db")
    joined = {}
    for power in ("FRA", "AUS"):
        client = await ScriptClient.connect(port, power)
        await client.send(f"IAM ( {power} ) ( {codes[power]} )")
        await client.receive_until("NOT ( CCD")
        joined[power] = client
    fra, aus = joined["FRA"], joined["AUS"]
    await fra.expect("NOT ( CCD ( AUS ) )")
    await aus.send("SND ( FRA ) ( PRP ( PCE ( AUS FRA ) ) )")
    await aus.expect("YES ( SND ( FRA ) ( PRP ( PCE ( AUS FRA ) ) ) )")
    await fra.expect("FRM ( AUS ) ( FRA ) ( PRP ( PCE ( AUS FRA ) ) )")
    await aus.send("SND ( ITA ) ( PRP ( PCE ( AUS ITA ) ) )")
    await aus.expect("CCD ( ITA )")                  # ITA is in civil disorder (16.1)
    await aus.send("SND ( ENG ) ( PRP ( DRW ) )")
    await aus.expect("OUT ( ENG )")                  # ENG is eliminated
    await aus.send("SND ( AUS FRA ) ( PRP ( DRW ) )")
    await aus.expect("REJ ( SND ( AUS FRA ) ( PRP ( DRW ) ) )")   # the sender among recipients
    await aus.send("SND ( SPR 1901 ) ( FRA ) ( PRP ( DRW ) )")
    await aus.expect("REJ ( SND ( SPR 1901 ) ( FRA ) ( PRP ( DRW ) ) )")  # not the current turn
    for client in (fra, aus):
        await client.close()
