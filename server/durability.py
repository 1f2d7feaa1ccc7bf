"""When announcements may go out: after the commit (default) or after an fsync.

The store writes every accepted order and every processed phase (a line
of its journal, `server.journal`) and commits its other writes before any
client hears of them (docs/architecture.md "One turn", step 4).  By default
(``ServerSettings(durability="os")``, see the end) that is all: the line or
the commit has reached the operating system, which keeps it whatever
happens to the server process.  ``durability="disk"`` adds power-cut safety with a group
commit, described first.  With SQLite's
``synchronous = FULL`` each commit waits for its own fsync of the WAL,
during which the whole (single-threaded) server stands still: with a
hundred games that is most of its time.

Here the store commits with ``synchronous = NORMAL`` (a commit reaches the
operating system, which already survives a killed process; SQLite still
syncs properly around checkpoints), and durability against power loss is
restored one level up: every connection's writer calls `Durability.wait`
before it puts bytes on the wire, and that returns only once an fsync of
the WAL and of the order journal *started after* the last commit (or
journal line) has finished.  One fsync covers
every commit made since the one before, however many games made them, so
the promise is unchanged - nothing reaches a client before it is on disk -
while the cost is one fsync per batch instead of one per commit.

`Durability.run` is the flusher task.  The fsync runs in a worker thread,
so the server goes on reading, adjudicating and committing meanwhile (the
next batch grows while this one syncs).  Checkpoints (copying the WAL into
the database file, which syncs that file) run there too, on a connection of
their own, once the WAL has grown past `CHECKPOINT_BYTES`: SQLite's automatic
checkpoint would do it on the committing thread, stopping the server for
the length of a big fsync.  Under a virtual clock (trio's
MockClock, in tests) it runs on the event loop's thread instead, as
SQLite's own fsync would: a clock that jumps when the run looks idle must
not take a disk wait for idle time.

`Durability.run` also folds the phases the store has gathered in its
journal into SQLite (`server.store.Store.fold`, `server.fold`) when the store says a fold
is due, and at idle: between the game actors' turns rather than inside
one, so no turn waits for a batch.

With ``durability="os"`` (the default) there is no barrier: `wait`
returns at once, so an announcement goes out as soon as its transaction is
committed to the operating system.  A crash or kill of the server loses
nothing (the OS has the data; `tests/test_crash.py` kills it in both
modes); a power cut or an OS crash may lose the last moments.  It is the
default because disks stall: now and then an fsync takes far longer than
usual, and with the barrier every announcement of every game waits through
such a stall (docs/performance.md, "The server under load": ``--durability
disk``; docs/hardening.md, "Durability").  The flusher then only
checkpoints the WAL.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

import trio

from server.fold import FOLD_SECONDS
from server.storage_errors import StoreError
from server.store import Store

#: WAL size from which the flusher checkpoints it into the database file.  Big:
#: a checkpoint shares the WAL with the committing thread, which then waits on
#: SQLite's locks now and then (docs/performance.md, "The server under load").
CHECKPOINT_BYTES = 64 * 2**20
#: Without fsyncs (durability "os"), how long after a commit the flusher looks at
#: the WAL's size (at most once per this many seconds, never while no commit comes).
CHECKPOINT_POLL = 5.0


class GroupCommitStore(Store):
    """A `Store` that commits without fsync; `Durability` makes the commits durable.

    Its order journal (`server.journal`) does not fsync its lines either:
    `Durability` syncs it with the WAL.
    """

    syncs_commits = False

    @classmethod
    def open(cls, path: Path | str) -> GroupCommitStore:
        store = super().open(path)
        assert isinstance(store, GroupCommitStore)
        store._db.execute("PRAGMA synchronous = NORMAL")
        store._db.execute("PRAGMA wal_autocheckpoint = 0")     # Durability checkpoints
        return store

    @property
    def changes(self) -> int:
        """Rows changed and journal lines written since the store was opened
        (grows with every commit and every accepted change of orders)."""
        return self._db.total_changes + self.journal.writes


class DurabilityLost(StoreError):
    """An fsync of the database failed: nothing more may be announced."""


class Durability:
    """The barrier between commits and the wire (see the module docstring).

    Without a WAL file to sync (an in-memory database, or a plain `Store`
    that syncs every commit itself) `wait` returns at once.
    """

    def __init__(self, store: Store, *, sync: Callable[[int], None] = os.fsync,
                 barrier: bool = True) -> None:
        self.store = store
        self._sync = sync
        self.barrier = barrier          # False: durability "os" (see the module docstring)
        self._fd: int | None = None
        if isinstance(store, GroupCommitStore) and not store.in_memory:
            self._fd = os.open(store.path + "-wal", os.O_RDONLY)
        self.durable = self._changes()
        self.flushes = 0
        self.slowest_sync = 0.0         # seconds (the load harness reports it)
        self.checkpoints = 0
        self._checkpointer: sqlite3.Connection | None = None
        self.failure: str | None = None
        self._running = False
        self._wanted = trio.Event()
        self._flushed = trio.Event()
        self._fold_wanted = trio.Event()

    def _changes(self) -> int:
        return self.store.changes if isinstance(self.store, GroupCommitStore) else 0

    @property
    def waits(self) -> bool:
        """`wait` may have to wait (an fsync barrier); False: it always returns at once."""
        return self._fd is not None and self.barrier

    async def wait(self) -> None:
        """Return once every commit made so far is on disk; DurabilityLost if it never will be."""
        if self._fd is None or not self.barrier:
            return
        target = self._changes()
        while self.durable < target:
            if self.failure is not None:
                raise DurabilityLost(self.failure)
            if not self._running:
                self._flush()           # no flusher (shutdown): sync here
                continue
            self._wanted.set()
            await self._flushed.wait()

    async def run(self) -> None:
        """The flusher: one fsync per batch of commits, while anyone waits; and the
        store's folds (`_fold_now_and_then`)."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._fold_now_and_then)
            await self._flush_now_and_then()
            if self.failure is not None:
                nursery.cancel_scope.cancel()   # the store is latched: nothing to fold

    async def _fold_now_and_then(self) -> None:
        """Fold the store's gathered phases when it asks (`Store.on_fold_due`), or
        `FOLD_SECONDS` after the first of them (idle: what is left).  With nothing
        gathered it sleeps without a timer until a phase is recorded
        (`Store.on_gathering`): an idle server - or a virtual clock jumping through
        an idle hour in the tests - has no reason to wake every second."""
        store = self.store
        gathering = trio.Event()
        store.on_fold_due = self._fold_wanted.set
        store.on_gathering = gathering.set
        try:
            while True:
                if not store.gathered:
                    await gathering.wait()
                gathering = trio.Event()
                store.on_gathering = gathering.set
                with trio.move_on_after(FOLD_SECONDS):
                    await self._fold_wanted.wait()
                self._fold_wanted = trio.Event()
                store.on_fold_due = self._fold_wanted.set
                try:
                    store.fold()
                except StoreError:
                    return      # latched: the store reported it (`Store.on_failure`)
        finally:
            store.on_fold_due = None
            store.on_gathering = None

    async def _flush_now_and_then(self) -> None:
        if self._fd is None:
            return
        if not self.barrier:
            await self._checkpoint_now_and_then(self._fd)
            return
        self._running = True
        try:
            while self.failure is None:
                await self._wanted.wait()
                self._wanted = trio.Event()
                await trio.lowlevel.checkpoint()     # let every runnable task commit first
                if _mock_clock():
                    self._flush()
                else:
                    target = self._changes()
                    error = await trio.to_thread.run_sync(self._sync_fd, self._fd)
                    self._synced(target, error)
        finally:
            self._running = False
            self._release()

    async def _checkpoint_now_and_then(self, fd: int) -> None:
        """Without the barrier the flusher only keeps the WAL from growing for ever:
        it looks at the WAL's size `CHECKPOINT_POLL` seconds after a commit (only a
        commit grows it; an idle server is never woken)."""
        store = self.store
        committed = trio.Event()
        committed.set()                 # one look at the start: the WAL as it was opened
        store.on_commit = committed.set
        try:
            while True:
                await committed.wait()
                committed = trio.Event()
                store.on_commit = committed.set
                await trio.sleep(CHECKPOINT_POLL)
                if os.fstat(fd).st_size > CHECKPOINT_BYTES:
                    await trio.to_thread.run_sync(self._checkpoint)
        finally:
            store.on_commit = None

    def _flush(self) -> None:
        target = self._changes()
        self._synced(target, self._sync_fd(self._fd))

    def _sync_fd(self, fd: int | None) -> OSError | None:
        """fsync the WAL and the order journal, and checkpoint a big WAL (in any
        thread); the error, its ``filename`` the file that failed, if it failed.

        The file stays open while this runs: `close` comes after the flusher ended.
        """
        assert fd is not None
        name = f"{self.store.path}-wal"
        try:
            started = time.perf_counter()
            self._sync(fd)
            name = self.store.journal.path or name
            self.store.journal.sync(self._sync)
            self.slowest_sync = max(self.slowest_sync, time.perf_counter() - started)
            if os.fstat(fd).st_size > CHECKPOINT_BYTES:
                self._checkpoint()
        except OSError as exc:
            return OSError(exc.errno, exc.strerror or str(exc), name)
        return None

    def _checkpoint(self) -> None:
        if self._checkpointer is None:
            self._checkpointer = sqlite3.connect(self.store.path, check_same_thread=False,
                                                 isolation_level=None, timeout=0)
        try:
            self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
            self.checkpoints += 1
        except sqlite3.Error:
            pass       # busy: the next flush tries again; the WAL only grows meanwhile

    def _synced(self, target: int, error: OSError | None) -> None:
        if error is not None:
            self.failure = f"fsync of {error.filename} failed: {error.strerror or error}"
            self.store.fail(self.failure)
        else:
            self.durable = max(self.durable, target)
            self.flushes += 1
        self._release()

    def close(self) -> None:
        """Sync what is left and close the WAL file."""
        if self._fd is not None:
            if self.failure is None and self.durable < self._changes():
                self._flush()
            os.close(self._fd)
            self._fd = None
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None

    def _release(self) -> None:
        flushed, self._flushed = self._flushed, trio.Event()
        flushed.set()


def _mock_clock() -> bool:
    """The run is on trio's MockClock (a test): the flusher syncs on the event
    loop's thread (see the module doc).

    Without importing `trio.testing`: it imports pytest where pytest is
    installed (~0.1 s of every server start); a run can only be on a
    MockClock once something imported it.
    """
    testing = sys.modules.get("trio.testing")
    return testing is not None and isinstance(trio.lowlevel.current_clock(), testing.MockClock)
