"""What a door and the host (`server.hosting.Host`) say to each other: who asks, what
game to open, and the one error every operation refuses with (its HTTP statuses).

A module of its own, importing nothing of the server, so that every door
can build these without importing `server.hosting` - the DAIDE admin
messages (`server.admin_adm`) are called from the lobby, which
`server.hosting` itself builds on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: HTTP statuses of `HostingError` (the API answers with them; the CLI prints the message).
BAD_REQUEST, UNAUTHORIZED, NOT_FOUND, CONFLICT, UNAVAILABLE = 400, 401, 404, 409, 503


class HostingError(Exception):
    """An operation refused: one sentence saying why; nothing was changed."""

    def __init__(self, message: str, status: int = BAD_REQUEST) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Origin:
    """Who asked: the door (``cli``, ``http``, ``web``, ``daide``) and the peer's address,
    plus, for DAIDE, the name the client gave (stored in the admin log)."""

    door: str
    address: str
    who: str = ""

    def __str__(self) -> str:
        return f"{self.door} {self.address}" + (f" ({self.who})" if self.who else "")


@dataclass(frozen=True)
class GameSpec:
    """What ``daide game new`` asks for.

    ``settings`` are checked when built (`server.settings.GameSettings`);
    ``port`` there may be 0 (any free port, chosen at creation).  ``seats``
    reserves powers for invited players by name (``--seat FRA=alice``):
    each gets an invitation code, returned once by `Host.new_game`.
    ``invites`` invites players without a fixed power, each written as a
    DAIDE name that may end with a preference list (``alice [FRA ENG=GER]``,
    ``bob [random]``, ``carol``): the power of each is dealt at the start by
    that list (`server.assignment`).
    ``fill`` is a bot kind (``dumbbot``...) started by the server into every
    seat that is neither reserved nor taken when ``fill_after`` seconds have
    passed (0: at once).  ``bots`` puts a given bot on a given power.
    """

    settings: Any                   # server.settings.GameSettings
    seats: dict[str, str] = field(default_factory=dict)
    fill: str | None = None
    fill_after: float = 0.0
    bots: dict[str, str] = field(default_factory=dict)
    invites: tuple[str, ...] = ()
