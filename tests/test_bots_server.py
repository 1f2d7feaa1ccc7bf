"""Bots against the real server over loopback TCP (127.0.0.1, port 0).

* a complete 7-bot game (the demo's code path) finishes and leaves a record;
* the demo on a variant map (``--variant``): one bot per power of that map,
  the variant's own tokens on the wire, the same game as in process;
* the same seed gives the same game, message for message;
* a bot that loses its connection mid-game comes back with IAM and the game
  still finishes;
* the map a client builds from the MDF keeps the representation of the RM.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import trio

from bots.client import BotClient, ClientSettings
from bots.demo import parse_lineup, play_demo
from bots.dumbbot import DumbBot
from bots.holdbot import HoldBot
from bots.link import Received
from bots.local import play_game
from bots.randbot import RandBot
from bots.registry import make_strategy
from bots.runner import run_clients
from daide.cmd_demo import start_embedded_server
from engine.variants import standard_map, variant_map
from protocol.messages import Now

YEARS = 4


async def test_a_seven_bot_game_completes_on_the_real_server(tmp_path: Path) -> None:
    lines: list[str] = []
    with trio.fail_after(60):
        result = await play_demo(seed=5, max_years=YEARS, out_dir=tmp_path, echo=lines.append,
                                   start_server=start_embedded_server)
    watcher = result.watcher
    assert watcher.finished and result.problems == 0
    assert sorted(result.assignment) == ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"]
    # Progress lines name the year, the phase and every power's centre count.
    assert any(line.startswith("  1901  SPR") and "AUS  3" in line and "RUS  4" in line
               for line in lines)
    final = watcher.last_turn
    assert final is not None
    if watcher.winner is None:
        assert watcher.draw and final.year == 1900 + YEARS
    table = watcher.table()
    assert sum(row.centres for row in table) <= 34 and len(table) == 7
    record = result.record.read_text(encoding="utf-8").splitlines()
    assert record[:2] == ["YES ( OBS )", "MAP ( 'STANDARD' )"]
    assert "HLO ( UNO ) ( 0 ) ( ( LVL 0 ) )" in record
    assert record[-2].startswith("SMR") and record[-1] == "OFF"
    summary = json.loads(result.summary.read_text(encoding="utf-8"))
    assert summary["seed"] == 5 and summary["result"]["text"] == watcher.result_text()
    assert {row["power"] for row in summary["final"]} == set(result.assignment)


async def test_the_same_seed_gives_the_same_game(tmp_path: Path) -> None:
    records = []
    for run in ("a", "b"):
        with trio.fail_after(60):
            result = await play_demo(seed=11, max_years=3, out_dir=tmp_path / run,
                                     start_server=start_embedded_server)
        records.append(result.record.read_text(encoding="utf-8"))
    assert records[0] == records[1]
    assert records[0].count("\nORD ") > 50
    with trio.fail_after(60):
        other = await play_demo(seed=12, max_years=3, out_dir=tmp_path / "c",
                                 start_server=start_embedded_server)
    assert other.record.read_text(encoding="utf-8") != records[0]


async def test_a_bot_that_loses_its_connection_rejoins_with_iam(tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        port = await start_embedded_server(nursery, 1903, tmp_path / "games.db")
        strategies: list[Any] = [DumbBot(), DumbBot(), RandBot(), RandBot(), HoldBot(),
                                 DumbBot(), RandBot()]
        clients = [BotClient(s, ClientSettings(port=port, name=f"{s.name}-{i}", seed=i))
                   for i, s in enumerate(strategies)]
        victim = clients[0]
        severed: list[str] = []

        def on_message(received: Received) -> None:
            now = received.message
            if isinstance(now, Now) and str(now.turn) == "FAL 1902" and not severed:
                severed.append("FAL 1902")
                victim.sever_connection()

        victim.on_message = on_message
        with trio.fail_after(60):
            outcomes = await run_clients(clients)
        nursery.cancel_scope.cancel()
    assert [o.error for o in outcomes] == [None] * 7
    assert severed == ["FAL 1902"] and victim.rejoins == 1
    assert all(c.tracker.end is not None for c in clients)
    # After rejoining, the bot kept playing: it knows the final position.
    assert victim.tracker.position is not None
    assert victim.tracker.position.turn.year >= 1903
    # The standard map's RM is empty: the client read the MDF in the standard tokens.
    assert victim.tracker.game_map is not None
    assert victim.tracker.game_map.army_adj == standard_map().army_adj


async def test_daide_bot_command_plays_a_game(tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        port = await start_embedded_server(nursery, 1902, tmp_path / "games.db")
        with trio.fail_after(60):
            done = await trio.run_process(
                [sys.executable, "-m", "daide", "bot", "randbot", "--port", str(port),
                 "--count", "7", "--seed", "3", "--name", "Rando"],
                capture_stdout=True, capture_stderr=True, check=False)
        nursery.cancel_scope.cancel()
    assert done.returncode == 0, done.stderr.decode()
    lines = done.stdout.decode().splitlines()
    assert [line.split(":")[0] for line in lines] == [f"Rando-{i}" for i in range(1, 8)]
    assert all(line.endswith("0 problem(s)") and ("draw" in line or "solo" in line)
               for line in lines), lines
    powers = {line.split("power ")[1].split(",")[0] for line in lines}
    assert powers == {"AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"}


async def test_daide_bot_reports_an_unreachable_server() -> None:
    with trio.fail_after(30):
        done = await trio.run_process(
            [sys.executable, "-m", "daide", "bot", "holdbot", "--port", "1"],
            capture_stdout=True, capture_stderr=True, check=False)
    assert done.returncode == 1
    assert done.stderr.decode().strip().splitlines()[-1].startswith("daide bot: error: ")


async def test_in_process_games_match_games_over_tcp(tmp_path: Path) -> None:
    """The benchmark's in-process games are the very games the server would play."""
    with trio.fail_after(60):
        result = await play_demo(seed=5, max_years=4, out_dir=tmp_path,
                                 start_server=start_embedded_server)
    game = play_game(standard_map(), {p: make_strategy(k) for p, k in result.assignment.items()},
                     seed=5, max_year=1904)
    assert game.centre_counts() == {p: n for p, n in result.watcher.counts.items() if n}
    position = result.watcher.position
    assert position is not None
    over_tcp = sorted((u.power, u.kind, u.node) for u in position.units)
    in_process = sorted((u.power, u.kind, (u.location.province, u.location.coast))
                        for u in game.state.units)
    assert over_tcp == in_process


