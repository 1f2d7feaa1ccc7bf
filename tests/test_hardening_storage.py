"""A database or journal that cannot be written (disk full, read-only): the
server says so, refuses new games, freezes the running ones without corrupting
them, and a restart on the same database plays on exactly as if nothing had
happened.  The journal takes every order and phase first; SQLite's failure
shows when the store next folds the phases into it (`server.store`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import structlog.testing
import trio

from server.app import Server
from server.export import export_game
from server.store import Store
from tests.server_helpers import POWERS, ScriptClient, start_game, start_server
from tests.server_script import SCRIPT, play_script, turn_of

NOTICE = {
    "disk-full": "ADM ( 'Server' ) ( 'The server cannot save games (disk full). No new games;"
                 " running games are paused until it restarts.' )",
    "read-only": "ADM ( 'Server' ) ( 'The server cannot save games (database is read-only). No"
                 " new games; running games are paused until it restarts.' )",
}
NOTICE["journal-full"] = NOTICE["disk-full"]


def reason(how: str, db: Path) -> str:
    return {"disk-full": "disk full (database or disk is full)",
            "read-only": "database is read-only (attempt to write a readonly database)",
            "journal-full": f"disk full ({db}-orders: No space left on device)"}[how]


def break_storage(server: Server, how: str) -> None:
    """Make the running server's database or order journal unwritable, as the
    system would report it (the journal's descriptor then writes to
    ``/dev/full``, which fails every write with ENOSPC)."""
    assert server.lobby is not None
    store = server.lobby.store
    db = store._db
    store.fold()            # what is gathered goes in now: the next fold fails
    if how == "disk-full":
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
    elif how == "read-only":
        db.execute("PRAGMA query_only = 1")
    else:
        full = os.open("/dev/full", os.O_WRONLY)
        assert store.journal._fd is not None
        os.dup2(full, store.journal._fd)
        os.close(full)


async def drain(client: ScriptClient) -> list[str]:
    """What the server has sent so far."""
    seen = []
    while True:
        with trio.move_on_after(0.1):
            seen.append(await client.receive())
            continue
        return seen


async def draw(clients: dict[str, ScriptClient]) -> None:
    for client in clients.values():
        await client.send("DRW")
        await client.expect("YES ( DRW )")
    for client in clients.values():
        await client.receive_until("SMR")
        await client.expect("OFF")
        await client.stream.aclose()


@pytest.mark.parametrize("how", ["disk-full", "read-only", "journal-full"])
async def test_an_unwritable_database_freezes_games_and_a_restart_resumes_them(
        nursery: trio.Nursery, tmp_path: Path, how: str) -> None:
    reference, port = await start_server(nursery, tmp_path / "reference.db")
    clients = await start_game(port)
    await play_script(clients, "SPR 1902")
    await draw(clients)
    reference.stop()

    db = tmp_path / "games.db"
    server, port = await start_server(nursery, db)
    clients = await start_game(port)
    now = await play_script(clients, "FAL 1901")
    assert server.lobby is not None
    store = server.lobby.store
    phases_before = store.phases(1)
    codes = {p: c.passcode for p, c in clients.items()}
    # With SQLite unwritable the journal takes the orders and the phase, which is
    # announced; its fold (FOLD_SECONDS later at most) fails.  With the journal
    # full the first SUB fails: nothing of FAL 1901 is stored or announced.
    frozen_at = "FAL 1901" if how == "journal-full" else "AUT 1901"
    with structlog.testing.capture_logs() as logs:
        break_storage(server, how)
        for power in POWERS:
            await clients[power].send(SCRIPT["FAL 1901"][power])
        for client in clients.values():
            seen = await client.receive_until(lambda t: t.startswith("ADM"))
            assert seen[-1] == NOTICE[how]
            seen += await drain(client)
            announced = [turn_of(t) for t in seen if t.startswith("NOW")]
            assert announced == ([] if how == "journal-full" else ["AUT 1901"])
    [failed] = [e for e in logs if e["event"] == "storage_failed"]
    assert failed["log_level"] == "error" and failed["db"] == str(db)
    assert failed["reason"] == reason(how, db)
    # Frozen: nothing is accepted, nothing is processed, no game is opened.
    eng = clients["ENG"]
    await eng.send("SUB ( ( ENG FLT NTH ) HLD )")
    await eng.expect("REJ ( SUB ( ( ENG FLT NTH ) HLD ) )")
    await eng.send("NOW")
    assert turn_of(await eng.receive()) == frozen_at
    newcomer = await ScriptClient.connect(port, "newcomer")
    await newcomer.send("NME ( 'newcomer' ) ( '1' )")
    await newcomer.expect("REJ ( NME ( 'newcomer' ) ( '1' ) )")
    await newcomer.close()
    phases_after = store.phases(1)
    assert phases_after[:len(phases_before)] == phases_before
    assert [p.turn for p in phases_after[len(phases_before):]] == \
        ([] if how == "journal-full" else ["FAL 1901"])
    server.stop()
    for client in clients.values():
        await client.receive_until("OFF")
        await client.stream.aclose()

    # Restarted on the same (now writable) database: the players come back with IAM.
    _again, port = await start_server(nursery, db)
    back: dict[str, ScriptClient] = {}
    for power in POWERS:
        client = await ScriptClient.connect(port, f"{power}:bot")
        await client.send(f"IAM ( {power} ) ( {codes[power]} )")
        await client.receive_until(f"YES ( IAM ( {power} )")
        back[power] = client
    for client in back.values():
        await drain(client)
        await client.send("NOW")
        now = (await client.receive_until("NOW"))[-1]
    # The restart folds the journal's phase into SQLite and plays on from there.
    assert turn_of(now) == frozen_at
    await play_script(back, "SPR 1902")
    await draw(back)

    resumed, expected = Store.open(db), Store.open(tmp_path / "reference.db")
    try:
        assert export_game(resumed, 1)[0] == export_game(expected, 1)[0]
        assert [(p.turn, p.orders, p.messages) for p in resumed.phases(1)] == \
            [(p.turn, p.orders, p.messages) for p in expected.phases(1)]
    finally:
        resumed.close()
        expected.close()
