"""The tournament's tables, in the same SQLite database as the server's.

The embedded server (`server.store.Store`) and this module open the same
file, each with its own connection (WAL journal, so readers never block the
writer).  Every table here is prefixed ``tournament`` and created with
``CREATE TABLE IF NOT EXISTS``; the server's tables (``meta``, ``games``,
``seats``, ``pending_orders``, ``phases``) are never written, and read in
one place only - `TournamentStore.server_game`, which finds the server's
game id of a tournament game from a seat's power, passcode and name.

* ``tournament_meta`` - this module's schema version;
* ``tournaments`` - one row per tournament: its config (`identity` JSON),
  creation and completion times;
* ``tournament_games`` - the plan (number, seed) and, per game, its status
  (``pending`` / ``running`` / ``finished`` / ``failed``), attempts, the
  server's game id, how it ended, the end turn, the winner and the centre
  history (JSON list of ``[turn, {power: centres}]``) for the plots, and the
  node that played it (``local``, or a Ray node - `tournament.cluster`);
* ``tournament_seats`` - (game, power) -> bot, and after the game its
  centres, units and whether it survived (and, for a bot played in process,
  the problems it met and the phases its CPU limit cut), so the results can
  be queried with plain SQL;
* ``tournament_failures`` - every bot failure (did not join, crashed, hung,
  lost its connection), with the game, attempt, power and bot.

Extension: the plan of a longer tournament with the same seed begins with
the plan of a shorter one (`tournament.design`), so asking for more games
than a stored tournament has extends it (`extend`): the new games are added
to its plan and only they are played.

Resume: a game is marked ``running`` (attempt + 1) before it starts and
``finished`` with its result in one transaction when it ends, so after an
interruption the games not ``finished`` - ``pending``, ``running`` (cut off)
and ``failed`` (could not be played, e.g. the server was unreachable) - are
exactly the ones still to play.  A game interrupted half way is replayed from its start with
the same seed, which gives the same game (the bots are deterministic per
seed and phase); its abandoned server game stays in the server's tables,
where the server keeps it suspended.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from server.store import connect_sqlite
from tournament.design import GamePlan

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tournament_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
    id          INTEGER PRIMARY KEY,
    config      TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    finished_at TEXT
);
CREATE TABLE IF NOT EXISTS tournament_games (
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id),
    number         INTEGER NOT NULL,
    seed           INTEGER NOT NULL,
    status         TEXT NOT NULL
                   CHECK (status IN ('pending', 'running', 'finished', 'failed')),
    attempts       INTEGER NOT NULL DEFAULT 0,
    server_game_id INTEGER,
    started_at     TEXT,
    finished_at    TEXT,
    seconds        REAL,
    ending         TEXT,
    end_turn       TEXT,
    winner         TEXT,
    history        TEXT,
    note           TEXT,
    node           TEXT,
    PRIMARY KEY (tournament_id, number)
);
CREATE TABLE IF NOT EXISTS tournament_seats (
    tournament_id INTEGER NOT NULL,
    number        INTEGER NOT NULL,
    power         TEXT NOT NULL,
    bot           TEXT NOT NULL,
    centres       INTEGER,
    units         INTEGER,
    survived      INTEGER,
    problems      INTEGER,
    cut           INTEGER,
    PRIMARY KEY (tournament_id, number, power),
    FOREIGN KEY (tournament_id, number) REFERENCES tournament_games (tournament_id, number)
);
CREATE TABLE IF NOT EXISTS tournament_failures (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL,
    number        INTEGER NOT NULL,
    attempt       INTEGER NOT NULL,
    power         TEXT NOT NULL,
    bot           TEXT NOT NULL,
    kind          TEXT NOT NULL,
    detail        TEXT NOT NULL,
    at            TEXT NOT NULL
);
"""


class TournamentStoreError(Exception):
    """The database cannot hold this tournament (schema from another version)."""


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Failure:
    """A bot that failed in a game (reported; the game went on without it)."""

    power: str
    bot: str
    kind: str
    """``join`` (never joined), ``crash`` (program ended), ``hang`` (stopped
    answering, cut off), ``disconnect`` (in-process client lost the server)."""
    detail: str


@dataclass(frozen=True)
class SeatResult:
    """One power at the end of a game."""

    power: str
    bot: str
    centres: int
    units: int
    survived: bool
    problems: int
    cut: int | None = None
    """Phases the bot's search was cut short by its CPU limit: for a bot that searches
    in process (`bots.strategy.Searching`), else None (and None in a database written
    before the count was kept)."""


@dataclass(frozen=True)
class StoredGame:
    """A row of ``tournament_games`` with its seats."""

    number: int
    seed: int
    status: str
    attempts: int
    server_game_id: int | None
    seconds: float | None
    ending: str | None
    end_turn: str | None
    winner: str | None
    history: tuple[tuple[str, Mapping[str, int]], ...]
    note: str | None
    seats: tuple[SeatResult, ...]
    node: str | None = None
    """Where the game was played: ``local`` or a Ray node's label."""
    started_at: str | None = None
    finished_at: str | None = None

    @property
    def plan(self) -> GamePlan:
        return GamePlan(self.number, self.seed, tuple((s.power, s.bot) for s in self.seats))


