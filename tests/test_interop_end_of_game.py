"""The end of a game as Parlance-family clients meet it, over real TCP.

* Linger (``ServerSettings.linger``, ``daide serve --linger``): after the
  SMR every connection stays readable - a post-game ``ADM`` is relayed to the
  others, ``HST``/``ORD``/``SCO``/``NOW`` are answered - then ``OFF``, FM and
  an orderly close.  When every client has left, the game does not wait.
* ``OBS ('name') ('version')`` (Parlance's observer form, docs/protocol.md
  §8.1) makes an observer with that name.
* The SMR names the turn the game reached (the final NOW's, §8.10): a draw
  agreed in FAL 1901 says ``SMR ( FAL 1901 )``, a game ended by the
  processing of FAL 1901 says the turn of the NOW that followed it.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import structlog.testing
import trio

from tests.cli_helpers import serving, wait_for_line
from tests.server_helpers import POWERS, ScriptClient, holds, start_game, start_server

#: Short enough to keep the test quick, long enough for a loaded machine's requests.
LINGER = 1.5


async def play_spring_holds(clients: dict[str, ScriptClient]) -> str:
    """Every power holds in SPR 1901; returns the FAL 1901 NOW (read by every client)."""
    now = clients["AUS"].log[-1]
    assert now.startswith("NOW ( SPR 1901 )")
    for power in POWERS:
        await clients[power].send(holds(now, power))
        await clients[power].receive_until("THX")
    fall = ""
    for power in POWERS:
        fall = (await clients[power].receive_until("NOW"))[-1]
    assert fall.startswith("NOW ( FAL 1901 )")
    return fall


async def agree_draw(clients: dict[str, ScriptClient]) -> str:
    """Every power votes DRW; returns the SMR every client read after the DRW."""
    for power in POWERS:
        await clients[power].send("DRW")
        await clients[power].receive_until("YES ( DRW )")
    smr = ""
    for power in POWERS:
        await clients[power].receive_until("DRW")
        smr = await clients[power].receive()
    return smr


async def test_connections_linger_after_the_smr(nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db", options={"linger": LINGER})
    clients = await start_game(port)
    await play_spring_holds(clients)
    smr = await agree_draw(clients)
    assert smr.startswith("SMR ( FAL 1901 )")
    eng, fra, tur = clients["ENG"], clients["FRA"], clients["TUR"]
    # EvilBot's goodbye after the SMR: relayed to everyone, the sender included.
    await eng.send("ADM ( 'EvilBot' ) ( 'good game' )")
    for power in POWERS:
        await clients[power].expect("ADM ( 'EvilBot' ) ( 'good game' )")
    # Requests are still answered.
    await fra.send("NOW")
    assert (await fra.receive()).startswith("NOW ( FAL 1901 )")
    await fra.send("SCO")
    assert (await fra.receive()).startswith("SCO ( AUS BUD TRI VIE )")
    await tur.send("ORD")
    orders = [await tur.receive() for _ in range(22)]      # 22 units held in SPR 1901
    assert all(o.startswith("ORD ( SPR 1901 ) ") and o.endswith(" HLD ) ( SUC )") for o in orders)
    await tur.send("HST ( SPR 1901 )")
    history = [await tur.receive() for _ in range(24)]
    assert history[0].startswith("ORD ( SPR 1901 )") and history[-1].startswith("NOW ( FAL 1901 )")
    await tur.send("SMR")
    await tur.expect("DRW", smr)
    # Then, the linger over: OFF, FM and an orderly close for everyone.
    for power in POWERS:
        await clients[power].expect("OFF")
        assert await clients[power].expect_closed() == "FM"
        assert await clients[power].stream.receive_some(10) == b""   # FIN, not a reset
        await clients[power].stream.aclose()


async def test_a_lingering_game_ends_when_everybody_has_left(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    # A long linger does not hold a game whose clients are gone (the tournament
    # runner and the demo close their bots themselves).
    server, port = await start_server(nursery, tmp_path / "g.db", options={"linger": 600.0})
    clients = await start_game(port)
    await agree_draw(clients)
    assert server.lobby is not None and len(server.lobby.games) == 1
    for client in clients.values():
        await client.close()
    with trio.fail_after(5):
        await server.lobby.no_games.wait()
    # A player of the game coming back during or after it is told no, without
    # counting as a passcode guess.
    eng = clients["ENG"]
    again = await ScriptClient.connect(port, "again")
    await again.send(f"IAM ( ENG ) ( {eng.passcode} )")
    await again.expect(f"REJ ( IAM ( ENG ) ( {eng.passcode} ) )")
    await again.close()


async def test_a_player_coming_back_while_the_game_lingers_is_not_guessing(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db", options={"linger": 600.0})
    clients = await start_game(port)
    await agree_draw(clients)
    eng = clients["ENG"]
    with structlog.testing.capture_logs() as logs:
        for _ in range(4):       # more than the per-connection limit of wrong passcodes
            again = await ScriptClient.connect(port, "again")
            await again.send(f"IAM ( ENG ) ( {eng.passcode} )")
            await again.expect(f"REJ ( IAM ( ENG ) ( {eng.passcode} ) )")
            await again.close()
    assert not any(e["event"] == "iam_wrong_passcode" for e in logs)
    assert any(e["event"] == "iam_refused" and "is over" in e["reason"] for e in logs)
    for client in clients.values():
        await client.close()


async def test_obs_with_a_name_and_version(nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db")
    with structlog.testing.capture_logs() as logs:
        watcher = await ScriptClient.connect(port, "watcher")
        await watcher.send("OBS ( 'Observer' ) ( 'Parlance 1.4.1' )")
        await watcher.expect("YES ( OBS ( 'Observer' ) ( 'Parlance 1.4.1' ) )",
                             "MAP ( 'STANDARD' )")
        await watcher.send("YES ( MAP ( 'STANDARD' ) )")
        bare = await ScriptClient.connect(port, "bare")
        await bare.send("OBS")
        await bare.expect("YES ( OBS )", "MAP ( 'STANDARD' )")
        await bare.send("YES ( MAP ( 'STANDARD' ) )")
        clients = await start_game(port)
        assert (await watcher.receive_until("NOW"))[0] == "HLO ( UNO ) ( 0 ) ( ( LVL 0 ) )"
    [named] = [e for e in logs if e["event"] == "observing" and "client_name" in e]
    assert named["client_name"] == "Observer" and named["client_version"] == "Parlance 1.4.1"
    [started] = [e for e in logs if e["event"] == "game_started"]
    assert started["observers"] == ["Observer", "?"]
    # A half-named OBS is still a grammar error, answered HUH at the fault.
    odd = await ScriptClient.connect(port, "odd")
    await odd.send("OBS ( 'Observer' )")
    assert (await odd.receive()).startswith("HUH ( OBS ( 'Observer' ) ERR")
    for client in [watcher, bare, odd, *clients.values()]:
        await client.close()


async def test_the_smr_names_the_turn_the_game_reached(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    # A house-rule end (the maximum year) comes with the processing of FAL 1901
    # (no retreats; every unit held, so nobody builds and winter is skipped):
    # the final NOW is SPR 1902, and so is the SMR's turn - not FAL 1901.
    _server, port = await start_server(nursery, tmp_path / "g.db", max_year=1901)
    clients = await start_game(port)
    fall = await play_spring_holds(clients)
    for power in POWERS:
        await clients[power].send(holds(fall, power))
    seen = await clients["RUS"].receive_until("SMR")
    final_now = [m for m in seen if m.startswith("NOW")][-1]
    assert final_now.startswith("NOW ( SPR 1902 )")
    assert seen[-2:-1] == ["DRW"] and seen[-1].startswith("SMR ( SPR 1902 ) ( AUS ")
    for client in clients.values():
        await client.close()


async def test_daide_serve_lingers_30_seconds_by_default_and_a_shutdown_ends_it(
        tmp_path: Path) -> None:
    # The real program: its default linger, and SIGTERM during the linger -
    # OFF, FM and an orderly close for everyone, exit status 0, no traceback.
    with serving(tmp_path / "g.db") as (server, port):
        clients = await start_game(port)
        await agree_draw(clients)
        assert server.stderr is not None
        line, _ = wait_for_line(server, server.stderr, '"event": "game_over"')
        assert json.loads(line)["linger"] == 30.0
        await clients["ITA"].send("NOW")                 # still answered
        assert (await clients["ITA"].receive()).startswith("NOW ( SPR 1901 )")
        server.send_signal(signal.SIGTERM)
        for client in clients.values():
            await client.expect("OFF")
            assert await client.expect_closed() == "FM"
            assert await client.stream.receive_some(10) == b""
            await client.stream.aclose()
        _out, err = server.communicate(timeout=30)
    assert server.returncode == 0 and "Traceback" not in err
    closed = [json.loads(x) for x in err.splitlines() if '"connection_closed"' in x]
    assert len(closed) == 7 and {e["reason"] for e in closed} == {"server shutdown"}
