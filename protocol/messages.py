"""Typed, frozen classes for every Level 0 message (docs/protocol.md §8-15).

One class per message form; the class name is the command's mnemonic
(``Nme``, ``Now``, ``Sub``...), and a bare request that a client sends
instead of the full server message is a separate ``...Request`` class
(``NowRequest`` is the client's bare ``NOW``, ``Now`` the server's
``NOW ( turn ) ( unit ) ...``).  Each message renders itself with
:meth:`Message.to_tree` / :meth:`Message.to_tokens` / :meth:`Message.encode`;
:func:`protocol.parse.parse_message` reads them.

Rendering is lossless for everything a client sends, so a server's
``YES (...)``/``REJ (...)`` built from the parsed message echoes the received
tokens exactly (docs/protocol.md §7.1).

Press bodies of SND/FRM are carried twice: ``press`` holds the contents of
the bracketed press message as received, e.g. ``('PRP', ('PCE', ('ENG',
'FRA')))`` (what YES/REJ/HUH echo), and ``typed`` the same message as a
:mod:`protocol.press` value (``Propose(Peace(('ENG', 'FRA')))``) when it
follows the press grammar (docs/protocol.md §16).  ``typed`` takes no part in
equality: it is a reading of ``press``, never more.  Build one from a typed
value with :meth:`Snd.of` / :meth:`Frm.of`.  PRN and HUH carry raw tokens,
since what they echo may be unbalanced or hold unknown tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from orders import Order
from protocol.errors import EncodeError, GrammarError, ProtocolError
from protocol.mapdef import CentreGroup, MapDefinition
from protocol.orders import DaideOrderResult, Turn, UnitPosition, order_node
from protocol.press import PressBody, ReceivedPress, SendPress
from protocol.text import format_tree, render_text
from protocol.tokens import BRA, ERR, KET, STANDARD, Representation
from protocol.tree import Node, Text, Tree, from_tree, to_tree, tokens_to_bytes
from protocol.variant import VariantOptions

#: The opaque contents of a bracketed press message (SND/FRM).
Press = tuple[Node, ...]

HUH_TOKEN = 0x4806
PRN_TOKEN = 0x4813


@dataclass(frozen=True, slots=True)
class Message:
    """Base of all messages: rendering to tree, tokens and DM body bytes."""

    COMMAND: ClassVar[str] = ""

    def to_tree(self) -> Tree:
        """The message as a tree (mnemonics, independent of the representation)."""
        return (self.COMMAND,)

    def to_tokens(self, rep: Representation = STANDARD) -> tuple[int, ...]:
        """The token sequence of the message under ``rep``."""
        return from_tree(self.to_tree(), rep)

    def encode(self, rep: Representation = STANDARD) -> bytes:
        """The DM body: the tokens as big-endian bytes."""
        return tokens_to_bytes(self.to_tokens(rep))

    def __str__(self) -> str:
        return format_tree(self.to_tree())


def _s(text: str) -> tuple[Node, ...]:
    return (Text(text),)


# --- joining (8.1) ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Nme(Message):
    """``NME ('name') ('version')`` - client joins as a player."""

    COMMAND: ClassVar[str] = "NME"
    name: str
    version: str

    def to_tree(self) -> Tree:
        return ("NME", _s(self.name), _s(self.version))


@dataclass(frozen=True, slots=True)
class Obs(Message):
    """``OBS`` - client joins as an observer; Parlance's ``OBS ('name') ('version')``
    names it too (docs/protocol.md §8.1 [X])."""

    COMMAND: ClassVar[str] = "OBS"
    name: str | None = None
    version: str | None = None

    def to_tree(self) -> Tree:
        if self.name is None or self.version is None:
            return ("OBS",)
        return ("OBS", _s(self.name), _s(self.version))


@dataclass(frozen=True, slots=True)
class Iam(Message):
    """``IAM (power) (passcode)`` - client rejoins after a lost connection."""

    COMMAND: ClassVar[str] = "IAM"
    power: str
    passcode: int

    def to_tree(self) -> Tree:
        return ("IAM", (self.power,), (self.passcode,))


@dataclass(frozen=True, slots=True)
class MapMessage(Message):
    """``MAP ('name')`` - server names the map."""

    COMMAND: ClassVar[str] = "MAP"
    name: str

    def to_tree(self) -> Tree:
        return ("MAP", _s(self.name))


@dataclass(frozen=True, slots=True)
class MapRequest(Message):
    """Bare ``MAP`` from a client: send the MAP again."""

    COMMAND: ClassVar[str] = "MAP"


@dataclass(frozen=True, slots=True)
class MdfRequest(Message):
    """Bare ``MDF`` from a client: send the map definition."""

    COMMAND: ClassVar[str] = "MDF"


@dataclass(frozen=True, slots=True)
class Mdf(Message):
    """``MDF (powers) (provinces) (adjacencies)`` (docs/protocol.md §11)."""

    COMMAND: ClassVar[str] = "MDF"
    definition: MapDefinition

    def to_tree(self) -> Tree:
        return ("MDF", *self.definition.to_nodes())


@dataclass(frozen=True, slots=True)
class Hlo(Message):
    """``HLO (power) (passcode) (variant)``; power UNO for observers."""

    COMMAND: ClassVar[str] = "HLO"
    power: str
    passcode: int
    variant: VariantOptions

    def to_tree(self) -> Tree:
        return ("HLO", (self.power,), (self.passcode,), self.variant.to_node())


@dataclass(frozen=True, slots=True)
class HloRequest(Message):
    """Bare ``HLO`` from a player: send the HLO again."""

    COMMAND: ClassVar[str] = "HLO"


# --- game state (8.2) -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sco(Message):
    """``SCO (power centre ...) ... (UNO centre ...)`` - centre ownership."""

    COMMAND: ClassVar[str] = "SCO"
    ownership: tuple[CentreGroup, ...]

    def to_tree(self) -> Tree:
        return ("SCO", *(g.to_node() for g in self.ownership))


@dataclass(frozen=True, slots=True)
class ScoRequest(Message):
    """Bare ``SCO`` from a client."""

    COMMAND: ClassVar[str] = "SCO"


@dataclass(frozen=True, slots=True)
class Now(Message):
    """``NOW (turn) (unit) ...`` - the turn and every unit (MRT if dislodged)."""

    COMMAND: ClassVar[str] = "NOW"
    turn: Turn
    units: tuple[UnitPosition, ...]

    def to_tree(self) -> Tree:
        return ("NOW", self.turn.to_node(), *(u.to_node() for u in self.units))


@dataclass(frozen=True, slots=True)
class NowRequest(Message):
    """Bare ``NOW`` from a client."""

    COMMAND: ClassVar[str] = "NOW"


@dataclass(frozen=True, slots=True)
class Hst(Message):
    """``HST (turn)`` - history of a past phase; bare ``HST`` when ``turn`` is None."""

    COMMAND: ClassVar[str] = "HST"
    turn: Turn | None = None

    def to_tree(self) -> Tree:
        return ("HST",) if self.turn is None else ("HST", self.turn.to_node())


# --- orders (8.3) and results (8.4) ------------------------------------------


@dataclass(frozen=True, slots=True)
class Sub(Message):
    """``SUB [(turn)] (order) (order) ...``.

    Inside ``NOT (SUB)`` / ``NOT (SUB (order))`` it has zero or one order.
    """

    COMMAND: ClassVar[str] = "SUB"
    orders: tuple[Order, ...]
    turn: Turn | None = None

    def to_tree(self) -> Tree:
        head: tuple[Node, ...] = ("SUB",) if self.turn is None else ("SUB", self.turn.to_node())
        return (*head, *(order_node(o) for o in self.orders))


@dataclass(frozen=True, slots=True)
class Thx(Message):
    """``THX (order) (note)`` - the server's note on one submitted order."""

    COMMAND: ClassVar[str] = "THX"
    order: Order
    note: str

    def to_tree(self) -> Tree:
        return ("THX", order_node(self.order), (self.note,))


