"""The journal's lines (`server.journal`): ``CRC JSON\n``, one line whatever the texts
hold - quotes, backslashes, control characters, DEL, non-ASCII - whose JSON reads
back (with the standard library's decoder too) as the entry written; lines of
earlier servers (ASCII, escaping the rest) replay.  The fold writes the same values
of the orders and messages into SQLite, and the times as `datetime` writes them."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import zlib
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import server.journal
from server.journal import Journal, PhaseEntry, encode_line, encode_phase, read_journal
from server.settings import GameSettings
from server.store import Seat, Store

SCO = "SCO ( AUS BUD TRI VIE ) ( ENG EDI LON LVP ) ( UNO BEL )"
NOW = "NOW ( SPR 1901 ) ( AUS AMY BUD ) ( ENG FLT LON )"

#: Texts the encoder must escape, each in its own way, and texts next to them that
#: look like JSON: a quote, the separator of two texts, a backslash (also at the end
#: and before a quote), control characters, DEL, non-ASCII (two bytes, three, and
#: beyond the BMP: a surrogate pair), an empty text.
TRICKY = ['"', '","', "a\\b", "end\\", '\\"', "\n", "\x00", "\x1f", "\t", "\x7f",
          "Zoë", "漢字", "\U0001F600", "", " ", "'name'", "( ENG FLT LON ) MTO NTH"]
SMR = ("SMR ( SPR 1910 ) ( AUS 'Bot \"Q\" \\ é' '1.0' 3 ) ( ENG 'plain' '2' 0 1905 )")


def read_line(line: bytes) -> object:
    """The JSON of one journal line, read by the standard library, after checking
    the line's form: one line, the CRC of the JSON, compact (no space outside texts)."""
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    crc, body = line[:-1].split(b" ", 1)
    assert int(crc, 16) == zlib.crc32(body)
    value = json.loads(body)
    assert json.loads(json.dumps(value, separators=(",", ":"))) == value
    return value


def as_json(entry: object) -> object:
    """``entry`` as JSON reads it back (tuples as lists)."""
    return json.loads(json.dumps(entry))


def phase(orders: dict[str, list[str]], messages: list[str], *, turn: str = "SPR 1901",
          sco: str = SCO, now: str = NOW, new_turn: str = "FAL 1901",
          ending: list[str] | None = None, stamp: float = 1764123456.7891234) -> PhaseEntry:
    return PhaseEntry(3, 7, turn, orders, messages, sco, now, new_turn, ending or [], stamp)


#: Lines as earlier servers wrote them (the standard encoder's ASCII JSON, and
#: before it lines put together from their texts): a journal of those servers must
#: replay, and the same entries give the same bytes where the texts are ASCII.
GOLDEN_SMR = "SMR ( FAL 1901 ) ( AUS 'Zoë \"Q\" \\\\' '1' 1 )"
GOLDEN = (b'0bc4a798 [12,"AUS","SPR 1901",["( AUS AMY BUD ) HLD","( AUS FLT TRI ) MTO ADR"]]\n'
          b'43e1e283 [12,"ENG","SPR 1901",[]]\n'
          b'9e59eed7 ["phase",3,7,"FAL 1901",{"AUS":["( AUS AMY BUD ) HLD"],"ENG":[]},'
          b'["ORD ( FAL 1901 ) ( ( AUS AMY BUD ) HLD ) ( SUC )","NOW ( WIN 1901 ) ( AUS AMY BUD )"],'
          b'"SCO ( AUS BUD )","NOW ( WIN 1901 ) ( AUS AMY BUD )","WIN 1901",'
          b'["DRW","SMR ( FAL 1901 ) ( AUS \'Zo\\u00eb \\"Q\\" \\\\\\\\\' \'1\' 1 )"],'
          b'1764123456.7891233]\n')
GOLDEN_PHASE = PhaseEntry(
    3, 7, "FAL 1901", {"AUS": ["( AUS AMY BUD ) HLD"], "ENG": []},
    ["ORD ( FAL 1901 ) ( ( AUS AMY BUD ) HLD ) ( SUC )", "NOW ( WIN 1901 ) ( AUS AMY BUD )"],
    "SCO ( AUS BUD )", "NOW ( WIN 1901 ) ( AUS AMY BUD )", "WIN 1901", ["DRW", GOLDEN_SMR],
    1764123456.7891233)


