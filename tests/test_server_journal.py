"""The order journal (`server.journal`): accepted orders are appended lines beside the
database; replay (last line wins, only the current turn, an empty list clears, a
torn line skipped), the fold into SQLite and a fresh journal at start-up,
compaction, failures that latch the store, the durability barrier, and a
`daide serve` killed after THX that still has the orders when it comes back."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
import structlog.testing
import trio
import trio.testing

import server.journal
from server.durability import Durability, DurabilityLost, GroupCommitStore
from server.journal import encode_line, read_journal
from server.settings import GameSettings
from server.store import Seat, StorageFailure, Store
from tests.server_helpers import ScriptClient, ServeProcess, holds, join_game

SCO = "SCO ( AUS BUD TRI VIE ) ( ENG EDI LON LVP ) ( UNO BEL )"
NOW = "NOW ( SPR 1901 ) ( AUS AMY BUD ) ( ENG FLT LON )"
SEATS = [Seat("AUS", 1234, "bot", "1.0"), Seat("ENG", 77, "other", "2"), Seat("FRA", 5, "f", "1")]
AUS_HOLD, AUS_MOVE = "( AUS AMY BUD ) HLD", "( AUS AMY BUD ) MTO SER"
ENG_HOLD = "( ENG FLT LON ) HLD"


def started(store: Store) -> int:
    game = store.create_game(GameSettings())
    store.start_game(game, SEATS, "SPR 1901", SCO, NOW)
    return game


def table(path: Path) -> list[tuple[int, str, str, list[str]]]:
    """The rows of ``pending_orders``, read with a connection of the test's own."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT game_id, power, turn, orders FROM pending_orders"
                          " ORDER BY game_id, power").fetchall()
    return [(g, p, t, json.loads(o)) for g, p, t, o in rows]


def journal_of(path: Path) -> Path:
    return Path(f"{path}-orders")