@dataclass(frozen=True, slots=True)
class Mis(Message):
    """Missing orders, from the server.

    ``MIS (unit) ...`` (movement; retreat phase: units carry MRT lists),
    ``MIS (n)`` (``count``: >0 removals owed, <0 builds to order), or bare
    ``MIS`` (nothing outstanding) when both fields are empty.
    """

    COMMAND: ClassVar[str] = "MIS"
    units: tuple[UnitPosition, ...] = ()
    count: int | None = None

    def to_tree(self) -> Tree:
        if self.count is not None:
            if self.units:
                raise EncodeError("MIS has either units or a count, not both")
            return ("MIS", (self.count,))
        return ("MIS", *(u.to_node() for u in self.units))


@dataclass(frozen=True, slots=True)
class MisRequest(Message):
    """Bare ``MIS`` from a player: which orders are still missing?"""

    COMMAND: ClassVar[str] = "MIS"


@dataclass(frozen=True, slots=True)
class Gof(Message):
    """``GOF`` - process as soon as everybody is ready."""

    COMMAND: ClassVar[str] = "GOF"


@dataclass(frozen=True, slots=True)
class Ord(Message):
    """``ORD (turn) (order) (result)`` - the result of one order."""

    COMMAND: ClassVar[str] = "ORD"
    turn: Turn
    order: Order
    result: DaideOrderResult

    def to_tree(self) -> Tree:
        return ("ORD", self.turn.to_node(), order_node(self.order), self.result.to_node())


