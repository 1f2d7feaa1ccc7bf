"""The one encoder of messages to send: a message's DM frame and its text.

`Codec.encode` takes a `protocol.messages.Message` - the one writer of each
message's shape, through its ``to_tree`` - and gives the frame a client gets
and the text a log or the database keeps (docs/protocol.md §4, §6.8), both from
the same tokens.

A game sends the same pieces again and again: an order goes out in its THX,
in the ORD after the phase, and comes back in later phases and other games;
a unit stands in the same place for years of NOWs; a power's SCO group
changes once a year.  So the codec keeps the encoding of each top-level part
of the messages in `PART_KEPT` (the command, ``( order )``, ``( result )``,
``( unit )``, ``( owner centres )`` ...): their tokens' DM body and text, found
by the part's value.  A message's body is its parts' bodies one after the
other, and its text their texts joined by spaces, so a message put together
from kept parts is byte for byte the message encoded whole
(tests/test_protocol_codec.py holds it to that).  The messages kept this way
carry no text tokens: a `protocol.tree.Text` equals the mnemonic of the same
letters as a value, so a part holding one could be mistaken for another.
A THX - the answer to every order, the same words whenever the same order
comes again - is kept whole, by its value, and so is each order's text (what
the store keeps of an accepted order).

A codec belongs to one representation; the server keeps one per
representation for all its games (`server.wire.Codecs`).
"""

from __future__ import annotations

from typing import Final

from orders import Order
from protocol.frames import dm_frame_of_body
from protocol.messages import Message
from protocol.orders import order_node
from protocol.text import render_text
from protocol.tokens import Representation
from protocol.tree import Node, dm_body, from_tree

#: Commands whose messages are put together from kept parts: what a game
#: sends every phase, none of them with text tokens (see the module doc).
PART_KEPT: Final = frozenset({"THX", "ORD", "NOW", "SCO", "MIS"})
#: Parts kept at most; then they are forgotten and met again (a few per order,
#: unit, turn and owner of the games under one representation).  The THXs and
#: the orders' texts are kept up to as many each.
KEPT_PARTS: Final = 1 << 15


class Encoding:
    """A message's DM frame and its text; immutable."""

    __slots__ = ("_frame", "_text")

    def __init__(self, frame: bytes, text: str) -> None:
        self._frame = frame
        self._text = text

    @property
    def frame(self) -> bytes:
        return self._frame

    @property
    def text(self) -> str:
        return self._text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Encoding):
            return NotImplemented
        return self._frame == other._frame and self._text == other._text

    def __hash__(self) -> int:
        return hash((self._frame, self._text))

    def __repr__(self) -> str:
        return f"Encoding(frame={self._frame!r}, text={self._text!r})"


class Codec:
    """Messages encoded under one representation, their common parts kept."""

    def __init__(self, rep: Representation) -> None:
        self.rep = rep
        self._parts: dict[Node, tuple[bytes, str]] = {}
        self._thx: dict[Message, Encoding] = {}
        self._order_texts: dict[Order, str] = {}

    def encode(self, message: Message) -> Encoding:
        """The frame and text of ``message``; EncodeError if it cannot be sent."""
        command = message.COMMAND
        if command not in PART_KEPT:
            tokens = message.to_tokens(self.rep)
            return Encoding(dm_frame_of_body(dm_body(tokens)), render_text(tokens, self.rep))
        if command == "THX":
            known = self._thx.get(message)
            if known is None:
                known = self._whole(message)
                if len(self._thx) >= KEPT_PARTS:
                    self._thx.clear()
                self._thx[message] = known
            return known
        return self._whole(message)

    def order_text(self, order: Order) -> str:
        """An order's text as the store keeps it: its node's (``( ENG FLT NTH ) HLD``)."""
        text = self._order_texts.get(order)
        if text is None:
            text = self.text(order_node(order))
            if len(self._order_texts) >= KEPT_PARTS:
                self._order_texts.clear()
            self._order_texts[order] = text
        return text

    def text(self, parts: tuple[Node, ...]) -> str:
        """The text of a tree of no text tokens."""
        return self._joined(parts)[1]

    def _whole(self, message: Message) -> Encoding:
        body, text = self._joined(message.to_tree())
        return Encoding(dm_frame_of_body(body), text)

    def _joined(self, parts: tuple[Node, ...]) -> tuple[bytes, str]:
        bodies: list[bytes] = []
        texts: list[str] = []
        kept = self._parts
        for part in parts:
            known = kept.get(part)
            if known is None:
                tokens = from_tree((part,), self.rep)
                known = (dm_body(tokens), render_text(tokens, self.rep))
                if len(kept) >= KEPT_PARTS:
                    kept.clear()
                kept[part] = known
            bodies.append(known[0])
            texts.append(known[1])
        return b"".join(bodies), " ".join(texts)
