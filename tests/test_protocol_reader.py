"""The cache in front of the grammar answers what the grammar answers.

`protocol.reader.MessageReader` keeps, for each bracketed group of the SUBs,
NOWs and SCOs it reads, what the grammar's rule read from exactly that
group, and puts such a message of known groups together without the
grammar.  These tests feed the reader and the grammar
(`protocol.parse.parse_message`, `parse_message_text`) the same seeded
messages - SUBs of every order shape, NOWs with and without retreats, SCOs -
and mutations of them, as tokens and as text, and compare messages and
errors exactly: with the reader's tables empty, warm (everything read a
second time) and overflowing (a table far smaller than the input), on the
standard map and on a variant whose 'BRA' is a province.
"""

from __future__ import annotations

import random

import pytest

from protocol.connection import Connection, InitialReceived, MessageReceived
from protocol.frames import InitialMessage, build_frame, dm_frame
from protocol.messages import Now, Sco, Sub
from protocol.parse import Sender, parse_message, parse_message_text
from protocol.reader import MessageReader, process_reader
from protocol.text import parse_text, render_text
from protocol.tokens import BRA, KET, STANDARD, ProvinceCategory, Representation
from tests.protocol_helpers import outcome

KINDS = ("SUB", "NOW", "SCO")




def _random_message(rng: random.Random, rep: Representation, kind: str) -> list[int]:
    """A SUB (a turn or none, then orders of every shape), a NOW (a turn, then
    units, some dislodged with their retreats) or an SCO (powers and UNO with
    centres, some with none), from the powers and provinces of ``rep``."""
    v = rep.values
    powers = [v[p] for p in rep.powers()]
    provinces = [v[p] for p in rep.provinces()]
    coasts = [v[c] for c in ("NCS", "SCS", "ECS")]

    def where(fleet: bool) -> list[int]:
        if fleet and rng.random() < 0.2:
            return [BRA, rng.choice(provinces), rng.choice(coasts), KET]
        return [rng.choice(provinces)]

    def unit() -> list[int]:
        fleet = rng.random() < 0.4
        return [BRA, rng.choice(powers), v["FLT" if fleet else "AMY"], *where(fleet), KET]

    def turn() -> list[int]:
        return [BRA, v[rng.choice(["SPR", "SUM", "FAL", "AUT", "WIN"])],
                rng.choice([1901, 0, 8191, 0x2000, 0x3FFF]), KET]

    def order() -> list[int]:
        kind = rng.choice(["HLD", "MTO", "SUP", "SUPM", "CVY", "CTO", "RTO", "DSB", "BLD",
                           "REM", "WVE"])
        if kind == "WVE":
            return [BRA, rng.choice(powers), v["WVE"], KET]
        if kind in ("MTO", "RTO"):
            return [BRA, *unit(), v[kind], *where(True), KET]
        if kind == "SUP":
            return [BRA, *unit(), v["SUP"], *unit(), KET]
        if kind == "SUPM":
            return [BRA, *unit(), v["SUP"], *unit(), v["MTO"], rng.choice(provinces), KET]
        if kind == "CVY":
            return [BRA, *unit(), v["CVY"], *unit(), v["CTO"], rng.choice(provinces), KET]
        if kind == "CTO":
            return [BRA, *unit(), v["CTO"], rng.choice(provinces), v["VIA"], BRA,
                    rng.choice(provinces), KET, KET]
        return [BRA, *unit(), v[kind], KET]

    def position() -> list[int]:
        placed = unit()
        if rng.random() < 0.8:
            return placed
        retreats = [t for _ in range(rng.randint(0, 2)) for t in where(True)]
        return [*placed[:-1], v["MRT"], BRA, *retreats, KET, KET]

    def centres() -> list[int]:
        owner = v["UNO"] if rng.random() < 0.2 else rng.choice(powers)
        return [BRA, owner, *(rng.choice(provinces) for _ in range(rng.randint(0, 4))), KET]

    tokens = [v[kind]]
    if kind == "SUB":
        if rng.random() < 0.6:
            tokens += turn()
        for _ in range(rng.randint(0, 5)):
            tokens += order()
    elif kind == "NOW":
        tokens += turn()
        for _ in range(rng.randint(0, 6)):
            tokens += position()
    else:
        for _ in range(rng.randint(0, 4)):
            tokens += centres()
    return tokens


