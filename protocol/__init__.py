"""The DAIDE wire format and language, sans-IO.

Modules (each owns one concept; docs/protocol.md sections in brackets):

* :mod:`protocol.tokens` - the token table, integers, text, provinces, and
  :class:`~protocol.tokens.Representation` (standard or from an RM) [4.2, 6];
* :mod:`protocol.tree` - a message as a tree of plain values, to/from tokens;
* :mod:`protocol.text` - the DAIDE text form [6.8];
* :mod:`protocol.grammar` - the backtracking parser and ERR placement [14.2];
* :mod:`protocol.orders`, :mod:`protocol.variant`, :mod:`protocol.mapdef` -
  orders (the values of the one order model, package ``orders``) read and
  written, notes and results [9], HLO options [10], the MDF [11];
* :mod:`protocol.messages` + :mod:`protocol.parse` - typed Level 0
  messages, ``parse_message`` and the PRN/HUH replies [8-15];
* :mod:`protocol.frames` - the five frame types, the only user of
  ``construct`` [3, 4]; :mod:`protocol.frame_text` - frames as text lines;
* :mod:`protocol.connection` - the h11-style ``Connection`` [4.5, 5, 19];
* :mod:`protocol.errors` - the exception types.

This package never imports trio, structlog, the clock or the server; of
ours it imports only the order model ``orders`` and the loader of the
compiled build ``native``.
"""

from native import activate as _activate

#: True when the mypyc-compiled modules run (see native/), False for pure Python
COMPILED: bool = _activate(__name__, __path__)
