"""A cursor over press message trees that knows where ERR goes.

The press parser (:mod:`protocol.press_parse`) reads a message tree group by
group with a :class:`Seq`.  Every node it takes comes with a :class:`Mark`:
its token offset (where ERR is inserted in the received tokens) and its
tree location in the convention of :mod:`protocol.grammar` (the path of group
indices, then the node's index; the group's length = before its closing
bracket).  A mismatch raises :class:`Abort` carrying a :class:`PressFault`
at the mark chosen by the rules of docs/protocol.md §14.2:

1. a wrong token - before it (:meth:`Seq.take` and friends return its mark);
2. something missing - before the closing bracket of the group that lacks it
   (:meth:`Seq.closing`; at the unbracketed top level, the end);
3. a later semantic check - the caller's business (the end of the message).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from protocol.grammar import Fail, Loc, Parser, node_size, token_index
from protocol.tokens import Representation
from protocol.tree import Node, Text, Tree

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PressFault:
    """Where and why a press message fails the grammar at a level.

    ``position`` is the token offset before which ERR goes, counted from the
    first token of the parsed nodes (plus the ``start`` of :func:`sequence`).
    ``loc`` is the same place as a tree location in the convention of
    :mod:`protocol.grammar`: the path of group indices from the parsed nodes,
    then the index of the node ERR goes before (the group's length = before
    its closing bracket), so a caller holding the enclosing message can
    prefix its own location.
    """

    position: int
    loc: Loc
    reason: str


class Abort(Exception):
    """Raised inside the parser to abandon the parse with a :class:`PressFault`."""

    def __init__(self, fault: PressFault) -> None:
        super().__init__(f"{fault.reason} (token {fault.position})")
        self.fault = fault


class Mark(NamedTuple):
    """A place in the message: token offset and tree location (see :class:`PressFault`)."""

    offset: int
    loc: Loc


def abort(at: Mark, reason: str) -> Abort:
    """The exception that abandons the parse with ERR at ``at``."""
    return Abort(PressFault(at.offset, at.loc, reason))


def is_word(node: Node | None) -> bool:
    """Whether a node is a mnemonic (a ``str`` that is not a :class:`Text`)."""
    return isinstance(node, str) and not isinstance(node, Text)


def head_word(group: Tree) -> str | None:
    """The first node of a group if it is a mnemonic, else None."""
    first = group[0] if group else None
    return first if isinstance(first, str) and not isinstance(first, Text) else None


def peek_word(seq: Seq, ahead: int = 0) -> str | None:
    """The next node if it is a mnemonic (not a string, number or group), else None."""
    node = seq.peek(ahead)
    return node if isinstance(node, str) and not isinstance(node, Text) else None


class Widths:
    """How many tokens each node of a group occupies, and the same for each
    group among them: measured in one walk of the tree, so that a cursor
    moves over a message, and into its groups, in linear time."""

    __slots__ = ("sizes", "inner", "total")

    def __init__(self, nodes: Tree) -> None:
        sizes: list[int] = []
        inner: list[Widths | None] = []
        for node in nodes:
            if isinstance(node, tuple):
                widths = Widths(node)
                sizes.append(2 + widths.total)
                inner.append(widths)
            else:
                sizes.append(node_size(node))
                inner.append(None)
        #: the token count of each node
        self.sizes: tuple[int, ...] = tuple(sizes)
        #: the widths inside each node that is a group (None for the others)
        self.inner: tuple[Widths | None, ...] = tuple(inner)
        self.total: int = sum(sizes)


class Seq:
    """A cursor over the nodes of one bracket group (or of the unbracketed top level).

    ``pos`` is the token offset of the next node and ``end`` the offset of
    the group's closing bracket (rule 2 of docs/protocol.md §14.2: missing things
    are reported there); ``loc`` is the group's tree location; ``widths``
    the token counts of the nodes.
    """

    __slots__ = ("nodes", "index", "pos", "end", "loc", "widths")

    def __init__(self, nodes: Tree, start: int, end: int, loc: Loc, widths: Widths) -> None:
        self.nodes = nodes
        self.index = 0
        self.pos = start
        self.end = end
        self.loc = loc
        self.widths = widths

    def done(self) -> bool:
        return self.index >= len(self.nodes)

    def peek(self, ahead: int = 0) -> Node | None:
        i = self.index + ahead
        return self.nodes[i] if i < len(self.nodes) else None

    def here(self) -> Mark:
        """The place of the next node (or of the closing bracket when done)."""
        if self.index >= len(self.nodes):
            return self.closing()
        return Mark(self.pos, (*self.loc, self.index))

    def closing(self) -> Mark:
        """The place of the group's closing bracket (the end, at the top level)."""
        return Mark(self.end, (*self.loc, len(self.nodes)))

    def take(self, what: str) -> tuple[Node, Mark]:
        if self.index >= len(self.nodes):
            raise abort(self.closing(), f"{what} missing")
        node = self.nodes[self.index]
        at = Mark(self.pos, (*self.loc, self.index))
        self.pos += self.widths.sizes[self.index]
        self.index += 1
        return node, at

    def word(self, what: str) -> tuple[str, Mark]:
        node, at = self.take(what)
        if not is_word(node):
            raise abort(at, f"expected {what}")
        assert isinstance(node, str)
        return node, at

    def keyword(self, expected: str) -> Mark:
        word, at = self.word(expected)
        if word != expected:
            raise abort(at, f"expected {expected}, found {word}")
        return at

    def group(self, what: str) -> Seq:
        node, at = self.take(what)
        inner = self.widths.inner[self.index - 1]
        if not isinstance(node, tuple) or inner is None:
            raise abort(at, f"expected ( {what} )")
        return Seq(node, at.offset + 1, at.offset + 1 + inner.total, at.loc, inner)

    def integer(self, what: str, lo: int = -8192) -> int:
        node, at = self.take(what)
        if not isinstance(node, int) or node < lo:
            raise abort(at, f"expected {what} (a number from {lo})")
        return node

    def external(self, parse: Callable[[Parser, Tree, int, Loc], T], rep: Representation) -> T:
        """Read the next node with a parse function of :mod:`protocol.orders`.

        Those functions use :class:`protocol.grammar.Parser`; its furthest
        failure is translated into this message's token offset and location.
        """
        p = Parser(rep)
        try:
            value = parse(p, self.nodes, self.index, ())
        except Fail:
            raise abort(Mark(self._offset_of(p.far), (*self.loc, *p.far)), p.reason) from None
        self.take("")
        return value

    def _offset_of(self, loc: Loc) -> int:
        """Token offset of a location relative to this group's nodes."""
        first = self.pos - sum(self.widths.sizes[: self.index])
        return first + token_index(self.nodes, loc)

    def finish(self) -> None:
        if self.index < len(self.nodes):
            raise abort(self.here(), "unexpected token")


def sequence(nodes: Tree, start: int = 0) -> Seq:
    """A cursor over ``nodes`` (an unbracketed sequence starting at token ``start``)."""
    widths = Widths(nodes)
    return Seq(nodes, start, start + widths.total, (), widths)


__all__ = [
    "Abort",
    "Mark",
    "PressFault",
    "Seq",
    "Widths",
    "abort",
    "head_word",
    "is_word",
    "peek_word",
    "sequence",
]
