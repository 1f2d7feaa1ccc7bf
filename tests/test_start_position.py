"""Games from a given position (``daide serve --start-from FILE``).

* the DATC's retreat situations (a dislodged unit with options, one with
  none) and adjustment situations (builds owed, builds owed with no free home
  centre, removals owed) as start positions of real games over TCP, the
  phase completed by the project's bots;
* a position the map cannot hold is a one-line error of ``daide serve``;
* a server restarted on the database resumes such a game from its stored
  phases, not from the map's start.

The positions are the DATC v3.0 cases' (section and case named with each);
where a case gives no SCO, the map's starting ownership is the game's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from bots.client import BotClient, ClientSettings
from bots.registry import make_strategy
from bots.runner import run_clients
from engine.variants import load_variant
from server.settings import GameSettings, SettingsError
from server.start_position import check_start, starting_engine
from server.store import Store
from tests.cli_helpers import daide, one_error_line
from tests.server_helpers import POWERS, ScriptClient, start_server

# DATC 6.H.1: two dislodged fleets, each with options (Trieste: ADR ALB; Greece: ALB, BUL/SC).
RETREAT_WITH_OPTIONS = (
    "NOW ( SUM 1901 ) ( AUS FLT TRI MRT ( ADR ALB ) ) ( AUS AMY SER ) "
    "( TUR FLT GRE MRT ( ALB ( BUL SCS ) ) ) ( ITA AMY VEN ) ( ITA AMY TRI ) ( ITA FLT GRE ) "
    "( ITA FLT AEG )")
# DATC 6.D.8: the Turkish army in Greece is dislodged with nowhere to go (MRT ( )).
RETREAT_NOWHERE = ("NOW ( SUM 1901 ) ( AUS FLT ION ) ( AUS AMY SER ) ( AUS AMY GRE ) "
                   "( TUR AMY GRE MRT ( ) ) ( TUR AMY BUL )")
_UNO_BUT_RUS = ("( UNO ANK BEL BER BRE BUD BUL CON DEN EDI GRE HOL KIE LON LVP MAR MUN NAP NWY "
                "PAR POR ROM RUM SER SMY SPA SWE TRI TUN VEN VIE )")
# DATC 6.I.7: Russia owns four centres, has two units: two builds owed, Moscow and St Petersburg free.
BUILDS_OWED = ("SCO ( RUS MOS SEV STP WAR ) " + _UNO_BUT_RUS + "\n"
               "NOW ( WIN 1901 ) ( RUS FLT SEV ) ( RUS AMY WAR )")
# DATC 6.I.3 with Munich occupied too: Germany owes a build and has no free home centre.
NO_FREE_HOME = ("SCO ( GER BER KIE MUN DEN ) ( UNO ANK BEL BRE BUD BUL CON EDI GRE HOL LON LVP "
                "MAR MOS NAP NWY PAR POR ROM RUM SER SEV SMY SPA STP SWE TRI TUN VEN VIE WAR )\n"
                "NOW ( WIN 1901 ) ( GER AMY BER ) ( GER FLT KIE ) ( GER AMY MUN )")
# DATC 6.J.2: France owns Paris and has three armies: two removals owed.
REMOVALS_OWED = ("SCO ( FRA PAR ) ( UNO ANK BEL BER BRE BUD BUL CON DEN EDI GRE HOL KIE LON LVP "
                 "MAR MOS MUN NAP NWY POR ROM RUM SER SEV SMY SPA STP SWE TRI TUN VEN VIE WAR )\n"
                 "NOW ( WIN 1901 ) ( FRA AMY PAR ) ( FRA AMY PIC ) ( FRA AMY MUN )")

LINEUP = ("holdbot", "randbot", "dumbbot", "dumbbot", "randbot", "dumbbot", "holdbot")


async def play_from(tmp_path: Path, start: str, max_year: int) -> list[list[str]]:
    """A game from ``start`` played by the project's bots to ``max_year``; every
    processed phase's stored messages (ORD..., SCO, NOW)."""
    db = tmp_path / "games.db"
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, db, start=start, max_year=max_year)
        clients = [BotClient(make_strategy(name),
                             ClientSettings(port=port, name=f"{power}:{name}", seed=i))
                   for i, (power, name) in enumerate(zip(POWERS, LINEUP, strict=True))]
        with trio.fail_after(60):
            outcomes = await run_clients(clients)
        assert [o.error for o in outcomes] == [None] * 7
        assert all(not c.problems for c in clients), [c.problems for c in clients]
        server.stop()
    store = Store.open(db)
    try:
        phases = store.phases(1)
    finally:
        store.close()
    assert phases[0].turn == start.splitlines()[-1].split(" ) ")[0][len("NOW ( "):]
    return [list(p.messages) for p in phases[1:]]


