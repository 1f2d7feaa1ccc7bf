"""The synchronous half of a connection's reader: received bytes up to the game.

The reader task of `server.connection` awaits - the socket, a rate-limit
sleep, the lobby's routes, a checkpoint - and does everything between two
awaits in one call of `Intake.take` per chunk read: the frame tracker and
the message rate (`server.limits`), the protocol machine, the press
numbering's checks (`server.press.NumberingDetector`), and the hand-over of
each message to the client's game (`take`, which the game runs at once
when its actor is idle).  Compiled with the server's game logic
(`native.COMPILED_MODULES`): a chunk costs one call from the
interpreted task, and the per-message steps run as C.

`take` stops at the first thing that needs an await and returns it:
`NEED_DATA` (read more), `YIELD` (`MESSAGES_PER_TURN` messages in a row:
let other tasks run), a `Deferred` message (it waits for its rate-limit
token, or the lobby must route it), or any other event of the machine
(the IM, a rejected message, a close, a message that may settle the press
numbering) for the reader to act on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import structlog
import trio

from protocol.connection import NEED_DATA, MessageReceived
from protocol.connection import Connection as Machine
from protocol.messages import Adm, MapMessage, Message, Nme, Obs, Rej, Sub, Yes
from protocol.press_tokens import mentions_disputed
from server.events import Request
from server.limits import FrameTracker, TokenBucket
from server.press import NumberingDetector
from server.session import Client, Role

if TYPE_CHECKING:
    from server.lobby import Lobby

log = structlog.get_logger("server.connection")

#: Most messages a reader hands over in a row without letting other tasks run:
#: its game handles them in the reader's own task (`server.game.Game.deliver`),
#: so a chunk of many small messages must not hold the event loop.
MESSAGES_PER_TURN: Final = 16


#: the role of a client that sent NME and waits for its YES (MAP) (read once:
#: an enum member read from its class costs a descriptor call)
_JOINING = Role.JOINING


def take(client: Client, message: Message, tokens: tuple[int, ...]) -> bool:
    """A client's message handed over without waiting: True when it is dealt
    with - an ADM over its rate refused, or the client's game handled it at
    once (`server.game.Game.deliver`); False when the lobby must route it
    (`server.lobby.Lobby.route`: to the game's inbox, a join, an answer)."""
    if isinstance(message, Adm) and not client.adm_allowed(trio.current_time()):
        # ADM is relayed to every client: a flood of it would reach them all.
        client.send(Rej(message))
        return True
    game = client.game
    if game is None:
        return False
    if client.role is _JOINING and isinstance(message, Yes) \
            and isinstance(message.message, MapMessage):
        # The game takes every YES (MAP) of a joining client (Game.map_answer).
        client.map_accepted = True
    deliver = game.deliver
    return deliver is not None and deliver(Request(client, message, tokens))


class Deferred:
    """A message `Intake.take` leaves to the reader task: it waits ``wait`` seconds
    for its rate-limit token first (then goes through `Lobby.received`), or
    (``wait`` 0) the lobby must route it (`Lobby.route`)."""

    def __init__(self, message: Message, tokens: tuple[int, ...], wait: float) -> None:
        self.message = message
        self.tokens = tokens
        self.wait = wait


class _Yield:
    """The type of `YIELD`."""


#: `Intake.take`: MESSAGES_PER_TURN messages in a row were handed over; give the
#: other tasks a turn
YIELD: Final = _Yield()


class Intake:
    """What one connection's reader knows between awaits, and the step per chunk."""

    def __init__(self, machine: Machine, client: Client, lobby: Lobby, now: float) -> None:
        settings = lobby.settings
        self.machine = machine
        self.client = client
        self.lobby = lobby
        self.frames = FrameTracker(settings.max_frame_body)
        self.bucket = TokenBucket(settings.message_rate, settings.message_burst, now)
        self.numbering = NumberingDetector(lobby.variant.rep, settings.game.press_numbering)
        #: when the peer was last heard from (a chunk, a message): the idle timer
        self.last_heard = now
        #: when the last chunk was read (`server.turnstats`)
        self.read_at = now
        #: why the frame being received is too big (the reader refuses it), or None
        self.oversize: str | None = None
        #: messages handed over since the reader last let other tasks run
        self.unyielded = 0

    def take(self, data: bytes | None) -> object:
        """Feed ``data`` (None: nothing new) and act on what the machine gives, up to
        the first thing that needs an await; return that, or `NEED_DATA`."""
        machine, client = self.machine, self.client
        # the clock is read once per chunk for the first message of a chunk, then
        # again for each message after one was handed over (a game's step ran)
        now = -1.0
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
        numbering, lobby = self.numbering, self.lobby
        while True:
            machine.level = client.level      # the level of the client's game (docs/protocol.md §7.2)
            event = machine.next_event()
            if type(event) is not MessageReceived:
                return event
            assert isinstance(event, MessageReceived)
            tokens = event.tokens
            if not numbering.known and mentions_disputed(tokens):
                return event                  # the reader settles the numbering
            message = event.message
            if isinstance(message, (Nme, Obs)):
                self.hint_numbering(message)
            turn_stats = lobby.turn_stats
            if turn_stats is not None and isinstance(message, Sub) and client.game is not None:
                turn_stats.order_in(client.game.id, self.read_at)
            # the rate limit: a message token (``message_rate``)
            if now < 0:
                now = trio.current_time()
            self.last_heard = now
            wait = self.bucket.delay(now)
            now = -1.0
            if wait > 0:
                return Deferred(message, tokens, wait)
            if not take(client, message, tokens):
                return Deferred(message, tokens, 0.0)
            if self.handed_over():
                return YIELD

    def throttle(self) -> float:
        """Take a message token: the seconds to wait before acting on the message
        (``message_rate``); the reader sleeps only when it is not 0."""
        now = trio.current_time()
        self.last_heard = now
        return self.bucket.delay(now)

    def handed_over(self) -> bool:
        """Count a message handed to the lobby; True when the reader must let other
        tasks run now (`MESSAGES_PER_TURN`)."""
        self.unyielded += 1
        if self.unyielded >= MESSAGES_PER_TURN:
            self.unyielded = 0
            return True
        return False

    def hint_numbering(self, message: Nme | Obs) -> None:
        """NME/OBS names and versions that suggest Parlance numbering (a hint only)."""
        numbering = self.numbering
        if numbering.hint(message.name or "", message.version or ""):
            self.machine.representation = numbering.representation
            log.info("press_numbering_hinted", numbering=numbering.numbering.value,
                     client_version=message.version)
