"""The press relay: one ``SND`` in, exactly one answer out (docs/protocol.md §16.1, 16.6).

Theory of operation
-------------------
Press reaches the game actor already read: the connection parsed the
``SND`` at the level of the client's game (`protocol.parse`), so grammar
faults and constructs above the level were answered there with
``HUH (SND ... ERR ...)`` and never get here (16.6 rule 2).  What is left
is deciding, from the state of the game at this moment, which one of the
answers of the table in 16.1 the sender gets:

1. ``REJ (SND ...)`` - not allowed now (16.6 rule 3): the sender is no
   player of a running game (an observer, a player of a game not started
   yet or over), is eliminated or among the recipients, the turn given is
   not the current one, a retreat phase of an NPR game, an adjustment phase
   of an NPB game, the last PTL seconds before a movement deadline - or the
   sender is over its press rate (below);
2. ``OUT (power)`` - a recipient, or (as Parlance does) any power named
   anywhere inside the press, is eliminated (16.6 rule 4; 16.2 forbids
   eliminated powers in PCE/ALY/DRW/... lists);
3. ``CCD (power)`` - a recipient is in civil disorder (disconnected);
4. otherwise ``YES (SND ...)`` to the sender and ``FRM (sender) (recipients)
   (press)`` to every recipient, with every TRY list trimmed to the game's
   level (16.1, 16.5).  The FRM carries the recipient list as sent, so each
   recipient sees who else got it; the turn of the SND is not passed on.

`judge` is that table as a pure function of a frozen `Situation`;
`PressRelay.verdict` adds the rate limit and returns the `Verdict`, which
the game (`server.game.Game`, the only owner of clients, store and log)
carries out.  Nothing is delivered unless the answer is
YES.  The delivered message is stored (`server.store.Store.save_press`:
sender, recipients, turn, time, the FRM as delivered) before the YES and
the FRMs are queued.

One global order (16.1): the game actor handles one event at a time, and
the YES and every FRM of one SND are put on the clients' FIFO queues in the
same step, so every power sees the YES of its own SNDs and the FRMs of
others in one order - the order of the ``seq`` numbers in the store.

Press never slows adjudication: a flood of SNDs is bounded by the game's
inbox (its senders wait: backpressure on that connection only), by each
client's outbound queue (a client that does not read its answers is
disconnected, `server.session`), and by a per-power token bucket
(`PressLimits`): over its rate a SND is answered ``REJ`` - never dropped
silently - and costs the actor no database write.  Press rows are written
without waiting for the disk (`Store.save_press`), so even accepted press
costs microseconds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import structlog

from protocol.errors import BracketError, GrammarError
from protocol.messages import Frm, Message, Snd
from protocol.orders import Turn
from protocol.parse import Sender, parse_message
from protocol.press import ReceivedPress, SendPress, parse_send, powers_named
from protocol.press_tokens import (
    DETECTABLE,
    PressNumbering,
    detect_numbering,
    numbering_hint,
    press_representation,
)
from protocol.tokens import Representation
from server.limits import TokenBucket
from server.settings import AUTO_NUMBERING
from server.wire import Packet

log = structlog.get_logger("server.press")

#: Seasons of retreat phases (NPR) and of adjustment phases (NPB), docs/protocol.md §10.
RETREAT_SEASONS = frozenset({"SUM", "AUT"})
ADJUSTMENT_SEASONS = frozenset({"WIN"})


# --- the decision --------------------------------------------------------------------


@dataclass(frozen=True)
class Situation:
    """What the relay needs to know of the game when a SND arrives.

    ``press_closed`` is the PTL window (`server.game.Game.press_closed`);
    ``connected`` the powers whose player is connected (the others are in
    civil disorder); ``powers`` the variant's powers in their order (for a
    deterministic choice among several eliminated powers).
    """

    running: bool
    turn: Turn
    level: int
    survivors: frozenset[str]
    connected: frozenset[str]
    powers: tuple[str, ...]
    npr: bool = False
    npb: bool = False
    press_closed: bool = False


@dataclass(frozen=True)
class Refused:
    """``REJ (SND ...)``, for ``reason`` (logged, never sent)."""

    reason: str


@dataclass(frozen=True)
class Eliminated:
    """``OUT (power)``: the power is eliminated."""

    power: str


@dataclass(frozen=True)
class InDisorder:
    """``CCD (power)``: the recipient is in civil disorder."""

    power: str


@dataclass(frozen=True)
class Deliver:
    """``YES (SND ...)`` and this FRM to every recipient."""

    delivery: ReceivedPress


@dataclass(frozen=True)
class RateLimited:
    """``REJ (SND ...)``: the sender is over its press rate (`PressLimits`)."""


@dataclass(frozen=True)
class Unreadable:
    """``HUH (SND ... ERR ...)``: press a connection without a level left
    unread does not follow the grammar at the game's level; ERR before
    token ``position``."""

    position: int


Verdict = Refused | Eliminated | InDisorder | Deliver | RateLimited | Unreadable


def judge(sender: str | None, send: SendPress, situation: Situation,
          rep: Representation) -> Verdict:
    """The answer to ``send`` from ``sender`` (None: not a player), by docs/protocol.md §16.1/16.6.

    ``send`` is grammatical at the game's level (the parser saw to that).
    REJ cases come first (the message is not allowed at all now), then OUT,
    then CCD: a message that names an eliminated power can never be
    delivered, one to a disconnected power could be later.
    """
    s = situation
    season = s.turn.season
    if sender is None or not s.running:
        return Refused("the sender is not a player of a running game")
    if sender not in s.survivors:
        return Refused("the sender is eliminated")
    if sender in send.recipients:
        return Refused("the sender is among the recipients")
    if send.turn is not None and send.turn != s.turn:
        return Refused(f"turn {send.turn} is not the current turn {s.turn}")
    if s.npr and season in RETREAT_SEASONS:
        return Refused("no press in retreat phases (NPR)")
    if s.npb and season in ADJUSTMENT_SEASONS:
        return Refused("no press in adjustment phases (NPB)")
    if s.press_closed:
        return Refused("no press this close to the movement deadline (PTL)")
    for recipient in send.recipients:
        if recipient not in s.survivors:
            return Eliminated(recipient)
    named = powers_named(send.message, rep)
    for power in s.powers:
        if power in named and power not in s.survivors:
            return Eliminated(power)
    for recipient in send.recipients:
        if recipient not in s.connected:
            return InDisorder(recipient)
    return Deliver(send.delivery(sender, s.level))


# --- the rate limit ----------------------------------------------------------------------


@dataclass(frozen=True)
class PressLimits:
    """Per-power press rate: a token bucket of ``burst`` SNDs refilled at
    ``per_second``.  Generous for negotiation (a bot answering six powers at
    once stays well inside), tight enough that a flood costs the game actor
    nothing but REJs."""

    burst: int = 30
    per_second: float = 10.0


@dataclass
class RateLimiter:
    """One `server.limits.TokenBucket` per key (a power), on the clock ``now``."""

    limits: PressLimits
    now: Callable[[], float]
    buckets: dict[str, TokenBucket] = field(default_factory=dict)
    refused: dict[str, int] = field(default_factory=dict)
    """SNDs refused per key since its bucket was last full."""

    def allow(self, key: str) -> bool:
        """Take one token for ``key``; False (the SND is refused) when there is none."""
        now = self.now()
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = TokenBucket(self.limits.per_second,
                                                     self.limits.burst, now)
        refused = self.refused.get(key, 0)
        if refused and bucket.available(now) >= bucket.burst:
            # One line per flood, not one per refused SND: the flood is over
            # once the bucket has filled up again.
            log.info("press_rate_recovered", power=key, refused=refused)
            refused = self.refused[key] = 0
        if bucket.take(now):
            return True
        if not refused:
            log.warning("press_rate_limited", power=key, burst=self.limits.burst,
                        per_second=self.limits.per_second)
        self.refused[key] = refused + 1
        return False


# --- the relay ---------------------------------------------------------------------------


@functools.cache
def wire_representation(rep: Representation, numbering: str) -> Representation:
    """The representation a connection of a game with this press numbering
    (`server.settings.GameSettings.press_numbering`) speaks after the RM:
    ``rep`` with FCT/FOR/FWD/CCL/NAR at the values of that camp (docs/protocol.md §6.7).

    One shared object per (map, numbering): `server.wire` packets encoded by a
    game are written unchanged to every connection whose representation *is* it.
    ``auto`` (detection per connection) starts from, and broadcasts in, DAIDE's.
    """
    if numbering == AUTO_NUMBERING:
        numbering = PressNumbering.DAIDE.value
    return press_representation(rep, PressNumbering(numbering))


class NumberingDetector:
    """One connection's press numbering (docs/protocol.md §6.7): FCT/FOR/FWD at
    0x4A06/07/08 (DAIDE: the DN client, the Rose DLL, MILA) or at 0x4A07/08/06
    (Parlance, Bylund's Java library).

    With the server's ``--press-numbering`` set to a numbering, that one is
    the connection's for good.  With ``auto`` (the default) the connection
    starts in DAIDE numbering - or Parlance's when its NME/OBS names Parlance
    or Parang (`hint`: a guess, never the rule) - and the first press message
    that parses under only one of the two numberings decides (`settle`): the
    connection speaks that one from then on.  A message that parses under
    both, or neither, decides nothing and is read in the current numbering.

    Relaying needs no translation step of its own: the server keeps every
    message as mnemonics and encodes it for each recipient in the
    recipient's numbering (its connection's `representation`).
    """

    def __init__(self, rep: Representation, setting: str) -> None:
        self.map_rep = rep
        self.fixed = setting != AUTO_NUMBERING
        self.numbering = PressNumbering(wire_numbering(setting))
        #: Decided for good: fixed by the option, or proved by a press message.
        self.known = self.fixed

    @property
    def representation(self) -> Representation:
        """What the connection speaks now."""
        return wire_representation(self.map_rep, self.numbering.value)

    def hint(self, name: str, version: str) -> bool:
        """Take the client's name/version as a hint while nothing is known; True if it moved."""
        guess = numbering_hint(name, version)
        if self.known or guess is None or guess is self.numbering:
            return False
        self.numbering = guess
        return True

    def settle(self, tokens: tuple[int, ...], level: int | None) -> Message | None:
        """A client message holding a disputed value, while the numbering is open:
        the message as read under the numbering it proves (now this connection's
        for good), or None when it proves nothing."""
        readings: dict[PressNumbering, Message] = {}
        for numbering in DETECTABLE:
            try:
                readings[numbering] = parse_message(
                    tokens, wire_representation(self.map_rep, numbering.value),
                    sender=Sender.CLIENT, level=level)
            except (BracketError, GrammarError):
                continue
        found = detect_numbering({n: n in readings for n in DETECTABLE})
        if found is None:
            return None
        self.numbering, self.known = found, True
        return readings[found]