@dataclass(frozen=True, slots=True)
class OrdRequest(Message):
    """Bare ``ORD`` from a player: send the last results again."""

    COMMAND: ClassVar[str] = "ORD"


# --- deadlines (15), draws and the end (8.10), civil disorder (8.8) ------------


@dataclass(frozen=True, slots=True)
class Tme(Message):
    """``TME (seconds)``; bare ``TME`` (a client's query) when ``seconds`` is None."""

    COMMAND: ClassVar[str] = "TME"
    seconds: int | None = None

    def to_tree(self) -> Tree:
        return ("TME",) if self.seconds is None else ("TME", (self.seconds,))


@dataclass(frozen=True, slots=True)
class Drw(Message):
    """``DRW`` (all survivors) or ``DRW (power power ...)`` (partial draw, level 10)."""

    COMMAND: ClassVar[str] = "DRW"
    powers: tuple[str, ...] = ()

    def to_tree(self) -> Tree:
        return ("DRW", self.powers) if self.powers else ("DRW",)


@dataclass(frozen=True, slots=True)
class Slo(Message):
    """``SLO (power)`` - the game ended with a solo."""

    COMMAND: ClassVar[str] = "SLO"
    power: str

    def to_tree(self) -> Tree:
        return ("SLO", (self.power,))


@dataclass(frozen=True, slots=True)
class SmrEntry:
    """``(power ('name') ('version') centres [year_of_elimination])``"""

    power: str
    name: str
    version: str
    centres: int
    eliminated: int | None = None

    def to_node(self) -> tuple[Node, ...]:
        node: tuple[Node, ...] = (self.power, _s(self.name), _s(self.version), self.centres)
        return node if self.eliminated is None else (*node, self.eliminated)


@dataclass(frozen=True, slots=True)
class Smr(Message):
    """``SMR (turn) (entry) ...`` - the end-of-game summary."""

    COMMAND: ClassVar[str] = "SMR"
    turn: Turn
    entries: tuple[SmrEntry, ...]

    def to_tree(self) -> Tree:
        return ("SMR", self.turn.to_node(), *(e.to_node() for e in self.entries))


@dataclass(frozen=True, slots=True)
class SmrRequest(Message):
    """Bare ``SMR`` from a client (Parlance extension, docs/protocol.md §8.10 [X])."""

    COMMAND: ClassVar[str] = "SMR"


@dataclass(frozen=True, slots=True)
class Off(Message):
    """``OFF`` - the client must exit."""

    COMMAND: ClassVar[str] = "OFF"


@dataclass(frozen=True, slots=True)
class Ccd(Message):
    """``CCD (power)`` - the power is in civil disorder."""

    COMMAND: ClassVar[str] = "CCD"
    power: str

    def to_tree(self) -> Tree:
        return ("CCD", (self.power,))


@dataclass(frozen=True, slots=True)
class Out(Message):
    """``OUT (power)`` - the power is eliminated (answer to a SND)."""

    COMMAND: ClassVar[str] = "OUT"
    power: str

    def to_tree(self) -> Tree:
        return ("OUT", (self.power,))


@dataclass(frozen=True, slots=True)
class Adm(Message):
    """``ADM ('name') ('message')`` - administrative chat, either direction."""

    COMMAND: ClassVar[str] = "ADM"
    name: str
    text: str

    def to_tree(self) -> Tree:
        return ("ADM", _s(self.name), _s(self.text))


@dataclass(frozen=True, slots=True)
class Sve(Message):
    """``SVE ('game')`` - server asks the client to save its state."""

    COMMAND: ClassVar[str] = "SVE"
    name: str

    def to_tree(self) -> Tree:
        return ("SVE", _s(self.name))


@dataclass(frozen=True, slots=True)
class Lod(Message):
    """``LOD ('game')`` - server resumes a saved game (instead of HLO)."""

    COMMAND: ClassVar[str] = "LOD"
    name: str

    def to_tree(self) -> Tree:
        return ("LOD", _s(self.name))


