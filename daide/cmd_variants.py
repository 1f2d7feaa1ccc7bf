"""`daide variants [NAME] [--check DIR]`: the maps `daide serve` and `daide adjudicate` play.

Without arguments: one line per variant of ``maps/data/`` (the names that
``--variant`` takes, case-insensitive) with its powers, provinces, supply
centres (and the solo count), first phase and RM (``empty``: the standard
tokens; ``full N``: N power and province tokens), or why it cannot be
played.  With NAME: that variant in detail.  With ``--check DIR``: read a
DAIDE variant archive (``NAME.MDF``/``.NOW``/``.SCO``/``.REM``) as it is
and report every file fault, then whether the bundled corrections
(``maps/data/CORRECTIONS.diff``) cure it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from daide.errors import CommandError
from engine.mapfiles import MapFiles, bundled_corrections, load_archive
from engine.tokens import language_shadows
from engine.variants import variant_files, variant_names
from maps import MapError

NAME = "variants"
HELP = "list the variant maps (names for --variant), show one, or check a variant archive"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", metavar="NAME", help="show this variant in detail")
    parser.add_argument("--check", type=Path, metavar="DIR",
                        help="check the variant files of a DAIDE variant archive directory")


def _rm(files: MapFiles) -> str:
    rep = files.rep
    return "empty" if rep.is_standard else f"full {len(rep.entries)}"


def summary_line(name: str) -> str:
    """One line about a variant: its sizes, or why it cannot be played."""
    try:
        files = variant_files(name)
    except MapError as exc:
        return f"{name:<17} cannot be played: {exc}"
    m = files.map
    season, year = m.start_phase
    return (f"{name:<17} {len(m.powers):>2} powers  {len(m.provinces):>3} provinces  "
            f"{len(m.supply_centres):>2} centres (solo {m.victory_centres:>2})  "
            f"{season} {year}  RM {_rm(files)}")


def detail_lines(name: str) -> list[str]:
    """A variant in detail (CommandError when unknown or faulty)."""
    try:
        files = variant_files(name)
    except MapError as exc:
        raise CommandError(str(exc)) from None
    m = files.map
    season, year = m.start_phase
    lines = [
        f"variant {m.name}: MAP ( '{m.name.upper()}' ), RM {_rm(files)}",
        f"starts {season} {year}; {len(m.supply_centres)} supply centres, "
        f"{m.victory_centres} for a solo; {len(m.provinces)} provinces",
    ]
    for power in m.powers:
        homes = " ".join(m.provinces[c].mnemonic for c in m.home_centres[power])
        units = sum(1 for u in m.start_units if u.power == power)
        lines.append(f"  {power}  {m.power_names[power]:<16} homes {homes}; {units} units")
    neutral = " ".join(m.provinces[c].mnemonic for c in m.neutral_centres)
    lines.append(f"  neutral centres: {neutral or '-'}")
    note = _shadow_note(files)
    if note:
        lines.append(f"  note: {note}")
    return lines


def _shadow_note(files: MapFiles) -> str:
    shadows = language_shadows(files.rep)
    if not shadows:
        return ""
    return (f"{' '.join(shadows)} {'is a' if len(shadows) == 1 else 'are'} language "
            f"token{'' if len(shadows) == 1 else 's'} too (docs/protocol.md §11 forbids it; "
            f"the map's meaning wins)")


def check_lines(directory: Path) -> list[str]:
    """One line per variant of an archive directory: its faults as read, and corrected."""
    if not directory.is_dir():
        raise CommandError(f"{directory}: not a directory")
    stems = sorted({p.stem for p in directory.iterdir() if p.suffix.lower() == ".mdf"},
                   key=str.lower)
    if not stems:
        raise CommandError(f"{directory}: no .MDF files")
    lines = []
    for stem in stems:
        try:
            note = _shadow_note(load_archive(directory, stem, strict=True))
            lines.append(f"{stem}: ok" + (f"; note: {note}" if note else ""))
            continue
        except MapError as exc:
            raw = str(exc)
        try:
            load_archive(directory, stem, corrections=bundled_corrections(), strict=True)
            fixed = "corrected: ok"
        except MapError as exc:
            fixed = f"corrected: {exc}"
        lines.append(f"{stem}: {raw}; {fixed}")
    return lines


def run(args: argparse.Namespace) -> int:
    if args.check is not None:
        lines = check_lines(args.check)
    elif args.name is not None:
        lines = detail_lines(args.name)
    else:
        lines = [summary_line(name) for name in variant_names()]
    print("\n".join(lines))
    return 0
