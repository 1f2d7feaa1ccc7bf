"""A connection's socket read and written at once when it is ready.

trio's ``SocketStream.receive_some`` and ``send_all`` give the scheduler a
turn on every call, even when the socket could take or give the bytes at
once - as it almost always can on a game server, whose messages are small
(``python -m benchmarks server``: a phase is a few dozen reads and writes,
and these turns were a tenth of the server's time).  `DirectSocket` first
tries the system call without blocking, and waits for the socket through
trio (`trio.lowlevel.wait_readable` / ``send_all``) only when it is not
ready (`DirectSocket.send_now`, then ``send_all`` for the rest).  Errors are trio's: `trio.BrokenResourceError` when the connection
broke, `trio.ClosedResourceError` when the socket was closed, as the stream
raises them.

A read that got less than it asked for emptied the socket, and a client
of a game server then waits for an answer: the next read almost never
finds anything (``strace`` of ``python -m benchmarks server``: half of the
reads failed with EAGAIN, each a raised `BlockingIOError`).  So the read
after such a one waits for the socket first (`trio.lowlevel.wait_readable`,
which returns at the scheduler's next look if data came meanwhile) and reads
only then - unless trying the socket at once found data the last time (a
peer that answers at once, faster than the server's turn: waiting would
cost it a scheduler pass per message); every `RETRY_READS` such reads try
anyway, so a peer that got faster is noticed.

Cancellation is kept: a read checks for it first
(`trio.lowlevel.checkpoint_if_cancelled`, which does not yield unless
cancelled, or the wait, a full checkpoint), so a deadline around a read
still ends it when the data keeps coming; and every `FAIR_TURNS` calls
that did not wait give the scheduler a turn anyway, so a peer that never
lets its socket run dry cannot hold the event loop.
"""

from __future__ import annotations

import errno
import os

import trio

#: Calls in a row that found the socket ready, after which one yields anyway.
FAIR_TURNS = 16
#: After a read that emptied the socket, the next one waits for data first -
#: unless trying the socket at once found data last time; and every
#: RETRY_READS such reads it tries anyway, to notice a peer that got faster.
RETRY_READS = 16

_CLOSED = (errno.EBADF, errno.ENOTSOCK)


def _stream_error(exc: OSError) -> trio.ClosedResourceError | trio.BrokenResourceError:
    """An OS error as a trio stream raises it (closed vs broken)."""
    if exc.errno in _CLOSED:
        return trio.ClosedResourceError("the socket was already closed")
    return trio.BrokenResourceError(f"socket connection broken: {exc}")


class DirectSocket:
    """Reads and writes of one `trio.SocketStream`, without a scheduler turn when ready.

    Only one task may read and one task write (as for the stream itself).
    """

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.socket = stream.socket
        self._ready_reads = 0
        #: the last read got less than it asked for: the socket was empty then
        self._drained = False
        #: a read after such a one tries the socket first: the last try found data
        self._hopeful = False
        #: reads after such a one since the last try
        self._untried = 0

    async def receive_some(self, size: int) -> bytes:
        """Up to ``size`` bytes, ``b""`` at the end of the stream."""
        # A closed socket: ClosedResourceError, as a read.  The descriptor stays
        # the socket's across the waits below: closing it wakes them with
        # ClosedResourceError (trio's notify_closing).
        fd = self._fd()
        trying = waited = False
        if self._drained:
            self._ready_reads = 0
            self._untried += 1
            if self._hopeful or self._untried >= RETRY_READS:
                trying, self._untried = True, 0
            else:
                await trio.lowlevel.wait_readable(fd)
                waited = True
        if not waited:
            await trio.lowlevel.checkpoint_if_cancelled()
        while True:
            try:
                data = os.read(fd, size)
                break
            except BlockingIOError:
                self._ready_reads = 0
            except OSError as exc:
                raise _stream_error(exc) from exc
            if trying:
                trying = self._hopeful = False
            await trio.lowlevel.wait_readable(fd)
        if trying:
            self._hopeful = True
        self._drained = len(data) < size
        self._ready_reads += 1
        if self._ready_reads >= FAIR_TURNS:
            self._ready_reads = 0
            await trio.lowlevel.checkpoint()
        return data

    def send_now(self, data: bytes) -> int:
        """Write what the socket takes of ``data`` without waiting; the bytes written."""
        if self.socket.did_shutdown_SHUT_WR:
            raise trio.ClosedResourceError("can't send data after sending EOF")
        try:
            return os.write(self._fd(), data)
        except BlockingIOError:
            return 0
        except OSError as exc:
            raise _stream_error(exc) from exc

    async def send_all(self, data: bytes | memoryview) -> None:
        """Write all of ``data``, waiting for room (the stream's ``send_all``)."""
        await self.stream.send_all(data)

    def _fd(self) -> int:
        fd = self.socket.fileno()
        if fd == -1:
            raise trio.ClosedResourceError("the socket was already closed")
        return fd


class StreamIO:
    """The same calls on any other stream (memory streams in tests, a web socket
    bridge): every read and write goes through the stream."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream

    async def receive_some(self, size: int) -> bytes:
        return bytes(await self.stream.receive_some(size))

    def send_now(self, data: bytes) -> int:
        return 0

    async def send_all(self, data: bytes | memoryview) -> None:
        await self.stream.send_all(data)


def direct_io(stream: trio.abc.Stream) -> DirectSocket | StreamIO:
    """`DirectSocket` for a TCP stream, `StreamIO` for any other."""
    return DirectSocket(stream) if isinstance(stream, trio.SocketStream) else StreamIO(stream)
