"""Fuzz inputs for the web door: HTTP requests and WebSocket frame sequences, as bytes.

A case (`web_case`) is the byte chunks one connection to ``--http-port``
sends, chosen by a `fuzz.inputs.Chooser` (so a seeded random source, or any
other, makes them):

* **HTTP requests** (`http_request`): methods right and wrong, every route
  of `server.http` and `server.web_api` and random paths (percent escapes,
  NULs, ``..``, digits that are not ASCII, long ones), queries, versions,
  headers (Host the server's own or another, duplicated, missing; content
  types; the page's ``X-Daide-Client``; Origin; Content-Length right, short,
  long - a stalled body -, negative, huge, twice; chunked bodies right and
  broken; ``Expect: 100-continue``; ``Upgrade: h2c``; X-Forwarded-For;
  random names and values, folded lines, bare LFs, hundreds of headers),
  and bodies: JSON of every shape for each API route (the route's own keys
  with values of every JSON type, DAIDE texts nearly right, markup, numbers
  of thousands of digits, deep nesting, NaN, lone surrogates), truncated
  JSON, bytes that are not UTF-8; sometimes two or three pipelined.
* **cleartext HTTP/2** (`h2_session`, one case in twenty): the preface,
  requests on several streams with and without bodies, resets, extended
  CONNECTs, and raw frames of any type, flags and length;
* **WebSocket sessions** (`websocket_session`): a handshake to ``/daide``
  (mostly right; sometimes a wrong version, key or Origin, a deflate offer,
  a ``?watch=``), then frames (RFC 6455 §5.2): binary messages carrying
  DAIDE bytes from `fuzz.inputs.chunks` (IM, DMs, token soups, lying
  frames), text messages, bad opcodes, reserved bits, unmasked frames,
  lengths that lie (up to 2^63 - 1) or are not minimally encoded, messages
  split into continuation fragments with pings and pongs interleaved,
  continuations with no start, endless (empty) continuations, oversized and
  fragmented control frames, closes with codes right and wrong.

``{HOST}`` in a case stands for the server's ``host:port``; the harness
(`fuzz.web_harness`) puts it in before sending.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any, TypeVar

from fuzz.inputs import Chooser, chunks, message, order, string

HOST = b"{HOST}"
PAGES = ("/", "/play", "/watch/1", "/watch/2", "/watch/0", "/web/daide.js", "/web/style.css",
         "/web/play.js", "/web/", "/web/../server/http.py", "/web/%2e%2e/README.md",
         "/favicon.ico", "/daide")
API_GETS = ("/api/games", "/api/games/1", "/api/games/1/history", "/api/games/2",
            "/api/games/0/history", "/api/tokens", "/api/map", "/api/", "/api",
            "/api/games/1/x", "/api/render")
API_POSTS = ("/api/render", "/api/notation", "/api/preview", "/api/summary")
#: Each POST route's own keys (`server.web_api.WebApi.handle`).
API_KEYS = {"/api/render": ("now", "sco", "orders"),
            "/api/notation": ("text", "game", "power"),
            "/api/preview": ("game", "power", "orders", "against"),
            "/api/summary": ("game", "power", "passcode")}
METHODS = ("GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT",
           "get", "PRI", "G\x00T", "")
VERSIONS = ("HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "http/1.1", "HTTP/1.1 x",
            "")
ESCAPES = ("%00", "%C2%B2", "%ff", "%2e%2e", "%2F", "%", "%zz", "%E2%80%AE", "\u00b2", "\xff",
           "//", "/./", "/../", ";", "#", "?", " ", "\t")
NUMBERS = ("1", "2", "0", "-1", "9223372036854775807", "9223372036854775808", "1e3", "\u0661",
           "00001", "9" * 300)


T = TypeVar("T")


def _i(c: Chooser, lo: int, hi: int) -> int:
    return c.integer(lo, hi)


def one(c: Chooser, options: Sequence[T]) -> T:
    return options[c.integer(0, len(options) - 1)]


# --- JSON of every shape ------------------------------------------------------------

def json_value(c: Chooser, depth: int = 0) -> Any:
    """Any JSON value: scalars of every type and size, arrays, objects, some deep."""
    kind = _i(c, 0, 13 if depth < 4 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return bool(_i(c, 0, 1))
    if kind == 2:
        return one(c, (0, 1, -1, 7, 2**31, 2**63 - 1, 2**63, -2**63 - 1, 10**30))
    if kind == 3:
        return _i(c, -10**6, 10**6)
    if kind == 4:
        return one(c, (0.5, -0.0, 1e308, 1e-308, 3.0))
    if kind == 5:
        return string(c)
    if kind == 6:
        return one(c, ("<script>alert(1)</script>", "\x00", "\ud800", "'\"<>&",
                        "A Par - Bur", "F Lon S A Wal - Yor", "a" * 500, "\u202e", ""))
    if kind == 7:
        return daide_text(c)
    if kind == 8:
        return one(c, ("FRA", "fra", "ENG", "XXX", "UNO", "holds", "last", ""))
    if kind <= 10:
        return [json_value(c, depth + 1) for _ in range(_i(c, 0, 4))]
    return {one(c, ("now", "sco", "orders", "game", "power", "x", "")): json_value(c, depth + 1)
            for _ in range(_i(c, 0, 3))}


def daide_text(c: Chooser) -> str:
    """A DAIDE text for ``now``, ``sco`` or an order: nearly right, or not at all."""
    kind = _i(c, 0, 6)
    if kind == 0:
        return "NOW ( SPR 1901 ) ( FRA AMY PAR ) ( ENG FLT LON )"
    if kind == 1:
        return "SCO ( FRA PAR BRE ) ( UNO SER )"
    if kind == 2:
        return order(c)
    if kind == 3:
        return message(c)
    if kind == 4:
        return one(c, ("(", ")", "( (", "NOW", "SCO", "'", "( FRA AMY PAR ) MTO")) * _i(c, 1, 50)
    if kind == 5:
        return "NOW ( SPR 1901 ) " + " ".join(f"( {order(c)[2:-2]} )" for _ in range(_i(c, 0, 3)))
    return string(c)


def api_body(c: Chooser, path: str) -> bytes:
    """A POST body for ``path``: mostly a JSON object of the route's keys."""
    kind = _i(c, 0, 11)
    if kind <= 6:
        keys = API_KEYS.get(path, ("now", "game", "power"))
        body: dict[str, Any] = {}
        for key in keys:
            if _i(c, 0, 4) == 0:
                continue
            if key == "orders" and _i(c, 0, 1):
                body[key] = [order(c) if _i(c, 0, 2) else json_value(c)
                             for _ in range(_i(c, 0, 6 if _i(c, 0, 5) else 70))]
            elif key in ("game", "passcode") and _i(c, 0, 1):
                body[key] = one(c, (1, 2, 0, -1, 1234, 2**63 - 1, 2**63, True, "1", 1.0))
            elif key == "power" and _i(c, 0, 1):
                body[key] = one(c, ("FRA", "ENG", "fra", "UNO", "XXX", ""))
            else:
                body[key] = json_value(c)
        text = json.dumps(body)
        if _i(c, 0, 9) == 0:
            text = text[:_i(c, 0, len(text))]          # cut short
        return text.encode("utf-8", "surrogatepass")
    if kind == 7:
        return json.dumps(json_value(c)).encode("utf-8", "surrogatepass")
    if kind == 8:
        depth = _i(c, 1, 40000)
        return one(c, (b"[", b"{\"a\":")) * depth + one(c, (b"", b"1", b"]" * depth))
    if kind == 9:
        return one(c, (b'{"game": ', b'{"now": ', b"")) + b"9" * _i(c, 1, 6000) + b"}"
    if kind == 10:
        return one(c, (b'{"now": NaN}', b'{"game": Infinity}', b'{"a": "\\ud800"}',
                        b"\xff\xfe{}", b'{"now": "\xc3\x28"}', b"{}", b"", b"null"))
    return c.raw(200)


