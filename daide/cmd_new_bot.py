"""`daide new-bot NAME [--dir DIR]`: write a small Python project with a working bot.

The project (`daide.new_bot_files`): ``NAME.py``, a no-press bot of about
fifty lines on the bot library (`bots/`) that goes for centres where
HoldBot holds; ``test_NAME.py``, which runs ``daide check-bot`` on it; and a
README saying how to play it, check it and run it in a tournament against
the sample bots.  ``--dir`` is where the project goes (default ``./NAME``);
it must not exist yet or be empty.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

NAME = "new-bot"
HELP = "write a small Python project with a working bot, its check-bot test and a README"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME",
                        help="the bot's name: letters, digits and _ (e.g. greedy_bot)")
    parser.add_argument("--dir", type=Path, default=None, metavar="DIR",
                        help="the folder to write (default ./NAME); must be new or empty")


def run(args: argparse.Namespace) -> int:
    from daide.errors import CommandError
    from daide.new_bot_files import BOT, README, TEST

    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,39}", args.name):
        raise CommandError(f"bot name {args.name!r}: a letter, then letters, digits or _ "
                           "(at most 40)")
    name = args.name.lower()
    title = "".join(part[:1].upper() + part[1:] for part in args.name.split("_") if part)
    folder: Path = args.dir if args.dir is not None else Path(name)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise CommandError(f"{folder} exists and is not an empty folder")
    files = {f"{name}.py": BOT, f"test_{name}.py": TEST, "README.md": README}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for file, template in files.items():
            (folder / file).write_text(template.format(name=name, title=title), encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot write {folder}: {exc.strerror or exc}") from None
    print(f"wrote {folder}/: {', '.join(files)}")
    print(f"next: cd {folder} && python -m pytest   (runs daide check-bot on {title})")
    return 0
