"""What a player sent that the server refused: as the refusals table keeps it, and in words.

One table (``refusals``, `server.schema`), two kinds, told apart by ``answer``:

* an order of a SUB answered with a THX note other than MBV
  (`server.requests`, through `server.game.Game.note_refused`): ``sent`` is
  the order, ``answer`` the note (NYU, NSU, FAR...);
* a whole message answered HUH, PRN (docs/protocol.md §14) or REJ (§8.13):
  ``sent`` is the message as the answer echoes it - for a HUH with ERR
  before the token at fault - shortened around ERR when it is long
  (`sent_text`); ``answer`` is HUH, PRN or REJ.

The second kind is kept by the connection's writer (`RefusalKeeper`, called
from `server.connection`): everything the server sends a client goes out
there, whichever part of the server answered (the connection's parser, the
lobby, the game's requests, its press relay), so that is the one place that
sees every HUH and REJ.  The connection knows its client's game and power;
the game's current turn is on the lobby's handle of the game
(`server.events.GameHandle.turn`), and the NOWs written tell whether an
answer was queued before that turn began (`RefusalKeeper`).  A HUH is rare:
a well-behaved player never gets one, so the writer's only cost for an
ordinary message is one test, and the answers of one write are stored in
one transaction, committed without waiting for the disk as the THX
refusals are (`server.store.Store.save_refusals`).  A store that cannot
take them costs the log, never the game.

`explain` puts any refusal in words for `daide export --bot-log` (`server.bot_log`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import structlog

from adjudicator.notes import explain_note
from protocol.messages import Huh, Message, Now, Prn, Rej
from protocol.text import render_text
from protocol.tokens import ERR, Representation
from server.session import Client, Role
from server.storage_errors import StoreError

if TYPE_CHECKING:
    from server.events import GameHandle
    from server.store import Store

log = structlog.get_logger("server.refusals")

#: The answers to a whole message that are kept, and the NOW the writer notes with them
#: (the writer tests each message's class; `RefusalKeeper.note`).
NOTED: frozenset[type[Message]] = frozenset({Huh, Prn, Rej, Now})
#: The turn kept for what a client was sent before its game started (it had no power yet).
BEFORE_START = ""
#: A long message is kept shortened to about this many tokens: for a HUH the ones
#: around ERR (`BEFORE_ERR` before it), else its start - enough to see what was sent.
KEPT_TOKENS = 60
BEFORE_ERR = 40


def sent_text(answer: Message, rep: Representation) -> tuple[str, str] | None:
    """(``sent``, ``answer``) of a HUH, PRN or REJ as the refusals table keeps it; None for
    any other message."""
    if not isinstance(answer, (Huh, Prn, Rej)):
        return None
    # Each is COMMAND ( message ): the echoed message is what lies between the brackets.
    tokens = answer.to_tokens(rep)[2:-1]
    start, end = 0, len(tokens)
    if end > KEPT_TOKENS:
        at = tokens.index(ERR) if isinstance(answer, Huh) and ERR in tokens else 0
        start = max(0, at - BEFORE_ERR)
        end = min(len(tokens), start + KEPT_TOKENS)
    text = render_text(tokens[start:end], rep)
    if start > 0:
        text = "... " + text
    if end < len(tokens):
        text += f" ... ({len(tokens)} tokens)"
    return text, answer.COMMAND


#: Why the server answers REJ to each message (`server.requests`, `server.lobby`,
#: `server.press`; docs/protocol.md §8.13), by the words the message starts with.
_REJ_REASONS = (
    ("NOT ( SUB", "it cancels an order the server did not hold, or the power could not "
                  "order then"),
    ("NOT ( GOF", "only a surviving power of a running game may send it"),
    ("NOT ( DRW", "only a surviving power of a running game may withdraw a draw vote"),
    ("NOT ( TME", "there was no such time request"),
    ("SUB", "orders for a turn that was not being played, or sent while the power "
            "could not order (the game had not started or was over)"),
    ("GOF", "only a power of a running game may send it"),
    ("MIS", "only a power of a running game may ask what it still owes"),
    ("DRW", "only a surviving power of a running game may vote, and a partial draw needs "
            "PDA and two surviving powers or more"),
    ("TME", "no clock was running, the game has no deadlines, or the time is out of range"),
    ("HST", "no such turn has been played"),
    ("ORD", "no phase had been processed yet"),
    ("SMR", "the game had not ended"),
    ("HLO", "the game had not started"),
    ("NME", "the client had already joined a game"),
    ("OBS", "the client had already joined a game"),
    ("IAM", "the client had already joined a game"),
    ("SND", "press was not allowed then (level, recipients, or over the press rate)"),
    ("ADM", "more ADM messages than the rate allows"),
)


def explain(sent: str, answer: str) -> str:
    """A refusal in words: ``refused: NYU (not your unit: ...)``, ``refused: REJ (...)``,
    ``not understood: HUH (...)``."""
    if answer == "HUH":
        if sent.startswith("ERR "):
            return ("not understood: HUH (the server takes no such message from a player "
                    "at the game's level: ERR marks it whole)")
        return "not understood: HUH (the message does not follow the grammar at the marked token ERR)"
    if answer == "PRN":
        return "not understood: PRN (its brackets do not balance)"
    if answer == "REJ":
        why = next((reason for start, reason in _REJ_REASONS if sent.startswith(start)),
                   "not allowed at that moment")
        return f"refused: REJ ({why})"
    return f"refused: {explain_note(answer)}"


class RefusalKeeper:
    """The HUH, PRN and REJ one connection sends to a player of a game, into the store
    (see the module docstring).

    The writer calls `note` with what it wrote, in order, of two kinds: the
    answers, and the turn of each NOW (the NOW's packet's turn, or a `Now`).
    An answer is kept with the turn its game was in when it was queued.  The
    game sets its turn (`GameHandle.turn`) in the same step that queues the
    new phase's NOW to every player, and the writer may run after that step:
    so while this connection has not yet written the NOW of the game's turn,
    the answer was queued before that phase began, in the turn of the last
    NOW it wrote - or, when it has written none, before the start (a client
    that joined by NME: it accepted the map) or in the game's turn (one that
    came back with IAM mid-phase).

    A client that joined a game that has not started has no power yet: what it
    is sent waits here until the game gives it one (its next write stores it),
    and is forgotten if it never gets one.
    """

    def __init__(self, store: Store, client: Client, games: Mapping[int, GameHandle]) -> None:
        self.store = store
        self.client = client
        self.games = games
        #: (game, turn, sent, answer), not stored yet: the client has no power yet
        self.waiting: list[tuple[int, str, str, str]] = []
        #: the turn of the last NOW written that was the game's turn when written
        self.seen: str | None = None
        self._failed = False

    def note(self, written: Sequence[Message | str], rep: Representation) -> None:
        """Keep the answers among what one write sent (see the class docstring)."""
        client = self.client
        game_id = client.game_id
        handle = self.games.get(game_id) if game_id is not None else None
        playing = client.role in (Role.PLAYER, Role.JOINING)
        for item in written:
            if isinstance(item, (str, Now)):
                turn = item if isinstance(item, str) else str(item.turn)
                if handle is not None and turn == handle.turn:
                    self.seen = turn
                continue
            if game_id is not None and playing:
                kept = sent_text(item, rep)
                if kept is not None:
                    self.waiting.append((game_id, self._turn(handle), *kept))
        if self.waiting and client.power is not None and client.role is Role.PLAYER:
            self._store(client.power)

    def _turn(self, handle: GameHandle | None) -> str:
        """The turn the game was in when the answer now written was queued (class docstring).

        Without `handle` the game has ended since the answer was queued (its last
        phase was processed and the server let it go): the answer came in the last
        NOW this connection wrote."""
        if handle is not None and (self.seen == handle.turn or (self.seen is None and not (
                self.client.role is Role.JOINING or self.client.map_accepted))):
            return handle.turn
        return BEFORE_START if self.seen is None else self.seen

    def _store(self, power: str) -> None:
        waiting, self.waiting = self.waiting, []
        game_id = self.client.game_id
        if game_id is None:
            return
        groups: dict[str, list[tuple[str, str]]] = {}
        for game, turn, sent, answer in waiting:
            if game == game_id:      # answers before the start of another game: no power there
                groups.setdefault(turn, []).append((sent, answer))
        for turn, refused in groups.items():
            if not keep(self.store, game_id, turn, power, refused, say=not self._failed):
                self._failed = True
                return


def keep(store: Store, game_id: int, turn: str, power: str,
         refused: Sequence[tuple[str, str]], *, say: bool = True) -> bool:
    """Store refusals (`server.store.Store.save_refusals`); False if they could not be.

    The one road for both kinds: a failure of the storage has latched the store,
    which said so; any other error (a table that cannot be written) costs these
    lines of the bot log only - logged when ``say`` - and never the game."""
    try:
        store.save_refusals(game_id, turn, power, refused)
    except (StoreError, sqlite3.Error) as exc:
        if say:
            log.warning("refusals_not_stored", game=game_id, power=power, error=str(exc))
        return False
    return True


__all__ = ["NOTED", "BEFORE_START", "RefusalKeeper", "explain", "keep", "sent_text"]
