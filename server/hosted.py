"""What a host's game keeps besides its settings: invitations, bots, pause.

A game created by a host (`server.hosting`) is *hosted*: it has a row in
the ``hosted`` table (`server.schema`) holding a `HostedState` as JSON,
written in the same transaction as the action that changed it, so a
restart finds the game as it was before or after an admin action, never
half-way.  Games that open by themselves from the server's template have
none.

An *invitation* holds one seat of a forming game: for a named player
(``--seat FRA=alice``: a given power; an invitation without a power is
a seat whose power is assigned at the start like anybody's: by the
preference list the host handed in with it, ``--invite 'alice [FRA
ENG=GER]'``, if any) or for a server-started bot (``--fill``, ``--bot``,
``fill``).  A list is the invited player's secret as any other (the
Guide, `server.assignment`): it is never shown or logged, and it is kept
here - so that a restart while the game forms still deals by it - only
until the deal, which erases it (`HostedState.without_lists`).  Its code is a
secret shown once to the host; a client uses it by ending its NME name
with ``[invite CODE]`` (docs/hosting.md).  Once the game runs, the powers
played by server-started bots are in ``bots`` (restarted with IAM after a
restart of the server).
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import orjson

#: Letters of an invitation code: no 0/O or 1/I/L to misread.
_CODE_LETTERS = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"


def new_code() -> str:
    """A fresh invitation code, e.g. ``K7Q2-9XMB-3TCP`` (60 bits)."""
    letters = "".join(secrets.choice(_CODE_LETTERS) for _ in range(12))
    return "-".join(letters[i:i + 4] for i in range(0, 12, 4))


@dataclass(frozen=True)
class Invitation:
    """One reserved seat: for ``name`` (a person) or ``bot`` (a bot kind the server starts).

    ``preferences`` is the host-given list of a seat without a power, in the
    text of the name convention (``FRA ENG=GER``, ``random``; docs/hosting.md
    "Which power you get"), until the deal; None: no list."""

    code: str
    name: str
    power: str | None = None
    bot: str | None = None
    preferences: str | None = None


@dataclass(frozen=True)
class HostedState:
    """The hosted part of a game (see the module doc)."""

    invitations: tuple[Invitation, ...] = ()
    #: Powers played by server-started bots, once the game runs: power -> bot kind.
    bots: dict[str, str] = field(default_factory=dict)
    #: Bot kind filling the free seats after ``fill_after`` seconds of forming (None: never).
    fill: str | None = None
    fill_after: float = 0.0
    paused: bool = False

    def to_json(self) -> str:
        return orjson.dumps(asdict(self), option=orjson.OPT_SORT_KEYS).decode()

    @classmethod
    def from_json(cls, text: str) -> HostedState:
        data: dict[str, Any] = orjson.loads(text)
        return cls(invitations=tuple(Invitation(**i) for i in data.get("invitations", ())),
                   bots=dict(data.get("bots", {})), fill=data.get("fill"),
                   fill_after=float(data.get("fill_after", 0.0)),
                   paused=bool(data.get("paused", False)))

    def invitation(self, code: str) -> Invitation | None:
        """The invitation with this code (compared in constant time), or None."""
        found = None
        for invitation in self.invitations:
            if secrets.compare_digest(invitation.code.encode(), code.upper().encode()):
                found = invitation
        return found

    def with_invitations(self, *added: Invitation) -> HostedState:
        return replace(self, invitations=self.invitations + added)

    def without_lists(self) -> HostedState:
        """The state once the powers are dealt: no invitation keeps a list."""
        return replace(self, invitations=tuple(replace(i, preferences=None)
                                               for i in self.invitations))

    @property
    def reserved_powers(self) -> frozenset[str]:
        return frozenset(i.power for i in self.invitations if i.power is not None)


@dataclass(frozen=True)
class AdminAction:
    """One line of a game's admin log: when, who (`server.hosting.Origin` as text),
    what (``pause``, ``eject FRA``...) and how it ended (``done``, or why not)."""

    at: str
    origin: str
    action: str
    outcome: str

