"""The journal: each accepted change of orders and each processed phase is one appended line.

Every SUB (and NOT (SUB)) changes a power's order list, and every processed
phase changes the game; each must be stored before any client hears of it
(THX/YES, ORD...).  An SQLite commit costs a dozen system calls, appending
one line to a file one ``write`` (docs/performance.md, "Work done once per
phase").  So both go here first - this is the store's write-ahead log - to
``DB-orders`` beside the database file ``DB`` (a name of its own: SQLite
owns ``DB-journal``, ``DB-wal`` and ``DB-shm``), and the store
(`server.store`) folds the phases into SQLite in batches, several per
transaction (`server.fold`).

A line is ``CRC JSON\n``: the JSON of one entry and, before it, the CRC-32
of the JSON bytes in eight hex digits.  Texts are in the DAIDE text form
the store keeps (docs/protocol.md §6.8).  The JSON is written by orjson,
compact, in UTF-8 (a journal written before in ASCII, with ``\\u`` escapes
for what was not ASCII, reads the same), so a line holds no newline but its last byte.
Two kinds of entry:

* orders: ``[game, power, turn, [order, ...]]``.  The line for a (game,
  power) replaces every earlier one; an empty list clears the power's
  orders.  A line whose turn is not the game's current turn is dead: a
  processed phase moved the game on.
* a phase: ``["phase", game, seq, turn, {power: [order, ...]}, [message,
  ...], sco, now, new_turn, [ending, ...], processed_at]`` - a row of the
  store's ``phases`` table (``seq``, ``turn``, the orders adjudicated, the
  messages announced, the SCO and NOW after it, the time in seconds since
  the epoch) plus the game's new turn and, if the phase ended the game, its
  end (SLO/DRW, SMR).  A
  phase line is live until the store has folded it into SQLite (a phase
  whose ``(game, seq)`` is in the ``phases`` table is dead); it makes the
  game's order lines of its turn dead.

What a line survives is what an SQLite commit with ``synchronous = NORMAL``
survives: once ``write`` returns, the operating system has it, so a killed
server loses nothing; a power cut may lose the last moments unless
durability ``"disk"`` (`server.durability`) fsyncs the journal together
with the database before anything is announced.  A plain `server.store.Store`
(durability ``"commit"``) fsyncs each line itself.

Reading (`read_journal`) skips a line that is incomplete (the process died
inside the ``write``) or garbled (a power cut left part of an unsynced block):
its CRC or its JSON does not check.  `Journal.rewrite` replaces the file
atomically with the live order lines only (temporary file, fsync, rename;
the store folds every phase first), which starts a fresh journal after a
restart and compacts a big one while the server runs.
"""

from __future__ import annotations

import os
import threading
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import orjson
import structlog

log = structlog.get_logger("server.journal")

#: Appended to the database's path to name its journal.
SUFFIX = "-orders"

#: A running journal is compacted once it is this big (and twice its live size):
#: ~4,000 phases of seven-player standard games with their orders.
COMPACT_BYTES = 16 * 2**20

#: One entry: (game, power) -> (turn, the orders; empty = cleared).
Entries = dict[tuple[int, str], tuple[str, tuple[str, ...]]]


def journal_path(db_path: str) -> str:
    """Where the journal of the database ``db_path`` lives."""
    return db_path + SUFFIX


def encode_json(value: object) -> str:
    """Compact JSON, as the journal and the store's JSON columns hold it."""
    return orjson.dumps(value).decode()


class PhaseEntry(NamedTuple):
    """A processed phase as its journal line holds it, after its tag (see the module
    docstring)."""

    game_id: int
    seq: int
    turn: str
    orders: Mapping[str, Sequence[str]]
    messages: Sequence[str]
    sco: str
    now: str
    new_turn: str
    ending: Sequence[str]
    processed_at: float
    """Seconds since the epoch (`time.time`)."""


