"""Reading messages: tokens -> typed :mod:`protocol.messages` values.

:func:`parse_message` checks, in this order (docs/protocol.md §14, 16.6):

1. ``PRN (...)`` and ``HUH (...)`` are taken as they are (raw tokens), so a
   malformed message is never answered by a PRN/HUH about a PRN/HUH (14.2,
   "nobody answers a HUH or PRN with HUH or PRN");
2. bracket balance -> :class:`~protocol.errors.BracketError` (answer PRN);
3. unknown token values -> :class:`~protocol.errors.UnknownTokenError`
   (a :class:`~protocol.errors.GrammarError`: answer HUH, 4.5);
4. the grammar of the sender's direction (and, for a client, the game's
   press level) -> :class:`~protocol.errors.GrammarError` with the ERR
   position chosen by the furthest-failure rule of 14.2.

Press (the last group of ``SND``/``FRM``) is read with the press grammar of
:mod:`protocol.press`.  With a ``level`` (the server reading a client of a
game) it must be legal at that level: a construct above it is a
:class:`~protocol.errors.GrammarError` with ERR before its first token
(docs/protocol.md §16.1, 16.6), located inside the whole message.  Without a level
(a client reading the server, tools, tests) press is read leniently: a press
message that follows the grammar at any level gets its typed value
(``Snd.typed`` / ``Frm.typed``), anything else bracketed stays an opaque
tree, as docs/protocol.md §14.2 asks receivers to cope.

Direction matters: ``MAP ('x')`` is a server message, a client sends a bare
``MAP``; ``WHT (YES)`` is no client command at all.  :func:`error_reply`
turns either error into the PRN/HUH to send (or None when none may be sent).

Which *role* a client has (player or observer, docs/protocol.md §7.2) is the
session's business; it answers with ``Huh.at(tokens, 0)`` itself (the
reference server's ``HUH ( ERR DRW )`` to an observer).
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Callable, Sequence
from typing import Final

from orders import Hold, Location, Move, Order, SupportHold, SupportMove, Unit
from protocol.errors import BracketError, GrammarError, ProtocolError
from protocol.grammar import Fail, Loc, Parser, token_index
from protocol.mapdef import CentreGroup, parse_map_definition
from protocol.messages import (
    HUH_TOKEN,
    PRN_TOKEN,
    Adm,
    Ccd,
    Drw,
    Frm,
    Gof,
    Hlo,
    HloRequest,
    Hst,
    Huh,
    Iam,
    Lod,
    MapMessage,
    MapRequest,
    Mdf,
    MdfRequest,
    Message,
    Mis,
    MisRequest,
    Nme,
    NotMessage,
    Now,
    NowRequest,
    Obs,
    Off,
    Ord,
    OrdRequest,
    Out,
    Press,
    Prn,
    Rej,
    Sco,
    ScoRequest,
    Slo,
    Smr,
    SmrEntry,
    SmrRequest,
    Snd,
    Sub,
    Sve,
    Thx,
    Tme,
    Yes,
)
from protocol.orders import (
    Turn,
    UnitPosition,
    location,
    parse_note,
    parse_order,
    parse_result,
    parse_turn,
    parse_unit_position,
    plain_order,
    plain_turn,
    plain_unit,
)
from protocol.plain_messages import read_plain_message
from protocol.press import PressBody, PressFault, try_parse_press
from protocol.press_tokens import FREE_TEXT_LEVEL
from protocol.text import parse_text, plain_tree
from protocol.tokens import (
    BRA,
    CAT_COAST,
    CAT_POWER,
    CAT_PROVINCE_FIRST,
    CAT_PROVINCE_LAST,
    KET,
    STANDARD,
    Representation,
)
from protocol.tree import Node, to_tree, tokens_to_bytes
from protocol.variant import parse_variant

#: Press level at which SND, FRM and partial draws appear (docs/protocol.md §16.3).
PRESS_LEVEL = 10


class Sender(enum.Enum):
    """The two ends of a connection; ``sender`` of a message is one of them."""

    CLIENT = "client"
    SERVER = "server"


Seq = tuple[Node, ...]
_Rule = Callable[[Parser, Seq, Loc], Message]


class MessageParser(Parser):
    """A :class:`~protocol.grammar.Parser` that keeps the representation, which
    the press grammar needs to tell powers from provinces on variant maps."""

    __slots__ = ("rep",)

    def __init__(self, rep: Representation, level: int | None = None) -> None:
        super().__init__(rep, level)
        self.rep = rep


def parse_message(
    tokens: Sequence[int],
    rep: Representation = STANDARD,
    *,
    sender: Sender,
    level: int | None = None,
    body: bytes | None = None,
) -> Message:
    """Parse one DM body's tokens, as sent by ``sender``.

    ``level`` is the game's press level, applied to client messages (None =
    no level restrictions).  ``body`` is the DM body the tokens were read
    from, when the caller has it (`SubReader` looks groups up by their
    bytes; without it they are packed again).  Raises :class:`BracketError`
    or :class:`GrammarError`; use :func:`error_reply` for the answer.
    """
    tokens = tuple(tokens)
    if sender is Sender.CLIENT and len(tokens) > 1:
        found = _read_sub(tokens, rep, body)      # the message a server reads most
        if found is not None:
            return found
    return parse_by_grammar(tokens, rep, sender=sender, level=level)


def parse_by_grammar(
    tokens: Sequence[int],
    rep: Representation = STANDARD,
    *,
    sender: Sender,
    level: int | None = None,
) -> Message:
    """:func:`parse_message` without its short road for SUBs (`SubReader`):
    the tree and the grammar for every message.  The same result and the
    same errors; tests and the fuzz target hold the two roads to that."""
    tokens = tuple(tokens)
    if len(tokens) >= 3 and tokens[1] == BRA and tokens[-1] == KET:
        if tokens[0] == PRN_TOKEN:
            return Prn(tokens[2:-1])
        if tokens[0] == HUH_TOKEN:
            return Huh(tokens[2:-1])
    tree = to_tree(tokens, rep)
    p = MessageParser(rep, level if sender is Sender.CLIENT else None)
    try:
        return _message(p, tree, (), _CLIENT if sender is Sender.CLIENT else _SERVER)
    except Fail:
        raise GrammarError(tokens, token_index(tree, p.far), p.reason) from None


def parse_message_text(
    text: str,
    rep: Representation = STANDARD,
    *,
    sender: Sender,
    level: int | None = None,
) -> Message:
    """:func:`parse_message` of a message in the text form (docs/protocol.md
    §6.8): ``parse_message(parse_text(text, rep), rep, ...)``, same result,
    same errors.

    The common text - brackets, upper-case mnemonics, plain numbers - that
    follows the grammar is read straight into a tree
    (:func:`protocol.text.plain_tree`); anything else takes the token path,
    which reports faults with their token positions.
    """
    found = read_plain_message(text, rep, sender is Sender.CLIENT)
    if found is not None:  # a SUB, NOW or SCO of the plain shapes
        return found
    tree = plain_tree(text, rep)
    if tree and tree[0] != "PRN" and tree[0] != "HUH":  # those are kept as raw tokens
        p = MessageParser(rep, level if sender is Sender.CLIENT else None)
        try:
            return _message(p, tree, (), _CLIENT if sender is Sender.CLIENT else _SERVER)
        except Fail:
            pass
    return parse_message(parse_text(text, rep), rep, sender=sender, level=level)


def error_reply(error: ProtocolError) -> Message | None:
    """The PRN or HUH answering a parse error, or None if nothing may be sent.

    Nothing is sent for a faulty HUH or PRN (docs/protocol.md §14.2) or for errors
    that are not about a received message.
    """
    if isinstance(error, BracketError):
        reply: Message = Prn(error.tokens)
    elif isinstance(error, GrammarError):
        reply = Huh.for_error(error)
    else:
        return None
    if error.tokens and error.tokens[0] in (HUH_TOKEN, PRN_TOKEN):
        return None
    return reply


def _message(p: Parser, seq: Seq, loc: Loc, table: dict[str, _Rule]) -> Message:
    if not seq:
        p.fail(loc + (0,), "empty message")
    head = seq[0]
    rule = table.get(head) if type(head) is str else None
    if rule is None:
        p.fail(loc + (0,), f"{head!r} does not start a message here")
    return rule(p, seq, loc)


def _bare(cls: Callable[[], Message]) -> _Rule:
    def rule(p: Parser, seq: Seq, loc: Loc) -> Message:
        p.end(seq, 1, loc)
        return cls()

    return rule


def _power_group(p: Parser, seq: Seq, i: int, loc: Loc) -> str:
    g = p.group(seq, i, loc, "power")
    power = p.power(g, 0, loc + (i,))
    p.end(g, 1, loc + (i,))
    return power


def _number_group(p: Parser, seq: Seq, i: int, loc: Loc, lo: int = -8192) -> int:
    g = p.group(seq, i, loc, "number")
    n = p.integer(g, 0, loc + (i,), lo)
    p.end(g, 1, loc + (i,))
    return n


def _powers(p: Parser, seq: Seq, i: int, loc: Loc) -> tuple[str, ...]:
    g = p.group(seq, i, loc, "powers")
    return p.many(g, 0, loc + (i,), p.power)


def _press(p: Parser, seq: Seq, i: int, loc: Loc) -> tuple[Press, PressBody | None]:
    """The bracketed press message at ``i``: its tree and its typed reading.

    With a level, press must be legal at it: a fault is a failure at its
    place in the whole message (ERR before the first offending token,
    docs/protocol.md §16.1).  Without one, a press message the grammar does not
    accept stays an opaque tree (typed None); see the module docstring.
    """
    g = p.group(seq, i, loc, "press message")
    if not g:
        p.fail(loc + (i, 0), "empty press message")
    rep = p.rep if isinstance(p, MessageParser) else STANDARD
    found = try_parse_press(g, FREE_TEXT_LEVEL if p.level is None else p.level, rep)
    if isinstance(found, PressFault):
        if p.level is not None:
            p.fail(loc + (i, *found.loc), found.reason)
        return g, None
    return g, found


# --- client -> server -------------------------------------------------------------


def _nme(p: Parser, seq: Seq, loc: Loc) -> Message:
    name = p.string(seq, 1, loc, "name")
    version = p.string(seq, 2, loc, "version")
    p.end(seq, 3, loc)
    return Nme(name, version)


def _obs(p: Parser, seq: Seq, loc: Loc) -> Message:
    """Bare ``OBS``, or Parlance's ``OBS ('name') ('version')`` (docs/protocol.md §8.1)."""
    if len(seq) == 1:
        return Obs()
    name = p.string(seq, 1, loc, "name")
    version = p.string(seq, 2, loc, "version")
    p.end(seq, 3, loc)
    return Obs(name, version)


