"""A game's press-token numbering (docs/protocol.md §6.7) is what its connections speak.

Parlance-based bots put FCT at 0x4A07, where the DAIDE table has FOR. In a
game served with ``--press-numbering parlance`` such a bot's FCT must be
understood and relayed with the same value; in a game forced to
``--press-numbering daide`` the same bytes mean FOR and the message is a
grammar error (FOR needs a turn).  The default, detection per connection,
is tested in tests/test_interop_numbering.py.
"""

from __future__ import annotations

from pathlib import Path

import trio

from protocol.frames import DiplomacyMessage, build_frame
from protocol.press_tokens import PressNumbering, press_representation
from protocol.text import parse_text
from protocol.tokens import STANDARD
from tests.press_relay_helpers import close_all, level_game

PARLANCE = press_representation(STANDARD, PressNumbering.PARLANCE)
FACT = "SND ( FRA ) ( FCT ( PCE ( ENG FRA ) ) )"


def parlance_frame(text: str) -> bytes:
    return build_frame(DiplomacyMessage(parse_text(text, PARLANCE)))


async def test_parlance_numbering_is_spoken_by_the_games_connections(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, _port, clients = await level_game(nursery, tmp_path / "g.db", level=10,
                                               press_numbering="parlance")
    tokens = parse_text(FACT, PARLANCE)
    assert 0x4A07 in tokens                       # FCT as Parlance numbers it
    await clients["ENG"].send_raw(parlance_frame(FACT))
    # The scripted clients decode with the DAIDE table, so 0x4A07 reads as FOR:
    # the server echoed and relayed Parlance's value unchanged.
    await clients["ENG"].expect("YES ( SND ( FRA ) ( FOR ( PCE ( ENG FRA ) ) ) )")
    await clients["FRA"].expect("FRM ( ENG ) ( FRA ) ( FOR ( PCE ( ENG FRA ) ) )")
    await close_all(clients)


async def test_the_same_bytes_are_a_grammar_error_in_a_daide_numbered_game(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    # The override turns detection off: every connection speaks DAIDE numbering.
    _server, _port, clients = await level_game(nursery, tmp_path / "g.db", level=10,
                                               press_numbering="daide")
    await clients["ENG"].send_raw(parlance_frame(FACT))
    answer = await clients["ENG"].receive()
    assert answer.startswith("HUH ( SND ( FRA ) ( ") and "ERR" in answer
    await close_all(clients)
