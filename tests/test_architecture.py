"""The layer boundaries of docs/architecture.md, checked by scanning imports.

protocol/ is sans-IO (no trio, structlog, server, bots; only protocol/convert.py
may see the adjudicator), adjudicator/ is pure (stdlib and maps/ only),
construct lives in protocol/frames.py alone, and bots never import the server.
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# package -> top-level modules it must never import
FORBIDDEN = {
    "protocol": {"trio", "structlog", "server", "bots", "adjudicator", "daide", "tournament"},
    "adjudicator": {"trio", "structlog", "server", "bots", "protocol", "construct", "daide",
                    "tournament"},
    "maps": {"trio", "structlog", "server", "bots", "adjudicator", "daide", "tournament",
             "render"},
    # map pictures: above maps/, below server/ and daide/ (docs/render.md)
    "render": {"trio", "structlog", "server", "bots", "adjudicator", "daide", "tournament"},
    "bots": {"server", "daide"},
    "server": {"bots", "daide", "tournament"},
}
# The one seam module of docs/architecture.md that converts DAIDE <-> adjudicator values.
ALLOWED = {("protocol/convert.py", "adjudicator")}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_layer_imports(package: str) -> None:
    violations = []
    for path in _modules(package):
        rel = path.relative_to(ROOT).as_posix()
        for name in sorted(_imports(path) & FORBIDDEN[package]):
            if (rel, name) not in ALLOWED:
                violations.append(f"{rel} imports {name}")
    assert violations == []


def test_construct_lives_in_one_module() -> None:
    users = []
    for package in ("protocol", "adjudicator", "maps", "server", "bots", "daide"):
        for path in _modules(package):
            if "construct" in _imports(path):
                users.append(path.relative_to(ROOT).as_posix())
    assert users == ["protocol/frames.py"]


# --- the repository stands alone ------------------------------------------------------

#: How a file would reach into the team's reference folder beside the clone
#: (``../shared``, ``/work/shared``, ``shared/daide/...``) or cite its files by name
#: (the upper-case PROTOCOL and ARCHITECTURE pages; ours are docs/protocol.md and
#: docs/architecture.md).  Spelt with classes so that this file is the one allowed.
_OUTSIDE = re.compile(rb"\.\./[s]hared|(?<![\w-])[s]hared/|(?<![\w/])(?:[P]ROTOCOL|[A]RCHITECTURE)\.md")
#: A citation of docs/protocol.md: "docs/protocol.md §9.1", also "§8.3, 8.4" and a
#: section number on the next comment line.
_CITATION = re.compile(r"protocol\.md\)?\s*(?:#\s*)?§\s*(\d+[a-z]?(?:\.\d+)?)"
                       r"((?:\s*(?:,|/|and)\s*§?\d+[a-z]?(?:\.\d+)?)*)")


@functools.cache
def _tracked_files() -> tuple[tuple[str, bytes], ...]:
    """(path, contents) of every file git tracks, read once for the tests below."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: no list of tracked files")  # e.g. an unpacked sdist
    files = []
    for name in listed.stdout.decode().split("\0"):
        path = ROOT / name
        if name and path.is_file():
            files.append((name, path.read_bytes()))
    return tuple(files)


def test_no_tracked_file_refers_to_the_reference_folder() -> None:
    """Nothing of the project may read, cite or link ``../shared``: a clone has no such
    folder beside it.  Facts the tests need are in tests/data (with their sources),
    the protocol is restated in docs/protocol.md, the documents in docs/references.md."""
    this = Path(__file__).resolve().relative_to(ROOT).as_posix()
    offenders = [f"{name}: {m.group().decode()}" for name, data in _tracked_files()
                 if name != this for m in _OUTSIDE.finditer(data)]
    assert offenders == []


def test_every_cited_protocol_section_exists() -> None:
    """Each "docs/protocol.md §N" in code, tests and docs names a section of that page."""
    page = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^#{2,3} (\d+[a-z]?(?:\.\d+)?)\.? ", page, re.MULTILINE))
    missing = []
    for name, data in _tracked_files():
        for m in _CITATION.finditer(data.decode("utf-8", "replace")):
            cited = [m.group(1), *re.findall(r"\d+[a-z]?(?:\.\d+)?", m.group(2))]
            missing += [f"{name}: §{n}" for n in cited if n not in sections]
    assert "9.3" in sections and "12a" in sections
    assert missing == []
