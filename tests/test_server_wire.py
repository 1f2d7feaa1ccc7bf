"""`server.wire`: broadcasts encoded once, written unchanged or re-encoded for another representation."""

from __future__ import annotations

import pytest

from protocol.frames import DiplomacyMessage, build_frame, parse_frames
from protocol.messages import Frm, Message, Now, Sco
from protocol.parse import Sender, parse_message
from protocol.text import parse_text, render_text
from protocol.tokens import STANDARD, Representation
from server.press import wire_representation
from server.wire import Packet, encode, join, reframe

NOW_TEXT = "NOW ( SPR 1901 ) ( AUS AMY BUD ) ( ENG FLT ( STP NCS ) )"
FRM_TEXT = "FRM ( FRA ) ( ENG ) ( FCT ( PCE ( FRA ENG ) ) )"


def message(text: str, rep: Representation = STANDARD) -> Message:
    return parse_message(parse_text(text, rep), rep, sender=Sender.SERVER)


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