def _cases(seed: int, rep: Representation, count: int) -> list[tuple[int, ...]]:
    """Seeded SUBs, NOWs and SCOs, one in five with its groups shuffled (a turn
    elsewhere), most of them mutated at the token level: brackets dropped or
    added, text, integers, unknown and private-use values, other commands."""
    rng = random.Random(seed)
    pool = [*rep.names, BRA, KET, BRA, KET, 0x4B41, 0x4B27, 0, 1901, 0x2000, 0x3FFF, 0x4999,
            0x5FFF, 0x5801, 0xFFFF]
    cases = []
    for k in range(count):
        tokens = _random_message(rng, rep, KINDS[k % 3])
        groups = _groups(tokens[1:])
        if len(groups) > 1 and rng.random() < 0.2:
            rng.shuffle(groups)
            tokens = [tokens[0], *(t for g in groups for t in g)]
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            k = rng.randrange(len(tokens) + 1)
            roll = rng.random()
            if roll < 0.35 and k < len(tokens):
                del tokens[k]
            elif roll < 0.75:
                tokens.insert(k, rng.choice(pool))
            elif k < len(tokens):
                tokens[k] = rng.choice(pool)
        cases.append(tuple(tokens))
    return cases


def _groups(tokens: list[int]) -> list[list[int]]:
    """The bracketed groups of a well-formed sequence of them."""
    groups: list[list[int]] = []
    depth = 0
    for t in tokens:
        if depth == 0:
            groups.append([])
        groups[-1].append(t)
        depth += (t == BRA) - (t == KET)
    return groups


@pytest.mark.parametrize("limit", [1 << 15, 7])
@pytest.mark.parametrize("sender", [Sender.CLIENT, Sender.SERVER])
def test_the_reader_answers_what_the_grammar_answers(
        rep: Representation, sender: Sender, limit: int) -> None:
    """Each case read by the reader and by the grammar, at press levels None, 0
    and 10, and again (from warm tables): the same message or the same error.
    With a limit of 7 the tables overflow again and again."""
    reader = MessageReader(rep, limit)
    cases = _cases(6, rep, 3000)
    read = 0
    for level in (None, 0, 10, None):
        for tokens in cases:
            cached = outcome(reader.read, tokens, sender=sender, level=level)
            grammar = outcome(parse_message, tokens, rep, sender=sender, level=level)
            assert cached == grammar, tokens
            assert type(cached) is type(grammar)
            read += isinstance(cached, (Sub, Now, Sco))
    assert read > 700
    for table in (reader._orders, reader._turns, reader._units, reader._centres):
        assert len(table) <= limit


def _mutated_text(rng: random.Random, text: str) -> str:
    """``text`` with a few of the text form's liberties and faults: lower case,
    brackets unspaced, other separators, raw bracket tokens, strings, unknown
    and misplaced words, a word glued to the command."""
    words = text.split()
    for _ in range(rng.choice([0, 1, 1, 2])):
        k = rng.randrange(len(words) + 1)
        roll = rng.random()
        if roll < 0.3:
            words.insert(k, rng.choice(["0x4000", "0x4001", "0x4001 0x4000", "'a(b'", "XYZ",
                                        "X", "AUS", "(", ")", "-1", "0x4100", "\x1c", "SUB",
                                        "\u00a0"]))
        elif roll < 0.5 and k < len(words):
            words[k] = words[k].lower()
        elif roll < 0.6 and k < len(words):
            del words[k]
        elif roll < 0.7 and words:
            words[0] = words[0] + rng.choice(["(", "X", "\x1c", "'"])
    joined = rng.choice([" ", "  ", "\t", "\n", " \r\n "]).join(words)
    if rng.random() < 0.3:
        joined = joined.replace(" ( ", "(").replace(" )", ")")
    if rng.random() < 0.1:
        joined = " " + joined
    return joined


