"""Typed press: frozen dataclasses for every construct of docs/protocol.md §16.

Three families, as in the DAIDE message syntax:

* :class:`Arrangement` - what powers agree on, state or ask about
  (PCE, ALY ... VSS, DRW, SLO, NOT, NAR, XDO, DMZ, AND, ORR, SCD, OCC, CHO,
  FOR, XOY, YDO, and at level 120 SND, FWD, BCC);
* :class:`PressMessage` - a message that starts an exchange (PRP, CCL, FCT,
  TRY, INS, QRY, SUG, THK, WHT, HOW, EXP, IFF, FRM, free text);
* :class:`Reply` - an answer to a received press message (YES, REJ, BWX,
  HUH, THK/FCT (QRY ...), IDK, SRY, WHY, POB, and IFF with reply branches).

Every value renders itself with :meth:`PressValue.nodes`: the *contents* of
its bracket group as a :mod:`protocol.tree` node tuple, e.g.
``Propose(Peace(("ENG", "FRA"))).nodes() == ("PRP", ("PCE", ("ENG", "FRA")))``.
Powers, provinces, coasts, seasons and unit types are mnemonics (``str``),
as in the tree.  Parsing, the level rules and TRY trimming live in
:mod:`protocol.press_parse` and :mod:`protocol.press`; the classes here hold
no rules beyond their shape, so an ill-formed value (an AND with one part)
can be built and rendered, and :func:`protocol.press.legal_at` says it is
legal at no level.

The orders inside XDO and the units are the one order model of :mod:`orders`
(read and written by :mod:`protocol.orders`, the SUB grammar of
docs/protocol.md §9.1); OCC's units may have the unit type ``UNT`` ("any
unit").  Turns are :class:`protocol.orders.Turn`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TypeAlias

from orders import Order, Unit
from protocol.orders import Turn, order_node, unit_node
from protocol.tree import Text, Tree

# --- common values -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Allotment:
    """One group of SCD: ``(power centre centre ...)``."""

    power: str
    centres: tuple[str, ...]

    def nodes(self) -> Tree:
        return (self.power, *self.centres)


class PressValue(ABC):
    """Anything that renders to the contents of one bracket group."""

    __slots__ = ()

    @abstractmethod
    def nodes(self) -> Tree:
        """The tree nodes of this value (without the surrounding brackets)."""


class Arrangement(PressValue):
    """Base of the arrangements (docs/protocol.md §16.2, 16.3)."""

    __slots__ = ()


class PressMessage(PressValue):
    """Base of the press messages (``press_message`` in docs/protocol.md §16.2)."""

    __slots__ = ()


class Reply(PressValue):
    """Base of the replies (``reply`` in docs/protocol.md §16.2)."""

    __slots__ = ()


PressBody: TypeAlias = PressMessage | Reply
"""What SND carries: a press message or a reply."""


def _powers(powers: tuple[str, ...]) -> Tree:
    return tuple(powers)


# --- arrangements --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Peace(Arrangement):
    """``PCE (power power ...)`` - peace among the powers (level 10, continuous)."""

    powers: tuple[str, ...]

    def nodes(self) -> Tree:
        return ("PCE", _powers(self.powers))


@dataclass(frozen=True, slots=True)
class Alliance(Arrangement):
    """``ALY (power ...) VSS (power ...)`` - alliance against (level 10, continuous)."""

    allies: tuple[str, ...]
    enemies: tuple[str, ...]

    def nodes(self) -> Tree:
        return ("ALY", _powers(self.allies), "VSS", _powers(self.enemies))


@dataclass(frozen=True, slots=True)
class Draw(Arrangement):
    """``DRW``, or ``DRW (power power ...)`` for a partial draw (level 10).

    An empty ``powers`` is the bare DRW (all survivors).
    """

    powers: tuple[str, ...] = ()

    def nodes(self) -> Tree:
        return ("DRW", _powers(self.powers)) if self.powers else ("DRW",)


@dataclass(frozen=True, slots=True)
class Solo(Arrangement):
    """``SLO (power)`` - a solo for the power (level 10)."""

    power: str

    def nodes(self) -> Tree:
        return ("SLO", (self.power,))


@dataclass(frozen=True, slots=True)
class Not(Arrangement):
    """``NOT (arrangement)`` - the opposite (level 10; a double negative is advised against, still accepted)."""

    arrangement: Arrangement

    def nodes(self) -> Tree:
        return ("NOT", self.arrangement.nodes())


@dataclass(frozen=True, slots=True)
class NoArrangement(Arrangement):
    """``NAR (arrangement)`` - lack of an arrangement; undoes one (level 10)."""

    arrangement: Arrangement

    def nodes(self) -> Tree:
        return ("NAR", self.arrangement.nodes())


@dataclass(frozen=True, slots=True)
class DoOrder(Arrangement):
    """``XDO (order)`` - the order will be given (level 20).

    ``order`` is a typed order of :mod:`protocol.orders`, exactly as in SUB
    (docs/protocol.md §9.1).
    """

    order: Order

    def nodes(self) -> Tree:
        return ("XDO", order_node(self.order))


@dataclass(frozen=True, slots=True)
class Dmz(Arrangement):
    """``DMZ (power ...) (province ...)`` - the powers keep out (level 20, continuous)."""

    powers: tuple[str, ...]
    provinces: tuple[str, ...]

    def nodes(self) -> Tree:
        return ("DMZ", _powers(self.powers), tuple(self.provinces))


@dataclass(frozen=True, slots=True)
class And(Arrangement):
    """``AND (arrangement) (arrangement) ...`` - all of them (level 30; nested: 50)."""

    parts: tuple[Arrangement, ...]

    def nodes(self) -> Tree:
        return ("AND", *(p.nodes() for p in self.parts))


@dataclass(frozen=True, slots=True)
class Orr(Arrangement):
    """``ORR (arrangement) (arrangement) ...`` - inclusive or (level 30; nested: 50)."""

    parts: tuple[Arrangement, ...]

    def nodes(self) -> Tree:
        return ("ORR", *(p.nodes() for p in self.parts))


@dataclass(frozen=True, slots=True)
class CentreDistribution(Arrangement):
    """``SCD (power centre ...) (power centre ...) ...`` (level 40, long term)."""

    allotments: tuple[Allotment, ...]

    def nodes(self) -> Tree:
        return ("SCD", *(a.nodes() for a in self.allotments))


@dataclass(frozen=True, slots=True)
class Occupy(Arrangement):
    """``OCC (unit) (unit) ...`` - unit placement; type may be UNT (level 40)."""

    units: tuple[Unit, ...]

    def nodes(self) -> Tree:
        return ("OCC", *(unit_node(u) for u in self.units))


@dataclass(frozen=True, slots=True)
class Choose(Arrangement):
    """``CHO (minimum maximum) (arrangement) ...`` - between min and max of them (level 50)."""

    minimum: int
    maximum: int
    parts: tuple[Arrangement, ...]

    def nodes(self) -> Tree:
        return ("CHO", (self.minimum, self.maximum), *(p.nodes() for p in self.parts))


@dataclass(frozen=True, slots=True)
class For(Arrangement):
    """``FOR (turn) (arrangement)`` or ``FOR ((start) (end)) (arrangement)`` (level 90).

    ``end`` is None for a single turn; otherwise the range is inclusive.
    """

    start: Turn
    arrangement: Arrangement
    end: Turn | None = None

    def nodes(self) -> Tree:
        when: Tree = (
            self.start.to_node() if self.end is None else (self.start.to_node(), self.end.to_node())
        )
        return ("FOR", when, self.arrangement.nodes())


@dataclass(frozen=True, slots=True)
class OwesFavour(Arrangement):
    """``XOY (power) (power)`` - the first owes the second a favour (level 110)."""

    debtor: str
    creditor: str

    def nodes(self) -> Tree:
        return ("XOY", (self.debtor,), (self.creditor,))


@dataclass(frozen=True, slots=True)
class GiveControl(Arrangement):
    """``YDO (power) (unit) (unit) ...`` - the power decides these units' orders (level 110)."""

    power: str
    units: tuple[Unit, ...]

    def nodes(self) -> Tree:
        return ("YDO", (self.power,), *(unit_node(u) for u in self.units))


