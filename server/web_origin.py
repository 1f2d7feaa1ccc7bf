"""Whose requests the web door takes: the page's own origin and the server's own names.

A browser keeps one site from reading or driving another by comparing
origins, and an origin is a *name*: a page of ``evil.example`` that makes
``evil.example`` resolve to this server (DNS rebinding) is, for the browser,
the same site as this server reached under that name - it sends ``Origin:
http://evil.example:PORT`` and ``Host: evil.example:PORT``, and the two
match.  So the page's own origin is judged from the ``Host`` only when that
``Host`` is one of the server's own (`OriginPolicy.own_host`):

* an IP address literal (``127.0.0.1:8080``, ``[::1]:8080``,
  ``192.0.2.7:8080``): a rebinding page's Host is always its own *name*,
  never an address, and a browser writes an address URL's Host as the address;
* ``localhost`` and the names under ``.localhost``, which browsers resolve to
  loopback themselves, without asking DNS (RFC 6761 §6.3);
* the name the server listens on (``--host``), when it is a name;
* the hosts of the ``--allow-origin`` origins: a server reached under a
  public name (directly, or through a proxy that passes the Host on) is told
  that name with ``--allow-origin https://diplomacy.example``.

Any other Host is not the server's: a WebSocket handshake from a browser
(one with an Origin) and every ``POST`` to ``/api/`` that names it get 421
(Misdirected Request) and one line saying which flag makes the name the
server's (docs/web.md, "DNS rebinding").  Pages and ``GET``s of the API are
answered whatever the Host: they hold nothing another site may not read.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

#: A Host header: a name or IPv4 address with an optional port, or [IPv6] with one.
_HOST = re.compile(r"(?P<name>[A-Za-z0-9.\-]+)(:\d{1,5})?|\[(?P<ip6>[0-9A-Fa-f:.]+)\](:\d{1,5})?")


def host_name(host: str | None) -> str | None:
    """The name or address of a Host header, lower case and without port or final
    dot; None when it is not a well-formed Host."""
    if not host:
        return None
    match = _HOST.fullmatch(host.strip())
    if match is None:
        return None
    return (match.group("name") or match.group("ip6")).lower().rstrip(".")


def is_host_header(host: str) -> bool:
    """``host`` is a well-formed Host header (safe to name in a response header)."""
    return _HOST.fullmatch(host) is not None


def origin_key(origin: str) -> str:
    """An origin as compared: lower case, no trailing slash."""
    return origin.strip().rstrip("/").lower()


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class OriginPolicy:
    """The server's own names and the origins its WebSocket takes (module docstring)."""

    def __init__(self, allow_origins: Iterable[str], listen_host: str = "") -> None:
        self.allowed_origins = frozenset(origin_key(o) for o in allow_origins)
        names = {(urlsplit(o).hostname or "").rstrip(".") for o in self.allowed_origins}
        listen = host_name(listen_host)
        if listen is not None and not _is_address(listen):
            names.add(listen)
        self.names = frozenset(n for n in names if n)

    def own_host(self, host: str | None) -> bool:
        """``host`` (a Host header) names this server: an address, a localhost name, the
        listening name or an ``--allow-origin`` host."""
        name = host_name(host)
        if name is None:
            return False
        return (_is_address(name) or name == "localhost" or name.endswith(".localhost")
                or name in self.names)

    def origin_allowed(self, origin: str, host: str | None) -> bool:
        """A browser's ``origin`` may open the WebSocket: one of ``--allow-origin``, or the
        page's own - ``http://`` or ``https://`` and the Host asked, that Host being one
        of the server's (`own_host`)."""
        key = origin_key(origin)
        if key in self.allowed_origins:
            return True
        if host is None or not self.own_host(host):
            return False
        host = host.strip().lower()
        return key in (f"http://{host}", f"https://{host}")

    def misdirected(self, host: str | None) -> str:
        """The one line of a 421 for a Host that is not the server's."""
        shown = host if host is not None and len(host) <= 80 else (host or "")[:80] + "..."
        name = host_name(host)
        hint = (f": if it is this server's name, start it with --allow-origin "
                f"https://{name}" if name else "")
        return f"{shown!r} is not a name of this server{hint}"
