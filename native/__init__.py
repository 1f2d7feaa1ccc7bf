"""Use the mypyc-compiled modules of our hot packages when they match the sources.

``make install`` runs ``tools/compile_native.py``, which compiles the
modules of the packages in :data:`COMPILED_PACKAGES` with mypyc (a compiler
for type-annotated Python, part of mypy) as ONE group - one shared library,
so that a compiled module calls a compiled class of another package
directly - into the virtual environment's ``site-packages/daide_native/``,
together with a manifest: the SHA-256 of every source file the build read
(:data:`SOURCE_PACKAGES`) and the interpreter's extension suffix.  The
source tree itself never holds a binary.

Each compiled package calls :func:`activate` first thing in its
``__init__.py``::

    from native import activate as _activate
    COMPILED: bool = _activate(__name__, __path__)

which puts the package's compiled directory in front of its ``__path__``
only if every source file is still byte-for-byte the one compiled, so an
edited module is never shadowed by a stale binary.  The decision is taken
once per process for all the packages together: either every package of
the group runs compiled or none does, so a class is never loaded twice
(once compiled, once interpreted - ``isinstance`` would then fail between
them).  Without a C compiler there is no build and everything is pure
Python; both run the same code, and the test suite runs whichever the
product runs.

To compile another package: add it to :data:`COMPILED_PACKAGES`, put the
two lines above at the top of its ``__init__.py`` (before it imports any of
its own modules; the ``__init__.py`` itself stays interpreted), add its
folder to ``NATIVE_SOURCES`` in the Makefile (so ``make`` rebuilds when it
changes) and let it import ``native`` in tests/test_architecture.py.

The compiled set is the pure cores a game runs on every phase: the order
model, the adjudicator, the protocol codec and the engine.  The server's own
code (trio tasks, the game's rules of play, storage) stays interpreted:
compiling its game logic gained too little to be worth a second form of it
(docs/performance.md, "What is compiled").

``DAIDE_PURE_PYTHON=1`` in the environment forces the pure-Python modules.
"""

from __future__ import annotations

import hashlib
import json
import os
import sysconfig
from pathlib import Path
from typing import Final

#: The packages compiled together, in one mypyc group.  Each must call
#: :func:`activate` first thing in its ``__init__.py``.
COMPILED_PACKAGES: Final = ("orders", "adjudicator", "protocol", "engine")
#: packages whose every source a build depends on: the compiled ones, and the
#: ones mypy reads for their types (maps/ for ``Map``)
SOURCE_PACKAGES: Final = (*COMPILED_PACKAGES, "maps")
#: modules of a compiled package that stay interpreted: the package itself
#: (it chooses between the two), and ``package/module.py`` paths of modules
#: mypyc cannot compile or that gain nothing from it (interpreted code may
#: use compiled classes, but not subclass them)
NOT_COMPILED: Final = frozenset({
    "__init__.py",
    # press: dataclasses with slots subclassing an abstract base, which a
    # compiled class cannot be; read only for press, never per order
    "protocol/press.py", "protocol/press_cursor.py", "protocol/press_model.py",
    "protocol/press_parse.py", "protocol/press_tokens.py",
    # the messages: a frozen dataclass hierarchy with a ClassVar default in the
    # base, which mypyc's dataclass support rejects at import
    "protocol/messages.py",
    # frames speak construct (untyped)
    "protocol/frames.py", "protocol/frame_text.py",
    # reads map files once per variant
    "engine/mapfiles.py",
})
#: the shared library of the group is ``native.compiled__mypyc``
GROUP: Final = "native.compiled"
#: environment variable that disables the compiled modules
PURE_ENV: Final = "DAIDE_PURE_PYTHON"
#: directory (under the interpreter's site-packages) holding the build
BUILD_DIR: Final = "daide_native"

# (source root, build home) -> the build home if it matches, else None: decided
# once, so that every package of the group makes the same choice
_decided: dict[tuple[Path, Path], Path | None] = {}


def build_home() -> Path:
    """Where ``tools/compile_native.py`` installs the compiled modules."""
    return Path(sysconfig.get_path("platlib")) / BUILD_DIR


def is_compiled(rel: str) -> bool:
    """Whether ``package/module.py`` (relative to the repository root) is compiled."""
    package, _, name = rel.partition("/")
    if package not in COMPILED_PACKAGES:
        return False
    return name not in NOT_COMPILED and rel not in NOT_COMPILED


def source_digests(root: Path) -> dict[str, str]:
    """``relative path -> sha256`` of the sources a build depends on."""
    paths = [path for package in SOURCE_PACKAGES for path in sorted((root / package).glob("*.py"))]
    return {f"{path.parent.name}/{path.name}": hashlib.sha256(path.read_bytes()).hexdigest()
            for path in paths}


def ext_suffix() -> str:
    """The interpreter's extension module suffix (``.cpython-311-x86_64-linux-gnu.so``)."""
    return str(sysconfig.get_config_var("EXT_SUFFIX"))


def matching_build(root: Path) -> Path | None:
    """The build home if it was built from exactly the sources under ``root``
    (the repository root), for this interpreter; else None."""
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
        current = source_digests(root)
    except OSError:
        return None
    if manifest.get("sources") != current:
        return None
    if not all((home / package).is_dir() for package in (*COMPILED_PACKAGES, "native")):
        return None
    return home


def activate(package: str, package_path: list[str]) -> bool:
    """Put the compiled modules of ``package`` first on its ``__path__`` when the
    build matches the sources; True if it did.  ``package_path`` is the
    package's ``__path__`` (its source directory last)."""
    if package not in COMPILED_PACKAGES:
        raise ValueError(f"{package!r} is not in native.COMPILED_PACKAGES")
    root = Path(package_path[-1]).parent
    key = (root, build_home())
    if key not in _decided:
        _decided[key] = matching_build(root)
    home = _decided[key]
    if home is None:
        return False
    compiled = str(home / package)
    if compiled not in package_path:
        package_path.insert(0, compiled)
    # the group's shared library, native.compiled__mypyc, lives beside them
    group = str(home / "native")
    if group not in __path__:
        __path__.insert(0, group)
    return True


__all__ = [
    "BUILD_DIR",
    "COMPILED_PACKAGES",
    "GROUP",
    "NOT_COMPILED",
    "PURE_ENV",
    "SOURCE_PACKAGES",
    "activate",
    "build_home",
    "ext_suffix",
    "is_compiled",
    "matching_build",
    "source_digests",
]
