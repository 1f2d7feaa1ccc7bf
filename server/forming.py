"""A forming game's clients, and the deal that seats them at the start.

A game is *forming* until every power has a client that accepted the map
(docs/protocol.md §8.1).  Its actor (`server.game.Game`) keeps a `Forming`
and hands it what concerns those clients:

* an NME (`Forming.join`): refused (REJ) when the game is no longer forming,
  has no seat left, or the invitation's seat is held by a client still
  here, or when the name's preference list is malformed; otherwise the
  client is *joining* - YES, then the MAP to accept;
* its YES (MAP) (`Forming.take_map`): the client has *accepted*, and the
  last seat accepted starts the game;
* a joining or accepted client that leaves or rejects the map
  (`Forming.forget`): its seat, its claim (`GameHandle.claims`) and its
  invitation are free again (13.1);
* the deal (`Forming.deal`): invited seats with a power get it, every other
  power is assigned by the requests and preference lists of the rest
  (`server.assignment`, docs/hosting.md "Which power you get"), each seat
  gets a fresh passcode, and the claims and invitation codes are spent.

The game does the rest of the start - storing it, HLO, SCO, NOW, the first
clock - since from then on the power's seat is the game's.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass

from structlog.typing import FilteringBoundLogger

from engine.variants import Variant
from protocol.messages import MapMessage, Message, Rej, Yes
from server.assignment import NO_PREFERENCE, AssignmentError, Invited, Wish, assign, parse_name
from server.events import GameHandle
from server.hosted import HostedState, Invitation
from server.session import Client, Role
from server.store import Seat


def new_passcode(power: str, taken: Callable[[str, int], bool]) -> int:
    """A power's passcode for IAM (1-8191, docs/protocol.md §13.2) that no other
    game of the server gives the same power (the lobby routes an IAM by it)."""
    while True:
        code = secrets.randbelow(8191) + 1
        if not taken(power, code):
            return code


@dataclass(frozen=True)
class Deal:
    """Who plays which power, as the deal seated them (power order)."""

    seats: dict[str, Seat]
    players: dict[str, Client]
    #: Powers dealt to invitations of server-started bots: power -> bot kind.
    bots: dict[str, str]


class Forming:
    """The clients of a forming game (see the module doc)."""

    def __init__(self, handle: GameHandle, variant: Variant, level: int,
                 passcode_taken: Callable[[str, int], bool],
                 log: FilteringBoundLogger) -> None:
        self.handle = handle
        self.variant = variant
        self.level = level
        self.passcode_taken = passcode_taken
        self.log = log                                    # the game's (bound) logger
        self.joining: list[Client] = []                   # NME'd, map not yet accepted
        self.accepted: list[Client] = []                  # NME'd and map accepted
        self.invited: dict[str, Client] = {}              # invitation code -> joining client

    def clients(self) -> list[Client]:
        """Joining and accepted clients: those that hold a seat but no power yet."""
        return self.joining + self.accepted

    def join(self, client: Client, message: Message, invitation: Invitation | None) -> None:
        """An NME sent on by the lobby (with the invitation its name carried, if any)."""
        seats = len(self.variant.powers)
        refused = self.handle.status != "forming" or \
            len(self.joining) + len(self.accepted) >= seats
        if invitation is not None:
            holder = self.invited.get(invitation.code)
            refused = refused or (holder is not None and not holder.closed)
        if refused:
            # The lobby sends NMEs only to games with a free seat; a client that
            # left in between lands here (or a second client with one invitation).
            self._refuse(client, message)
            return
        try:
            name, wish = parse_name(getattr(message, "name", ""), self.variant.powers,
                                    self.variant.map.power_names)
        except AssignmentError as exc:      # a malformed preference list: one line, nothing kept
            self._refuse(client, message)
            self.log.info("join_refused", conn=client.id, reason=str(exc))
            return
        client.name = name
        client.wish = NO_PREFERENCE if isinstance(wish, Invited) else wish
        if invitation is not None and invitation.power is None and invitation.preferences:
            # The list the host handed in with the invitation (docs/hosting.md "Which
            # power you get"): it deals this seat's power at the start.
            client.wish = self._listed(invitation.preferences)
        client.version = getattr(message, "version", "")
        client.role = Role.JOINING
        client.game_id, client.level = self.handle.id, self.level
        if invitation is not None:
            self.invited[invitation.code] = client
        self.joining.append(client)
        client.send(Yes(message))
        client.send(MapMessage(self.variant.name))
        self.log.info("joining", conn=client.id, client_name=client.name,
                      client_version=client.version,
                      **({"invited": True} if invitation is not None else {}))

    def _refuse(self, client: Client, message: Message) -> None:
        self.handle.claims.pop(client, None)
        client.game_id = None
        client.send(Rej(message))

    def _listed(self, preferences: str) -> Wish:
        """The wish of a host-given list (checked when the game was created)."""
        try:
            return parse_name(f"[{preferences}]", self.variant.powers,
                              self.variant.map.power_names)[1]
        except AssignmentError:             # a stored state edited by hand: no list
            self.log.warning("invitation_list_unreadable")     # (a list is never logged)
            return NO_PREFERENCE

    def take_map(self, client: Client) -> bool:
        """A joining client's YES (MAP): True when it was the last seat (the game starts)."""
        if client not in self.joining:
            return False        # a second YES (MAP) from a client already accepted changes nothing
        self.joining.remove(client)
        self.accepted.append(client)
        return len(self.accepted) == len(self.variant.powers)

    def forget(self, client: Client) -> None:
        """A joining or accepted client leaves: its seat, claim and invitation are free."""
        for group in (self.joining, self.accepted):
            if client in group:
                group.remove(client)
                code = self._invitation_of(client)
                self.handle.claims.pop(client, None)
                if code is not None:
                    del self.invited[code]
                self.log.info("seat_freed", conn=client.id)

    def _invitation_of(self, client: Client) -> str | None:
        return next((code for code, c in self.invited.items() if c is client), None)

    def deal(self, hosted: HostedState | None) -> Deal:
        """Seat every accepted client: a power, a passcode, the role of a player."""
        fixed: dict[str, Client] = {}
        bots: dict[str, str] = {}
        if hosted is not None:
            for invitation in hosted.invitations:
                client = self.invited.get(invitation.code)
                if client is not None and invitation.power is not None:
                    fixed[invitation.power] = client
        rest = [c for c in self.accepted if c not in fixed.values()]
        # docs/hosting.md "Which power you get"; the wishes go with the deal
        dealt = assign(self.variant.powers, [c.wish for c in rest], fixed, secrets.SystemRandom())
        assignment = {**fixed, **dict(zip(dealt, rest, strict=True))}
        for client in rest:
            client.wish = NO_PREFERENCE
        seats: dict[str, Seat] = {}
        players: dict[str, Client] = {}
        for power, client in sorted(assignment.items()):
            seats[power] = Seat(power, new_passcode(power, self.passcode_taken),
                                client.name, client.version)
            client.role, client.power = Role.PLAYER, power
            players[power] = client
            code = self._invitation_of(client)
            used = hosted.invitation(code) if hosted is not None and code else None
            if used is not None and used.bot is not None:
                bots[power] = used.bot
        self.accepted.clear()
        self.invited.clear()
        self.handle.claims.clear()      # seated: no power is free for an NME any more
        return Deal(seats, players, bots)
