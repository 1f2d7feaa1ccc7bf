"""Messages encoded once for many clients: a `Packet` is DM frames ready to write.

A game's broadcasts (ORD, SCO, NOW, TME, CCD...) go to every player and
observer, and the same results are sent again on HST and bare ORD.
Encoding a message (tree -> tokens -> frame) costs far more than writing
it, so the game actor encodes each broadcast once (`encode`) and queues the
same `Packet` for every client; the phase's history keeps its ORDs, SCO
and NOW as packets too, which also keeps a long game's history out of the
garbage collector's way (a few bytes objects per phase instead of a tree of
message objects per result).

A packet is only valid for the representation it was encoded under.  Every
connection of a server speaks the same one (the variant's tokens with the
server's press numbering, `server.press.wire_representation`, which returns
one shared object), so the writer compares by identity and re-encodes
(`reframe`) only in the unexpected case of a different representation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from adjudicator.results import OrderResult
from adjudicator.validate import MBV
from adjudicator.values import GameState, Phase
from engine.convert import now_message
from orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Location,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
)
from protocol.frames import (
    HEADER_SIZE,
    DiplomacyMessage,
    build_frame,
    dm_frame_of_body,
    parse_frames,
)
from protocol.mapdef import CentreGroup
from protocol.messages import Message, Now, Sco
from protocol.orders import DaideOrderResult, location_node, order_node, unit_node
from protocol.text import render_text
from protocol.tokens import BRA, KET, Representation
from protocol.tree import Node, dm_body, from_tree, to_tree


class Packet:
    """One or more whole DM frames, encoded under ``rep``; immutable.

    ``command`` names the (first) message for log lines; ``turn`` is the
    turn of a NOW (``'SPR 1901'``), which the turn statistics look for.

    Written out rather than a frozen dataclass: one is made for every SUB's
    answer and a few per phase, and a frozen dataclass's ``__init__`` sets
    each field through ``object.__setattr__`` (this module is compiled; its
    read-only properties keep the packet immutable all the same).
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
    """A message's packet and its text form (what the database stores); immutable.

    Written out as `Packet` is: a frozen dataclass's ``__init__`` runs
    interpreted even in this compiled module, and a phase makes a few.
    """

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


def encode(message: Message, rep: Representation) -> Encoded:
    """Encode ``message`` once: its frame, and its text from the same tokens.

    Raises `protocol.errors.EncodeError` if the message cannot be sent.
    """
    tokens = message.to_tokens(rep)
    return Encoded(_packet(message, tokens, rep), render_text(tokens, rep))


def packet(message: Message, rep: Representation) -> Packet:
    """``message`` encoded for the wire only (no text: nothing stores it)."""
    return _packet(message, message.to_tokens(rep), rep)


def _packet(message: Message, tokens: tuple[int, ...], rep: Representation) -> Packet:
    turn = str(message.turn) if isinstance(message, Now) else None
    return Packet(message.COMMAND, dm_frame(dm_body(tokens)), rep, turn)


#: body length -> DM header, as `protocol.frames.dm_frame_of_body` writes it
_HEADERS: Final[dict[int, bytes]] = {}


def dm_frame(body: bytes) -> bytes:
    """`protocol.frames.dm_frame_of_body`, with its header remembered per body
    length: that module is interpreted, and a phase frames an ORD and a THX
    per order."""
    return dm_header(len(body)) + body


def dm_header(length: int) -> bytes:
    """The header `protocol.frames.dm_frame_of_body` writes for a body of
    ``length`` bytes.  A body too long to send raises EncodeError there
    every time (its header is never kept)."""
    header = _HEADERS.get(length)
    if header is None:
        header = _HEADERS[length] = dm_frame_of_body(bytes(length))[:HEADER_SIZE]
    return header


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


#: Orders an `OrderCodes` table holds at most (~500 bytes each: ~16 MB).
KEPT_ORDERS: Final = 1 << 15


#: Units and places the `OrderCodes` of a representation keep the parts of
#: (a few per power and location).
KEPT_PARTS: Final = 1 << 12

