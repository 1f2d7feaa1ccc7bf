"""Coverage-guided fuzzing of the whole server with atheris (libFuzzer for Python).

    make fuzz                          # 5 minutes, corpus in build/fuzz-corpus
    make fuzz FUZZ_SECONDS=3600        # longer
    .venv/bin/python -m fuzz.fuzz_server -runs=2000 build/fuzz-corpus   # any libFuzzer flags

Each input is decoded by `fuzz.inputs` (frames, token soups, DAIDE text
messages, raw bytes, in chunks) into one case of `fuzz.harness`: an
in-memory server with a bystander game, the fuzz client anonymous or a
player, at press level 0 or 8000.  `fuzz.harness.check` turns any broken
property (an unhandled exception, a malformed frame, an effect on the
other game) into an AssertionError, which libFuzzer reports as a crash and
saves under ``build/fuzz-crashes/``; replay one with
``.venv/bin/python -m fuzz.fuzz_server build/fuzz-crashes/crash-...``.

The server and protocol packages are instrumented for coverage, so inputs
that reach new branches of the parser, the lobby and the game are kept and
mutated further.  If atheris cannot be imported (it ships wheels for
CPython 3.8-3.11 on x86-64 Linux and macOS; elsewhere it must be built with
clang), the same cases run from a seeded random source instead - not
coverage-guided, said so on the first line - for ``-max_total_time``
seconds or ``-runs`` cases.
"""

from __future__ import annotations

import random
import sys
import time
from typing import Any

try:
    import atheris  # type: ignore[import-untyped]
except ImportError:            # the documented fallback below
    atheris = None

if atheris is not None:
    with atheris.instrument_imports(include=["protocol", "server", "fuzz"]):
        from fuzz.harness import check, check_readers, exchange
        from fuzz.inputs import RandomChooser, chunks
else:
    from fuzz.harness import check, check_readers, exchange
    from fuzz.inputs import RandomChooser, chunks


class ProviderChooser:
    """`fuzz.inputs.Chooser` over atheris's FuzzedDataProvider."""

    def __init__(self, provider: Any) -> None:
        self.provider = provider

    def integer(self, lo: int, hi: int) -> int:
        return int(self.provider.ConsumeIntInRange(lo, hi))

    def raw(self, most: int) -> bytes:
        return bytes(self.provider.ConsumeBytes(self.provider.ConsumeIntInRange(0, most)))


def run_case(chooser: ProviderChooser | RandomChooser) -> None:
    """One fuzz case; raises AssertionError when a property breaks."""
    mode = chooser.integer(0, 3)
    as_player, level = mode >= 2, (0, 8000)[mode % 2]
    case = chunks(chooser, with_im=not as_player)
    check_readers(case, level=level)
    check(exchange(case, level=level, as_player=as_player))


def test_one_input(data: bytes) -> None:
    run_case(ProviderChooser(atheris.FuzzedDataProvider(data)))


def _flag(argv: list[str], name: str, default: int) -> int:
    for arg in argv:
        if arg.startswith(f"-{name}="):
            return int(arg.split("=", 1)[1])
    return default


def fallback(argv: list[str]) -> int:
    seconds, runs = _flag(argv, "max_total_time", 300), _flag(argv, "runs", 10**9)
    print(f"atheris is not available: running random (not coverage-guided) cases for "
          f"{seconds} s", flush=True)
    started, done = time.monotonic(), 0
    while done < runs and time.monotonic() - started < seconds:
        seed = random.SystemRandom().randrange(2**63)
        try:
            run_case(RandomChooser(random.Random(seed)))
        except AssertionError:
            print(f"FAILED with seed {seed} (replay: RandomChooser(random.Random({seed})))")
            raise
        done += 1
    print(f"{done} cases, no failure")
    return 0


def main() -> int:
    if atheris is None:
        return fallback(sys.argv[1:])
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main())