def test_lines_of_earlier_servers_replay_and_are_written_alike(tmp_path: Path) -> None:
    line, _ = encode_phase(*GOLDEN_PHASE)
    orders = (encode_line(12, "AUS", "SPR 1901", ["( AUS AMY BUD ) HLD", "( AUS FLT TRI ) MTO ADR"])
              + encode_line(12, "ENG", "SPR 1901", ()))
    assert GOLDEN.startswith(orders)
    # The SMR's name is not ASCII: written in UTF-8 now, read alike.
    assert server.journal._decode_line(line[:-1]) == GOLDEN_PHASE
    path = tmp_path / "j"
    path.write_bytes(GOLDEN)
    replay = read_journal(str(path))
    assert replay.bad_lines == 0 and replay.line_bytes == len(GOLDEN)
    assert replay.entries == {
        (12, "AUS"): ("SPR 1901", ("( AUS AMY BUD ) HLD", "( AUS FLT TRI ) MTO ADR")),
        (12, "ENG"): ("SPR 1901", ())}
    assert replay.phases == {(3, 7): GOLDEN_PHASE}


def test_order_lines_are_the_encoders_json_whatever_the_texts_hold(tmp_path: Path) -> None:
    cases = [("AUS", "SPR 1901", ["( AUS AMY BUD ) HLD", "( AUS FLT TRI ) MTO ADR"]),
             ("AUS", "SPR 1901", [])]
    cases += [("ENG", "FAL 1901", ["( ENG FLT LON ) HLD", text]) for text in TRICKY]
    cases += [(text, "SPR 1901", ["( ENG FLT LON ) HLD"]) for text in TRICKY]
    cases += [("ENG", text, []) for text in TRICKY]
    path = tmp_path / "j"
    journal = Journal(str(path), sync_each=False)
    for power, turn, orders in cases:
        line = encode_line(12, power, turn, orders)
        assert read_line(line) == [12, power, turn, orders]
        assert encode_line(12, power, turn, tuple(orders)) == line
        journal.append(12, power, turn, tuple(orders))
    journal.close()
    data = path.read_bytes()
    assert data == b"".join(encode_line(12, p, t, o) for p, t, o in cases)
    replay = read_journal(str(path))
    assert replay.bad_lines == 0 and replay.line_bytes == len(data)
    # The last line per power wins; each holds the texts it was given.
    last = {(12, p): (t, tuple(o)) for p, t, o in cases}
    assert replay.entries == last


def test_phase_lines_are_the_encoders_json() -> None:
    entries = [phase({"AUS": ["( AUS AMY BUD ) HLD"], "ENG": []}, ["ORD ( SPR 1901 ) x", NOW]),
               phase({}, [], ending=[]),
               phase({"AUS": ["a"]}, [NOW], ending=["DRW", SMR], stamp=1764123456.0),
               phase({"AUS": ["a"]}, [NOW], stamp=1764123456)]       # a whole number
    for text in TRICKY:
        entries += [phase({"AUS": [text, "x"]}, [NOW]), phase({text: ["x"]}, [NOW]),
                    phase({"AUS": ["x"]}, ["ORD", text]), phase({}, [], turn=text),
                    phase({}, [], sco=text), phase({}, [], now=text),
                    phase({}, [], new_turn=text), phase({}, [], ending=[SMR, text])]
    for entry in entries:
        line, kept = encode_phase(*entry)
        assert read_line(line) == as_json(["phase", *entry]), entry
        assert kept == entry
        # Read back: the same entry, its lists as lists and its time a float.
        replayed = server.journal._decode_line(line[:-1])
        assert replayed == entry._replace(processed_at=float(entry.processed_at))


#: Mostly printable ASCII (quote and backslash among it), now and then anything.
texts = st.one_of(
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12),
    st.text(st.sampled_from(' ()ABC"\\,'), max_size=8),
    st.text(st.characters(codec="utf-8") | st.sampled_from('"\\\x00\x7f ,[]{}:'), max_size=6))


@settings(max_examples=300, deadline=None)
@given(power=texts, turn=texts, orders=st.lists(texts, max_size=4),
       messages=st.lists(texts, max_size=4), sco=texts, ending=st.lists(texts, max_size=2),
       stamp=st.floats(min_value=0, max_value=4e9))
