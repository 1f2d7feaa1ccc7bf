"""Maps from DAIDE: MDF, NOW and SCO messages, and the data files that hold them.

A map received over the wire and a map read from a data file go the same
way: the text or tree becomes typed messages through the protocol's one
grammar (:mod:`protocol.mapdef` for the MDF, docs/protocol.md §11), and
:func:`map_from_definition` hands their geography to
:func:`maps.build_map`, which checks it.  The data files hold the messages
in text form (docs/protocol.md §6.8).

Two layouts:

* ``maps/data/<name>/`` (:func:`load_files`): ``<name>.mdf``, ``<name>.now``,
  ``<name>.sco``, ``<name>.rem`` (the representation, docs/protocol.md §4.2: ``0``
  for the standard tokens, else a count and ``HEX:Name`` lines) and the full
  names, ``names.tsv`` (``MNEMONIC<TAB>Full name``) or ``names.nam``
  (``TOKEN:Name[:more]``).  The variant data there is the reference
  server's archive with ``maps/data/CORRECTIONS.diff`` applied, and the
  representation is checked against the map: a fault is a :class:`MapError`;
* the DAIDE variant archive itself (:func:`load_archive`): ``STEM.MDF`` /
  ``.NOW`` / ``.SCO`` / ``.REM`` in either case, read as they are unless
  corrections are given.

Every error is a one-line :class:`MapError` that starts with the file at
fault: ``maps/data/x/x.rem: category byte contradicts the map for ...``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.tokens import derived_representation, representation_faults
from maps.build import AdjacencyList, MapError, build_map
from maps.corrections import CorrectionError, Patch, parse_diff
from maps.model import Map, StartUnit
from protocol.errors import ProtocolError
from protocol.mapdef import MapDefinition
from protocol.messages import Mdf, Message, Now, Sco
from protocol.parse import Sender, parse_message
from protocol.text import parse_text
from protocol.tokens import STANDARD, Representation
from protocol.tree import Tree, from_tree

UNO = "UNO"

DATA_DIR = Path(__file__).resolve().parent.parent / "maps" / "data"  # the map data lives with maps/
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


@dataclass(frozen=True, eq=False)
class MapFiles:
    """A map with the wire data it came in: its representation and its MDF message."""

    map: Map
    rep: Representation
    mdf: Mdf


def map_from_definition(
    definition: MapDefinition,
    now: Now | None = None,
    sco: Sco | None = None,
    *,
    name: str = "standard",
    names: Mapping[str, str] | None = None,
) -> Map:
    """The map of a parsed MDF, starting as ``now`` and ``sco`` say.

    Without ``now`` the map has no starting units (phase SPR 1901); without
    ``sco`` every centre starts unowned.  Raises :class:`MapError` (``part``
    naming the message at fault) when the geography is inconsistent.
    """
    centres = [((() if c.owner == UNO else (c.owner,)) if isinstance(c.owner, str) else c.owner,
                c.centres) for c in definition.centres]
    adjacencies = [(entry.province,
                    [_adjacency_list(a.unit_type, a.coast, a.dests) for a in entry.lists])
                   for entry in definition.adjacencies]
    start_phase = start_units = start_ownership = None
    if now is not None:
        start_phase = (now.turn.season, now.turn.year)
        start_units = []
        for position in now.units:
            unit = position.unit
            if position.retreats is not None:
                raise MapError(f"bad unit {position.to_node()!r} (starting units have no MRT)",
                               "NOW")
            start_units.append(StartUnit(unit.power, unit.kind, unit.province, unit.coast))
    if sco is not None:
        start_ownership = [(None if g.owner == UNO else g.owner, g.centres)
                           for g in sco.ownership if isinstance(g.owner, str)]
    return build_map(definition.powers, centres, definition.non_centres, adjacencies,
                     start_phase=start_phase, start_units=start_units,
                     start_ownership=start_ownership, name=name, names=names)


def _adjacency_list(unit_type: str, coast: str | None, dests: Sequence[Any]) -> AdjacencyList:
    return unit_type, coast, [(d.province, d.coast) for d in dests]


def _read(tokens: Sequence[int], rep: Representation, part: str, cls: type[Message]) -> Any:
    """One message of ``cls`` from tokens; :class:`MapError` naming the part otherwise."""
    try:
        message = parse_message(tokens, rep, sender=Sender.SERVER)
    except ProtocolError as exc:
        raise MapError(str(exc), part) from None
    if not isinstance(message, cls):
        raise MapError(f"expected a {part} message, got {message.to_tree()[:1]!r}", part)
    return message


def _tokens_of_tree(tree: Tree, rep: Representation, part: str) -> Sequence[int]:
    try:
        return from_tree(tuple(tree), rep)
    except (ProtocolError, KeyError, TypeError, ValueError) as exc:
        raise MapError(f"not a {part} message: {exc}", part) from None


def _messages_from_trees(
    mdf: Tree, now: Tree | None = None, sco: Tree | None = None, rep: Representation = STANDARD,
) -> tuple[Mdf, Now | None, Sco | None]:
    """The MDF, NOW and SCO message trees as typed messages; :class:`MapError` if not."""
    return (_read(_tokens_of_tree(mdf, rep, "MDF"), rep, "MDF", Mdf),
            None if now is None else _read(_tokens_of_tree(now, rep, "NOW"), rep, "NOW", Now),
            None if sco is None else _read(_tokens_of_tree(sco, rep, "SCO"), rep, "SCO", Sco))


def map_from_mdf(
    mdf: Tree,
    now: Tree | None = None,
    sco: Tree | None = None,
    *,
    name: str = "standard",
    names: Mapping[str, str] | None = None,
    rep: Representation | None = None,
) -> Map:
    """A map from MDF, NOW and SCO message trees (as a client receives them).

    ``rep`` is the token representation they came in (default: the standard
    tokens).  Raises :class:`MapError` for a tree that is not such a message
    or data that is not a consistent map.
    """
    mdf_msg, now_msg, sco_msg = _messages_from_trees(mdf, now, sco, rep or STANDARD)
    return map_from_definition(mdf_msg.definition, now_msg, sco_msg, name=name, names=names)


def files_from_text(
    mdf: str,
    now: str | None = None,
    sco: str | None = None,
    *,
    name: str = "standard",
    names: Mapping[str, str] | None = None,
    rep: Representation | None = None,
) -> MapFiles:
    """A map and its MDF message from the text form of its MDF, NOW and SCO.

    The text is read with ``rep`` (default: the standard tokens); without
    one the map's representation is derived (:func:`engine.tokens.derived_representation`).
    Raises :class:`MapError` (with ``part`` naming the message at fault).
    """
    tokens = rep if rep is not None else STANDARD
    messages: list[Any] = []
    for part, text, cls in (("MDF", mdf, Mdf), ("NOW", now, Now), ("SCO", sco, Sco)):
        if text is None:
            messages.append(None)
            continue
        try:
            parsed = parse_text(_message_text(text), tokens)
        except ProtocolError as exc:
            raise MapError(str(exc), part) from None
        messages.append(_read(parsed, tokens, part, cls))
    mdf_msg, now_msg, sco_msg = messages
    m = map_from_definition(mdf_msg.definition, now_msg, sco_msg, name=name, names=names)
    return MapFiles(m, rep if rep is not None else derived_representation(m), mdf_msg)


def map_from_text(
    mdf: str,
    now: str | None = None,
    sco: str | None = None,
    *,
    name: str = "standard",
    names: Mapping[str, str] | None = None,
    rep: Representation | None = None,
) -> Map:
    """:func:`files_from_text`'s map."""
    return files_from_text(mdf, now, sco, name=name, names=names, rep=rep).map


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

    def build(self, name: str, names: Mapping[str, str] | None, *, check: bool) -> MapFiles:
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
            files = files_from_text(mdf, self.read(".now"), self.read(".sco"),
                                    name=name, names=names, rep=rep)
        except MapError as exc:
            raise self.fail(exc) from None
        if check and rep is not None:
            faults = representation_faults(files.map, rep)
            if faults:
                raise self.fail(MapError("; ".join(faults), "RM"))
        return files


