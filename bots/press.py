"""Press for bots: typed values to build, send, receive and reply (docs/protocol.md §16).

Two kinds of bot:

* **no-press bots** (no `Negotiator`): every ``FRM (power) (recipients)
  (press_message)`` is answered with ``SND (power) (HUH (ERR
  press_message))`` then ``SND (power) (TRY ())``, except that HUH and TRY
  are never answered, which would let two bots loop (16.5) - see
  `no_press_replies`;
* **negotiating bots** give `bots.client.BotClient` a `Negotiator`.  The
  client reads every FRM as a typed :class:`protocol.press.ReceivedPress`
  (the dataclasses of :mod:`protocol.press`: ``Propose(Peace(("ENG",
  "FRA")))`` ...), hands it to `Negotiator.received`, and sends the
  :class:`protocol.press.SendPress` values the negotiator returns.  Press
  above the negotiator's own `Negotiator.level` is answered for it with HUH
  (ERR before the first word it does not know) and a TRY of its vocabulary,
  as 16.5 asks.  `Negotiator.opening` is asked once per phase for press to
  start with; `Negotiator.answered` learns how the server answered each of
  its SNDs (`PressAnswer`: YES, REJ, CCD, OUT or HUH - `PendingPress`
  matches answers to SNDs).

Builders for the common replies: `propose`, `accept` (YES to the proposer
*and all other recipients*, which is what forms an agreement, 16.2),
`reject`, `reply`, `not_understood`.  `Agreements` follows proposals and
their YESes in the press a power sees and knows when an agreement is formed.
`PeacePact` is a small sample negotiator built on them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bots.board import BoardView
from protocol.errors import ProtocolError
from protocol.messages import Ccd, Frm, Huh, Message, Out, Rej, Snd, Yes
from protocol.orders import Turn
from protocol.press import (
    Accept,
    Arrangement,
    NotUnderstood,
    Peace,
    PressBody,
    PressFault,
    PressMessage,
    Propose,
    ReceivedPress,
    Reject,
    Reply,
    SendPress,
    Try,
    powers_named,
)
from protocol.press_tokens import TOKEN_LEVELS, TRY_VOCABULARY
from protocol.tokens import STANDARD, Representation
from protocol.tree import Text, to_tree

Tree = tuple[Any, ...]

NEVER_ANSWERED = frozenset({"HUH", "TRY"})


# --- no press (docs/protocol.md §16.5) ---------------------------------------------------


def no_press_replies(frm: Frm) -> list[Tree]:
    """The SND messages a no-press bot sends in answer to one FRM message."""
    press = frm.press
    if not press or never_answered(press):
        return []
    return [
        ("SND", (frm.sender,), ("HUH", ("ERR", *press))),
        ("SND", (frm.sender,), ("TRY", ())),
    ]


def never_answered(message: PressBody | Tree) -> bool:
    """HUH and TRY are never answered with HUH (docs/protocol.md §16.5)."""
    if isinstance(message, NotUnderstood | Try):
        return True
    if isinstance(message, tuple) and message:
        head = message[0]
        return isinstance(head, str) and not isinstance(head, Text) and head in NEVER_ANSWERED
    return False


# --- building press ------------------------------------------------------------------


def propose(recipients: Iterable[str], arrangement: Arrangement) -> SendPress:
    """``SND (recipients) (PRP (arrangement))``."""
    return SendPress(tuple(recipients), Propose(arrangement))


def accept(received: ReceivedPress, me: str) -> SendPress:
    """``YES (message)`` to the sender and every other recipient.

    docs/protocol.md §16.2: an agreement is formed when each recipient replies YES
    to the proposer *and all other recipients*.
    """
    message = _press_message(received)
    return SendPress(_everyone_but(received, me), Accept(message))


def reject(received: ReceivedPress) -> SendPress:
    """``REJ (message)`` to the sender."""
    return SendPress((received.sender,), Reject(_press_message(received)))


def reply(received: ReceivedPress, answer: Reply, me: str, *, to_all: bool = False) -> SendPress:
    """Any reply to the sender (with ``to_all``: to everyone who got the message)."""
    recipients = _everyone_but(received, me) if to_all else (received.sender,)
    return SendPress(recipients, answer)


def not_understood(received: ReceivedPress | Frm, fault: PressFault,
                   vocabulary: Iterable[str]) -> list[SendPress]:
    """``HUH (message with ERR)`` then ``TRY (vocabulary)`` to the sender (16.2, 16.5).

    ``received`` is the typed press or the FRM as received; ``fault`` (from
    :func:`protocol.press.try_parse_press` on the press nodes) places ERR
    before the first token not understood.  Empty if the message was a HUH
    or TRY itself.
    """
    if isinstance(received, ReceivedPress):
        sender, nodes = received.sender, received.message.nodes()
    else:
        sender, nodes = received.sender, received.press
    if never_answered(nodes):
        return []
    return [SendPress((sender,), NotUnderstood(mark_error(nodes, fault.loc))),
            SendPress((sender,), Try(tuple(vocabulary)))]


def mark_error(nodes: Tree, loc: tuple[int, ...]) -> Tree:
    """``nodes`` with ``ERR`` inserted at tree location ``loc`` (`protocol.grammar`)."""
    index, rest = loc[0], loc[1:]
    if not rest:
        return (*nodes[:index], "ERR", *nodes[index:])
    child = nodes[index]
    assert isinstance(child, tuple)
    return (*nodes[:index], mark_error(child, rest), *nodes[index + 1:])


def vocabulary(level: int) -> tuple[str, ...]:
    """The press words of a TRY list at ``level``, by level then alphabetically (16.5)."""
    return tuple(sorted((w for w in TRY_VOCABULARY if TOKEN_LEVELS[w] <= level),
                        key=lambda w: (TOKEN_LEVELS[w], w)))


def _press_message(received: ReceivedPress) -> PressMessage:
    if not isinstance(received.message, PressMessage):
        raise ValueError(f"a reply cannot be accepted or rejected: {received.message}")
    return received.message


def _everyone_but(received: ReceivedPress, me: str) -> tuple[str, ...]:
    others = [p for p in (received.sender, *received.recipients) if p != me]
    return tuple(dict.fromkeys(others))


# --- answers to our SNDs ---------------------------------------------------------------


AnswerKind = Literal["YES", "REJ", "CCD", "OUT", "HUH"]


@dataclass(frozen=True)
class PressAnswer:
    """How the server answered one of our SNDs (docs/protocol.md §16.1).

    ``power`` is the power of a CCD/OUT answer; ``huh`` the echoed SND with
    ERR of a HUH answer.
    """

    send: SendPress
    kind: AnswerKind
    power: str | None = None
    huh: Tree | None = None

    @property
    def delivered(self) -> bool:
        return self.kind == "YES"


@dataclass
class PendingPress:
    """Our SNDs still waiting for their answer, matched as the answers come.

    YES/REJ/HUH echo the SND; CCD (power) and OUT (power) do not (the DN
    form), so they answer the oldest pending SND that names that power.  A
    CCD that matches nothing is the server's broadcast, not an answer.
    """

    waiting: list[SendPress] = field(default_factory=list)
    rep: Representation = STANDARD

    def sent(self, value: SendPress) -> None:
        self.waiting.append(value)

    def match(self, message: Message) -> PressAnswer | None:
        """The answer ``message`` (a typed server message) gives to a pending SND, or None.

        A YES or REJ echo is matched by value - recipients, turn and the typed
        press, orders in XDO included - so any way of writing the same press
        matches; an echo that is not typed press (no reading at any level) is
        compared as the tree sent.  A HUH's echo carries ERR marks and need
        not parse, so it is compared as a tree without them.
        """
        match message:
            case Yes(message=Snd() as snd) | Rej(message=Snd() as snd):
                kind: AnswerKind = "YES" if isinstance(message, Yes) else "REJ"
                echoed = snd.send_press()
                if echoed is None:
                    tree = snd.to_tree()
                    return self._take(lambda s: s.nodes() == tree, kind)
                return self._take(lambda s: _same_press(s, echoed), kind)
            case Huh(message=tokens):
                try:
                    inner = to_tree(tokens, self.rep)
                except ProtocolError:
                    return None
                plain = _unmarked(inner)
                if plain[:1] != ("SND",):
                    return None
                found = self._take(lambda s: s.nodes() == plain, "HUH")
                return None if found is None else PressAnswer(found.send, "HUH", huh=inner)
            case Ccd(power=power):
                return self._take(lambda s: power in s.recipients, "CCD", power)
            case Out(power=power):
                return self._take(
                    lambda s: power in s.recipients or power in powers_named(s.message, self.rep),
                    "OUT", power)
        return None

    def _take(self, test: Any, kind: AnswerKind, power: str | None = None) -> PressAnswer | None:
        for k, value in enumerate(self.waiting):
            if test(value):
                del self.waiting[k]
                return PressAnswer(value, kind, power)
        return None


def _same_press(sent: SendPress, echoed: SendPress) -> bool:
    """Whether an echoed SND is the one sent: same recipients, turn and press value."""
    return (tuple(sent.recipients) == echoed.recipients and sent.turn == echoed.turn
            and sent.message == echoed.message)


def _unmarked(nodes: Tree) -> Tree:
    """``nodes`` without the ERR marks (a HUH's echo back to the message sent)."""
    return tuple(_unmarked(n) if isinstance(n, tuple) else n for n in nodes
                 if not (n == "ERR" and not isinstance(n, Text)))


# --- negotiating -------------------------------------------------------------------------


@dataclass(frozen=True)
class PressContext:
    """What a negotiator is told with each call: who it is and when.

    ``level`` is the game's press level (HLO); ``view`` the board when a
    position is known; ``log`` every press message so far in the one global
    order (own messages when the server said YES, others' as received).
    """

    power: str
    level: int
    turn: Turn | None
    view: BoardView | None
    log: tuple[ReceivedPress, ...] = ()


class Negotiator:
    """Base of negotiating bots: override what you need; every method has a
    do-nothing default.  ``level`` is the highest press level the bot
    understands (it answers anything above with HUH and TRY)."""

    level: int = 10

    def opening(self, context: PressContext) -> Sequence[SendPress]:
        """Press to send at the start of a phase (once per phase)."""
        return ()

    def received(self, press: ReceivedPress, context: PressContext) -> Sequence[SendPress]:
        """Press received (legal at `level`); returns the press to send in answer.

        HUH and TRY are passed on too, but must not be answered with HUH
        (docs/protocol.md §16.5).
        """
        return ()

    def answered(self, answer: PressAnswer, context: PressContext) -> None:
        """The server's answer to one of our SNDs."""

    def ready_to_order(self, context: PressContext) -> bool:
        """Whether the bot may submit this phase's orders now (default: at once).

        A negotiator that wants its deals settled first returns False; the
        client asks again after every press event.  (Without deadlines a bot
        that never gets ready holds the game up: settle or give up.)
        """
        return True

    def vocabulary(self) -> tuple[str, ...]:
        """The words of our TRY (16.5): every press word up to `level`."""
        return vocabulary(self.level)


@dataclass(frozen=True)
class Agreement:
    """A proposal every recipient said YES to (docs/protocol.md §16.2)."""

    proposer: str
    parties: tuple[str, ...]
    arrangement: Arrangement


@dataclass
class Agreements:
    """Follows proposals and YES replies in the press one power sees.

    Feed it every entry of the press log (`observe`); a proposal becomes an
    agreement when each of its recipients has sent YES to the proposer and
    all other recipients.
    """

    open: dict[tuple[str, tuple[str, ...], Propose], set[str]] = field(default_factory=dict)
    formed: list[Agreement] = field(default_factory=list)

    def observe(self, press: ReceivedPress) -> Agreement | None:
        """Take one message into account; the agreement it completes, if any."""
        message = press.message
        if isinstance(message, Propose):
            self.open[(press.sender, tuple(press.recipients), message)] = set()
            return None
        if not isinstance(message, Accept) or not isinstance(message.message, Propose):
            return None
        for (proposer, recipients, proposal), yes in list(self.open.items()):
            others = {proposer, *recipients} - {press.sender}
            if (proposal == message.message and press.sender in recipients
                    and others <= set(press.recipients)):
                yes.add(press.sender)
                if yes >= set(recipients):
                    del self.open[(proposer, recipients, proposal)]
                    agreement = Agreement(proposer, (proposer, *recipients), proposal.arrangement)
                    self.formed.append(agreement)
                    return agreement
        return None


class PeacePact(Negotiator):
    """A sample negotiator: peace with a fixed group of powers.

    The ``proposer`` opens the first phase with ``PRP (PCE (group))`` to the
    others of the group; every member accepts a peace proposal among powers
    of the group (YES to all) and rejects any other proposal.  `agreements`
    shows what was agreed.  Members order only once the pact is settled:
    agreed, or refused by someone (a REJ of it seen, or our proposal not
    delivered).
    """

    def __init__(self, group: Sequence[str], proposer: str, level: int = 10) -> None:
        self.group = tuple(group)
        self.proposer = proposer
        self.level = level
        self.agreements = Agreements()
        self.settled = False
        self._opened = False

    def ready_to_order(self, context: PressContext) -> bool:
        return self.settled or context.power not in self.group

    def answered(self, answer: PressAnswer, context: PressContext) -> None:
        if answer.delivered:
            # Our own messages count as soon as the server took them (16.1).
            send = answer.send
            self._observe(ReceivedPress(context.power, send.recipients, send.message))
        elif isinstance(answer.send.message, Propose):
            self.settled = True

    def opening(self, context: PressContext) -> Sequence[SendPress]:
        if context.power != self.proposer or self._opened:
            return ()
        self._opened = True
        others = [p for p in self.group if p != context.power]
        return [propose(others, Peace(self.group))]

    def received(self, press: ReceivedPress, context: PressContext) -> Sequence[SendPress]:
        self._observe(press)
        message = press.message
        if isinstance(message, Propose):
            arrangement = message.arrangement
            if isinstance(arrangement, Peace) and set(arrangement.powers) <= set(self.group):
                return [accept(press, context.power)]
            return [reject(press)]
        if isinstance(message, Reject) and isinstance(message.message, Propose):
            self.settled = True
        return ()

    def _observe(self, press: ReceivedPress) -> None:
        if self.agreements.observe(press) is not None:
            self.settled = True


__all__ = [
    "Agreement",
    "Agreements",
    "Negotiator",
    "NEVER_ANSWERED",
    "PeacePact",
    "PendingPress",
    "PressAnswer",
    "PressContext",
    "accept",
    "mark_error",
    "never_answered",
    "no_press_replies",
    "not_understood",
    "propose",
    "reject",
    "reply",
    "vocabulary",
]