def _iam(p: Parser, seq: Seq, loc: Loc) -> Message:
    power = _power_group(p, seq, 1, loc)
    passcode = _number_group(p, seq, 2, loc)
    p.end(seq, 3, loc)
    return Iam(power, passcode)


def _hst(p: Parser, seq: Seq, loc: Loc) -> Message:
    if len(seq) == 1:
        return Hst()
    turn = parse_turn(p, seq, 1, loc)
    p.end(seq, 2, loc)
    return Hst(turn)


def _sub(p: Parser, seq: Seq, loc: Loc) -> Message:
    plain = _plain_sub(p, seq)
    if plain is not None:
        return plain

    def with_turn() -> Message:
        turn = parse_turn(p, seq, 1, loc)
        return Sub(tuple(parse_order(p, seq, k, loc) for k in _at_least_one(p, seq, 2, loc)), turn)

    def without_turn() -> Message:
        return Sub(tuple(parse_order(p, seq, k, loc) for k in _at_least_one(p, seq, 1, loc)))

    return p.first(with_turn, without_turn)


def _plain_sub(p: Parser, seq: Seq) -> Sub | None:
    """A SUB of plain orders, with or without a plain turn (the readers of
    :mod:`protocol.orders`), as the two alternatives below read it; None
    for anything else.  ``with_turn`` can only match where
    :func:`~protocol.orders.plain_turn` does: they accept the same turns."""
    cats = p.cats
    turn = plain_turn(seq[1], cats) if len(seq) > 1 else None
    found = []
    for node in seq[1 if turn is None else 2:]:
        order = plain_order(node, cats)
        if order is None:
            return None
        found.append(order)
    return Sub(tuple(found), turn) if found else None


