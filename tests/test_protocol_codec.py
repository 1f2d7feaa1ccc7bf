"""`protocol.codec.Codec`: a message put together from kept parts is byte for byte,
and letter for letter, the message encoded whole.

Each test encodes messages twice with one codec (the parts made, then found)
and compares with the generic road - ``message.to_tokens`` framed by
`protocol.frames.build_frame` and written by `protocol.text.render_text` -
in both press numberings."""

from __future__ import annotations

import itertools
import random

import pytest

from adjudicator.results import OrderResult, PhaseResult
from adjudicator.values import GameState, Phase, initial_state
from engine.convert import now_message, ord_messages, state_from_messages
from engine.variants import standard_map
from orders import (
    Build,
    Convoy,
    ConvoyMove,
    Disband,
    Hold,
    Location,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    Waive,
)
from protocol.codec import KEPT_PARTS, Codec, Encoding
from protocol.errors import EncodeError
from protocol.frames import MAX_SENT_BODY, DiplomacyMessage, build_frame
from protocol.mapdef import CentreGroup
from protocol.messages import Message, Mis, Nme, Now, Sco, Sub, Thx
from protocol.orders import order_node
from protocol.parse import Sender, parse_message
from protocol.text import parse_text, render_text
from protocol.tokens import STANDARD, Representation
from protocol.tree import Text, from_tree
from server.press import wire_representation

NUMBERINGS = ["daide", "parlance"]


def whole(message: Message, rep: Representation) -> Encoding:
    """The generic road: the message's tokens, framed and written whole."""
    tokens = message.to_tokens(rep)
    return Encoding(build_frame(DiplomacyMessage(tokens)), render_text(tokens, rep))


def parsed(text: str, rep: Representation, sender: Sender = Sender.SERVER) -> Message:
    return parse_message(parse_text(text, rep), rep, sender=sender)


#: Orders of every kind (docs/protocol.md §9.1), as a client submits them.
ORDER_TEXTS = [
    "( ENG FLT NTH ) HLD",
    "( FRA AMY PAR ) MTO BUR",
    "( RUS FLT SEV ) MTO ( BUL ECS )",
    "( GER AMY MUN ) SUP ( GER AMY BER )",
    "( GER AMY MUN ) SUP ( FRA AMY PAR ) MTO BUR",
    "( ENG FLT NTH ) CVY ( ENG AMY LON ) CTO NWY",
    "( ENG AMY LON ) CTO NWY VIA ( NTH )",
    "( RUS FLT ( STP SCS ) ) RTO GOB",
    "( ITA AMY VEN ) DSB",
    "( AUS AMY VIE ) BLD",
    "( RUS FLT ( STP NCS ) ) BLD",
    "( AUS AMY BUD ) REM",
    "AUS WVE",
]
RESULTS = ["SUC", "BNC", "CUT", "DSR", "NSO", "RET", "SUC RET", "BNC RET", "NRS"]


def orders_of(rep: Representation) -> list[Order]:
    sub = parsed("SUB " + " ".join(f"( {t} )" for t in ORDER_TEXTS), rep, Sender.CLIENT)
    assert isinstance(sub, Sub)
    return list(sub.orders)


@pytest.mark.parametrize("numbering", NUMBERINGS)
def test_thx_ord_and_an_orders_text_are_those_of_the_message(numbering: str) -> None:
    rep = wire_representation(STANDARD, numbering)
    codec = Codec(rep)
    for _ in range(2):                                   # made, then found
        for order, text in zip(orders_of(rep), ORDER_TEXTS, strict=True):
            assert codec.text(order_node(order)) == text == codec.order_text(order)
            for note in ("MBV", "FAR", "NSU", "NYU"):
                assert codec.encode(Thx(order, note)) == whole(Thx(order, note), rep)
            for result in RESULTS:
                ord_ = parsed(f"ORD ( FAL 1901 ) ( {text} ) ( {result} )", rep)
                assert codec.encode(ord_) == whole(ord_, rep)


@pytest.mark.parametrize("numbering", NUMBERINGS)
def test_a_phase_of_ords_as_the_engine_words_them(numbering: str) -> None:
    rep = wire_representation(STANDARD, numbering)
    codec = Codec(rep)
    orders = orders_of(rep)
    for turn in (Phase("SPR", 1901), Phase("FAL", 1901), Phase("SPR", 1901)):
        results = tuple(OrderResult(order, outcome, dislodged)
                        for order, (outcome, dislodged) in zip(
                            orders, itertools.cycle([("SUC", False), ("BNC", True), (None, True),
                                                     ("CUT", False), ("NRS", False)])))
        for message in ord_messages(PhaseResult(turn, results, initial_state(standard_map()),
                                                False, None, ())):
            assert codec.encode(message) == whole(message, rep)


#: Positions as the server announces them: coasts, dislodged units with and
#: without somewhere to retreat, and units met again in the next NOW.
NOW_TEXTS = [
    "NOW ( SPR 1901 ) ( AUS AMY BUD ) ( ENG FLT ( STP NCS ) )",
    "NOW ( FAL 1901 ) ( AUS AMY BUD ) ( ENG FLT ( STP NCS ) ) ( RUS FLT ( STP SCS ) )",
    "NOW ( SUM 1902 ) ( AUS AMY BUD ) ( ENG FLT NTH MRT ( LON YOR ) ) ( FRA AMY PAR MRT ( ) )"
    " ( GER FLT ( SPA NCS ) MRT ( ( SPA SCS ) POR ) ) ( ENG FLT ( STP NCS ) )",
    "NOW ( WIN 1902 )",
]


