"""The web door's limits: what keeps HTTP and WebSocket peers from hurting the server.

`server.http.serve_http` runs the web side through `serve_web` instead of
hypercorn's own ``serve``: hypercorn (h11, wsproto) still speaks HTTP/1.1 and
WebSocket on each connection (`hypercorn.trio.tcp_server.TCPServer`), but the
accepting is ours, so that (docs/hardening.md):

* a connection is admitted by the web's own `server.limits.ConnectionGate`
  (``http_max_connections`` in all, ``http_connections_per_address``) before
  a byte is read - a budget apart from the DAIDE TCP one, so a flood of web
  connections never takes a bot's slot (WebSocket DAIDE sessions are not
  counted by the lobby's gate: `server.connection.handle_connection`);
* when accept fails for want of descriptors (EMFILE...) the loop backs off,
  doubling up to 5 s, with one log line when it starts and one when it ends,
  not a traceback every 0.1 s (trio's ``serve_listeners`` does that;
  `accept_loop` serves the DAIDE TCP door too, `server.app`);
* the headers of a request must arrive within ``http_request_timeout`` of the
  connection's opening or its previous response (hypercorn's keep-alive
  timer, which runs until a request's headers are complete), and its body
  within ``http_request_timeout`` more (`WebDoor`: 408 and the connection
  closes).

WebSocket messages: hypercorn's ``websocket_max_message_size`` is checked only
after a fragment's data has been added to its buffer, and after the close
(1009) hypercorn goes on reading and adding to that buffer - one connection
grew the server by 1.5 GB in 5 s.  wsproto itself does not buffer a data
frame (it hands each received piece of payload on), and with
permessage-deflate it inflates without a bound.  So `GuardedWSStream`
replaces hypercorn's ``WSStream`` (the one class its HTTP/1.1 and HTTP/2
protocols build for a WebSocket): it reads each frame header
(`server.limits.WebSocketGuard`) before wsproto or hypercorn see the bytes,
and on a message over the limit it sends close 1009 and closes the TCP
connection - nothing more is read - and it strips the client's
``Sec-WebSocket-Extensions`` offer, so no compression is negotiated (DAIDE
frames are small; an inflating peer could not be bounded before buffering).
Keeping hypercorn and wsproto rather than another server: they are the
maintained HTTP/WebSocket stack the web side was built on; the one gap was
hypercorn's buffer, closed here by one subclass whose behaviour the tests pin
(tests/test_web_limits.py) should a hypercorn release change it.

hypercorn's own error answers (h11's 400 for a malformed request, 431 for
headers too long, a bad WebSocket handshake's 400) carry no header the
application could add, so `install_error_headers` makes its HTTP/1.1
protocol add `ERROR_HEADERS` (a Content-Security-Policy, nosniff, frame
protection) to every answer that has no policy of its own, and
`install_h2_request_check` makes its HTTP/2 protocol reset a request whose
``:method`` or ``:path`` is not ASCII, which hypercorn would decode with an
exception.  Whatever else one connection raises ends that connection with
one ``http_connection_failed`` line (`serve_web`), never the server.

`WebDoor` is an ASGI wrapper round `server.http.App`: with ``trusted_proxies``
(``daide serve --trusted-proxy ADDR``) a request or WebSocket from such a
proxy is known by the address its ``X-Forwarded-For`` names (the scope's
``client``, which the per-address limits and IAM blocks use), and counted per
that address by a second gate; from any other peer the header is ignored.
"""

from __future__ import annotations

import dataclasses
import resource
import traceback
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog
import trio

from server.accept import accept_loop
from server.limits import ConnectionGate, WebSocketGuard, address_key, forwarded_client

if TYPE_CHECKING:
    from hypercorn.config import Config

    from server.settings import ServerSettings

log = structlog.get_logger("server.web_door")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Descriptors kept beyond both connection budgets (database, journal, listeners, logs).
DESCRIPTOR_RESERVE = 64
#: WebSocket close code: message too big (RFC 6455 §7.4.1).
CLOSE_TOO_BIG = 1009


