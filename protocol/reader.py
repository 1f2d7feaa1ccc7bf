"""A reader of messages under one representation: the grammar, with a cache in front.

:func:`protocol.parse.parse_message` - the grammar - is the one reader of
messages.  A :class:`MessageReader` asks it for every message but the three
read every phase, whose parts come again and again: a client's SUB (a unit
holds, or moves the same way, phase after phase, in this game and the next),
and the server's NOW and SCO (a unit stands where it stood, a power keeps
its centres).  A server reads a SUB from every player every phase, a bot a
NOW and an SCO, ``daide adjudicate`` all three in every block.

The grammar reads those three group by group (docs/protocol.md §8.2, 8.3,
9.1): ``SUB ( turn )? ( order ) ...`` with
:func:`~protocol.orders.parse_turn` and :func:`~protocol.orders.parse_order`,
``NOW ( turn ) ( unit ) ...`` with ``parse_turn`` and
:func:`~protocol.orders.parse_unit_position`, ``SCO ( owner centre ... ) ...``
with :func:`~protocol.parse.parse_sco_group`.  What such a rule answers for a
group depends on the group's tokens and the representation only - not on
the groups around it, nor on the press level, which these messages never
ask.  So the reader cuts the message into its bracketed groups (its tokens,
or its text: the text of a group spells its tokens whatever surrounds it)
and keeps, for each group it met, what the grammar's rule answered for
exactly that group: a group met again is that answer, a new one is read by
the rule and kept.  A message whose groups all read is what the grammar's
rule for the message makes of them: a SUB its orders, after the turn if the
first group is one (no group is both); a NOW its turn and units; an SCO its
groups.  Anything else - a token or word outside a group, unbalanced
brackets, a string, a group the rules refuse, no order, no group - goes to
the grammar whole, which gives the message or the error.

The tables keep nothing else, so the reader cannot answer what the grammar
would not.  A reader belongs to one representation (a group's meaning
depends on it); each table holds at most ``limit`` groups and is emptied
when full.  Whoever reads owns a reader - ``daide adjudicate`` its
setting's (`engine.phase_text.Setting`) - or takes the process's for the
representation (`process_reader`), as a `protocol.connection.Connection`
does, so that a server's connections share what they read.
tests/test_protocol_reader.py holds the reader's answers to the grammar's
on seeded messages and mutations of them, as tokens and as text, with its
tables empty, warm and overflowing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, TypeAlias, TypeVar

from orders import Order
from protocol.errors import ProtocolError
from protocol.grammar import Fail, Loc, Parser
from protocol.mapdef import CentreGroup
from protocol.messages import Message, Now, Sco, Sub
from protocol.orders import Turn, UnitPosition, parse_order, parse_turn, parse_unit_position
from protocol.parse import Sender, parse_message, parse_message_text, parse_sco_group
from protocol.text import parse_text, plain_tree
from protocol.tokens import BRA, KET, STANDARD, Representation
from protocol.tree import Tree, to_tree

#: Groups each table of a reader keeps at most (a few hundred bytes each).
KEPT_GROUPS: Final = 1 << 15

Key: TypeAlias = "str | tuple[int, ...]"
"""A group as met: its tokens, or its text (a text never equals a tuple)."""
T = TypeVar("T")

# The characters the text form cares about here (docs/protocol.md §6.8).
_OPEN: Final = 0x28  # (
_SPACE: Final = 0x20
_TAB: Final = 0x09  # tab, LF, VT, FF, CR: 0x09-0x0D
_CR: Final = 0x0D


class MessageReader:
    """:func:`~protocol.parse.parse_message` under ``rep``, with the groups of
    the SUBs, NOWs and SCOs it read kept (see the module docstring)."""

    __slots__ = ("rep", "limit", "_sub", "_now", "_sco", "_orders", "_turns", "_units",
                 "_centres")

    def __init__(self, rep: Representation = STANDARD, limit: int = KEPT_GROUPS) -> None:
        self.rep = rep
        self.limit = limit
        values = rep.encode_table
        self._sub = values.get("SUB", -1)
        self._now = values.get("NOW", -1)
        self._sco = values.get("SCO", -1)
        # a group -> what the grammar's rule read from it
        self._orders: dict[Key, Order] = {}
        self._turns: dict[Key, Turn] = {}
        self._units: dict[Key, UnitPosition] = {}
        self._centres: dict[Key, CentreGroup] = {}

    def read(self, tokens: Sequence[int], *, sender: Sender, level: int | None = None) -> Message:
        """``parse_message(tokens, rep, sender=sender, level=level)``: the same
        message, or the same error raised."""
        tokens = tuple(tokens)
        if len(tokens) > 1:
            head = tokens[0]
            found: Message | None = None
            if sender is Sender.CLIENT:
                if head == self._sub:
                    found = self._sub_of(_token_groups(tokens))
            elif head == self._now:
                found = self._now_of(_token_groups(tokens))
            elif head == self._sco:
                found = self._sco_of(_token_groups(tokens))
            if found is not None:
                return found
        return parse_message(tokens, self.rep, sender=sender, level=level)

    def read_text(self, text: str, *, sender: Sender, level: int | None = None) -> Message:
        """``parse_message_text(text, rep, sender=sender, level=level)``: the same
        message, or the same error raised."""
        if len(text) > 4 and (_is_separator(ord(text[3])) or ord(text[3]) == _OPEN) \
                and "'" not in text:  # a bracket in a string is no bracket: the grammar's
            head = text[:3]
            found: Message | None = None
            if sender is Sender.CLIENT:
                if head == "SUB":
                    found = self._sub_of(_text_groups(text))
            elif head == "NOW":
                found = self._now_of(_text_groups(text))
            elif head == "SCO":
                found = self._sco_of(_text_groups(text))
            if found is not None:
                return found
        return parse_message_text(text, self.rep, sender=sender, level=level)

    # --- a message of its groups, as the grammar's rule for it puts them together ---

    def _sub_of(self, groups: list[Key] | None) -> Sub | None:
        """``SUB ( turn )? ( order ) ...`` (`protocol.parse._sub`)."""
        if groups is None:
            return None
        turn: Turn | None = None
        orders: list[Order] = []
        for k, group in enumerate(groups):
            order = self._orders.get(group)
            if order is None:
                if k == 0 and _flat(group):
                    turn = self._reading(self._turns, parse_turn, group)
                    if turn is not None:
                        continue
                order = self._reading(self._orders, parse_order, group)
                if order is None:
                    return None
            orders.append(order)
        return Sub(tuple(orders), turn) if orders else None

    def _now_of(self, groups: list[Key] | None) -> Now | None:
        """``NOW ( turn ) ( unit ) ...`` (`protocol.parse._now`)."""
        if not groups:
            return None
        turn = self._reading(self._turns, parse_turn, groups[0])
        if turn is None:
            return None
        units: list[UnitPosition] = []
        for k in range(1, len(groups)):
            unit = self._reading(self._units, parse_unit_position, groups[k])
            if unit is None:
                return None
            units.append(unit)
        return Now(turn, tuple(units))

    def _sco_of(self, groups: list[Key] | None) -> Sco | None:
        """``SCO ( owner centre ... ) ...``, at least one group (`protocol.parse._sco`)."""
        if not groups:
            return None
        owned: list[CentreGroup] = []
        for group in groups:
            centres = self._reading(self._centres, parse_sco_group, group)
            if centres is None:
                return None
            owned.append(centres)
        return Sco(tuple(owned))

    def _reading(self, table: dict[Key, T], rule: Callable[[Parser, Tree, int, Loc], T],
                 group: Key) -> T | None:
        """What ``rule`` reads from ``group``: kept in ``table``, or read now and
        kept; None where the rule fails (the whole message's reading says why)."""
        found = table.get(group)
        if found is None:
            found = _read_group(rule, group, self.rep)
            if found is not None:
                if len(table) >= self.limit:
                    table.clear()
                table[group] = found
        return found


#: One reader per representation (by value) for the whole process: every
#: connection of a server speaks its games' representation, and reads with
#: what the others read (`process_reader`).
_PROCESS_READERS: Final[dict[Representation, MessageReader]] = {}
#: Representations `_PROCESS_READERS` keeps at most (a server speaks one or two).
_PROCESS_REPRESENTATIONS: Final = 16


def process_reader(rep: Representation) -> MessageReader:
    """The process's reader for ``rep`` (found by its value: its hash covers
    every entry, so callers keep what this returns)."""
    reader = _PROCESS_READERS.get(rep)
    if reader is None:
        if len(_PROCESS_READERS) >= _PROCESS_REPRESENTATIONS:
            _PROCESS_READERS.clear()
        reader = _PROCESS_READERS[rep] = MessageReader(rep)
    return reader


def _read_group(rule: Callable[[Parser, Tree, int, Loc], T], group: Key,
                rep: Representation) -> T | None:
    """What the grammar's ``rule`` reads from ``group`` - one bracketed group, its
    tokens or its text - or None where it fails."""
    tree = None if isinstance(group, tuple) else plain_tree(group, rep)
    if tree is None:
        try:
            tree = to_tree(group if isinstance(group, tuple) else parse_text(group, rep), rep)
        except ProtocolError:
            return None
    if len(tree) != 1:  # raw bracket tokens in the text: ( 0x4001 0x4000 ) is two groups
        return None
    try:
        return rule(Parser(rep), tree, 0, ())
    except Fail:
        return None


def _token_groups(tokens: tuple[int, ...]) -> list[Key] | None:
    """The bracketed groups after ``tokens[0]``, or None unless the rest is
    groups alone, each balanced."""
    n = len(tokens)
    groups: list[Key] = []
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
        groups.append(tokens[i:j])
        i = j
    return groups


def _text_groups(text: str) -> list[Key] | None:
    """The bracketed groups after the three letters of the command word, or
    None unless the rest is groups and the separators of the text form alone,
    the brackets balanced (the text holds no string: its brackets are all
    brackets)."""
    n = len(text)
    groups: list[Key] = []
    i = 3
    while True:
        start = text.find("(", i)
        gap_end = n if start < 0 else start
        if gap_end > i and not _separators(text, i, gap_end):
            return None
        if start < 0:
            return groups
        depth = 1
        j = start + 1
        while depth:  # from one closing bracket to the next
            close = text.find(")", j)
            if close < 0:
                return None
            depth += text.count("(", j, close) - 1
            j = close + 1
        groups.append(text[start:j])
        i = j


def _separators(text: str, i: int, j: int) -> bool:
    """Whether ``text[i:j]`` is separators of the text form only."""
    for k in range(i, j):
        if not _is_separator(ord(text[k])):
            return False
    return True


def _flat(group: Key) -> bool:
    """Whether a group could be ``( season year )``: four tokens, or a text
    with no group inside."""
    return len(group) == 4 if isinstance(group, tuple) else group.find("(", 1) < 0


def _is_separator(c: int) -> bool:
    """Space, tab, LF, VT, FF, CR: what separates words in the text form."""
    return c == _SPACE or _TAB <= c <= _CR


__all__ = ["KEPT_GROUPS", "MessageReader", "process_reader"]