# --- HTTP requests --------------------------------------------------------------------

def path(c: Chooser) -> str:
    kind = _i(c, 0, 9)
    if kind <= 2:
        base = one(c, API_GETS)
    elif kind <= 4:
        base = one(c, API_POSTS)
    elif kind <= 6:
        base = one(c, PAGES)
    elif kind == 7:
        base = "/api/games/" + one(c, NUMBERS) + one(c, ("", "/history", "/"))
    elif kind == 8:
        base = "/" + "/".join(string(c).replace(" ", "") for _ in range(_i(c, 0, 4)))
    else:
        base = "/" + "x" * _i(c, 0, 9000)
    if _i(c, 0, 5) == 0:
        at = _i(c, 0, len(base))
        base = base[:at] + one(c, ESCAPES) + base[at:]
    if _i(c, 0, 4) == 0:
        base += "?" + "&".join(f"{one(c, ('watch', 'x', ''))}={one(c, NUMBERS + ESCAPES)}"
                               for _ in range(_i(c, 0, 3)))
    return base


def headers(c: Chooser, method: str) -> list[bytes]:
    out: list[bytes] = []
    host = _i(c, 0, 9)
    if host <= 6:
        out.append(b"Host: " + HOST)
    elif host == 7:
        out.append(b"Host: " + one(c, ("evil.example", "localhost", "[::1]", "", "a b",
                                         "x" * 300, "127.0.0.1:99999")).encode())
    elif host == 8:
        out += [b"Host: " + HOST, b"Host: evil.example"]
    if method == "POST" or _i(c, 0, 5) == 0:
        kind = _i(c, 0, 7)
        if kind <= 4:
            out.append(b"Content-Type: application/json")
        elif kind == 5:
            out.append(b"Content-Type: " + one(c, ("text/plain", "APPLICATION/JSON; charset=x",
                                                    "multipart/form-data", "",
                                                    "application/json\x00")).encode("latin-1"))
        if _i(c, 0, 5):
            out.append(b"X-Daide-Client: web")
        elif _i(c, 0, 1):
            out.append(b"X-Daide-Client: " + one(c, ("WEB", "", "web, web")).encode())
    if _i(c, 0, 3) == 0:
        out.append(b"Origin: " + one(c, ("http://{HOST}", "http://evil.example", "null",
                                          "https://play.example", "")).encode())
    if _i(c, 0, 3) == 0:
        out.append(b"Connection: " + one(c, ("close", "keep-alive", "Upgrade", "x")).encode())
    if _i(c, 0, 9) == 0:
        out += [b"Upgrade: h2c", b"HTTP2-Settings: AAMAAABkAAQAAP__", b"Connection: Upgrade, HTTP2-Settings"]
    if _i(c, 0, 9) == 0:
        out.append(b"Expect: 100-continue")
    if _i(c, 0, 6) == 0:
        out.append(b"X-Forwarded-For: " + one(c, ("198.51.100.7", "1.2.3.4, 5.6.7.8", "x",
                                                   "::1", "", "2001:db8::1, unknown",
                                                   "300.1.1.1")).encode())
    for _ in range(_i(c, 1, 3) if _i(c, 0, 7) == 0 else 0):
        name = one(c, ("X-A", "Accept", "Cookie", "Referer", "X\x00", "Bad Name", "", ":x"))
        out.append(name.encode("latin-1") + b": " + c.raw(40).replace(b"\r\n", b""))
    if _i(c, 0, 30) == 0:
        out += [b"X-Many: " + str(i).encode() for i in range(_i(c, 100, 2000))]
    if _i(c, 0, 30) == 0:
        out.append(b"X-Folded: a\r\n b")
    return out


