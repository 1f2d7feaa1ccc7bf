"""Parlance's veto rule for the players' admin commands (`server.admin_adm`).

With ``ServerSettings.player_admin`` a player's command that changes its
game (resume, extend, end, eject, start a bot) is not done at once: it is
a `Change` the `Desk` announces to every client of the game, then carries
out after ``ServerSettings.veto_delay`` seconds unless a player or
observer of the game says ``Server: veto`` first (docs/hosting.md, "DAIDE
admin messages").  An admin's change is done at once and never reaches the
desk.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field

import structlog
import trio

from protocol.messages import Adm
from server.admin_words import seconds_text, sentence
from server.hosting_terms import HostingError, Origin
from server.session import Client

log = structlog.get_logger("server.admin_veto")

#: The name the server's own ADMs carry (docs/protocol.md §8.9).
SERVER = "Server"


@dataclass(frozen=True)
class Change:
    """What a CHANGE command would do: done at once for an admin, proposed for a player."""

    what: str                               # "ending the game", for the announcements
    words: frozenset[str]                   # what ``veto WORD`` may name
    act: Callable[[Origin], Awaitable[str]]  # carries it out; a sentence saying what was done


@dataclass(eq=False)
class Proposal:
    """A player's change waiting out the veto delay."""

    game_id: int
    change: Change
    by: str                                 # "ENG (alice)"
    origin: Origin
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)

    @property
    def what(self) -> str:
        return self.change.what


def announce(members: Collection[Client], game_id: int, text: str) -> None:
    """An ADM from the server to every client of the game, joined or not yet: players
    waiting for the start hear it too (a game's own broadcasts reach joined clients only)."""
    notice = Adm(SERVER, text)
    for member in list(members):
        if member.game_id == game_id:
            member.send(notice)


class Desk:
    """The players' proposals of one lobby waiting for a veto (``lobby.admin_desk``).

    Which connections are admins is theirs to carry (`server.session.Client.admin`)."""

    def __init__(self) -> None:
        self.proposals: list[Proposal] = []

    def pending(self, game_id: int) -> list[Proposal]:
        return [p for p in self.proposals if p.game_id == game_id]

    def propose(self, proposal: Proposal, delay: float, members: Collection[Client],
                nursery: trio.Nursery) -> None:
        """Announce ``proposal`` to the game and carry it out after ``delay`` seconds
        unless vetoed.  ``members`` is the lobby's own set of clients: the outcome
        goes to the game's clients of that moment."""
        self.proposals.append(proposal)
        announce(members, proposal.game_id,
                 f"{proposal.by} is {proposal.what}. Any player or observer may "
                 f'stop it within {seconds_text(delay)} by saying "Server: veto".')
        log.info("adm_proposed", game=proposal.game_id, what=proposal.what, by=proposal.by)
        nursery.start_soon(self._carry_out, members, proposal, delay,
                           name=f"adm-proposal-{proposal.game_id}")

    def veto(self, game_id: int, word: str | None, by: str,
             members: Collection[Client]) -> list[Proposal]:
        """Stop the game's proposals (those ``word`` names, if given) and say so to the game."""
        vetoed = [p for p in self.pending(game_id) if word is None or word in p.change.words]
        for proposal in vetoed:
            proposal.scope.cancel()
            self.proposals.remove(proposal)
            log.info("adm_vetoed", game=game_id, what=proposal.what, by=proposal.by,
                     vetoed_by=by)
            announce(members, game_id, f"{by} vetoed {proposal.what} ({proposal.by}).")
        return vetoed

    async def _carry_out(self, members: Collection[Client], proposal: Proposal,
                         delay: float) -> None:
        """Wait out the veto delay, then do what was proposed and say so to the game."""
        # Spawned from a connection task: not that connection's log context.
        structlog.contextvars.clear_contextvars()
        with proposal.scope:
            await trio.sleep(delay)
        if proposal.scope.cancelled_caught or proposal not in self.proposals:
            return
        self.proposals.remove(proposal)
        try:
            done = await proposal.change.act(proposal.origin)
            text, outcome = f"Nobody vetoed {proposal.what} ({proposal.by}): {done}", "done"
        except HostingError as exc:
            text = sentence(f"{proposal.what} ({proposal.by}) failed: {exc.message}")
            outcome = exc.message
        except Exception:
            # Never reached by bad input (the Host answers every refusal with a
            # HostingError); this task runs in the server's nursery, so a bug here
            # must not stop the server: it is logged and the game told.
            log.exception("adm_proposal_failed", game=proposal.game_id, what=proposal.what)
            text = sentence(f"{proposal.what} ({proposal.by}) failed: an internal error, logged")
            outcome = "internal error"
        log.info("adm_carried_out", game=proposal.game_id, what=proposal.what, by=proposal.by,
                 outcome=outcome)
        announce(members, proposal.game_id, text)