#: Groups (orders, turns) a `SubReader` table keeps at most (~300 bytes each: ~10 MB).
KEPT_GROUPS: Final = 1 << 15


class SubReader:
    """Reads a client's SUB straight from its tokens (docs/protocol.md §8.3, 9.1).

    Every client sends a SUB per phase, most of them of the plain shapes
    :func:`_plain_sub` takes, and bots send the same orders again and again
    (in games of random bots four orders in five were sent before, in this
    game or another).  So the reader cuts the message into its bracketed
    groups by counting brackets, and looks each group up among the groups
    already read - by its bytes in the DM body (hashing and comparing a
    tuple of tokens costs a call per token): a known group is its
    (immutable, shared) order or turn at once.  An unknown group is read as the general road reads it -
    its tree by :func:`~protocol.tree.to_tree`, then
    :func:`~protocol.orders.plain_turn` / :func:`~protocol.orders.plain_order`
    - and kept.  Anything else (a token outside a group, unbalanced
    brackets, an unknown token, a group no plain reader takes) returns None
    and the general road reads the whole message, reporting the error as
    before.  The same messages either way (tests/test_protocol_fast_paths.py).

    One reader per representation (`_sub_reader`): a group's meaning
    depends on it.  Each table keeps at most `KEPT_GROUPS` groups.
    """

    def __init__(self, rep: Representation) -> None:
        self.rep = rep
        self.sub = rep.encode_table.get("SUB", -1)
        self.cats = rep.categories
        self.names = rep.decode_table
        #: the groups read: their bytes -> their order / turn
        self.orders: dict[bytes, Order] = {}
        self.turns: dict[bytes, Turn] = {}

    def read(self, tokens: tuple[int, ...], body: bytes | None = None) -> Sub | None:
        """The SUB ``tokens`` (``tokens[0]`` is SUB), or None: read it the general
        way.  ``body``: the DM body the tokens were read from, if at hand."""
        if body is None:
            try:
                body = tokens_to_bytes(tokens)
            except struct.error:        # a value no DM can hold: the general road says so
                return None
        n = len(tokens)
        found: list[Order] = []
        turn: Turn | None = None
        i = 1
        while i < n:
            if tokens[i] != BRA:
                return None
            depth = 1
            j = i + 1
            while depth:
                if j == n:
                    return None
                t = tokens[j]
                if t == BRA:
                    depth += 1
                elif t == KET:
                    depth -= 1
                j += 1
            key = body[2 * i:2 * j]     # the group's bytes
            if i == 1 and j == 5:       # ( season year ): the only 4-token group
                turn = self._turn(key, tokens[i:j])
                if turn is None:
                    return None
            else:
                order = self.orders.get(key)
                if order is None:
                    order = self._order(key, tokens[i:j])
                    if order is None:
                        return None
                found.append(order)
            i = j
        return Sub(tuple(found), turn) if found else None

    def _node(self, group: tuple[int, ...]) -> Node | None:
        try:
            tree = to_tree(group, self.rep)
        except ProtocolError:
            return None
        return tree[0]

    def _turn(self, key: bytes, group: tuple[int, ...]) -> Turn | None:
        turn = self.turns.get(key)
        if turn is None:
            node = self._node(group)
            turn = None if node is None else plain_turn(node, self.cats)
            if turn is not None:
                if len(self.turns) >= KEPT_GROUPS:
                    self.turns.clear()
                self.turns[key] = turn
        return turn

    def _order(self, key: bytes, group: tuple[int, ...]) -> Order | None:
        order = self._unit_order(group)
        if order is None:
            node = self._node(group)
            order = None if node is None else plain_order(node, self.cats)
        if order is not None:
            if len(self.orders) >= KEPT_GROUPS:
                self.orders.clear()
            self.orders[key] = order
        return order


    # --- a new order of the commonest shapes, without its tree -----------------
    #
    # A unit's HLD, MTO and SUP read from the tokens: the nodes `to_tree`
    # would make, found by position, and handed to the plain readers, which
    # check them as they check the tree's (a token with no name is never a
    # node here: the tree decides).  None: another shape.

    def _unit_order(self, g: tuple[int, ...]) -> Order | None:
        n = len(g)
        unit, i = self._unit_at(g, 1)
        if unit is None or i >= n - 1:
            return None
        kind = self.names.get(g[i])
        if kind == "HLD":
            return Hold(unit) if i + 2 == n else None
        if kind == "MTO":
            dest, j = self._location_at(g, i + 1)
            return Move(unit, dest) if dest is not None and j + 1 == n else None
        if kind == "SUP":
            supported, j = self._unit_at(g, i + 1)
            if supported is None:
                return None
            if j + 1 == n:
                return SupportHold(unit, supported)
            if j + 3 == n and self.names.get(g[j]) == "MTO":
                target = self.names.get(g[j + 1])
                if target is not None and self.cats.get(target, 0) >> 3 == _PROVINCE_HIGH:
                    return SupportMove(unit, supported, target)
        return None

    def _unit_at(self, g: tuple[int, ...], i: int) -> tuple[Unit | None, int]:
        """``( power type province )`` or ``( power type ( province coast ) )`` at
        ``g[i]``, as `plain_unit` reads its node; and the index after it."""
        names = self.names
        if i + 4 >= len(g) or g[i] != BRA:
            return None, i
        power, kind, where = names.get(g[i + 1]), names.get(g[i + 2]), g[i + 3]
        if power is None or kind is None:
            return None, i
        if where == BRA:
            if i + 7 >= len(g) or g[i + 6] != KET or g[i + 7] != KET:
                return None, i
            province, coast = names.get(g[i + 4]), names.get(g[i + 5])
            if province is None or coast is None:
                return None, i
            return plain_unit((power, kind, (province, coast)), self.cats), i + 8
        name = names.get(where)
        if name is None or g[i + 4] != KET:
            return None, i
        return plain_unit((power, kind, name), self.cats), i + 5

    def _location_at(self, g: tuple[int, ...], i: int) -> tuple[Location | None, int]:
        """``province`` or ``( province coast )`` at ``g[i]``, as the plain
        readers read its node; and the index after it."""
        names = self.names
        if i >= len(g):
            return None, i
        if g[i] != BRA:
            name = names.get(g[i])
            if name is None or self.cats.get(name, 0) >> 3 != _PROVINCE_HIGH:
                return None, i
            return location(name), i + 1
        if i + 3 >= len(g) or g[i + 3] != KET:
            return None, i
        province, coast = names.get(g[i + 1]), names.get(g[i + 2])
        if (province is None or coast is None
                or self.cats.get(province, 0) >> 3 != _PROVINCE_HIGH
                or self.cats.get(coast) != CAT_COAST):
            return None, i
        return location(province, coast), i + 4


