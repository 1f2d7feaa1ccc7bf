"""`daide datc [FILE...]`: run DATC case files through the adjudicator.

Default: every bundled ``adjudicator/cases/datc-2.4/*.datc``.  One line per
case (``PASS 6.A.1`` / ``FAIL 6.A.1: <first difference>``), then
``N passed, M failed``; exit status 1 if any case failed.  The file format
is described in docs/adjudication-conventions.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from daide.cli import CommandError
from daide.datc_cases import bundled_case_files
from daide.datc_runner import CaseReport, load_cases, run_cases, summary

NAME = "datc"
HELP = "run DATC test case files through the adjudicator (default: the bundled DATC 2.4 cases)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files", nargs="*", type=Path, metavar="FILE",
        help="case files (default: adjudicator/cases/datc-2.4/*.datc)",
    )


def run(args: argparse.Namespace) -> int:
    paths: list[Path] = args.files or bundled_case_files()
    if not paths:
        raise CommandError("no case files given and none bundled")
    reports: list[CaseReport] = []
    for report in run_cases(load_cases(paths)):
        reports.append(report)
        print(report.line(), flush=True)
    print(summary(reports))
    return 0 if all(r.passed for r in reports) else 1
