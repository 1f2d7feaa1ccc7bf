"""The SQLite database: its tables, their migration, the connections to it and how
they hold times.

One database file (WAL journal) holds every game:

* ``games`` - settings (JSON), status (``forming`` / ``running`` /
  ``finished``), the current turn and position, the end of the game (a
  JSON list of the SLO/DRW and SMR texts);
* ``seats`` - per power: passcode and the name/version the client gave;
* ``pending_orders`` - accepted orders of the current phase carried over a
  restart, one row per power holding that power's whole order list (JSON);
* ``phases`` - one row per processed phase (``seq`` 0 is the game's start):
  the orders adjudicated (JSON, power -> texts), the messages announced
  (ORD..., SCO, SLO, NOW; a JSON list), the SCO and NOW after it;
* ``hosted`` - the games a host created (`server.hosting`): their invitations,
  server-started bots and pause, as JSON (`server.hosted.HostedState`); a
  hosted game is kept while it forms, across restarts;
* ``admin_log`` - every admin action on a game: time, origin, action, outcome;
* ``refusals`` - what a player sent that the server refused, in the order sent:
  the turn ('' before the start), the power, and either an order with its THX
  note or a whole message with HUH, PRN or REJ (`server.refusals`; `daide
  export --bot-log` explains them, the tournament report counts them);
* ``press`` - every press message the server delivered (docs/protocol.md §16.1),
  numbered per game in the one global order all players saw it in: the
  turn, sender, recipients, the FRM text as delivered and the time.

Tables added after schema 1 (``press``, ``hosted``, ``admin_log``, ``refusals``) are made
by ``CREATE TABLE IF NOT EXISTS``, so a database of an older server gains
them on opening and keeps schema 1.

Messages and orders are stored in the DAIDE text form (docs/protocol.md §6.8), so
the database reads like a game log and `daide export` needs no decoding; times
are ISO 8601 in UTC to the millisecond (`utc`).  The JSON columns are
written compact (`server.journal.encode_json`); older rows with spaces read
the same.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from server.storage_errors import StoreError

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
CREATE TABLE IF NOT EXISTS hosted (
    game_id INTEGER PRIMARY KEY REFERENCES games (id),
    state   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS admin_log (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seq     INTEGER NOT NULL,
    at      TEXT NOT NULL,
    origin  TEXT NOT NULL,
    action  TEXT NOT NULL,
    outcome TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS refusals (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seq     INTEGER NOT NULL,
    turn    TEXT NOT NULL,
    power   TEXT NOT NULL,
    sent    TEXT NOT NULL,
    answer  TEXT NOT NULL,
    at      TEXT NOT NULL,
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


def migrate(db: sqlite3.Connection) -> None:
    """Create what is missing of the schema (in the caller's transaction); StoreError
    if the database is of another schema version."""
    for statement in _SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)
    row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if row is None:
        db.execute("INSERT INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    elif int(row["value"]) != SCHEMA_VERSION:
        raise StoreError(f"database schema {row['value']}, this server needs {SCHEMA_VERSION}")


def connect_readonly(path: Path | str) -> sqlite3.Connection:
    """A connection that only reads the existing server database at ``path``.

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
    return db


def utc(seconds: float) -> str:
    """A `time.time` as the tables hold times."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")


def utc_now() -> str:
    """Now, as the tables hold times."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")