#: a province's category byte (0x50-0x57) shifted right by three
_PROVINCE_HIGH: Final = CAT_PROVINCE_FIRST >> 3


_READERS: Final[dict[int, SubReader]] = {}


def _read_sub(tokens: tuple[int, ...], rep: Representation, body: bytes | None) -> Sub | None:
    """A client's SUB read by the representation's `SubReader`; None for any
    other message, or a SUB the reader leaves to the general road."""
    reader = _sub_reader(rep)
    return reader.read(tokens, body) if tokens[0] == reader.sub else None


def _sub_reader(rep: Representation) -> SubReader:
    """The representation's `SubReader` (keyed by identity: a server's
    connections share one representation object; the reader holds it, so
    its id is not reused while it is kept)."""
    reader = _READERS.get(id(rep))
    if reader is None or reader.rep is not rep:
        if len(_READERS) >= 64:
            _READERS.clear()
        reader = _READERS[id(rep)] = SubReader(rep)
    return reader


def _at_least_one(p: Parser, seq: Seq, start: int, loc: Loc) -> range:
    if len(seq) <= start:
        p.fail(loc + (len(seq),), "at least one order needed")
    return range(start, len(seq))


def _not_sub(p: Parser, seq: Seq, loc: Loc) -> Message:
    if len(seq) == 1:
        return Sub(())
    order = parse_order(p, seq, 1, loc)
    p.end(seq, 2, loc)
    return Sub((order,))


