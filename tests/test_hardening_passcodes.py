"""Passcodes: unpredictable, never logged, only ever sent to their own power's client,
and guessing them is limited per connection and per address (docs/protocol.md §13.2)."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
import trio
import trio.testing

from server.logconfig import configure_logging
from tests.server_helpers import POWERS, ScriptClient, jumping_clock, start_game, start_server

#: Log keys whose values are known non-secret numbers (time, address, counters, turns).
NUMERIC_KEYS = {"timestamp", "port", "peer", "conn", "db", "seconds", "orders", "results",
                "failures", "turn", "next", "game", "tokens", "pending", "level"}


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """The server's real log configuration (JSON lines, secrets redacted) into a buffer."""
    out = io.StringIO()
    configure_logging(out, json=True)
    try:
        yield out
    finally:
        structlog.reset_defaults()


def values(event: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(event, dict):
        for k, v in event.items():
            yield from values(v, k)
    elif isinstance(event, list):
        for v in event:
            yield from values(v, key)
    else:
        yield key, event


async def test_passcodes_never_reach_the_log_or_another_client(
        nursery: trio.Nursery, tmp_path: Path, json_log: io.StringIO) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db")
    watcher = await ScriptClient.connect(port, "watcher")
    await watcher.send("OBS")
    await watcher.expect("YES ( OBS )", "MAP ( 'STANDARD' )")
    await watcher.send("YES ( MAP ( 'STANDARD' ) )")
    clients = await start_game(port)
    codes = {p: c.passcode for p, c in clients.items()}
    assert all(isinstance(c, int) and 1 <= c <= 8191 for c in codes.values())
    # A wrong guess, then ENG loses its connection and comes back with IAM.
    guesser = await ScriptClient.connect(port, "guesser")
    wrong = codes["ENG"] % 8191 + 1          # type: ignore[operator]
    await guesser.send(f"IAM ( ENG ) ( {wrong} )")
    await guesser.expect(f"REJ ( IAM ( ENG ) ( {wrong} ) )")
    first_eng = clients["ENG"]
    await first_eng.drop()
    for power in POWERS[:1] + POWERS[2:]:
        await clients[power].expect("CCD ( ENG )")
    back = await ScriptClient.connect(port, "back")
    await back.send(f"IAM ( ENG ) ( {codes['ENG']} )")
    await back.expect(f"YES ( IAM ( ENG ) ( {codes['ENG']} ) )", "NOT ( CCD ( ENG ) )")
    for power in POWERS[:1] + POWERS[2:]:
        await clients[power].expect("NOT ( CCD ( ENG ) )")
    await back.send("HLO")
    await back.expect(f"HLO ( ENG ) ( {codes['ENG']} ) ( ( LVL 0 ) )")
    clients["ENG"] = back
    # Everybody draws: DRW, SMR, OFF reach every client.
    for client in clients.values():
        await client.send("DRW")
        await client.expect("YES ( DRW )")
    for client in [*clients.values(), watcher]:
        await client.receive_until("SMR")
        await client.expect("OFF")
    # A passcode went to its own power's client only (REJ echoes a wrong guess).
    own = {id(c): p for p, c in clients.items()} | {id(first_eng): "ENG"}
    for client in [*clients.values(), first_eng, watcher, guesser]:
        for text in client.log:
            for power, code in re.findall(r"(?:HLO|IAM) \( (\w{3}) \) \( (\d+) \)", text):
                if power == "UNO":
                    assert code == "0"
                elif int(code) == codes[power]:
                    assert own.get(id(client)) == power, (client.name, text)
                else:
                    assert client is guesser and text.startswith("REJ ( IAM")
    # And the log never held one: no value, under any key but the known counters.
    lines = [json.loads(line) for line in json_log.getvalue().splitlines()]
    assert any(e["event"] == "reconnected" for e in lines)
    assert any(e["event"] == "iam_wrong_passcode" for e in lines)
    for event in lines:
        for key, value in values(event):
            if key in NUMERIC_KEYS:
                continue
            for code in codes.values():
                assert not re.search(rf"(?<!\d){code}(?!\d)", str(value)), (key, event)
    for client in [*clients.values(), watcher, guesser]:
        await client.stream.aclose()


async def test_passcodes_differ_between_games_and_look_random(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db")
    games = [await start_game(port) for _ in range(3)]
    codes = [{p: c.passcode for p, c in g.items()} for g in games]
    for power in POWERS:
        # The lobby routes an IAM by (power, passcode): never shared by live games.
        assert len({c[power] for c in codes}) == 3
    flat = sorted(c for g in codes for c in g.values() if c is not None)
    assert len(flat) == 21 and flat[-1] - flat[0] > 1000      # spread over 1..8191
    assert flat != list(range(flat[0], flat[0] + 21))
    for game in games:
        for client in game.values():
            await client.close()


async def test_three_wrong_passcodes_close_the_connection(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db")
    clients = await start_game(port)
    code = clients["FRA"].passcode
    assert code is not None
    await clients["FRA"].drop()
    guesser = await ScriptClient.connect(port)
    for guess in (code % 8191 + 1, code % 8191 + 2):
        await guesser.send(f"IAM ( FRA ) ( {guess} )")
        await guesser.expect(f"REJ ( IAM ( FRA ) ( {guess} ) )")
    last = code % 8191 + 3
    await guesser.send(f"IAM ( FRA ) ( {last} )")
    await guesser.expect(f"REJ ( IAM ( FRA ) ( {last} ) )")
    assert await guesser.expect_closed() == "FM"
    # The right passcode still works from a new connection (three is under the address limit).
    back = await ScriptClient.connect(port)
    await back.send(f"IAM ( FRA ) ( {code} )")
    await back.expect(f"YES ( IAM ( FRA ) ( {code} ) )")
    for client in [*clients.values(), back]:
        await client.stream.aclose()
    await guesser.stream.aclose()


class TestAddressBlock:
    @pytest.fixture
    def clock(self) -> trio.testing.MockClock:
        return jumping_clock()

    async def test_an_address_is_blocked_then_blocked_twice_as_long(
            self, nursery: trio.Nursery, tmp_path: Path, clock: trio.testing.MockClock) -> None:
        _server, port = await start_server(
            nursery, tmp_path / "g.db",
            options={"iam_failures_per_address": 4, "iam_failure_window": 100.0})
        clients = await start_game(port)
        code = clients["TUR"].passcode
        assert code is not None
        await clients["TUR"].drop()
        wrong = code % 8191 + 1

        async def guess(times: int, passcode: int = wrong) -> list[str]:
            c = await ScriptClient.connect(port)
            replies = []
            for _ in range(times):
                await c.send(f"IAM ( TUR ) ( {passcode} )")
                replies.append(await c.receive())
            await c.close()
            return replies

        async def right_code_works() -> bool:
            c = await ScriptClient.connect(port)
            await c.send(f"IAM ( TUR ) ( {code} )")
            accepted = (await c.receive()).startswith("YES")
            await c.drop()
            await trio.sleep(1)           # the server notices the drop: TUR is away again
            return accepted

        await guess(2)
        await guess(2)                    # the fourth wrong passcode blocks the address
        started = trio.current_time()
        assert not await right_code_works()      # refused unchecked while blocked
        await trio.sleep(90 - (trio.current_time() - started))
        assert not await right_code_works()
        await trio.sleep(101 - (trio.current_time() - started))
        assert await right_code_works()
        # Second block: 200 s.
        await guess(2)
        await guess(2)
        started = trio.current_time()
        await trio.sleep(150)
        assert not await right_code_works()
        await trio.sleep(201 - (trio.current_time() - started))
        assert await right_code_works()
        for power, client in clients.items():
            if power != "TUR":
                await client.close()


async def test_players_of_a_finished_game_coming_back_are_not_guessing(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    """Bots of a game that ended (say, while the server was down) retry their IAM:
    right passcodes, refused without counting, so they never block their address."""
    options: dict[str, object] = {"iam_failures_per_address": 4}
    server, port = await start_server(nursery, tmp_path / "g.db", options=options)
    over = await start_game(port)
    codes = {p: c.passcode for p, c in over.items()}
    for client in over.values():
        await client.send("DRW")
        await client.expect("YES ( DRW )")
    for client in over.values():
        await client.receive_until("OFF")
        await client.stream.aclose()
    running = await start_game(port)
    await running["ITA"].drop()

    async def comeback_of_the_finished_game() -> None:
        for power, code in codes.items():
            c = await ScriptClient.connect(port)
            await c.send(f"IAM ( {power} ) ( {code} )")
            await c.expect(f"REJ ( IAM ( {power} ) ( {code} ) )")
            await c.close()

    await comeback_of_the_finished_game()          # seven refusals, none counted
    back = await ScriptClient.connect(port, "ita")
    await back.send(f"IAM ( ITA ) ( {running['ITA'].passcode} )")
    assert (await back.receive()).startswith("YES ( IAM ( ITA )")
    # The same after a restart: the finished game's seats come from the database.
    server.stop()
    for client in [*running.values(), back]:
        if client is not running["ITA"]:
            await client.receive_until("OFF")
            await client.stream.aclose()
    _again, port = await start_server(nursery, tmp_path / "g.db", options=options)
    await comeback_of_the_finished_game()
    for power in ("AUS", "ENG"):
        c = await ScriptClient.connect(port)
        await c.send(f"IAM ( {power} ) ( {running[power].passcode} )")
        assert (await c.receive()).startswith(f"YES ( IAM ( {power} )")
        await c.close()
