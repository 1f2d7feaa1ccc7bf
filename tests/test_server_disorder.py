"""Deadlines, civil disorder and reconnection over real TCP, on mock clocks."""

from __future__ import annotations

from pathlib import Path

import pytest
import structlog.testing
import trio
import trio.testing

from tests.server_helpers import (
    POWERS,
    ScriptClient,
    holds,
    jumping_clock,
    start_game,
    start_server,
)


async def others_expect(clients: dict[str, ScriptClient], skip: str, *texts: str) -> None:
    for power, client in clients.items():
        if power != skip:
            await client.expect(*texts)


class TestDeadlines:
    @pytest.fixture
    def clock(self) -> trio.testing.MockClock:
        return jumping_clock()

    async def test_deadline_processes_with_default_orders(
            self, nursery: trio.Nursery, tmp_path: Path,
            clock: trio.testing.MockClock) -> None:
        _server, port = await start_server(nursery, tmp_path / "g.db", mtl=60, rtl=30, btl=30)
        clients = await start_game(port)
        eng = clients["ENG"]
        assert eng.log[2] == f"HLO ( ENG ) ( {eng.passcode} ) ( ( LVL 0 ) ( MTL 60 ) ( RTL 30 ) ( BTL 30 ) )"
        for client in clients.values():
            await client.expect("TME ( 60 )")
        await eng.send("TME")
        await eng.expect("TME ( 60 )")
        for request, reply in (("TME ( 30 )", "YES"), ("TME ( 61 )", "REJ"), ("TME ( -1 )", "REJ"),
                               ("TME ( 10 )", "YES"), ("NOT ( TME ( 10 ) )", "YES"),
                               ("NOT ( TME ( 10 ) )", "REJ")):
            await eng.send(request)
            await eng.expect(f"{reply} ( {request} )")
        await eng.send("SUB ( ( ENG FLT LON ) MTO NTH )")
        await eng.expect("THX ( ( ENG FLT LON ) MTO NTH ) ( MBV )", "MIS ( ENG FLT EDI ) ( ENG AMY LVP )")
        # Nobody else orders: the TME request fires at 30 s, then the deadline passes.
        await eng.expect("TME ( 30 )")
        seen = await eng.receive_until("NOW")
        assert len(seen) == 23
        assert "ORD ( SPR 1901 ) ( ( ENG FLT LON ) MTO NTH ) ( SUC )" in seen
        assert "ORD ( SPR 1901 ) ( ( ENG FLT EDI ) HLD ) ( SUC )" in seen
        assert "ORD ( SPR 1901 ) ( ( TUR AMY CON ) HLD ) ( SUC )" in seen
        assert seen[-1].startswith("NOW ( FAL 1901 )")
        await eng.expect("TME ( 60 )")
        # The request stands for every phase until cancelled.
        await eng.send("NOT ( TME )")
        await eng.expect("YES ( NOT ( TME ) )")
        for client in clients.values():
            await client.close()

    async def test_no_deadline_game_stops_waiting_for_a_lost_power(
            self, nursery: trio.Nursery, tmp_path: Path,
            clock: trio.testing.MockClock) -> None:
        _server, port = await start_server(nursery, tmp_path / "g.db")
        clients = await start_game(port)
        now = clients["ENG"].log[-1]
        ger = clients.pop("GER")
        await ger.drop()
        await others_expect(clients, "", "CCD ( GER )")
        started = trio.current_time()
        for power, client in clients.items():
            await client.send(holds(now, power))
        for client in clients.values():
            seen = await client.receive_until("NOW")
        # GER was waited for during its grace (60 s), then defaulted to holds.
        assert trio.current_time() - started >= 60
        assert "ORD ( SPR 1901 ) ( ( GER AMY BER ) HLD ) ( SUC )" in seen
        for client in clients.values():
            await client.close()

    async def test_orders_given_before_leaving_count(
            self, nursery: trio.Nursery, tmp_path: Path,
            clock: trio.testing.MockClock) -> None:
        _server, port = await start_server(nursery, tmp_path / "g.db", mtl=600, dsd=True)
        clients = await start_game(port)
        now = clients["ENG"].log[-1]
        ger = clients.pop("GER")
        await ger.send("SUB ( ( GER AMY BER ) MTO SIL ) ( ( GER AMY MUN ) HLD ) ( ( GER FLT KIE ) HLD )")
        await ger.receive_until(lambda t: t.startswith("THX ( ( GER FLT KIE )"))
        await ger.drop()
        # GER owes nothing more: no DSD pause, and nobody waits for it.
        await others_expect(clients, "", "TME ( 600 )", "CCD ( GER )")
        started = trio.current_time()
        for power, client in clients.items():
            await client.send(holds(now, power))
        for client in clients.values():
            seen = await client.receive_until("NOW")
        assert trio.current_time() - started < 1
        assert "ORD ( SPR 1901 ) ( ( GER AMY BER ) MTO SIL ) ( SUC )" in seen
        for client in clients.values():
            await client.close()

    async def test_a_game_nobody_plays_is_suspended_not_played(
            self, nursery: trio.Nursery, tmp_path: Path,
            clock: trio.testing.MockClock) -> None:
        _server, port = await start_server(nursery, tmp_path / "g.db", mtl=60)
        clients = await start_game(port)
        for client in clients.values():
            await client.expect("TME ( 60 )")
        codes = {p: c.passcode for p, c in clients.items()}
        with structlog.testing.capture_logs() as logs:
            for client in clients.values():
                await client.drop()
            await trio.sleep(3600)          # an hour: nothing may be processed
            back = await ScriptClient.connect(port, "back")
            await back.send(f"IAM ( ENG ) ( {codes['ENG']} )")
            await back.expect(f"YES ( IAM ( ENG ) ( {codes['ENG']} ) )", "NOT ( CCD ( ENG ) )",
                              "TME ( 60 )")
            await back.send("NOW")
            assert (await back.receive()).startswith("NOW ( SPR 1901 )")
        events = [e["event"] for e in logs]
        assert events.count("civil_disorder") == 7
        assert "game_suspended" in events and "game_continues" in events
        assert "phase_processed" not in events
        await back.close()


