"""`daide datc [--rules PRESET] [FILE...]`: run DATC case files through the adjudicator.

Default: every bundled ``adjudicator/cases/<PRESET>/*.datc`` - the DATC v2.4
chapter-6 cases (``--rules datc-2.4``, the default) or the DATC v3.0 ones
(``--rules datc-3.0``).  The preset is also the rulebook of a case that has
no ``RULES`` line.  One line per case (``PASS 6.A.1`` /
``FAIL 6.A.1: <first difference>``), then ``N passed, M failed``; exit
status 1 if any case failed.  The file format is described in
docs/adjudication-conventions.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from daide.datc_cases import DEFAULT_RULES, bundled_case_files
from daide.datc_runner import CaseReport, load_cases, run_cases, summary
from daide.errors import CommandError
from engine.phase_text import RULE_PRESETS

NAME = "datc"
HELP = "run DATC test case files through the adjudicator (default: the bundled DATC 2.4 cases)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules", choices=RULE_PRESETS, default=DEFAULT_RULES,
        help="rulebook preset: which bundled cases run, and the rules of a case "
             "without a RULES line (default: %(default)s)",
    )
    parser.add_argument(
        "files", nargs="*", type=Path, metavar="FILE",
        help="case files (default: adjudicator/cases/<rules>/*.datc)",
    )


def run(args: argparse.Namespace) -> int:
    paths: list[Path] = args.files or bundled_case_files(args.rules)
    if not paths:
        raise CommandError(f"no case files given and none bundled for {args.rules}")
    reports: list[CaseReport] = []
    for report in run_cases(load_cases(paths, args.rules)):
        reports.append(report)
        print(report.line(), flush=True)
    print(summary(reports))
    return 0 if all(r.passed for r in reports) else 1
