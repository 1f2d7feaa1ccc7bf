"""SQLite persistence: nothing the server accepted is ever lost.

One database file (WAL journal, ``synchronous=FULL``) holds every game:

* ``games`` - settings (JSON), status (``forming`` / ``running`` /
  ``finished``), the current turn and position, the end of the game;
* ``seats`` - per power: passcode and the name/version the client gave;
* ``pending_orders`` - accepted orders of the current phase carried over a
  restart, one row per power holding that power's whole order list.  While
  the server runs, each change of a power's orders (SUB, NOT (SUB)) is one
  line appended to the journal ``DB-orders`` beside the database
  (`server.journal`), before THX/YES are sent; when the server starts,
  `load_unfinished` folds the journal's live lines into this table (one
  transaction) and starts a fresh journal;
* ``phases`` - one row per processed phase (``seq`` 0 is the game's start):
  the orders adjudicated, the messages announced (ORD..., SCO, SLO, NOW), the
  SCO and NOW after it.  A processed phase is first one line of the journal
  (`record_phase`: one ``write``, before any client hears of the result,
  docs/architecture.md "One turn", step 4), which makes the game's order
  lines dead.  `fold` then writes the gathered phases into SQLite, several
  per transaction: each phase row, the game's new position in ``games``
  (once per game and batch) and the clearing of its ``pending_orders``
  rows.  It runs once `FOLD_PHASES` phases have gathered or the oldest has
  waited `FOLD_SECONDS` (`server.durability` does it between the game
  actors' turns, and at idle), before the journal is compacted, when a game
  is drawn, at the server's start and when the store closes.  Until then the
  store answers from memory: `game`, `games` and `phases` show every phase
  recorded, folded or not.  Folding is idempotent (a phase already in the
  table is skipped, a game's position never goes back), so a crash between
  a fold's commit and the journal's compaction loses and repeats nothing;
* ``press`` - every press message the server delivered (docs/protocol.md §16.1),
  numbered per game in the one global order all players saw it in: the
  turn, sender, recipients, the FRM text as delivered and the time.  Added
  by ``CREATE TABLE IF NOT EXISTS``, so a database of an older server gains
  it on opening and keeps schema 1.

Messages and orders are stored in the DAIDE text form (docs/protocol.md §6.8), so
the database reads like a game log and `daide export` needs no decoding.

A game's accepted orders (`GameRecord.pending`) are the table's rows of the
game's current turn, overridden per power by the journal's last line of that
turn (an empty list clears).  Readers in another process (`open_readonly`:
`daide export`, `daide games`, `daide render`) read the journal file too, so
they see the orders and the phases the running server holds (a phase line
whose ``seq`` the table has is skipped); they never write it.  They read the
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
import math
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from server.journal import (
    Journal,
    PhaseEntry,
    Replay,
    encode_json,
    failure_reason,
    journal_path,
    read_journal,
)
from server.settings import GameSettings

SCHEMA_VERSION = 1

#: Phases gathered in the journal from which `Store.fold` writes them into SQLite,
#: one transaction for all: ~16 us of CPU per phase instead of ~60-160 us for a
#: transaction of its own (in the server, where its other work keeps SQLite's
#: pages out of the CPU caches).
FOLD_PHASES = 32
#: ... or once the oldest of them has waited this long (seconds).
FOLD_SECONDS = 1.0
#: Without anyone to fold them between turns (`Store.on_fold_due`), the store
#: folds them itself once this many have gathered.
_FOLD_AT_ONCE = 4 * FOLD_PHASES

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY,
    settings    TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('forming', 'running', 'finished')),
    created_at  TEXT NOT NULL,
    started_at  TEXT,
    finished_at TEXT,
    turn        TEXT,
    sco         TEXT,
    now         TEXT,
    ending      TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    game_id        INTEGER NOT NULL REFERENCES games (id),
    power          TEXT NOT NULL,
    passcode       INTEGER NOT NULL,
    client_name    TEXT NOT NULL,
    client_version TEXT NOT NULL,
    PRIMARY KEY (game_id, power)
);
CREATE TABLE IF NOT EXISTS pending_orders (
    game_id INTEGER NOT NULL REFERENCES games (id),
    power   TEXT NOT NULL,
    turn    TEXT NOT NULL,
    orders  TEXT NOT NULL,
    PRIMARY KEY (game_id, power)
);
CREATE TABLE IF NOT EXISTS phases (
    game_id      INTEGER NOT NULL REFERENCES games (id),
    seq          INTEGER NOT NULL,
    turn         TEXT NOT NULL,
    orders       TEXT NOT NULL,
    messages     TEXT NOT NULL,
    sco          TEXT NOT NULL,
    now          TEXT NOT NULL,
    processed_at TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS press (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    seq        INTEGER NOT NULL,
    turn       TEXT NOT NULL,
    sender     TEXT NOT NULL,
    recipients TEXT NOT NULL,
    message    TEXT NOT NULL,
    sent_at    TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""



def connect_sqlite(path: Path | str) -> sqlite3.Connection:
    """The project's SQLite connection: autocommit (explicit transactions),
    rows by name, WAL with full sync, and a busy timeout so the server and a
    tournament can share one file."""
    db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    db.execute("PRAGMA busy_timeout = 5000")
    return db

class StoreError(Exception):
    """The database is unusable (wrong schema, unknown game, ...)."""


class StorageFailure(StoreError):
    """A write failed because of the storage: disk full, read-only, I/O error.

    The first one latches the store (`Store.failure`): every later write
    fails at once, without touching the file, so the database keeps the last
    state that was committed whole and a restart resumes from it.
    """


#: SQLite result codes that mean the storage, not the data, is at fault.
_STORAGE_ERRORS = {
    "SQLITE_FULL": "disk full",
    "SQLITE_READONLY": "database is read-only",
    "SQLITE_IOERR": "disk I/O error",
    "SQLITE_CANTOPEN": "database file cannot be opened",
    "SQLITE_PERM": "no permission to write the database",
    "SQLITE_CORRUPT": "database file is corrupt",
    "SQLITE_NOTADB": "not a database file",
}


def storage_reason(exc: sqlite3.Error) -> str | None:
    """A short reason if ``exc`` is a storage failure (see `StorageFailure`), else None."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    for prefix, reason in _STORAGE_ERRORS.items():
        if name == prefix or name.startswith(prefix + "_"):
            return reason
    return None


