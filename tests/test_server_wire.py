"""`server.wire`: broadcasts encoded once, written unchanged or re-encoded for another representation."""

from __future__ import annotations

import itertools

import pytest

from adjudicator.results import OrderResult, PhaseResult
from adjudicator.values import GameState, Phase, initial_state
from engine.convert import now_message, ord_messages, state_from_messages
from engine.variants import standard_map
from orders import Hold, Order
from protocol.errors import EncodeError
from protocol.frames import (
    MAX_SENT_BODY,
    DiplomacyMessage,
    build_frame,
    dm_frame_of_body,
    parse_frames,
)
from protocol.messages import Frm, Message, Now, Ord, Sco, Sub, Thx
from protocol.orders import Turn, order_node
from protocol.parse import Sender, parse_message
from protocol.text import parse_text, render_text
from protocol.tokens import BRA, KET, STANDARD, Representation
from protocol.tree import dm_body, from_tree
from server.press import wire_representation
from server.wire import (
    KEPT_ORDERS,
    OrderCodes,
    Packet,
    PositionCodes,
    dm_frame,
    encode,
    join,
    packet,
    reframe,
)

NOW_TEXT = "NOW ( SPR 1901 ) ( AUS AMY BUD ) ( ENG FLT ( STP NCS ) )"
FRM_TEXT = "FRM ( FRA ) ( ENG ) ( FCT ( PCE ( FRA ENG ) ) )"


def message(text: str, rep: Representation = STANDARD, sender: Sender = Sender.SERVER) -> Message:
    return parse_message(parse_text(text, rep), rep, sender=sender)


def test_encode_gives_the_frame_and_text_of_the_same_tokens() -> None:
    now = message(NOW_TEXT)
    assert isinstance(now, Now)
    encoded = encode(now, STANDARD)
    assert encoded.packet.frames == build_frame(DiplomacyMessage(now.to_tokens(STANDARD)))
    assert encoded.packet.frames[:4] == bytes([2, 0, 0, 2 * len(now.to_tokens(STANDARD))])
    assert encoded.text == render_text(now.to_tokens(STANDARD), STANDARD) == NOW_TEXT
    assert encoded.packet.command == "NOW" and encoded.packet.turn == "SPR 1901"
    sco = message("SCO ( AUS BUD ) ( UNO SER )")
    assert isinstance(sco, Sco) and encode(sco, STANDARD).packet.turn is None


def test_join_and_split_keep_whole_frames_in_order() -> None:
    packets = [encode(message(t), STANDARD).packet
               for t in ("SCO ( AUS BUD )", NOW_TEXT, "SCO ( UNO SER )")]
    joined = join(packets, "ORD")
    assert joined is not None and joined.command == "ORD"
    assert joined.frames == b"".join(p.frames for p in packets)
    assert joined.turn == "SPR 1901"                  # the NOW's, for the turn statistics
    alone = join(packets[:1], "SCO")
    assert alone is not None and alone.turn is None
    frames, rest = parse_frames(joined.frames)
    assert rest == b""
    assert [render_text(f.tokens) for f in frames if isinstance(f, DiplomacyMessage)] == \
        ["SCO ( AUS BUD )", NOW_TEXT, "SCO ( UNO SER )"]
    assert join([], "ORD") is None


def test_a_packet_is_reencoded_only_for_another_representation() -> None:
    parlance = wire_representation(STANDARD, "parlance")
    assert parlance is wire_representation(STANDARD, "parlance")    # one shared object
    assert wire_representation(STANDARD, "daide") is STANDARD
    frm = message(FRM_TEXT)
    assert isinstance(frm, Frm)
    packet = encode(frm, STANDARD).packet
    assert packet.for_rep(STANDARD) is packet.frames
    # FCT has another value in the Parlance camp: the bytes change, the message does not.
    moved = packet.for_rep(parlance)
    assert moved == build_frame(DiplomacyMessage(frm.to_tokens(parlance))) != packet.frames
    assert reframe(moved, parlance, STANDARD) == packet.frames