async def test_dsd_stops_the_clock_while_a_power_is_away(
        nursery: trio.Nursery, tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    # mock_clock: time moves only when the test jumps it.
    _server, port = await start_server(nursery, tmp_path / "g.db", mtl=100, dsd=True)
    clients = await start_game(port)
    for client in clients.values():
        await client.expect("TME ( 100 )")
    mock_clock.jump(40)
    fra = clients["FRA"]
    code = fra.passcode
    await fra.drop()
    # docs/protocol.md §13.1: CCD, then NOT (TME (seconds left)).
    await others_expect(clients, "FRA", "CCD ( FRA )", "NOT ( TME ( 60 ) )")
    mock_clock.jump(1000)
    eng = clients["ENG"]
    await eng.send("TME")
    await eng.expect("TME ( 60 )")        # still 60: the clock stands
    back = await ScriptClient.connect(port, "france again")
    await back.send(f"IAM ( FRA ) ( {code} )")
    await back.expect(f"YES ( IAM ( FRA ) ( {code} ) )", "NOT ( CCD ( FRA ) )", "TME ( 60 )")
    await others_expect(clients, "FRA", "NOT ( CCD ( FRA ) )", "TME ( 60 )")
    # The client resynchronises by asking (13.2: no MAP, no HLO pushed).
    for request in ("MAP", "HLO", "NOW"):
        await back.send(request)
    assert await back.receive() == "MAP ( 'STANDARD' )"
    assert await back.receive() == f"HLO ( FRA ) ( {code} ) ( ( LVL 0 ) ( MTL 100 ) ( DSD ) )"
    assert (await back.receive()).startswith("NOW ( SPR 1901 )")
    mock_clock.jump(59)
    await trio.testing.wait_all_tasks_blocked()
    await eng.send("TME")
    await eng.expect("TME ( 1 )")
    mock_clock.jump(1.5)
    seen = await eng.receive_until("NOW")
    assert seen[0].startswith("ORD ( SPR 1901 )") and seen[-1].startswith("NOW ( FAL 1901 )")
    await eng.expect("TME ( 100 )")
    for client in [*clients.values(), back]:
        if client is not fra:
            await client.close()


async def test_a_client_that_stops_reading_is_dropped(nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db", options={"outbound_queue": 16})
    clients = await start_game(port)
    ita = clients["ITA"]
    # Ask for the 2.5 kB MDF thousands of times and never read the answers.
    with trio.fail_after(20):
        try:
            for _ in range(4000):
                await ita.send("MDF")
        except trio.BrokenResourceError:
            pass
        await others_expect(clients, "ITA", "CCD ( ITA )")
    # The game goes on: everyone else still gets answers.
    await clients["ENG"].send("NOW")
    assert (await clients["ENG"].receive()).startswith("NOW ( SPR 1901 )")
    for power in POWERS:
        await clients[power].close()


class TestDeadlineAfterADirectStep:
    @pytest.fixture
    def clock(self) -> trio.testing.MockClock:
        return jumping_clock()

    async def test_a_phase_completed_by_the_last_sub_starts_its_own_shorter_deadline(
            self, nursery: trio.Nursery, tmp_path: Path,
            clock: trio.testing.MockClock) -> None:
        # The last SUB of a phase completes it while the actor waits with the old
        # phase's deadline; the actor must then wait for the new phase's own
        # deadline (BTL 10), not the old one (MTL 60).
        _server, port = await start_server(nursery, tmp_path / "g.db", mtl=60, btl=10)
        clients = await start_game(port)
        for client in clients.values():
            await client.expect("TME ( 60 )")

        async def everyone(now: str, eng: str) -> str:
            for power, client in clients.items():
                await client.send(eng if power == "ENG" else holds(now, power))
            for client in clients.values():
                now = (await client.receive_until("NOW"))[-1]
            return now

        now = clients["ENG"].log[-2]
        assert now.startswith("NOW ( SPR 1901 )")
        now = await everyone(now, "SUB ( ( ENG FLT LON ) MTO NTH ) ( ( ENG FLT EDI ) HLD )"
                                  " ( ( ENG AMY LVP ) HLD )")
        assert now.startswith("NOW ( FAL 1901 )")
        now = await everyone(now, "SUB ( ( ENG FLT NTH ) MTO NWY ) ( ( ENG FLT EDI ) HLD )"
                                  " ( ( ENG AMY LVP ) HLD )")
        assert now.startswith("NOW ( WIN 1901 )")        # ENG has a build to order
        started = trio.current_time()
        await clients["ENG"].expect("TME ( 10 )")
        seen = await clients["ENG"].receive_until("NOW")
        assert seen[-1].startswith("NOW ( SPR 1902 )")
        assert 10 <= trio.current_time() - started < 11     # BTL, not what was left of MTL
        for client in clients.values():
            await client.close()
