"""The server's store: the game log (`server.gamelog`) on a journal and an SQLite file.

Nothing the server accepted is ever lost.  Every change of a power's orders
(SUB, NOT (SUB)) and every processed phase is first one line appended to
the journal ``DB-orders`` beside the database ``DB`` (`server.journal`, the
write-ahead log: one ``write``, no SQLite commit), before any client hears
of it; a phase line makes the game's order lines of its turn dead.  The
phases gathered in the journal are folded into SQLite in batches
(`server.fold`: `fold` runs when `server.durability` says, between the game
actors' turns); until then the store holds them in memory, and every read
goes through `server.gamelog.merge`, so `game`, `games` and `phases` show
every phase recorded, folded or not.  The rest - games, seats, press - is
written to SQLite directly, one transaction each (`server.schema` has the
tables).

When the server starts, `load_unfinished` folds what the journal holds -
its phases into ``phases`` and ``games``, its live order lines into
``pending_orders`` - in one transaction and starts a fresh journal, so it
never grows across restarts; a journal grown past its limit while the
server runs is compacted to its live order lines (`Journal.rewrite`), the
phases folded first.

Readers in another process (`open_readonly`: `daide export`, `daide games`,
`daide render`) read the journal file too, so they see the orders and the
phases the running server holds; they never write it.  They read the
journal before the tables: a phase the writer folds and compacts away
meanwhile is in the table by the time they read it.

The store is synchronous: the writes are small and local, each game actor
is the only writer of its game, and trio runs one task at a time, so a
write never interleaves with another.  One writing process per database
(`server.lock`): the journal is appended to, compacted and restarted by it
alone.  Killing the process at any moment leaves the last committed
transaction and every journal line written, and `load_unfinished` resumes
from them.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path

from server.fold import (
    FOLD_AT_ONCE,
    FOLD_PHASES,
    FOLD_SECONDS,
    finish,
    fold_orders,
    fold_phases,
)
from server.gamelog import (
    GameLog,
    GameRecord,
    PhaseRecord,
    PressRecord,
    RefusalRecord,
    Seat,
    merge,
)
from server.hosted import AdminAction, HostedState
from server.journal import Journal, PhaseEntry, Replay, encode_json, journal_path, read_journal
from server.schema import connect_readonly, connect_sqlite, migrate, utc_now
from server.settings import GameSettings
from server.storage_errors import StorageFailure, StoreError, failure_reason, storage_reason

# The names callers import from here: the store's records, errors and constants.
__all__ = [
    "FOLD_PHASES",
    "FOLD_SECONDS",
    "GameRecord",
    "PhaseRecord",
    "PressRecord",
    "Seat",
    "StorageFailure",
    "Store",
    "StoreError",
    "connect_sqlite",
]


class Store(GameLog):
    """The server's database and its journal.  Open with `Store.open` (or
    `open_readonly`), close with `close`."""

    #: Each commit and each journal line is fsynced (SQLite ``synchronous = FULL``);
    #: `server.durability.GroupCommitStore` leaves syncing to its flusher.
    syncs_commits = True

    def __init__(self, db: sqlite3.Connection, path: str) -> None:
        self._db = db
        self.path = path
        self.journal = Journal(None, sync_each=False)
        """The journal (`server.journal`); in memory until `open` opens the file."""
        self._orders: dict[int, dict[str, tuple[str, tuple[str, ...]]]] = {}
        # game -> power -> (turn, orders): the journal's last order line per power
        # (an empty tuple clears), over the rows of ``pending_orders``.
        self._unfolded: dict[int, list[PhaseEntry]] = {}
        # game -> its phases in the journal and not (as far as the store knows) in
        # SQLite, in seq order.
        self._gathered = 0              # how many phases `_unfolded` holds
        self._gathered_since = 0.0      # time.monotonic() of the oldest of them
        self.on_fold_due: Callable[[], None] | None = None
        """Called when `fold` is due (`FOLD_PHASES`, `FOLD_SECONDS`): the callee calls
        it soon (`server.durability`).  None: `record_phase` folds when it is due; so
        it does if `FOLD_AT_ONCE` phases have gathered all the same."""
        self.on_commit: Callable[[], None] | None = None
        """Called after each commit (`server.durability`'s WAL watch: without commits
        the WAL does not grow, and there is nothing to look at)."""
        self.on_gathering: Callable[[], None] | None = None
        """Called when a phase is recorded while none was waiting for a fold: the
        folder (`server.durability`) sleeps without a timer while there is nothing
        to fold, and wakes on this to fold within `FOLD_SECONDS`."""
        self.failure: str | None = None
        """Why writes stopped (`StorageFailure`), or None while the store is healthy."""
        self.on_failure: Callable[[str], None] | None = None
        """Called once, with the reason, when the first storage failure latches."""
        self.readonly = False
        """Opened with `open_readonly`: nothing is written, not even a checkpoint."""

    @classmethod
    def open(cls, path: Path | str) -> Store:
        """Open (creating if needed) the database at ``path`` (``":memory:"`` for tests)."""
        db = connect_sqlite(path)
        db.execute("PRAGMA foreign_keys = ON")
        store = cls(db, str(path))
        try:
            with store._transaction():
                migrate(db)
            if not store.in_memory:
                where = journal_path(store.path)
                try:
                    replay = read_journal(where)
                    store.journal = Journal(where, sync_each=cls.syncs_commits, replay=replay)
                except OSError as exc:
                    raise StoreError(f"cannot open the order journal {where}:"
                                     f" {exc.strerror or exc}") from None
                store._remember(replay)
        except BaseException:
            db.close()
            raise
        return store

    @classmethod
    def open_readonly(cls, path: Path | str) -> Store:
        """Open an existing database for reading only (`daide export`, `daide games`),
        beside a running server or not (`server.schema.connect_readonly`).

        StoreError if the file is not a server database of this schema.
        """
        # The accepted orders and the phases of running games, as the server has
        # them now (a line being written at this moment is not complete yet: no
        # warning).  Read before any table (see the module docstring).
        replay = read_journal(journal_path(str(path)), warn=False)
        store = cls(connect_readonly(path), str(path))
        store.readonly = True
        store._remember(replay)
        return store

    @property
    def in_memory(self) -> bool:
        """An SQLite in-memory (or temporary) database: no files, the journal in memory."""
        return self.path in ("", ":memory:") or "mode=memory" in self.path

    def _remember(self, replay: Replay) -> None:
        """Hold what the journal holds: the live order entries and the phases not yet
        in SQLite (the file keeps folded ones until it is compacted)."""
        for (game_id, power), entry in replay.entries.items():
            self._orders.setdefault(game_id, {})[power] = entry
        stored: dict[int, int | None] = {}
        for (game_id, seq), phase in sorted(replay.phases.items()):
            if game_id not in stored:
                known = self._db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,))
                # None: no such game (the journal is not this database's): skipped.
                stored[game_id] = self._folded_seq(game_id) if known.fetchone() else None
            last = stored[game_id]
            # The next phase of the game, and no other: a gap (a line a power cut
            # garbled) ends what the journal can add.
            if last is not None and seq == last + 1:
                self._unfolded.setdefault(game_id, []).append(phase)
                self._gathered += 1
                stored[game_id] = seq
        self._gathered_since = time.monotonic()

    def _folded_seq(self, game_id: int) -> int:
        """The game's last phase in SQLite (-1: none)."""
        row = self._db.execute("SELECT MAX(seq) FROM phases WHERE game_id = ?",
                               (game_id,)).fetchone()
        return -1 if row[0] is None else int(row[0])

    def close(self) -> None:
        """Fold the phases gathered, checkpoint the WAL into the main file and close
        (no checkpoint after a failure: the journal keeps the phases for the next start)."""
        try:
            if self.failure is None and not self.readonly:
                try:
                    self.fold()
                except StoreError:
                    pass                # latched (reported); the journal has them
            if self.failure is None and not self.readonly:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._db.close()
            self.journal.close()

    def fail(self, reason: str) -> StorageFailure:
        """Latch a storage failure (first reason wins); returns the error to raise."""
        if self.failure is None:
            self.failure = reason
            if self.on_failure is not None:
                self.on_failure(reason)
        return StorageFailure(f"cannot write {self.path}: {self.failure}")

    def _journal_failed(self, exc: OSError) -> StorageFailure:
        return self.fail(failure_reason(exc, journal_path(self.path)))

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        if self.failure is not None:
            raise self.fail(self.failure)
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
                self._db.execute("COMMIT")
                if self.on_commit is not None:
                    self.on_commit()
            except BaseException:
                self._rollback()
                raise
        except sqlite3.Error as exc:
            reason = storage_reason(exc)
            if reason is None:
                raise
            raise self.fail(f"{reason} ({exc})") from exc

    def _rollback(self) -> None:
        # SQLite may already have rolled back (disk full, I/O error): then
        # ROLLBACK itself fails, and must not hide the error that caused it.
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    @contextmanager
    def _synchronous(self, level: str) -> Iterator[None]:
        """SQLite's ``synchronous`` setting ``level`` for the commits inside, then the
        store's own again."""
        before = int(self._db.execute("PRAGMA synchronous").fetchone()[0])
        self._db.execute(f"PRAGMA synchronous = {level}")
        try:
            yield
        finally:
            self._db.execute(f"PRAGMA synchronous = {before:d}")

    # --- writes --------------------------------------------------------------

    def create_game(self, settings: GameSettings, hosted: HostedState | None = None,
                    action: AdminAction | None = None) -> int:
        """A new game that is forming (waiting for players); returns its id.  A host's
        game (``hosted``) is stored with its state and the admin action that made it."""
        with self._transaction():
            cur = self._db.execute(
                "INSERT INTO games (settings, status, created_at) VALUES (?, 'forming', ?)",
                (settings.to_json(), utc_now()),
            )
            assert cur.lastrowid is not None
            if hosted is not None:
                self._db.execute("INSERT INTO hosted (game_id, state) VALUES (?, ?)",
                                 (cur.lastrowid, hosted.to_json()))
            if action is not None:
                self._log_action(cur.lastrowid, action)
        return cur.lastrowid

    def record_admin(self, game_id: int, action: AdminAction, *,
                     hosted: HostedState | None = None, seat: Seat | None = None) -> None:
        """One admin action, with what it changed (the hosted state, a seat's passcode),
        in one transaction: a restart sees the game before it or after it."""
        with self._transaction():
            if hosted is not None:
                self._db.execute("UPDATE hosted SET state = ? WHERE game_id = ?",
                                 (hosted.to_json(), game_id))
            if seat is not None:
                self._db.execute("UPDATE seats SET passcode = ?, client_name = ?,"
                                 " client_version = ? WHERE game_id = ? AND power = ?",
                                 (seat.passcode, seat.client_name, seat.client_version,
                                  game_id, seat.power))
            self._log_action(game_id, action)

    def _log_action(self, game_id: int, action: AdminAction) -> None:
        row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM admin_log WHERE game_id = ?",
                               (game_id,)).fetchone()
        self._db.execute("INSERT INTO admin_log (game_id, seq, at, origin, action, outcome)"
                         " VALUES (?, ?, ?, ?, ?, ?)",
                         (game_id, int(row[0]) + 1, action.at, action.origin, action.action,
                          action.outcome))

    def admin_log(self, game_id: int) -> list[AdminAction]:
        """The game's admin actions, oldest first."""
        rows = self._db.execute("SELECT * FROM admin_log WHERE game_id = ? ORDER BY seq",
                                (game_id,)).fetchall()
        return [AdminAction(r["at"], r["origin"], r["action"], r["outcome"]) for r in rows]

    def start_game(self, game_id: int, seats: Sequence[Seat], turn: str,
                   sco: str, now: str, hosted: HostedState | None = None) -> None:
        """Record the start: seats and passcodes, the starting position as phase 0
        (a hosted game's state too: which powers its server-started bots play)."""
        stamp = utc_now()
        with self._transaction():
            if hosted is not None:
                self._db.execute("UPDATE hosted SET state = ? WHERE game_id = ?",
                                 (hosted.to_json(), game_id))
            self._db.executemany(
                "INSERT INTO seats (game_id, power, passcode, client_name, client_version)"
                " VALUES (?, ?, ?, ?, ?)",
                [(game_id, s.power, s.passcode, s.client_name, s.client_version) for s in seats],
            )
            self._db.execute(
                "INSERT INTO phases (game_id, seq, turn, orders, messages, sco, now, processed_at)"
                " VALUES (?, 0, ?, '{}', ?, ?, ?, ?)",
                (game_id, turn, encode_json((sco, now)), sco, now, stamp),
            )
            self._db.execute(
                "UPDATE games SET turn = ?, sco = ?, now = ?, status = 'running', started_at = ?"
                " WHERE id = ?", (turn, sco, now, stamp, game_id))

    def save_orders(self, game_id: int, power: str, turn: str, orders: Sequence[str]) -> None:
        """Replace one power's accepted orders for the current phase (an empty list clears them).

        One line appended to the journal: one ``write``, no SQLite commit -
        every SUB of every game comes here.
        """
        if self.failure is not None:
            raise self.fail(self.failure)
        texts = tuple(orders)
        try:
            due = self.journal.append(game_id, power, turn, texts)
        except OSError as exc:
            raise self._journal_failed(exc) from exc
        self._orders.setdefault(game_id, {})[power] = (turn, texts)
        if due:
            self._compact()

    def _compact(self) -> None:
        """Rewrite the journal with the live order entries only (it grew past its
        limit), once the phases are in SQLite."""
        self.fold()
        entries = {(g, p): e for g, powers in self._orders.items() for p, e in powers.items()}
        try:
            self.journal.rewrite(entries)
        except OSError as exc:
            raise self._journal_failed(exc) from exc

    def record_phase(self, game_id: int, turn: str, orders: Mapping[str, Sequence[str]],
                     messages: Sequence[str], sco: str, now: str, new_turn: str,
                     ending: Sequence[str] = ()) -> int:
        """Store one processed phase and the new position: one journal line (`fold`
        puts it into SQLite later).

        ``ending`` (the SLO/DRW and SMR texts) finishes the game.  Returns the
        phase's sequence number.
        """
        if self.failure is not None:
            raise self.fail(self.failure)
        unfolded = self._unfolded.get(game_id)
        seq = 1 + (unfolded[-1].seq if unfolded else self._folded_seq(game_id))
        # The caller's lists are kept as they are (copies cost more than the rest).
        try:
            phase = self.journal.append_phase(
                game_id, seq, turn, {power: orders[power] for power in sorted(orders)},
                messages, sco, now, new_turn, ending, time.time())
        except OSError as exc:
            raise self._journal_failed(exc) from exc
        # Written: the game's order lines are of an earlier turn now, dead.
        self._orders.pop(game_id, None)
        self._unfolded.setdefault(game_id, []).append(phase)
        self._gathered += 1
        if self._gathered == 1:
            self._gathered_since = time.monotonic()
            if self.on_gathering is not None:
                self.on_gathering()
        if self._gathered >= FOLD_PHASES or \
                time.monotonic() - self._gathered_since >= FOLD_SECONDS:
            if self.on_fold_due is not None and self._gathered < FOLD_AT_ONCE:
                self.on_fold_due()
            else:
                self.fold()
        if self.journal.due:
            self._compact()
        return seq

    @property
    def gathered(self) -> bool:
        """Phases wait in the journal for `fold`."""
        return self._gathered > 0

    def fold(self) -> None:
        """Write the phases gathered in the journal into SQLite, in one transaction
        (`server.fold`).  A failure latches the store (`StorageFailure`); the phases
        stay in the journal and in memory, and the next start folds them."""
        if not self._unfolded or self.readonly:
            return
        try:
            with self._transaction():
                fold_phases(self._db, self._unfolded)
        except sqlite3.Error as exc:       # not the storage's fault, yet SQLite refused them
            raise self.fail(f"database error ({exc})") from exc
        self._unfolded.clear()
        self._gathered = 0

    def finish_game(self, game_id: int, ending: Sequence[str]) -> None:
        """End a game outside phase processing (an agreed draw)."""
        self.fold()
        with self._transaction():
            self._db.execute("DELETE FROM pending_orders WHERE game_id = ?", (game_id,))
            finish(self._db, game_id, ending, utc_now())
        self._orders.pop(game_id, None)

    def save_press(self, game_id: int, turn: str, sender: str, recipients: Sequence[str],
                   message: str) -> int:
        """Store one delivered press message; returns its sequence number.

        The commit does not wait for the disk (``synchronous = NORMAL`` for
        this transaction, then the store's own setting again): in WAL mode
        the row survives a crash of the process at once and a power failure
        from the next fsync of the log on (the next phase commit of
        a plain store; `server.durability` syncs before anything is sent).
        So a flood of press costs the game actor no disk waits (`server.press`).
        """
        stamp = utc_now()
        with self._unsynced_transaction():
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM press"
                                   " WHERE game_id = ?", (game_id,)).fetchone()
            seq = int(row[0]) + 1
            self._db.execute(
                "INSERT INTO press (game_id, seq, turn, sender, recipients, message, sent_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, seq, turn, sender, " ".join(recipients), message, stamp),
            )
        return seq

    @contextmanager
    def _unsynced_transaction(self) -> Iterator[None]:
        """One transaction whose commit does not wait for the disk (`save_press`); a
        group-commit store never syncs a commit itself."""
        with self._synchronous("NORMAL") if self.syncs_commits else nullcontext():
            with self._transaction():
                yield

    def save_refusals(self, game_id: int, turn: str, power: str,
                      refused: Sequence[tuple[str, str]]) -> None:
        """What the server refused from ``power`` in ``turn`` (text, answer: an order and its
        THX note, or a message and HUH, PRN or REJ - `server.refusals`), for its author's
        log; one transaction, committed without waiting for the disk, as press is
        (`save_press`)."""
        stamp = utc_now()
        with self._unsynced_transaction():
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM refusals"
                                   " WHERE game_id = ?", (game_id,)).fetchone()
            first = int(row[0]) + 1
            self._db.executemany(
                "INSERT INTO refusals (game_id, seq, turn, power, sent, answer, at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(game_id, first + i, turn, power, sent, answer, stamp)
                 for i, (sent, answer) in enumerate(refused)])

    def refusals(self, game_id: int) -> list[RefusalRecord]:
        """Everything refused in a game (orders, and messages answered HUH, PRN or REJ),
        oldest first (none from an older database)."""
        try:
            rows = self._db.execute("SELECT * FROM refusals WHERE game_id = ? ORDER BY seq",
                                    (game_id,)).fetchall()
        except sqlite3.OperationalError:     # a read-only look at an older server's database
            return []
        return [RefusalRecord(r["seq"], r["turn"], r["power"], r["sent"], r["answer"], r["at"])
                for r in rows]

    def abandon_forming(self, game_id: int) -> None:
        """Delete a game that never started (server shutdown while forming); a host's
        game is kept: it forms again after the restart."""
        with self._transaction():
            self._db.execute("DELETE FROM games WHERE id = ? AND status = 'forming'"
                             " AND id NOT IN (SELECT game_id FROM hosted)", (game_id,))

    def load_unfinished(self) -> list[GameRecord]:
        """The running games, to resume after a restart, and the hosts' forming games
        (the other forming games are dropped).

        The server's start: the journal's phases are folded into ``phases``
        and ``games``, its live order entries into ``pending_orders`` (one
        transaction, synced to disk), and the journal starts afresh.
        """
        with self._synchronous("FULL"), self._transaction():
            self._db.execute("DELETE FROM games WHERE status = 'forming'"
                             " AND id NOT IN (SELECT game_id FROM hosted)")
            fold_phases(self._db, self._unfolded)
            fold_orders(self._db, self._orders)
        self._unfolded.clear()
        self._gathered = 0
        self._orders.clear()
        try:
            self.journal.rewrite({})
        except OSError as exc:
            raise self._journal_failed(exc) from exc
        with self._snapshot():
            rows = self._db.execute(
                "SELECT * FROM games WHERE status IN ('running', 'forming') ORDER BY id").fetchall()
            return [self._merged(row)[0] for row in rows]

    # --- reads ---------------------------------------------------------------

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """One read transaction: the statements inside see one state of the database,
        whatever a writer in another process commits meanwhile."""
        self._db.execute("BEGIN")
        try:
            yield
        finally:
            self._db.execute("COMMIT")

    def game(self, game_id: int) -> GameRecord:
        """One game; StoreError if there is none with that id."""
        with self._snapshot():
            row = self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise StoreError(f"no game {game_id} in {self.path}")
            return self._merged(row)[0]

    def games(self) -> list[GameRecord]:
        """Every game, oldest first."""
        with self._snapshot():
            rows = self._db.execute("SELECT * FROM games ORDER BY id").fetchall()
            return [self._merged(row)[0] for row in rows]

    def phases(self, game_id: int) -> list[PhaseRecord]:
        """Every processed phase of a game, the start (seq 0) first."""
        with self._snapshot():
            row = self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
            return [] if row is None else self._merged(row, phases=True)[1]

    def _merged(self, row: sqlite3.Row, *,
                phases: bool = False) -> tuple[GameRecord, list[PhaseRecord]]:
        """The game of ``row`` - and, with ``phases``, its phases - as SQLite and the
        journal hold them together (`server.gamelog.merge`); in a `_snapshot`."""
        game_id = row["id"]
        seats = tuple(
            Seat(r["power"], r["passcode"], r["client_name"], r["client_version"])
            for r in self._db.execute("SELECT * FROM seats WHERE game_id = ? ORDER BY power",
                                      (game_id,))
        )
        pending = {r["power"]: tuple(json.loads(r["orders"])) for r in self._db.execute(
            "SELECT power, orders FROM pending_orders WHERE game_id = ? AND turn = ?",
            (game_id, row["turn"]))}
        hosted = self._hosted_row(game_id)
        folded = GameRecord(
            id=game_id, settings=GameSettings.from_json(row["settings"]), status=row["status"],
            created_at=row["created_at"], started_at=row["started_at"],
            finished_at=row["finished_at"], turn=row["turn"], sco=row["sco"], now=row["now"],
            ending=tuple(json.loads(row["ending"])) if row["ending"] else (),
            seats=seats, pending=pending, pending_turn=row["turn"] if pending else None,
            hosted=HostedState.from_json(hosted["state"]) if hosted is not None else None,
        )
        folded_phases = []
        if phases:
            folded_phases = [
                PhaseRecord(seq=r["seq"], turn=r["turn"],
                            orders={p: tuple(o) for p, o in json.loads(r["orders"]).items()},
                            messages=tuple(json.loads(r["messages"])), sco=r["sco"],
                            now=r["now"], processed_at=r["processed_at"])
                for r in self._db.execute("SELECT * FROM phases WHERE game_id = ? ORDER BY seq",
                                          (game_id,))]
        journal = self._unfolded.get(game_id, ())
        folded_seq = -1
        if folded_phases:
            folded_seq = folded_phases[-1].seq
        elif journal:
            folded_seq = self._folded_seq(game_id)
        return merge(folded, folded_seq, folded_phases, journal, self._orders.get(game_id, {}))

    def _hosted_row(self, game_id: int) -> sqlite3.Row | None:
        try:
            row: sqlite3.Row | None = self._db.execute(
                "SELECT state FROM hosted WHERE game_id = ?", (game_id,)).fetchone()
        except sqlite3.OperationalError:     # a read-only look at an older server's database
            return None
        return row

    def press(self, game_id: int) -> list[PressRecord]:
        """Every press message delivered in a game, in the order it was delivered."""
        rows = self._db.execute("SELECT * FROM press WHERE game_id = ? ORDER BY seq",
                                (game_id,)).fetchall()
        return [PressRecord(seq=r["seq"], turn=r["turn"], sender=r["sender"],
                            recipients=tuple(r["recipients"].split()), message=r["message"],
                            sent_at=r["sent_at"])
                for r in rows]