# --- press relay (16.1) -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Snd(Message):
    """``SND [(turn)] (power power ...) (press)`` - a player sends press.

    ``press`` is the press message's tree as received; ``typed`` its
    :mod:`protocol.press` reading (None when it was parsed without a level
    and does not follow the press grammar - see :func:`protocol.parse.parse_message`).
    """

    COMMAND: ClassVar[str] = "SND"
    recipients: tuple[str, ...]
    press: Press
    turn: Turn | None = None
    typed: PressBody | None = field(default=None, compare=False)

    @classmethod
    def of(cls, value: SendPress) -> Snd:
        """The SND carrying a typed press value."""
        return cls(tuple(value.recipients), value.message.nodes(), value.turn, value.message)

    def send_press(self) -> SendPress | None:
        """The typed ``SND``, or None if the press was not read as press."""
        if self.typed is None:
            return None
        return SendPress(self.recipients, self.typed, self.turn)

    def to_tree(self) -> Tree:
        head: tuple[Node, ...] = ("SND",) if self.turn is None else ("SND", self.turn.to_node())
        return (*head, self.recipients, self.press)


@dataclass(frozen=True, slots=True)
class Frm(Message):
    """``FRM (sender) (power power ...) (press)`` - press delivered by the server.

    ``press`` and ``typed`` as in :class:`Snd`.
    """

    COMMAND: ClassVar[str] = "FRM"
    sender: str
    recipients: tuple[str, ...]
    press: Press
    typed: PressBody | None = field(default=None, compare=False)

    @classmethod
    def of(cls, value: ReceivedPress) -> Frm:
        """The FRM carrying a typed press value."""
        return cls(value.sender, tuple(value.recipients), value.message.nodes(), value.message)

    def to_tree(self) -> Tree:
        return ("FRM", (self.sender,), self.recipients, self.press)


# --- wrappers: YES, REJ, NOT ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Yes(Message):
    """``YES (message)`` - accepts the complete echoed message."""

    COMMAND: ClassVar[str] = "YES"
    message: Message

    def to_tree(self) -> Tree:
        return ("YES", self.message.to_tree())


@dataclass(frozen=True, slots=True)
class Rej(Message):
    """``REJ (message)`` - rejects the complete echoed message."""

    COMMAND: ClassVar[str] = "REJ"
    message: Message

    def to_tree(self) -> Tree:
        return ("REJ", self.message.to_tree())


@dataclass(frozen=True, slots=True)
class NotMessage(Message):
    """``NOT (message)``: NOT (SUB [(order)]), NOT (GOF), NOT (DRW [(powers)]),
    NOT (TME [(n)]) from a client; NOT (CCD (power)), NOT (TME (n)) from the server."""

    COMMAND: ClassVar[str] = "NOT"
    message: Message

    def to_tree(self) -> Tree:
        return ("NOT", self.message.to_tree())


# --- language errors (14) -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prn(Message):
    """``PRN (message)`` - bad bracketing; ``message`` = the received tokens, unchanged.

    The result is itself unbalanced when the received message was, so it
    has no tree: :meth:`to_tree` raises :class:`EncodeError` in that case.
    """

    COMMAND: ClassVar[str] = "PRN"
    message: tuple[int, ...]

    def to_tokens(self, rep: Representation = STANDARD) -> tuple[int, ...]:
        return (PRN_TOKEN, BRA, *self.message, KET)

    def to_tree(self) -> Tree:
        return _raw_tree(self.to_tokens())

    def __str__(self) -> str:
        return render_text(self.to_tokens())


@dataclass(frozen=True, slots=True)
class Huh(Message):
    """``HUH (message)`` - a grammar error; ``message`` = the received tokens with ERR.

    Build one with :meth:`at` or :meth:`for_error`.
    """

    COMMAND: ClassVar[str] = "HUH"
    message: tuple[int, ...]

    @classmethod
    def at(cls, tokens: Sequence[int], position: int) -> Huh:
        """``HUH`` with ERR inserted before token ``position`` (``len`` = at the end)."""
        tokens = tuple(tokens)
        return cls((*tokens[:position], ERR, *tokens[position:]))

    @classmethod
    def for_error(cls, error: GrammarError) -> Huh:
        """The HUH answering a :class:`GrammarError`."""
        return cls.at(error.tokens, error.position)

    def to_tokens(self, rep: Representation = STANDARD) -> tuple[int, ...]:
        return (HUH_TOKEN, BRA, *self.message, KET)

    def to_tree(self) -> Tree:
        return _raw_tree(self.to_tokens())

    def __str__(self) -> str:
        return render_text(self.to_tokens())


def _raw_tree(tokens: tuple[int, ...]) -> Tree:
    try:
        return to_tree(tokens)
    except ProtocolError as exc:  # unbalanced or unknown tokens: no tree exists
        raise EncodeError(f"this message has no tree form: {exc}") from exc
