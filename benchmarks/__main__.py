"""`make bench`: run every benchmarks/bench_*.py module's main() in turn.

Figures are printed as ratios against a reference measured in the same run,
never asserted in the test suite.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main() -> int:
    here = Path(__file__).parent
    sys.path.insert(0, str(here.parent))
    # Names pick benchmarks; options (``--games 50``) are for the benchmarks themselves.
    only = {arg for arg in sys.argv[1:] if arg.isidentifier()}
    status = 0
    for info in sorted(pkgutil.iter_modules([str(here)]), key=lambda i: i.name):
        if not info.name.startswith("bench_"):
            continue
        if only and info.name.removeprefix("bench_") not in only:
            continue
        module = importlib.import_module(f"benchmarks.{info.name}")
        print(f"== {info.name.removeprefix('bench_')} ==", flush=True)
        status |= int(module.main() or 0)
    return status


if __name__ == "__main__":
    sys.exit(main())
