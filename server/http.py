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
  ``/daide?game=N`` is game N's own door, as its own TCP port is (its map's RM;
  every NME, OBS and IAM for that game: docs/hosting.md);
* ``/api/...`` - `server.web_api`: what DAIDE does not carry (the list of
  games, the token table, map pictures, the English order notation, the
  preview and the summary of submitted orders);
* ``/admin`` the host's page and ``/api/admin/...`` its API - `server.admin_api`,
  behind the admin token (docs/hosting.md).

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

from server.admin_api import PREFIX as ADMIN_PREFIX
from server.admin_api import AdminApi
from server.connection import handle_connection
from server.web_api import ApiError, WebApi, game_number, is_number
from server.web_origin import OriginPolicy, is_host_header
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
PAGES = {"/": "index.html", "/play": "play.html", "/admin": "admin.html"}
STATIC_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html",
                ".svg": "image/svg+xml", ".json": "application/json", ".tsv": "text/plain"}


class App:
    """The ASGI application: pages, API, WebSocket (see the module docstring).

    The web door is as strict as the TCP one (docs/web.md, "Requests"): a
    WebSocket is upgraded only from the page's own origin (or one named by
    ``--allow-origin``; no Origin at all, a non-browser client, is let in),
    a browser's WebSocket and every API POST must name one of the server's own
    hosts (`server.web_origin`: 421 otherwise, against DNS rebinding),
    a POST to the API must be ``application/json`` carrying the header
    ``X-Daide-Client: web`` (which a form or a simple request of another
    site cannot send), every bad input is a 4xx with a one-line
    ``{"error": ...}``, and every answer carries the security headers
    (`_security_headers`).
    """

    def __init__(self, lobby: Lobby, web_root: Path = WEB_ROOT) -> None:
        self.lobby = lobby
        self.api = WebApi(lobby)
        self.admin = AdminApi(lobby)      # /api/admin/...: the host's, behind the admin token
        self.web_root = web_root.resolve()
        self.origins = OriginPolicy(lobby.settings.allow_origins, lobby.settings.host)

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
        client = scope.get("client") or ("?", 0)
        peer = f"{client[0]}:{client[1]}"
        try:
            if scope["path"] != "/daide":
                raise ApiError(404, f"no WebSocket at {scope['path']!r}")
            self._check_origin(_header(scope, b"origin"), _header(scope, b"host"))
            query = _query(scope)
            text = query.get("watch", "")
            watch = game_number(text, "watch") if text else None
            text = query.get("game", "")
            door = game_number(text, "game") if text else None
            if door is not None and door not in self.lobby.games:
                raise ApiError(404, f"game {door} is not being played here")
            if door is None and watch in self.lobby.games:
                door = watch        # a watched game speaks its own map's tokens
        except ApiError as exc:
            log.warning("websocket_refused", peer=peer, status=exc.status, reason=exc.message)
            await _deny(scope, send, exc)
            return
        await send({"type": "websocket.accept"})
        stream = WebSocketStream(receive, send)
        log.info("websocket_opened", peer=peer, watch=watch, game=door)
        await handle_connection(stream, self.lobby, peer, watch_game=watch, door=door)

    def _check_origin(self, origin: str | None, host: str | None) -> None:
        """Raise unless the handshake is a program's (no Origin: browsers always send one
        on a WebSocket, so it is a bot or a script, and the passcode guards a seat as on
        TCP), from an ``--allow-origin`` origin, or from the page's own origin on one of the
        server's own hosts (421 for another Host: a rebinding page's, `server.web_origin`)."""
        if origin is None or self.origins.origin_allowed(origin, host):
            return
        if not self.origins.own_host(host):
            raise ApiError(421, self.origins.misdirected(host))
        raise ApiError(403, f"origin {origin!r} is not allowed (--allow-origin)")

    # --- HTTP -----------------------------------------------------------------------

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        method = scope["method"]
        path = scope["path"]
        headers = _security_headers(scope)
        try:
            query = _query(scope)
            if path.startswith("/api/"):
                if method not in ("GET", "POST"):
                    raise ApiError(405, f"{method} is not allowed here")
                data: dict[str, Any] = {}
                if method == "POST":
                    host = _header(scope, b"host")
                    if not self.origins.own_host(host):
                        raise ApiError(421, self.origins.misdirected(host))
                    _check_post(scope)
                    data = _json_object(await _read_body(receive))
                if path.startswith(ADMIN_PREFIX + "/"):
                    result = await self.admin.handle(scope, method, path, data,
                                                     _client_host(scope))
                else:
                    result = await self.api.handle(method, path, query, data,
                                                   _client_host(scope))
                await _respond(send, 200, json.dumps(result).encode(), "application/json",
                               headers=headers)
                return
            if method not in ("GET", "HEAD"):
                raise ApiError(405, f"{method} is not allowed here")
            file = self._page(path)
            if file is None:
                raise ApiError(404, f"no page {path!r}")
            kind = STATIC_TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0] \
                or "application/octet-stream"
            content = await trio.Path(file).read_bytes()
            await _respond(send, 200, content if method == "GET" else b"", kind,
                           length=len(content), headers=headers)
        except ApiError as exc:
            if exc.status in (403, 415, 421) and path.startswith("/api/"):
                log.warning("http_refused", path=path, status=exc.status, reason=exc.message,
                            host=_client_host(scope))
            await _respond(send, exc.status, _error(exc.message), "application/json",
                           headers=headers)
        except RecursionError:
            # Thousands of nested brackets, in the JSON or in a DAIDE text inside it.
            await _respond(send, 400, _error("the request is nested too deeply"),
                           "application/json", headers=headers)
        except Exception:
            log.exception("http_request_failed", path=path)
            await _respond(send, 500, _error("internal error"), "application/json",
                           headers=headers)

    def _page(self, path: str) -> Path | None:
        """The file a page or ``/web/...`` path names (never outside the web root)."""
        if path in PAGES:
            name = PAGES[path]
        elif path.startswith("/watch/") and is_number(path[7:]):
            name = "watch.html"
        elif path.startswith("/web/"):
            name = path[5:]
        else:
            return None
        if not name.isprintable():          # a NUL or a control character: no file has it
            return None
        try:
            file = (self.web_root / name).resolve()
            if not file.is_relative_to(self.web_root) or not file.is_file():
                return None
        except (OSError, ValueError):
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


