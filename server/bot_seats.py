"""Server-started bots: the server's children, one process per seat.

A host fills seats with bots (``daide game new --fill dumbbot``, ``fill N
BOT``): each is a child process the server starts and watches, which
joins its game like any client - with the invitation its seat holds
(``NAME [invite CODE]``) while the game forms, or with IAM and the power's
passcode once it runs (a power in civil disorder, or after a restart of
the server: every running game's bots are started again into their
seats).  They stop with their game, and die with the server (Linux's
parent-death signal), so a killed server leaves no orphans.

What a bot kind is and how it is run is not the server's business (the
bots live above it, `bots/`): the `BotLauncher` the caller gives says
which kinds exist and the command line of each.  A bot's output goes to
``<database>.bots/game-N-NAME.log``.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

import structlog
import trio

log = structlog.get_logger("server.bot_seats")

#: Seconds a stopped bot has to leave before it is killed.
STOP_GRACE = 3.0


class BotLauncher(Protocol):
    """The bots a server may start, and how (given by `daide serve`, or a test)."""

    def kinds(self) -> Sequence[str]:
        """The bot kinds, e.g. ``("dumbbot", "holdbot", ...)``."""
        ...

    def command(self, kind: str, host: str, port: int, name: str,
                rejoin: tuple[str, int] | None) -> list[str]:
        """The command line of one bot: it connects to ``host:port`` and joins with
        NME ``name`` - or, with ``rejoin`` (power, passcode), with IAM."""
        ...


@dataclass(frozen=True)
class BotSeat:
    """One started bot: its game, kind and how it joins."""

    game: int
    kind: str
    name: str
    port: int
    rejoin: tuple[str, int] | None = None


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the server's process dies (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)      # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class BotSeats:
    """The server's bot processes (see the module doc)."""

    def __init__(self, launcher: BotLauncher | None, nursery: trio.Nursery, host: str,
                 log_dir: Path | None) -> None:
        self.launcher = launcher
        self.nursery = nursery
        self.host = host
        self.log_dir = log_dir
        self._running: dict[int, list[subprocess.Popen[bytes]]] = {}

    def kinds(self) -> list[str]:
        return sorted(self.launcher.kinds()) if self.launcher is not None else []

    def start(self, seat: BotSeat) -> None:
        """Start one bot process (its task watches it and logs its end)."""
        if self.launcher is None:
            log.warning("bot_not_started", game=seat.game, bot=seat.kind,
                        reason="this server starts no bots")
            return
        self.nursery.start_soon(self._run, seat, name=f"bot-{seat.game}-{seat.kind}")

    async def _run(self, seat: BotSeat) -> None:
        assert self.launcher is not None
        argv = self.launcher.command(seat.kind, self.host, seat.port, seat.name, seat.rejoin)
        output = self._log_file(seat)
        try:
            # Started from the trio thread itself, not through trio.lowlevel.open_process:
            # that forks in a worker thread, and the parent-death signal fires when the
            # *thread* that forked ends - trio's idle workers end after 10 s, and with them
            # every bot.  The fork and exec take milliseconds.
            process = subprocess.Popen(  # noqa: ASYNC220 - see above
                argv, stdin=subprocess.DEVNULL,
                stdout=output if output is not None else subprocess.DEVNULL,
                stderr=output if output is not None else subprocess.DEVNULL,
                preexec_fn=_die_with_parent if os.name == "posix" else None)
        except OSError as exc:
            log.error("bot_not_started", game=seat.game, bot=seat.kind, reason=str(exc))
            return
        finally:
            if output is not None:
                output.close()
        self._running.setdefault(seat.game, []).append(process)
        log.info("bot_started", game=seat.game, bot=seat.kind, pid=process.pid,
                 **({"power": seat.rejoin[0]} if seat.rejoin else {}))
        try:
            code = await _exited(process)
        finally:
            if process.returncode is None:
                with trio.CancelScope(shield=True):
                    await _stop(process)
            processes = self._running.get(seat.game, [])
            if process in processes:
                processes.remove(process)
        log.info("bot_exited", game=seat.game, bot=seat.kind, pid=process.pid, status=code)

    def _log_file(self, seat: BotSeat) -> BinaryIO | None:
        """The bot's output file (None: nowhere - an in-memory database, or no room)."""
        if self.log_dir is None:
            return None
        try:
            self.log_dir.mkdir(exist_ok=True)
            safe = "".join(c if c.isalnum() else "-" for c in seat.kind)
            return (self.log_dir / f"game-{seat.game}-{safe}.log").open("ab")
        except OSError:
            return None

    def stop_game(self, game_id: int) -> None:
        """The game is over: its bots are asked to leave (SIGTERM), then killed."""
        for process in self._running.pop(game_id, []):
            self.nursery.start_soon(_stop, process)

    def stop_all(self) -> None:
        for game_id in list(self._running):
            self.stop_game(game_id)


async def _exited(process: subprocess.Popen[bytes]) -> int:
    """Wait for the process to end, without a thread: its pidfd becomes readable then."""
    pidfd = os.pidfd_open(process.pid)
    try:
        while process.poll() is None:
            await trio.lowlevel.wait_readable(pidfd)
    finally:
        os.close(pidfd)
    return process.returncode


async def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    with trio.move_on_after(STOP_GRACE):
        await _exited(process)
        return
    process.kill()
    await _exited(process)