async def test_the_demo_plays_a_variant_with_one_bot_per_power(tmp_path: Path) -> None:
    """South America (4 powers) over TCP: the variant's RM, MAP and powers, and the
    very game `bots.local` plays with the variant's tokens."""
    lines: list[str] = []
    with trio.fail_after(60):
        result = await play_demo(seed=4, lineup=parse_lineup(None, 4), max_years=3,
                                 out_dir=tmp_path, echo=lines.append,
                                 start_server=start_embedded_server, variant="South_America32")
    assert result.problems == 0 and result.watcher.finished
    assert sorted(result.assignment) == ["ARG", "BZL", "CHI", "COL"]
    assert result.game_id.startswith("south_america32-seed4-")
    assert "server listening on 127.0.0.1" in lines[0] and "south_america32 map" in lines[0]
    assert lines[1].startswith("players: ARG ") and len(result.watcher.table()) == 4
    record = result.record.read_text(encoding="utf-8").splitlines()
    assert record[:3] == ["YES ( OBS )", "MAP ( 'SOUTH_AMERICA32' )",
                          record[2]] and record[2].startswith("MDF ( ARG BZL CHI COL )")
    assert any(line.startswith("NOW ( FAL 1903 )") for line in record)
    summary = json.loads(result.summary.read_text(encoding="utf-8"))
    assert summary["variant"] == "south_america32" and len(summary["final"]) == 4

    sa32 = variant_map("south_america32")
    game = play_game(sa32, {p: make_strategy(k) for p, k in result.assignment.items()},
                     seed=4, max_year=1903)
    assert game.rejections == []
    assert game.centre_counts() == {p: n for p, n in result.watcher.counts.items() if n}
    position = result.watcher.position
    assert position is not None
    assert sorted((u.power, u.kind, u.node) for u in position.units) == sorted(
        (u.power, u.kind, (u.location.province, u.location.coast)) for u in game.state.units)


async def test_daide_demo_command_takes_a_variant(tmp_path: Path) -> None:
    with trio.fail_after(60):
        done = await trio.run_process(
            [sys.executable, "-m", "daide", "demo", "--variant", "hundred3", "--seed", "2",
             "--max-years", "2", "--bots", "randbot", "--out", str(tmp_path)],
            capture_stdout=True, capture_stderr=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode().splitlines()
    assert out[0] == "daide demo: 3 bots play one game of Diplomacy on the hundred3 map (seed 2)"
    assert "players: BUR RandBot, ENG RandBot, FRA RandBot" in out
    assert out[-1].endswith("replay with: daide demo --seed 2 --variant hundred3 "
                            "--bots randbot --max-years 2")
    assert "bot problems logged: 0" in out[-1]
    record = next(line for line in out if line.startswith("game record: ")).split()[2]
    assert record.startswith(f"{tmp_path}/hundred3-seed2-") and record.endswith(".daide")
    with trio.fail_after(30):
        bad = await trio.run_process(
            [sys.executable, "-m", "daide", "demo", "--variant", "hundred3", "--bots",
             "randbot,randbot,randbot,randbot"], capture_stdout=True, capture_stderr=True,
            check=False)
    assert bad.returncode != 0
    assert bad.stderr.decode().strip().splitlines()[-1] == (
        "daide demo: error: at most 3 bots, one per power")


async def test_clients_keep_the_variants_representation_on_their_map(tmp_path: Path) -> None:
    """`map_from_mdf` is given the link's representation (the RM's tokens): the MDF of a
    variant with its own provinces reads as the variant's map."""
    hundred = variant_map("hundred3")
    async with trio.open_nursery() as nursery:
        port = await start_embedded_server(nursery, 1901, tmp_path / "games.db",
                                           variant="hundred3")
        clients = [BotClient(RandBot(), ClientSettings(port=port, name=f"R{i}", seed=i))
                   for i in range(3)]
        with trio.fail_after(60):
            outcomes = await run_clients(clients)
        nursery.cancel_scope.cancel()
    assert [o.error for o in outcomes] == [None] * 3
    assert sorted(str(c.tracker.power) for c in clients) == ["BUR", "ENG", "FRA"]
    for client in clients:
        game_map = client.tracker.game_map
        assert game_map is not None and game_map.name == "hundred3"
        assert game_map.army_adj == hundred.army_adj and game_map.fleet_adj == hundred.fleet_adj
        assert game_map.powers == hundred.powers and game_map.home_centres == hundred.home_centres
        assert client.problems == []
