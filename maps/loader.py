"""Load maps from data files: an MDF, its starting NOW and SCO, and names.

The files hold DAIDE messages in text form (PROTOCOL.md 6.8) and are parsed
with :func:`protocol.text.tree_from_text`; the trees then go through
:func:`maps.mdf.map_from_mdf`, exactly like an MDF received over the wire.

``maps/data/<name>/`` holds ``<name>.mdf``, ``<name>.now``, ``<name>.sco``
and ``names.tsv`` (``MNEMONIC<TAB>Full name`` lines, ``#`` comments).  The
DAIDE variant archive layout (``NAME.MDF``/``.NOW``/``.SCO``/``.REM`` and a
``.nam`` file of ``TOKEN:Name[:more]`` lines) is read by :func:`load_variant`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path

from maps.mdf import map_from_mdf
from maps.model import Map
from protocol.text import tree_from_text
from protocol.tokens import STANDARD, Representation

DATA_DIR = Path(__file__).resolve().parent / "data"


def read_names(text: str) -> dict[str, str]:
    """Parse a names file: ``MNEMONIC<TAB>Name`` or ``MNEMONIC:Name[:...]`` lines."""
    names: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if "\t" in line:
            key, _, value = line.partition("\t")
        else:
            key, _, value = line.partition(":")
            value = value.split(":")[0]
        names[key.strip().upper()] = value.strip()
    return names


def _message_text(text: str) -> str:
    """The message in a file: comment lines dropped, lines joined."""
    return " ".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#"))


def map_from_text(
    mdf: str,
    now: str | None = None,
    sco: str | None = None,
    *,
    name: str = "standard",
    names: Mapping[str, str] | None = None,
    rep: Representation = STANDARD,
) -> Map:
    """Build a map from the text form of its MDF, NOW and SCO messages."""
    return map_from_mdf(
        tree_from_text(_message_text(mdf), rep),
        tree_from_text(_message_text(now), rep) if now is not None else None,
        tree_from_text(_message_text(sco), rep) if sco is not None else None,
        name=name,
        names=names,
    )


def load_map(name: str, directory: Path | None = None) -> Map:
    """Load ``<directory>/<name>.mdf`` (+ ``.now``, ``.sco``, ``names.tsv``).

    ``directory`` defaults to ``maps/data/<name>``.
    """
    folder = directory if directory is not None else DATA_DIR / name

    def read(suffix: str) -> str | None:
        path = folder / f"{name}{suffix}"
        return path.read_text(encoding="utf-8") if path.exists() else None

    mdf = read(".mdf")
    if mdf is None:
        raise FileNotFoundError(folder / f"{name}.mdf")
    names_path = folder / "names.tsv"
    names = read_names(names_path.read_text(encoding="utf-8")) if names_path.exists() else None
    return map_from_text(mdf, read(".now"), read(".sco"), name=name, names=names)


def load_variant(directory: Path, stem: str, names_file: Path | None = None) -> Map:
    """Load a map in the DAIDE variant archive layout (``STEM.MDF``, ``.NOW``...).

    File name case varies in the archive (``1898.MDF``, ``chromatic.mdf``);
    both are tried.  The ``.REM`` file gives the token representation.
    """

    def read(ext: str) -> str | None:
        for suffix in (ext.upper(), ext.lower()):
            path = directory / f"{stem}{suffix}"
            if path.exists():
                return path.read_text(encoding="latin-1")
        return None

    mdf = read(".mdf")
    if mdf is None:
        raise FileNotFoundError(directory / f"{stem}.MDF")
    rem = read(".rem")
    rep = Representation.from_rem(rem) if rem is not None else STANDARD
    names = read_names(names_file.read_text(encoding="latin-1")) if names_file else None
    return map_from_text(mdf, read(".now"), read(".sco"), name=stem.lower(), names=names, rep=rep)


@functools.cache
def standard_map() -> Map:
    """The standard map (loaded once, then shared: it is immutable)."""
    return load_map("standard")


__all__ = ["DATA_DIR", "load_map", "load_variant", "map_from_text", "read_names", "standard_map"]
