"""`server.wire`: broadcasts encoded once, written unchanged or re-encoded for another representation."""

from __future__ import annotations

import pytest

from protocol.codec import Codec
from protocol.errors import EncodeError
from protocol.frames import DiplomacyMessage, build_frame, dm_frame_of_body, parse_frames
from protocol.messages import Frm, Message, Now, Sco
from protocol.parse import Sender, parse_message
from protocol.text import parse_text, render_text
from protocol.tokens import BRA, KET, STANDARD, Representation
from protocol.tree import dm_body
from server.press import wire_representation
from server.wire import Packet, encode, join, reframe

NOW_TEXT = "NOW ( SPR 1901 ) ( AUS AMY BUD ) ( ENG FLT ( STP NCS ) )"
FRM_TEXT = "FRM ( FRA ) ( ENG ) ( FCT ( PCE ( FRA ENG ) ) )"


def message(text: str, rep: Representation = STANDARD, sender: Sender = Sender.SERVER) -> Message:
    return parse_message(parse_text(text, rep), rep, sender=sender)


def test_encode_gives_the_frame_and_text_of_the_same_tokens() -> None:
    now = message(NOW_TEXT)
    assert isinstance(now, Now)
    encoded = encode(Codec(STANDARD), now)
    assert encoded.packet.frames == build_frame(DiplomacyMessage(now.to_tokens(STANDARD)))
    assert encoded.packet.frames[:4] == bytes([2, 0, 0, 2 * len(now.to_tokens(STANDARD))])
    assert encoded.text == render_text(now.to_tokens(STANDARD), STANDARD) == NOW_TEXT
    assert encoded.packet.command == "NOW" and encoded.packet.turn == "SPR 1901"
    sco = message("SCO ( AUS BUD ) ( UNO SER )")
    assert isinstance(sco, Sco) and encode(Codec(STANDARD), sco).packet.turn is None


def test_join_and_split_keep_whole_frames_in_order() -> None:
    packets = [encode(Codec(STANDARD), message(t)).packet
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
    packet = encode(Codec(STANDARD), frm).packet
    assert packet.for_rep(STANDARD) is packet.frames
    # FCT has another value in the Parlance camp: the bytes change, the message does not.
    moved = packet.for_rep(parlance)
    assert moved == build_frame(DiplomacyMessage(frm.to_tokens(parlance))) != packet.frames
    assert reframe(moved, parlance, STANDARD) == packet.frames


def test_reframing_several_frames_keeps_each() -> None:
    parlance = wire_representation(STANDARD, "parlance")
    frames = b"".join(encode(Codec(STANDARD), message(t)).packet.frames for t in (FRM_TEXT, NOW_TEXT))
    packet = Packet("FRM", frames, STANDARD)
    assert packet.for_rep(parlance) == b"".join(
        encode(Codec(parlance), message(t)).packet.frames for t in (FRM_TEXT, NOW_TEXT))


@pytest.mark.parametrize("text", [NOW_TEXT, FRM_TEXT])
def test_packets_are_immutable(text: str) -> None:
    packet = encode(Codec(STANDARD), message(text)).packet
    with pytest.raises(AttributeError):
        packet.frames = b""  # type: ignore[misc]


@pytest.mark.parametrize("tokens", [(0x4A1C,), (0x4A1C, BRA, 0x4101, 0x1234, KET), (0x3FFF, 0x2000)])
def test_a_body_put_together_is_the_body_build_frame_writes(tokens: tuple[int, ...]) -> None:
    # The codec joins the kept bodies of a message's parts (protocol.codec).
    parts = [dm_body(tokens[i:i + 1]) for i in range(len(tokens))]
    assert dm_frame_of_body(b"".join(parts)) == build_frame(DiplomacyMessage(tokens))


@pytest.mark.parametrize("tokens", [(), (0x5801,), (0x4A1C, 0x5FFF), (0x10000,), (-1,)])
def test_a_body_that_may_not_be_sent_is_refused_as_build_frame_refuses_it(
        tokens: tuple[int, ...]) -> None:
    with pytest.raises(EncodeError):
        build_frame(DiplomacyMessage(tokens))
    with pytest.raises(EncodeError):
        dm_body(tokens)
