"""Typed DAIDE press (levels 10-130 and 8000): parse, render, level checks, TRY trimming.

The public face of the press modules (docs/protocol.md §16):

* the typed values - :mod:`protocol.press_model` (re-exported here):
  :class:`Arrangement`, :class:`PressMessage`, :class:`Reply` and one frozen
  dataclass per construct of the table in docs/protocol.md §16.3;
* :func:`parse_press` / :func:`render_press` - a press message or reply
  from / to its :mod:`protocol.tree` nodes (the contents of the last group
  of ``SND``/``FRM``);
* :class:`SendPress` (``SND [(turn)] (powers) (message)``) and
  :class:`ReceivedPress` (``FRM (power) (powers) (message)``) with
  :func:`parse_send` / :func:`parse_received`, whose errors are positioned in
  the whole message, ready for ``HUH (SND ... ERR ...)``;
* :func:`check_level` / :func:`legal_at` / :func:`minimum_level` - "is this
  message legal at level N", with the first offending token's position;
* :func:`try_parse_press` - the hook for a caller that parses SND/FRM
  itself (:mod:`protocol.parse`): the fault carries a tree location;
* :func:`trim_try` - the server's TRY trimming before delivery (16.1), and
  :func:`powers_named` for its OUT check;
* the press-token table and the switchable numbering of the disputed tokens
  live in :mod:`protocol.press_tokens`.

Example (the docs/protocol.md §14.2 level-40 case)::

    >>> from protocol.text import tree_from_text
    >>> snd = tree_from_text(
    ...     "SND ( ENG ) ( PRP ( ORR ( NOT ( DRW ) ) ( AND ( PCE ( ENG FRA ) ) ( DRW ) ) ) )")
    >>> try:
    ...     parse_send(snd, level=40)
    ... except GrammarError as e:
    ...     print(e.position)  # ERR goes before the AND
    15

A parse never returns a value that the level forbids: a construct above the
level raises :class:`~protocol.errors.GrammarError` whose ``position`` is
the token before which ERR goes (docs/protocol.md §14.2 rules 1 and 2).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from protocol.errors import GrammarError
from protocol.press_cursor import Abort, PressFault, sequence
from protocol.press_model import (
    Accept,
    Alliance,
    Allotment,
    And,
    Arrangement,
    Cancel,
    CentreDistribution,
    Choose,
    Conditional,
    ConditionalReply,
    Dmz,
    DontKnow,
    DoOrder,
    Draw,
    Explain,
    Explicable,
    Fact,
    FactQuery,
    For,
    Forwarded,
    ForwardReceived,
    ForwardSent,
    FreeText,
    GiveControl,
    HowToAttack,
    Insist,
    NoArrangement,
    NoneOfYourBusiness,
    Not,
    NotUnderstood,
    Occupy,
    Orr,
    OwesFavour,
    Peace,
    PositionOnBoard,
    PressBody,
    PressMessage,
    PressValue,
    Propose,
    Query,
    Reject,
    Reply,
    SendRequest,
    Solo,
    Sorry,
    Suggest,
    Think,
    ThinkQuery,
    Try,
    Turn,
    Unknowable,
    WhatShould,
    Why,
)
from protocol.press_parse import Mode, PressParser, parse_message_nodes
from protocol.press_tokens import FREE_TEXT_LEVEL, PRESS_LEVELS, TOKEN_LEVELS, trim_try_tokens
from protocol.tokens import CAT_PHASE, CAT_POWER, STANDARD, Representation
from protocol.tree import Text, Tree, from_tree

#: The level of SND/FRM themselves (docs/protocol.md §7.2, 16.1).
PRESS_MIN_LEVEL = TOKEN_LEVELS["PRP"]


# --- SND and FRM ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SendPress:
    """``SND [(turn)] (power power ...) (message)`` - client -> server (docs/protocol.md §16.1)."""

    recipients: tuple[str, ...]
    message: PressBody
    turn: Turn | None = None

    def nodes(self) -> Tree:
        head: Tree = ("SND",) if self.turn is None else ("SND", self.turn.to_node())
        return (*head, tuple(self.recipients), self.message.nodes())

    def delivery(self, sender: str, level: int) -> ReceivedPress:
        """The FRM each recipient gets: same recipients and message, no turn,
        every TRY list trimmed to ``level`` (docs/protocol.md §16.1)."""
        return ReceivedPress(sender, self.recipients, trim_try(self.message, level))


@dataclass(frozen=True, slots=True)
class ReceivedPress:
    """``FRM (power) (power power ...) (message)`` - server -> recipients (docs/protocol.md §16.1)."""

    sender: str
    recipients: tuple[str, ...]
    message: PressBody

    def nodes(self) -> Tree:
        return ("FRM", (self.sender,), tuple(self.recipients), self.message.nodes())


# --- parsing and rendering ---------------------------------------------------------


def _grammar_error(tree: Tree, rep: Representation, fault: PressFault) -> GrammarError:
    return GrammarError(from_tree(tree, rep), fault.position, fault.reason)


def try_parse_press(
    nodes: Tree, level: int = FREE_TEXT_LEVEL, rep: Representation = STANDARD
) -> PressBody | PressFault:
    """The press message in ``nodes``, or the :class:`PressFault` that stops it.

    The hook for a caller that parses the enclosing SND/FRM itself (e.g.
    :mod:`protocol.parse`): ``fault.loc`` is relative to ``nodes``, so
    prefixing the location of the press group gives the location of ERR in
    the whole message; ``fault.position`` is the token offset within
    ``nodes``.
    """
    try:
        return parse_message_nodes(nodes, level, rep)
    except Abort as abort:
        return abort.fault


def parse_press(
    tree: Tree, level: int = FREE_TEXT_LEVEL, rep: Representation = STANDARD
) -> PressBody:
    """A press message or reply from its nodes, checked at press ``level``.

    ``tree`` is the contents of the message's group, e.g.
    ``("PRP", ("PCE", ("ENG", "FRA")))``.  ``rep`` tells powers from
    provinces (variant maps).  Raises :class:`~protocol.errors.GrammarError`
    (``position`` relative to ``tree``'s tokens) if the nodes are not a
    press message or use a construct above ``level``.
    """
    try:
        return parse_message_nodes(tree, level, rep)
    except Abort as abort:
        raise _grammar_error(tree, rep, abort.fault) from None


def render_press(value: PressValue) -> Tree:
    """The tree nodes of a press message, reply or arrangement (no outer brackets)."""
    return value.nodes()


def _send(tree: Tree, level: int, rep: Representation) -> SendPress:
    parser = PressParser(level, rep)
    seq = sequence(tree)
    at = seq.keyword("SND")
    parser.need(PRESS_MIN_LEVEL, at, "SND")
    turn: Turn | None = None
    first = seq.peek()
    if isinstance(first, tuple) and first and isinstance(first[0], str):
        if rep.values.get(first[0], -1) >> 8 == CAT_PHASE:
            turn = parser.turn(seq.group("turn"))
    recipients = parser.powers(seq)
    message = parser.message_group(seq, Mode.ANY)
    seq.finish()
    return SendPress(recipients, message, turn)


def _received(tree: Tree, level: int, rep: Representation) -> ReceivedPress:
    parser = PressParser(level, rep)
    seq = sequence(tree)
    at = seq.keyword("FRM")
    parser.need(PRESS_MIN_LEVEL, at, "FRM")
    sender = parser.power_group(seq)
    recipients = parser.powers(seq)
    message = parser.message_group(seq, Mode.ANY)
    seq.finish()
    return ReceivedPress(sender, recipients, message)


def parse_send(
    tree: Tree, level: int = FREE_TEXT_LEVEL, rep: Representation = STANDARD
) -> SendPress:
    """A whole ``SND`` message, checked at the game's press ``level``.

    Raises :class:`~protocol.errors.GrammarError` with ``position`` in the
    whole message: the server answers ``HUH`` with ERR inserted there.  At
    level 0 SND itself is above the level (ERR before SND, docs/protocol.md §16.6).
    Turn, recipients and sender are *not* checked against the game here
    (those are REJ/CCD/OUT answers, not HUH).
    """
    try:
        return _send(tree, level, rep)
    except Abort as abort:
        raise _grammar_error(tree, rep, abort.fault) from None


def parse_received(
    tree: Tree, level: int = FREE_TEXT_LEVEL, rep: Representation = STANDARD
) -> ReceivedPress:
    """A whole ``FRM`` message (what a client receives), checked at ``level``.

    A bot that cannot handle what it got answers ``SND (sender) (HUH (...))``
    with ERR inside the quoted message (docs/protocol.md §16.5); the message group
    starts after ``FRM (sender) (recipients)``.
    """
    try:
        return _received(tree, level, rep)
    except Abort as abort:
        raise _grammar_error(tree, rep, abort.fault) from None


# --- levels ------------------------------------------------------------------------


def check_level(
    value: PressBody | SendPress | ReceivedPress, level: int, rep: Representation = STANDARD
) -> PressFault | None:
    """None if ``value`` is legal at press ``level``, else the first fault.

    The check renders the value and parses it at ``level``, so it is exactly
    what the server would answer to that message: the position is where ERR
    goes in the rendered tokens.  A value that is ill-formed at every level
    (an AND with one part, an empty power list) is reported the same way.
    """
    tree = value.nodes()
    try:
        if isinstance(value, SendPress):
            _send(tree, level, rep)
        elif isinstance(value, ReceivedPress):
            _received(tree, level, rep)
        else:
            parse_message_nodes(tree, level, rep)
    except Abort as abort:
        return abort.fault
    return None


def legal_at(
    value: PressBody | SendPress | ReceivedPress, level: int, rep: Representation = STANDARD
) -> bool:
    """Whether ``value`` is a legal press message at press ``level``."""
    return check_level(value, level, rep) is None


def minimum_level(
    value: PressBody | SendPress | ReceivedPress, rep: Representation = STANDARD
) -> int | None:
    """The lowest official press level (docs/protocol.md §16.3) at which ``value`` is legal.

    None when it is legal at no level (ill-formed).  Levels are cumulative,
    so the value is legal at every level from this one up.
    """
    for level in PRESS_LEVELS:
        if legal_at(value, level, rep):
            return level
    return None


# --- powers named --------------------------------------------------------------------


def powers_named(
    value: PressValue | SendPress | ReceivedPress, rep: Representation = STANDARD
) -> frozenset[str]:
    """Every power token anywhere in ``value`` (recipients, arrangements, units ...).

    For the relay's OUT answer: per Parlance, a SND naming an eliminated
    power anywhere inside the press is answered ``OUT (power)`` like one
    addressed to it (docs/protocol.md §16.1); eliminated powers "must not be
    included" in PCE/ALY/DRW/... (16.2).  A HUH's quoted content counts too.
    """
    found: set[str] = set()
    categories = rep.categories

    def walk(nodes: Tree) -> None:
        for node in nodes:
            if isinstance(node, tuple):
                walk(node)
            elif isinstance(node, str) and not isinstance(node, Text):
                if categories.get(node) == CAT_POWER:
                    found.add(node)

    walk(value.nodes())
    return frozenset(found)


# --- TRY trimming ------------------------------------------------------------------

_V = TypeVar("_V")


def trim_try(value: _V, level: int) -> _V:
    """``value`` with every TRY list reduced to the words legal at ``level``.

    docs/protocol.md §16.1: the server removes from a TRY list every token above
    the game's level before delivering it.  TRY lists nested anywhere (in a
    CCL, an FRM report, an SND request, an IFF branch ...) are trimmed too;
    a HUH's quoted content and an XDO order are left as they are.  Works on
    messages, arrangements, :class:`SendPress` and :class:`ReceivedPress`;
    parts without a TRY are returned unchanged (the same objects).
    """
    return cast(_V, _trim(value, level))


def _trim(value: object, level: int) -> object:
    if isinstance(value, Try):
        words = trim_try_tokens(value.words, level)
        return value if words == value.words else Try(words)
    if isinstance(value, tuple):
        items = tuple(_trim(v, level) for v in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, PressValue | SendPress | ReceivedPress) and not isinstance(
        value, NotUnderstood | DoOrder
    ):
        record: Any = value  # every PressValue subclass is a dataclass
        changes: dict[str, object] = {}
        for f in dataclasses.fields(record):
            old = getattr(value, f.name)
            new = _trim(old, level)
            if new is not old:
                changes[f.name] = new
        if changes:
            return dataclasses.replace(record, **changes)
    return value


__all__ = [
    "PRESS_MIN_LEVEL",
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
    "GrammarError",
    "HowToAttack",
    "Insist",
    "PressFault",
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
    "ReceivedPress",
    "Reject",
    "Reply",
    "SendPress",
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
    "check_level",
    "legal_at",
    "minimum_level",
    "parse_press",
    "parse_received",
    "parse_send",
    "powers_named",
    "render_press",
    "trim_try",
    "try_parse_press",
]
