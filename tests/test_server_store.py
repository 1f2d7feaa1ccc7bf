"""The SQLite store: schema, atomic phase records, resume after a kill."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from server.settings import GameSettings
from server.store import FOLD_PHASES, Seat, StorageFailure, Store, StoreError

SCO = "SCO ( AUS BUD TRI VIE ) ( UNO BEL )"
NOW = "NOW ( SPR 1901 ) ( AUS AMY BUD )"
SEATS = [Seat("AUS", 1234, "bot", "1.0"), Seat("ENG", 77, "other", "2")]


def started(store: Store) -> int:
    game = store.create_game(GameSettings(mtl=60, dsd=True))
    store.start_game(game, SEATS, "SPR 1901", SCO, NOW)
    return game


def test_database_uses_wal_and_full_sync(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "g.db")
    try:
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2
    finally:
        store.close()


def test_start_records_seats_and_phase_zero(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "g.db")
    game = started(store)
    rec = store.game(game)
    assert rec.status == "running"
    assert rec.settings == GameSettings(mtl=60, dsd=True)
    assert rec.turn == "SPR 1901" and rec.sco == SCO and rec.now == NOW
    assert rec.seats == tuple(sorted(SEATS, key=lambda s: s.power))
    [start] = store.phases(game)
    assert (start.seq, start.turn, start.messages) == (0, "SPR 1901", (SCO, NOW))
    store.close()


def test_orders_survive_a_kill_and_are_replaced_per_power(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = Store.open(path)
    game = started(store)
    store.save_orders(game, "AUS", "SPR 1901", ["( AUS AMY BUD ) HLD"])
    store.save_orders(game, "AUS", "SPR 1901", ["( AUS AMY BUD ) MTO SER"])
    store.save_orders(game, "ENG", "SPR 1901", ["( ENG FLT LON ) HLD"])
    store.save_orders(game, "ENG", "SPR 1901", [])
    # No close(): the process "dies" here; a new connection sees the commits.
    again = Store.open(path)
    [rec] = again.load_unfinished()
    assert rec.id == game
    assert rec.pending == {"AUS": ("( AUS AMY BUD ) MTO SER",)}
    assert rec.pending_turn == "SPR 1901"
    again.close()


def table_phases(path: Path) -> list[tuple[int, str]]:
    """(seq, turn) of the ``phases`` rows and the games' turns, read with a connection
    of the test's own."""
    with sqlite3.connect(path) as db:
        return db.execute("SELECT seq, turn FROM phases UNION ALL SELECT -1, turn FROM games"
                          " ORDER BY 1").fetchall()


