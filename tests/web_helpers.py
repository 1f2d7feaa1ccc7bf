"""Test helpers for the web side: HTTP requests and a WebSocket client stream.

`WebSocketClient` is a `trio.abc.Stream` over a real WebSocket to the
server's ``/daide`` (wsproto on a trio TCP stream): each ``send_all`` goes
out as one binary message and ``receive_some`` returns one received
message's bytes, so `tests.server_helpers.ScriptClient` speaks DAIDE over it
unchanged.  ``messages`` records every received message, to check that each
carries exactly one frame.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Ping,
    RejectConnection,
    Request,
    TextMessage,
)


class WebSocketClient(trio.abc.Stream):
    """A client WebSocket as a byte stream (see the module docstring)."""

    def __init__(self, stream: trio.SocketStream, ws: WSConnection) -> None:
        self.stream = stream
        self.ws = ws
        self.incoming: list[bytes] = []
        self.messages: list[bytes] = []
        self.close_code: int | None = None
        self._partial = bytearray()

    @classmethod
    async def connect(cls, port: int, path: str = "/daide") -> WebSocketClient:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        ws = WSConnection(ConnectionType.CLIENT)
        await stream.send_all(ws.send(Request(host=f"127.0.0.1:{port}", target=path)))
        client = cls(stream, ws)
        try:
            while True:
                data = await stream.receive_some(65536)
                if not data:
                    raise ConnectionError("the server closed during the handshake")
                ws.receive_data(data)
                for event in ws.events():
                    if isinstance(event, AcceptConnection):
                        return client
                    if isinstance(event, RejectConnection):
                        raise ConnectionError(f"WebSocket refused: {event.status_code}")
        except BaseException:
            await trio.aclose_forcefully(stream)     # a refused handshake leaves no socket
            raise

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(self.ws.send(BytesMessage(data=bytes(data))))

    async def send_text(self, text: str) -> None:
        await self.stream.send_all(self.ws.send(TextMessage(data=text)))

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        while not self.incoming:
            if self.close_code is not None:
                return b""
            data = await self.stream.receive_some(65536)
            if not data:
                self.close_code = self.close_code or 1006
                return b""
            self.ws.receive_data(data)
            for event in self.ws.events():
                if isinstance(event, BytesMessage):
                    self._partial += event.data
                    if event.message_finished:
                        self.incoming.append(bytes(self._partial))
                        self.messages.append(bytes(self._partial))
                        self._partial.clear()
                elif isinstance(event, CloseConnection):
                    self.close_code = event.code
                    try:
                        await self.stream.send_all(self.ws.send(event.response()))
                    except (trio.BrokenResourceError, Exception):
                        pass
                elif isinstance(event, Ping):
                    await self.stream.send_all(self.ws.send(event.response()))
        return self.incoming.pop(0)

    async def aclose(self) -> None:
        await self.stream.aclose()


def _request(url: str, data: dict[str, Any] | None) -> tuple[int, Any, str]:
    body = json.dumps(data).encode() if data is not None else None
    # The page's API POSTs are JSON with the page's header (server.http: _check_post).
    request = urllib.request.Request(url, data=body, method="POST" if body else "GET",
                                     headers={"content-type": "application/json",
                                              "x-daide-client": "web"})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            raw, status, kind = response.read(), response.status, response.headers["content-type"]
    except urllib.error.HTTPError as error:
        raw, status, kind = error.read(), error.code, error.headers["content-type"]
    text = raw.decode()
    return status, json.loads(text) if kind.startswith("application/json") else text, kind


async def http(url: str, data: dict[str, Any] | None = None) -> tuple[int, Any, str]:
    """GET (or POST ``data`` as JSON): status, decoded JSON or text, content type."""
    return await trio.to_thread.run_sync(_request, url, data)
