"""Running the server (or anything long-lived) until SIGINT or SIGTERM.

The signals are received by a task (`trio.open_signal_receiver`) rather than
raised as KeyboardInterrupt wherever the program happens to be, so a stop
goes through ordinary code: the server's graceful shutdown (OFF to every
client, the database closed), or a cancellation that unwinds every task with
nothing half written.  `daide serve`, `daide tournament`, `daide demo`,
`daide bot` and the load harness's server process all stop this way.
"""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:      # the bots' and tournaments' CLIs stop this way without loading the server
    from server.app import Server


async def stop_on_signal(stop: Callable[[], object]) -> None:
    """Wait for the first SIGINT or SIGTERM, then call ``stop`` once."""
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _signum in signals:
            stop()
            return


async def serve_until_signal(server: Server, *also: Callable[[], Awaitable[object]]) -> None:
    """Run ``server`` until a signal asks it to stop, with ``also`` tasks beside it.

    The tasks in ``also`` (a loop-lag sampler, say) are cancelled once the
    server has shut down.
    """
    async with trio.open_nursery() as nursery:
        nursery.start_soon(stop_on_signal, server.stop)
        for task in also:
            nursery.start_soon(task)
        await server.run()
        nursery.cancel_scope.cancel()