def test_a_phase_is_a_journal_line_first_and_its_fold_is_atomic(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = Store.open(path)
    reasons: list[str] = []
    store.on_failure = reasons.append
    game = started(store)
    store.save_orders(game, "AUS", "SPR 1901", ["( AUS AMY BUD ) MTO SER"])
    orders = {"AUS": ["( AUS AMY BUD ) MTO SER"]}
    msgs = ["ORD ( SPR 1901 ) ( ( AUS AMY BUD ) MTO SER ) ( SUC )", "NOW ( FAL 1901 ) ( AUS AMY SER )"]
    assert store.record_phase(game, "SPR 1901", orders, msgs, SCO, msgs[1], "FAL 1901") == 1
    # One journal line, nothing in SQLite yet; the store, a reader in another
    # process and a restarted server all see the phase.
    assert b'["phase",' in Path(f"{path}-orders").read_bytes().splitlines()[-1]
    assert table_phases(path) == [(-1, "SPR 1901"), (0, "SPR 1901")]
    for view in (store, Store.open_readonly(path), Store.open(path)):
        rec = view.game(game)
        assert (rec.turn, rec.now, rec.pending) == ("FAL 1901", msgs[1], {})
        phase = view.phases(game)[1]
        assert phase.orders == {"AUS": ("( AUS AMY BUD ) MTO SER",)}
        assert phase.messages == tuple(msgs)
    # A fold SQLite refuses changes nothing there and latches the store.
    store._db.execute("CREATE TRIGGER boom BEFORE UPDATE ON games BEGIN SELECT RAISE(ABORT, 'x'); END")
    with pytest.raises(StorageFailure, match="database error"):
        store.fold()
    assert reasons == ["database error (x)"]
    assert table_phases(path) == [(-1, "SPR 1901"), (0, "SPR 1901")]
    assert [p.seq for p in store.phases(game)] == [0, 1]
    store._db.execute("DROP TRIGGER boom")
    store.close()
    # The next start folds it: phase row and position in one transaction.
    again = Store.open(path)
    [rec] = again.load_unfinished()
    assert (rec.turn, rec.now, rec.pending) == ("FAL 1901", msgs[1], {})
    assert table_phases(path) == [(-1, "FAL 1901"), (0, "SPR 1901"), (1, "SPR 1901")]
    assert Path(f"{path}-orders").read_bytes() == b""
    again.close()


def test_phases_are_folded_in_batches_and_the_fold_repeats_nothing(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = Store.open(path)
    game = started(store)
    turns = [f"{('SPR', 'FAL')[i % 2]} {1901 + i // 2}" for i in range(FOLD_PHASES + 1)]
    for seq, (turn, new) in enumerate(zip(turns, turns[1:], strict=False), start=1):
        store.record_phase(game, turn, {}, [f"NOW ( {new} )"], SCO, f"NOW ( {new} )", new)
        # Written into SQLite once FOLD_PHASES have gathered, all in one go.
        assert len(table_phases(path)) - 1 == (1 if seq < FOLD_PHASES else 1 + FOLD_PHASES)
    # A second writer on the same file (the journal still holds the folded lines)
    # folds nothing twice and never moves a game back.
    store.record_phase(game, turns[-1], {}, ["SLO ( AUS )"], SCO, NOW, "WIN 1917",
                       ending=["SLO ( AUS )", "SMR ( SPR 1901 )"])
    other = Store.open(path)
    store.close()
    assert other.game(game).status == "finished"
    other.close()
    rows = table_phases(path)
    assert [seq for seq, _ in rows] == [-1, *range(FOLD_PHASES + 2)]
    assert rows[0] == (-1, "WIN 1917")
    assert Store.open_readonly(path).game(game).ending == ("SLO ( AUS )", "SMR ( SPR 1901 )")


def test_finished_games_are_not_resumed_and_forming_ones_dropped(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "g.db")
    done = started(store)
    store.record_phase(done, "SPR 1901", {}, ["SLO ( AUS )"], SCO, NOW, "FAL 1901",
                       ending=["SLO ( AUS )", "SMR ( SPR 1901 )"])
    forming = store.create_game(GameSettings())
    running = started(store)
    assert [g.id for g in store.load_unfinished()] == [running]
    assert store.game(done).ending == ("SLO ( AUS )", "SMR ( SPR 1901 )")
    assert store.game(done).status == "finished"
    with pytest.raises(StoreError):
        store.game(forming)
    store.close()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "g.db")
    store._db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    store.close()
    with pytest.raises(StoreError, match="schema 99"):
        Store.open(tmp_path / "g.db")


def test_a_reader_sees_each_phase_once_whether_the_writer_folded_it_or_not(
        tmp_path: Path) -> None:
    # A reader in another process (daide export) holds the journal as it read it;
    # the writer folds those phases afterwards: the merge takes each from SQLite
    # then, and the later ones from the reader's journal.
    path = tmp_path / "g.db"
    writer = Store.open(path)
    game = started(writer)
    writer.save_orders(game, "AUS", "SPR 1901", ["( AUS AMY BUD ) HLD"])
    for turn, new in (("SPR 1901", "FAL 1901"), ("FAL 1901", "WIN 1901")):
        writer.record_phase(game, turn, {}, [f"NOW ( {new} )"], SCO, f"NOW ( {new} )", new)
    writer.save_orders(game, "ENG", "WIN 1901", ["( ENG FLT LON ) BLD"])
    reader = Store.open_readonly(path)
    before = reader.phases(game)
    writer.fold()
    assert table_phases(path)[0] == (-1, "WIN 1901")
    for view in (reader, writer):
        assert view.phases(game) == before
        assert [(p.seq, p.turn) for p in before] == [(0, "SPR 1901"), (1, "SPR 1901"),
                                                       (2, "FAL 1901")]
        rec = view.game(game)
        assert (rec.turn, rec.now) == ("WIN 1901", "NOW ( WIN 1901 )")
        assert (rec.pending, rec.pending_turn) == ({"ENG": ("( ENG FLT LON ) BLD",)}, "WIN 1901")
    reader.close()
    writer.close()