@pytest.mark.parametrize("numbering", NUMBERINGS)
def test_now_is_that_of_the_message(numbering: str) -> None:
    rep = wire_representation(STANDARD, numbering)
    codec = Codec(rep)
    for _ in range(2):
        for text in NOW_TEXTS:
            now = parsed(text, rep)
            assert isinstance(now, Now)
            state = state_from_messages(Sco(()), now)
            assert now_message(state) == now
            assert codec.encode(now) == whole(now, rep)
            assert codec.encode(now).text == text
    # Units out of NOW's order (a state not made by the adjudicator) are put in it.
    state = state_from_messages(Sco(()), parsed(NOW_TEXTS[0], rep))
    shuffled = GameState(state.phase, state.units[::-1], state.ownership, state.dislodged)
    assert codec.encode(now_message(shuffled)) == codec.encode(now_message(state))


@pytest.mark.parametrize("numbering", NUMBERINGS)
def test_sco_is_that_of_the_message(numbering: str) -> None:
    """Seeded groups of powers, UNO and provinces, and a group of shared home centres."""
    rep = wire_representation(STANDARD, numbering)
    rng = random.Random(13)
    provinces = sorted(rep.provinces())
    owners = [*sorted(rep.powers()), "UNO"]
    scos = [Sco(tuple(CentreGroup(rng.choice(owners), tuple(sorted(rng.sample(provinces, k))))
                      for k in rng.choices(range(0, 6), k=rng.randint(1, 7))))
            for _ in range(100)]
    scos.append(Sco((CentreGroup(("AUS", "RUS"), ("GAL",)), CentreGroup("TUR", ("ANK",)))))
    codec = Codec(rep)
    for _ in range(2):
        for sco in scos:
            assert codec.encode(sco) == whole(sco, rep)


@pytest.mark.parametrize("numbering", NUMBERINGS)
def test_seeded_orders_of_every_kind_are_encoded_as_their_node(numbering: str) -> None:
    """Coasts, units met again as the same object and as an equal one."""
    rep = wire_representation(STANDARD, numbering)
    rng = random.Random(9)
    places = [Location(p) for p in ("PAR", "BUR", "NTH", "MAO", "ROM")] + \
        [Location("STP", "NCS"), Location("BUL", "ECS"), Location("SPA", "SCS")]
    units = [Unit(p, k, rng.choice(places)) for p in ("ENG", "FRA", "RUS") for k in ("AMY", "FLT")
             for _ in range(3)]

    def unit() -> Unit:
        u = rng.choice(units)
        return u if rng.random() < 0.7 else Unit(u.power, u.kind, u.location)

    makers = [lambda: Hold(unit()), lambda: Move(unit(), rng.choice(places)),
              lambda: Retreat(unit(), rng.choice(places)), lambda: Disband(unit()),
              lambda: Build(unit()), lambda: Remove(unit()), lambda: SupportHold(unit(), unit()),
              lambda: SupportMove(unit(), unit(), rng.choice(places).province),
              lambda: Convoy(unit(), unit(), rng.choice(places).province),
              lambda: ConvoyMove(unit(), "TUN", ("ION", "TYS")), lambda: Waive("ENG")]
    codec = Codec(rep)
    for _ in range(600):
        order = rng.choice(makers)()
        assert codec.text(order_node(order)) == render_text(from_tree(order_node(order), rep), rep)
        for note in ("MBV", "NSU"):
            assert codec.encode(Thx(order, note)) == whole(Thx(order, note), rep)


def test_a_message_with_text_is_encoded_whole() -> None:
    """A `Text` equals the mnemonic of its letters as a value: messages that may
    hold one are never put together from kept parts."""
    codec = Codec(STANDARD)
    for name in ("FRA", "ENG"):
        nme = Nme(Text(name), Text("1.0"))
        assert codec.encode(nme) == whole(nme, STANDARD)
        assert "'" + name + "'" in codec.encode(nme).text


def test_mis_and_a_full_table() -> None:
    codec = Codec(STANDARD)
    for count in range(-3, 4):
        mis = Mis(count=count) if count else Mis()
        assert codec.encode(mis) == whole(mis, STANDARD)
    hold = Thx(Hold(Unit("ENG", "FLT", Location("NTH"))), "MBV")
    first = codec.encode(hold)
    for year in range(KEPT_PARTS + 10):            # fills the table: it is emptied, then refilled
        codec.text((("ENG", "FLT", "NTH"), "MTO", year % 8000))
    assert codec.encode(hold) == first


def test_a_message_too_long_to_send_is_refused_every_time() -> None:
    codec = Codec(STANDARD)
    units = [f"( ENG FLT NTH MRT ( {' '.join(['LON'] * 40)} ) )"] * (MAX_SENT_BODY // 80)
    now = parsed("NOW ( SPR 1901 ) " + " ".join(units), STANDARD)
    for _ in range(2):
        with pytest.raises(EncodeError):
            codec.encode(now)
