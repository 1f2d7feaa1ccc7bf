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

from protocol.codec import Codec
from protocol.frames import DiplomacyMessage, build_frame, parse_frames
from protocol.messages import Message, Now
from protocol.tokens import Representation
from protocol.tree import from_tree, to_tree


class Packet:
    """One or more whole DM frames, encoded under ``rep``; immutable.

    ``command`` names the (first) message for log lines; ``turn`` is the
    turn of a NOW (``'SPR 1901'``), which the turn statistics look for.

    Written out rather than a frozen dataclass, whose ``__init__`` mypyc
    leaves interpreted; the read-only properties keep it immutable.
    """

    __slots__ = ("_command", "_frames", "_rep", "_turn")

    def __init__(self, command: str, frames: bytes, rep: Representation,
                 turn: str | None = None) -> None:
        self._command = command
        self._frames = frames
        self._rep = rep
        self._turn = turn

    @property
    def command(self) -> str:
        return self._command

    @property
    def frames(self) -> bytes:
        return self._frames

    @property
    def rep(self) -> Representation:
        return self._rep

    @property
    def turn(self) -> str | None:
        return self._turn

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Packet):
            return NotImplemented
        return (self._command, self._frames, self._rep, self._turn) == \
            (other._command, other._frames, other._rep, other._turn)

    def __hash__(self) -> int:
        return hash((self._command, self._frames, self._turn))

    def __repr__(self) -> str:
        return (f"Packet(command={self._command!r}, frames={self._frames!r}, "
                f"rep={self._rep!r}, turn={self._turn!r})")

    def for_rep(self, rep: Representation) -> bytes:
        """The frames under ``rep`` (the same bytes unless the representation differs)."""
        if rep is self._rep:
            return self._frames
        return reframe(self._frames, self._rep, rep)


class Encoded:
    """A message's packet and its text form (what the database stores); immutable
    (written out as `Packet` is)."""

    __slots__ = ("_packet", "_text")

    def __init__(self, packet: Packet, text: str) -> None:
        self._packet = packet
        self._text = text

    @property
    def packet(self) -> Packet:
        return self._packet

    @property
    def text(self) -> str:
        return self._text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Encoded):
            return NotImplemented
        return self._packet == other._packet and self._text == other._text

    def __hash__(self) -> int:
        return hash((self._packet, self._text))

    def __repr__(self) -> str:
        return f"Encoded(packet={self._packet!r}, text={self._text!r})"


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
