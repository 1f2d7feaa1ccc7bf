"""Run several clients in one process (``daide bot --count N``, the demo).

`run_clients` starts the clients one after the other, each one only once the
previous one has joined (accepted the map), so their join order - and with
it everything that depends on it - is fixed; then it waits for all of them
to finish.  A client that fails is logged and its error kept; the others
play on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import structlog
import trio

from bots.client import BotClient, ClientError

log = structlog.get_logger("bots")


@dataclass(frozen=True)
class ClientOutcome:
    """How one client ended: the client itself and its error, if any."""

    client: BotClient
    error: str | None


async def run_clients(clients: Sequence[BotClient]) -> list[ClientOutcome]:
    """Join `clients` in order, play until each one is done, report each outcome."""
    errors: dict[int, str] = {}

    async def play(index: int, client: BotClient,
                   task_status: trio.TaskStatus[BotClient] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            await client.run(task_status=task_status)
        except (ClientError, OSError) as exc:
            errors[index] = str(exc)
            log.error("client failed", bot=client.settings.name, error=str(exc))
            if not client.joined:
                task_status.started(client)

    async with trio.open_nursery() as nursery:
        for index, client in enumerate(clients):
            await nursery.start(play, index, client)
    return [ClientOutcome(c, errors.get(i)) for i, c in enumerate(clients)]