def test_replay_last_line_wins_only_the_current_turn_counts_and_empty_clears(
        tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = Store.open(path)
    game = started(store)
    other = started(store)
    store.save_orders(game, "AUS", "SPR 1901", [AUS_HOLD])
    store.save_orders(game, "AUS", "SPR 1901", [AUS_MOVE])          # replaces the hold
    store.save_orders(game, "ENG", "SPR 1901", [ENG_HOLD])
    store.save_orders(game, "ENG", "SPR 1901", [])                  # NOT (SUB): cleared
    store.save_orders(game, "FRA", "WIN 1900", ["( FRA AMY PAR ) HLD"])  # not this turn: dead
    store.save_orders(other, "ENG", "SPR 1901", [ENG_HOLD])
    # One line per change, and nothing in SQLite.
    lines = journal_of(path).read_bytes().splitlines(keepends=True)
    assert len(lines) == 6
    assert lines[0] == encode_line(game, "AUS", "SPR 1901", [AUS_HOLD])
    assert table(path) == []
    assert store.game(game).pending == {"AUS": (AUS_MOVE,)}
    # No close(): the process "dies" here.  The next start replays the journal.
    again = Store.open(path)
    rec = again.game(game)
    assert (rec.pending, rec.pending_turn) == ({"AUS": (AUS_MOVE,)}, "SPR 1901")
    assert again.game(other).pending == {"ENG": (ENG_HOLD,)}
    # The server's start folds the live entries into SQLite and starts a fresh journal.
    assert [(r.id, dict(r.pending)) for r in again.load_unfinished()] == \
        [(game, {"AUS": (AUS_MOVE,)}), (other, {"ENG": (ENG_HOLD,)})]
    assert table(path) == [(game, "AUS", "SPR 1901", [AUS_MOVE]),
                           (other, "ENG", "SPR 1901", [ENG_HOLD])]
    assert journal_of(path).read_bytes() == b""
    # After the fold a journal line still replaces the table's row, and an
    # empty list clears it; the phase record makes the rows dead, its fold deletes them.
    again.save_orders(game, "AUS", "SPR 1901", [AUS_HOLD])
    again.save_orders(other, "ENG", "SPR 1901", [])
    third = Store.open(path)
    assert third.game(game).pending == {"AUS": (AUS_HOLD,)}
    assert third.game(other).pending == {}
    third.record_phase(game, "SPR 1901", {"AUS": [AUS_HOLD]}, ["NOW ( FAL 1901 )"], SCO,
                       "NOW ( FAL 1901 )", "FAL 1901")
    assert third.game(game).pending == {}
    assert Store.open(path).game(game).pending == {}
    third.fold()
    assert [r[:2] for r in table(path)] == [(other, "ENG")]
    for store_ in (store, again, third):
        store_.close()


def test_a_recorded_phase_makes_the_older_lines_dead(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = Store.open(path)
    game = started(store)
    store.save_orders(game, "AUS", "SPR 1901", [AUS_MOVE])
    seq = store.record_phase(game, "SPR 1901", {"AUS": [AUS_MOVE]}, ["NOW ( FAL 1901 )"], SCO,
                             "NOW ( FAL 1901 )", "FAL 1901")
    assert seq == 1
    assert store.game(game).pending == {}
    assert Store.open(path).game(game).pending == {}      # the SPR line is still in the file
    store.save_orders(game, "ENG", "FAL 1901", [ENG_HOLD])
    assert store.record_phase(game, "FAL 1901", {}, ["NOW ( WIN 1901 )"], SCO,
                              "NOW ( WIN 1901 )", "WIN 1901") == 2
    again = Store.open(path)
    assert again.game(game).pending == {}
    # A store opened on a game with phases goes on numbering them (seq once from SQLite).
    assert again.record_phase(game, "WIN 1901", {}, ["NOW ( SPR 1902 )"], SCO,
                              "NOW ( SPR 1902 )", "SPR 1902") == 3
    assert [p.seq for p in again.phases(game)] == [0, 1, 2, 3]
    # An agreed draw ends the game in its turn: the orders of that turn are dead too.
    again.save_orders(game, "AUS", "SPR 1902", [AUS_HOLD])
    again.finish_game(game, ["DRW", "SMR ( SPR 1902 )"])
    assert again.game(game).pending == {}
    assert Store.open(path).game(game).pending == {}
    store.close()
    again.close()


def test_a_torn_or_garbled_line_is_skipped_with_one_warning(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = Store.open(path)
    game = started(store)
    store.save_orders(game, "AUS", "SPR 1901", [AUS_HOLD])
    store.save_orders(game, "ENG", "SPR 1901", [ENG_HOLD])
    store.save_orders(game, "AUS", "SPR 1901", [AUS_MOVE])
    store.close()
    journal = journal_of(path)
    lines = journal.read_bytes().splitlines(keepends=True)
    # A power cut garbled the second line; the process died half way through a fourth.
    garbled = lines[1].replace(b"LON", b"LVP")
    torn = encode_line(game, "ENG", "SPR 1901", ["( ENG FLT LON ) MTO NTH"])[:30]
    journal.write_bytes(lines[0] + garbled + lines[2] + torn)
    with structlog.testing.capture_logs() as logs:
        again = Store.open(path)
    [warning] = [e for e in logs if e["log_level"] == "warning"]
    assert warning["event"] == "journal_lines_skipped"
    assert (warning["lines"], warning["torn_tail"]) == (2, True)
    assert again.game(game).pending == {"AUS": (AUS_MOVE,)}      # ENG's orders were lost
    # The torn tail is cut: the next line is a line of its own.
    assert journal.read_bytes() == lines[0] + garbled + lines[2]
    again.save_orders(game, "ENG", "SPR 1901", [ENG_HOLD])
    assert read_journal(str(journal)).entries[(game, "ENG")] == ("SPR 1901", (ENG_HOLD,))
    assert Store.open(path).game(game).pending == {"AUS": (AUS_MOVE,), "ENG": (ENG_HOLD,)}
    again.close()


def test_a_torn_phase_line_is_skipped_and_the_phase_before_it_kept(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = Store.open(path)
    game = started(store)
    store.save_orders(game, "AUS", "SPR 1901", [AUS_MOVE])
    store.record_phase(game, "SPR 1901", {"AUS": [AUS_MOVE]}, ["NOW ( FAL 1901 )"], SCO,
                       "NOW ( FAL 1901 )", "FAL 1901")
    store.save_orders(game, "AUS", "FAL 1901", [AUS_HOLD])
    whole = journal_of(path).read_bytes()
    store.record_phase(game, "FAL 1901", {"AUS": [AUS_HOLD]}, ["NOW ( WIN 1901 )"], SCO,
                       "NOW ( WIN 1901 )", "WIN 1901")
    # The process dies inside the second phase's write (it was never announced).
    journal_of(path).write_bytes(journal_of(path).read_bytes()[:len(whole) + 40])
    with structlog.testing.capture_logs() as logs:
        again = Store.open(path)
    assert [(e["lines"], e["torn_tail"]) for e in logs] == [(1, True)]
    rec = again.game(game)
    assert (rec.turn, rec.pending) == ("FAL 1901", {"AUS": (AUS_HOLD,)})
    [resumed] = again.load_unfinished()
    assert (resumed.turn, resumed.pending) == ("FAL 1901", {"AUS": (AUS_HOLD,)})
    assert [(p.seq, p.turn) for p in again.phases(game)] == [(0, "SPR 1901"), (1, "SPR 1901")]
    assert again.record_phase(game, "FAL 1901", {}, ["NOW ( WIN 1901 )"], SCO,
                              "NOW ( WIN 1901 )", "WIN 1901") == 2
    again.close()


def test_a_big_journal_is_compacted_to_its_live_lines(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server.journal, "COMPACT_BYTES", 4096)
    path = tmp_path / "g.db"
    store = Store.open(path)
    game = started(store)
    journal = journal_of(path)
    first = journal.stat().st_ino
    for i in range(300):
        store.save_orders(game, "AUS", "SPR 1901", [AUS_MOVE] * (1 + i % 3))
        store.save_orders(game, "ENG", "SPR 1901", [ENG_HOLD] if i % 2 else [])
        assert journal.stat().st_size <= 4096 + 200
    assert journal.stat().st_ino != first              # replaced by a rename, more than once
    assert not Path(f"{journal}.new").exists()
    assert Store.open(path).game(game).pending == {"AUS": (AUS_MOVE,) * 3, "ENG": (ENG_HOLD,)}
    store.close()


def test_a_failed_journal_write_latches_the_store(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = Store.open(path)
    reasons: list[str] = []
    store.on_failure = reasons.append
    game = started(store)
    store.save_orders(game, "AUS", "SPR 1901", [AUS_HOLD])
    # The disk fills up: the journal's descriptor now writes to /dev/full (ENOSPC).
    full = os.open("/dev/full", os.O_WRONLY)
    assert store.journal._fd is not None
    os.dup2(full, store.journal._fd)
    os.close(full)
    with pytest.raises(StorageFailure, match="No space left on device"):
        store.save_orders(game, "AUS", "SPR 1901", [AUS_MOVE])
    assert reasons == [f"disk full ({path}-orders: No space left on device)"]
    # Latched: no more writes of any kind, and the failed change is not held.
    with pytest.raises(StorageFailure):
        store.save_orders(game, "ENG", "SPR 1901", [ENG_HOLD])
    with pytest.raises(StorageFailure):
        store.create_game(GameSettings())
    assert store.game(game).pending == {"AUS": (AUS_HOLD,)}
    assert reasons == [f"disk full ({path}-orders: No space left on device)"]
    store.close()
    assert Store.open(path).game(game).pending == {"AUS": (AUS_HOLD,)}


def test_memory_stores_keep_the_journal_in_memory_and_readers_see_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    memory = Store.open(":memory:")
    game = started(memory)
    memory.save_orders(game, "AUS", "SPR 1901", [AUS_MOVE])
    assert memory.game(game).pending == {"AUS": (AUS_MOVE,)}
    assert list(tmp_path.iterdir()) == []
    memory.close()
    # A reader in another process (daide export, daide games) sees the orders
    # the running server holds: it reads the journal too, writing nothing.
    path = tmp_path / "g.db"
    writer = Store.open(path)
    game = started(writer)
    writer.save_orders(game, "ENG", "SPR 1901", [ENG_HOLD])
    before = journal_of(path).read_bytes()
    reader = Store.open_readonly(path)
    assert reader.game(game).pending == {"ENG": (ENG_HOLD,)}
    reader.close()
    assert journal_of(path).read_bytes() == before
    writer.close()


class Disk:
    """An fsync that counts the files it synced."""

    def __init__(self) -> None:
        self.synced: list[int] = []
        self.fail_inode: int | None = None

    def __call__(self, fd: int) -> None:
        inode = os.fstat(fd).st_ino
        if inode == self.fail_inode:
            raise OSError(5, "Input/output error")
        self.synced.append(inode)
        os.fsync(fd)


async def test_durability_disk_syncs_the_journal_before_announcing(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    path = tmp_path / "g.db"
    store = GroupCommitStore.open(path)
    disk = Disk()
    durability = Durability(store, sync=disk)
    game = started(store)                       # commits: the WAL needs a sync
    wal, journal = os.stat(f"{path}-wal").st_ino, os.stat(f"{path}-orders").st_ino
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(durability.run)
            await durability.wait()
            assert disk.synced == [wal]                  # no journal line yet: no journal fsync
            store.save_orders(game, "AUS", "SPR 1901", [AUS_MOVE])     # a SUB counts as a commit
            await durability.wait()
            assert disk.synced == [wal, wal, journal]
            disk.fail_inode = journal
            store.save_orders(game, "AUS", "SPR 1901", [AUS_HOLD])
            with pytest.raises(DurabilityLost, match=f"fsync of {path}-orders failed"):
                await durability.wait()
            with pytest.raises(StorageFailure):
                store.save_orders(game, "AUS", "SPR 1901", [AUS_HOLD])
            nursery.cancel_scope.cancel()
    finally:
        durability.close()
        store.close()


async def test_a_server_killed_after_thx_still_has_the_orders(nursery: trio.Nursery,
                                                             tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    server = await ServeProcess.start(nursery, db, "--durability", "disk")
    clients = await join_game(server.port)
    now = ""
    for client in clients.values():
        now = (await client.receive_until("NOW"))[-1]
    eng, fra = clients["ENG"], clients["FRA"]
    await eng.send(holds(now, "ENG"))
    for _ in range(3):
        assert (await eng.receive()).startswith("THX")
    await fra.send(holds(now, "FRA"))
    for _ in range(3):
        assert (await fra.receive()).startswith("THX")
    await fra.send("NOT ( SUB )")
    await fra.receive_until("YES ( NOT ( SUB ) )")
    codes = {p: c.passcode for p, c in clients.items()}
    await server.kill()                 # SIGKILL right after the acknowledgements
    for client in clients.values():
        await client.stream.aclose()
    assert table(db) == []              # the orders were in the journal only

    server = await ServeProcess.start(nursery, db, "--durability", "disk")
    back = {}
    for power in ("ENG", "FRA"):
        client = await ScriptClient.connect(server.port, f"{power}:bot")
        await client.send(f"IAM ( {power} ) ( {codes[power]} )")
        await client.receive_until(f"YES ( IAM ( {power} )")
        back[power] = client
    # The game was resumed: the orders were folded into SQLite, the journal started afresh.
    assert [(p, len(o)) for _g, p, _t, o in table(db)] == [("ENG", 3)]
    assert journal_of(db).read_bytes() == b""
    await back["ENG"].send("MIS")
    assert (await back["ENG"].receive_until(lambda t: t.startswith("MIS")))[-1] == "MIS"
    await back["FRA"].send("MIS")
    missing = (await back["FRA"].receive_until(lambda t: t.startswith("MIS")))[-1]
    assert missing.startswith("MIS ( FRA ")
    for client in back.values():
        await client.close()
    await server.kill()
