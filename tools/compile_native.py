"""Compile our hot packages with mypyc into the virtual environment (``make install``).

mypyc (part of mypy, a dev dependency) turns the type-annotated modules of
the packages in ``native.COMPILED_PACKAGES`` (the order model ``orders/``,
the adjudicator, the protocol, the engine) into C extension modules, in one group, so that a
compiled module uses a compiled class of another package directly; the
movement phase runs several times faster than interpreted.  The build goes
to ``<site-packages>/daide_native/`` with a manifest of the sources it was
made from; ``native/__init__.py`` uses it only while every source file is
unchanged, so the source tree never holds a binary and an edited module is
never shadowed by a stale one.

Without mypyc or a working C compiler this prints why and leaves the
packages pure Python (exit status 0: the product works either way).

    python tools/compile_native.py [--check]

``--check`` only reports whether the installed build matches the sources.
``--c-dir DIR`` writes the generated C there instead of a temporary
directory and keeps it, so that a profiler (``callgrind_annotate``) can
show the cost of each line.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import native  # noqa: E402


def modules_to_compile() -> list[str]:
    """``<package>/<module>.py`` paths (relative to the repository root)."""
    return [
        f"{package}/{path.name}"
        for package in native.COMPILED_PACKAGES
        for path in sorted((ROOT / package).glob("*.py"))
        if native.is_compiled(f"{package}/{path.name}")
    ]


def build(into: Path, c_dir: Path | None = None) -> None:
    """Compile into a temporary directory, then replace ``into`` with it
    (the generated C goes to ``c_dir`` if given, where it stays)."""
    from mypyc.build import mypycify  # noqa: PLC0415 - only needed when building
    from setuptools import setup  # noqa: PLC0415

    digests = native.source_digests(ROOT)
    with tempfile.TemporaryDirectory(prefix="daide-native-") as tmp:
        work = Path(tmp)
        cwd = os.getcwd()
        try:
            os.chdir(ROOT)  # mypy reads pyproject.toml and resolves maps/ from here
            c_target = work / "c" if c_dir is None else c_dir
            extensions = mypycify(
                modules_to_compile(), target_dir=str(c_target), group_name=native.GROUP
            )
            os.chdir(work)  # setuptools must not read the project's own configuration
            setup(
                name="daide-native",
                ext_modules=extensions,
                script_args=[
                    "--quiet",
                    "build_ext",
                    "--build-lib",
                    str(work / "lib"),
                    "--build-temp",
                    str(work / "tmp"),
                ],
            )
        finally:
            os.chdir(cwd)
        staged = work / "stage"
        # each compiled package, and the group's shared library (native/)
        for package in (*native.COMPILED_PACKAGES, native.GROUP.split(".")[0]):
            shutil.copytree(work / "lib" / package, staged / package)
        manifest = {
            "ext_suffix": native.ext_suffix(),
            "python": sys.version,
            "packages": list(native.COMPILED_PACKAGES),
            "sources": digests,
        }
        (staged / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        if native.source_digests(ROOT) != digests:
            raise RuntimeError("the sources changed during the build")
        old = into.with_name(into.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if into.exists():
            into.rename(old)
        into.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staged), str(into))
        shutil.rmtree(old, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report the build's state")
    parser.add_argument("--c-dir", type=Path, help="keep the generated C in this directory")
    args = parser.parse_args(argv)
    into = native.build_home()
    names = ", ".join(native.COMPILED_PACKAGES)
    if args.check:
        ok = native.matching_build(ROOT) is not None
        print(f"compiled {names} in {into}: {'up to date' if ok else 'missing or stale'}")
        return 0 if ok else 1
    try:
        import mypyc  # noqa: F401, PLC0415
    except ImportError:
        print(f"{names}: mypyc is not installed - running as pure Python")
        return 0
    start = time.monotonic()
    try:
        build(into, None if args.c_dir is None else args.c_dir.resolve())
    except (Exception, SystemExit) as exc:  # a missing compiler surfaces as either
        # The installed build stays: `native` uses it only while it matches every
        # source, so it is harmless when stale and still right when the sources
        # are what it was built from (a failed rebuild of unchanged sources).
        kept = native.matching_build(ROOT) is not None
        print(f"{names}: could not compile ({exc!r}) - "
              + ("the installed build still matches the sources" if kept
                 else "running as pure Python"))
        return 0
    print(f"{names}: compiled with mypyc into {into} ({time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