def wire_numbering(setting: str) -> str:
    """The numbering a connection starts in under the server's setting."""
    return PressNumbering.DAIDE.value if setting == AUTO_NUMBERING else setting


@functools.cache
def _moved_values(old: Representation, new: Representation) -> frozenset[bytes] | None:
    """The token values (as wire bytes) whose meaning differs between two
    representations of one map, or None when they are not one map's."""
    if old.entries != new.entries:
        return None
    moved = {value for value, word in old.names.items() if new.names.get(value) != word}
    moved |= {value for value, word in new.names.items() if old.names.get(value) != word}
    return frozenset(value.to_bytes(2, "big") for value in moved)


def packet_frames(item: Packet, rep: Representation) -> bytes:
    """A broadcast packet's frames for a connection speaking ``rep``.

    The game encodes broadcasts once, in its own numbering; a connection in
    another numbering gets them re-encoded - which is needed only when they
    hold a press token, and broadcasts (ORD, SCO, NOW, TME, CCD...) never do.
    A packet whose bytes hold no moved value anywhere goes out as it is.
    """
    if item.rep is rep:
        return item.frames
    moved = _moved_values(item.rep, rep)
    if moved is not None and not any(value in item.frames for value in moved):
        return item.frames
    return item.for_rep(rep)


class PressRelay:
    """The press relay of one game: its rate limiter and the verdict on each SND."""

    def __init__(self, now: Callable[[], float], limits: PressLimits | None = None) -> None:
        self.limiter = RateLimiter(limits or PressLimits(), now)

    def verdict(self, player: str | None, message: Snd, situation: Callable[[], Situation],
                rep: Representation) -> Verdict:
        """The answer to one SND (see the module docstring).

        ``player`` is the sender's power if it plays the running game (None
        for an observer or a game not running); ``situation`` is asked only
        for SNDs within the rate limit, so a flood costs no more than a REJ.
        """
        if player is not None and not self.limiter.allow(player):
            return RateLimited()
        now = situation()
        send = message.send_press()
        if send is None:
            # Only a connection without a level leaves press unread; read it here.
            try:
                send = parse_send(message.to_tree(), now.level, rep)
            except GrammarError as error:
                return Unreadable(error.position)
        return judge(player, send, now, rep)


def delivered_frm(message: Snd, delivery: ReceivedPress) -> Frm:
    """The FRM to deliver: the press as received unless a TRY list was trimmed."""
    if delivery.message is message.typed:
        return Frm(delivery.sender, delivery.recipients, message.press, delivery.message)
    return Frm.of(delivery)


def recipients_once(powers: Iterable[str]) -> list[str]:
    """Each power once, in order (a recipient listed twice gets one FRM)."""
    return list(dict.fromkeys(powers))


__all__ = [
    "Deliver",
    "Eliminated",
    "InDisorder",
    "NumberingDetector",
    "PressLimits",
    "PressRelay",
    "RateLimited",
    "RateLimiter",
    "Refused",
    "Situation",
    "Unreadable",
    "Verdict",
    "delivered_frm",
    "judge",
    "packet_frames",
    "recipients_once",
    "wire_representation",
]