def ords(messages: list[str]) -> list[str]:
    return [m for m in messages if m.startswith("ORD")]


async def test_a_dislodged_unit_with_options_retreats_or_disbands(tmp_path: Path) -> None:
    first, *_ = await play_from(tmp_path, RETREAT_WITH_OPTIONS, 1901)
    results = ords(first)
    # Both dislodged fleets got an order of their own (retreat or disband), nothing else did.
    assert len(results) == 2, first
    assert any("( AUS FLT TRI ) RTO" in r or "( AUS FLT TRI ) DSB" in r for r in results)
    assert any("( TUR FLT GRE ) RTO" in r or "( TUR FLT GRE ) DSB" in r for r in results)
    assert all(r.startswith("ORD ( SUM 1901 )") for r in results)
    assert first[-1].startswith("NOW ( FAL 1901 )") and "MRT" not in first[-1]


async def test_a_dislodged_unit_with_nowhere_to_go_is_disbanded(tmp_path: Path) -> None:
    first, *_ = await play_from(tmp_path, RETREAT_NOWHERE, 1901)
    assert ords(first) == ["ORD ( SUM 1901 ) ( ( TUR AMY GRE ) DSB ) ( SUC )"]
    assert first[-1].startswith("NOW ( FAL 1901 )") and "TUR AMY GRE" not in first[-1]


async def test_builds_owed_are_built(tmp_path: Path) -> None:
    first, *_ = await play_from(tmp_path, BUILDS_OWED, 1902)
    builds = [r for r in ords(first) if " BLD )" in r]
    assert len(builds) == 2, first
    assert all("MOS" in b or "STP" in b for b in builds)
    assert first[-1].startswith("NOW ( SPR 1902 )") and first[-1].count("( RUS ") == 4


async def test_a_build_owed_with_no_free_home_centre_is_waived(tmp_path: Path) -> None:
    first, *_ = await play_from(tmp_path, NO_FREE_HOME, 1902)
    assert not any(" BLD )" in r for r in ords(first)), first
    assert first[-1].count("( GER ") == 3


async def test_removals_owed_are_removed(tmp_path: Path) -> None:
    first, *_ = await play_from(tmp_path, REMOVALS_OWED, 1902)
    removals = [r for r in ords(first) if " REM )" in r]
    assert len(removals) == 2, first
    assert first[-1].startswith("NOW ( SPR 1902 )") and first[-1].count("( FRA ") == 1


