"""The sans-IO Connection: framing table, every EM code, byte-at-a-time feeding."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orders import (
    Location,
    Unit,
)
from protocol.connection import (
    CLOSED,
    NEED_DATA,
    Connection,
    ConnectionClosed,
    Event,
    InitialReceived,
    LocalProtocolError,
    MessageReceived,
    MessageRejected,
    ProtocolViolation,
    RepresentationReceived,
    State,
)
from protocol.errors import EncodeError
from protocol.frames import (
    DiplomacyMessage,
    ErrorCode,
    ErrorMessage,
    FinalMessage,
    InitialMessage,
    RepresentationMessage,
    build_frame,
)
from protocol.messages import Adm, Drw, Huh, MapMessage, Message, Nme, Now, Off, Prn, Yes
from protocol.orders import Turn, UnitPosition
from protocol.parse import Sender
from protocol.text import parse_text, render_text
from protocol.tokens import ProvinceCategory, Representation

IM = bytes.fromhex("00000004 0001 DA10")
RM_EMPTY = bytes.fromhex("01000000")
FM = bytes.fromhex("03000000")


def dm(text: str) -> bytes:
    return build_frame(DiplomacyMessage(parse_text(text)))


def events(conn: Connection, data: bytes) -> list[Event]:
    conn.receive_data(data)
    out: list[Event] = []
    while True:
        event = conn.next_event()
        if event is NEED_DATA or event is CLOSED:
            return out
        assert not isinstance(event, type(NEED_DATA))
        out.append(event)


def violation(conn: Connection, data: bytes) -> ErrorCode:
    got = events(conn, data)
    assert isinstance(got[-1], ProtocolViolation), got
    assert got[-1].data == bytes([4, 0, 0, 2, 0, got[-1].code])
    assert conn.state is State.CLOSED and conn.next_event() is CLOSED
    return got[-1].code


def server_after_im() -> Connection:
    conn = Connection(Sender.SERVER)
    assert events(conn, IM) == [InitialReceived(1)]
    return conn


def client_after_rm() -> Connection:
    conn = Connection(Sender.CLIENT)
    conn.send(InitialMessage())
    assert events(conn, RM_EMPTY)[0] == RepresentationReceived(conn.representation, True)
    return conn


# --- the worked frames of docs/protocol.md §12a ----------------------------------------------


def test_fixed_frames() -> None:
    client = Connection(Sender.CLIENT)
    assert client.send(InitialMessage()) == IM
    server = server_after_im()
    assert server.send(RepresentationMessage()) == RM_EMPTY
    assert server.send(FinalMessage()) == FM
    assert Connection(Sender.SERVER).im_timer_expired() == bytes.fromhex("04000002 0001")


def test_a_session_in_both_directions() -> None:
    client, server = Connection(Sender.CLIENT), Connection(Sender.SERVER)
    # docs/protocol.md §19.2: NME right after the IM, before the RM arrived.
    to_server = client.send(InitialMessage()) + client.send(Nme("Bot", "1.0"))
    got = events(server, to_server)
    assert got[0] == InitialReceived(1)
    assert isinstance(got[1], MessageReceived) and got[1].message == Nme("Bot", "1.0")
    to_client = server.send(RepresentationMessage()) + server.send(Yes(Nme("Bot", "1.0")))
    to_client += server.send(MapMessage("STANDARD"))
    got = events(client, to_client)
    assert [type(e) for e in got] == [RepresentationReceived, MessageReceived, MessageReceived]
    assert got[2] == MessageReceived(MapMessage("STANDARD"), parse_text("MAP ( 'STANDARD' )"))
    got = events(server, client.send(FinalMessage()))
    assert got == [ConnectionClosed("FM")]
    assert server.next_event() is CLOSED


# --- every EM code ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data,code",
    [
        (dm("NME ( 'a' ) ( 'b' )"), ErrorCode.IM_NOT_FIRST),
        (bytes.fromhex("00000004 0001 10DA"), ErrorCode.IM_WRONG_ENDIAN),
        (bytes.fromhex("00000400 0001 DA10"), ErrorCode.IM_WRONG_ENDIAN),  # length LE
        (bytes.fromhex("00000004 0001 1234"), ErrorCode.IM_WRONG_MAGIC),
        (bytes.fromhex("00000004 0002 DA10"), ErrorCode.VERSION_INCOMPATIBLE),
        (bytes.fromhex("00000006 0001 DA10 0000"), ErrorCode.BAD_LENGTH),
        (bytes.fromhex("07000000"), ErrorCode.UNKNOWN_TYPE),
        (RM_EMPTY, ErrorCode.RM_FROM_CLIENT),
    ],
)
def test_server_em_codes_before_im(data: bytes, code: ErrorCode) -> None:
    assert violation(Connection(Sender.SERVER), data) == code


@pytest.mark.parametrize(
    "data,code",
    [
        (IM, ErrorCode.IM_REPEATED),
        (RM_EMPTY, ErrorCode.RM_FROM_CLIENT),
        (bytes.fromhex("FF000000"), ErrorCode.UNKNOWN_TYPE),
        (bytes.fromhex("02000003 480A00"), ErrorCode.BAD_LENGTH),  # odd DM
        (bytes.fromhex("02000000"), ErrorCode.BAD_LENGTH),  # empty DM
        (bytes.fromhex("03000002 0000"), ErrorCode.BAD_LENGTH),  # FM with a body
        (bytes.fromhex("04000001 00"), ErrorCode.BAD_LENGTH),  # short EM
        (bytes.fromhex("02000004 4818 5800"), ErrorCode.INVALID_TOKEN),  # private use
        (bytes.fromhex("02000002 5F01"), ErrorCode.INVALID_TOKEN),
    ],
)
def test_server_em_codes_after_im(data: bytes, code: ErrorCode) -> None:
    assert violation(server_after_im(), data) == code


def test_server_im_timer_is_the_callers() -> None:
    conn = Connection(Sender.SERVER)
    assert conn.im_timer_expired() == bytes.fromhex("04000002 0001")
    assert conn.state is State.CLOSED
    with pytest.raises(LocalProtocolError):
        server_after_im().im_timer_expired()


@pytest.mark.parametrize(
    "data,code",
    [
        (IM, ErrorCode.RM_NOT_FIRST),
        (dm("OFF"), ErrorCode.DM_BEFORE_RM),
        (bytes.fromhex("05000000"), ErrorCode.UNKNOWN_TYPE),
        (bytes.fromhex("01000005 4100414141"), ErrorCode.BAD_LENGTH),
        (bytes.fromhex("01000006 4100 414141 01"), ErrorCode.INVALID_TOKEN),  # no 0x00
        (bytes.fromhex("01000006 4300 414141 00"), ErrorCode.INVALID_TOKEN),  # not a power
        (bytes.fromhex("01000006 4100 41412D 00"), ErrorCode.INVALID_TOKEN),  # "AA-"
    ],
)
def test_client_em_codes_before_rm(data: bytes, code: ErrorCode) -> None:
    conn = Connection(Sender.CLIENT)
    conn.send(InitialMessage())
    assert violation(conn, data) == code


@pytest.mark.parametrize(
    "data,code",
    [
        (IM, ErrorCode.IM_FROM_SERVER),
        (RM_EMPTY, ErrorCode.RM_REPEATED),
        (bytes.fromhex("80000000"), ErrorCode.UNKNOWN_TYPE),
        (bytes.fromhex("02000001 48"), ErrorCode.BAD_LENGTH),
        (bytes.fromhex("02000002 5A00"), ErrorCode.INVALID_TOKEN),
    ],
)
def test_client_em_codes_after_rm(data: bytes, code: ErrorCode) -> None:
    assert violation(client_after_rm(), data) == code


def test_every_em_code_is_raised_somewhere() -> None:
    # 0x01 is the caller's timer; the rest appear in the tables above.
    assert {c.value for c in ErrorCode} == set(range(1, 0x0F))


def test_fm_em_and_eof_close() -> None:
    conn = server_after_im()
    assert events(conn, bytes.fromhex("04000002 0009")) == [ConnectionClosed("EM", 9)]
    conn = client_after_rm()
    assert events(conn, FM) == [ConnectionClosed("FM")]
    conn = server_after_im()
    conn.receive_data(dm("OBS")[:3])
    assert events(conn, b"") == [ConnectionClosed("EOF", partial=True)]
    with pytest.raises(LocalProtocolError):
        conn.send(Off())


# --- language errors are DMs, not EMs ---------------------------------------------------------


def test_bad_messages_give_prn_and_huh() -> None:
    conn = server_after_im()
    conn.level = 0
    got = events(
        conn, dm("IAM ( NOT") + dm("DRW ( FRA ENG )") + dm("SUB ( ( ENG AMY 0x4C05 ) HLD )")
    )
    assert all(isinstance(e, MessageRejected) for e in got)
    replies = [e.reply for e in got if isinstance(e, MessageRejected)]
    assert replies[0] == Prn(parse_text("IAM ( NOT"))
    assert isinstance(replies[1], Huh) and isinstance(replies[2], Huh)
    assert render_text(replies[1].to_tokens()) == "HUH ( DRW ERR ( FRA ENG ) )"
    assert render_text(replies[2].to_tokens()) == "HUH ( SUB ( ( ENG AMY ERR 0x4C05 ) HLD ) )"
    assert conn.state is State.GOT_IM  # still open


# --- sending rules ---------------------------------------------------------------------------


def test_local_errors() -> None:
    server = server_after_im()
    with pytest.raises(LocalProtocolError):
        server.send(Off())  # DM before the RM
    server.send(RepresentationMessage())
    with pytest.raises(LocalProtocolError):
        server.send(RepresentationMessage())
    with pytest.raises(LocalProtocolError):
        server.send(InitialMessage())
    client = Connection(Sender.CLIENT)
    with pytest.raises(LocalProtocolError):
        client.send(Nme("a", "b"))  # before the IM
    client.send(InitialMessage())
    with pytest.raises(LocalProtocolError):
        client.send(RepresentationMessage())
    client.send(ErrorMessage(ErrorCode.BAD_LENGTH))
    with pytest.raises(LocalProtocolError):
        client.send(Nme("a", "b"))


def test_oversized_dm_is_refused() -> None:
    conn = client_after_rm()
    conn.send(Adm("x", "y" * 16000))
    with pytest.raises(EncodeError):
        conn.send(Adm("x", "y" * 16400))


def test_variant_rm_switches_the_representation() -> None:
    rep = Representation.for_variant(
        ["NTH", "STH"], [("AAA", ProvinceCategory.COASTAL, True), ("SEA", ProvinceCategory.SEA, False)]
    )
    server = server_after_im()
    client = Connection(Sender.CLIENT)
    client.send(InitialMessage())
    now = Now(Turn("SPR", 1901), (UnitPosition(Unit("NTH", "FLT", Location("AAA"))),))
    data = server.send(RepresentationMessage.for_representation(rep)) + server.send(now)
    assert server.representation == rep
    got = events(client, data)
    assert isinstance(got[0], RepresentationReceived) and not got[0].empty
    assert client.representation.entries == rep.entries
    assert isinstance(got[1], MessageReceived) and got[1].message == now
    assert client.send(Drw(("NTH",)))[4:] == bytes.fromhex("4801 4000 4100 4001")


# --- byte-at-a-time and random input --------------------------------------------------------

SERVER_STREAM = (
    RM_EMPTY
    + dm("YES ( NME ( 'Bot' ) ( '1.0' ) )")
    + dm("MAP ( 'STANDARD' )")
    + bytes([2, 0x4D]) + dm("HLO ( TUR ) ( 132 ) ( ( LVL 0 ) )")[2:]  # odd pad byte
    + dm("NOW ( SPR 1901 ) ( RUS FLT ( STP SCS ) ) ( TUR AMY CON )")
    + dm("MIS ( 0x4C05")
    + dm("TME ( 300 )")
    + FM
)  # fmt: skip


def _client_events(chunks: list[bytes]) -> list[Event]:
    conn = Connection(Sender.CLIENT)
    conn.send(InitialMessage())
    out: list[Event] = []
    for chunk in chunks:
        out += events(conn, chunk)
    return out


def test_byte_at_a_time_gives_the_same_events() -> None:
    whole = _client_events([SERVER_STREAM])
    assert len(whole) == 8 and whole[-1] == ConnectionClosed("FM")
    assert isinstance(whole[5], MessageRejected)
    single = _client_events([SERVER_STREAM[i : i + 1] for i in range(len(SERVER_STREAM))])
    assert single == whole


@given(st.lists(st.integers(1, 40), max_size=30))
def test_any_split_gives_the_same_events(cuts: list[int]) -> None:
    chunks, pos = [], 0
    for n in cuts:
        chunks.append(SERVER_STREAM[pos : pos + n])
        pos += n
    chunks.append(SERVER_STREAM[pos:])
    assert _client_events(chunks) == _client_events([SERVER_STREAM])


@settings(max_examples=300)
@given(st.binary(max_size=200), st.sampled_from(Sender), st.booleans())
def test_random_bytes_only_give_events(data: bytes, role: Sender, handshake: bool) -> None:
    conn = Connection(role)
    if role is Sender.CLIENT:
        conn.send(InitialMessage())
    if handshake:
        events(conn, IM if role is Sender.SERVER else RM_EMPTY)
    got = events(conn, data) + events(conn, b"")
    assert got and isinstance(got[-1], (ConnectionClosed, ProtocolViolation))
    for event in got:
        if isinstance(event, MessageRejected) and event.reply is not None:
            event.reply.to_tokens()
        if isinstance(event, MessageReceived):
            assert isinstance(event.message, Message)
    assert conn.next_event() is CLOSED
