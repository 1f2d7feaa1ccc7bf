"""`daide tournament`: play many no-press games between bots and rank them.

    daide tournament --bots dumbbot,randbot,holdbot --games N
                     [--scoring sos|draw-size|dptg|points] [--seed S]
                     [--parallel K] [--server HOST:PORT] [--out DIR]
                     [--external NAME=COMMAND ...] [--year-limit Y]
                     [--time-limit S] [--move-timeout S] [--report-only]
                     [--ray [ADDRESS]]

Bots are the sample bots (played in process, over TCP) and external DAIDE
programs: ``--external albert='albert.exe -s{host} -p{port}'`` then
``--bots albert,dumbbot``.  Without ``--server`` an embedded server runs on
a free loopback port with the database ``DIR/tournament.db``.  The report
(``report.md``, ``games.csv``, ``bots.csv``, ``scores.svg``,
``centres-game-N.svg``) is written to DIR; the log of the server, the bots
and the tournament to ``DIR/tournament.log``; the output of external
programs to ``DIR/logs/``.

With ``--ray`` every game is a task on a Ray cluster (``ADDRESS`` as Ray
takes it: ``auto``, ``HOST:PORT``, ``ray://HOST:10001``; none starts a local
Ray of ``--parallel`` CPUs): see `tournament.cluster` and docs/cluster.md.

Interrupt with Ctrl-C at any time: running the same command again
continues the tournament where it stopped (see `tournament.store`).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from tournament.config import TournamentConfig
    from tournament.runner import Progress, TournamentRun

from daide.errors import CommandError

NAME = "tournament"
HELP = "play a gunboat tournament between bots and report which is better"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tournament.scoring import SYSTEMS

    parser.add_argument("--bots", required=True,
                        help="comma-separated contestants: sample bots (holdbot, randbot, "
                             "dumbbot) and names defined with --external")
    parser.add_argument("--external", action="append", default=[], metavar="NAME=COMMAND",
                        help="an external DAIDE program; {host} and {port} (and {seed}) in "
                             "COMMAND are replaced by the address to connect to")
    parser.add_argument("--games", type=int, required=True, help="number of games")
    parser.add_argument("--scoring", choices=list(SYSTEMS), default="sos",
                        help="scoring system of the ranking (default sos; the report shows "
                             "every system's means)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the seating and the bots (default 0)")
    parser.add_argument("--parallel", type=int, default=2, metavar="K",
                        help="games played at once (default 2)")
    parser.add_argument("--server", metavar="HOST:PORT",
                        help="play on this server instead of an embedded one")
    parser.add_argument("--out", type=Path, default=Path("tournament"),
                        help="directory of the report and database (default ./tournament)")
    parser.add_argument("--db", type=Path, default=None,
                        help="SQLite database (default DIR/tournament.db; with --server, give "
                             "the server's database to link its game records)")
    parser.add_argument("--year-limit", type=int, default=10, metavar="YEARS",
                        help="years played before a draw among the survivors (default 10)")
    parser.add_argument("--time-limit", type=float, default=600.0, metavar="S",
                        help="wall-clock seconds per game (default 600)")
    parser.add_argument("--move-timeout", type=float, default=30.0, metavar="S",
                        help="seconds an external bot may owe orders before it is cut off as "
                             "hung (default 30)")
    parser.add_argument("--join-timeout", type=float, default=30.0, metavar="S",
                        help="seconds an external bot may take to join (default 30)")
    parser.add_argument("--disorder-grace", type=float, default=5.0, metavar="S",
                        help="embedded server: wait for a disconnected power (default 5)")
    parser.add_argument("--report-only", action="store_true",
                        help="play nothing; write the report of the games already played")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                        help="play each game as a task on a Ray cluster at ADDRESS (auto, "
                             "HOST:PORT, ray://HOST:10001); without ADDRESS a local Ray of "
                             "--parallel CPUs is started for the run (needs "
                             "pip install -e '.[cluster]')")


def build_config(args: argparse.Namespace) -> TournamentConfig:
    """The `TournamentConfig` of the command line (CommandError for bad values)."""
    from tournament.config import ConfigError, TournamentConfig, parse_bots, parse_server

    try:
        return TournamentConfig(
            bots=parse_bots(args.bots, args.external), games=args.games, seed=args.seed,
            scoring=args.scoring, parallel=args.parallel, year_limit=args.year_limit,
            time_limit=args.time_limit, move_timeout=args.move_timeout,
            join_timeout=args.join_timeout, disorder_grace=args.disorder_grace,
            server=parse_server(args.server) if args.server else None, out=args.out,
            db=args.db)
    except ConfigError as exc:
        raise CommandError(str(exc)) from exc


async def _play_until_interrupted(config: TournamentConfig,
                                  bar: Callable[[Progress], None] | None) -> TournamentRun | None:
    """Run the tournament; SIGINT/SIGTERM cancel it cleanly (None is returned then).

    The signals are received by a task rather than raised as KeyboardInterrupt
    wherever the program happens to be, so every game task - and the embedded
    server - unwinds through ordinary cancellation: nothing half written.
    """
    import trio

    from server.runner import stop_on_signal
    from tournament.runner import run_tournament

    outcome = None
    async with trio.open_nursery() as nursery:
        with trio.CancelScope() as playing:
            nursery.start_soon(stop_on_signal, playing.cancel)
            outcome = await run_tournament(config, on_progress=bar)
        nursery.cancel_scope.cancel()
    return outcome


PROBE_TIMEOUT = 10.0
"""Seconds `probe_server` waits for a server to let an observer in."""


async def probe_server(host: str, port: int) -> None:
    """Join ``host:port`` as an observer and leave, before any game is planned.

    A server that cannot be reached, refuses (REJ), closes the connection or
    stays silent is named in one line (CommandError) with the reason.
    """
    import trio

    from bots.client import BotClient, ClientError, ClientSettings
    from bots.link import ConnectionLost

    where = f"server {host}:{port}"
    probe = BotClient(None, ClientSettings(host=host, port=port, name="tournament-probe",
                                           observer=True))
    try:
        try:
            with trio.fail_after(PROBE_TIMEOUT):
                async with trio.open_nursery() as nursery:
                    await nursery.start(probe.run)
                    nursery.cancel_scope.cancel()      # joined: that is all we wanted
        except BaseExceptionGroup as group:
            leaf = _only(group)
            raise leaf from leaf.__cause__      # keeps the socket errors behind it
    except trio.TooSlowError:
        raise CommandError(f"{where} did not let an observer in within "
                           f"{PROBE_TIMEOUT:g} s") from None
    except ClientError as exc:
        raise CommandError(f"{where} answered REJ: {exc}") from None
    except ConnectionLost as exc:
        raise CommandError(f"{where} closed the connection: {exc or 'no reason given'}") from None
    except OSError as exc:
        raise CommandError(f"cannot reach {where}: {_os_reason(exc)}") from None
    if not probe.joined:
        raise CommandError(f"{where} ended the connection before an observer could join")


def _os_reason(exc: OSError) -> str:
    """The plain reason of a connection failure (trio wraps the socket's error)."""
    causes: list[BaseException] = [exc]
    if isinstance(exc.__cause__, BaseExceptionGroup):   # one per address tried
        causes = list(exc.__cause__.exceptions)
    elif exc.__cause__ is not None:
        causes = [exc.__cause__]
    # trio's strerror repeats the address; the errno's own text does not.
    reasons = [os.strerror(c.errno) if c.errno and c.errno > 0 else str(c.strerror)
               for c in causes if isinstance(c, OSError) and (c.errno or c.strerror)]
    return ", ".join(dict.fromkeys(r.lower() for r in reasons)) or str(exc)


def _only(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one exception inside nested single-exception groups (trio nurseries)."""
    exc: BaseException = group
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def _what_was_played(outcome: TournamentRun, games: int) -> str:
    """The line that says what a run did."""
    if outcome.resumed and outcome.complete and not (outcome.played or outcome.failed):
        which = "its game is" if games == 1 else f"the {games} games of this tournament are"
        return f"nothing to play: {which} finished; its report is written again"
    if outcome.extended_from:
        going_on = f", extending the tournament of {outcome.extended_from} games to {games}"
    elif outcome.resumed:
        going_on = ", continuing an interrupted tournament"
    else:
        going_on = ""
    failed = f"; {outcome.failed} could not be played" if outcome.failed else ""
    return f"played {outcome.played} game(s){going_on}{failed}"


def _play_on_ray(config: TournamentConfig, address: str | None,
                 bar: Callable[[Progress], None] | None, log_file: TextIO) -> TournamentRun | None:
    from tournament.cluster import ClusterError, run_tournament_ray

    try:
        return run_tournament_ray(config, address, on_progress=bar, worker_log=log_file,
                                  handle_signals=True)
    except ClusterError as exc:
        raise CommandError(str(exc)) from None


@contextmanager
def _logging_to(stream: TextIO) -> Iterator[None]:
    """structlog lines (JSON) to ``stream`` while the command runs, the defaults after."""
    import structlog

    from server.logconfig import configure_logging

    configure_logging(stream, json=True, level=logging.INFO)
    try:
        yield
    finally:
        structlog.reset_defaults()


def run(args: argparse.Namespace) -> int:
    import trio

    from tournament.progress import ProgressBar
    from tournament.report import write_report
    from tournament.runner import find_tournament
    from tournament.store import TournamentStore, TournamentStoreError

    config = build_config(args)
    ray_address: str | None = None
    if args.ray is not None and not args.report_only:
        from tournament.cluster import ClusterError, require_ray

        if args.server:
            raise CommandError("--ray plays on the workers' own servers: leave out --server")
        ray_address = args.ray or None
        try:
            require_ray(ray_address)  # a Ray on the loopback: imported for the loopback
        except ClusterError as exc:
            raise CommandError(str(exc)) from None
    try:
        config.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"cannot create {config.out}: {exc}") from exc
    if config.server is not None and not args.report_only:
        trio.run(probe_server, *config.server)
    interrupted = False
    with (config.out / "tournament.log").open("a", encoding="utf-8") as log_file, \
            _logging_to(log_file):
        if not args.report_only:
            bar = None if args.no_progress else ProgressBar(sys.stderr)
            try:
                if args.ray is not None:
                    outcome = _play_on_ray(config, ray_address, bar, log_file)
                else:
                    outcome = trio.run(_play_until_interrupted, config, bar)
                interrupted = outcome is None
            except TournamentStoreError as exc:
                raise CommandError(str(exc)) from exc
            except OSError as exc:
                raise CommandError(f"cannot play: {exc}") from exc
            except BaseExceptionGroup as group:
                # A game that cannot be seated (the server refused a bot) ends
                # the run; name the server and the reason instead of a traceback.
                leaf = _only(group)
                if not isinstance(leaf, Exception) or isinstance(leaf, BaseExceptionGroup):
                    raise
                if isinstance(leaf, TournamentStoreError):
                    raise CommandError(str(leaf)) from group
                where = (f"server {config.server[0]}:{config.server[1]}"
                         if config.server else "embedded server")
                raise CommandError(f"{where}: {leaf}") from group
            finally:
                if bar is not None:
                    bar.close()
            if outcome is not None:
                print(_what_was_played(outcome, config.games))
        store = TournamentStore.open(config.db_path)
        try:
            try:
                tid = find_tournament(config, store)
            except TournamentStoreError as exc:
                raise CommandError(str(exc)) from exc
            if tid is None:
                raise CommandError(f"no such tournament in {config.db_path}")
            report = write_report(config, store, tid)
        finally:
            store.close()
    ranking = report.text.split("## Ranking", 1)[1].split("\n## ", 1)[0]
    print("## Ranking" + ranking.rstrip())
    print(f"\nreport: {report.markdown} (games.csv, bots.csv, {report.scores_svg.name}"
          + (f", {report.sample_svg.name}" if report.sample_svg else "") + ")")
    if interrupted:
        print("interrupted: run the same command again to continue", file=sys.stderr)
        return 130
    return 0