async def test_a_restarted_server_resumes_the_game_from_its_stored_phases(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    server, port = await start_server(nursery, db, start=REMOVALS_OWED)
    clients: dict[str, ScriptClient] = {}
    for power in POWERS:
        client = await ScriptClient.connect(port, f"{power}:script")
        await client.join()
        clients[power] = client
    for client in clients.values():
        now = (await client.receive_until("NOW"))[-1]
        assert now == "NOW ( WIN 1901 ) ( FRA AMY MUN ) ( FRA AMY PAR ) ( FRA AMY PIC )"
    await clients["FRA"].send("SUB ( ( FRA AMY MUN ) REM )")
    await clients["FRA"].expect("THX ( ( FRA AMY MUN ) REM ) ( MBV )")
    codes = {p: c.passcode for p, c in clients.items()}
    server.stop()
    for client in clients.values():
        await client.receive_until("OFF")
        await client.stream.aclose()

    # The second server has no start position of its own: the stored game is what counts.
    _, port = await start_server(nursery, db)
    france = await ScriptClient.connect(port, "FRA:script")
    await france.send(f"IAM ( FRA ) ( {codes['FRA']} )")
    await france.expect(f"YES ( IAM ( FRA ) ( {codes['FRA']} ) )")
    await france.send("NOW")
    assert (await france.receive_until("NOW"))[-1] == (
        "NOW ( WIN 1901 ) ( FRA AMY MUN ) ( FRA AMY PAR ) ( FRA AMY PIC )")
    # The removal accepted before the restart still counts: one more is owed.
    await france.send("MIS")
    assert (await france.receive_until(lambda m: m.startswith("MIS")))[-1] == "MIS ( 1 )"
    await france.send("SUB ( ( FRA AMY PIC ) REM )")
    await france.expect("THX ( ( FRA AMY PIC ) REM ) ( MBV )")
    await france.stream.aclose()


BAD_POSITIONS = [
    ("NOW ( SPR 1901 ) ( ENG AMY NTH )", "ENG AMY NTH - an army cannot stand at NTH"),
    ("NOW ( SPR 1901 ) ( GER FLT MUN )", "GER FLT MUN - a fleet cannot stand at MUN"),
    ("NOW ( SPR 1901 ) ( RUS FLT ( STP ECS ) )", "a fleet cannot stand at STP/ECS"),
    ("NOW ( SPR 1901 ) ( RUS FLT STP )", "RUS FLT STP - a fleet cannot stand at STP"),
    ("NOW ( SPR 1901 ) ( FRA AMY PAR ) ( GER AMY PAR )", "two units in PAR"),
    ("NOW ( SUM 1901 ) ( ITA AMY TRI ) ( AUS AMY TRI MRT ( VEN ) ) ( ITA AMY VEN )",
     "AUS AMY TRI cannot retreat to VEN: a unit holds VEN"),
    ("NOW ( SUM 1901 ) ( ITA AMY TRI ) ( AUS AMY TRI MRT ( ADR ) )",
     "AUS AMY TRI cannot retreat to ADR: not a place it reaches in one move"),
    ("NOW ( SUM 1901 ) ( AUS AMY TRI MRT ( VIE ) )",
     "AUS AMY TRI is dislodged, but no unit holds TRI"),
    ("NOW ( SPR 1901 ) ( ITA AMY TRI ) ( AUS AMY TRI MRT ( VIE ) )",
     "MRT lists in SPR 1901, which is not a retreat phase"),
    ("SCO ( FRA PAR ) ( ENG KIE LON )\nNOW ( SPR 1901 ) ( FRA AMY PAR )", None),
    ("SCO ( FRA PAR NTH )\nNOW ( SPR 1901 ) ( FRA AMY PAR )", "NTH is not a supply centre"),
    ("NOW ( SPR 1900 ) ( FRA AMY PAR )", "SPR 1900 is before the map's first turn, SPR 1901"),
    ("SCO ( FRA PAR )", "no NOW message"),
    ("NOW ( SPR 1901 ) ( FRA AMY PAR )\nNOW ( FAL 1901 ) ( FRA AMY PAR )", "2 NOW messages"),
    ("HLO ( FRA ) ( 1 ) ( ( LVL 0 ) )", "expected an NOW or SCO message, not HLO"),
]


def test_a_valid_start_needs_no_sco_and_gives_its_position() -> None:
    engine = starting_engine(load_variant("standard"), GameSettings(start=RETREAT_NOWHERE))
    assert (engine.season, engine.state.phase.year) == ("SUM", 1901)
    assert engine.owing() == frozenset({"TUR"})
    assert engine.state.ownership["PAR"] == "FRA"        # the map's starting ownership


@pytest.mark.parametrize(("text", "fault"), BAD_POSITIONS)
def test_a_position_the_map_cannot_hold_is_refused(text: str, fault: str | None) -> None:
    if fault is None:           # a legal position (Kiel owned by England): accepted
        check_start(load_variant("standard"), GameSettings(start=text))
        return
    with pytest.raises(SettingsError) as error:
        check_start(load_variant("standard"), GameSettings(start=text))
    message = str(error.value)
    assert "\n" not in message and message.startswith("start position: ")
    assert fault in message


def test_daide_serve_refuses_a_bad_start_position_in_one_line(tmp_path: Path) -> None:
    position = tmp_path / "bad.txt"
    position.write_text("# a fleet inland\nNOW ( SPR 1901 ) ( GER FLT MUN )\n", encoding="utf-8")
    done = daide("serve", "--port", "0", "--db", str(tmp_path / "g.db"), "--start-from",
                 str(position))
    assert done.returncode == 1
    assert one_error_line(done, "serve") == (
        "daide serve: error: start position: NOW: GER FLT MUN - a fleet cannot stand at MUN")
    missing = daide("serve", "--port", "0", "--db", str(tmp_path / "g.db"), "--start-from",
                    str(tmp_path / "absent.txt"))
    assert "No such file" in one_error_line(missing, "serve")
    # A centre owned by a non-power: UNO is neutral, XYZ is nobody.
    position.write_text("SCO ( XYZ PAR )\nNOW ( SPR 1901 ) ( FRA AMY PAR )\n", encoding="utf-8")
    done = daide("serve", "--port", "0", "--db", str(tmp_path / "g.db"), "--start-from",
                 str(position))
    assert "daide serve: error: start position: SCO: " in one_error_line(done, "serve")