def test_reframing_several_frames_keeps_each() -> None:
    parlance = wire_representation(STANDARD, "parlance")
    frames = b"".join(encode(message(t), STANDARD).packet.frames for t in (FRM_TEXT, NOW_TEXT))
    packet = Packet("FRM", frames, STANDARD)
    assert packet.for_rep(parlance) == b"".join(
        encode(message(t), parlance).packet.frames for t in (FRM_TEXT, NOW_TEXT))


@pytest.mark.parametrize("text", [NOW_TEXT, FRM_TEXT])
def test_packets_are_immutable(text: str) -> None:
    packet = encode(message(text), STANDARD).packet
    with pytest.raises(AttributeError):
        packet.frames = b""  # type: ignore[misc]


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
    sub = parse_message(parse_text("SUB " + " ".join(f"( {t} )" for t in ORDER_TEXTS), rep),
                        rep, sender=Sender.CLIENT)
    assert isinstance(sub, Sub)
    return list(sub.orders)


@pytest.mark.parametrize("numbering", ["daide", "parlance"])
def test_order_codes_put_together_the_same_thx_text_and_ord_as_the_messages(
        numbering: str) -> None:
    rep = wire_representation(STANDARD, numbering)
    codes = OrderCodes(rep)
    turn = Turn("FAL", 1901)
    for order, text in zip(orders_of(rep), ORDER_TEXTS, strict=True):
        assert codes.text(order) == text == codes.text(order)           # once, then remembered
        assert codes.text(order) == render_text(order_node_tokens(order, STANDARD), STANDARD)
        for note in ("MBV", "FAR", "NSU", "NYU"):
            assert codes.thx(order, note) == packet(Thx(order, note), rep).frames
        for result_text in RESULTS:
            ord_ = message(f"ORD ( FAL 1901 ) ( {text} ) ( {result_text} )", rep)
            assert isinstance(ord_, Ord) and ord_.turn == turn
            done = OrderResult(order, ord_.result.outcome, ord_.result.retreat)
            encoded = encode(ord_, rep)
            assert codes.ords(Phase("FAL", 1901), [done]) == (encoded.packet.frames,
                                                              [encoded.text])
    codes.clear()
    order = orders_of(rep)[0]
    assert codes.thx(order, "MBV") == packet(Thx(order, "MBV"), rep).frames


@pytest.mark.parametrize("numbering", ["daide", "parlance"])
def test_order_codes_put_together_a_phase_of_ords_as_the_engine_words_them(
        numbering: str) -> None:
    rep = wire_representation(STANDARD, numbering)
    codes = OrderCodes(rep)
    orders = orders_of(rep)
    for turn in (Phase("SPR", 1901), Phase("FAL", 1901), Phase("SPR", 1901)):
        results = tuple(OrderResult(order, outcome, dislodged)
                        for order, (outcome, dislodged) in zip(
                            orders, itertools.cycle([("SUC", False), ("BNC", True), (None, True),
                                                     ("CUT", False), ("NRS", False)])))
        messages = ord_messages(PhaseResult(turn, results, initial_state(standard_map()),
                                            False, None, ()))
        frames, texts = codes.ords(turn, results)
        assert frames == b"".join(encode(m, rep).packet.frames for m in messages)
        assert texts == [encode(m, rep).text for m in messages]
    assert codes.ords(Phase("WIN", 1901), ()) == (b"", [])


def order_node_tokens(order: Order, rep: Representation) -> tuple[int, ...]:
    """The order's tokens the generic way (what the store wrote before `OrderCodes`)."""
    return from_tree(order_node(order), rep)


@pytest.mark.parametrize("tokens", [(0x4A1C,), (0x4A1C, BRA, 0x4101, 0x1234, KET), (0x3FFF, 0x2000)])
def test_a_body_put_together_is_the_body_build_frame_writes(tokens: tuple[int, ...]) -> None:
    # The server joins the kept bodies of a message's parts (OrderCodes).
    parts = [dm_body(tokens[i:i + 1]) for i in range(len(tokens))]
    assert dm_frame_of_body(b"".join(parts)) == build_frame(DiplomacyMessage(tokens))


