"""The client's message handling, against a scripted in-memory server.

These tests pin down what the client sends for each server message (join,
map, orders, press, problems, reconnection).  The end-to-end behaviour
against the real server is in test_bots_server.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio
from structlog.testing import capture_logs

from bots.client import BotClient, ClientSettings
from bots.holdbot import HoldBot
from bots.link import ConnectionLost, Received
from protocol.messages import Now
from protocol.text import tree_from_text, tree_to_text


def _standard_mdf() -> str:
    for line in Path(__file__).parent.joinpath("data/protocol/standard.mdf.txt").read_text(
            encoding="utf-8").splitlines():
        if line.startswith("MDF"):
            return line
    raise AssertionError("no MDF line")


class ScriptedServer:
    """Answers client messages from a script: a dict of client text -> server texts."""

    def __init__(self, script: dict[str, list[str]], greeting: list[str] | None = None) -> None:
        self.script = script
        self.greeting = greeting or []
        self.sent: list[list[str]] = []      # per connection: what the client sent
        self.connections = 0

    async def connect(self, host: str, port: int) -> ScriptedTransport:
        self.connections += 1
        self.sent.append([])
        return ScriptedTransport(self, list(self.greeting))


class ScriptedTransport:
    def __init__(self, server: ScriptedServer, pending: list[str]) -> None:
        self.server = server
        self.pending = pending
        self.closed = False
        self.log = server.sent[-1]
        self.drop_after: str | None = None

    async def send(self, message: tuple[Any, ...]) -> None:
        if self.closed:
            raise ConnectionLost("closed")
        text = tree_to_text(message)
        self.log.append(text)
        for key, replies in self.server.script.items():
            if text.startswith(key):
                self.pending.extend(replies)

    async def receive(self) -> Received | None:
        await trio.lowlevel.checkpoint()
        if self.closed or not self.pending:
            return None
        return Received.read(tree_from_text(self.pending.pop(0)))

    async def aclose(self) -> None:
        self.closed = True

    async def abort(self) -> None:
        self.closed = True


START = ["HLO ( ENG ) ( 1234 ) ( ( LVL 0 ) )",
         "SCO ( ENG EDI LON LVP ) ( UNO BEL )",
         "NOW ( SPR 1901 ) ( ENG FLT EDI ) ( ENG FLT LON ) ( ENG AMY LVP )"]


#: The same start at press level 10, where a no-press bot answers the press it gets.
START_PRESS = [START[0].replace("LVL 0", "LVL 10"), *START[1:]]


async def test_client_joins_plays_and_reports_problems() -> None:
    server = ScriptedServer({
        "NME": ["YES ( NME ( 'HoldBot' ) ( '1.0' ) )", "MAP ( 'STANDARD' )"],
        "MDF": [_standard_mdf()],
        "YES ( MAP": START_PRESS,
        "SUB": ["THX ( ( ENG FLT EDI ) HLD ) ( MBV )",
                "THX ( ( ENG FLT LON ) HLD ) ( NSU )",
                "THX ( ( ENG AMY LVP ) HLD ) ( MBV )",
                "MIS ( ENG FLT LON )"],
        "GOF": ["YES ( GOF )",
                "FRM ( FRA ) ( ENG ) ( PRP ( PCE ( ENG FRA ) ) )",
                "FRM ( FRA ) ( ENG ) ( TRY ( PRP ) )",
                "SLO ( FRA )",
                "SMR ( SPR 1901 ) ( ENG ( 'HoldBot' ) ( '1.0' ) 3 )"],
    })
    client = BotClient(HoldBot(), ClientSettings(name="HoldBot", gof=True),
                       connect=server.connect)
    with capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            joined = await nursery.start(client.run)
            assert joined is client and client.joined
    assert server.sent == [[
        "NME ( 'HoldBot' ) ( '1.0' )",
        "MDF",
        "YES ( MAP ( 'STANDARD' ) )",
        "SUB ( SPR 1901 ) ( ( ENG FLT EDI ) HLD ) ( ( ENG FLT LON ) HLD ) ( ( ENG AMY LVP ) HLD )",
        "GOF",
        "SND ( FRA ) ( HUH ( ERR PRP ( PCE ( ENG FRA ) ) ) )",
        "SND ( FRA ) ( TRY ( ) )",
    ]]
    assert [(p.kind, p.turn) for p in client.problems] == [
        ("rejected-order", "SPR 1901"), ("missing-orders", "SPR 1901")]
    assert "NSU" in client.problems[0].detail
    # Every problem is also a structlog event, never silently ignored.
    logged = [(e["kind"], e["detail"]) for e in logs if e["event"] == "problem"]
    assert logged == [(p.kind, p.detail) for p in client.problems]
    assert all(e["bot"] == "HoldBot" for e in logs if e["event"] == "problem")
    assert client.tracker.end is not None and client.tracker.end.winner == "FRA"


async def test_client_rejoins_with_iam_after_losing_the_connection() -> None:
    server = ScriptedServer({
        "NME": ["YES ( NME ( 'HoldBot' ) ( '1.0' ) )", "MAP ( 'STANDARD' )"],
        "MDF": [_standard_mdf()],
        "YES ( MAP": START,
        "IAM": ["YES ( IAM ( ENG ) ( 1234 ) )", "NOT ( CCD ( ENG ) )"],
        "NOW": [START[2]],
    })
    client = BotClient(HoldBot(), ClientSettings(name="HoldBot", reconnect_delay=0.001),
                       connect=server.connect)
    sent_smr = False

    def on_message(received: Received) -> None:
        nonlocal sent_smr
        if isinstance(received.message, Now) and server.connections == 1:
            client.sever_connection()
        if isinstance(received.message, Now) and server.connections == 2 and not sent_smr:
            sent_smr = True
            server.script["SUB"] = ["DRW", "SMR ( SPR 1901 ) ( ENG ( 'HoldBot' ) ( '1.0' ) 3 )"]

    client.on_message = on_message
    with trio.fail_after(5):
        await client.run()
    assert server.connections == 2 and client.rejoins == 1
    first, second = server.sent
    assert first[-1] == (
        "SUB ( SPR 1901 ) ( ( ENG FLT EDI ) HLD ) ( ( ENG FLT LON ) HLD ) ( ( ENG AMY LVP ) HLD )")
    assert second == [
        "IAM ( ENG ) ( 1234 )", "SCO", "NOW", "NOT ( SUB )",
        "SUB ( SPR 1901 ) ( ( ENG FLT EDI ) HLD ) ( ( ENG FLT LON ) HLD ) ( ( ENG AMY LVP ) HLD )"]
    assert client.tracker.end is not None and client.tracker.end.winner is None


async def test_a_seat_taken_over_hears_a_now_before_its_map_and_still_orders() -> None:
    """`daide bot --rejoin`: the game may move on between the IAM and the map being read;
    the NOW that comes first cannot be ordered (no map), so the position is asked again."""
    server = ScriptedServer({
        "IAM": ["YES ( IAM ( ENG ) ( 1234 ) )", START[2]],
        "MAP": ["MAP ( 'STANDARD' )"],
        "MDF": [_standard_mdf()],
        "HLO": [START[0]],
        "SCO": [START[1]],
        "NOW": [START[2]],
        "SUB": ["DRW", "SMR ( SPR 1901 ) ( ENG ( 'HoldBot' ) ( '1.0' ) 3 )"],
    })
    client = BotClient(HoldBot(), ClientSettings(name="HoldBot", rejoin=("ENG", 1234)),
                       connect=server.connect)
    with trio.fail_after(5):
        await client.run()
    assert server.sent == [[
        "IAM ( ENG ) ( 1234 )", "MAP", "HLO", "MDF", "YES ( MAP ( 'STANDARD' ) )", "SCO", "NOW",
        "SUB ( SPR 1901 ) ( ( ENG FLT EDI ) HLD ) ( ( ENG FLT LON ) HLD ) ( ( ENG AMY LVP ) HLD )"]]


class RefusingTransport(ScriptedTransport):
    """A connection that opens but breaks on the first message (the join)."""

    aborted = False

    async def send(self, message: tuple[Any, ...]) -> None:
        raise ConnectionLost("reset during the join")

    async def abort(self) -> None:
        self.aborted = True
        await super().abort()


async def test_a_reconnect_whose_join_fails_closes_that_connection() -> None:
    # The second connection breaks during its IAM: the client closes it (no socket
    # left to the garbage collector) and joins on a third.
    server = ScriptedServer({
        "NME": ["YES ( NME ( 'HoldBot' ) ( '1.0' ) )", "MAP ( 'STANDARD' )"],
        "MDF": [_standard_mdf()],
        "YES ( MAP": START,
        "IAM": ["YES ( IAM ( ENG ) ( 1234 ) )"],
        "NOW": [START[2]],
    })
    opened: list[ScriptedTransport] = []

    async def connect(host: str, port: int) -> ScriptedTransport:
        transport = await server.connect(host, port)
        if server.connections == 2:
            transport = RefusingTransport(server, [])
        opened.append(transport)
        return transport

    client = BotClient(HoldBot(), ClientSettings(name="HoldBot", reconnect_delay=0.001),
                       connect=connect)

    def on_message(received: Received) -> None:
        if isinstance(received.message, Now) and server.connections == 1:
            client.sever_connection()
        if isinstance(received.message, Now) and server.connections == 3:
            server.script["SUB"] = ["DRW", "SMR ( SPR 1901 ) ( ENG ( 'HoldBot' ) ( '1.0' ) 3 )"]

    client.on_message = on_message
    with capture_logs() as logs, trio.fail_after(5):
        await client.run()
    assert server.connections == 3 and len(opened) == 3
    refused = opened[1]
    assert isinstance(refused, RefusingTransport) and refused.aborted
    assert [e["error"] for e in logs if e["event"] == "reconnect failed"] == [
        "reset during the join"]
    assert server.sent[2][0] == "IAM ( ENG ) ( 1234 )"


async def test_a_no_press_bot_does_not_answer_press_at_level_0() -> None:
    # docs/protocol.md §10: at level 0 the server refuses every SND, so an answer
    # would only earn a HUH.
    server = ScriptedServer({
        "NME": ["YES ( NME ( 'HoldBot' ) ( '1.0' ) )", "MAP ( 'STANDARD' )"],
        "MDF": [_standard_mdf()],
        "YES ( MAP": START,
        "SUB": ["THX ( ( ENG FLT EDI ) HLD ) ( MBV )", "THX ( ( ENG FLT LON ) HLD ) ( MBV )",
                "THX ( ( ENG AMY LVP ) HLD ) ( MBV )",
                "FRM ( FRA ) ( ENG ) ( PRP ( PCE ( ENG FRA ) ) )",
                "SLO ( FRA )", "SMR ( SPR 1901 ) ( ENG ( 'HoldBot' ) ( '1.0' ) 3 )"],
    })
    client = BotClient(HoldBot(), ClientSettings(name="HoldBot"), connect=server.connect)
    await client.run()
    assert not any(sent.startswith("SND") for sent in server.sent[0])