def _tme_query(p: Parser, seq: Seq, loc: Loc) -> Message:
    if len(seq) == 1:
        return Tme()
    return _tme(p, seq, loc)


def _tme(p: Parser, seq: Seq, loc: Loc) -> Message:
    seconds = _number_group(p, seq, 1, loc)
    p.end(seq, 2, loc)
    return Tme(seconds)


def _drw(p: Parser, seq: Seq, loc: Loc) -> Message:
    if len(seq) == 1 or not p.allows(PRESS_LEVEL):
        p.end(seq, 1, loc)  # partial draws (with powers) need level 10
        return Drw()
    powers = _powers(p, seq, 1, loc)
    p.end(seq, 2, loc)
    return Drw(powers)


def _adm(p: Parser, seq: Seq, loc: Loc) -> Message:
    name = p.string(seq, 1, loc, "name")
    text = p.string(seq, 2, loc, "message")
    p.end(seq, 3, loc)
    return Adm(name, text)


def _snd(p: Parser, seq: Seq, loc: Loc) -> Message:
    if not p.allows(PRESS_LEVEL):
        p.fail(loc + (0,), "SND needs press level 10")

    def with_turn() -> Message:
        turn = parse_turn(p, seq, 1, loc)
        recipients = _powers(p, seq, 2, loc)
        press, typed = _press(p, seq, 3, loc)
        p.end(seq, 4, loc)
        return Snd(recipients, press, turn, typed)

    def without_turn() -> Message:
        recipients = _powers(p, seq, 1, loc)
        press, typed = _press(p, seq, 2, loc)
        p.end(seq, 3, loc)
        return Snd(recipients, press, None, typed)

    return p.first(with_turn, without_turn)


