"""SQLite persistence: nothing the server accepted is ever lost.

One database file (WAL journal, ``synchronous=FULL``) holds every game:

* ``games`` - settings (JSON), status (``forming`` / ``running`` /
  ``finished``), the current turn and position, the end of the game;
* ``seats`` - per power: passcode and the name/version the client gave;
* ``pending_orders`` - accepted orders of the current phase carried over a
  restart, one row per power holding that power's whole order list.  While
  the server runs, each change of a power's orders (SUB, NOT (SUB)) is one
  line appended to the order journal ``DB-orders`` beside the database
  (`server.journal`), before THX/YES are sent; when the server starts,
  `load_unfinished` folds the journal's live lines into this table (one
  transaction) and starts a fresh journal;
* ``phases`` - one row per processed phase (``seq`` 0 is the game's start):
  the orders adjudicated, the messages announced (ORD..., SCO, SLO, NOW), the
  SCO and NOW after it.  A phase row, the new position in ``games`` and the
  clearing of the game's ``pending_orders`` rows are one transaction, written
  before any client hears of the result (docs/architecture.md "One turn",
  step 4); the new turn makes the game's journal lines dead;
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
they see the orders the running server holds; they never write it.

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
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from server.journal import Entries, Journal, failure_reason, journal_path, read_journal
from server.settings import GameSettings

SCHEMA_VERSION = 1

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
                store._remember(replay.entries)
        except BaseException:
            db.close()
            raise
        return store

    @property
    def in_memory(self) -> bool:
        """An SQLite in-memory (or temporary) database: no files, the journal in memory."""
        return self.path in ("", ":memory:") or "mode=memory" in self.path

    def _remember(self, entries: Entries) -> None:
        for (game_id, power), entry in entries.items():
            self._live.setdefault(game_id, {})[power] = entry

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
        # The accepted orders of running games, as the server has them now
        # (a line being written at this moment is not complete yet: no warning).
        store._remember(read_journal(journal_path(str(path)), warn=False).entries)
        return store

    def close(self) -> None:
        """Checkpoint the WAL into the main file and close (no checkpoint after a failure)."""
        try:
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
            self.journal.append(game_id, power, turn, texts)
        except OSError as exc:
            raise self.fail(failure_reason(exc, journal_path(self.path))) from exc
        live = self._live.get(game_id)
        if live is None:
            live = self._live[game_id] = {}
        live[power] = (turn, texts)
        if self.journal.due:
            self._compact()

    def _compact(self) -> None:
        """Rewrite the journal with the live entries only (it grew past its limit)."""
        entries = {(g, p): e for g, powers in self._live.items() for p, e in powers.items()}
        try:
            self.journal.rewrite(entries)
        except OSError as exc:
            raise self.fail(failure_reason(exc, journal_path(self.path))) from exc

    def record_phase(self, game_id: int, turn: str, orders: Mapping[str, Sequence[str]],
                     messages: Sequence[str], sco: str, now: str, new_turn: str,
                     ending: Sequence[str] = ()) -> int:
        """Store one processed phase and the new position in one transaction.

        ``ending`` (the SLO/DRW and SMR texts) finishes the game.  Returns the
        phase's sequence number.
        """
        stamp = _utc_now()
        with self._transaction():
            seq = self._next_seq("phases", self._last_seq, game_id)
            self._db.execute(
                "INSERT INTO phases (game_id, seq, turn, orders, messages, sco, now, processed_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, seq, turn, json.dumps({p: list(o) for p, o in sorted(orders.items())}),
                 json.dumps(list(messages)), sco, now, stamp),
            )
            if game_id in self._table_pending:
                self._db.execute("DELETE FROM pending_orders WHERE game_id = ?", (game_id,))
            self._update_position(game_id, new_turn, sco, now)
            if ending:
                self._finish(game_id, ending, stamp)
        # Committed: the game's journal lines are of an earlier turn now, dead.
        self._last_seq[game_id] = seq
        self._table_pending.discard(game_id)
        self._live.pop(game_id, None)
        return seq

    def finish_game(self, game_id: int, ending: Sequence[str]) -> None:
        """End a game outside phase processing (an agreed draw)."""
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

        The server's start: the journal's live entries are folded into
        ``pending_orders`` (one transaction, synced to disk) and the journal
        starts afresh, so it never grows across restarts.
        """
        synchronous = int(self._db.execute("PRAGMA synchronous").fetchone()[0])
        self._db.execute("PRAGMA synchronous = FULL")
        try:
            with self._transaction():
                self._db.execute("DELETE FROM games WHERE status = 'forming'")
                self._fold()
        finally:
            self._db.execute(f"PRAGMA synchronous = {synchronous:d}")
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
        """Write the journal's live entries into ``pending_orders`` (in a transaction)."""
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
        return [
            PhaseRecord(
                seq=r["seq"], turn=r["turn"],
                orders={p: tuple(o) for p, o in json.loads(r["orders"]).items()},
                messages=tuple(json.loads(r["messages"])), sco=r["sco"], now=r["now"],
                processed_at=r["processed_at"],
            )
            for r in rows
        ]

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
        seats = tuple(
            Seat(r["power"], r["passcode"], r["client_name"], r["client_version"])
            for r in self._db.execute("SELECT * FROM seats WHERE game_id = ? ORDER BY power",
                                      (game_id,))
        )
        pending: dict[str, tuple[str, ...]] = {}
        pending_turn = None
        for r in self._db.execute("SELECT * FROM pending_orders WHERE game_id = ? ORDER BY power",
                                  (game_id,)):
            if r["turn"] == row["turn"]:
                pending[r["power"]] = tuple(json.loads(r["orders"]))
        # The journal's entries of the current turn replace the table's (a
        # game that ended holds no orders: an agreed draw keeps its turn).
        for power, (turn, orders) in self._live.get(game_id, {}).items():
            if turn == row["turn"] and row["status"] == "running":
                if orders:
                    pending[power] = orders
                else:
                    pending.pop(power, None)
        if pending:
            pending = dict(sorted(pending.items()))
            pending_turn = row["turn"]
        return GameRecord(
            id=game_id, settings=GameSettings.from_json(row["settings"]), status=row["status"],
            created_at=row["created_at"], started_at=row["started_at"],
            finished_at=row["finished_at"], turn=row["turn"], sco=row["sco"], now=row["now"],
            ending=tuple(json.loads(row["ending"])) if row["ending"] else (),
            seats=seats, pending=pending, pending_turn=pending_turn,
        )