class TournamentStore:
    """The tournament tables of one database file."""

    def __init__(self, db: sqlite3.Connection, path: str) -> None:
        self._db = db
        self.path = path

    @classmethod
    def open(cls, path: Path | str) -> TournamentStore:
        db = connect_sqlite(path)
        store = cls(db, str(path))
        try:
            store._migrate()
        except BaseException:
            db.close()
            raise
        return store

    def close(self) -> None:
        self._db.close()

    def _migrate(self) -> None:
        with self._transaction():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            row = self._db.execute(
                "SELECT value FROM tournament_meta WHERE key = 'schema'").fetchone()
            if row is None:
                self._db.execute("INSERT INTO tournament_meta (key, value) VALUES ('schema', ?)",
                                 (str(SCHEMA_VERSION),))
            elif int(row["value"]) != SCHEMA_VERSION:
                raise TournamentStoreError(
                    f"tournament tables of version {row['value']}, this program needs "
                    f"{SCHEMA_VERSION}")
            # ``node`` and ``cut`` came after version 1's first databases: nullable
            # columns added in place keep them readable by older and newer programs alike.
            for table, column, kind in (("tournament_games", "node", "TEXT"),
                                        ("tournament_seats", "cut", "INTEGER")):
                columns = {r["name"] for r in self._db.execute(f"PRAGMA table_info({table})")}
                if column not in columns:
                    self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # --- tournaments -------------------------------------------------------------

    def find(self, identity: str) -> int | None:
        """The newest tournament with this identity (see `TournamentConfig.identity`)."""
        row = self._db.execute("SELECT id FROM tournaments WHERE config = ? ORDER BY id DESC",
                               (identity,)).fetchone()
        return None if row is None else int(row["id"])

    def create(self, identity: str, plans: Sequence[GamePlan]) -> int:
        """A new tournament with its whole plan, every game pending."""
        with self._transaction():
            cur = self._db.execute("INSERT INTO tournaments (config, created_at) VALUES (?, ?)",
                                   (identity, _utc_now()))
            tid = cur.lastrowid
            assert tid is not None
            self._add_games(tid, plans)
        return tid

    def _add_games(self, tid: int, plans: Sequence[GamePlan]) -> None:
        """The games of ``plans``, pending, with their seats (within a transaction)."""
        self._db.executemany(
            "INSERT INTO tournament_games (tournament_id, number, seed, status)"
            " VALUES (?, ?, ?, 'pending')", [(tid, p.number, p.seed) for p in plans])
        self._db.executemany(
            "INSERT INTO tournament_seats (tournament_id, number, power, bot)"
            " VALUES (?, ?, ?, ?)",
            [(tid, p.number, power, bot) for p in plans for power, bot in p.seats])

    def tournaments(self) -> list[tuple[int, str]]:
        """Every tournament as (id, identity), the newest first."""
        return [(int(r["id"]), str(r["config"]))
                for r in self._db.execute("SELECT id, config FROM tournaments ORDER BY id DESC")]

    def extend(self, tid: int, identity: str, plans: Sequence[GamePlan]) -> None:
        """Make tournament ``tid`` the longer one ``identity`` describes: the games of
        ``plans`` past those it has are added, pending, and it is no longer complete.
        The caller has checked that its games are the first of ``plans``."""
        have = self._db.execute("SELECT COUNT(*) FROM tournament_games WHERE tournament_id = ?",
                                (tid,)).fetchone()[0]
        added = [p for p in plans if p.number > have]
        with self._transaction():
            self._db.execute("UPDATE tournaments SET config = ?, finished_at = NULL WHERE id = ?",
                             (identity, tid))
            self._add_games(tid, added)

    def config(self, tid: int) -> str:
        row = self._db.execute("SELECT config FROM tournaments WHERE id = ?", (tid,)).fetchone()
        if row is None:
            raise TournamentStoreError(f"no tournament {tid} in {self.path}")
        return str(row["config"])

    def mark_complete(self, tid: int) -> None:
        with self._transaction():
            self._db.execute("UPDATE tournaments SET finished_at = ? WHERE id = ?",
                             (_utc_now(), tid))

    # --- games -------------------------------------------------------------------

    def begin_game(self, tid: int, number: int) -> int:
        """Mark a game running; returns its attempt number (1 for the first)."""
        with self._transaction():
            self._db.execute(
                "UPDATE tournament_games SET status = 'running', attempts = attempts + 1,"
                " started_at = ? WHERE tournament_id = ? AND number = ?",
                (_utc_now(), tid, number))
            row = self._db.execute(
                "SELECT attempts FROM tournament_games WHERE tournament_id = ? AND number = ?",
                (tid, number)).fetchone()
        return int(row["attempts"])

    def finish_game(self, tid: int, number: int, *, ending: str, end_turn: str | None,
                    winner: str | None, seats: Sequence[SeatResult],
                    history: Sequence[tuple[str, Mapping[str, int]]],
                    server_game_id: int | None, seconds: float, note: str | None = None,
                    node: str = "local", started_at: str | None = None) -> None:
        """Store a finished game's result (one transaction).

        ``started_at`` replaces the time `begin_game` noted when the game began
        elsewhere later (a Ray task waits in the cluster's queue first).
        """
        with self._transaction():
            self._db.execute(
                "UPDATE tournament_games SET status = 'finished', finished_at = ?, seconds = ?,"
                " ending = ?, end_turn = ?, winner = ?, history = ?, server_game_id = ?,"
                " note = ?, node = ?, started_at = COALESCE(?, started_at)"
                " WHERE tournament_id = ? AND number = ?",
                (_utc_now(), seconds, ending, end_turn, winner,
                 json.dumps([[t, dict(c)] for t, c in history]), server_game_id, note,
                 node, started_at, tid, number))
            self._db.executemany(
                "UPDATE tournament_seats SET centres = ?, units = ?, survived = ?, problems = ?,"
                " cut = ? WHERE tournament_id = ? AND number = ? AND power = ?",
                [(s.centres, s.units, int(s.survived), s.problems, s.cut, tid, number, s.power)
                 for s in seats])

    def fail_game(self, tid: int, number: int, note: str, seconds: float,
                  node: str = "local") -> None:
        """A game that could not be played to an end (not scored; replayed on resume)."""
        with self._transaction():
            self._db.execute(
                "UPDATE tournament_games SET status = 'failed', finished_at = ?, seconds = ?,"
                " note = ?, node = ? WHERE tournament_id = ? AND number = ?",
                (_utc_now(), seconds, note, node, tid, number))

    def add_failures(self, tid: int, number: int, attempt: int,
                     failures: Sequence[Failure]) -> None:
        with self._transaction():
            self._db.executemany(
                "INSERT INTO tournament_failures (tournament_id, number, attempt, power, bot,"
                " kind, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(tid, number, attempt, f.power, f.bot, f.kind, f.detail, _utc_now())
                 for f in failures])

    def games(self, tid: int) -> list[StoredGame]:
        rows = self._db.execute(
            "SELECT * FROM tournament_games WHERE tournament_id = ? ORDER BY number",
            (tid,)).fetchall()
        seats: dict[int, list[SeatResult]] = {}
        for r in self._db.execute(
                "SELECT * FROM tournament_seats WHERE tournament_id = ? ORDER BY number, power",
                (tid,)):
            seats.setdefault(int(r["number"]), []).append(SeatResult(
                r["power"], r["bot"], r["centres"] or 0, r["units"] or 0,
                bool(r["survived"]), r["problems"] or 0, r["cut"]))
        out = []
        for r in rows:
            history = tuple((str(t), dict(c)) for t, c in json.loads(r["history"] or "[]"))
            out.append(StoredGame(
                number=int(r["number"]), seed=int(r["seed"]), status=r["status"],
                attempts=int(r["attempts"]), server_game_id=r["server_game_id"],
                seconds=r["seconds"], ending=r["ending"], end_turn=r["end_turn"],
                winner=r["winner"], history=history, note=r["note"],
                seats=tuple(seats.get(int(r["number"]), ())), node=r["node"],
                started_at=r["started_at"], finished_at=r["finished_at"]))
        return out

    def failures(self, tid: int, *, final_only: bool = True) -> list[tuple[int, Failure]]:
        """(game number, failure); by default only those of each game's last attempt."""
        query = ("SELECT f.* FROM tournament_failures f JOIN tournament_games g"
                 " ON g.tournament_id = f.tournament_id AND g.number = f.number"
                 " WHERE f.tournament_id = ?")
        if final_only:
            query += " AND f.attempt = g.attempts"
        rows = self._db.execute(query + " ORDER BY f.number, f.id", (tid,)).fetchall()
        return [(int(r["number"]), Failure(r["power"], r["bot"], r["kind"], r["detail"]))
                for r in rows]

    # --- the server's tables (read only) -------------------------------------------

    def server_game(self, power: str, passcode: int, client_name: str) -> int | None:
        """The server's id of the game in which ``power`` had this passcode and name.

        Reads the server's ``seats`` table (`server.store`); None when this
        database is not the server's (``--server`` without the server's ``--db``).
        """
        try:
            row = self._db.execute(
                "SELECT game_id FROM seats WHERE power = ? AND passcode = ? AND client_name = ?"
                " ORDER BY game_id DESC", (power, passcode, client_name)).fetchone()
        except sqlite3.OperationalError:
            return None
        return None if row is None else int(row["game_id"])