@dataclass(frozen=True)
class Seat:
    """One power of a game: its passcode and the client that took it."""

    power: str
    passcode: int
    client_name: str
    client_version: str


@dataclass(frozen=True)
class PhaseRecord:
    """One processed phase (``seq`` 0 = the start of the game).

    ``orders`` maps each power to the text of the orders adjudicated for it;
    ``messages`` are the texts announced, in order; ``sco``/``now`` describe
    the position after the phase (what HST answers).
    """

    seq: int
    turn: str
    orders: Mapping[str, tuple[str, ...]]
    messages: tuple[str, ...]
    sco: str
    now: str
    processed_at: str


@dataclass(frozen=True)
class PressRecord:
    """One delivered press message: ``seq`` is its place in the game's global
    press order (from 1), ``message`` the FRM text the recipients got."""

    seq: int
    turn: str
    sender: str
    recipients: tuple[str, ...]
    message: str
    sent_at: str


@dataclass(frozen=True)
class GameRecord:
    """A game as stored: enough to resume it or export it."""

    id: int
    settings: GameSettings
    status: str
    created_at: str
    started_at: str | None
    finished_at: str | None
    turn: str | None
    sco: str | None
    now: str | None
    ending: tuple[str, ...]
    seats: tuple[Seat, ...]
    pending: Mapping[str, tuple[str, ...]]
    pending_turn: str | None


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


#: The last whole second `_utc` wrote, and its text up to the seconds.
_utc_second: tuple[int, str] = (-1, "")


