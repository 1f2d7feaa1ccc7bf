"""Use the mypyc-compiled adjudicator when it matches the source exactly.

``make install`` runs ``tools/compile_adjudicator.py``, which compiles the
modules of this package with mypyc (a compiler for type-annotated Python,
part of mypy) into the virtual environment's ``site-packages/daide_native/``
together with a manifest: the SHA-256 of every source file the build read
(``adjudicator/*.py`` and ``maps/*.py``) and the interpreter's extension
suffix.  The source tree itself never holds a binary.

:func:`activate` (called first thing by ``adjudicator/__init__.py``) puts
that directory in front of the package's ``__path__`` only if every source
file is still byte-for-byte the one compiled, so an edited module is never
shadowed by a stale binary: the package silently runs as pure Python until
the next ``make install`` / ``make test`` rebuilds it.  Without a C compiler
there is no build and the package is pure Python too; both run the same
code, and the test suite runs whichever the product runs.

``DAIDE_PURE_PYTHON=1`` in the environment forces the pure-Python modules.
"""

from __future__ import annotations

import hashlib
import json
import os
import sysconfig
from pathlib import Path
from typing import Final

#: environment variable that disables the compiled modules
PURE_ENV: Final = "DAIDE_PURE_PYTHON"
#: directory (under the interpreter's site-packages) holding the build
BUILD_DIR: Final = "daide_native"
#: packages whose sources a build depends on (mypy reads maps/ for the Map type)
SOURCE_PACKAGES: Final = ("adjudicator", "maps")
#: modules of this package that stay interpreted (the loader and the package)
NOT_COMPILED: Final = frozenset({"__init__.py", "native.py"})


def build_home() -> Path:
    """Where ``tools/compile_adjudicator.py`` installs the compiled modules."""
    return Path(sysconfig.get_path("platlib")) / BUILD_DIR


def source_digests(root: Path) -> dict[str, str]:
    """``relative path -> sha256`` of the sources a build depends on."""
    out: dict[str, str] = {}
    for package in SOURCE_PACKAGES:
        for path in sorted((root / package).glob("*.py")):
            rel = f"{package}/{path.name}"
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def ext_suffix() -> str:
    """The interpreter's extension module suffix (``.cpython-311-x86_64-linux-gnu.so``)."""
    return str(sysconfig.get_config_var("EXT_SUFFIX"))


def compiled_path(package_dir: Path) -> Path | None:
    """The directory of compiled modules built from exactly the sources next
    to ``package_dir`` (this package's directory), or None."""
    if os.environ.get(PURE_ENV):
        return None
    home = build_home()
    try:
        manifest = json.loads((home / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("ext_suffix") != ext_suffix():
        return None
    try:
        current = source_digests(package_dir.parent)
    except OSError:
        return None
    if manifest.get("sources") != current:
        return None
    compiled = home / "adjudicator"
    return compiled if compiled.is_dir() else None


def activate(package_path: list[str]) -> bool:
    """Put the matching compiled modules first on the package ``__path__``;
    True if it did."""
    here = Path(package_path[0])
    compiled = compiled_path(here)
    if compiled is None:
        return False
    package_path.insert(0, str(compiled))
    return True


__all__ = [
    "BUILD_DIR",
    "NOT_COMPILED",
    "PURE_ENV",
    "SOURCE_PACKAGES",
    "activate",
    "build_home",
    "compiled_path",
    "ext_suffix",
    "source_digests",
]
