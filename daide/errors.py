"""The one error a subcommand raises for an expected failure.

Every `daide/cmd_<name>.py` (and the helpers they share, such as
`daide.outdir`) raises `CommandError`; `daide.cli` catches it and prints it
as one line.  It lives here, not in `daide.cli`, because the command line
imports the commands: a command importing the command line back would make
the two modules import each other.
"""


class CommandError(Exception):
    """An expected failure of a subcommand: printed as one line, exit 1."""