def _line(entry: object) -> bytes:
    """The journal line of ``entry``: its CRC and its JSON."""
    body = orjson.dumps(entry)
    return b"%08x %s\n" % (zlib.crc32(body), body)


def encode_line(game_id: int, power: str, turn: str, orders: Sequence[str]) -> bytes:
    """One order line: ``[game, power, turn, [order, ...]]`` (see the module docstring)."""
    return _line((game_id, power, turn, tuple(orders)))


def encode_phase(game_id: int, seq: int, turn: str, orders: dict[str, Sequence[str]],
                 messages: Sequence[str], sco: str, now: str, new_turn: str,
                 ending: Sequence[str], stamp: float) -> tuple[bytes, PhaseEntry]:
    """One phase line (see the module docstring), and the phase's `PhaseEntry`.

    ``orders`` is a dict (the encoder takes no other mapping), its lists
    and ``messages`` and ``ending`` lists or tuples.
    """
    entry = PhaseEntry(game_id, seq, turn, orders, messages, sco, now, new_turn, ending, stamp)
    return _line(("phase", *entry)), entry


def _texts(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _decode_line(line: bytes) -> tuple[int, str, str, tuple[str, ...]] | PhaseEntry | None:
    """The entry of one line without its newline; None if it is not a whole, intact line."""
    if len(line) < 10 or line[8:9] != b" ":
        return None
    body = line[9:]
    try:
        if int(line[:8], 16) != zlib.crc32(body):
            return None
        entry = orjson.loads(body)
    except ValueError:
        return None
    if not isinstance(entry, list):
        return None
    if entry and entry[0] == "phase":
        return _phase_entry(entry)
    if len(entry) != 4:
        return None
    game_id, power, turn, orders = entry
    if not (isinstance(game_id, int) and isinstance(power, str) and isinstance(turn, str)
            and _texts(orders)):
        return None
    return game_id, power, turn, tuple(orders)


def _phase_entry(entry: list[object]) -> PhaseEntry | None:
    match entry:
        case ["phase", int(game_id), int(seq), str(turn), dict(orders), list(messages), str(sco),
              str(now), str(new_turn), list(ending), int() | float() as stamp]:
            if (all(isinstance(p, str) and _texts(o) for p, o in orders.items())
                    and _texts(messages) and _texts(ending)):
                return PhaseEntry(game_id, seq, turn, orders, messages, sco, now, new_turn,
                                  ending, float(stamp))
    return None


@dataclass
class Replay:
    """What a journal file holds: the last order entry per (game, power), the phases."""

    entries: Entries = field(default_factory=dict)
    phases: dict[tuple[int, int], PhaseEntry] = field(default_factory=dict)
    """(game, seq) -> the phase, whether folded into SQLite already or not."""
    line_bytes: int = 0
    """Length of the file up to its last newline (after it: a torn line, if anything)."""
    bad_lines: int = 0
    """Lines skipped: incomplete or garbled."""
    size: int = 0


def read_journal(path: str, *, warn: bool = True) -> Replay:
    """Replay the journal at ``path`` (no file: nothing); bad lines are skipped.

    With ``warn`` one structlog warning says how many lines were skipped.
    """
    try:
        with open(path, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        return Replay()
    replay = Replay(size=len(data))
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        if end < 0:             # no newline: the write of this line never finished
            replay.bad_lines += 1
            break
        entry = _decode_line(data[start:end])
        if entry is None:
            replay.bad_lines += 1
        elif isinstance(entry, PhaseEntry):
            replay.phases[(entry.game_id, entry.seq)] = entry
        else:
            game_id, power, turn, orders = entry
            replay.entries[(game_id, power)] = (turn, orders)
        start = replay.line_bytes = end + 1
    if replay.bad_lines and warn:
        log.warning("journal_lines_skipped", journal=path, lines=replay.bad_lines,
                    torn_tail=replay.line_bytes < len(data),
                    reason="incomplete or garbled (a crash or power cut while writing)")
    return replay


class Journal:
    """One database's open journal (or an in-memory one: ``path`` None).

    Only the store's thread appends and rewrites; `sync` may run in the
    durability flusher's thread, so the file descriptor changes hands under
    a lock.
    """

    def __init__(self, path: str | None, *, sync_each: bool, replay: Replay | None = None) -> None:
        self.path = path
        self.sync_each = sync_each
        """fsync every line (the plain store: SQLite syncs each commit too)."""
        self.writes = 0
        """Lines appended since opening (the durability barrier counts them as commits)."""
        self.size = 0
        self._synced = 0                # `writes` when the last `sync` began
        self._compact_at = COMPACT_BYTES
        self._lock = threading.Lock()
        self._fd: int | None = None
        if path is not None:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                self.size = os.fstat(fd).st_size
                if replay is not None and replay.line_bytes < self.size == replay.size:
                    # A torn last line: cut it, so that the next line is a line of its own.
                    os.ftruncate(fd, replay.line_bytes)
                    self.size = replay.line_bytes
            except OSError:
                os.close(fd)
                raise
            self._fd = fd

    def append(self, game_id: int, power: str, turn: str, orders: Sequence[str]) -> bool:
        """Append one order entry; True once the journal is `due` for compaction.
        OSError if the file cannot take it."""
        self._write(encode_line(game_id, power, turn, orders))
        return self.size > self._compact_at

    def append_phase(self, game_id: int, seq: int, turn: str,
                     orders: dict[str, Sequence[str]], messages: Sequence[str], sco: str,
                     now: str, new_turn: str, ending: Sequence[str],
                     processed_at: float) -> PhaseEntry:
        """Append one phase (`encode_phase`); OSError if the file cannot take it.
        Returns the phase's entry."""
        line, entry = encode_phase(game_id, seq, turn, orders, messages, sco, now, new_turn,
                                   ending, processed_at)
        self._write(line)
        return entry

    def _write(self, line: bytes) -> None:
        if self._fd is not None:
            written = os.write(self._fd, line)
            if written < len(line):
                self._write_rest(line, written)
            self.size += len(line)
            if self.sync_each:
                os.fdatasync(self._fd)
        self.writes += 1

    def _write_rest(self, line: bytes, written: int) -> None:
        """After a short write (a nearly full disk): the rest, or ENOSPC."""
        assert self._fd is not None
        while written < len(line):
            written += os.write(self._fd, line[written:])

    @property
    def due(self) -> bool:
        """Big enough to compact (`rewrite` with the live entries)."""
        return self.size > self._compact_at

    def rewrite(self, entries: Entries) -> None:
        """Replace the file by one holding only the order ``entries``: temporary file,
        fsync, rename (the caller folded the phases into SQLite first).

        A crash at any point leaves either the old file or the new one, each
        whole.  OSError if it cannot be done (the old journal is then kept).
        """
        if self.path is None:
            self.size = 0
            return
        data = b"".join(encode_line(g, p, turn, orders)
                        for (g, p), (turn, orders) in sorted(entries.items()))
        temporary = self.path + ".new"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND
                     | os.O_CLOEXEC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
            with self._lock:
                os.rename(temporary, self.path)
                old, self._fd = self._fd, fd
                self._synced = self.writes      # the new file is on disk whole
        except BaseException:
            os.close(fd)
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
        if old is not None:
            os.close(old)
        self.size = len(data)
        self._compact_at = max(COMPACT_BYTES, 2 * len(data))
        directory = os.open(os.path.dirname(os.path.abspath(self.path)), os.O_RDONLY)
        try:
            os.fsync(directory)         # the rename itself
        finally:
            os.close(directory)

    def sync(self, sync: Callable[[int], None] = os.fsync) -> None:
        """fsync the journal if a line was written since the last sync (any thread);
        OSError if it fails."""
        with self._lock:
            written = self.writes
            if self._fd is not None and written != self._synced:
                sync(self._fd)
                self._synced = written

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