def load_files(name: str, directory: Path | None = None) -> MapFiles:
    """Load ``<directory>/<name>.mdf`` (+ ``.now``, ``.sco``, ``.rem`` and names).

    ``directory`` defaults to ``maps/data/<name>``.  The ``.rem`` file, when
    there is one, is the map's representation and must agree with the MDF
    (:func:`engine.tokens.representation_faults`); without one it is derived.
    A missing MDF or any fault is a one-line :class:`MapError` naming the file.
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


def load_archive(
    directory: Path,
    stem: str,
    names_file: Path | None = None,
    *,
    corrections: Mapping[str, Patch] | None = None,
    strict: bool = False,
) -> MapFiles:
    """Load a map in the DAIDE variant archive layout (``STEM.MDF``, ``.NOW``...).

    File name case varies in the archive (``1898.MDF``, ``chromatic.mdf``);
    both are tried.  The ``.REM`` file gives the token representation.  The
    files are read as they are, unless ``corrections`` (e.g.
    :func:`bundled_corrections`) are given: a patch named like a file is
    applied to it first.  With ``strict`` the representation must agree with
    the map, as :func:`load_files` requires.
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


__all__ = [
    "CORRECTIONS_FILE",
    "DATA_DIR",
    "MapFiles",
    "bundled_corrections",
    "files_from_text",
    "load_archive",
    "load_files",
    "map_from_definition",
    "map_from_mdf",
    "map_from_text",
    "read_names",
]
