"""The press relay over real TCP: agreements, and every REJ/CCD/OUT answer of docs/protocol.md §16.1.

Each SND gets exactly one answer; nothing is delivered unless it is YES
(checked with `nothing_more`: the next thing a client gets is the answer to
its own later request).
"""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing

from server.export import export_game
from server.settings import GameSettings
from server.store import Store
from tests.press_relay_helpers import (
    close_all,
    level_game,
    nothing_more,
    rejoin,
    store_eliminated_game,
)
from tests.server_helpers import POWERS, ScriptClient, start_server
from tests.server_script import play_script

AGREEMENT = "PRP ( AND ( PCE ( ENG FRA GER ) ) ( DMZ ( ENG FRA GER ) ( ECH NTH ) ) )"


async def test_three_power_agreement_at_level_30(nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, _port, clients = await level_game(nursery, tmp_path / "g.db", level=30)
    eng, fra, ger = clients["ENG"], clients["FRA"], clients["GER"]
    # ENG proposes a multipart arrangement (level 30) to FRA and GER ...
    await eng.send(f"SND ( FRA GER ) ( {AGREEMENT} )")
    await eng.expect(f"YES ( SND ( FRA GER ) ( {AGREEMENT} ) )")
    for recipient in (fra, ger):
        # ... each recipient sees the whole recipient list (16.1).
        await recipient.expect(f"FRM ( ENG ) ( FRA GER ) ( {AGREEMENT} )")
    # The agreement is formed when each recipient replies YES to the
    # proposer and all other recipients (16.2).
    await fra.send(f"SND ( ENG GER ) ( YES ( {AGREEMENT} ) )")
    await fra.expect(f"YES ( SND ( ENG GER ) ( YES ( {AGREEMENT} ) ) )")
    for other in (eng, ger):
        await other.expect(f"FRM ( FRA ) ( ENG GER ) ( YES ( {AGREEMENT} ) )")
    await ger.send(f"SND ( ENG FRA ) ( YES ( {AGREEMENT} ) )")
    await ger.expect(f"YES ( SND ( ENG FRA ) ( YES ( {AGREEMENT} ) ) )")
    for other in (eng, fra):
        await other.expect(f"FRM ( GER ) ( ENG FRA ) ( YES ( {AGREEMENT} ) )")
    await nothing_more(*clients.values())       # nobody else heard of it

    # Every delivered message is stored with sender, recipients and turn,
    # and exported after the NOW of the turn it was sent in.
    store = Store.open(tmp_path / "g.db")
    try:
        stored = store.press(1)
        text, data = export_game(store, 1)
    finally:
        store.close()
    assert [(p.seq, p.turn, p.sender, p.recipients) for p in stored] == [
        (1, "SPR 1901", "ENG", ("FRA", "GER")),
        (2, "SPR 1901", "FRA", ("ENG", "GER")),
        (3, "SPR 1901", "GER", ("ENG", "FRA")),
    ]
    frms = [f"FRM ( ENG ) ( FRA GER ) ( {AGREEMENT} )",
            f"FRM ( FRA ) ( ENG GER ) ( YES ( {AGREEMENT} ) )",
            f"FRM ( GER ) ( ENG FRA ) ( YES ( {AGREEMENT} ) )"]
    assert [p.message for p in stored] == frms
    lines = text.splitlines()
    assert lines[3].startswith("NOW ( SPR 1901 )") and lines[4:] == frms
    assert '"sender": "FRA"' in data and '"recipients": [\n        "ENG",\n        "GER"\n      ]' in data
    await close_all(clients)


async def test_rej_before_the_start_for_observers_and_for_bad_turns_or_recipients(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db", level=10)
    first = await ScriptClient.connect(port, "ENG:bot")
    await first.join()
    # The game has not started: REJ (16.1), even though the grammar is fine.
    await first.send("SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )")
    await first.expect("REJ ( SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) ) )")
    others = [await ScriptClient.connect(port, f"{p}:bot") for p in POWERS if p != "ENG"]
    for client in others:
        await client.join()
    clients = {}
    for client in (first, *others):
        await client.receive_until("NOW")
        assert client.power is not None
        clients[client.power] = client
    eng, fra = clients["ENG"], clients["FRA"]

    # An observer may not send press: REJ (16.1, 16.6 rule 3).
    watcher = await ScriptClient.connect(port, "watcher")
    await watcher.send("OBS")
    await watcher.expect("YES ( OBS )", "MAP ( 'STANDARD' )")
    await watcher.send("YES ( MAP ( 'STANDARD' ) )")
    await watcher.receive_until("NOW")
    await watcher.send("SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )")
    await watcher.expect("REJ ( SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) ) )")

    for refused in ("SND ( ENG FRA ) ( PRP ( DRW ) )",            # the sender is a recipient
                    "SND ( ENG ) ( PRP ( DRW ) )",
                    "SND ( FAL 1901 ) ( FRA ) ( PRP ( DRW ) )",   # not the current turn
                    "SND ( SPR 1902 ) ( FRA ) ( PRP ( DRW ) )"):
        await eng.send(refused)
        await eng.expect(f"REJ ( {refused} )")
    # The current turn is fine, and is not passed on (16.1).
    await eng.send("SND ( SPR 1901 ) ( FRA ) ( PRP ( DRW ) )")
    await eng.expect("YES ( SND ( SPR 1901 ) ( FRA ) ( PRP ( DRW ) ) )")
    await fra.expect("FRM ( ENG ) ( FRA ) ( PRP ( DRW ) )")
    # Partial draws need PDA (16.2).
    await eng.send("DRW ( ENG FRA )")
    await eng.expect("REJ ( DRW ( ENG FRA ) )")
    await nothing_more(watcher, *clients.values())

    # A recipient in civil disorder: CCD (power), and nobody gets anything.
    await clients["GER"].drop()
    await eng.expect("CCD ( GER )")
    await fra.expect("CCD ( GER )")
    await eng.send("SND ( FRA GER ) ( PRP ( PCE ( ENG FRA GER ) ) )")
    await eng.expect("CCD ( GER )")
    await nothing_more(fra, eng)
    await watcher.close()
    del clients["GER"]
    await close_all(clients)


async def test_out_for_eliminated_powers_and_rej_for_an_eliminated_sender(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    codes = store_eliminated_game(tmp_path / "g.db", GameSettings(level=10))
    _server, port = await start_server(nursery, tmp_path / "g.db")
    fra = await rejoin(port, "FRA", codes["FRA"])
    aus = await rejoin(port, "AUS", codes["AUS"])
    await fra.expect("NOT ( CCD ( AUS ) )")
    # A recipient is eliminated: OUT (power) (16.1) ...
    await fra.send("SND ( GER ) ( PRP ( PCE ( FRA GER ) ) )")
    await fra.expect("OUT ( GER )")
    await fra.send("SND ( AUS ENG ) ( PRP ( PCE ( AUS FRA ) ) )")
    await fra.expect("OUT ( ENG )")
    # ... or named anywhere inside the press (Parlance; 16.2: eliminated
    # powers must not appear in PCE/ALY/DRW lists).
    await fra.send("SND ( AUS ) ( PRP ( ALY ( AUS FRA ) VSS ( ENG ITA ) ) )")
    await fra.expect("OUT ( ENG )")
    await fra.send("SND ( AUS ) ( FCT ( NOT ( SLO ( GER ) ) ) )")
    await fra.expect("OUT ( GER )")
    # OUT before CCD: RUS is only away, GER is gone for good.
    await fra.send("SND ( RUS GER ) ( PRP ( DRW ) )")
    await fra.expect("OUT ( GER )")
    await fra.send("SND ( AUS RUS ) ( PRP ( DRW ) )")
    await fra.expect("CCD ( RUS )")
    await nothing_more(aus)
    # The living and connected still talk.
    await fra.send("SND ( AUS ) ( PRP ( ALY ( AUS FRA ) VSS ( ITA ) ) )")
    await fra.expect("YES ( SND ( AUS ) ( PRP ( ALY ( AUS FRA ) VSS ( ITA ) ) ) )")
    await aus.expect("FRM ( FRA ) ( AUS ) ( PRP ( ALY ( AUS FRA ) VSS ( ITA ) ) )")
    # An eliminated power may come back and watch, but not send press.
    eng = await rejoin(port, "ENG", codes["ENG"])
    await fra.expect("NOT ( CCD ( ENG ) )")
    await aus.expect("NOT ( CCD ( ENG ) )")
    await eng.send("SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )")
    await eng.expect("REJ ( SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) ) )")
    await nothing_more(fra, aus)
    for client in (fra, aus, eng):
        await client.close()


async def test_no_press_in_retreats_with_npr_and_in_builds_with_npb(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, _port, clients = await level_game(nursery, tmp_path / "g.db", level=10,
                                               npr=True, npb=True)
    eng, fra = clients["ENG"], clients["FRA"]
    press = "SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )"
    await eng.send(press)                      # movement phases are open
    await eng.expect(f"YES ( {press} )")
    await fra.expect("FRM ( ENG ) ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )")
    await play_script(clients, "AUT 1901")     # a retreat phase (TUR is dislodged)
    await eng.send(press)
    await eng.expect(f"REJ ( {press} )")
    await play_script(clients, "WIN 1901")     # an adjustment phase
    await eng.send(press)
    await eng.expect(f"REJ ( {press} )")
    await nothing_more(fra)
    await close_all(clients)


async def test_press_stops_ptl_seconds_before_the_movement_deadline(
        nursery: trio.Nursery, tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    _server, _port, clients = await level_game(nursery, tmp_path / "g.db", level=10,
                                               mtl=100, ptl=30)
    eng, fra = clients["ENG"], clients["FRA"]
    press = "SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )"
    await eng.expect("TME ( 100 )")
    await eng.send(press)
    await eng.expect(f"YES ( {press} )")
    await fra.expect("TME ( 100 )", "FRM ( ENG ) ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )")
    mock_clock.jump(69)                        # 31 s left: still open
    await eng.send(press)
    await eng.expect(f"YES ( {press} )")
    await fra.expect("FRM ( ENG ) ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )")
    mock_clock.jump(2)                         # 29 s left: within PTL
    await eng.send(press)
    await eng.expect(f"REJ ( {press} )")
    await nothing_more(fra)
    await close_all(clients)
