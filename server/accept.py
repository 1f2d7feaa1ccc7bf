"""Accepting connections, for both doors (the DAIDE TCP port and the web port).

`accept_loop` accepts on a listener and starts a handler per connection the
door's gate admits.  Out of descriptors (EMFILE and its kin) it backs off -
0.1 s doubling to `ACCEPT_BACKOFF_MAX` - with one log line as it starts and
one as it ends, where trio's ``serve_listeners`` would log a traceback every
0.1 s (docs/hardening.md, "The web door: limits").
"""

from __future__ import annotations

import errno
from collections.abc import Awaitable, Callable

import structlog
import trio

from server.limits import ConnectionGate

log = structlog.get_logger("server.accept")

#: accept() errors that mean "out of descriptors or memory for now" (as trio's list).
ACCEPT_CAPACITY_ERRORS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOBUFS})
#: Longest wait between accept attempts while descriptors are short.
ACCEPT_BACKOFF_MAX = 5.0


async def accept_loop(listener: trio.SocketListener, handlers: trio.Nursery,
                      serve: Callable[[trio.SocketStream, str], Awaitable[None]], *,
                      door: str, gate: ConnectionGate | None = None) -> None:
    """Accept on ``listener`` and start ``serve(stream, host)`` in ``handlers`` for each
    connection ``gate`` admits (the caller releases it); out of descriptors, back off
    (0.1 s doubling to `ACCEPT_BACKOFF_MAX`) with one log line as it starts and one as
    it ends, instead of trio's traceback every 0.1 s.  ``door`` names the log lines'
    side ("http", "tcp")."""
    backoff = 0.0
    short_since = 0.0
    refused = 0
    while True:
        try:
            stream = await listener.accept()
        except OSError as exc:
            if exc.errno not in ACCEPT_CAPACITY_ERRORS:
                raise
            if not backoff:
                short_since = trio.current_time()
                log.error("accept_backing_off", door=door,
                          error=errno.errorcode.get(exc.errno or 0, "?"),
                          open=gate.open if gate is not None else None)
            backoff = min(ACCEPT_BACKOFF_MAX, backoff * 2 or 0.1)
            await trio.sleep(backoff)
            continue
        if backoff:
            log.info("accept_resumed", door=door,
                     after=round(trio.current_time() - short_since, 1))
            backoff = 0.0
        try:
            host = str(stream.socket.getpeername()[0])
        except OSError:
            await trio.aclose_forcefully(stream)
            continue
        if gate is not None:
            refusal = gate.admit(host)
            if refusal is not None:
                refused += 1
                if refused & (refused - 1) == 0:        # the 1st, 2nd, 4th, 8th... refusal
                    log.warning("http_connection_refused", peer=host, reason=refusal,
                                refused=refused)
                await trio.aclose_forcefully(stream)
                continue
        handlers.start_soon(serve, stream, host)
