"""Messages encoded once for many clients: a `Packet` is DM frames ready to write.

A game's broadcasts (ORD, SCO, NOW, TME, CCD...) go to every player and
observer, and the same results are sent again on HST and bare ORD.  The
game encodes each message once (`encode`, through the server's
`protocol.codec.Codec` for its representation) and queues the same
`Packet` for every client; the phase's history keeps its ORDs, SCO and NOW
as packets too, which also keeps a long game's history out of the garbage
collector's way (a few bytes objects per phase instead of a tree of message
objects per result).

A packet is only valid for the representation it was encoded under.  Every
connection of a server speaks the same one (the variant's tokens with the
server's press numbering, `server.press.wire_representation`), and the
writer re-encodes (`reframe`) only a packet for a connection that proved
another press numbering (`server.press.packet_frames`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from protocol.codec import Codec
from protocol.frames import DiplomacyMessage, build_frame, parse_frames
from protocol.messages import Message, Now
from protocol.tokens import Representation
from protocol.tree import from_tree, to_tree


@dataclass(frozen=True, slots=True)
class Packet:
    """One or more whole DM frames, encoded under ``rep``.

    ``command`` names the (first) message for log lines; ``turn`` is the
    turn of a NOW (``'SPR 1901'``), which the turn statistics look for.
    """

    command: str
    frames: bytes
    rep: Representation
    turn: str | None = None

    def for_rep(self, rep: Representation) -> bytes:
        """The frames under ``rep`` (the same bytes unless the representation differs)."""
        if rep is self.rep:
            return self.frames
        return reframe(self.frames, self.rep, rep)


@dataclass(frozen=True, slots=True)
class Encoded:
    """A message's packet and its text form (what the database stores)."""

    packet: Packet
    text: str


def encode(codec: Codec, message: Message) -> Encoded:
    """``message`` encoded once by ``codec``: its packet, and its text.

    Raises `protocol.errors.EncodeError` if the message cannot be sent.
    """
    encoding = codec.encode(message)
    turn = str(message.turn) if isinstance(message, Now) else None
    return Encoded(Packet(message.COMMAND, encoding.frame, codec.rep, turn), encoding.text)


def join(packets: Iterable[Packet], command: str) -> Packet | None:
    """The frames of several packets (one representation) as one packet; None if empty.

    The joined packet's ``turn`` is that of the NOW among them, if any.
    """
    items = list(packets)
    if not items:
        return None
    turn = next((p.turn for p in items if p.turn is not None), None)
    return Packet(command, b"".join(p.frames for p in items), items[0].rep, turn)


def reframe(frames: bytes, old: Representation, new: Representation) -> bytes:
    """Re-encode DM frames from one representation to another (by mnemonics)."""
    parsed, _rest = parse_frames(frames)
    return b"".join(
        build_frame(DiplomacyMessage(from_tree(to_tree(frame.tokens, old), new)))
        for frame in parsed if isinstance(frame, DiplomacyMessage))
