"""Load maps from data files: an MDF, its starting NOW and SCO, tokens and names.

The files hold DAIDE messages in text form (docs/protocol.md §6.8) and are parsed
with :func:`protocol.text.tree_from_text`; the trees then go through
:func:`maps.mdf.map_from_mdf`, exactly like an MDF received over the wire.

Two layouts:

* ``maps/data/<name>/`` (:func:`load_map`): ``<name>.mdf``, ``<name>.now``,
  ``<name>.sco``, ``<name>.rem`` (the representation, docs/protocol.md §4.2: ``0``
  for the standard tokens, else a count and ``HEX:Name`` lines) and the full
  names, ``names.tsv`` (``MNEMONIC<TAB>Full name``) or ``names.nam``
  (``TOKEN:Name[:more]``).  The variant data there is the reference
  server's archive with ``maps/data/CORRECTIONS.diff`` applied, and the
  representation is checked against the map: a fault is a :class:`MapError`;
* the DAIDE variant archive itself (:func:`load_variant`): ``STEM.MDF`` /
  ``.NOW`` / ``.SCO`` / ``.REM`` in either case, read as they are unless
  corrections are given.

Every error is a one-line :class:`MapError` that starts with the file at
fault: ``maps/data/x/x.rem: category byte contradicts the map for ...``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path

from maps.corrections import CorrectionError, Patch, parse_diff
from maps.mdf import MapError, map_from_mdf
from maps.model import Map
from maps.tokens import representation_faults
from protocol.errors import ProtocolError
from protocol.text import tree_from_text
from protocol.tokens import STANDARD, Representation

DATA_DIR = Path(__file__).resolve().parent / "data"
CORRECTIONS_FILE = DATA_DIR / "CORRECTIONS.diff"
_ROOT = DATA_DIR.parent.parent

_PARTS = {"MDF": ".mdf", "NOW": ".now", "SCO": ".sco", "RM": ".rem"}


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
    rep: Representation | None = None,
) -> Map:
    """Build a map from the text form of its MDF, NOW and SCO messages.

    The text is read with ``rep`` (default: the standard tokens), which the
    map keeps; raises :class:`MapError` (with ``part`` naming the message at
    fault) or :class:`protocol.errors.ProtocolError` for unreadable text.
    """
    tokens = rep if rep is not None else STANDARD
    trees = []
    for part, text in (("MDF", mdf), ("NOW", now), ("SCO", sco)):
        try:
            trees.append(tree_from_text(_message_text(text), tokens) if text is not None else None)
        except ProtocolError as exc:
            raise MapError(str(exc), part) from None
    mdf_tree, now_tree, sco_tree = trees
    assert mdf_tree is not None
    return map_from_mdf(mdf_tree, now_tree, sco_tree, name=name, names=names, rep=rep)


def _show(path: Path) -> str:
    """A file's name for an error message: relative to the project when inside it."""
    try:
        return path.resolve().relative_to(_ROOT).as_posix()
    except ValueError:
        return str(path)