@dataclass(frozen=True, slots=True)
class SendRequest(Arrangement):
    """``SND (power) (power ...) (message)`` - ask ``sender`` to send it (level 120)."""

    sender: str
    recipients: tuple[str, ...]
    message: PressBody

    def nodes(self) -> Tree:
        return ("SND", (self.sender,), _powers(self.recipients), self.message.nodes())


@dataclass(frozen=True, slots=True)
class ForwardReceived(Arrangement):
    """``FWD (power ...) (power) (power)`` - what ``via`` receives from ``sources``
    is forwarded to ``to`` (level 120, continuous)."""

    sources: tuple[str, ...]
    via: str
    to: str

    def nodes(self) -> Tree:
        return ("FWD", _powers(self.sources), (self.via,), (self.to,))


@dataclass(frozen=True, slots=True)
class ForwardSent(Arrangement):
    """``BCC (power) (power ...) (power)`` - what ``sender`` sends to ``recipients``
    is copied to ``to`` (level 120, continuous)."""

    sender: str
    recipients: tuple[str, ...]
    to: str

    def nodes(self) -> Tree:
        return ("BCC", (self.sender,), _powers(self.recipients), (self.to,))


# --- press messages --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Propose(PressMessage):
    """``PRP (arrangement)`` (level 10)."""

    arrangement: Arrangement

    def nodes(self) -> Tree:
        return ("PRP", self.arrangement.nodes())


