"""The SQLite store: schema, atomic phase records, resume after a kill."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from server.settings import GameSettings
from server.store import Seat, Store, StoreError

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


def test_phase_record_is_atomic_and_clears_pending(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "g.db")
    game = started(store)
    store.save_orders(game, "AUS", "SPR 1901", ["( AUS AMY BUD ) MTO SER"])
    orders = {"AUS": ["( AUS AMY BUD ) MTO SER"]}
    msgs = ["ORD ( SPR 1901 ) ( ( AUS AMY BUD ) MTO SER ) ( SUC )", "NOW ( FAL 1901 ) ( AUS AMY SER )"]
    store._db.execute("CREATE TRIGGER boom BEFORE UPDATE ON games BEGIN SELECT RAISE(ABORT, 'x'); END")
    with pytest.raises(sqlite3.IntegrityError):
        store.record_phase(game, "SPR 1901", orders, msgs, SCO, msgs[1], "FAL 1901")
    # Nothing of the failed transaction is visible: no phase, orders kept.
    assert [p.seq for p in store.phases(game)] == [0]
    assert store.game(game).pending == {"AUS": ("( AUS AMY BUD ) MTO SER",)}
    store._db.execute("DROP TRIGGER boom")
    seq = store.record_phase(game, "SPR 1901", orders, msgs, SCO, msgs[1], "FAL 1901")
    assert seq == 1
    rec = store.game(game)
    assert (rec.turn, rec.now, rec.pending) == ("FAL 1901", msgs[1], {})
    phase = store.phases(game)[1]
    assert phase.orders == {"AUS": ("( AUS AMY BUD ) MTO SER",)}
    assert phase.messages == tuple(msgs)
    store.close()


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