#: The header the pages set on every API POST (`web/daide.js` api()): a form or
#: a "simple" cross-site request cannot carry it, and a fetch that does needs a
#: CORS preflight this server never grants.
CLIENT_HEADER = (b"x-daide-client", "web")


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1").strip()
    return None


def _query(scope: Scope) -> dict[str, str]:
    raw = scope.get("query_string", b"").decode("latin-1")
    return {k: v[0] for k, v in parse_qs(raw, errors="replace").items()}


def _check_post(scope: Scope) -> None:
    """An API POST is JSON from the page (`CLIENT_HEADER`): 415 or 403 otherwise."""
    kind = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ApiError(415, "the API takes application/json")
    name, value = CLIENT_HEADER
    if _header(scope, name) != value:
        raise ApiError(403, "the API takes requests of the page only (X-Daide-Client: web)")


def _json_object(body: bytes) -> dict[str, Any]:
    if not body:
        return {}
    try:
        data = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise ApiError(400, "the request body is not UTF-8") from None
    except ValueError as exc:                 # JSONDecodeError, or a number of > 4300 digits
        raise ApiError(400, f"bad JSON: {str(exc)[:120]}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


def _error(message: str) -> bytes:
    """The one-line answer of an error (a message quoting a client's text is cut short)."""
    line = " ".join(message.split())
    return json.dumps({"error": line if len(line) <= 300 else line[:300] + "..."}).encode()


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


def _security_headers(scope: Scope) -> list[tuple[bytes, bytes]]:
    """Headers of every answer: the pages run only their own scripts and styles, talk
    only to this host (fetch and the WebSocket), and are framed by nobody."""
    host = _header(scope, b"host") or ""
    sockets = f" ws://{host} wss://{host}" if is_host_header(host) else ""
    policy = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
              f"connect-src 'self'{sockets}; base-uri 'none'; form-action 'self'; "
              "frame-ancestors 'none'")
    return [(b"content-security-policy", policy.encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"same-origin")]


async def _deny(scope: Scope, send: Send, error: ApiError) -> None:
    """Refuse a WebSocket handshake with an HTTP answer (or a plain 403 if the server
    cannot send one)."""
    if "websocket.http.response" not in scope.get("extensions", {}):
        await send({"type": "websocket.close", "code": 1008})
        return
    body = _error(error.message)
    headers = [(b"content-type", b"application/json; charset=utf-8"),
               (b"content-length", str(len(body)).encode()), *_security_headers(scope)]
    await send({"type": "websocket.http.response.start", "status": error.status,
                "headers": headers})
    await send({"type": "websocket.http.response.body", "body": body})


async def _respond(send: Send, status: int, body: bytes, content_type: str, *,
                   length: int | None = None,
                   headers: list[tuple[bytes, bytes]] | None = None) -> None:
    all_headers = [(b"content-type", content_type.encode() + (b"; charset=utf-8"
                                                             if content_type.startswith("text/")
                                                             or content_type.endswith("json")
                                                             else b"")),
                   (b"content-length", str(len(body) if length is None else length).encode()),
                   (b"cache-control", b"no-store"), *(headers or ())]
    await send({"type": "http.response.start", "status": status, "headers": all_headers})
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
    """Serve the web side until ``stop`` is set; ``task_status`` gets the base URL.

    Accepting and the web door's limits are `server.web_door`'s (docs/hardening.md)."""
    from hypercorn.config import Config

    from server.web_door import serve_web

    settings = lobby.settings
    config = Config()
    host = settings.host
    config.bind = [f"[{host}]:{settings.http_port}" if ":" in host
                   else f"{host}:{settings.http_port}"]
    config.accesslog = None
    config.errorlog = None           # our own structlog lines instead of hypercorn's text
    config.graceful_timeout = settings.shutdown_grace
    # A DAIDE frame is at most its header and max_frame_body bytes; a bigger
    # message is refused from its frame header, before it is buffered
    # (server.web_door.GuardedWSStream).
    config.websocket_max_message_size = settings.max_frame_body + 4
    # The keep-alive timer runs until a request's headers are complete: it is
    # the headers' timeout (the body's is server.web_door.WebDoor's).
    config.keep_alive_timeout = settings.http_request_timeout
    # Cleartext HTTP/2 (prior knowledge; browsers use it over TLS only) multiplies what
    # one connection may hold in flight by its streams: few are enough.
    config.h2_max_concurrent_streams = 8

    async def started(task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
        await serve_web(App(lobby), config, settings, stop, task_status=task_status)

    async with trio.open_nursery() as nursery:
        try:
            url = await nursery.start(started)
        except BaseException as exc:
            refused = _os_error(exc)
            if refused is None:
                raise
            raise HttpListenError(f"cannot listen on {config.bind[0]} (HTTP): "
                                  f"{refused.strerror or refused}") from None
        log.info("http_listening", url=url)
        task_status.started(url)
