"""The `daide` command line: one program, one subcommand per module.

Every module `daide/cmd_<name>.py` defines

    NAME: str                      the subcommand ("decode", "serve", ...)
    HELP: str                      one line for `daide --help`
    def add_arguments(parser)      fill an argparse parser
    def run(args) -> int           do the work, return the exit status

and is found here automatically, so adding a subcommand touches no shared
file.  Bad arguments give argparse's one-line usage error (exit 2); a
command's own expected failures print one line `daide <cmd>: error: ...`
and return non-zero.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

import daide
from daide.errors import CommandError


def _command_modules(wanted: str | None = None) -> list[ModuleType]:
    """The subcommand modules: only `wanted`'s when it names one, else all of them.

    Importing every command pulls in trio, the server, the bots and the
    adjudicator (~0.4 s); a command run by name needs only its own module,
    so `daide decode ...` starts in a fraction of that.  The overview
    (`daide`, `daide --help`, an unknown command) still lists them all.
    """
    names = sorted(info.name for info in pkgutil.iter_modules(daide.__path__)
                   if info.name.startswith("cmd_"))
    if wanted is not None and f"cmd_{wanted}" in names:
        names = [f"cmd_{wanted}"]
    return [importlib.import_module(f"daide.{name}") for name in names]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `daide` parser; with `command`, only that subcommand is registered."""
    parser = argparse.ArgumentParser(
        prog="daide",
        description="DAIDE Diplomacy server, adjudicator, bots and tools.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in sorted(_command_modules(command), key=lambda m: m.NAME):
        sub = subparsers.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(_run=module.run, _parser=sub)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("daide-server")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:
        # Ctrl-C before a command took charge of it (while starting up): the
        # commands that run for long stop cleanly themselves and return 130.
        pass
    except BaseExceptionGroup as group:
        # ... or raised inside trio before its signal handling was in place.
        if group.split(KeyboardInterrupt)[1] is not None:
            raise
    print("daide: interrupted", file=sys.stderr)
    return 130


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and not argv[0].startswith("-") else None)
    # Unknown options are reported by the subcommand's own parser, so the
    # usage shown is that of `daide serve`, not of `daide` (argparse would
    # otherwise let them fall through to the top-level parser).
    args, extra = parser.parse_known_args(argv)
    if args.command is None:
        # Bare `daide`: the overview of the subcommands, as a usage error (exit 2).
        parser.print_help(sys.stderr)
        return 2
    if extra:
        args._parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return int(args._run(args) or 0)
    except CommandError as exc:
        print(f"daide {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
