"""Partial draws (PDA) over real TCP: DRW (powers), NOT (DRW ...), the draw
every survivor asked for ends the game (docs/protocol.md §8.10, 16.2)."""

from __future__ import annotations

from pathlib import Path

import trio

from server.export import export_game
from server.store import Store
from tests.press_relay_helpers import level_game, nothing_more
from tests.server_helpers import POWERS

SMR = ("SMR ( SPR 1901 ) ( AUS ( 'AUS:bot' ) ( '1.0' ) 3 ) ( ENG ( 'ENG:bot' ) ( '1.0' ) 3 )"
       " ( FRA ( 'FRA:bot' ) ( '1.0' ) 3 ) ( GER ( 'GER:bot' ) ( '1.0' ) 3 )"
       " ( ITA ( 'ITA:bot' ) ( '1.0' ) 3 ) ( RUS ( 'RUS:bot' ) ( '1.0' ) 4 )"
       " ( TUR ( 'TUR:bot' ) ( '1.0' ) 3 )")


async def test_partial_draw_when_every_survivor_asks_for_the_same_set(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, _port, clients = await level_game(nursery, tmp_path / "g.db", level=10, pda=True)
    eng, tur = clients["ENG"], clients["TUR"]
    await eng.send("SND ( FRA GER ) ( PRP ( DRW ( ENG FRA GER ) ) )")
    await eng.expect("YES ( SND ( FRA GER ) ( PRP ( DRW ( ENG FRA GER ) ) ) )")
    for power in ("FRA", "GER"):
        await clients[power].expect("FRM ( ENG ) ( FRA GER ) ( PRP ( DRW ( ENG FRA GER ) ) )")
    # A draw needs at least two powers (16.2).
    for refused in ("DRW ( ENG )", "DRW ( ENG ENG )"):
        await eng.send(refused)
        await eng.expect(f"REJ ( {refused} )")
    for power in POWERS:
        if power != "TUR":
            await clients[power].send("DRW ( ENG FRA GER )")
            await clients[power].expect("YES ( DRW ( ENG FRA GER ) )")
    await tur.send("DRW ( ENG FRA )")
    await tur.expect("YES ( DRW ( ENG FRA ) )")
    await nothing_more(*clients.values())       # six sets agree, one does not: no draw
    # NOT (DRW (powers)) cancels one set; a bare NOT (DRW) only the bare vote.
    await tur.send("NOT ( DRW ( ENG FRA ) )")
    await tur.expect("YES ( NOT ( DRW ( ENG FRA ) ) )")
    await eng.send("DRW")
    await eng.expect("YES ( DRW )")
    await eng.send("NOT ( DRW )")
    await eng.expect("YES ( NOT ( DRW ) )")
    await nothing_more(*clients.values())
    # The seventh survivor asks for the same set (in another order): the draw.
    await tur.send("DRW ( GER FRA ENG )")
    await tur.expect("YES ( DRW ( GER FRA ENG ) )")
    for client in clients.values():
        await client.expect("DRW ( ENG FRA GER )", SMR, "OFF")
        assert await client.expect_closed() == "FM"
        await client.stream.aclose()

    store = Store.open(tmp_path / "g.db")
    try:
        record = store.game(1)
        text, _data = export_game(store, 1)
    finally:
        store.close()
    assert record.status == "finished"
    assert record.ending == ("DRW ( ENG FRA GER )", SMR)
    assert text.splitlines()[-3:] == [
        "FRM ( ENG ) ( FRA GER ) ( PRP ( DRW ( ENG FRA GER ) ) )", "DRW ( ENG FRA GER )", SMR]