def test_any_texts_give_the_encoders_json(power: str, turn: str, orders: list[str],
                                          messages: list[str], sco: str, ending: list[str],
                                          stamp: float) -> None:
    line = encode_line(1, power, turn, orders)
    assert read_line(line) == [1, power, turn, orders]
    assert encode_line(1, power, turn, tuple(orders)) == line
    assert read_line(encode_line(2, "ENG", "SPR 1901", ["x", *orders])) == \
        [2, "ENG", "SPR 1901", ["x", *orders]]
    entry = phase({power: orders, "ENG": orders[:1]}, messages, turn=turn, sco=sco,
                  ending=ending, stamp=stamp)
    line, kept = encode_phase(*entry)
    assert read_line(line) == as_json(["phase", *entry])
    assert server.journal._decode_line(line[:-1]) == entry._replace(processed_at=float(stamp))
    assert kept == entry


def test_the_fold_writes_the_lines_json_and_a_replayed_phase_the_same(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = Store.open(path)
    game = store.create_game(GameSettings())
    store.start_game(game, [Seat("AUS", 1, 'a "quoted" name', "1"), Seat("ENG", 2, "é", "2")],
                     "SPR 1901", SCO, NOW)
    orders = {"ENG": ["( ENG FLT LON ) HLD"], "AUS": ["( AUS AMY BUD ) HLD", "\\ odd \x01"]}
    messages = ["ORD ( SPR 1901 ) ( ( AUS AMY BUD ) HLD ) ( SUC )", NOW]
    store.record_phase(game, "SPR 1901", orders, messages, SCO, NOW, "FAL 1901")
    store.fold()                        # from the entry record_phase keeps
    plain = {"AUS": ["( AUS AMY BUD ) HLD"]}
    store.record_phase(game, "FAL 1901", plain, messages, SCO, NOW, "WIN 1901",
                       ["DRW", SMR])
    stamps = [entry.processed_at for entry in read_journal(f"{path}-orders").phases.values()]
    # No fold, no close: the process dies; the next start folds the journal's line.
    again = Store.open(path)
    again.load_unfinished()
    again.close()
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT seq, orders, messages, processed_at FROM phases"
                          " WHERE seq > 0 ORDER BY seq").fetchall()
        ending = db.execute("SELECT ending FROM games").fetchone()[0]
    assert [(seq, json.loads(o), json.loads(m), at) for seq, o, m, at in rows] == [
        (1, dict(sorted(orders.items())), messages,
         datetime.fromtimestamp(stamps[0], UTC).isoformat(timespec="milliseconds")),
        (2, plain, messages,
         datetime.fromtimestamp(stamps[1], UTC).isoformat(timespec="milliseconds"))]
    assert json.loads(ending) == ["DRW", SMR]


class _ShortWrites:
    """``os`` for the journal, with a disk that takes a few bytes per ``write``
    (a nearly full disk) and, once ``room`` is spent, none (ENOSPC)."""

    def __init__(self, room: int) -> None:
        self.room = room

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)

    def write(self, fd: int, data: bytes) -> int:
        if self.room <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        taken = min(7, self.room, len(data))
        self.room -= taken
        return os.write(fd, bytes(data[:taken]))


def test_short_writes_append_whole_lines_until_the_disk_is_full(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "j"
    journal = Journal(str(path), sync_each=False)
    first = encode_line(4, "AUS", "SPR 1901", ["( AUS AMY BUD ) HLD"])
    line, _ = encode_phase(*phase({"AUS": ["( AUS AMY BUD ) HLD"]}, [NOW]))
    disk = _ShortWrites(room=len(first) + len(line) + 5)
    monkeypatch.setattr(server.journal, "os", disk)
    assert journal.append(4, "AUS", "SPR 1901", ("( AUS AMY BUD ) HLD",)) is False
    journal.append_phase(*phase({"AUS": ["( AUS AMY BUD ) HLD"]}, [NOW]))
    assert path.read_bytes() == first + line
    assert journal.size == len(first + line) and journal.writes == 2
    with pytest.raises(OSError) as failed:
        journal.append(4, "ENG", "SPR 1901", ("( ENG FLT LON ) HLD",))
    assert failed.value.errno == errno.ENOSPC
    monkeypatch.undo()
    journal.close()
    # What the full disk took of the last line is a torn tail: replay skips it.
    replay = read_journal(str(path), warn=False)
    assert replay.entries == {(4, "AUS"): ("SPR 1901", ("( AUS AMY BUD ) HLD",))}
    assert list(replay.phases) == [(3, 7)] and replay.bad_lines == 1