@pytest.mark.parametrize("sender", [Sender.CLIENT, Sender.SERVER])
def test_text_is_read_as_the_grammar_reads_it(rep: Representation, sender: Sender) -> None:
    """``read_text`` is ``parse_message_text``: the seeded messages as text and
    mutated as text, twice over, with a table of 64."""
    rng = random.Random(9)
    reader = MessageReader(rep, 64)
    texts = []
    for tokens in _cases(9, rep, 1500):
        text = render_text(tokens, rep)
        texts += [text, _mutated_text(rng, text)]
    read = 0
    for text in texts * 2:
        cached = outcome(reader.read_text, text, sender=sender)
        assert cached == outcome(parse_message_text, text, rep, sender=sender), text
        read += isinstance(cached, (Sub, Now, Sco))
    assert read > 250


def test_raw_brackets_in_a_group_of_the_text_are_read_as_the_grammar_reads_them() -> None:
    """``0x4001 0x4000`` closes a group and opens the next one: what looks like
    one group in the text is two, and the SUB has two orders."""
    reader = MessageReader(STANDARD)
    for text in ["SUB ( ( AUS AMY VIE ) HLD 0x4001 0x4000 ( AUS AMY BUD ) HLD )",
                 "SCO ( AUS VIE 0x4001 0x4000 ENG LON )",
                 "NOW ( SPR 1901 0x4001 0x4000 AUS AMY VIE )"]:
        for sender in (Sender.CLIENT, Sender.SERVER):
            for _ in range(2):
                assert (outcome(reader.read_text, text, sender=sender)
                        == outcome(parse_message_text, text, STANDARD, sender=sender))
    sub = reader.read_text("SUB ( ( AUS AMY VIE ) HLD 0x4001 0x4000 ( AUS AMY BUD ) HLD )",
                           sender=Sender.CLIENT)
    assert isinstance(sub, Sub) and len(sub.orders) == 2


def test_text_reads_into_the_same_tables() -> None:
    """A group met as text is kept by its text, met as tokens by its tokens: the
    same reading, found either way."""
    reader = MessageReader(STANDARD)
    text = "NOW ( SPR 1901 ) ( AUS AMY VIE ) ( RUS FLT ( STP SCS ) MRT ( GOB ) )"
    by_text = reader.read_text(text, sender=Sender.SERVER)
    by_tokens = reader.read(parse_text(text, STANDARD), sender=Sender.SERVER)
    assert by_text == by_tokens == parse_message_text(text, STANDARD, sender=Sender.SERVER)
    assert len(reader._units) == 4 and "( AUS AMY VIE )" in reader._units


def test_the_tables_hold_only_what_the_grammar_read_from_their_keys(rep: Representation) -> None:
    """Every kept reading is what the grammar reads from a message of that group:
    an order from ``SUB (order)``, a turn from ``NOW (turn)``, a unit from ``NOW
    (turn) (unit)``, an owner's centres from ``SCO (owner centre ...)``."""
    reader = MessageReader(rep)
    for tokens in _cases(8, rep, 3000):
        outcome(reader.read, tokens, sender=Sender.CLIENT)
        outcome(reader.read, tokens, sender=Sender.SERVER)
    v = rep.values
    assert len(reader._orders) > 200 and len(reader._units) > 50
    assert len(reader._centres) > 50 and len(reader._turns) > 5
    for group, order in reader._orders.items():
        assert isinstance(group, tuple)
        assert parse_message((v["SUB"], *group), rep, sender=Sender.CLIENT) == Sub((order,))
    some_turn = next(iter(reader._turns))
    assert isinstance(some_turn, tuple)
    for group, turn in reader._turns.items():
        assert isinstance(group, tuple)
        assert parse_message((v["NOW"], *group), rep, sender=Sender.SERVER) == Now(turn, ())
    for group, unit in reader._units.items():
        assert isinstance(group, tuple)
        now = parse_message((v["NOW"], *some_turn, *group), rep, sender=Sender.SERVER)
        assert isinstance(now, Now) and now.units == (unit,)
    for group, centres in reader._centres.items():
        assert isinstance(group, tuple)
        assert parse_message((v["SCO"], *group), rep, sender=Sender.SERVER) == Sco((centres,))