@pytest.mark.parametrize("tokens", [(), (0x5801,), (0x4A1C, 0x5FFF), (0x10000,), (-1,)])
def test_a_body_that_may_not_be_sent_is_refused_as_build_frame_refuses_it(
        tokens: tuple[int, ...]) -> None:
    with pytest.raises(EncodeError):
        build_frame(DiplomacyMessage(tokens))
    with pytest.raises(EncodeError):
        dm_body(tokens)


#: Positions as the server announces them: coasts, dislodged units with and
#: without somewhere to retreat, and units met again in the next NOW.
NOW_TEXTS = [
    NOW_TEXT,
    "NOW ( FAL 1901 ) ( AUS AMY BUD ) ( ENG FLT ( STP NCS ) ) ( RUS FLT ( STP SCS ) )",
    "NOW ( SUM 1902 ) ( AUS AMY BUD ) ( ENG FLT NTH MRT ( LON YOR ) ) ( FRA AMY PAR MRT ( ) )"
    " ( GER FLT ( SPA NCS ) MRT ( ( SPA SCS ) POR ) ) ( ENG FLT ( STP NCS ) )",
    "NOW ( WIN 1902 )",
]


@pytest.mark.parametrize("numbering", ["daide", "parlance"])
def test_position_codes_put_together_the_same_now_as_the_message(numbering: str) -> None:
    rep = wire_representation(STANDARD, numbering)
    codes = PositionCodes(rep)
    for _ in range(2):                                   # then from the kept units
        for text in NOW_TEXTS:
            now = message(text, rep)
            assert isinstance(now, Now)
            state = state_from_messages(Sco(()), now)
            assert now_message(state) == now             # written in NOW's order
            assert codes.now(state) == encode(now, rep)
            assert codes.now(state).text == text
    # Units out of NOW's order (a state not made by the adjudicator) are put in it.
    state = state_from_messages(Sco(()), message(NOW_TEXT, rep))
    shuffled = GameState(state.phase, state.units[::-1], state.ownership, state.dislodged)
    assert codes.now(shuffled) == encode(now_message(shuffled), rep) == codes.now(state)


@pytest.mark.parametrize("numbering", ["daide", "parlance"])
def test_position_codes_put_together_the_same_sco_as_the_message(numbering: str) -> None:
    rep = wire_representation(STANDARD, numbering)
    codes = PositionCodes(rep)
    for text in ("SCO ( AUS BUD TRI VIE ) ( ENG EDI LON LVP ) ( UNO BEL SER )",
                 "SCO ( UNO ANK BEL )", "SCO ( FRA BRE MAR PAR )"):
        sco = message(text, rep)
        assert isinstance(sco, Sco)
        assert codes.sco(sco) == encode(sco, rep)
        assert codes.sco(sco).text == text


@pytest.mark.parametrize("numbering", ["daide", "parlance"])
def test_sco_groups_put_together_from_their_names_are_their_nodes(numbering: str) -> None:
    """`PositionCodes.sco` writes a group's body and text from its names (the
    games of a representation share them): seeded groups of powers, UNO and
    provinces - and a group of shared home centres, written the generic way -
    give `encode`'s bytes and text, made and then found."""
    import random  # noqa: PLC0415 - only this test

    from protocol.mapdef import CentreGroup  # noqa: PLC0415

    rep = wire_representation(STANDARD, numbering)
    rng = random.Random(13)
    provinces = sorted(rep.provinces())
    owners = [*sorted(rep.powers()), "UNO"]
    scos = [Sco(tuple(CentreGroup(rng.choice(owners), tuple(sorted(rng.sample(provinces, k))))
                      for k in rng.choices(range(0, 6), k=rng.randint(1, 7))))
            for _ in range(100)]
    scos.append(Sco((CentreGroup(("AUS", "RUS"), ("GAL",)), CentreGroup("TUR", ("ANK",)))))
    for _ in range(2):                                     # made, then found
        codes = PositionCodes(rep)
        for sco in scos:
            assert codes.sco(sco) == encode(sco, rep)


