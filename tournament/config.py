"""What a tournament plays: the bots, the number of games, the limits.

`TournamentConfig` is built once from the command line (or by a test) and
checked when built, so a bad value is a one-line error.  Its `identity` is
the part that decides what is played - bots, games, seed, year limit - and
is how an interrupted tournament is found again in the database
(`tournament.store`): running the same command again continues it, while
``--parallel`` or the scoring system may change between runs.

A bot is a `BotEntry`: either one of the sample strategies of
`bots.registry`, played in process over a real TCP connection, or an
external DAIDE program given as a command line in which ``{host}`` and
``{port}`` are replaced by the address it must connect to (and ``{seed}``
by the game's seed), e.g. ``"albert -s{host} -p{port}"``.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bots.registry import STRATEGIES

#: Powers of the standard map, in DAIDE order.
STANDARD_POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
#: The year before the first year of the standard game (1901).
BASE_YEAR = 1900


class ConfigError(ValueError):
    """A tournament option out of range or a bot that cannot be played."""


@dataclass(frozen=True)
class BotEntry:
    """One contestant.

    ``strategy`` names a sample bot of `bots.registry` (played in process);
    ``command`` is an external program's command line template.  Exactly one
    of the two is set.
    """

    name: str
    strategy: str | None = None
    command: str | None = None

    def __post_init__(self) -> None:
        if (self.strategy is None) == (self.command is None):
            raise ConfigError(f"bot {self.name!r}: give a sample bot or a command, not both")
        if not self.name or not all(c.isalnum() or c in "_-." for c in self.name):
            raise ConfigError(f"bot name {self.name!r}: letters, digits, '_', '-' and '.' only")
        if self.command is not None:
            if "{port}" not in self.command:
                raise ConfigError(f"bot {self.name!r}: the command must contain {{port}}")
            try:
                shlex.split(self.command)
            except ValueError as exc:
                raise ConfigError(f"bot {self.name!r}: bad command line: {exc}") from None

    @property
    def external(self) -> bool:
        return self.command is not None

    def argv(self, host: str, port: int, seed: int) -> list[str]:
        """The external program's arguments for one seat (placeholders filled)."""
        assert self.command is not None
        text = (self.command.replace("{host}", host).replace("{port}", str(port))
                .replace("{seed}", str(seed)))
        return shlex.split(text)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "strategy": self.strategy, "command": self.command}


def parse_bots(names: str, externals: Sequence[str] = ()) -> tuple[BotEntry, ...]:
    """``--bots dumbbot,randbot,albert`` with ``--external albert=CMD`` -> entries.

    A name is a sample bot (``holdbot``, ``randbot``, ``dumbbot``) unless an
    ``--external NAME=COMMAND`` defines it.  Names are case-insensitive for
    the sample bots and must be unique.
    """
    commands: dict[str, str] = {}
    for spec in externals:
        name, eq, command = spec.partition("=")
        name = name.strip()
        if not eq or not name or not command.strip():
            raise ConfigError(f"--external {spec!r}: expected NAME=COMMAND")
        if name.lower() in STRATEGIES:
            raise ConfigError(f"--external {name}: that is the name of a sample bot")
        commands[name] = command.strip()
    entries: list[BotEntry] = []
    for raw in names.split(","):
        name = raw.strip()
        if not name:
            continue
        if name in commands:
            entries.append(BotEntry(name, command=commands[name]))
        elif name.lower() in STRATEGIES:
            entries.append(BotEntry(name.lower(), strategy=name.lower()))
        else:
            raise ConfigError(f"unknown bot {name!r}: a sample bot ({', '.join(sorted(STRATEGIES))})"
                              " or a name defined with --external NAME=COMMAND")
    if not entries:
        raise ConfigError("no bots given")
    seen: set[str] = set()
    for entry in entries:
        if entry.name in seen:
            raise ConfigError(f"bot {entry.name!r} is entered twice")
        seen.add(entry.name)
    unused = sorted(set(commands) - seen)
    if unused:
        raise ConfigError(f"--external {unused[0]} is not in --bots")
    return tuple(entries)


def parse_server(text: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port)."""
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) <= 65535:
        raise ConfigError(f"--server {text!r}: expected HOST:PORT")
    return host, int(port)


@dataclass(frozen=True)
class TournamentConfig:
    """Everything `tournament.runner.run_tournament` needs.

    Limits, in seconds unless named otherwise:

    * ``year_limit`` - years played before the game is drawn among the
      survivors (10 = the game ends after 1910; the embedded server applies
      it as its ``max_year`` house rule, on an existing server the
      tournament applies it from the observer's view);
    * ``time_limit`` - wall-clock limit of one game; when it passes the game
      is scored as a draw among the survivors of the last position seen;
    * ``move_timeout`` - how long an external bot may owe orders before it
      is declared hung and cut off (civil disorder);
    * ``join_timeout`` - how long an external bot may take to join;
    * ``disorder_grace`` - the embedded server's wait for a disconnected
      power in games without deadlines (`server.settings.ServerSettings`).
    """

    bots: tuple[BotEntry, ...]
    games: int
    seed: int = 0
    scoring: str = "sos"
    parallel: int = 1
    year_limit: int = 10
    time_limit: float = 600.0
    move_timeout: float = 30.0
    join_timeout: float = 30.0
    disorder_grace: float = 5.0
    server: tuple[str, int] | None = None
    out: Path = Path("tournament")
    db: Path | None = None
    powers: tuple[str, ...] = field(default=STANDARD_POWERS)

    def __post_init__(self) -> None:
        from tournament.scoring import SYSTEMS

        if not self.bots:
            raise ConfigError("no bots given")
        if not 1 <= self.games <= 100_000:
            raise ConfigError("--games must be 1..100000")
        if self.scoring not in SYSTEMS:
            raise ConfigError(f"--scoring {self.scoring!r}: choose from {', '.join(SYSTEMS)}")
        if not 1 <= self.parallel <= 64:
            raise ConfigError("--parallel must be 1..64")
        if not 1 <= self.year_limit <= 200:
            raise ConfigError("--year-limit must be 1..200")
        for name in ("time_limit", "move_timeout", "join_timeout"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"{name.replace('_', '-')} must be positive")
        if self.disorder_grace < 0:
            raise ConfigError("disorder-grace must not be negative")

    @property
    def db_path(self) -> Path:
        """The SQLite database: ``--db``, or ``tournament.db`` in the output directory."""
        return self.db if self.db is not None else self.out / "tournament.db"

    @property
    def max_year(self) -> int:
        """The last year played (1910 for a 10-year limit)."""
        return BASE_YEAR + self.year_limit

    def identity(self) -> str:
        """JSON of what decides the games played (see the module docstring)."""
        return json.dumps({
            "bots": [b.to_json() for b in self.bots],
            "games": self.games,
            "seed": self.seed,
            "year_limit": self.year_limit,
            "powers": list(self.powers),
        }, sort_keys=True)

    def entry(self, name: str) -> BotEntry:
        for bot in self.bots:
            if bot.name == name:
                return bot
        raise KeyError(name)
