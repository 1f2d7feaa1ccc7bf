"""The bot client speaks the server's press numbering (docs/protocol.md §6.7), before and after the RM."""

from __future__ import annotations

import trio
import trio.testing

from bots.transport import TcpTransport
from protocol.frames import DiplomacyMessage, RepresentationMessage, build_frame
from protocol.press_tokens import PressNumbering, press_representation
from protocol.text import parse_text
from protocol.tokens import STANDARD

FRM = "FRM ( ENG ) ( FRA ) ( FCT ( PCE ( ENG FRA ) ) )"


async def _received(numbering: PressNumbering) -> tuple[object, ...] | None:
    ours, theirs = trio.testing.memory_stream_pair()
    transport = TcpTransport(ours, numbering)
    await transport.start()
    await theirs.receive_some()                        # the IM
    parlance = press_representation(STANDARD, PressNumbering.PARLANCE)
    await theirs.send_all(build_frame(RepresentationMessage.for_representation(STANDARD)))
    await theirs.send_all(build_frame(DiplomacyMessage(parse_text(FRM, parlance))))
    received = await transport.receive()
    return None if received is None else received.tree


async def test_a_parlance_numbered_bot_reads_parlance_press() -> None:
    tree = await _received(PressNumbering.PARLANCE)
    assert tree == ("FRM", ("ENG",), ("FRA",), ("FCT", ("PCE", ("ENG", "FRA"))))


async def test_a_daide_numbered_bot_reads_the_same_bytes_as_for() -> None:
    tree = await _received(PressNumbering.DAIDE)
    assert tree is not None and tree[3][0] == "FOR"