def test_a_frame_with_a_kept_header_is_the_frame_of_the_body() -> None:
    for tokens in [(0x4A1C,), (0x4A1C, BRA, 0x4101, 0x1234, KET), tuple(range(300))]:
        body = dm_body(tokens)
        assert dm_frame(body) == dm_frame_of_body(body) == dm_frame(body)
    too_long = b"\x40\x00" * (MAX_SENT_BODY // 2 + 1)
    for _ in range(2):                      # refused every time, never kept
        with pytest.raises(EncodeError):
            dm_frame(too_long)


def test_the_games_of_a_server_share_the_encodings_of_its_orders() -> None:
    """`OrderCodes` of one representation share one table (each order encoded
    once for the whole server; the parser gives an order read again the same
    object); another representation has its own; a full table is emptied
    at the end of a phase."""
    daide, parlance = (wire_representation(STANDARD, n) for n in ("daide", "parlance"))
    first, second, other = OrderCodes(daide), OrderCodes(daide), OrderCodes(parlance)

    def read() -> Order:
        sub = message("SUB ( ( AUS FLT ( BUL ECS ) ) MTO BLA )", daide, Sender.CLIENT)
        assert isinstance(sub, Sub)
        return sub.orders[0]

    order = read()
    assert read() is order
    frame = first.thx(order, "MBV")
    assert second.thx(order, "MBV") is frame                 # found, not made again
    assert other.thx(order, "MBV") == frame and other.thx(order, "MBV") is not frame
    for _ in range(KEPT_ORDERS):
        second.text(Hold(order.unit))        # a new object each time: fills the table
    first.clear()
    assert first.thx(order, "MBV") is not frame              # made again: the table was emptied
    assert first.thx(order, "MBV") == frame


@pytest.mark.parametrize("numbering", ["daide", "parlance"])
def test_a_new_order_put_together_from_kept_parts_is_encoded_as_its_node(numbering: str) -> None:
    """`OrderCodes` puts a new order's tokens, body and text together from the
    kept parts of its units, words and places: seeded orders of every kind
    (coasts, units met again as the same object and as an equal one) give
    the tokens of their node, the text of those tokens and the THX frame of
    the message."""
    import random  # noqa: PLC0415 - only this test

    from orders import (  # noqa: PLC0415
        Build,
        Convoy,
        ConvoyMove,
        Disband,
        Location,
        Move,
        Remove,
        Retreat,
        SupportHold,
        SupportMove,
        Unit,
        Waive,
    )

    rep = wire_representation(STANDARD, numbering)
    rng = random.Random(9)
    places = [Location(p) for p in ("PAR", "BUR", "NTH", "MAO", "ROM")] + \
        [Location("STP", "NCS"), Location("BUL", "ECS"), Location("SPA", "SCS")]
    units = [Unit(p, k, rng.choice(places)) for p in ("ENG", "FRA", "RUS") for k in ("AMY", "FLT")
             for _ in range(3)]

    def unit() -> Unit:
        u = rng.choice(units)
        return u if rng.random() < 0.7 else Unit(u.power, u.kind, u.location)   # equal, not same

    makers = [lambda: Hold(unit()), lambda: Move(unit(), rng.choice(places)),
              lambda: Retreat(unit(), rng.choice(places)), lambda: Disband(unit()),
              lambda: Build(unit()), lambda: Remove(unit()), lambda: SupportHold(unit(), unit()),
              lambda: SupportMove(unit(), unit(), rng.choice(places).province),
              lambda: Convoy(unit(), unit(), rng.choice(places).province),
              lambda: ConvoyMove(unit(), "TUN", ("ION", "TYS")), lambda: Waive("ENG")]
    codes = OrderCodes(rep)
    for _ in range(600):
        order = rng.choice(makers)()
        tokens = from_tree(order_node(order), rep)
        assert codes.tokens(order) == tokens
        assert codes.text(order) == render_text(tokens, rep)
        assert codes.thx(order, "MBV") == packet(Thx(order, "MBV"), rep).frames
        assert codes.thx(order, "NSU") == packet(Thx(order, "NSU"), rep).frames
