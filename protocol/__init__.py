"""The DAIDE wire format and language, sans-IO.

Modules (each owns one concept):

* :mod:`protocol.tokens` - the token table, integers, text, provinces, and
  :class:`~protocol.tokens.Representation` (standard or from an RM);
* :mod:`protocol.tree` - a message as a tree of plain values, to/from tokens;
* :mod:`protocol.text` - the DAIDE text form (PROTOCOL.md 6.8);
* :mod:`protocol.errors` - the exception types.

This package never imports trio, structlog, the clock or the server.
"""
