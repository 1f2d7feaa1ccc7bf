"""The Level 0 requests of a running game and their YES/REJ/HUH forms (docs/protocol.md §8.13)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from protocol.text import tree_from_text
from tests.server_helpers import POWERS, ScriptClient, holds, start_game, start_server


@pytest.fixture
async def game(nursery: trio.Nursery, tmp_path: Path) -> dict[str, ScriptClient]:
    _server, port = await start_server(nursery, tmp_path / "g.db")
    return await start_game(port)


async def test_orders_thx_mis_and_cancelling(game: dict[str, ScriptClient]) -> None:
    eng = game["ENG"]
    await eng.send("SUB ( FAL 1901 ) ( ( ENG FLT LON ) HLD )")
    await eng.expect("REJ ( SUB ( FAL 1901 ) ( ( ENG FLT LON ) HLD ) )")
    await eng.send("SUB ( SPR 1901 ) ( ( ENG FLT LON ) MTO NTH ) ( ( ENG FLT EDI ) MTO LON )"
                   " ( ( FRA AMY PAR ) HLD ) ( ( ENG AMY LVP ) MTO MOS )")
    await eng.expect("THX ( ( ENG FLT LON ) MTO NTH ) ( MBV )", "THX ( ( ENG FLT EDI ) MTO LON ) ( FAR )",
                     "THX ( ( FRA AMY PAR ) HLD ) ( NYU )", "THX ( ( ENG AMY LVP ) MTO MOS ) ( FAR )",
                     "MIS ( ENG FLT EDI ) ( ENG AMY LVP )")
    await eng.send("NOT ( SUB ( ( ENG FLT EDI ) HLD ) )")
    await eng.expect("REJ ( NOT ( SUB ( ( ENG FLT EDI ) HLD ) ) )")
    await eng.send("NOT ( SUB ( ( ENG FLT LON ) MTO NTH ) )")
    await eng.expect("YES ( NOT ( SUB ( ( ENG FLT LON ) MTO NTH ) ) )")
    await eng.send("MIS")
    await eng.expect("MIS ( ENG FLT EDI ) ( ENG FLT LON ) ( ENG AMY LVP )")
    # A later order for the same unit replaces the earlier one (8.3).
    await eng.send("SUB ( ( ENG FLT LON ) HLD ) ( ( ENG FLT EDI ) HLD ) ( ( ENG AMY LVP ) HLD )"
                   " ( ( ENG FLT LON ) MTO ECH )")
    for _ in range(4):
        assert (await eng.receive()).endswith("( MBV )")
    await eng.send("MIS")
    await eng.expect("MIS")
    await eng.send("NOT ( SUB )")
    await eng.expect("YES ( NOT ( SUB ) )")
    await eng.send("MIS")
    await eng.expect("MIS ( ENG FLT EDI ) ( ENG FLT LON ) ( ENG AMY LVP )")
    await eng.send("ORD")
    await eng.expect("REJ ( ORD )")           # nothing processed yet
    await eng.send("HST")                     # bare HST: the starting SCO and NOW
    assert (await eng.receive()).startswith("SCO ( AUS BUD TRI VIE )")
    assert (await eng.receive()).startswith("NOW ( SPR 1901 )")
    for client in game.values():
        await client.close()


async def test_not_gof_holds_the_turn_until_gof(game: dict[str, ScriptClient]) -> None:
    now = game["ENG"].log[-1]
    await game["FRA"].send("NOT ( GOF )")
    await game["FRA"].expect("YES ( NOT ( GOF ) )")
    for power, client in game.items():
        sub = holds(now, power)
        await client.send(sub)
        for _ in range(len(tree_from_text(sub)) - 1):
            assert (await client.receive()).endswith("HLD ) ( MBV )")
    # Everyone has complete orders, but FRA asked to wait: nothing is processed.
    await game["ENG"].send("NOW")
    assert (await game["ENG"].receive()).startswith("NOW ( SPR 1901 )")
    await game["FRA"].send("GOF")
    await game["FRA"].expect("YES ( GOF )")
    for client in game.values():
        seen = await client.receive_until("NOW")
        assert seen[-1].startswith("NOW ( FAL 1901 )")
    for client in game.values():
        await client.close()


async def test_draw_votes_adm_and_smr(game: dict[str, ScriptClient]) -> None:
    eng = game["ENG"]
    await eng.send("NOT ( DRW )")
    await eng.expect("YES ( NOT ( DRW ) )")
    await eng.send("SMR")
    await eng.expect("REJ ( SMR )")
    await eng.send("ADM ( 'England' ) ( 'back in five minutes' )")
    for client in game.values():
        await client.expect("ADM ( 'England' ) ( 'back in five minutes' )")
    await eng.send("GOF")
    await eng.expect("YES ( GOF )", "MIS ( ENG FLT EDI ) ( ENG FLT LON ) ( ENG AMY LVP )")
    await eng.send("HLO")
    await eng.expect(f"HLO ( ENG ) ( {eng.passcode} ) ( ( LVL 0 ) )")
    await eng.send("TME")
    await eng.expect("REJ ( TME )")           # this game has no deadlines
    await eng.send("TME ( 10 )")
    await eng.expect("REJ ( TME ( 10 ) )")
    await eng.send("DRW ( ENG FRA )")         # partial draws need level 10
    await eng.expect("HUH ( DRW ERR ( ENG FRA ) )")
    for client in game.values():
        await client.close()


async def test_two_games_side_by_side_do_not_touch(nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db")
    first = await start_game(port)
    second = await start_game(port)
    # Same powers in both games: orders go to the sender's own game.
    now = first["ENG"].log[-1]
    for power in POWERS:
        await first[power].send(holds(now, power))
    for client in first.values():
        assert (await client.receive_until("NOW"))[-1].startswith("NOW ( FAL 1901 )")
    await second["ENG"].send("NOW")
    assert (await second["ENG"].receive()).startswith("NOW ( SPR 1901 )")
    await second["ENG"].send("ORD")
    await second["ENG"].expect("REJ ( ORD )")
    # A player leaving one game puts its power in disorder there only.
    await second["GER"].drop()
    for power in POWERS:
        if power != "GER":
            await second[power].expect("CCD ( GER )")
    await first["GER"].send("NOW")
    assert (await first["GER"].receive()).startswith("NOW ( FAL 1901 )")
    # Passcodes route IAM to the right game.
    code = second["GER"].passcode
    back = await ScriptClient.connect(port, "ger")
    await back.send(f"IAM ( GER ) ( {code} )")
    await back.expect(f"YES ( IAM ( GER ) ( {code} ) )", "NOT ( CCD ( GER ) )")
    await back.send("NOW")
    assert (await back.receive()).startswith("NOW ( SPR 1901 )")
    for client in [*first.values(), *second.values(), back]:
        if client is not second["GER"]:
            await client.close()


async def test_player_commands_before_the_start_are_rejected(nursery: trio.Nursery,
                                                             tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db")
    c = await ScriptClient.connect(port, "early")
    await c.join()
    for request in ("MIS", "GOF", "NOT ( GOF )", "DRW", "NOT ( DRW )", "ORD", "HLO",
                    "NOT ( SUB )", "TME"):
        await c.send(request)
        await c.expect(f"REJ ( {request} )")
    # HUH and PRN from a client are never answered; YES (SVE) is ignored.
    await c.send("HUH ( ERR NOW )")
    await c.send("YES ( SVE ( 'game' ) )")
    await c.send("NOW")
    assert (await c.receive()).startswith("NOW ( SPR 1901 )")
    await c.close()