def _wrapped(cls: Callable[[Message], Message], table: dict[str, _Rule]) -> _Rule:
    """``YES (msg)``, ``REJ (msg)``, ``NOT (msg)``: ``msg`` read with ``table``."""

    def rule(p: Parser, seq: Seq, loc: Loc) -> Message:
        inner = p.group(seq, 1, loc, "message")
        message = _message(p, inner, loc + (1,), table)
        p.end(seq, 2, loc)
        return cls(message)

    return rule


# --- server -> client -----------------------------------------------------------


def _map(p: Parser, seq: Seq, loc: Loc) -> Message:
    name = p.string(seq, 1, loc, "map name")
    p.end(seq, 2, loc)
    return MapMessage(name)


def _mdf(p: Parser, seq: Seq, loc: Loc) -> Message:
    return Mdf(parse_map_definition(p, seq, 1, loc))


def _hlo(p: Parser, seq: Seq, loc: Loc) -> Message:
    g = p.group(seq, 1, loc, "power")
    power = p.power_or_uno(g, 0, loc + (1,))
    p.end(g, 1, loc + (1,))
    passcode = _number_group(p, seq, 2, loc)
    variant = parse_variant(p, seq, 3, loc)
    p.end(seq, 4, loc)
    return Hlo(power, passcode, variant)


