"""Hosting games in a running server (issue 27): `server.hosting.Host` over real TCP.

Each test runs a real server on 127.0.0.1 (port 0, SQLite in a temporary
folder) and calls the host's operations as the doors do; the clients are
scripted DAIDE connections, the server-started bots real processes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import trio

from bots.launcher import ProcessBots
from server.app import Server
from server.hosting import GameSpec, HostingError, Origin
from server.settings import GameSettings, ServerSettings
from tests.server_helpers import POWERS, ScriptClient, holds, seated

ADMIN = Origin("cli", "127.0.0.1")


async def _server(nursery: trio.Nursery, db: Path, **options: object) -> tuple[Server, int]:
    server = Server(ServerSettings(host="127.0.0.1", port=0, db_path=db, **options),  # type: ignore[arg-type]
                    bots=ProcessBots())
    listeners = await nursery.start(server.run)
    return server, int(listeners[0].socket.getsockname()[1])


def _host(server: Server):  # type: ignore[no-untyped-def]
    assert server.lobby is not None
    return server.lobby.host


async def _players(port: int, names: list[str]) -> dict[str, ScriptClient]:
    clients = [await ScriptClient.connect(port, name) for name in names]
    for client in clients:
        await client.join()
    by_power = await seated(clients)
    for client in clients:
        await client.receive_until("NOW")
    return by_power


async def test_a_hosted_game_of_another_variant_has_its_own_door(tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        server, shared = await _server(nursery, tmp_path / "s.db")
        host = _host(server)
        made = await host.new_game(GameSpec(GameSettings(variant="modern", level=8000, mtl=300,
                                                         name="Friday")), ADMIN)
        assert made["variant"] == "modern" and made["own_port"] and made["port"] != shared
        assert made["name"] == "Friday" and made["status"] == "forming"
        # The game's own port speaks modern; the shared one the template's map.
        door = await ScriptClient.connect(made["port"], "x")
        assert await door.join() == "MAP ( 'MODERN' )"
        lobby_client = await ScriptClient.connect(shared, "y")
        assert await lobby_client.join() == "MAP ( 'STANDARD' )"
        listed = {g["id"]: g for g in host.games()}
        assert listed[made["id"]]["status"] == "forming"
        assert host.log(made["id"])[0]["action"].startswith("new modern game, level 8000, mtl 300")
        for client in (door, lobby_client):
            await client.close()
        server.stop()


async def test_invitations_hold_seats_and_fix_powers(tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        server, shared = await _server(nursery, tmp_path / "s.db")
        host = _host(server)
        made = await host.new_game(GameSpec(GameSettings(name="club", access="invitation"),
                                            seats={"fra": "alice", "GER": "bob"}), ADMIN)
        codes = made["invitations"]
        assert set(codes) == {"FRA", "GER"} and all(re.fullmatch(r"\w{4}-\w{4}-\w{4}", c)
                                                     for c in codes.values())
        # Without an invitation nobody gets into a game by invitation: a plain NME on
        # the shared port opens a game of the template instead.
        stranger = await ScriptClient.connect(shared, "stranger")
        await stranger.join()
        assert stranger.log[0].startswith("YES ( NME")
        wrong = await ScriptClient.connect(shared)
        await wrong.send("NME ( 'mallory [invite AAAA-BBBB-CCCC]' ) ( '1' )")
        assert (await wrong.receive()).startswith("REJ ( NME")
        with pytest.raises(HostingError, match="unknown|no bot"):
            await host.fill(made["id"], "nobot", None, ADMIN)
        await stranger.close()
        await wrong.close()
        server.stop()


async def test_invited_players_get_their_powers_and_the_host_runs_the_game(tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        server, shared = await _server(nursery, tmp_path / "s.db")
        host = _host(server)
        extra = await host.new_game(GameSpec(GameSettings(mtl=600), seats={
            p: f"p{i}" for i, p in enumerate(POWERS)}), ADMIN)
        assert not extra["own_port"] and extra["port"] == shared
        codes = extra["invitations"]
        names = [codes[p] for p in POWERS]
        clients = await _players(shared, [f"p{i} [invite {c}]" for i, c in enumerate(names)])
        assert set(clients) == set(POWERS)
        # Each invitation gave its power, and the name is shown without the suffix.
        view = host.game(extra["id"])
        assert {s["power"]: s["name"] for s in view["seats"]} == \
            {p: f"p{i}" for i, p in enumerate(POWERS)}
        game = extra["id"]
        # pause: every client hears it; the clock stands.
        assert (await host.pause(game, ADMIN))["paused"] is True
        for client in clients.values():
            texts = await client.receive_until("NOT ( TME")
            assert any("paused" in t for t in texts)
        with pytest.raises(HostingError, match="already paused"):
            await host.pause(game, ADMIN)
        # Orders complete while paused: no phase is processed.
        for power, client in clients.items():
            now = next(t for t in client.log if t.startswith("NOW"))
            await client.send(holds(now, power))
            await client.receive_until("THX")
        await trio.sleep(0.2)
        assert host.game(game)["turn"] == "SPR 1901"
        await host.resume(game, ADMIN)
        for client in clients.values():
            await client.receive_until("NOW ( FAL 1901 )")
        extended = await host.extend(game, 100, ADMIN)
        assert 600 < extended["seconds_left"] <= 700
        # eject: a new passcode; the old one no longer works; the power is in disorder.
        ejected = await host.eject(game, "fra", ADMIN)
        assert ejected["power"] == "FRA" and ejected["passcode"] != clients["FRA"].passcode
        assert await clients["FRA"].expect_closed() in ("FM", "EOF", "closed")
        await clients["ENG"].receive_until("CCD ( FRA )")
        back = await ScriptClient.connect(shared, "replacement")
        await back.send(f"IAM ( FRA ) ( {ejected['passcode']} )")
        assert (await back.receive()).startswith("YES ( IAM")
        # end: a draw of the survivors, SMR.
        ended = await host.end(game, ADMIN)
        assert ended["draw"] == sorted(POWERS)
        texts = await clients["ENG"].receive_until("SMR")
        assert any(t.startswith("DRW") for t in texts)
        with pytest.raises(HostingError, match="is over"):
            await host.pause(game, ADMIN)
        actions = [(a["action"], a["outcome"].split(":")[0]) for a in host.log(game)]
        assert actions == [("new standard game, level 0, mtl 600, seats AUS=p0, ENG=p1, FRA=p2, "
                            "GER=p3, ITA=p4, RUS=p5, TUR=p6", "done"), ("pause", "done"),
                           ("pause", "refused"), ("resume", "done"), ("extend 100", "done"),
                           ("eject FRA", "done"), ("end", "done"), ("pause", "refused")]
        with pytest.raises(HostingError, match="no game 999"):
            host.game(999)
        for client in [*clients.values(), back]:
            await client.close()
        server.stop()


async def test_a_game_filled_with_server_started_bots_plays_to_its_end(tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        server, _shared = await _server(nursery, tmp_path / "s.db")
        host = _host(server)
        made = await host.new_game(GameSpec(GameSettings(max_year=1901), fill="holdbot",
                                            bots={"FRA": "randbot"}), ADMIN)
        assert made["invitations"] == {}
        assert server.lobby is not None
        with trio.fail_after(120):
            await server.lobby.no_games.wait()      # its actor ends with the game
        view = host.game(made["id"])
        assert view["bots"]["FRA"] == "randbot" and len(view["bots"]) == 7
        assert {s["name"] for s in view["seats"]} == {"HoldBot", "RandBot"} or \
            {s["name"] for s in view["seats"]} <= {"holdbot", "randbot"}
        server.stop()


async def test_hosted_games_survive_a_restart_with_their_state(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    async with trio.open_nursery() as nursery:
        server, shared = await _server(nursery, db)
        host = _host(server)
        forming = await host.new_game(GameSpec(GameSettings(name="later"),
                                               seats={"ENG": "carol"}), ADMIN)
        running = await host.new_game(GameSpec(GameSettings(mtl=900),
                                               seats={p: p.lower() for p in POWERS}), ADMIN)
        codes = running["invitations"]
        clients = await _players(shared, [f"{p.lower()} [invite {codes[p]}]" for p in POWERS])
        await host.pause(running["id"], ADMIN)
        ejected = await host.eject(running["id"], "TUR", ADMIN)
        server.stop()
        for client in clients.values():
            await client.drop()
    async with trio.open_nursery() as nursery:
        server, shared = await _server(nursery, db)
        host = _host(server)
        assert host.game(forming["id"])["status"] == "forming"
        assert host.game(forming["id"])["name"] == "later"
        view = host.game(running["id"])
        assert view["status"] == "running" and view["paused"] is True
        back = await ScriptClient.connect(shared, "t")
        await back.send(f"IAM ( TUR ) ( {ejected['passcode']} )")
        assert (await back.receive()).startswith("YES ( IAM")
        await trio.sleep(1.2)
        await back.send("TME")
        seen = await back.receive_until(lambda t: "TME" in t and "CCD" not in t)
        assert seen[-1] == "TME ( 900 )", seen           # the clock stands: paused
        await host.resume(running["id"], ADMIN)
        await back.close()
        server.stop()


async def test_a_web_page_reaches_a_hosted_game_by_its_websocket_door(tmp_path: Path) -> None:
    from protocol.frames import InitialMessage, build_frame
    from tests.web_helpers import WebSocketClient

    async with trio.open_nursery() as nursery:
        server, _shared = await _server(nursery, tmp_path / "s.db", http_port=0)
        host = _host(server)
        made = await host.new_game(GameSpec(GameSettings(variant="modern")), ADMIN)
        assert server.http_url is not None
        http_port = int(server.http_url.rstrip("/").rsplit(":", 1)[1])
        stream = await WebSocketClient.connect(http_port, f"/daide?game={made['id']}")
        await stream.send_all(build_frame(InitialMessage()))
        with trio.fail_after(10):
            rm = await stream.receive_some()
        assert len(rm) > 4          # modern's provinces, not the standard map's empty RM
        await stream.aclose()
        with pytest.raises(ConnectionError, match="404"):
            await WebSocketClient.connect(http_port, "/daide?game=99")
        server.stop()


async def test_a_hosted_game_starts_from_the_position_its_host_gave(tmp_path: Path) -> None:
    # DATC 6.J.2: France owns Paris and has three armies - two removals owed first.
    removals = ("SCO ( FRA PAR ) ( UNO ANK BEL BER BRE BUD BUL CON DEN EDI GRE HOL KIE LON "
                "LVP MAR MOS MUN NAP NWY POR ROM RUM SER SEV SMY SPA STP SWE TRI TUN VEN VIE "
                "WAR )\nNOW ( WIN 1901 ) ( FRA AMY PAR ) ( FRA AMY PIC ) ( FRA AMY MUN )")
    async with trio.open_nursery() as nursery:
        server, _shared = await _server(nursery, tmp_path / "s.db")
        host = _host(server)
        with pytest.raises(HostingError, match="start position"):
            await host.new_game(GameSpec(GameSettings(start="NOW ( WIN 1901 ) ( FRA AMY NTH )")),
                                ADMIN)
        assert host.games() == []          # nothing was created
        made = await host.new_game(GameSpec(GameSettings(start=removals, max_year=1902),
                                            fill="holdbot"), ADMIN)
        assert server.lobby is not None
        with trio.fail_after(120):
            await server.lobby.no_games.wait()
        phases = server.lobby.store.phases(made["id"])
        assert phases[0].seq == 0 and "WIN 1901" in phases[0].now
        assert phases[1].turn == "WIN 1901" and len(phases[1].orders.get("FRA", ())) == 2
        server.stop()
