"""DAIDE over WebSocket: a `trio.abc.Stream` over one ASGI WebSocket connection.

The browser client speaks the same protocol as a TCP client; only the
transport differs.  Each binary WebSocket message carries one DAIDE frame
(the 4-byte header - type, pad, 16-bit big-endian length, docs/protocol.md
§3 - and its body, the same bytes as over TCP).  `WebSocketStream` turns the
connection into a byte stream so that `server.connection.handle_connection`
serves it exactly like a socket: IM timer, limits, press, CCD, IAM... all in
one code path.

* Reading: each received message's bytes are handed to the reader as they
  are; the connection's sans-IO machine reassembles frames, so a message
  holding half a frame or two frames is read as the same bytes over TCP
  would be (and a frame never completed runs into the frame timer).  A text
  message is not DAIDE: the WebSocket is closed with 1003 (unsupported data).
* Writing: the connection's writer hands over whole frames, several at a
  time; they are split at frame boundaries so that each goes out as its own
  message (a browser's ``onmessage`` then sees exactly one frame).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import structlog
import trio

from protocol.frames import take_frames

log = structlog.get_logger("server.websocket")

#: An ASGI ``receive`` or ``send`` callable.
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

#: WebSocket close codes (RFC 6455 §7.4.1).
CLOSE_NORMAL = 1000
CLOSE_UNSUPPORTED = 1003


class WebSocketStream(trio.abc.Stream):
    """The byte stream of one accepted ASGI WebSocket (see the module docstring)."""

    def __init__(self, receive: Receive, send: Send) -> None:
        self._receive = receive
        self._send = send
        self._outgoing = bytearray()        # the tail of a frame not yet complete
        self._eof = False
        self._closed = False
        self._send_lock = trio.StrictFIFOLock()
        self.close_code: int | None = None  # why the peer closed, when it did

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        while not self._eof:
            event = await self._receive()
            kind = event.get("type")
            if kind == "websocket.receive":
                data = event.get("bytes")
                if data is None:
                    log.info("websocket_text_refused")
                    await self._close(CLOSE_UNSUPPORTED)
                    self._eof = True
                    break
                if data:
                    return bytes(data)
            elif kind == "websocket.disconnect":
                self.close_code = event.get("code")
                self._eof = True
                self._closed = True
        return b""

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        async with self._send_lock:
            if self._closed:
                raise trio.ClosedResourceError("the WebSocket is closed")
            self._outgoing += data
            for frame in take_frames(self._outgoing):
                try:
                    await self._send({"type": "websocket.send", "bytes": frame})
                except trio.Cancelled:
                    raise
                except Exception as exc:
                    # The ASGI server raises once the peer has gone or closed, each with
                    # an exception of its own (the ASGI spec's "server-specific" error:
                    # hypercorn's UnexpectedMessageError after the client's close).
                    self._closed = True
                    raise trio.BrokenResourceError(str(exc)) from exc

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        await self._close(CLOSE_NORMAL)

    async def _close(self, code: int) -> None:
        if self._closed:
            await trio.lowlevel.checkpoint()
            return
        self._closed = True
        try:
            await self._send({"type": "websocket.close", "code": code})
        except trio.Cancelled:
            raise
        except Exception:           # already closed (see send_all): nothing left to close
            pass
