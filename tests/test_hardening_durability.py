"""Group commit (`server.durability`): nothing is announced before it is on disk,
one fsync covers a whole batch, and a failed fsync stops all announcements."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing

import server.durability
import server.store
from server.durability import Durability, DurabilityLost, GroupCommitStore
from server.settings import GameSettings
from server.store import Seat, StorageFailure, Store


class Disk:
    """An fsync that the test releases by hand, counting calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.fail = False

    def __call__(self, fd: int) -> None:
        self.calls += 1
        if self.fail:
            raise OSError(5, "Input/output error")


def test_group_commit_store_leaves_syncing_to_the_flusher(tmp_path: Path) -> None:
    store = GroupCommitStore.open(tmp_path / "g.db")
    try:
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 1      # NORMAL
        assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        before = store.changes
        store.create_game(GameSettings())
        assert store.changes == before + 1
    finally:
        store.close()
    plain = Store.open(tmp_path / "p.db")
    try:
        assert plain._db.execute("PRAGMA synchronous").fetchone()[0] == 2      # FULL
    finally:
        plain.close()


async def test_waiters_are_released_only_after_an_fsync_that_follows_their_commit(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    store = GroupCommitStore.open(tmp_path / "g.db")
    disk = Disk()
    durability = Durability(store, sync=disk)
    released: list[int] = []
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(durability.run)
            await durability.wait()                  # nothing committed yet: no fsync needed
            assert disk.calls == 0
            for _ in range(10):
                store.create_game(GameSettings())    # ten commits...

            async def writer(i: int) -> None:
                await durability.wait()
                released.append(disk.calls)

            for i in range(10):                      # ...and ten writers waiting for them
                nursery.start_soon(writer, i)
            await trio.testing.wait_all_tasks_blocked()
            assert released == [1] * 10              # one fsync for the whole batch
            store.create_game(GameSettings())
            nursery.start_soon(writer, 10)
            await trio.testing.wait_all_tasks_blocked()
            assert released[-1] == 2 and durability.flushes == 2
            nursery.cancel_scope.cancel()
    finally:
        durability.close()
        store.close()


async def test_a_failed_fsync_stops_every_announcement(
        tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    store = GroupCommitStore.open(tmp_path / "g.db")
    reasons: list[str] = []
    store.on_failure = reasons.append
    disk = Disk()
    disk.fail = True
    durability = Durability(store, sync=disk)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(durability.run)
            store.create_game(GameSettings())
            with pytest.raises(DurabilityLost, match="Input/output error"):
                await durability.wait()
            assert reasons == [f"fsync of {store.path}-wal failed: Input/output error"]
            with pytest.raises(StorageFailure):     # and the store takes no more writes
                store.create_game(GameSettings())
    finally:
        durability.close()
        store.close()


async def test_a_big_wal_is_checkpointed_by_the_flusher(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server.durability, "CHECKPOINT_BYTES", 64 * 1024)
    store = GroupCommitStore.open(tmp_path / "g.db")
    durability = Durability(store)
    wal = tmp_path / "g.db-wal"
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(durability.run)
            for _ in range(40):
                for _ in range(20):
                    store.create_game(GameSettings(variant="x" * 500))
                await durability.wait()
            assert durability.checkpoints >= 1
            # Checkpointed pages are reused: the WAL stays near the threshold.
            assert wal.stat().st_size < 1024 * 1024
            nursery.cancel_scope.cancel()
    finally:
        durability.close()
        store.close()
    again = Store.open(tmp_path / "g.db")
    try:
        assert len(again.games()) == 800
    finally:
        again.close()


async def test_durability_os_announces_at_once_and_only_checkpoints(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # durability="os": nothing waits for an fsync; the flusher only keeps the WAL small.
    monkeypatch.setattr(server.durability, "CHECKPOINT_BYTES", 64 * 1024)
    monkeypatch.setattr(server.durability, "CHECKPOINT_POLL", 0.01)
    store = GroupCommitStore.open(tmp_path / "g.db")
    disk = Disk()
    durability = Durability(store, sync=disk, barrier=False)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(durability.run)
            for _ in range(40):
                for _ in range(20):
                    store.create_game(GameSettings(variant="x" * 500))
                await durability.wait()           # returns at once: no fsync
            assert disk.calls == 0 and durability.flushes == 0
            await trio.sleep(0.5)                 # fifty polls of the WAL's size
            assert durability.checkpoints >= 1
            nursery.cancel_scope.cancel()
    finally:
        durability.close()
        store.close()
    again = Store.open(tmp_path / "g.db")
    try:
        assert len(again.games()) == 800
    finally:
        again.close()


async def test_the_folder_sleeps_while_nothing_is_gathered(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    # A phase is folded into SQLite within FOLD_SECONDS of being recorded; with
    # nothing gathered the folder waits for the next phase, not for a timer (an
    # idle server - or a virtual clock jumping an idle hour - never wakes it).
    store = GroupCommitStore.open(tmp_path / "g.db")
    folds: list[bool] = []
    fold = store.fold

    def counted() -> None:
        folds.append(store.gathered)
        fold()

    store.fold = counted                          # type: ignore[method-assign]
    game = store.create_game(GameSettings())
    store.start_game(game, [Seat("AUS", 1, "bot", "1")], "SPR 1901", "SCO", "NOW ( SPR 1901 )")
    durability = Durability(store, barrier=False)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(durability.run)
            await trio.sleep(3600)
            assert folds == []
            store.record_phase(game, "SPR 1901", {}, ["NOW ( FAL 1901 )"], "SCO",
                               "NOW ( FAL 1901 )", "FAL 1901")
            await trio.sleep(server.store.FOLD_SECONDS + 0.5)
            assert folds == [True] and not store.gathered
            await trio.sleep(3600)
            assert folds == [True]
            nursery.cancel_scope.cancel()
    finally:
        durability.close()
        store.close()


async def test_the_wal_is_looked_at_after_commits_only(
        tmp_path: Path, autojump_clock: trio.testing.MockClock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # durability "os": the flusher looks at the WAL's size CHECKPOINT_POLL seconds
    # after a commit - once at the start, then never while no commit comes.
    store = GroupCommitStore.open(tmp_path / "g.db")
    looks: list[int] = []
    fstat = server.durability.os.fstat

    def counted(fd: int) -> object:
        looks.append(fd)
        return fstat(fd)

    monkeypatch.setattr(server.durability.os, "fstat", counted)
    durability = Durability(store, barrier=False)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(durability.run)
            await trio.sleep(3600)
            assert len(looks) == 1                # the start
            store.create_game(GameSettings())
            store.create_game(GameSettings())
            await trio.sleep(server.durability.CHECKPOINT_POLL + 1)
            assert len(looks) == 2                # one look for both commits
            await trio.sleep(3600)
            assert len(looks) == 2
            nursery.cancel_scope.cancel()
    finally:
        durability.close()
        store.close()


def test_durability_setting_is_checked() -> None:
    from server.settings import ServerSettings, SettingsError

    assert ServerSettings().durability == "os"
    with pytest.raises(SettingsError, match="durability must be one of disk, commit, os"):
        ServerSettings(durability="never")
