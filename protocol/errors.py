"""The exception types of the protocol layer.

Every error the protocol package raises is a :class:`ProtocolError`.  The
subclasses say whose fault it is and what to answer (docs/architecture.md: errors
say whose fault and what to reply):

* :class:`BracketError` - a received message with unbalanced brackets; the
  answer is ``PRN (message)`` (docs/protocol.md §14.1).
* :class:`GrammarError` - a bracketed-correctly message that does not match
  the grammar (or is not allowed for the sender); the answer is
  ``HUH (message)`` with ERR at :attr:`GrammarError.position`
  (docs/protocol.md §14.2).  :class:`UnknownTokenError` is the special case of a
  token value that is not in the token table (docs/protocol.md §4.5, last
  paragraph: a HUH, not an EM).
* :class:`TextSyntaxError` - the DAIDE text form (docs/protocol.md §6.8) could not
  be read; carries the character offset.
* :class:`EncodeError` - a value that cannot be put on the wire (an integer
  out of range, a mnemonic that the representation does not know, ...): the
  local program's fault.
* :class:`RepresentationError` - an RM body or representation file that is
  not a valid representation (docs/protocol.md §4.2).

Frame-level errors (EM codes) live with the frames and the connection.
"""

from __future__ import annotations


class ProtocolError(Exception):
    """Base class of every error raised by the ``protocol`` package."""


class EncodeError(ProtocolError, ValueError):
    """A value cannot be encoded (the caller's fault, never the peer's)."""


class RepresentationError(ProtocolError, ValueError):
    """An invalid representation (RM body, REM file, variant definition)."""


class TextSyntaxError(ProtocolError, ValueError):
    """The DAIDE text form could not be parsed.

    ``position`` is the 0-based character offset of the fault in ``text``.
    """

    def __init__(self, reason: str, text: str, position: int) -> None:
        self.reason = reason
        self.text = text
        self.position = position
        super().__init__(f"{reason} at column {position + 1}: {_excerpt(text, position)}")


class BracketError(ProtocolError):
    """Unbalanced brackets in a received token sequence: answer with PRN.

    ``position`` is the index of the first KET without a matching BRA, or the
    length of the message when BRAs remain open at the end.
    """

    def __init__(self, tokens: tuple[int, ...], position: int, reason: str) -> None:
        self.tokens = tokens
        self.position = position
        self.reason = reason
        super().__init__(f"{reason} (token {position})")


class GrammarError(ProtocolError):
    """A message that does not match the grammar: answer HUH with ERR.

    ``tokens`` is the message as received and ``position`` the token index
    before which ERR goes (``len(tokens)`` = at the end), chosen by the rules
    of docs/protocol.md §14.2.
    """

    def __init__(self, tokens: tuple[int, ...], position: int, reason: str) -> None:
        self.tokens = tokens
        self.position = position
        self.reason = reason
        super().__init__(f"{reason} (token {position})")


class UnknownTokenError(GrammarError):
    """A token value that is not in the token table of the representation."""

    def __init__(self, tokens: tuple[int, ...], position: int) -> None:
        self.value = tokens[position]
        super().__init__(tokens, position, f"unknown token 0x{self.value:04X}")


def _excerpt(text: str, position: int) -> str:
    """Show a short window of ``text`` with a caret-like marker at ``position``."""
    start = max(0, position - 20)
    end = min(len(text), position + 20)
    prefix = "..." if start > 0 else ""
    suffix = "..." if end < len(text) else ""
    return f"{prefix}{text[start:position]}<<HERE>>{text[position:end]}{suffix}"
