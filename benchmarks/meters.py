"""What a benchmark reads off a server process: its CPU time, or its instructions.

The server benchmarks (`benchmarks.bench_server`, `benchmarks.io_floor`) start
a server subprocess, play, and read how much work the server did in between.
A meter says how to start that process and how to read the work:

* `CpuMeter` reads user and system CPU seconds from ``/proc/<pid>/stat``:
  the figure of record, but on a shared machine one run can be 30 % off.
* `InstructionMeter` runs the server under valgrind's callgrind with
  instrumentation off, switches it on when the measured window opens and
  dumps the count when it closes: the user-space instructions the server
  executed (callgrind's ``Ir``).  Repeated runs agree within ~2 %, so two
  builds can be compared on a noisy machine.  It counts no kernel work (the
  system calls themselves) and no cache misses: a change that saves
  instructions saves time, but not in proportion.  The process runs many
  times slower while counted and its peers do not, so messages pile up
  between two of its wake-ups: a real run of the server wakes about once per
  message, a counted one serves a dozen messages per wake-up.  The count
  therefore understates the event loop's cost per message, and a change
  whose gain depends on several messages per wake-up looks better counted
  than it is; judge those with `CpuMeter`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path


class CpuMeter:
    """User and system CPU seconds of the process between `start` and `stop`."""

    unit = "s"

    def __init__(self) -> None:
        self._before = (0.0, 0.0)

    def command(self, argv: list[str]) -> list[str]:
        return argv

    def start(self, pid: int) -> None:
        self._before = cpu_times(pid)

    def stop(self, pid: int) -> tuple[float, float]:
        after = cpu_times(pid)
        return after[0] - self._before[0], after[1] - self._before[1]


def cpu_times(pid: int) -> tuple[float, float]:
    """User and system CPU seconds of a process so far (``/proc/<pid>/stat``)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


class InstructionMeter:
    """User-space instructions the process executed between `start` and `stop`
    (callgrind's ``Ir``), counted in ``work``."""

    unit = "instructions"
    #: seconds a dump may take to appear (a big process under valgrind writes slowly)
    DUMP_SECONDS = 120.0

    def __init__(self, work: Path) -> None:
        missing = [tool for tool in ("valgrind", "callgrind_control") if not shutil.which(tool)]
        if missing:
            raise RuntimeError(f"counting instructions needs valgrind ({', '.join(missing)} "
                               "not found; Debian: apt-get install valgrind)")
        self.out = work / "callgrind.out"

    def command(self, argv: list[str]) -> list[str]:
        return ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                f"--callgrind-out-file={self.out}",
                f"--log-file={self.out.parent / 'valgrind.log'}", *argv]

    def start(self, pid: int) -> None:
        _control("-i", "on", pid)

    def stop(self, pid: int) -> tuple[float, float]:
        """The instructions counted since `start` (as user work; the system's is 0)."""
        dumps = set(self._dumps())
        _control("-d", pid)
        _control("-i", "off", pid)
        deadline = time.monotonic() + self.DUMP_SECONDS
        while True:
            for dump in self._dumps():
                if dump not in dumps:
                    total = _summary(dump)
                    if total is not None:
                        return float(total), 0.0
            if time.monotonic() > deadline:
                raise RuntimeError(f"callgrind wrote no count into {self.out}.*")
            time.sleep(0.05)

    def _dumps(self) -> list[Path]:
        return sorted(self.out.parent.glob(self.out.name + ".*"))


def _control(*args: object) -> None:
    subprocess.run(["callgrind_control", *map(str, args)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)


def _summary(dump: Path) -> int | None:
    """The total of a finished callgrind dump (None while it is being written)."""
    text = dump.read_text(errors="replace")
    found = re.search(r"^totals: (\d+)", text, re.MULTILINE)
    return int(found.group(1)) if found else None