@dataclass(frozen=True, slots=True)
class Cancel(PressMessage):
    """``CCL (press_message)`` - cancel an own proposal or own YES (level 10)."""

    message: PressBody

    def nodes(self) -> Tree:
        return ("CCL", self.message.nodes())


@dataclass(frozen=True, slots=True)
class Fact(PressMessage):
    """``FCT (arrangement)`` - the arrangement is true (level 10)."""

    arrangement: Arrangement

    def nodes(self) -> Tree:
        return ("FCT", self.arrangement.nodes())


@dataclass(frozen=True, slots=True)
class Try(PressMessage):
    """``TRY (token token ...)`` - the press words the sender understands (level 10)."""

    words: tuple[str, ...] = ()

    def nodes(self) -> Tree:
        return ("TRY", tuple(self.words))


@dataclass(frozen=True, slots=True)
class Insist(PressMessage):
    """``INS (arrangement)`` - a forceful PRP (level 60)."""

    arrangement: Arrangement

    def nodes(self) -> Tree:
        return ("INS", self.arrangement.nodes())


@dataclass(frozen=True, slots=True)
class Query(PressMessage):
    """``QRY (arrangement)`` - is it so? (level 60)."""

    arrangement: Arrangement

    def nodes(self) -> Tree:
        return ("QRY", self.arrangement.nodes())


@dataclass(frozen=True, slots=True)
class Suggest(PressMessage):
    """``SUG (arrangement)`` - it is in our mutual interest (level 60)."""

    arrangement: Arrangement

    def nodes(self) -> Tree:
        return ("SUG", self.arrangement.nodes())


@dataclass(frozen=True, slots=True)
class Think(PressMessage):
    """``THK (arrangement)`` - volunteered opinion (level 60)."""

    arrangement: Arrangement

    def nodes(self) -> Tree:
        return ("THK", self.arrangement.nodes())


@dataclass(frozen=True, slots=True)
class WhatShould(PressMessage):
    """``WHT (unit)`` - what should this unit do? (level 70)."""

    unit: Unit

    def nodes(self) -> Tree:
        return ("WHT", unit_node(self.unit))


@dataclass(frozen=True, slots=True)
class HowToAttack(PressMessage):
    """``HOW (province)`` or ``HOW (power)`` - how should we attack it? (level 70)."""

    target: str

    def nodes(self) -> Tree:
        return ("HOW", (self.target,))


@dataclass(frozen=True, slots=True)
class Explain(PressMessage):
    """``EXP (turn) (message)`` - explain your moves given what you said (level 80)."""

    turn: Turn
    message: PressBody

    def nodes(self) -> Tree:
        return ("EXP", self.turn.to_node(), self.message.nodes())


@dataclass(frozen=True, slots=True)
class Conditional(PressMessage):
    """``IFF (arrangement) THN (press_message) [ELS (press_message)]`` (level 100)."""

    condition: Arrangement
    then: PressMessage
    otherwise: PressMessage | None = None

    def nodes(self) -> Tree:
        tail: Tree = () if self.otherwise is None else ("ELS", self.otherwise.nodes())
        return ("IFF", self.condition.nodes(), "THN", self.then.nodes(), *tail)


@dataclass(frozen=True, slots=True)
class Forwarded(PressMessage):
    """``FRM (power) (power ...) (message)`` - a report of press sent or received (level 120)."""

    sender: str
    recipients: tuple[str, ...]
    message: PressBody

    def nodes(self) -> Tree:
        return ("FRM", (self.sender,), _powers(self.recipients), self.message.nodes())


@dataclass(frozen=True, slots=True)
class FreeText(PressMessage):
    """Free-text press: any string of text tokens (level 8000)."""

    text: str

    def nodes(self) -> Tree:
        return (Text(self.text),)


# --- replies -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Accept(Reply):
    """``YES (press_message)`` (level 10)."""

    message: PressMessage

    def nodes(self) -> Tree:
        return ("YES", self.message.nodes())


@dataclass(frozen=True, slots=True)
class Reject(Reply):
    """``REJ (press_message)`` (level 10)."""

    message: PressMessage

    def nodes(self) -> Tree:
        return ("REJ", self.message.nodes())


