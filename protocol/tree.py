"""A DAIDE message as a tree of plain Python values.

Node types (docs/protocol.md §6, 7):

* ``str`` - a token mnemonic in upper case: ``'NOW'``, ``'AUS'``, ``'NCS'``.
  Brackets never appear as mnemonics (no ``'BRA'``/``'KET'``);
* ``int`` - an integer token (-8192..8191);
* :class:`Text` - a ``str`` subclass: a run of text tokens, ``'STANDARD'``;
* ``tuple`` - a bracketed group of nodes.

A whole message is a tuple of nodes; its outer level is *not* bracketed:
``NOW ( SPR 1901 ) ( AUS AMY BUD )`` is
``('NOW', ('SPR', 1901), ('AUS', 'AMY', 'BUD'))``.

Because :class:`Text` is a ``str``, test ``isinstance(node, Text)`` before
``isinstance(node, str)``.

:func:`to_tree` is the server's first step on every received DM, so it is a
single flat loop over the tokens with one dict lookup per named token.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Final, TypeAlias

from mypy_extensions import mypyc_attr

from protocol.errors import BracketError, EncodeError, UnknownTokenError
from protocol.tokens import (
    BRA,
    KET,
    STANDARD,
    TEXT_BASE,
    Representation,
    text_to_tokens,
    tokens_to_text,
)


@mypyc_attr(native_class=False)  # a str subclass: mypyc compiles no such class
class Text(str):
    """A string carried as a run of text tokens (docs/protocol.md §6.4)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Text({str.__repr__(self)})"


Node: TypeAlias = "str | int | tuple[Node, ...]"
"""One tree node: mnemonic, integer, :class:`Text` (a ``str``) or a bracketed group."""

Tree: TypeAlias = "tuple[Node, ...]"
"""A whole message: the nodes of its (unbracketed) outer level."""


def check_brackets(tokens: tuple[int, ...]) -> None:
    """Raise :class:`BracketError` unless the brackets of ``tokens`` balance."""
    depth = 0
    for i, t in enumerate(tokens):
        if t == BRA:
            depth += 1
        elif t == KET:
            depth -= 1
            if depth < 0:
                raise BracketError(tokens, i, "closing bracket without an opening one")
    if depth:
        raise BracketError(tokens, len(tokens), f"{depth} bracket(s) left open")


def to_tree(tokens: tuple[int, ...], rep: Representation = STANDARD) -> Tree:
    """Decode a token sequence into a tree.

    Raises :class:`BracketError` (answer PRN) when the brackets do not
    balance, and otherwise :class:`UnknownTokenError` (answer HUH with ERR
    before it, docs/protocol.md §4.5) for the first token that has no meaning in
    ``rep``.  Bracket errors win over unknown tokens, as the balance check
    comes first in docs/protocol.md §16.6.
    """
    # (compiled: the table's get and the list's append are direct calls; bound
    # methods kept in locals, the interpreter's trick, would be generic calls)
    names = rep.decode_table
    stack: list[list[Node]] = []
    cur: list[Node] = []
    run: list[int] = []  # pending text tokens
    unknown = False
    for t in tokens:
        name = names.get(t)
        if name is not None:  # the common case: a named token
            if run:
                cur.append(Text(tokens_to_text(run)))
                run = []
            cur.append(name)
        elif t >> 8 == 0x4B:
            run.append(t)
        else:
            if run:
                cur.append(Text(tokens_to_text(run)))
                run = []
            if t == BRA:
                stack.append(cur)
                cur = []
            elif t == KET:
                if not stack:
                    raise BracketError(
                        tokens, _stray_ket(tokens), "closing bracket without an opening one"
                    )
                group = tuple(cur)
                cur = stack.pop()
                cur.append(group)
            elif 0 <= t < 0x4000:
                cur.append(t - 0x4000 if t & 0x2000 else t)
            else:
                unknown = True
                cur.append("")
    if run:
        cur.append(Text(tokens_to_text(run)))
    if stack:
        raise BracketError(tokens, len(tokens), f"{len(stack)} bracket(s) left open")
    if unknown:
        raise UnknownTokenError(tokens, _first_unknown(tokens, rep))
    return tuple(cur)


def _stray_ket(tokens: tuple[int, ...]) -> int:
    depth = 0
    for i, t in enumerate(tokens):
        depth += (t == BRA) - (t == KET)
        if depth < 0:
            return i
    raise AssertionError("no stray closing bracket")


def _first_unknown(tokens: tuple[int, ...], rep: Representation) -> int:
    names = rep.names
    for i, t in enumerate(tokens):
        if t not in names and t not in (BRA, KET) and not 0 <= t < 0x4000 and t >> 8 != 0x4B:
            return i
    raise AssertionError("no unknown token")


