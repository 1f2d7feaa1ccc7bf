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
from collections.abc import Callable, Sequence

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
    parse_note,
    parse_order,
    parse_result,
    parse_turn,
    parse_unit_position,
)
from protocol.press import PressBody, PressFault, try_parse_press
from protocol.press_tokens import FREE_TEXT_LEVEL
from protocol.text import parse_text, plain_tree
from protocol.tokens import (
    BRA,
    KET,
    STANDARD,
    Representation,
)
from protocol.tree import Node, to_tree
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
) -> Message:
    """Parse one DM body's tokens, as sent by ``sender``: the grammar, the one
    reader of messages.

    ``level`` is the game's press level, applied to client messages (None =
    no level restrictions).  Raises :class:`BracketError` or
    :class:`GrammarError`; use :func:`error_reply` for the answer.
    (:class:`protocol.reader.MessageReader` puts a cache in front of it.)
    """
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

    The common text - brackets, upper-case mnemonics, plain numbers - is
    turned straight into a tree (:func:`protocol.text.plain_tree`) for the
    grammar; anything else, and text the grammar rejects, takes the token
    path, which reports faults with their token positions.
    """
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
    def with_turn() -> Message:
        turn = parse_turn(p, seq, 1, loc)
        return Sub(tuple(parse_order(p, seq, k, loc) for k in _at_least_one(p, seq, 2, loc)), turn)

    def without_turn() -> Message:
        return Sub(tuple(parse_order(p, seq, k, loc) for k in _at_least_one(p, seq, 1, loc)))

    return p.first(with_turn, without_turn)


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


def parse_sco_group(p: Parser, seq: Seq, i: int, loc: Loc) -> CentreGroup:
    """Element ``i``: ``( owner centre ... )`` of an SCO, the owner a power or UNO."""
    g = p.group(seq, i, loc, "power centre ...")
    owner = p.power_or_uno(g, 0, loc + (i,))
    # A power without centres: omitted (Parlance) or an empty group (MILA).
    return CentreGroup(owner, p.many(g, 1, loc + (i,), p.province, 0))


def _sco(p: Parser, seq: Seq, loc: Loc) -> Message:
    return Sco(p.many(seq, 1, loc, lambda s, k, lc: parse_sco_group(p, s, k, lc)))


def _now(p: Parser, seq: Seq, loc: Loc) -> Message:
    turn = parse_turn(p, seq, 1, loc)
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
    "parse_message",
    "parse_message_text",
    "parse_sco_group",
]
