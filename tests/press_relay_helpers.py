"""Helpers for the press relay tests: games at a press level, a stored game
with eliminated powers, and checks that a client got nothing unexpected."""

from __future__ import annotations

from pathlib import Path

import trio

from server.app import Server
from server.settings import GameSettings
from server.store import Seat, Store
from tests.server_helpers import POWERS, ScriptClient, start_game, start_server

#: A spring 1905 position in which ENG and GER are eliminated (no centres, no units).
SPRING_1905_SCO = (
    "SCO ( AUS BUD TRI VIE ) ( FRA BEL BER BRE DEN EDI HOL KIE LON LVP MAR MUN PAR POR SPA )"
    " ( ITA NAP ROM TUN VEN ) ( RUS MOS NWY SEV STP SWE WAR ) ( TUR ANK BUL CON SMY )"
    " ( UNO GRE RUM SER )")
SPRING_1905_NOW = (
    "NOW ( SPR 1905 ) ( AUS AMY BUD ) ( AUS AMY VIE ) ( AUS FLT TRI ) ( FRA AMY PAR )"
    " ( FRA FLT BRE ) ( ITA AMY ROM ) ( RUS AMY MOS ) ( TUR FLT ANK )")


async def level_game(nursery: trio.Nursery, db: Path, **settings: object
                     ) -> tuple[Server, int, dict[str, ScriptClient]]:
    """A server with these game settings and a started game of seven scripted clients."""
    server, port = await start_server(nursery, db, **settings)
    return server, port, await start_game(port)


def store_eliminated_game(db: Path, settings: GameSettings) -> dict[str, int]:
    """A stored running game in SPR 1905 with ENG and GER eliminated; the passcodes."""
    store = Store.open(db)
    game = store.create_game(settings)
    seats = [Seat(p, 200 + i, f"{p}-bot", "2.0") for i, p in enumerate(POWERS)]
    store.start_game(game, seats, "SPR 1905", SPRING_1905_SCO, SPRING_1905_NOW)
    store.close()
    return {s.power: s.passcode for s in seats}


async def rejoin(port: int, power: str, passcode: int) -> ScriptClient:
    """A client that comes back to its power with IAM (reads up to its own NOT (CCD))."""
    client = await ScriptClient.connect(port, power)
    await client.send(f"IAM ( {power} ) ( {passcode} )")
    await client.expect(f"YES ( IAM ( {power} ) ( {passcode} ) )", f"NOT ( CCD ( {power} ) )")
    return client


async def nothing_more(*clients: ScriptClient) -> None:
    """Each client has nothing queued: its next message is the answer to a bare SCO.

    The game actor answers in order, so anything it queued for the client
    before (an FRM, say) would come first.
    """
    for client in clients:
        await client.send("SCO")
        got = await client.receive()
        assert got.startswith("SCO ( "), f"{client.name}: unexpected {got!r}"


async def close_all(clients: dict[str, ScriptClient]) -> None:
    for client in clients.values():
        await client.close()