def _sco_group(p: Parser, seq: Seq, i: int, loc: Loc) -> CentreGroup:
    g = p.group(seq, i, loc, "power centre ...")
    owner = p.power_or_uno(g, 0, loc + (i,))
    # A power without centres: omitted (Parlance) or an empty group (MILA).
    return CentreGroup(owner, p.many(g, 1, loc + (i,), p.province, 0))


def _sco(p: Parser, seq: Seq, loc: Loc) -> Message:
    plain = _plain_sco(p, seq)
    if plain is not None:
        return plain
    return Sco(p.many(seq, 1, loc, lambda s, k, lc: _sco_group(p, s, k, lc)))


def _plain_sco(p: Parser, seq: Seq) -> Sco | None:
    """An SCO that follows the grammar, read in one pass (as :func:`_sco_group`
    reads each group); None for anything else, which the grammar then reports."""
    cats = p.cats
    groups = []
    for group in seq[1:]:
        if type(group) is not tuple or not group:
            return None
        owner = group[0]
        if type(owner) is not str or (owner != "UNO" and cats.get(owner) != CAT_POWER):
            return None
        for centre in group[1:]:
            if type(centre) is not str or not (
                    CAT_PROVINCE_FIRST <= cats.get(centre, 0) <= CAT_PROVINCE_LAST):
                return None
        groups.append(CentreGroup(owner, group[1:]))  # type: ignore[arg-type]  # all str
    return Sco(tuple(groups)) if groups else None


def _now(p: Parser, seq: Seq, loc: Loc) -> Message:
    turn = parse_turn(p, seq, 1, loc)
    cats = p.cats
    plain = []
    for node in seq[2:]:  # units without MRT lists: the common case
        unit = plain_unit(node, cats)
        if unit is None:
            break
        plain.append(UnitPosition(unit))
    else:
        return Now(turn, tuple(plain))
    # An empty unit list is legal (Parlance's "Chaos" start, docs/protocol.md §8.2).
    units = p.many(seq, 2, loc, lambda s, k, lc: parse_unit_position(p, s, k, lc), 0)
    return Now(turn, units)


def _thx(p: Parser, seq: Seq, loc: Loc) -> Message:
    order = parse_order(p, seq, 1, loc)
    note = parse_note(p, seq, 2, loc)
    p.end(seq, 3, loc)
    return Thx(order, note)


def _mis(p: Parser, seq: Seq, loc: Loc) -> Message:
    if len(seq) == 1:
        return Mis()

    def count() -> Message:
        n = _number_group(p, seq, 1, loc)
        p.end(seq, 2, loc)
        return Mis(count=n)

    def units() -> Message:
        return Mis(p.many(seq, 1, loc, lambda s, k, lc: parse_unit_position(p, s, k, lc)))

    return p.first(count, units)


def _ord(p: Parser, seq: Seq, loc: Loc) -> Message:
    turn = parse_turn(p, seq, 1, loc)
    order = parse_order(p, seq, 2, loc)
    result = parse_result(p, seq, 3, loc)
    p.end(seq, 4, loc)
    return Ord(turn, order, result)


def _power_message(cls: Callable[[str], Message]) -> _Rule:
    def rule(p: Parser, seq: Seq, loc: Loc) -> Message:
        power = _power_group(p, seq, 1, loc)
        p.end(seq, 2, loc)
        return cls(power)

    return rule