def http_request(c: Chooser) -> bytes:
    """One HTTP/1.x request (its framing right, or not)."""
    kind = _i(c, 0, 9)
    if kind <= 3:
        method = "POST"
        target = one(c, API_POSTS) if _i(c, 0, 4) else path(c)
    elif kind <= 7:
        method = one(c, ("GET", "GET", "HEAD"))
        target = path(c)
    else:
        method, target = one(c, METHODS), path(c)
    version = "HTTP/1.1" if _i(c, 0, 7) else one(c, VERSIONS)
    body = api_body(c, target) if method == "POST" or _i(c, 0, 9) == 0 else b""
    lines = [f"{method} {target} {version}".encode("utf-8", "surrogatepass"),
             *headers(c, method)]
    framing = _i(c, 0, 11)
    if framing <= 7:
        if body or method == "POST":
            lines.append(b"Content-Length: %d" % len(body))
    elif framing == 8:
        lines.append(b"Content-Length: " + one(c, (
            str(len(body) + _i(c, 1, 70000)), str(max(0, len(body) - 3)), "-1", "x",
            "99999999999999999999", "1, 2", " 5")).encode())
    elif framing == 9:
        lines += [b"Content-Length: %d" % len(body), b"Content-Length: %d" % (len(body) + 1)]
    else:
        lines.append(b"Transfer-Encoding: " + one(c, ("chunked", "chunked", "gzip, chunked",
                                                       "identity")).encode())
        body = chunked(c, body)
    end = b"\r\n" if _i(c, 0, 15) else b"\n"
    return end.join(lines) + end + end + body


def chunked(c: Chooser, body: bytes) -> bytes:
    """``body`` in chunked transfer coding, right or broken."""
    out = bytearray()
    at = 0
    while at < len(body):
        size = _i(c, 1, max(1, len(body) - at))
        piece = body[at:at + size]
        head = b"%x" % len(piece)
        if _i(c, 0, 15) == 0:
            head = one(c, (b"zz", b"-1", b"ffffffffffffffffff", b"%x;ext=1" % len(piece)))
        out += head + b"\r\n" + piece + b"\r\n"
        at += size
    if _i(c, 0, 9):
        out += b"0\r\n" + (b"X-Trailer: 1\r\n" if _i(c, 0, 5) == 0 else b"") + b"\r\n"
    return bytes(out)


