"""The synchronous half of a connection's reader: received bytes to messages.

The reader task of `server.connection` awaits - the socket, a rate-limit
sleep, the lobby - and does everything between two awaits in one call of
`Intake.take`: the frame tracker and the message rate (`server.limits`), the
protocol machine, and the press numbering's checks
(`server.press.NumberingDetector`).

`take` stops at the first thing that needs an await and returns it:
`NEED_DATA` (read more), an `Incoming` message (the reader waits its
rate-limit delay, then hands it to the lobby: `Lobby.received`, the one road
in to a game), or any other event of the machine (the IM, a rejected
message, a close, a message that may settle the press numbering) for the
reader to act on.
"""

from __future__ import annotations

import structlog
import trio

from protocol.connection import NEED_DATA, MessageReceived
from protocol.connection import Connection as Machine
from protocol.messages import Message, Nme, Obs, Sub
from protocol.press_tokens import mentions_disputed
from protocol.tokens import Representation
from server.limits import FrameTracker, TokenBucket
from server.press import NumberingDetector
from server.session import Client
from server.settings import ServerSettings
from server.turnstats import TurnStats

log = structlog.get_logger("server.connection")


class Incoming:
    """A message for the lobby, once the reader has waited ``wait`` seconds for
    its rate-limit token (``message_rate``)."""

    __slots__ = ("message", "tokens", "wait")

    def __init__(self, message: Message, tokens: tuple[int, ...], wait: float) -> None:
        self.message = message
        self.tokens = tokens
        self.wait = wait


class Intake:
    """What one connection's reader knows between awaits, and the step per chunk."""

    def __init__(self, machine: Machine, client: Client, settings: ServerSettings,
                 rep: Representation, turn_stats: TurnStats | None, now: float) -> None:
        self.machine = machine
        self.client = client
        self.turn_stats = turn_stats
        self.frames = FrameTracker(settings.max_frame_body)
        self.bucket = TokenBucket(settings.message_rate, settings.message_burst, now)
        self.numbering = NumberingDetector(rep, settings.game.press_numbering)
        #: when the peer was last heard from (a chunk, a message): the idle timer
        self.last_heard = now
        #: when the last chunk was read (`server.turnstats`)
        self.read_at = now
        #: why the frame being received is too big (the reader refuses it), or None
        self.oversize: str | None = None

    def take(self, data: bytes | None) -> object:
        """Feed ``data`` (None: nothing new) and return the machine's next event
        that needs an await - an `Incoming` message for a parsed one - or
        `NEED_DATA`."""
        machine, client = self.machine, self.client
        if data is not None:
            now = trio.current_time()
            self.last_heard = self.read_at = now
            oversize = self.frames.feed(data, now)
            if oversize is not None:
                # The frames before the big one are still read and answered.
                self.oversize = oversize.reason
                data = data[:oversize.offset]
                if not data:
                    return NEED_DATA          # the reader refuses the big frame
            machine.receive_data(data)
        machine.level = client.level          # the level of the client's game (docs/protocol.md §7.2)
        event = machine.next_event()
        if not isinstance(event, MessageReceived):
            return event
        tokens = event.tokens
        if not self.numbering.known and mentions_disputed(tokens):
            return event                      # the reader settles the numbering
        message = event.message
        if isinstance(message, (Nme, Obs)):
            self.hint_numbering(message)
        if self.turn_stats is not None and isinstance(message, Sub) \
                and client.game_id is not None:
            self.turn_stats.order_in(client.game_id, self.read_at)
        return Incoming(message, tokens, self.throttle())

    def throttle(self) -> float:
        """Take a message token: the seconds to wait before acting on the message
        (``message_rate``); the reader sleeps only when it is not 0."""
        now = trio.current_time()
        self.last_heard = now
        return self.bucket.delay(now)

    def hint_numbering(self, message: Nme | Obs) -> None:
        """NME/OBS names and versions that suggest Parlance numbering (a hint only)."""
        numbering = self.numbering
        if numbering.hint(message.name or "", message.version or ""):
            self.machine.representation = numbering.representation
            log.info("press_numbering_hinted", numbering=numbering.numbering.value,
                     client_version=message.version)