def _smr_entry(p: Parser, seq: Seq, i: int, loc: Loc) -> SmrEntry:
    g = p.group(seq, i, loc, "summary entry")
    here = loc + (i,)
    power = p.power(g, 0, here)
    name = p.string(g, 1, here, "name")
    version = p.string(g, 2, here, "version")
    centres = p.integer(g, 3, here, 0)
    eliminated = p.integer(g, 4, here, 0) if len(g) > 4 else None
    p.end(g, 5 if eliminated is not None else 4, here)
    return SmrEntry(power, name, version, centres, eliminated)


def _smr(p: Parser, seq: Seq, loc: Loc) -> Message:
    turn = parse_turn(p, seq, 1, loc)
    return Smr(turn, p.many(seq, 2, loc, lambda s, k, lc: _smr_entry(p, s, k, lc)))


def _named(cls: Callable[[str], Message], what: str) -> _Rule:
    def rule(p: Parser, seq: Seq, loc: Loc) -> Message:
        name = p.string(seq, 1, loc, what)
        p.end(seq, 2, loc)
        return cls(name)

    return rule


def _frm(p: Parser, seq: Seq, loc: Loc) -> Message:
    sender = _power_group(p, seq, 1, loc)
    recipients = _powers(p, seq, 2, loc)
    press, typed = _press(p, seq, 3, loc)
    p.end(seq, 4, loc)
    return Frm(sender, recipients, press, typed)


# --- the tables: which message a sender may open with which command -------------

#: Everything a client may send (docs/protocol.md §7.2, 8.12).
_CLIENT: dict[str, _Rule] = {
    "NME": _nme,
    "OBS": _obs,
    "IAM": _iam,
    "MAP": _bare(MapRequest),
    "MDF": _bare(MdfRequest),
    "HLO": _bare(HloRequest),
    "SCO": _bare(ScoRequest),
    "NOW": _bare(NowRequest),
    "HST": _hst,
    "SUB": _sub,
    "MIS": _bare(MisRequest),
    "GOF": _bare(Gof),
    "ORD": _bare(OrdRequest),
    "TME": _tme_query,
    "DRW": _drw,
    "ADM": _adm,
    "SMR": _bare(SmrRequest),
    "SND": _snd,
}
#: NOT forms a client may send (docs/protocol.md §8.13).
_CLIENT_NOT: dict[str, _Rule] = {
    "SUB": _not_sub,
    "GOF": _bare(Gof),
    "DRW": _drw,
    "TME": _tme_query,
}
#: What a client acknowledges: MAP, SVE, LOD only (docs/protocol.md §7.1, 8.13).
_CLIENT_ACK: dict[str, _Rule] = {
    "MAP": _map,
    "SVE": _named(Sve, "game name"),
    "LOD": _named(Lod, "game name"),
}
_CLIENT["NOT"] = _wrapped(NotMessage, _CLIENT_NOT)
_CLIENT["YES"] = _wrapped(Yes, _CLIENT_ACK)
_CLIENT["REJ"] = _wrapped(Rej, _CLIENT_ACK)

#: Everything the server may send.
_SERVER: dict[str, _Rule] = {
    "MAP": _map,
    "MDF": _mdf,
    "HLO": _hlo,
    "SCO": _sco,
    "NOW": _now,
    "THX": _thx,
    "MIS": _mis,
    "ORD": _ord,
    "TME": _tme,
    "DRW": _drw,
    "SLO": _power_message(Slo),
    "SMR": _smr,
    "OFF": _bare(Off),
    "CCD": _power_message(Ccd),
    "OUT": _power_message(Out),
    "ADM": _adm,
    "SVE": _named(Sve, "game name"),
    "LOD": _named(Lod, "game name"),
    "FRM": _frm,
    # The server acknowledges the client's complete message (7.1).
    "YES": _wrapped(Yes, _CLIENT),
    "REJ": _wrapped(Rej, _CLIENT),
    "NOT": _wrapped(NotMessage, {"CCD": _power_message(Ccd), "TME": _tme}),
}


__all__ = [
    "PRESS_LEVEL",
    "Sender",
    "error_reply",
    "parse_by_grammar",
    "parse_message",
    "parse_message_text",
]
