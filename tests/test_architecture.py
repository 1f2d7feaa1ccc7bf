"""The layer boundaries of docs/architecture.md, checked by scanning imports.

protocol/ is sans-IO (no trio, structlog, server, bots; only protocol/convert.py
may see the adjudicator), adjudicator/ is pure (stdlib and maps/ only),
construct lives in protocol/frames.py alone, and bots never import the server.
"""

from __future__ import annotations

import ast
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
    "maps": {"trio", "structlog", "server", "bots", "adjudicator", "daide", "tournament"},
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
#: (``../shared``, ``/work/shared``, ``shared/daide/...``).  Spelt with a class so
#: that this test is the one file allowed to contain it.
_OUTSIDE = re.compile(rb"\.\./[s]hared|(?<![\w-])[s]hared/")


def test_no_tracked_file_refers_to_the_reference_folder() -> None:
    """Nothing of the project may read, cite or link ``../shared``: a clone has no such
    folder beside it.  Facts the tests need are in tests/data (with their sources),
    the protocol is restated in docs/protocol.md, the documents in docs/references.md."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: no list of tracked files")  # e.g. an unpacked sdist
    this = Path(__file__).resolve().relative_to(ROOT).as_posix()
    offenders = []
    for name in listed.stdout.decode().split("\0"):
        path = ROOT / name
        if not name or name == this or not path.is_file():
            continue
        offenders += [f"{name}: {m.group().decode()}" for m in _OUTSIDE.finditer(path.read_bytes())]
    assert offenders == []
