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


class Seq:
    """A cursor over the nodes of one bracket group (or of the unbracketed top level).

    ``pos`` is the token offset of the next node and ``end`` the offset of
    the group's closing bracket (rule 2 of docs/protocol.md §14.2: missing things
    are reported there); ``loc`` is the group's tree location.
    """

    __slots__ = ("nodes", "index", "pos", "end", "loc", "sizes")

    def __init__(self, nodes: Tree, start: int, end: int, loc: Loc, sizes: dict[int, int]) -> None:
        self.nodes = nodes
        self.index = 0
        self.pos = start
        self.end = end
        self.loc = loc
        self.sizes = sizes

    def size(self, node: Node) -> int:
        """Tokens a node occupies; group sizes are cached per parse (by identity:
        the tree is alive for the whole parse), so a parse is linear."""
        if type(node) is tuple:
            cached = self.sizes.get(id(node))
            if cached is None:
                cached = 2 + sum(self.size(n) for n in node)
                self.sizes[id(node)] = cached
            return cached
        return node_size(node)

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
        self.index += 1
        self.pos += self.size(node)
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
        if not isinstance(node, tuple):
            raise abort(at, f"expected ( {what} )")
        return Seq(node, at.offset + 1, at.offset + self.size(node) - 1, at.loc, self.sizes)

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
        first = self.pos - sum(self.size(n) for n in self.nodes[: self.index])
        return first + token_index(self.nodes, loc)

    def finish(self) -> None:
        if self.index < len(self.nodes):
            raise abort(self.here(), "unexpected token")


def sequence(nodes: Tree, start: int = 0) -> Seq:
    """A cursor over ``nodes`` (an unbracketed sequence starting at token ``start``)."""
    seq = Seq(nodes, start, start, (), {})
    seq.end = start + sum(seq.size(n) for n in nodes)
    return seq


__all__ = [
    "Abort",
    "Mark",
    "PressFault",
    "Seq",
    "abort",
    "head_word",
    "is_word",
    "peek_word",
    "sequence",
]
