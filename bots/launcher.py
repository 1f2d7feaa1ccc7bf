"""The bots a server starts into seats: the sample bots, and external programs.

`daide serve` gives a `ProcessBots` to the server (`server.bot_seats`): each
bot is a process of its own - ``python -m daide bot KIND`` for the sample
bots, which can take a seat over with IAM (``--rejoin``), or an external
DAIDE program (``daide serve --bot NAME=COMMAND``, with ``{host}``,
``{port}`` and ``{name}`` in the command, like the tournament's
``--external``).  An external program joins with its NME only, so after a
restart of the server it cannot come back into a running game by itself;
the sample bots do.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping

from bots.registry import STRATEGIES


class ProcessBots:
    """Bot kinds and their command lines (see the module doc)."""

    def __init__(self, external: Mapping[str, str] | None = None) -> None:
        self.external = dict(external or {})
        for name, command in self.external.items():
            if name in STRATEGIES:
                raise ValueError(f"--bot {name}: that is the name of a sample bot")
            if not name.isidentifier():
                raise ValueError(f"--bot {name!r}: a bot's name is letters, digits and _")
            try:
                shlex.split(command)
            except ValueError as exc:
                raise ValueError(f"--bot {name}: {exc}") from None

    def kinds(self) -> list[str]:
        return sorted([*STRATEGIES, *self.external])

    def command(self, kind: str, host: str, port: int, name: str,
                rejoin: tuple[str, int] | None) -> list[str]:
        if kind in self.external:
            text = self.external[kind]
            return [part.replace("{host}", host).replace("{port}", str(port))
                    .replace("{name}", name) for part in shlex.split(text)]
        argv = [sys.executable, "-m", "daide", "bot", kind, "--host", host, "--port", str(port),
                "--name", name]
        if rejoin is not None:
            argv += ["--rejoin", f"{rejoin[0]}:{rejoin[1]}"]
        return argv


def parse_bot_options(values: list[str]) -> dict[str, str]:
    """``["albert=albert.exe -s{host} -p{port}"]`` -> ``{"albert": "albert.exe ..."}``."""
    found: dict[str, str] = {}
    for value in values:
        name, sep, command = value.partition("=")
        if not sep or not name or not command.strip():
            raise ValueError(f"--bot is NAME=COMMAND, not {value!r}")
        found[name] = command
    return found