def _guarded_ws_stream_class() -> type:
    """`GuardedWSStream`, built on first use (hypercorn is imported only by the web side)."""
    from hypercorn.protocol.events import Body, Data, Request, StreamClosed
    from hypercorn.protocol.ws_stream import ASGIWebsocketState, WSStream
    from wsproto.events import CloseConnection

    class GuardedWSStream(WSStream):
        """hypercorn's WebSocket stream with every frame header judged before it buffers."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.guard = WebSocketGuard(self.config.websocket_max_message_size)

        async def handle(self, event: Any) -> None:
            if isinstance(event, Request):
                event = dataclasses.replace(event, headers=[
                    (name, value) for name, value in event.headers
                    if name.lower() != b"sec-websocket-extensions"])
            elif (isinstance(event, (Body, Data)) and not self.closed
                  and getattr(self, "handshake", None) is not None):
                if not self.handshake.accepted:
                    await self._early(event)
                    return
                refusal = self.guard.feed(event.data)
                if refusal is not None:
                    await self._refuse(refusal)
                    return
            await super().handle(event)

        async def _early(self, event: Any) -> None:
            """Data before the handshake was answered (a client waits for the answer,
            RFC 6455 §4.1).  hypercorn answers 400 but leaves the application's accept,
            which may be on its way, to follow: two answers to one request, which h11
            refuses with an exception that took the whole server down.  Here the stream
            is closed first, so the application's accept or refusal is dropped; if the
            application has begun an answer, that one ends the request instead."""
            if not event.data:
                return
            begun = (self.state != ASGIWebsocketState.HANDSHAKE
                     or getattr(self, "response", None) is not None)
            self.closed = True
            client = self.client or ("?", 0)
            log.warning("websocket_refused", peer=f"{client[0]}:{client[1]}", status=400,
                        reason="data before the handshake was answered")
            if self.app_put is not None:
                await self.app_put({"type": "websocket.disconnect", "code": 1002})
            if not begun:
                await self._send_error_response(400)
            await self.send(StreamClosed(stream_id=self.stream_id))

        async def _refuse(self, reason: str) -> None:
            client = self.client or ("?", 0)
            log.warning("websocket_refused", peer=f"{client[0]}:{client[1]}", reason=reason)
            if self.state == ASGIWebsocketState.CONNECTED:
                self.state = ASGIWebsocketState.CLOSED
                try:
                    await self._send_wsproto_event(CloseConnection(code=CLOSE_TOO_BIG))
                except Exception:       # wsproto already closing: the close frame is moot
                    pass
            self.closed = True
            if self.app_put is not None:
                await self.app_put({"type": "websocket.disconnect", "code": CLOSE_TOO_BIG})
            # HTTP/1.1: the connection is closed, its socket with it (no more is read);
            # HTTP/2: this stream ends and its further data is dropped.
            await self.send(StreamClosed(stream_id=self.stream_id))

    return GuardedWSStream


#: Headers of an answer that has none of its own: hypercorn's own errors (400 for a
#: malformed request, 431 for headers too long, a bad WebSocket handshake's 400), the
#: door's 408 and 429.  Their bodies are empty, so the policy is the strictest.
ERROR_HEADERS = ((b"content-security-policy",
                  b"default-src 'none'; base-uri 'none'; form-action 'none'; "
                  b"frame-ancestors 'none'"),
                 (b"x-content-type-options", b"nosniff"),
                 (b"x-frame-options", b"DENY"),
                 (b"referrer-policy", b"same-origin"))


def _secure_h11_protocol_class() -> type:
    """hypercorn's HTTP/1.1 protocol with `ERROR_HEADERS` on every answer that lacks a
    Content-Security-Policy: hypercorn writes its own error answers (h11's 400 and 431)
    with no way to add headers (``Config.response_headers`` is added to every answer,
    the application's too, whose own policy it would duplicate)."""
    import h11
    from hypercorn.protocol.h11 import H11Protocol

    class SecureH11Protocol(H11Protocol):
        async def _send_h11_event(self, event: Any) -> None:
            if isinstance(event, h11.Response) and not any(
                    name == b"content-security-policy" for name, _ in event.headers):
                event = h11.Response(status_code=event.status_code, reason=event.reason,
                                     headers=[*event.headers, *ERROR_HEADERS])
            await super()._send_h11_event(event)

    return SecureH11Protocol


def install_error_headers() -> None:
    """Make hypercorn's connections speak HTTP/1.1 through `SecureH11Protocol`
    (``hypercorn.protocol.ProtocolWrapper`` builds the protocol by this module name).
    Cleartext HTTP/2 keeps hypercorn's: only programs use it (browsers speak HTTP/2
    over TLS only), and its errors are stream resets, not pages."""
    import hypercorn.protocol as protocol
    from hypercorn.protocol.h11 import H11Protocol

    current = getattr(protocol, "H11Protocol", None)
    if getattr(current, "error_headers_installed", False):
        return
    if current is not H11Protocol or not hasattr(H11Protocol, "_send_h11_event"):
        raise RuntimeError("this hypercorn cannot take the error headers (server.web_door)")
    secure = _secure_h11_protocol_class()
    secure.error_headers_installed = True  # type: ignore[attr-defined]
    setattr(protocol, "H11Protocol", secure)  # noqa: B010 - the module's own name for the class


def _checked_h2_protocol_class() -> type:
    """hypercorn's HTTP/2 protocol refusing a request whose ``:method`` or ``:path`` is
    not ASCII, or missing: hypercorn decodes them as ASCII (an exception out of the
    connection), where HTTP/1.1's parser (h11) never lets such a request through."""
    import h2.errors
    import h2.exceptions
    from hypercorn.protocol.h2 import H2Protocol

    class CheckedH2Protocol(H2Protocol):
        async def _create_stream(self, request: Any) -> None:
            fields = dict(request.headers)
            if not all(fields.get(name, b"\xff").isascii() for name in (b":method", b":path")):
                # A malformed request: a stream error (RFC 9113 §8.1.1).
                client = self.client or ("?", 0)
                log.warning("http_refused", peer=f"{client[0]}:{client[1]}",
                            reason="an HTTP/2 request whose :method or :path is not ASCII")
                try:
                    self.connection.reset_stream(
                        request.stream_id, error_code=h2.errors.ErrorCodes.PROTOCOL_ERROR)
                except h2.exceptions.ProtocolError:
                    pass            # the client reset or closed it already (the same read)
                await self._flush()
                return
            await super()._create_stream(request)

    return CheckedH2Protocol


def install_h2_request_check() -> None:
    """Make hypercorn's connections speak HTTP/2 through `CheckedH2Protocol`
    (``hypercorn.protocol.ProtocolWrapper`` builds it by this module name: prior
    knowledge, and the h2c upgrade of HTTP/1.1)."""
    import hypercorn.protocol as protocol
    from hypercorn.protocol.h2 import H2Protocol

    current = getattr(protocol, "H2Protocol", None)
    if getattr(current, "request_check_installed", False):
        return
    if current is not H2Protocol or not all(hasattr(H2Protocol, name)
                                            for name in ("_create_stream", "_flush")):
        raise RuntimeError("this hypercorn cannot take the HTTP/2 request check "
                           "(server.web_door)")
    checked = _checked_h2_protocol_class()
    checked.request_check_installed = True  # type: ignore[attr-defined]
    setattr(protocol, "H2Protocol", checked)  # noqa: B010 - the module's own name for the class


def install_websocket_guard() -> None:
    """Make hypercorn's HTTP/1.1 and HTTP/2 protocols build `GuardedWSStream`s."""
    from hypercorn.protocol import h2, h11

    if getattr(getattr(h11, "WSStream", None), "guard_installed", False):
        return
    from hypercorn.protocol.ws_stream import WSStream
    if not (getattr(h11, "WSStream", None) is WSStream and getattr(h2, "WSStream", None) is WSStream
            and all(hasattr(WSStream, name) for name in ("handle", "_send_wsproto_event"))):
        # Never serve WebSockets unguarded: a hypercorn release changed what the guard uses.
        raise RuntimeError("this hypercorn cannot take the WebSocket guard (server.web_door)")
    guarded = _guarded_ws_stream_class()
    guarded.guard_installed = True  # type: ignore[attr-defined]
    setattr(h11, "WSStream", guarded)  # noqa: B010 - the module's own name for the class
    setattr(h2, "WSStream", guarded)  # noqa: B010


class WebDoor:
    """ASGI wrapper: forwarded client addresses and the body timeout (module docstring)."""

    def __init__(self, app: Asgi, settings: ServerSettings) -> None:
        self.app = app
        self.timeout = settings.http_request_timeout
        self.trusted = frozenset(address_key(p) for p in settings.trusted_proxies)
        #: Requests and WebSockets in progress per forwarded client address.
        self.forwarded_gate = ConnectionGate(settings.http_max_connections,
                                             settings.http_connections_per_address,
                                             exempt=settings.limit_exempt)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if kind == "http":
            receive, send = self._timed(scope, receive, send)
        client = scope.get("client")
        if not self.trusted or not client or address_key(str(client[0])) not in self.trusted:
            await self.app(scope, receive, send)
            return
        host = forwarded_client(scope.get("headers") or [])
        if host is None:
            await self.app(scope, receive, send)
            return
        refusal = self.forwarded_gate.admit(host)
        if refusal is not None:
            log.warning("http_connection_refused", peer=host, reason=refusal, proxy=client[0])
            await _refuse(scope, receive, send)
            return
        try:
            await self.app(dict(scope, client=(host, 0)), receive, send)
        finally:
            self.forwarded_gate.release(host)

    def _timed(self, scope: Scope, receive: Receive, send: Send) -> tuple[Receive, Send]:
        """``receive`` with the body's deadline; ``send`` that drops the app's answer once a
        408 has gone out instead."""
        deadline = trio.current_time() + self.timeout
        state = {"body_done": False, "timed_out": False, "started": False}

        async def timed_receive() -> dict[str, Any]:
            if state["timed_out"]:
                return {"type": "http.disconnect"}
            if state["body_done"]:
                return await receive()
            with trio.move_on_at(deadline):
                event = await receive()
                if event.get("type") != "http.request" or not event.get("more_body"):
                    state["body_done"] = True
                return event
            state["timed_out"] = True
            client = scope.get("client") or ("?", 0)
            log.info("http_request_timeout", peer=f"{client[0]}:{client[1]}",
                     path=scope.get("path"), timeout=self.timeout)
            if not state["started"]:
                state["started"] = True
                await send({"type": "http.response.start", "status": 408,
                            "headers": _closing_headers(scope)})
                await send({"type": "http.response.body", "body": b""})
            return {"type": "http.disconnect"}

        async def guarded_send(message: dict[str, Any]) -> None:
            if state["timed_out"]:
                return
            if message.get("type") == "http.response.start":
                state["started"] = True
            await send(message)

        return timed_receive, guarded_send


async def _refuse(scope: Scope, receive: Receive, send: Send) -> None:
    """Answer a refused request 429, a refused WebSocket handshake 403."""
    if scope["type"] == "websocket":
        await receive()                       # websocket.connect
        await send({"type": "websocket.close", "code": 1013})
        return
    await send({"type": "http.response.start", "status": 429,
                "headers": _closing_headers(scope)})
    await send({"type": "http.response.body", "body": b""})


def _closing_headers(scope: Scope) -> list[tuple[bytes, bytes]]:
    """An empty answer's headers; HTTP/1 is told the connection closes (HTTP/2 has no
    such header: the stream ends)."""
    headers = [(b"content-length", b"0"), *ERROR_HEADERS]
    if str(scope.get("http_version", "1.1")).startswith("1"):
        headers.append((b"connection", b"close"))
    return headers


class ClosingStream(trio.abc.HalfCloseableStream):
    """A connection's socket stream as hypercorn's `TCPServer` gets it: once it has begun
    to half-close (``send_eof``), a send is `trio.ClosedResourceError` - which hypercorn
    takes for "the peer is gone" - rather than trio's `trio.BusyResourceError`, which it
    does not catch.  hypercorn half-closes after an answer with ``Connection: close``
    while its reader may be answering the next, malformed, request that the same bytes
    held (make fuzz: "another task is currently sending data on this SocketStream")."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.socket = stream.socket
        self._eof = False
        self._sending = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self._eof:
            await trio.lowlevel.checkpoint()
            raise trio.ClosedResourceError("the connection is closing")
        self._sending = True
        try:
            await self.stream.send_all(data)
        finally:
            self._sending = False

    async def send_eof(self) -> None:
        if self._sending:               # hypercorn then closes the socket
            await trio.lowlevel.checkpoint()
            raise trio.BusyResourceError("an answer is being sent")
        self._eof = True
        await self.stream.send_eof()

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        return await self.stream.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.stream.aclose()


def _leaf(exc: BaseException) -> BaseException:
    """The first exception inside ``exc``'s groups (trio's nurseries wrap them)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def reserve_descriptors(settings: ServerSettings) -> int:
    """The web door's connection cap, after raising the soft descriptor limit to hold
    both connection budgets and a reserve.  If the hard limit does not allow it,
    the web's cap is cut to what is left after the DAIDE TCP budget and the
    reserve (at least 1), with one warning: the web running out of descriptors
    never leaves the TCP door without."""
    needed = settings.max_connections + settings.http_max_connections + DESCRIPTOR_RESERVE
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return settings.http_max_connections
    target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    except (ValueError, OSError):
        pass
    if soft >= needed:
        return settings.http_max_connections
    cap = max(1, min(settings.http_max_connections,
                     soft - settings.max_connections - DESCRIPTOR_RESERVE))
    log.warning("descriptor_limit_low", limit=soft, needed=needed, http_max_connections=cap,
                hint="lower --max-connections/--http-max-connections or raise ulimit -n")
    return cap


async def serve_web(app: Asgi, config: Config, settings: ServerSettings, stop: trio.Event, *,
                    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve ``app`` (hypercorn per connection) until ``stop``; ``task_status`` gets the URL."""
    from hypercorn.app_wrappers import ASGIWrapper
    from hypercorn.trio.tcp_server import TCPServer
    from hypercorn.trio.worker_context import WorkerContext
    from hypercorn.typing import ConnectionState
    from hypercorn.utils import repr_socket_addr

    install_websocket_guard()
    install_error_headers()
    install_h2_request_check()
    web_cap = reserve_descriptors(settings)
    listeners = await trio.open_tcp_listeners(settings.http_port or 0, host=settings.host)
    sock = listeners[0].socket
    url = "http://" + repr_socket_addr(sock.family, sock.getsockname()) + "/"
    gate = ConnectionGate(web_cap, settings.http_connections_per_address,
                          exempt=(*settings.limit_exempt, *settings.trusted_proxies))
    context = WorkerContext(None)
    wrapped = ASGIWrapper(WebDoor(app, settings))  # type: ignore[arg-type]

    async def serve_one(stream: trio.SocketStream, host: str) -> None:
        try:
            await TCPServer(wrapped, config, context, ConnectionState({}),
                            ClosingStream(stream))  # type: ignore[arg-type]
        except Exception as exc:
            # One connection's failure (a bug in hypercorn's or our handling of some
            # input) ends that connection, never the server: one line, at error level
            # because it is a bug to fix (make fuzz reports it).
            leaf = _leaf(exc)
            frames = traceback.extract_tb(leaf.__traceback__)
            log.error("http_connection_failed", peer=host,
                      error=f"{type(leaf).__name__}: {str(leaf)[:200]}",
                      where=f"{Path(frames[-1].filename).name}:{frames[-1].lineno}"
                      if frames else "?")
        finally:
            stream.socket.close()       # even when cancelled before hypercorn closed it
            gate.release(host)

    try:
        async with trio.open_nursery() as handlers:
            async with trio.open_nursery() as acceptors:
                for listener in listeners:
                    acceptors.start_soon(partial(accept_loop, listener, handlers, serve_one,
                                                 door="http", gate=gate))
                task_status.started(url.replace("0.0.0.0", "127.0.0.1"))
                await stop.wait()
                acceptors.cancel_scope.cancel()
            for listener in listeners:
                listener.socket.close()
            await context.terminated.set()
            handlers.cancel_scope.deadline = trio.current_time() + config.graceful_timeout
    finally:
        for listener in listeners:
            listener.socket.close()
