"""Killing the server at any moment loses nothing: a resumed game ends as an uninterrupted one.

The interrupted run uses the real `daide serve` in a subprocess, killed with
SIGKILL (no cleanup at all) in the middle of a phase; the reference run is
an in-process server.  Both play the same scripted orders to an agreed draw
and must leave the same game record.
"""

from __future__ import annotations

import signal
from pathlib import Path

import trio

from server.export import export_game
from server.store import Store
from tests.server_helpers import POWERS, ScriptClient, ServeProcess, join_game, start_server
from tests.server_script import play_script, submit, turn_of


async def draw(clients: dict[str, ScriptClient]) -> None:
    for client in clients.values():
        await client.send("DRW")
        await client.expect("YES ( DRW )")
    for client in clients.values():
        await client.receive_until("SMR")
        await client.expect("OFF")
        await client.stream.aclose()


async def test_killed_mid_phase_and_resumed_ends_like_an_uninterrupted_game(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    # The reference: one uninterrupted game.
    server, port = await start_server(nursery, tmp_path / "reference.db")
    clients = await join_game(port)
    for client in clients.values():
        await client.receive_until("NOW")
    await play_script(clients, "SPR 1902")
    await draw(clients)
    server.stop()

    # The same game, killed in FAL 1901 after four powers' orders were accepted.
    db = tmp_path / "killed.db"
    # --linger 0: OFF right after the SMR, as the in-process reference server does.
    first = await ServeProcess.start(nursery, db, "--linger", "0")
    clients = await join_game(first.port)
    for client in clients.values():
        await client.receive_until("NOW")
    now = await play_script(clients, "FAL 1901")
    await clients["RUS"].send("HST ( SPR 1901 )")
    spring = await clients["RUS"].receive_until("NOW")
    await submit(clients, now, ("ENG", "FRA", "GER", "AUS"))
    codes = {p: c.passcode for p, c in clients.items()}
    await first.kill()
    for client in clients.values():
        await client.stream.aclose()

    second = await ServeProcess.start(nursery, db, "--linger", "0")
    back: dict[str, ScriptClient] = {}
    for power in POWERS:
        client = await ScriptClient.connect(second.port, f"{power}:bot")
        await client.send(f"IAM ( {power} ) ( {codes[power]} )")
        await client.expect(f"YES ( IAM ( {power} ) ( {codes[power]} ) )")
        back[power] = client
        for earlier in back.values():     # NOT (CCD) goes to everyone who is back
            await earlier.expect(f"NOT ( CCD ( {power} ) )")
    await back["ENG"].send("NOW")
    now = await back["ENG"].receive()
    assert turn_of(now) == "FAL 1901"
    # The history was rebuilt from the database: HST answers as before the kill.
    await back["RUS"].send("HST ( SPR 1901 )")
    assert await back["RUS"].receive_until("NOW") == spring
    assert sum(m.startswith("ORD ( SPR 1901 )") for m in spring) == 22
    # The accepted orders survived the kill: only three powers still owe orders.
    await back["ENG"].send("MIS")
    await back["ENG"].expect("MIS")
    await back["ITA"].send("MIS")
    assert (await back["ITA"].receive()).startswith("MIS ( ITA ")
    await submit(back, now, ("ITA", "RUS", "TUR"))
    for client in back.values():
        await client.receive_until("NOW")
    await play_script(back, "SPR 1902")
    await draw(back)
    await second.kill()

    reference = Store.open(tmp_path / "reference.db")
    resumed = Store.open(db)
    assert export_game(resumed, 1)[0] == export_game(reference, 1)[0]
    assert [p.orders for p in resumed.phases(1)] == [p.orders for p in reference.phases(1)]
    reference.close()
    resumed.close()


async def test_sigterm_sends_off_and_closes_the_database(nursery: trio.Nursery, tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    proc = await ServeProcess.start(nursery, db, "--linger", "0")
    clients = await join_game(proc.port)
    lobbyist = await ScriptClient.connect(proc.port, "lobbyist")
    await lobbyist.send("MAP")
    await lobbyist.expect("MAP ( 'STANDARD' )")
    for client in clients.values():
        await client.receive_until("NOW")
    proc.process.send_signal(signal.SIGTERM)
    for client in [*clients.values(), lobbyist]:
        await client.expect("OFF")
        assert await client.expect_closed() == "FM"
        await client.stream.aclose()
    with trio.fail_after(10):
        assert await proc.process.wait() == 0
    # A clean close leaves no WAL behind and the game resumable.
    assert not (tmp_path / "g.db-wal").exists() or (tmp_path / "g.db-wal").stat().st_size == 0
    store = Store.open(db)
    [game] = store.load_unfinished()
    assert game.turn == "SPR 1901"
    store.close()