# --- WebSocket sessions ---------------------------------------------------------------

def handshake(c: Chooser) -> bytes:
    target = "/daide"
    if _i(c, 0, 5) == 0:
        target += "?watch=" + one(c, NUMBERS + ESCAPES)
    elif _i(c, 0, 20) == 0:
        target = path(c)
    key = base64.b64encode(c.raw(16).ljust(16, b"k")[:16]).decode()
    lines = [f"GET {target} HTTP/1.1".encode("utf-8", "surrogatepass"), b"Host: " + HOST,
             b"Upgrade: websocket", b"Connection: Upgrade",
             b"Sec-WebSocket-Key: " + (key.encode() if _i(c, 0, 15) else b"short"),
             b"Sec-WebSocket-Version: " + (b"13" if _i(c, 0, 15) else b"8")]
    origin = _i(c, 0, 7)
    if origin <= 3:
        lines.append(b"Origin: http://" + HOST)
    elif origin == 4:
        lines.append(b"Origin: " + one(c, ("http://evil.example", "null",
                                            "https://play.example")).encode())
    if _i(c, 0, 5) == 0:
        lines.append(b"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits")
    if _i(c, 0, 9) == 0:
        lines.append(b"Sec-WebSocket-Protocol: daide, x")
    if _i(c, 0, 20) == 0:
        lines = [line for line in lines if not line.startswith(one(c, (b"Upgrade", b"Conn")))]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def ws_frame(c: Chooser, opcode: int, payload: bytes, *, fin: bool = True) -> bytes:
    """A client frame (RFC 6455 §5.2); sometimes with reserved bits, unmasked, or a length
    that lies or is not minimally encoded."""
    first = (0x80 if fin else 0) | (opcode & 0x0F)
    if _i(c, 0, 30) == 0:
        first |= _i(c, 1, 7) << 4                      # RSV1-3
    masked = _i(c, 0, 30) != 0
    length = len(payload)
    lie = _i(c, 0, 25)
    if lie == 0:
        length = one(c, (length + 1, max(0, length - 1), 2**16, 2**31, 2**62, 2**63 - 1))
    wide = lie == 1
    if length < 126 and not wide:
        size = bytes([length])
    elif length < 65536 and (not wide or _i(c, 0, 1)):
        size = bytes([126]) + length.to_bytes(2, "big")
    else:
        size = bytes([127]) + length.to_bytes(8, "big")
    if masked:
        mask = c.raw(4).ljust(4, b"\0")[:4]
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        return bytes([first, size[0] | 0x80]) + size[1:] + mask + body
    return bytes([first]) + size + payload


def control(c: Chooser) -> bytes:
    """A ping, pong or close frame (now and then oversized or fragmented)."""
    kind = _i(c, 0, 5)
    if kind <= 2:
        payload = c.raw(125 if _i(c, 0, 9) else 300)
        return ws_frame(c, one(c, (9, 10)), payload, fin=_i(c, 0, 15) != 0)
    code = one(c, (1000, 1001, 1002, 1003, 1005, 1006, 1009, 1011, 0, 999, 2999, 3000, 4999,
                    5000, 65535))
    reason = one(c, (b"", b"bye", b"\xff\xfe", b"x" * 200))
    payload = (code.to_bytes(2, "big") + reason) if _i(c, 0, 5) else one(c, (b"", b"\x03"))
    return ws_frame(c, 8, payload)


def fragmented(c: Chooser, payload: bytes) -> list[bytes]:
    """``payload`` as a binary message in fragments, with control frames between."""
    cuts = sorted(_i(c, 0, len(payload)) for _ in range(_i(c, 1, 5)))
    pieces = [payload[a:b] for a, b in zip([0, *cuts], [*cuts, len(payload)], strict=True)]
    out = []
    for i, piece in enumerate(pieces):
        out.append(ws_frame(c, 2 if i == 0 else 0, piece, fin=i == len(pieces) - 1))
        if _i(c, 0, 3) == 0:
            out.append(control(c) if _i(c, 0, 3) else ws_frame(c, 9, b"p"))
    return out