def test_an_order_met_again_is_the_kept_one() -> None:
    text = "SUB ( SPR 1901 ) ( ( AUS AMY VIE ) MTO BUD ) ( ( RUS FLT ( STP SCS ) ) HLD )"
    reader = MessageReader(STANDARD)
    first = reader.read(parse_text(text, STANDARD), sender=Sender.CLIENT)
    again = reader.read(parse_text(text.replace("SPR", "FAL"), STANDARD), sender=Sender.CLIENT)
    assert isinstance(first, Sub) and isinstance(again, Sub)
    assert first.orders == again.orders and first.turn != again.turn
    assert all(a is b for a, b in zip(first.orders, again.orders, strict=True))


def test_a_reader_belongs_to_its_representation() -> None:
    """The same tokens are other orders under another representation: a
    connection given a reader reads with it, and after its representation
    changed with a reader of its own, never from the old one's tables."""
    other = Representation.for_variant(["AUS", "ENG"], [("ZZZ", ProvinceCategory.INLAND, False)])
    assert other.values["ZZZ"] == STANDARD.values["BOH"]
    tokens = parse_text("SUB ( ( AUS AMY BOH ) HLD )", STANDARD)
    shared = MessageReader(STANDARD)
    server = Connection(Sender.SERVER, STANDARD, reader=shared)
    server.receive_data(build_frame(InitialMessage()))
    assert isinstance(server.next_event(), InitialReceived)
    read = []
    for rep in (STANDARD, other, STANDARD):
        server.representation = rep
        server.receive_data(dm_frame(tokens))
        event = server.next_event()
        assert isinstance(event, MessageReceived)
        read.append(event.message)
    assert read[0] == parse_message(tokens, STANDARD, sender=Sender.CLIENT)
    assert read[1] == parse_message(tokens, other, sender=Sender.CLIENT)
    assert read[0] != read[1]
    assert read[2] == read[0]
    assert isinstance(read[0], Sub)
    assert list(shared._orders.values()) == [read[0].orders[0]]


def test_connections_share_the_process_reader_of_their_representation() -> None:
    """Connections read with the process's reader for their representation,
    found by value: an equal representation built anew shares it."""
    again = Representation.from_entries(STANDARD.entries)
    assert again is not STANDARD and again == STANDARD
    assert process_reader(again) is process_reader(STANDARD)
    other = Representation.for_variant(["AUS", "ENG"], [("ZZZ", ProvinceCategory.INLAND, False)])
    assert process_reader(other) is not process_reader(STANDARD)
    assert process_reader(other).rep == other
    tokens = parse_text("SUB ( ( FRA AMY PAR ) MTO PIC )", STANDARD)
    for _ in range(2):
        server = Connection(Sender.SERVER, again)
        server.receive_data(build_frame(InitialMessage()) + dm_frame(tokens))
        assert isinstance(server.next_event(), InitialReceived)
        event = server.next_event()
        assert isinstance(event, MessageReceived)
        assert event.message == parse_message(tokens, STANDARD, sender=Sender.CLIENT)
    assert tokens[1:] in process_reader(STANDARD)._orders
