"""The checker's report: every check with its verdict, as text for a person or JSON for a CI.

`run_check` plays the scenarios (`botcheck.play`) and judges them
(`botcheck.judge`); a `BotReport` says whether anything failed (``daide
check-bot`` exits 0 only when nothing did).  The text lists the checks by
group, one line each (``PASS``, ``WARN``, ``FAIL``), and under every warning
and failure its advice and the messages behind it; ``--verbose`` shows the
messages of the passes too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import trio

from botcheck.judge import FAIL, NOT_RUN, PASS, WARN, Check, judge
from botcheck.play import CheckOptions, Played, play_all
from botcheck.scenarios import Scenario


@dataclass
class BotReport:
    """The checks of one bot, and what was played to get them."""

    command: str
    variant: str
    checks: list[Check]
    scenarios: list[str]
    seconds: float

    @property
    def failed(self) -> bool:
        return any(c.status == FAIL for c in self.checks)

    def count(self, status: str) -> int:
        return sum(1 for c in self.checks if c.status == status)

    def faults(self) -> list[str]:
        """One line per failed check: ``group / name: summary``."""
        return [f"{c.group} / {c.name}: {c.summary}" for c in self.checks if c.status == FAIL]

    def to_json(self) -> dict[str, object]:
        return {"command": self.command, "variant": self.variant, "passed": not self.failed,
                "counts": {s: self.count(s) for s in (PASS, WARN, FAIL, NOT_RUN)},
                "scenarios": self.scenarios, "seconds": round(self.seconds, 2),
                "checks": [c.to_json() for c in self.checks]}

    def write_json(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    def text(self, verbose: bool = False) -> str:
        out = [f"daide check-bot: {self.command}",
               f"{len(self.scenarios)} scenario(s) in {self.seconds:.1f} s; "
               f"variant for the variant check: {self.variant}", ""]
        group = None
        for check in self.checks:
            if check.group != group:
                group = check.group
                out.append(f"{group}:")
            out.append(f"  {check.status.upper():7} {check.name}: {check.summary}")
            if check.status in (WARN, FAIL) or (verbose and check.status == PASS):
                if check.advice:
                    out.append(f"          advice: {check.advice}")
                out.extend(f"          {m}" for m in check.messages)
        verdict = "FAILED" if self.failed else "passed"
        out += ["", f"{verdict}: {self.count(PASS)} pass, {self.count(WARN)} warn, "
                    f"{self.count(FAIL)} fail, {self.count(NOT_RUN)} not run"]
        return "\n".join(out) + "\n"


async def run_check(options: CheckOptions, scenarios: tuple[Scenario, ...],
                    on_played: Callable[[Played], None] | None = None) -> BotReport:
    """Play ``scenarios`` with the bot of ``options`` and judge them."""
    begun = trio.current_time()
    runs = await play_all(scenarios, options, on_played)
    checks = judge(runs, options)
    return BotReport(options.command, options.variant, checks, [r.scenario.key for r in runs],
                  trio.current_time() - begun)


__all__ = ["BotReport", "run_check"]