def from_tree(tree: Tree, rep: Representation = STANDARD) -> tuple[int, ...]:
    """Encode a tree (a whole message, outer level unbracketed) to tokens.

    Raises :class:`EncodeError` for a mnemonic unknown to ``rep``, an
    integer out of range or a node of another type.
    """
    out: list[int] = []
    _emit(tree, rep.encode_table, out)
    return tuple(out)


def _emit(nodes: tuple[Node, ...], values: dict[str, int], out: list[int]) -> None:
    # (compiled: direct dict and list calls, as in to_tree)
    for node in nodes:
        cls = type(node)
        if cls is str:
            v = values.get(node)  # type: ignore[arg-type]
            if v is None:
                raise EncodeError(f"unknown mnemonic {node!r}")
            out.append(v)
        elif cls is tuple:
            out.append(BRA)
            _emit(node, values, out)  # type: ignore[arg-type]
            out.append(KET)
        elif cls is int:
            if not -8192 <= node <= 8191:  # type: ignore[operator]
                raise EncodeError(f"integer {node} outside the DAIDE range -8192..8191")
            out.append(node & 0x3FFF)  # type: ignore[operator]
        else:
            _emit_other(node, values, out)


def _emit_other(node: Node, values: dict[str, int], out: list[int]) -> None:
    """The rare node types: Text, and subclasses of str/int/tuple."""
    if isinstance(node, Text):
        out.extend(text_to_tokens(node))
    elif isinstance(node, tuple):
        out.append(BRA)
        _emit(node, values, out)
        out.append(KET)
    elif isinstance(node, str):
        _emit((str(node),), values, out)
    elif isinstance(node, int) and not isinstance(node, bool):
        _emit((int(node),), values, out)
    else:
        raise EncodeError(f"cannot encode {node!r} ({type(node).__name__}) as a token")


def tokens_to_bytes(tokens: Sequence[int]) -> bytes:
    """Big-endian bytes of a token sequence (a DM body)."""
    return struct.pack(f">{len(tokens)}H", *tokens)


def dm_body(tokens: Sequence[int]) -> bytes:
    """The body of a DM to send: ``tokens`` as big-endian 16-bit words, checked
    (docs/protocol.md §4, §6.2) - at least one token, each 0..0xFFFF, none of
    the local-use range 0x58xx-0x5Fxx, which is never sent; EncodeError
    otherwise.  The body of a message is the bodies of its parts one after
    the other, so the server joins kept parts (`server.wire`);
    `protocol.frames.dm_frame_of_body` frames it.
    """
    if not tokens:
        raise EncodeError("a DM holds at least one token")
    try:
        body = tokens_to_bytes(tokens)
    except struct.error as exc:
        raise EncodeError(f"token values must be 0..0xFFFF: {exc}") from None
    for high in body[0::2]:
        if 0x58 <= high <= 0x5F:
            raise EncodeError("private-use tokens (0x58xx-0x5Fxx) must never be sent")
    return body


def bytes_to_tokens(data: bytes) -> tuple[int, ...]:
    """Token values of a DM body; ``data`` must have an even length."""
    return struct.unpack(f">{len(data) // 2}H", data)


#: one compiled ``struct`` per DM body length up to ``_DM_STRUCTS_UP_TO`` bytes
#: (a game's messages are short; a peer cannot make the table grow beyond it)
_DM_STRUCTS: Final[dict[int, struct.Struct]] = {}
_DM_STRUCTS_UP_TO: Final = 2048


def body_tokens(buf: bytes | bytearray, start: int, end: int) -> tuple[int, ...] | None:
    """The tokens of the received DM body ``buf[start:end]`` (a non-zero even
    length), read in place; None when one is private-use (0x58xx-0x5Fxx, never
    sent: the receiver answers EM 0x0E, docs/protocol.md §4.5 - `protocol.frames.dm_tokens`)."""
    size = end - start
    packer = _DM_STRUCTS.get(size)
    if packer is None:
        packer = struct.Struct(f">{size // 2}H")
        if size <= _DM_STRUCTS_UP_TO:
            _DM_STRUCTS[size] = packer
    tokens: tuple[int, ...] = packer.unpack_from(buf, start)
    for token in tokens:
        if 0x5800 <= token <= 0x5FFF:
            return None
    return tokens


__all__ = [
    "Node",
    "Text",
    "Tree",
    "TEXT_BASE",
    "body_tokens",
    "bytes_to_tokens",
    "dm_body",
    "check_brackets",
    "from_tree",
    "to_tree",
    "tokens_to_bytes",
]