#: A part of an order's encoding: its tokens, their DM body, their text.
Part = tuple[tuple[int, ...], bytes, str]

#: The word of each order written ``( unit ) WORD``.
_SIMPLE_WORDS: Final[dict[type, str]] = {Hold: "HLD", Disband: "DSB", Build: "BLD", Remove: "REM"}


class Coded:
    """One order's encodings, kept (`OrderCodes`): the order (which keeps
    its id from being reused), its tokens inside ``( order )``, their DM
    body, their text, and - made when first sent - the frame of its
    ``THX ( order ) ( MBV )``, the answer to nearly every order."""

    __slots__ = ("order", "tokens", "body", "text", "mbv")

    def __init__(self, order: Order, tokens: tuple[int, ...], body: bytes, text: str) -> None:
        self.order = order
        self.tokens = tokens
        self.body = body
        self.text = text
        self.mbv: bytes | None = None


class OrderCodes:
    """The tokens of orders, encoded once for all their uses.

    An accepted order goes out three times - in its THX (docs/protocol.md
    §9.3), in the stored list of the power's orders (its text, rewritten at
    every SUB), and in its ORD after the phase (§9.4; the engine's results
    carry the submitted order objects) - so its tokens are computed once and
    the messages are put together around them: ``THX ( order ) ( note )``
    and ``ORD ( turn ) ( order ) ( result )``, the same tokens as `Thx` and
    `Ord` encode (tests/test_server_wire.py holds them to it).

    The frames are put together from bytes too: a DM body is its tokens as
    16-bit words, so the body of a message is the bodies of its parts one
    after the other, and its text their texts joined by spaces.  Each part -
    ``THX (``, an order, ``) ( note )``, ``ORD ( turn ) (``, ``) ( result )``
    - is encoded once by `protocol.tree.dm_body` (which checks it may be
    sent) and kept; `dm_frame` frames the joined body.

    Keyed by identity (hashing an order costs more than looking it up): the
    table holds the orders, so their ids cannot be reused while it does.
    The games of a server share one table per representation (`_kept`),
    and the parts new orders are put together from: the parser gives every
    order it reads again the same object (`protocol.parse.SubReader`), and
    bots send the same orders again and again, in one game and across games.
    The table is bounded: `clear` (at the end of every phase) empties it
    once it holds `KEPT_ORDERS`.
    """

    def __init__(self, rep: Representation) -> None:
        self.rep = rep
        table = rep.encode_table
        self._thx_head = dm_body((table["THX"], BRA))
        self._notes: dict[str, bytes] = {}                   # ") ( note )"
        # ") ( result )" by outcome, of a unit that stayed / was dislodged (RET)
        self._results: tuple[dict[str | None, tuple[bytes, str]], ...] = ({}, {})
        self._kept = kept = _kept(rep)
        self._orders = kept.orders                          # id(order) -> Coded
        # the parts of new orders (`_parts`): id -> (unit or place, part); word -> part
        self._units = kept.units
        self._places = kept.places
        self._words = kept.words

    def clear(self) -> None:
        """A phase ended: forget the orders if the table is full (the results
        and turns stay: a few small values)."""
        if len(self._orders) >= KEPT_ORDERS:
            self._orders.clear()

    def _coded(self, order: Order) -> Coded:
        known = self._orders.get(id(order))
        if known is not None and known.order is order:
            return known
        parts = self._parts(order)
        if parts is None:           # a CTO ... VIA or a WVE: the generic way
            tokens = from_tree(order_node(order), self.rep)
            coded = Coded(order, tokens, dm_body(tokens), render_text(tokens, self.rep))
        else:
            tokens = ()
            bodies: list[bytes] = []
            texts: list[str] = []
            for part in parts:
                tokens += part[0]
                bodies.append(part[1])
                texts.append(part[2])
            coded = Coded(order, tokens, b"".join(bodies), " ".join(texts))
        self._orders[id(order)] = coded
        return coded

    # A new order is put together from the kept parts of its units, words and
    # places (their tokens, body and text): the parts of ``order_node(order)``
    # in its order, so the same tokens as ``from_tree`` writes for the node,
    # and the body and text of those tokens (a body is its parts' bodies one
    # after the other, a text their texts joined by spaces).  The parts are
    # few, and shared by the games of the representation (`_Kept`): units and
    # places are kept by identity (the parser shares one object per value),
    # words by mnemonic.

    def _parts(self, order: Order) -> list[Part] | None:
        kind = type(order)
        if kind is Move or kind is Retreat:
            assert isinstance(order, (Move, Retreat))
            return [self._unit_part(order.unit), self._word_part("MTO" if kind is Move else "RTO"),
                    self._place_part(order.dest)]
        if kind is Hold or kind is Disband or kind is Build or kind is Remove:
            assert isinstance(order, (Hold, Disband, Build, Remove))
            return [self._unit_part(order.unit), self._word_part(_SIMPLE_WORDS[kind])]
        if kind is SupportHold:
            assert isinstance(order, SupportHold)
            return [self._unit_part(order.unit), self._word_part("SUP"),
                    self._unit_part(order.supported)]
        if kind is SupportMove:
            assert isinstance(order, SupportMove)
            return [self._unit_part(order.unit), self._word_part("SUP"),
                    self._unit_part(order.supported), self._word_part("MTO"),
                    self._word_part(order.dest)]
        if kind is Convoy:
            assert isinstance(order, Convoy)
            return [self._unit_part(order.unit), self._word_part("CVY"),
                    self._unit_part(order.army), self._word_part("CTO"),
                    self._word_part(order.dest)]
        return None

    def _unit_part(self, unit: Unit) -> Part:
        """``( power type where )``."""
        known = self._units.get(id(unit))
        if known is not None and known[0] is unit:
            return known[1]
        if len(self._units) >= KEPT_PARTS:
            self._units.clear()
        part = self._part((unit_node(unit),))
        self._units[id(unit)] = (unit, part)
        return part

    def _place_part(self, place: Location) -> Part:
        """``province`` or ``( province coast )``."""
        known = self._places.get(id(place))
        if known is not None and known[0] is place:
            return known[1]
        if len(self._places) >= KEPT_PARTS:
            self._places.clear()
        part = self._part((location_node(place),))
        self._places[id(place)] = (place, part)
        return part

    def _word_part(self, word: str) -> Part:
        part = self._words.get(word)
        if part is None:
            part = self._words[word] = self._part((word,))
        return part

    def _part(self, nodes: tuple[Node, ...]) -> Part:
        tokens = from_tree(nodes, self.rep)     # EncodeError for a mnemonic it does not know
        return tokens, dm_body(tokens), render_text(tokens, self.rep)

    def tokens(self, order: Order) -> tuple[int, ...]:
        """The tokens inside ``( order )``."""
        return self._coded(order).tokens

    def text(self, order: Order) -> str:
        """The order's text, as the store keeps it (``( ENG FLT NTH ) HLD``)."""
        return self._coded(order).text

    def thx(self, order: Order, note: str) -> bytes:
        """The frame of ``THX ( order ) ( note )``."""
        coded = self._coded(order)
        if note == MBV and coded.mbv is not None:
            return coded.mbv
        tail = self._notes.get(note)
        if tail is None:
            tail = self._notes[note] = dm_body((KET, BRA, self.rep.encode_table[note], KET))
        frame = dm_frame(self._thx_head + coded.body + tail)
        if note == MBV:
            coded.mbv = frame
        return frame

    def ords(self, phase: Phase, results: Sequence[OrderResult]) -> tuple[bytes, list[str]]:
        """The ORDs of a processed phase (docs/protocol.md §8.4): their frames one
        after the other, and the text of each - what `encode` gives for the
        messages of `engine.convert.ord_messages`, put together from the kept
        parts without making the messages."""
        head, head_text = self._kept.turn_head("ORD", phase)
        parts: list[bytes] = []       # header, head, order, tail of each frame: joined once
        texts: list[str] = []
        for result in results:
            tails = self._results[1 if result.dislodged else 0]
            tail = tails.get(result.outcome)
            if tail is None:
                tail = tails[result.outcome] = self._result_tail(result)
            coded = self._coded(result.order)
            parts.append(dm_header(len(head) + len(coded.body) + len(tail[0])))
            parts.append(head)
            parts.append(coded.body)
            parts.append(tail[0])
            texts.append(f"{head_text} {coded.text} {tail[1]}")
        return b"".join(parts), texts

    def _result_tail(self, result: OrderResult) -> tuple[bytes, str]:
        """``) ( result )`` (docs/protocol.md §9.4), as `engine.convert` words it."""
        node = DaideOrderResult(result.outcome, result.dislodged).to_node()
        tokens = (KET, BRA, *from_tree(node, self.rep), KET)
        return dm_body(tokens), render_text(tokens, self.rep)