def _utc(seconds: float) -> str:
    """A `time.time` as `_utc_now` writes the time: what
    ``datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")``
    gives, with the text of the whole second kept (the phases of a fold
    come from the same second or a few, and `datetime` costs ~15 us a call).
    """
    global _utc_second
    # As datetime.fromtimestamp does: microseconds rounded half to even.
    fraction, whole = math.modf(seconds)
    micros = round(fraction * 1e6)
    if micros >= 1_000_000:
        whole += 1.0
        micros -= 1_000_000
    elif micros < 0:
        whole -= 1.0
        micros += 1_000_000
    second = int(whole)
    if _utc_second[0] != second:
        _utc_second = (second, datetime.fromtimestamp(second, UTC).isoformat())
    return f"{_utc_second[1][:19]}.{micros // 1000:03d}+00:00"


class Store:
    """The server's database.  Open with `Store.open`, close with `close`."""

    #: Each commit and each journal line is fsynced (SQLite ``synchronous = FULL``);
    #: `server.durability.GroupCommitStore` leaves syncing to its flusher.
    syncs_commits = True

    def __init__(self, db: sqlite3.Connection, path: str) -> None:
        self._db = db
        self.path = path
        self.journal = Journal(None, sync_each=False)
        """The order journal (`server.journal`); in memory until `open` opens the file."""
        self._live: dict[int, dict[str, tuple[str, tuple[str, ...]]]] = {}
        # game -> power -> (turn, orders): the journal's last entry per power
        # (an empty tuple clears), over the rows of ``pending_orders``.
        self._table_pending: set[int] = set()
        # The games with rows in ``pending_orders`` (only after a restart's fold).
        self._last_seq: dict[int, int] = {}
        # game -> its last phase's seq, once known: no MAX(seq) per phase.
        self._last_press: dict[int, int] = {}
        # game -> its last press message's seq, likewise.
        self._unfolded: dict[int, list[PhaseEntry]] = {}
        # game -> its phases recorded in the journal and not yet in SQLite, in seq order.
        self._unfolded_count = 0
        self._unfolded_since = 0.0      # time.monotonic() of the oldest of them
        self.on_fold_due: Callable[[], None] | None = None
        """Called when `fold` is due (`FOLD_PHASES`, `FOLD_SECONDS`): the callee calls
        it soon (`server.durability`).  None: `record_phase` folds when it is due; so
        it does if `_FOLD_AT_ONCE` phases have gathered all the same."""
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
            store._migrate()
            store._table_pending = {r[0] for r in db.execute(
                "SELECT DISTINCT game_id FROM pending_orders")}
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

    @property
    def in_memory(self) -> bool:
        """An SQLite in-memory (or temporary) database: no files, the journal in memory."""
        return self.path in ("", ":memory:") or "mode=memory" in self.path

    def _remember(self, replay: Replay) -> None:
        """Hold what the journal holds: the live order entries and the phases not yet
        in SQLite (the file keeps folded ones until it is compacted)."""
        for (game_id, power), entry in replay.entries.items():
            self._live.setdefault(game_id, {})[power] = entry
        stored: dict[int, int | None] = {}
        for (game_id, seq), phase in sorted(replay.phases.items()):
            if game_id not in stored:
                known = self._db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,))
                # None: no such game (the journal is not this database's): skipped.
                stored[game_id] = self._stored_seq(game_id) if known.fetchone() else None
            last = stored[game_id]
            # The next phase of the game, and no other: a gap (a line a power cut
            # garbled) ends what the journal can add.
            if last is not None and seq == last + 1:
                self._unfolded.setdefault(game_id, []).append(phase)
                self._unfolded_count += 1
                self._last_seq[game_id] = stored[game_id] = seq
        self._unfolded_since = time.monotonic()

    def _stored_seq(self, game_id: int) -> int:
        """The game's last phase in SQLite (-1: none)."""
        row = self._db.execute("SELECT MAX(seq) FROM phases WHERE game_id = ?",
                               (game_id,)).fetchone()
        return -1 if row[0] is None else int(row[0])

    @classmethod
    def open_readonly(cls, path: Path | str) -> Store:
        """Open an existing database for reading only (`daide export`, `daide games`).

        Safe beside a running server: a WAL reader sees the last committed
        state and never blocks the writer.  Nothing is created or migrated;
        StoreError if the file is not a server database of this schema.
        """
        uri = Path(path).resolve().as_uri()
        db = sqlite3.connect(uri + "?mode=ro", uri=True, isolation_level=None,
                             check_same_thread=False)
        try:
            db.execute("PRAGMA busy_timeout = 5000")
            db.execute("SELECT 1 FROM sqlite_master LIMIT 1")
        except sqlite3.DatabaseError as exc:
            db.close()
            if not isinstance(exc, sqlite3.OperationalError):
                raise StoreError(f"{path} is not a server database ({exc})") from None
            # A WAL reader must create the -shm file; in a read-only directory
            # it cannot.  Without a -wal file no writer is at work (one would
            # have had to create it), so the main file alone is the database.
            if Path(f"{path}-wal").exists() or not Path(path).is_file():
                raise
            db = sqlite3.connect(uri + "?immutable=1", uri=True, isolation_level=None,
                                 check_same_thread=False)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA busy_timeout = 5000")
        replay = read_journal(journal_path(str(path)), warn=False)
        store = cls(db, str(path))
        store.readonly = True
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.DatabaseError as exc:
            db.close()
            if "no such table" in str(exc):
                raise StoreError(f"{path} is not a server database (no schema)") from None
            raise
        if row is None or int(row["value"]) != SCHEMA_VERSION:
            db.close()
            raise StoreError(f"database schema {row['value'] if row else 'missing'}, "
                             f"this server needs {SCHEMA_VERSION}")
        # The accepted orders and the phases of running games, as the server has
        # them now (a line being written at this moment is not complete yet: no
        # warning).  Read before any table (see the module docstring).
        store._remember(replay)
        return store

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

    def _migrate(self) -> None:
        with self._transaction():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            row = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                self._db.execute("INSERT INTO meta (key, value) VALUES ('schema', ?)",
                                 (str(SCHEMA_VERSION),))
            elif int(row["value"]) != SCHEMA_VERSION:
                raise StoreError(f"database schema {row['value']}, this server needs {SCHEMA_VERSION}")

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

    # --- writes --------------------------------------------------------------

    def create_game(self, settings: GameSettings) -> int:
        """A new game that is forming (waiting for players); returns its id."""
        with self._transaction():
            cur = self._db.execute(
                "INSERT INTO games (settings, status, created_at) VALUES (?, 'forming', ?)",
                (settings.to_json(), _utc_now()),
            )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def start_game(self, game_id: int, seats: Sequence[Seat], turn: str,
                   sco: str, now: str) -> None:
        """Record the start: seats and passcodes, the starting position as phase 0."""
        stamp = _utc_now()
        with self._transaction():
            self._db.executemany(
                "INSERT INTO seats (game_id, power, passcode, client_name, client_version)"
                " VALUES (?, ?, ?, ?, ?)",
                [(game_id, s.power, s.passcode, s.client_name, s.client_version) for s in seats],
            )
            self._db.execute(
                "INSERT INTO phases (game_id, seq, turn, orders, messages, sco, now, processed_at)"
                " VALUES (?, 0, ?, '{}', ?, ?, ?, ?)",
                (game_id, turn, json.dumps([sco, now]), sco, now, stamp),
            )
            self._update_position(game_id, turn, sco, now, status="running", started_at=stamp)
        self._last_seq[game_id] = 0

    def save_orders(self, game_id: int, power: str, turn: str, orders: Sequence[str]) -> None:
        """Replace one power's accepted orders for the current phase (an empty list clears them).

        One line appended to the order journal (`server.journal`): one
        ``write``, no SQLite commit - every SUB of every game comes here.
        """
        if self.failure is not None:
            raise self.fail(self.failure)
        texts = tuple(orders)
        try:
            due = self.journal.append(game_id, power, turn, texts)
        except OSError as exc:
            raise self.fail(failure_reason(exc, journal_path(self.path))) from exc
        live = self._live.get(game_id)
        if live is None:
            live = self._live[game_id] = {}
        live[power] = (turn, texts)
        if due:
            self._compact()

    def _compact(self) -> None:
        """Rewrite the journal with the live order entries only (it grew past its
        limit), once the phases are in SQLite."""
        self.fold()
        entries = {(g, p): e for g, powers in self._live.items() for p, e in powers.items()}
        try:
            self.journal.rewrite(entries)
        except OSError as exc:
            raise self.fail(failure_reason(exc, journal_path(self.path))) from exc

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
        seq = self._next_seq("phases", self._last_seq, game_id)
        # The caller's lists are kept as they are (copies cost more than the rest).
        try:
            phase = self.journal.append_phase(
                game_id, seq, turn, {power: orders[power] for power in sorted(orders)},
                messages, sco, now, new_turn, ending, time.time())
        except OSError as exc:
            raise self.fail(failure_reason(exc, journal_path(self.path))) from exc
        # Written: the game's order lines are of an earlier turn now, dead.
        self._last_seq[game_id] = seq
        self._live.pop(game_id, None)
        unfolded = self._unfolded.get(game_id)
        if unfolded is None:
            unfolded = self._unfolded[game_id] = []
        unfolded.append(phase)
        self._unfolded_count += 1
        if self._unfolded_count == 1:
            self._unfolded_since = time.monotonic()
            if self.on_gathering is not None:
                self.on_gathering()
        if self._unfolded_count >= FOLD_PHASES or \
                time.monotonic() - self._unfolded_since >= FOLD_SECONDS:
            if self.on_fold_due is not None and self._unfolded_count < _FOLD_AT_ONCE:
                self.on_fold_due()
            else:
                self.fold()
        if self.journal.due:
            self._compact()
        return seq

    @property
    def gathered(self) -> bool:
        """Phases wait in the journal for `fold`."""
        return self._unfolded_count > 0

    def fold(self) -> None:
        """Write the phases gathered in the journal into SQLite, in one transaction
        (see the module docstring).  A failure latches the store (`StorageFailure`);
        the phases stay in the journal and in memory, and the next start folds them."""
        if not self._unfolded or self.readonly:
            return
        try:
            with self._transaction():
                self._fold_phases()
        except sqlite3.Error as exc:       # not the storage's fault, yet SQLite refused them
            raise self.fail(f"database error ({exc})") from exc
        self._table_pending.difference_update(self._unfolded)
        self._unfolded.clear()
        self._unfolded_count = 0

    def _fold_phases(self) -> None:
        """`fold`'s writes, in the caller's transaction."""
        self._db.executemany(
            "INSERT OR IGNORE INTO phases (game_id, seq, turn, orders, messages, sco, now,"
            " processed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(p.game_id, p.seq, p.turn, p.orders_json or encode_json(p.orders),
              p.messages_json or encode_json(p.messages), p.sco, p.now, _utc(p.processed_at))
             for phases in self._unfolded.values() for p in phases])
        for game_id, phases in self._unfolded.items():
            last = phases[-1]
            # The position after the game's last phase, unless a later one is in already.
            self._db.execute(
                "UPDATE games SET turn = ?, sco = ?, now = ? WHERE id = ? AND NOT EXISTS"
                " (SELECT 1 FROM phases WHERE game_id = ? AND seq > ?)",
                (last.new_turn, last.sco, last.now, game_id, game_id, last.seq))
            for phase in phases:
                if phase.ending:
                    self._finish(game_id, phase.ending, _utc(phase.processed_at))
            if game_id in self._table_pending:
                self._db.execute("DELETE FROM pending_orders WHERE game_id = ?", (game_id,))

    def finish_game(self, game_id: int, ending: Sequence[str]) -> None:
        """End a game outside phase processing (an agreed draw)."""
        self.fold()
        with self._transaction():
            if game_id in self._table_pending:
                self._db.execute("DELETE FROM pending_orders WHERE game_id = ?", (game_id,))
            self._finish(game_id, ending, _utc_now())
        self._table_pending.discard(game_id)
        self._live.pop(game_id, None)

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
        stamp = _utc_now()
        synchronous = None              # a group-commit store never syncs a commit itself
        if self.syncs_commits:
            synchronous = int(self._db.execute("PRAGMA synchronous").fetchone()[0])
            self._db.execute("PRAGMA synchronous = NORMAL")
        try:
            with self._transaction():
                seq = self._next_seq("press", self._last_press, game_id)
                self._db.execute(
                    "INSERT INTO press (game_id, seq, turn, sender, recipients, message, sent_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (game_id, seq, turn, sender, " ".join(recipients), message, stamp),
                )
        finally:
            if synchronous is not None:
                self._db.execute(f"PRAGMA synchronous = {synchronous:d}")
        self._last_press[game_id] = seq
        return seq

    def _next_seq(self, table: str, last: dict[int, int], game_id: int) -> int:
        """The game's next ``seq`` in ``table`` ("phases" or "press"): one more
        than the last, remembered in ``last`` once read (no MAX(seq) per row).
        The caller stores it in ``last`` once its transaction has committed."""
        seq = last.get(game_id)
        if seq is None:                 # the first row since this store was opened
            row = self._db.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {table}"
                                   " WHERE game_id = ?", (game_id,)).fetchone()
            seq = int(row[0])
        return seq + 1

    def abandon_forming(self, game_id: int) -> None:
        """Delete a game that never started (server shutdown while forming)."""
        with self._transaction():
            self._db.execute("DELETE FROM games WHERE id = ? AND status = 'forming'", (game_id,))

    def _finish(self, game_id: int, ending: Sequence[str], stamp: str) -> None:
        self._db.execute(
            "UPDATE games SET status = 'finished', finished_at = ?, ending = ? WHERE id = ?",
            (stamp, json.dumps(list(ending)), game_id),
        )

    def _update_position(self, game_id: int, turn: str, sco: str, now: str, *,
                         status: str | None = None, started_at: str | None = None) -> None:
        self._db.execute(
            "UPDATE games SET turn = ?, sco = ?, now = ?,"
            " status = COALESCE(?, status), started_at = COALESCE(?, started_at) WHERE id = ?",
            (turn, sco, now, status, started_at, game_id),
        )

    # --- reads ---------------------------------------------------------------

    def game(self, game_id: int) -> GameRecord:
        """One game; StoreError if there is none with that id."""
        row = self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"no game {game_id} in {self.path}")
        return self._record(row)

    def games(self) -> list[GameRecord]:
        """Every game, oldest first."""
        rows = self._db.execute("SELECT * FROM games ORDER BY id").fetchall()
        return [self._record(r) for r in rows]

    def load_unfinished(self) -> list[GameRecord]:
        """The running games, to resume after a restart (forming games are dropped).

        The server's start: the journal's phases are folded into ``phases``
        and ``games``, its live order entries into ``pending_orders`` (one
        transaction, synced to disk), and the journal starts afresh, so it
        never grows across restarts.
        """
        synchronous = int(self._db.execute("PRAGMA synchronous").fetchone()[0])
        self._db.execute("PRAGMA synchronous = FULL")
        try:
            with self._transaction():
                self._db.execute("DELETE FROM games WHERE status = 'forming'")
                self._fold_phases()
                self._fold()
        finally:
            self._db.execute(f"PRAGMA synchronous = {synchronous:d}")
        self._unfolded.clear()
        self._unfolded_count = 0
        self._live.clear()
        self._table_pending = {r[0] for r in self._db.execute(
            "SELECT DISTINCT game_id FROM pending_orders")}
        try:
            self.journal.rewrite({})
        except OSError as exc:
            raise self.fail(failure_reason(exc, journal_path(self.path))) from exc
        rows = self._db.execute("SELECT * FROM games WHERE status = 'running' ORDER BY id").fetchall()
        return [self._record(r) for r in rows]

    def _fold(self) -> None:
        """Write the journal's live order entries into ``pending_orders`` (in a
        transaction, after `_fold_phases`)."""
        for game_id, powers in self._live.items():
            row = self._db.execute("SELECT turn FROM games WHERE id = ? AND status = 'running'",
                                   (game_id,)).fetchone()
            for power, (turn, orders) in powers.items():
                if row is None or turn != row["turn"]:
                    continue            # dead: the game moved on (or ended)
                if orders:
                    self._db.execute(
                        "INSERT INTO pending_orders (game_id, power, turn, orders)"
                        " VALUES (?, ?, ?, ?) ON CONFLICT (game_id, power) DO UPDATE"
                        " SET turn = excluded.turn, orders = excluded.orders",
                        (game_id, power, turn, json.dumps(list(orders))))
                else:
                    self._db.execute("DELETE FROM pending_orders WHERE game_id = ? AND power = ?",
                                     (game_id, power))

    def phases(self, game_id: int) -> list[PhaseRecord]:
        """Every processed phase of a game, the start (seq 0) first."""
        rows = self._db.execute("SELECT * FROM phases WHERE game_id = ? ORDER BY seq",
                                (game_id,)).fetchall()
        stored = [PhaseRecord(seq=r["seq"], turn=r["turn"],
                              orders={p: tuple(o) for p, o in json.loads(r["orders"]).items()},
                              messages=tuple(json.loads(r["messages"])), sco=r["sco"],
                              now=r["now"], processed_at=r["processed_at"])
                  for r in rows]
        last = stored[-1].seq if stored else -1
        return stored + [PhaseRecord(seq=p.seq, turn=p.turn,
                                     orders={power: tuple(o) for power, o in p.orders.items()},
                                     messages=tuple(p.messages), sco=p.sco, now=p.now,
                                     processed_at=_utc(p.processed_at))
                         for p in self._unfolded_of(game_id) if p.seq > last]

    def _unfolded_of(self, game_id: int) -> list[PhaseEntry]:
        """The game's phases recorded and not (or, as far as this reader knows, not
        yet) in SQLite."""
        phases = self._unfolded.get(game_id)
        if not phases:
            return []
        if self.readonly:               # the writer may have folded them since
            stored = self._stored_seq(game_id)
            return [p for p in phases if p.seq > stored]
        return phases

    def press(self, game_id: int) -> list[PressRecord]:
        """Every press message delivered in a game, in the order it was delivered."""
        rows = self._db.execute("SELECT * FROM press WHERE game_id = ? ORDER BY seq",
                                (game_id,)).fetchall()
        return [PressRecord(seq=r["seq"], turn=r["turn"], sender=r["sender"],
                            recipients=tuple(r["recipients"].split()), message=r["message"],
                            sent_at=r["sent_at"])
                for r in rows]

    def _record(self, row: sqlite3.Row) -> GameRecord:
        game_id = row["id"]
        status, finished_at, turn, sco, now = (row["status"], row["finished_at"], row["turn"],
                                               row["sco"], row["now"])
        ending = tuple(json.loads(row["ending"])) if row["ending"] else ()
        unfolded = self._unfolded_of(game_id)
        if unfolded:                    # the position after the last phase recorded
            last = unfolded[-1]
            turn, sco, now = last.new_turn, last.sco, last.now
            for phase in unfolded:
                if phase.ending:
                    status, finished_at = "finished", _utc(phase.processed_at)
                    ending = tuple(phase.ending)
        seats = tuple(
            Seat(r["power"], r["passcode"], r["client_name"], r["client_version"])
            for r in self._db.execute("SELECT * FROM seats WHERE game_id = ? ORDER BY power",
                                      (game_id,))
        )
        pending: dict[str, tuple[str, ...]] = {}
        pending_turn = None
        for r in self._db.execute("SELECT * FROM pending_orders WHERE game_id = ? ORDER BY power",
                                  (game_id,)):
            if r["turn"] == turn:
                pending[r["power"]] = tuple(json.loads(r["orders"]))
        # The journal's entries of the current turn replace the table's (a
        # game that ended holds no orders: an agreed draw keeps its turn).
        for power, (order_turn, orders) in self._live.get(game_id, {}).items():
            if order_turn == turn and status == "running":
                if orders:
                    pending[power] = orders
                else:
                    pending.pop(power, None)
        if pending:
            pending = dict(sorted(pending.items()))
            pending_turn = turn
        return GameRecord(
            id=game_id, settings=GameSettings.from_json(row["settings"]), status=status,
            created_at=row["created_at"], started_at=row["started_at"],
            finished_at=finished_at, turn=turn, sco=sco, now=now, ending=ending,
            seats=seats, pending=pending, pending_turn=pending_turn,
        )