def websocket_session(c: Chooser) -> list[bytes]:
    """A handshake, then frames; the chunks to send one after the other."""
    out = [handshake(c)]
    daide = chunks(c, with_im=True)
    for data in daide:
        kind = _i(c, 0, 19)
        if kind <= 10:
            out.append(ws_frame(c, 2, data))
        elif kind <= 12:
            out += fragmented(c, data)
        elif kind == 13:
            out.append(control(c))
            out.append(ws_frame(c, 2, data))
        elif kind == 14:
            out.append(ws_frame(c, 1, data if _i(c, 0, 1) else b"IM"))    # text: not DAIDE
        elif kind == 15:
            out.append(ws_frame(c, one(c, (3, 4, 5, 6, 7, 11, 12, 13, 14, 15)), data))
        elif kind == 16:
            out.append(ws_frame(c, 0, data))                              # no start
        elif kind == 17:
            endless = [ws_frame(c, 0, b"" if _i(c, 0, 1) else data[:2], fin=False)
                       for _ in range(_i(c, 10, 150))]
            out.append(ws_frame(c, 2, data[:1], fin=False) + b"".join(endless))
        elif kind == 18:
            out.append(ws_frame(c, 2, data, fin=False) + ws_frame(c, 2, data))  # no end
        else:
            out.append(ws_frame(c, 2, data + c.raw(2000) * _i(c, 1, 40)))     # big message
    if _i(c, 0, 2) == 0:
        out.append(control(c))
    if _i(c, 0, 9) == 0:
        out.append(c.raw(100))
    return out


# --- cleartext HTTP/2 (prior knowledge) ---------------------------------------------------

def h2_frame(c: Chooser) -> bytes:
    """A raw HTTP/2 frame of any type, flags, stream and length (RFC 9113 §4.1)."""
    payload = c.raw(64)
    length = len(payload) if _i(c, 0, 5) else _i(c, 0, 2**24 - 1)
    return (length.to_bytes(3, "big") + bytes([_i(c, 0, 10), _i(c, 0, 255)])
            + _i(c, 0, 9).to_bytes(4, "big") + payload)


def h2_session(c: Chooser) -> list[bytes]:
    """The HTTP/2 preface and settings, then requests on streams (some of them with
    bodies, some reset, some left open) and raw frames."""
    import h2.config
    import h2.connection

    conn = h2.connection.H2Connection(h2.config.H2Configuration(
        client_side=True, header_encoding=None, validate_outbound_headers=False,
        validate_inbound_headers=False))
    conn.initiate_connection()
    out = [conn.data_to_send()]
    for stream in range(1, 2 * _i(c, 1, 12), 2):
        method = "POST" if _i(c, 0, 2) == 0 else one(c, ("GET", "GET", "HEAD", "PUT", "CONNECT"))
        target = one(c, API_POSTS) if method == "POST" else path(c)
        fields = [(b":method", method.encode()), (b":path", target.encode("utf-8", "replace")),
                  (b":scheme", b"http"), (b":authority", b"127.0.0.1")]
        if method == "POST":
            fields += [(b"content-type", b"application/json"), (b"x-daide-client", b"web")]
        if _i(c, 0, 7) == 0:
            fields += [(b":protocol", b"websocket"), (b"sec-websocket-version", b"13")]
        if _i(c, 0, 9) == 0:
            del fields[_i(c, 0, len(fields) - 1)]
        body = api_body(c, target) if method == "POST" else b""
        try:
            conn.send_headers(stream, fields, end_stream=not body and _i(c, 0, 5) != 0)
            if body:
                conn.send_data(stream, body[:16384], end_stream=_i(c, 0, 5) != 0)
            if _i(c, 0, 9) == 0:
                conn.reset_stream(stream)
        except Exception:       # h2 refuses what its state machine forbids: stop there
            break
        out.append(conn.data_to_send())
        if _i(c, 0, 5) == 0:
            out.append(h2_frame(c))
    return out


def web_case(c: Chooser) -> tuple[str, list[bytes]]:
    """One connection's case: its kind and the chunks to send.  The kind is "http",
    "websocket" (the frames go once the handshake is answered, as a client waits,
    RFC 6455 §4.1), "websocket-eager" (the frames go at once) or "h2" (cleartext
    HTTP/2, prior knowledge)."""
    if _i(c, 0, 19) == 0:
        return "h2", h2_session(c)
    if _i(c, 0, 9) < 6:
        data = b"".join(http_request(c) for _ in range(1 if _i(c, 0, 4) else _i(c, 2, 3)))
        if _i(c, 0, 15) == 0:
            data = data[:_i(c, 0, len(data))]               # cut anywhere
        pieces: list[bytes] = []
        while data:
            cut = len(data) if _i(c, 0, 2) else _i(c, 1, len(data))
            pieces.append(data[:cut])
            data = data[cut:]
        return "http", pieces or [b""]
    return "websocket" if _i(c, 0, 9) else "websocket-eager", websocket_session(c)