class _Kept:
    """What the encoders (`OrderCodes`, `PositionCodes`) of one representation
    share: the orders, the parts new orders are put together from, the
    units of NOWs, the groups of SCOs and the heads of turns - a new game
    meets most of them again (the same units stand in the same places, the
    games go through the same turns).  Found by the representation's identity (`_kept`):
    `Representation.__hash__` hashes all its entries."""

    __slots__ = ("rep", "orders", "units", "places", "words", "heads", "now_units", "now_seen",
                 "sco_groups")

    def __init__(self, rep: Representation) -> None:
        self.rep = rep                  # held: its id stays its own while kept
        self.orders: dict[int, Coded] = {}
        self.units: dict[int, tuple[Unit, Part]] = {}
        self.places: dict[int, tuple[Location, Part]] = {}
        self.words: dict[str, Part] = {}
        #: (command, season, year) -> the head of that turn's NOW / ORDs
        self.heads: dict[tuple[str, str, int], tuple[bytes, str]] = {}
        #: "( unit )" by (power, kind, province, coast), and by the id of a
        #: unit object met (with the object) - `PositionCodes._unit`
        self.now_units: dict[tuple[str, str, str, str | None], tuple[bytes, str]] = {}
        self.now_seen: dict[int, tuple[Unit, tuple[bytes, str]]] = {}
        #: "( owner centre ... )" of SCOs by owner and centres - `PositionCodes.sco`
        self.sco_groups: dict[tuple[str | tuple[str, ...], tuple[str, ...]], tuple[bytes, str]] = {}

    def turn_head(self, command: str, phase: Phase) -> tuple[bytes, str]:
        """The body and text of ``NOW ( season year )`` or ``ORD ( season year ) (``,
        the start of a phase's NOW and of each of its ORDs."""
        key = (command, phase.season, phase.year)
        head = self.heads.get(key)
        if head is None:
            rep = self.rep
            tokens = (rep.encode_table[command], BRA, *from_tree((phase.season, phase.year), rep),
                      KET)
            if command == "ORD":
                tokens = (*tokens, BRA)
            if len(self.heads) >= _KEPT_HEADS:
                self.heads.clear()
            head = self.heads[key] = (dm_body(tokens), render_text(tokens, rep))
        return head


