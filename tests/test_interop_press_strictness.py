"""What the press syntax document only advises against is accepted, as Parlance
does, over real TCP: a double negative is relayed, a TRY list naming the
tokens withdrawn in revision 14 is accepted and delivered without them
(docs/protocol.md §6.7: they may be received, never sent).  The refusals
that remain are listed in docs/press.md."""

from __future__ import annotations

from pathlib import Path

import trio

from tests.press_relay_helpers import close_all, level_game, nothing_more


async def test_double_negative_and_withdrawn_try_tokens(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, _port, clients = await level_game(nursery, tmp_path / "g.db", level=10)
    eng, fra = clients["ENG"], clients["FRA"]
    double = "SND ( FRA ) ( PRP ( NOT ( NOT ( PCE ( ENG FRA ) ) ) ) )"
    await eng.send(double)
    await eng.expect(f"YES ( {double} )")
    await fra.expect("FRM ( ENG ) ( FRA ) ( PRP ( NOT ( NOT ( PCE ( ENG FRA ) ) ) ) )")
    # Level 10: XDO (20) is trimmed as ever, and so are IOU/PPT/UOM at any level.
    listing = "SND ( ENG ) ( TRY ( PRP IOU XDO PPT UOM FCT ) )"
    await fra.send(listing)
    await fra.expect(f"YES ( {listing} )")
    await eng.expect("FRM ( FRA ) ( ENG ) ( TRY ( PRP FCT ) )")
    # Still refused: a word that is no press token at all.
    await fra.send("SND ( ENG ) ( TRY ( PRP ENG ) )")
    await fra.expect("HUH ( SND ( ENG ) ( TRY ( PRP ERR ENG ) ) )")
    await nothing_more(*clients.values())
    await close_all(clients)