@dataclass(frozen=True, slots=True)
class NoneOfYourBusiness(Reply):
    """``BWX (press_message)`` (level 10)."""

    message: PressMessage

    def nodes(self) -> Tree:
        return ("BWX", self.message.nodes())


@dataclass(frozen=True, slots=True)
class NotUnderstood(Reply):
    """``HUH (press_message)`` with ERR before the first token not understood (level 10).

    ``content`` is kept as received (a tree containing ``"ERR"``): it is a
    press message with an error mark, so it is not parsed.
    """

    content: Tree

    def nodes(self) -> Tree:
        return ("HUH", self.content)


@dataclass(frozen=True, slots=True)
class ThinkQuery(Reply):
    """``THK (QRY (arrangement))``, or with ``negated`` ``THK (NOT (QRY (arrangement)))`` (level 60)."""

    arrangement: Arrangement
    negated: bool = False

    def nodes(self) -> Tree:
        query: Tree = ("QRY", self.arrangement.nodes())
        return ("THK", ("NOT", query) if self.negated else query)


@dataclass(frozen=True, slots=True)
class FactQuery(Reply):
    """``FCT (QRY (arrangement))``, or with ``negated`` ``FCT (NOT (QRY (arrangement)))`` (level 60)."""

    arrangement: Arrangement
    negated: bool = False

    def nodes(self) -> Tree:
        query: Tree = ("QRY", self.arrangement.nodes())
        return ("FCT", ("NOT", query) if self.negated else query)


#: What IDK may answer: QRY (60), WHT and HOW (70), EXP (80), PRP/INS/SUG (130).
Unknowable: TypeAlias = Query | WhatShould | HowToAttack | Explain | Propose | Insist | Suggest

#: What WHY may ask about (130).
Explicable: TypeAlias = Think | Fact | Suggest | Propose | Insist


@dataclass(frozen=True, slots=True)
class DontKnow(Reply):
    """``IDK (message)`` for QRY (60), WHT/HOW (70), EXP (80), PRP/INS/SUG (130)."""

    message: Unknowable

    def nodes(self) -> Tree:
        return ("IDK", self.message.nodes())


@dataclass(frozen=True, slots=True)
class Sorry(Reply):
    """``SRY (EXP (turn) (message))`` (level 80)."""

    explanation: Explain

    def nodes(self) -> Tree:
        return ("SRY", self.explanation.nodes())


@dataclass(frozen=True, slots=True)
class Why(Reply):
    """``WHY (THK|FCT|SUG|PRP|INS (arrangement))`` - please explain (level 130)."""

    message: Explicable

    def nodes(self) -> Tree:
        return ("WHY", self.message.nodes())


@dataclass(frozen=True, slots=True)
class PositionOnBoard(Reply):
    """``POB (WHY (...))`` - the position on the board suggests it (level 130)."""

    why: Why

    def nodes(self) -> Tree:
        return ("POB", self.why.nodes())


@dataclass(frozen=True, slots=True)
class ConditionalReply(Reply):
    """``IFF (arrangement) THN (reply) [ELS (reply)]`` - a conditional answer (level 100).

    docs/protocol.md §16.3 allows IFF "as a reply" too; following Parlance's
    grammar both branches are then replies.
    """

    condition: Arrangement
    then: Reply
    otherwise: Reply | None = None

    def nodes(self) -> Tree:
        tail: Tree = () if self.otherwise is None else ("ELS", self.otherwise.nodes())
        return ("IFF", self.condition.nodes(), "THN", self.then.nodes(), *tail)


__all__ = [
    "Accept",
    "Alliance",
    "Allotment",
    "And",
    "Arrangement",
    "Cancel",
    "CentreDistribution",
    "Choose",
    "Conditional",
    "ConditionalReply",
    "DoOrder",
    "DontKnow",
    "Dmz",
    "Draw",
    "Explain",
    "Explicable",
    "Fact",
    "FactQuery",
    "For",
    "ForwardReceived",
    "ForwardSent",
    "Forwarded",
    "FreeText",
    "GiveControl",
    "HowToAttack",
    "Insist",
    "PressBody",
    "NoArrangement",
    "NoneOfYourBusiness",
    "Not",
    "NotUnderstood",
    "Occupy",
    "Orr",
    "OwesFavour",
    "Peace",
    "PositionOnBoard",
    "PressMessage",
    "PressValue",
    "Propose",
    "Query",
    "Reject",
    "Reply",
    "SendRequest",
    "Solo",
    "Sorry",
    "Suggest",
    "Think",
    "ThinkQuery",
    "Try",
    "Turn",
    "Unknowable",
    "WhatShould",
    "Why",
]