_SHARED: Final[dict[int, _Kept]] = {}


def _kept(rep: Representation) -> _Kept:
    """The tables of ``rep`` that every game under it shares (keyed by
    identity: a server's games share one representation object)."""
    found = _SHARED.get(id(rep))
    if found is None or found.rep is not rep:
        if len(_SHARED) >= 64:
            _SHARED.clear()
        found = _SHARED[id(rep)] = _Kept(rep)
    return found


class PositionCodes:
    """NOW and SCO messages (docs/protocol.md §8.2) put together from kept
    parts: a game's units stand in few places, and the NOW after every phase
    lists them all.  The same frame and text as `encode` gives for
    `engine.convert.now_message` and `Engine.sco_message`
    (tests/test_server_wire.py), without making the NOW; a dislodged unit
    (its MRT list) is encoded each time.

    The units' parts are shared by every game of the representation: they
    depend on nothing else, a new game meets most of them again, and there
    are at most a few per power and location.
    """

    def __init__(self, rep: Representation) -> None:
        self.rep = rep
        sco = (rep.encode_table["SCO"],)
        self._sco = (dm_body(sco), render_text(sco, rep))
        self._kept = kept = _kept(rep)
        self._units = kept.now_units
        self._seen = kept.now_seen
        self._groups = kept.sco_groups

    def now(self, state: GameState) -> Encoded:
        """The NOW of ``state``: its packet and text (`encode`)."""
        rep = self.rep
        phase = state.phase
        head = self._kept.turn_head("NOW", phase)
        bodies = [head[0]]
        texts = [head[1]]
        if not state.dislodged and _by_province(state.units):
            for unit in state.units:
                known = self._unit(unit)
                bodies.append(known[0])
                texts.append(known[1])
        else:
            # A retreat phase: each dislodged unit after the one that took its province.
            for position in now_message(state).units:
                if position.retreats is None:
                    known = self._unit(position.unit)
                else:
                    tokens = from_tree((position.to_node(),), rep)
                    known = (dm_body(tokens), render_text(tokens, rep))
                bodies.append(known[0])
                texts.append(known[1])
        frame = dm_frame(b"".join(bodies))
        return Encoded(Packet("NOW", frame, rep, f"{phase.season} {phase.year}"), " ".join(texts))

    def _unit(self, unit: Unit) -> tuple[bytes, str]:
        """``( unit )``; found by the unit object first (the adjudicator gives
        a map's units as shared objects: `adjudicator.tables`), else by its
        fields (a tuple of strings hashes far faster than the unit, whose
        ``__hash__`` hashes its location's)."""
        seen = self._seen.get(id(unit))
        if seen is not None and seen[0] is unit:
            return seen[1]
        location = unit.location
        key = (unit.power, unit.kind, location.province, location.coast)
        known = self._units.get(key)
        if known is None:
            tokens = from_tree((unit_node(unit),), self.rep)
            known = self._units[key] = (dm_body(tokens), render_text(tokens, self.rep))
        if len(self._seen) >= _SEEN_UNITS:
            self._seen.clear()      # units made outside the tables (builds) add up
        self._seen[id(unit)] = (unit, known)     # holds the unit: its id stays its own
        return known

    def sco(self, message: Sco) -> Encoded:
        """An SCO's packet and text (`encode`): ``SCO`` and each ``( owner
        centre ... )`` group, kept - at a year's end most powers' groups are
        those of the year before, and the games of the representation share
        them."""
        groups = self._groups
        bodies = [self._sco[0]]
        texts = [self._sco[1]]
        for group in message.ownership:
            key = (group.owner, group.centres)
            known = groups.get(key)
            if known is None:
                if len(groups) >= _KEPT_GROUPS:
                    groups.clear()
                known = groups[key] = self._group(group.owner, group.centres)
            bodies.append(known[0])
            texts.append(known[1])
        return Encoded(Packet("SCO", dm_frame(b"".join(bodies)), self.rep), " ".join(texts))

    def _group(self, owner: str | tuple[str, ...], centres: tuple[str, ...]) -> tuple[bytes, str]:
        """The body and text of ``( owner centre ... )``.  A power (or UNO) and
        provinces are each one named token, whose text is its name: the
        tokens `from_tree` writes for the group's node, and the text
        `render_text` writes for them, straight from the names."""
        table = self.rep.encode_table
        if isinstance(owner, str):
            names = (owner, *centres)
            tokens = [table.get(name, -1) for name in names]
            if -1 not in tokens:
                return dm_body((BRA, *tokens, KET)), "( " + " ".join(names) + " )"
        node = CentreGroup(owner, centres).to_node()       # shared home centres, or no such name
        found = from_tree((node,), self.rep)
        return dm_body(found), render_text(found, self.rep)


#: unit objects remembered by id at most (then forgotten, and met again)
_SEEN_UNITS: Final = 4096
#: SCO groups kept at most per representation (a few per power and year of a game)
_KEPT_GROUPS: Final = 1 << 14
#: heads of turns kept at most per representation
_KEPT_HEADS: Final = 4096


def _by_province(units: tuple[Unit, ...]) -> bool:
    """Whether ``units`` are in NOW's order (`adjudicator.values.GameState` keeps them so)."""
    for k in range(len(units) - 1):
        if units[k].location.province > units[k + 1].location.province:
            return False
    return True
