"""The fold: what the journal holds (`server.journal`), written into SQLite
(`server.schema`), and when.

A processed phase is first a journal line; `fold_phases` writes a batch of
them in the caller's transaction: each phase's row, the game's position
after the last of them in ``games`` (once per game and batch), its end if
one of them ended it, and the clearing of the game's ``pending_orders``
rows (its orders of that turn are dead).  The store (`server.store.Store.fold`)
folds once `FOLD_PHASES` phases have gathered or the oldest has waited
`FOLD_SECONDS` - `server.durability` does it between the game actors'
turns, and at idle - and before the journal is compacted, when a game is
drawn, at the server's start and when the store closes.

`fold_orders` writes the journal's live order entries into ``pending_orders``
(at the server's start, after the phases, so that the journal can start
afresh).

Folding is idempotent: a phase already in the table is skipped and a
game's position never goes back, so a crash between a fold's commit and
the journal's compaction loses and repeats nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence

from server.journal import PhaseEntry, encode_json
from server.schema import utc

#: Phases gathered in the journal from which the store folds them into SQLite, one
#: transaction for all (docs/performance.md, "Work done once per phase").
FOLD_PHASES = 32
#: ... or once the oldest of them has waited this long (seconds).
FOLD_SECONDS = 1.0
#: Without anyone to fold them between turns (`server.store.Store.on_fold_due`),
#: the store folds them itself once this many have gathered.
FOLD_AT_ONCE = 4 * FOLD_PHASES

#: Per game and power: the turn and the orders of the journal's last line (empty: cleared).
OrderEntries = Mapping[str, tuple[str, tuple[str, ...]]]


def fold_phases(db: sqlite3.Connection, phases: Mapping[int, Sequence[PhaseEntry]]) -> None:
    """Write ``phases`` (game -> its phases, in seq order) into SQLite, in the
    caller's transaction."""
    db.executemany(
        "INSERT OR IGNORE INTO phases (game_id, seq, turn, orders, messages, sco, now,"
        " processed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(p.game_id, p.seq, p.turn, encode_json(p.orders), encode_json(p.messages), p.sco,
          p.now, utc(p.processed_at))
         for game_phases in phases.values() for p in game_phases])
    for game_id, game_phases in phases.items():
        last = game_phases[-1]
        # The position after the game's last phase, unless a later one is in already.
        db.execute(
            "UPDATE games SET turn = ?, sco = ?, now = ? WHERE id = ? AND NOT EXISTS"
            " (SELECT 1 FROM phases WHERE game_id = ? AND seq > ?)",
            (last.new_turn, last.sco, last.now, game_id, game_id, last.seq))
        for phase in game_phases:
            if phase.ending:
                finish(db, game_id, phase.ending, utc(phase.processed_at))
        db.execute("DELETE FROM pending_orders WHERE game_id = ?", (game_id,))


def fold_orders(db: sqlite3.Connection, orders: Mapping[int, OrderEntries]) -> None:
    """Write the journal's order entries (game -> power -> entry) into
    ``pending_orders``, in the caller's transaction, after `fold_phases`: an entry
    of a game that is not running or of another turn than the game's is dead."""
    for game_id, powers in orders.items():
        row = db.execute("SELECT turn FROM games WHERE id = ? AND status = 'running'",
                         (game_id,)).fetchone()
        for power, (turn, texts) in powers.items():
            if row is None or turn != row["turn"]:
                continue
            if texts:
                db.execute(
                    "INSERT INTO pending_orders (game_id, power, turn, orders)"
                    " VALUES (?, ?, ?, ?) ON CONFLICT (game_id, power) DO UPDATE"
                    " SET turn = excluded.turn, orders = excluded.orders",
                    (game_id, power, turn, encode_json(texts)))
            else:
                db.execute("DELETE FROM pending_orders WHERE game_id = ? AND power = ?",
                           (game_id, power))


def finish(db: sqlite3.Connection, game_id: int, ending: Sequence[str], stamp: str) -> None:
    """The game's end, in the caller's transaction."""
    db.execute(
        "UPDATE games SET status = 'finished', finished_at = ?, ending = ? WHERE id = ?",
        (stamp, encode_json(tuple(ending)), game_id),
    )
