"""Press levels over real TCP: HUH at every level boundary, TRY trimming, free text
and the one global press order (docs/protocol.md §14.2, 16.1, 16.3, 16.5)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from server.store import Store
from tests.press_relay_helpers import close_all, level_game, nothing_more
from tests.server_helpers import ScriptClient

#: For each level: a message that needs exactly this level (None at 0) and
#: what the server answers to the message that needs the next level - HUH
#: with ERR before its first token above the game's level.
BOUNDARIES: list[tuple[int, str | None, str]] = [
    (0, None,
     "HUH ( ERR SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) ) )"),
    (10, "SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )",
     "HUH ( SND ( FRA ) ( PRP ( ERR XDO ( ( ENG FLT LON ) MTO NTH ) ) ) )"),
    (20, "SND ( FRA ) ( PRP ( XDO ( ( ENG FLT LON ) MTO NTH ) ) )",
     "HUH ( SND ( FRA ) ( PRP ( ERR AND ( DMZ ( ENG FRA ) ( ECH ) )"
     " ( XDO ( ( ENG FLT LON ) MTO NTH ) ) ) ) )"),
    (30, "SND ( FRA ) ( PRP ( AND ( DMZ ( ENG FRA ) ( ECH ) ) ( XDO ( ( ENG FLT LON ) MTO NTH ) ) ) )",
     "HUH ( SND ( FRA ) ( PRP ( ORR ( ERR SCD ( ENG LON ) ( FRA PAR ) ) ( DRW ) ) ) )"),
    # Level 40: AND nested in ORR is the offending token (the docs/protocol.md §14.2 example).
    (40, "SND ( FRA ) ( PRP ( ORR ( SCD ( ENG LON ) ( FRA PAR ) ) ( DRW ) ) )",
     "HUH ( SND ( FRA ) ( PRP ( ORR ( NOT ( DRW ) ) ( ERR AND ( PCE ( ENG FRA ) ) ( DRW ) ) ) ) )"),
    (50, "SND ( FRA ) ( PRP ( ORR ( NOT ( DRW ) ) ( AND ( PCE ( ENG FRA ) ) ( DRW ) ) ) )",
     "HUH ( SND ( FRA ) ( ERR IDK ( QRY ( PCE ( ENG FRA ) ) ) ) )"),
    # Level 60: IDK is known, the WHT it answers is not (level 70).
    (60, "SND ( FRA ) ( IDK ( QRY ( PCE ( ENG FRA ) ) ) )",
     "HUH ( SND ( FRA ) ( IDK ( ERR WHT ( ENG FLT LON ) ) ) )"),
    (70, "SND ( FRA ) ( IDK ( WHT ( ENG FLT LON ) ) )",
     "HUH ( SND ( FRA ) ( ERR EXP ( SPR 1901 ) ( PRP ( DRW ) ) ) )"),
    (80, "SND ( FRA ) ( EXP ( SPR 1901 ) ( PRP ( DRW ) ) )",
     "HUH ( SND ( FRA ) ( PRP ( ERR FOR ( FAL 1901 ) ( PCE ( ENG FRA ) ) ) ) )"),
    (90, "SND ( FRA ) ( PRP ( FOR ( FAL 1901 ) ( PCE ( ENG FRA ) ) ) )",
     "HUH ( SND ( FRA ) ( ERR IFF ( PCE ( ENG FRA ) ) THN ( PRP ( DRW ) ) ) )"),
    (100, "SND ( FRA ) ( IFF ( PCE ( ENG FRA ) ) THN ( PRP ( DRW ) ) )",
     "HUH ( SND ( FRA ) ( PRP ( ERR XOY ( FRA ) ( ENG ) ) ) )"),
    (110, "SND ( FRA ) ( PRP ( XOY ( FRA ) ( ENG ) ) )",
     "HUH ( SND ( FRA ) ( PRP ( ERR SND ( FRA ) ( GER ) ( PRP ( PCE ( ENG GER ) ) ) ) ) )"),
    # Level 120: IDK (PRP ...) needs 130 although IDK and PRP are lower words.
    (120, "SND ( FRA ) ( PRP ( SND ( FRA ) ( GER ) ( PRP ( PCE ( ENG GER ) ) ) ) )",
     "HUH ( SND ( FRA ) ( IDK ( ERR PRP ( DRW ) ) ) )"),
    (130, "SND ( FRA ) ( IDK ( PRP ( DRW ) ) )",
     "HUH ( SND ( FRA ) ( ERR 'hello' ) )"),
    (8000, "SND ( FRA ) ( 'hello' )", ""),
]


def _unmark(huh: str) -> str:
    """The message a HUH echoes, without HUH and ERR."""
    return huh.removeprefix("HUH ( ").removesuffix(" )").replace("ERR ", "")


@pytest.mark.parametrize("level,legal,too_high", BOUNDARIES, ids=[str(b[0]) for b in BOUNDARIES])
async def test_huh_one_level_too_high_at_every_boundary(
        nursery: trio.Nursery, tmp_path: Path, level: int, legal: str | None, too_high: str) -> None:
    _server, _port, clients = await level_game(nursery, tmp_path / "g.db", level=level)
    eng, fra = clients["ENG"], clients["FRA"]
    if legal is not None:
        await eng.send(legal)
        await eng.expect(f"YES ( {legal} )")
        await fra.expect(legal.replace("SND ( FRA )", "FRM ( ENG ) ( FRA )", 1))
    if too_high:
        await eng.send(_unmark(too_high))
        await eng.expect(too_high)
    await nothing_more(fra, eng)
    await close_all(clients)


async def test_try_lists_are_trimmed_to_the_game_level(nursery: trio.Nursery,
                                                       tmp_path: Path) -> None:
    _server, _port, clients = await level_game(nursery, tmp_path / "g.db", level=20)
    eng, fra = clients["ENG"], clients["FRA"]
    sent = [
        ("TRY ( PRP XDO AND SCD DMZ CHO INS WHY PCE )", "TRY ( PRP XDO DMZ PCE )"),
        ("TRY ( AND ORR )", "TRY ( )"),
        ("CCL ( TRY ( FOR PRP IFF ) )", "CCL ( TRY ( PRP ) )"),      # nested lists too
        ("TRY ( PRP XDO )", "TRY ( PRP XDO )"),                      # nothing to trim
    ]
    for press, delivered in sent:
        await eng.send(f"SND ( FRA ) ( {press} )")
        await eng.expect(f"YES ( SND ( FRA ) ( {press} ) )")       # the echo is as sent
        await fra.expect(f"FRM ( ENG ) ( FRA ) ( {delivered} )")
    # A word that is no press token at all is a syntax error, not trimmed.
    await eng.send("SND ( FRA ) ( TRY ( PRP HLD ) )")
    await eng.expect("HUH ( SND ( FRA ) ( TRY ( PRP ERR HLD ) ) )")
    await nothing_more(fra)
    store = Store.open(tmp_path / "g.db")
    try:
        assert [p.message for p in store.press(1)] == [
            f"FRM ( ENG ) ( FRA ) ( {delivered} )" for _, delivered in sent]
    finally:
        store.close()
    await close_all(clients)


async def test_free_text_and_one_global_order(nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, _port, clients = await level_game(nursery, tmp_path / "g.db", level=8000)
    eng, fra = clients["ENG"], clients["FRA"]
    await eng.send("SND ( FRA ) ( 'Bonjour, it''s me' )")
    await eng.expect("YES ( SND ( FRA ) ( 'Bonjour, it''s me' ) )")
    await fra.expect("FRM ( ENG ) ( FRA ) ( 'Bonjour, it''s me' )")
    # At 8000 every official level's press is allowed as well.
    await fra.send("SND ( ENG ) ( IDK ( PRP ( DRW ) ) )")
    await fra.expect("YES ( SND ( ENG ) ( IDK ( PRP ( DRW ) ) ) )")
    await eng.expect("FRM ( FRA ) ( ENG ) ( IDK ( PRP ( DRW ) ) )")

    # Three powers talk at once; each sees the YES of its own messages and
    # the FRMs of the others in one and the same order (16.1).
    talkers = {p: clients[p] for p in ("ENG", "FRA", "GER")}
    count = 25
    seen: dict[str, list[str]] = {p: [] for p in talkers}

    async def talk(power: str, client: ScriptClient) -> None:
        others = " ".join(p for p in talkers if p != power)
        for k in range(count):
            await client.send(f"SND ( {others} ) ( '{power} {k}' )")

    async def listen(power: str, client: ScriptClient) -> None:
        while len(seen[power]) < 3 * count:
            message = await client.receive()
            text = message.rsplit("'", 2)[1]    # the last string: 'ENG 7'
            own = message.startswith("YES ( SND")
            assert own == text.startswith(power), message
            seen[power].append(text)

    async with trio.open_nursery() as talks:
        for power, client in talkers.items():
            talks.start_soon(listen, power, client)
            talks.start_soon(talk, power, client)
    assert seen["ENG"] == seen["FRA"] == seen["GER"]
    assert sorted(seen["ENG"]) == sorted(f"{p} {k}" for p in talkers for k in range(count))
    store = Store.open(tmp_path / "g.db")
    try:
        stored = [p.message.rsplit("'", 2)[1] for p in store.press(1)[2:]]
    finally:
        store.close()
    assert stored == seen["ENG"]                 # the store keeps that order
    await nothing_more(*clients.values())
    await close_all(clients)
