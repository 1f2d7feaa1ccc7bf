"""The web side of the server: static pages, a read-only JSON API, DAIDE over WebSocket.

`serve_http` runs beside the TCP listener in the same trio process when
``ServerSettings.http_port`` is set (``daide serve --http-port P``).  HTTP
and WebSocket are hypercorn's (in trio mode, driving `App`, a small ASGI
application): a maintained HTTP/1.1 + WebSocket implementation (h11 and
wsproto underneath) instead of a hand-written parser.

Routes (docs/web.md has the user's view):

* ``/`` the games, ``/watch/N`` watch game N, ``/play`` join or rejoin -
  HTML pages of the ``web`` package, whose ES modules are under ``/web/``;
* ``/daide`` - DAIDE over WebSocket: each binary message one frame, served
  by `server.connection.handle_connection` like a TCP connection
  (`server.websocket_stream`); ``/daide?watch=N`` makes an OBS watch game N;
* ``/api/...`` - `server.web_api`: what DAIDE does not carry (the list of
  games, the token table, map pictures, the English order notation, the
  preview and the summary of submitted orders).

Nothing about the rules runs in the page: every answer that needs them
(legality, adjudication) comes from the server's own engine.
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

import structlog
import trio

from server.connection import handle_connection
from server.web_api import ApiError, WebApi
from server.websocket_stream import WebSocketStream

if TYPE_CHECKING:
    from server.lobby import Lobby

log = structlog.get_logger("server.http")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

#: The page files (the ``web`` package directory).
WEB_ROOT = Path(__file__).resolve().parent.parent / "web"
#: Largest request body the API reads (a preview's orders, a notation line).
MAX_BODY = 65536
#: Pages by path; each is a file of WEB_ROOT.
PAGES = {"/": "index.html", "/play": "play.html"}
STATIC_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html",
                ".svg": "image/svg+xml", ".json": "application/json", ".tsv": "text/plain"}


class App:
    """The ASGI application: pages, API, WebSocket (see the module docstring)."""

    def __init__(self, lobby: Lobby, web_root: Path = WEB_ROOT) -> None:
        self.lobby = lobby
        self.api = WebApi(lobby)
        self.web_root = web_root.resolve()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await _lifespan(receive, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)
        elif kind == "http":
            await self._http(scope, receive, send)

    # --- WebSocket ------------------------------------------------------------------

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        first = await receive()
        if first.get("type") != "websocket.connect":
            return
        if scope["path"] != "/daide":
            await send({"type": "websocket.close", "code": 1008})
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        watch = _int_or_none(query.get("watch", [""])[0])
        await send({"type": "websocket.accept"})
        client = scope.get("client") or ("?", 0)
        peer = f"{client[0]}:{client[1]}"
        stream = WebSocketStream(receive, send)
        log.info("websocket_opened", peer=peer, watch=watch)
        await handle_connection(stream, self.lobby, peer, watch_game=watch)

    # --- HTTP -----------------------------------------------------------------------

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        method = scope["method"]
        path = scope["path"]
        query = {k: v[0] for k, v in parse_qs(scope.get("query_string", b"").decode()).items()}
        try:
            if path.startswith("/api/"):
                body = await _read_body(receive) if method == "POST" else b""
                if method not in ("GET", "POST"):
                    raise ApiError(405, f"{method} is not allowed here")
                data = json.loads(body) if body else {}
                if not isinstance(data, dict):
                    raise ApiError(400, "the request body must be a JSON object")
                result = await self.api.handle(method, path, query, data, _client_host(scope))
                await _respond(send, 200, json.dumps(result).encode(), "application/json")
                return
            if method not in ("GET", "HEAD"):
                raise ApiError(405, f"{method} is not allowed here")
            file = self._page(path)
            if file is None:
                raise ApiError(404, f"no page {path}")
            kind = STATIC_TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0] \
                or "application/octet-stream"
            content = await trio.Path(file).read_bytes()
            await _respond(send, 200, content if method == "GET" else b"", kind,
                           length=len(content))
        except ApiError as exc:
            await _respond(send, exc.status, json.dumps({"error": exc.message}).encode(),
                           "application/json")
        except json.JSONDecodeError as exc:
            await _respond(send, 400, json.dumps({"error": f"bad JSON: {exc}"}).encode(),
                           "application/json")
        except Exception:
            log.exception("http_request_failed", path=path)
            await _respond(send, 500, b'{"error": "internal error"}', "application/json")

    def _page(self, path: str) -> Path | None:
        """The file a page or ``/web/...`` path names (never outside the web root)."""
        if path in PAGES:
            name = PAGES[path]
        elif path.startswith("/watch/") and path[7:].isdigit():
            name = "watch.html"
        elif path.startswith("/web/"):
            name = path[5:]
        else:
            return None
        file = (self.web_root / name).resolve()
        if not file.is_relative_to(self.web_root) or not file.is_file():
            return None
        return file


class HttpListenError(OSError):
    """The web side's port cannot be listened on; the message names it."""


def _os_error(exc: BaseException) -> OSError | None:
    """The OSError inside ``exc`` (hypercorn's nurseries wrap it in exception groups)."""
    if isinstance(exc, OSError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _os_error(inner)
            if found is not None:
                return found
    return None


def _int_or_none(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def _client_host(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "?"


async def _read_body(receive: Receive) -> bytes:
    body = bytearray()
    while True:
        event = await receive()
        if event["type"] != "http.request":
            raise ApiError(400, "the request ended early")
        body += event.get("body", b"")
        if len(body) > MAX_BODY:
            raise ApiError(413, f"request body over {MAX_BODY} bytes")
        if not event.get("more_body"):
            return bytes(body)


async def _respond(send: Send, status: int, body: bytes, content_type: str, *,
                   length: int | None = None) -> None:
    headers = [(b"content-type", content_type.encode() + (b"; charset=utf-8"
                                                         if content_type.startswith("text/")
                                                         or content_type.endswith("json")
                                                         else b"")),
               (b"content-length", str(len(body) if length is None else length).encode()),
               (b"cache-control", b"no-store")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        event = await receive()
        if event["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif event["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def serve_http(lobby: Lobby, stop: trio.Event, *,
                     task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve the web side until ``stop`` is set; ``task_status`` gets the base URL."""
    from hypercorn.config import Config
    from hypercorn.trio import serve

    settings = lobby.settings
    config = Config()
    host = settings.host
    config.bind = [f"[{host}]:{settings.http_port}" if ":" in host
                   else f"{host}:{settings.http_port}"]
    config.accesslog = None
    config.errorlog = None           # our own structlog lines instead of hypercorn's text
    config.graceful_timeout = settings.shutdown_grace
    # A DAIDE frame is at most its header and max_frame_body bytes; a bigger
    # message is refused by the WebSocket layer before it is buffered.
    config.websocket_max_message_size = settings.max_frame_body + 4
    config.keep_alive_timeout = 30

    async def started(task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED
                      ) -> None:
        await serve(App(lobby), config, shutdown_trigger=stop.wait,  # type: ignore[arg-type]
                    task_status=task_status)

    async with trio.open_nursery() as nursery:
        try:
            binds = await nursery.start(started)
        except BaseException as exc:
            refused = _os_error(exc)
            if refused is None:
                raise
            raise HttpListenError(f"cannot listen on {config.bind[0]} (HTTP): "
                                  f"{refused.strerror or refused}") from None
        url = binds[0].replace("0.0.0.0", "127.0.0.1") + "/"
        log.info("http_listening", url=url)
        task_status.started(url)