class _Files:
    """The files of one map, found by suffix; errors name the file at fault."""

    def __init__(self, paths: Mapping[str, Path], encoding: str,
                 corrections: Mapping[str, Patch] | None = None) -> None:
        self.paths = paths
        self.encoding = encoding
        self.corrections = corrections or {}

    def path(self, suffix: str) -> Path | None:
        return self.paths.get(suffix)

    def read(self, suffix: str) -> str | None:
        path = self.paths.get(suffix)
        if path is None:
            return None
        try:
            text = path.read_text(encoding=self.encoding)
        except (OSError, UnicodeDecodeError) as exc:
            raise MapError(f"{_show(path)}: cannot read: {exc}") from None
        patch = self.corrections.get(path.name.lower())
        if patch is not None:
            try:
                text = patch.apply(text)
            except CorrectionError as exc:
                raise MapError(f"{_show(path)}: {exc}") from None
        return text

    def fail(self, exc: MapError) -> MapError:
        path = self.paths.get(_PARTS.get(exc.part, ".mdf"))
        where = _show(path) if path is not None else exc.part
        return MapError(f"{where}: {exc}", exc.part)

    def build(self, name: str, names: Mapping[str, str] | None, *, check: bool) -> Map:
        rem_text = self.read(".rem")
        rep: Representation | None = None
        if rem_text is not None:
            try:
                rep = Representation.from_rem(rem_text)
            except ProtocolError as exc:
                raise self.fail(MapError(str(exc), "RM")) from None
        mdf = self.read(".mdf")
        if mdf is None:
            raise MapError(f"{name}: no MDF file")
        try:
            m = map_from_text(mdf, self.read(".now"), self.read(".sco"),
                              name=name, names=names, rep=rep)
        except MapError as exc:
            raise self.fail(exc) from None
        if check and rep is not None:
            faults = representation_faults(m, rep)
            if faults:
                raise self.fail(MapError("; ".join(faults), "RM"))
        return m


def load_map(name: str, directory: Path | None = None) -> Map:
    """Load ``<directory>/<name>.mdf`` (+ ``.now``, ``.sco``, ``.rem`` and names).

    ``directory`` defaults to ``maps/data/<name>``.  The ``.rem`` file, when
    there is one, is the map's representation and must agree with the MDF
    (:func:`maps.tokens.representation_faults`).  A missing MDF or any fault
    is a one-line :class:`MapError` naming the file.
    """
    folder = directory if directory is not None else DATA_DIR / name
    paths = {s: folder / f"{name}{s}" for s in (".mdf", ".now", ".sco", ".rem")}
    if not paths[".mdf"].exists():
        raise MapError(f"{_show(paths['.mdf'])}: no such file")
    files = _Files({s: p for s, p in paths.items() if p.exists()}, "utf-8")
    names = None
    for names_file in (folder / "names.tsv", folder / "names.nam"):
        if names_file.exists():
            names = read_names(names_file.read_text(encoding="utf-8"))
            break
    return files.build(name, names, check=True)


@functools.cache
def bundled_corrections() -> Mapping[str, Patch]:
    """The corrections of ``maps/data/CORRECTIONS.diff``, by lower-case file name."""
    return parse_diff(CORRECTIONS_FILE.read_text(encoding="utf-8"))


def load_variant(
    directory: Path,
    stem: str,
    names_file: Path | None = None,
    *,
    corrections: Mapping[str, Patch] | None = None,
    strict: bool = False,
) -> Map:
    """Load a map in the DAIDE variant archive layout (``STEM.MDF``, ``.NOW``...).

    File name case varies in the archive (``1898.MDF``, ``chromatic.mdf``);
    both are tried.  The ``.REM`` file gives the token representation.  The
    files are read as they are, unless ``corrections`` (e.g.
    :func:`bundled_corrections`) are given: a patch named like a file is
    applied to it first.  With ``strict`` the representation must agree with
    the map, as :func:`load_map` requires.
    """
    paths: dict[str, Path] = {}
    for ext in (".mdf", ".now", ".sco", ".rem"):
        for suffix in (ext.upper(), ext.lower()):
            path = directory / f"{stem}{suffix}"
            if path.exists():
                paths[ext] = path
                break
    if ".mdf" not in paths:
        raise MapError(f"{_show(directory / (stem + '.MDF'))}: no such file")
    names = None
    if names_file is not None:
        names = read_names(names_file.read_text(encoding="utf-8", errors="replace"))
    files = _Files(paths, "latin-1", corrections)
    return files.build(stem.lower(), names, check=strict)


@functools.cache
def standard_map() -> Map:
    """The standard map (loaded once, then shared: it is immutable)."""
    return load_map("standard")


__all__ = [
    "CORRECTIONS_FILE",
    "DATA_DIR",
    "bundled_corrections",
    "load_map",
    "load_variant",
    "map_from_text",
    "read_names",
    "standard_map",
]
