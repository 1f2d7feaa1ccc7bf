"""The web door flooded while DAIDE bots play (issue 26; the long form is ``make load-web``).

A server on 127.0.0.1 (port 0, ``http_port=0``) with a small web budget; the
flood of `load.web_flood` - stalled request bodies and WebSockets that never
send the IM, more than the budget, and fast requests - runs against its web
port while seven RandBots join over the DAIDE TCP port and play a whole
short game.  No timing is asserted: the game finishes while the flood
holds, and the flood's connections are refused, timed out (408) and closed
by the IM timer as the limits say.
"""

from __future__ import annotations

import re
from pathlib import Path

import trio
from structlog.testing import capture_logs

from bots.client import BotClient, ClientSettings
from bots.randbot import RandBot
from bots.runner import run_clients
from load.web_flood import WebFlood
from tests.server_helpers import start_server

POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
BUDGET = 40


async def test_bots_play_a_whole_game_while_the_web_door_is_flooded(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    with capture_logs() as logs:
        server, tcp_port = await start_server(
            nursery, tmp_path / "games.db",
            {"http_port": 0, "http_max_connections": BUDGET, "http_request_timeout": 2.0,
             "im_timeout": 3.0}, max_year=1902)
        assert server.http_url is not None
        http_port = int(re.search(r":(\d+)/$", server.http_url).group(1))  # type: ignore[union-attr]
        flood = WebFlood(http_port, stalled=30, websockets=30, fast=2)
        async with trio.open_nursery() as flooding:
            flooding.start_soon(flood.run)
            with trio.fail_after(60):
                await flood.holding.wait()
            clients = [BotClient(RandBot(), ClientSettings(port=tcp_port, name=f"{p}:bot",
                                                           seed=i))
                       for i, p in enumerate(POWERS)]
            with trio.fail_after(300):
                outcomes = await run_clients(clients)
            # Long enough for the request timeout and the IM timer to have acted, and for
            # a fast request to have won a free connection slot against the flood's
            # retries (a short game on a loaded machine can end before one has).
            counts = flood.counts
            with trio.fail_after(60):
                while not (counts.stalled_timed_out  # noqa: ASYNC110 - counts of the flood
                           and counts.websockets_closed_after_upgrade
                           and counts.request_statuses[200]):
                    await trio.sleep(0.1)
            flooding.cancel_scope.cancel()
    assert all(o.error is None for o in outcomes), [o.error for o in outcomes]
    assert all(c.tracker.end is not None for c in clients)      # the game was played out
    # Over the budget: connections refused at once, before a byte was read.
    assert counts.stalled_refused + counts.websockets_refused > 0
    refused = [e for e in logs if e["event"] == "http_connection_refused"]
    assert refused and all(e["reason"] for e in refused)
    # Within it: bodies answered 408 after the request timeout, WebSockets upgraded
    # and then closed by the IM timer; fast requests answered, never with a 5xx.
    assert counts.stalled_timed_out > 0 and counts.stalled_other == 0
    assert counts.websockets_upgraded > 0 and counts.websockets_closed_after_upgrade > 0
    assert counts.requests > 0 and not [s for s in counts.request_statuses if s >= 500]
    assert counts.request_statuses[200] > 0
    failures = [e for e in logs if e.get("log_level") in ("error", "critical")]
    assert not failures, failures
