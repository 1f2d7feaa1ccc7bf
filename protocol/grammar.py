"""Grammar machinery: a backtracking parser over message trees that reports
the error position the way the reference server does.

docs/protocol.md §14.2: the server "tries every grammar alternative for the
message and reports the error position that got furthest into the message";
ERR goes before the offending token (rule 1), or before the closing bracket
of a sub-expression in which something is missing (rule 2), or at the end
(rule 3).

Here a position is a *location* in the tree: the path of group indices from
the top level, then the index of a child in that group.  ``(2, 0)`` is "the
first child of the third top-level node"; an index equal to the group's
length is "before its closing bracket" (at the top level: the end of the
message).  Locations compare as tuples in the same order as the token
indices they stand for, so the furthest failure is simply the maximum; it is
turned into a token index only when the parse has failed
(:func:`token_index`).

Each parse function receives the group it reads (``seq``) and that group's
location (``loc``); on a mismatch it calls :meth:`Parser.fail`, which records
the location if it is the furthest so far and raises :class:`Fail`.  An
alternative is tried with ``try: ... except Fail: ...``; the message fails
with the furthest failure recorded anywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn, TypeVar

from protocol.tokens import (
    CAT_COAST,
    CAT_PHASE,
    CAT_POWER,
    CAT_PROVINCE_FIRST,
    CAT_PROVINCE_LAST,
    CAT_UNIT_TYPE,
    Representation,
)
from protocol.tree import Node, Text, Tree

Loc = tuple[int, ...]
T = TypeVar("T")

_PROVINCE_CATS = frozenset(range(CAT_PROVINCE_FIRST, CAT_PROVINCE_LAST + 1))


class Fail(Exception):
    """Internal: one grammar alternative did not match (see :class:`Parser`)."""


class Parser:
    """The state of one parse: token categories, press level, furthest failure.

    ``level`` is the game's press level for messages sent by a client (None =
    no level restrictions).
    """

    __slots__ = ("cats", "get_category", "level", "far", "reason")

    def __init__(self, rep: Representation, level: int | None = None) -> None:
        self.cats: dict[str, int] = rep.categories
        self.get_category = rep.categories.get
        self.level = level
        self.far: Loc = (-1,)
        self.reason = "no match"

    def allows(self, level: int) -> bool:
        """Whether constructs of this press level are allowed."""
        return self.level is None or self.level >= level

    def fail(self, loc: Loc, reason: str) -> NoReturn:
        """Record a failure at ``loc`` (kept if furthest) and abandon this alternative."""
        if loc > self.far:
            self.far = loc
            self.reason = reason
        raise Fail

    # --- primitives: element ``i`` of group ``seq`` located at ``loc`` -------

    def end(self, seq: tuple[Node, ...], i: int, loc: Loc) -> None:
        """Nothing may follow index ``i``."""
        if i < len(seq):
            self.fail(loc + (i,), "unexpected token")

    def group(self, seq: tuple[Node, ...], i: int, loc: Loc, what: str) -> tuple[Node, ...]:
        """Element ``i`` must be a bracketed group."""
        if i >= len(seq):
            self.fail(loc + (i,), f"missing {what}")
        node = seq[i]
        if type(node) is not tuple:
            self.fail(loc + (i,), f"expected ( {what} )")
        return node

    def token(self, seq: tuple[Node, ...], i: int, loc: Loc, cat: int, what: str) -> str:
        """Element ``i`` must be a mnemonic of category ``cat``."""
        if i >= len(seq):
            self.fail(loc + (i,), f"missing {what}")
        node = seq[i]
        if type(node) is not str or self.cats.get(node) != cat:
            self.fail(loc + (i,), f"expected {what}")
        return node

    def one_of(self, seq: tuple[Node, ...], i: int, loc: Loc, allowed: frozenset[str]) -> str:
        """Element ``i`` must be one of the mnemonics ``allowed``."""
        if i >= len(seq):
            self.fail(loc + (i,), f"missing one of {' '.join(sorted(allowed))}")
        node = seq[i]
        if type(node) is not str or node not in allowed:
            self.fail(loc + (i,), f"expected one of {' '.join(sorted(allowed))}")
        return node

    def power(self, seq: tuple[Node, ...], i: int, loc: Loc) -> str:
        return self.token(seq, i, loc, CAT_POWER, "a power")

    def coast(self, seq: tuple[Node, ...], i: int, loc: Loc) -> str:
        return self.token(seq, i, loc, CAT_COAST, "a coast")

    def unit_type(self, seq: tuple[Node, ...], i: int, loc: Loc) -> str:
        return self.token(seq, i, loc, CAT_UNIT_TYPE, "AMY or FLT")

    def season(self, seq: tuple[Node, ...], i: int, loc: Loc) -> str:
        return self.token(seq, i, loc, CAT_PHASE, "a season")

    def keyword(self, seq: tuple[Node, ...], i: int, loc: Loc, name: str) -> str:
        if i < len(seq) and seq[i] == name and type(seq[i]) is str:
            return name
        return self.one_of(seq, i, loc, frozenset((name,)))

    def province(self, seq: tuple[Node, ...], i: int, loc: Loc) -> str:
        if i >= len(seq):
            self.fail(loc + (i,), "missing a province")
        node = seq[i]
        if type(node) is not str or self.cats.get(node) not in _PROVINCE_CATS:
            self.fail(loc + (i,), "expected a province")
        return node

    def power_or_uno(self, seq: tuple[Node, ...], i: int, loc: Loc) -> str:
        if i < len(seq) and seq[i] == "UNO" and type(seq[i]) is str:
            return "UNO"
        return self.power(seq, i, loc)

    def integer(
        self, seq: tuple[Node, ...], i: int, loc: Loc, lo: int = -8192, hi: int = 8191
    ) -> int:
        """Element ``i`` must be an integer in ``lo..hi``."""
        if i >= len(seq):
            self.fail(loc + (i,), "missing a number")
        node = seq[i]
        if type(node) is not int or not lo <= node <= hi:
            self.fail(loc + (i,), f"expected a number in {lo}..{hi}")
        return node

    def string(self, seq: tuple[Node, ...], i: int, loc: Loc, what: str) -> str:
        """Element ``i`` must be ``( 'text' )``: a group holding one string."""
        g = self.group(seq, i, loc, what)
        here = loc + (i,)
        if not g or type(g[0]) is not Text:
            self.fail(here + (0,), f"expected {what} as a string")
        self.end(g, 1, here)
        return str(g[0])

    def many(
        self,
        seq: tuple[Node, ...],
        start: int,
        loc: Loc,
        item: Callable[[tuple[Node, ...], int, Loc], T],
        minimum: int = 1,
    ) -> tuple[T, ...]:
        """``item`` for every element from ``start`` to the end of ``seq``.

        Fewer than ``minimum`` items: ERR before the closing bracket (rule 2).
        """
        items = [item(seq, i, loc) for i in range(start, len(seq))]
        if len(items) < minimum:
            self.fail(loc + (len(seq),), "missing items")
        return tuple(items)

    def first(self, *alternatives: Callable[[], T]) -> T:
        """The first alternative that matches; else fail (furthest failure kept)."""
        for alternative in alternatives:
            try:
                return alternative()
            except Fail:
                continue
        raise Fail


def node_size(node: Node) -> int:
    """How many tokens a node occupies on the wire."""
    if isinstance(node, tuple):
        return 2 + sum(node_size(n) for n in node)
    if isinstance(node, Text):
        return len(node.encode("utf-8", "surrogateescape"))
    return 1


def token_index(tree: Tree, loc: Loc) -> int:
    """The token index of a tree location (see the module docstring)."""
    pos = 0
    seq: tuple[Node, ...] = tree
    last = len(loc) - 1
    for depth, k in enumerate(loc):
        k = max(k, 0)
        pos += sum(node_size(n) for n in seq[:k])
        if depth < last:
            child = seq[k]
            assert isinstance(child, tuple)
            seq = child
            pos += 1  # the BRA of that group
    return pos
