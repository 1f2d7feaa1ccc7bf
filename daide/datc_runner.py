"""Running DATC case files: each case's phases through the real adjudicator.

A case (:mod:`daide.datc_cases`) starts from its ``SCO`` (or the variant's
starting ownership) and ``NOW``; each phase submits its ``SUB`` lines,
adjudicates with :func:`engine.phase_text.run_phase` and compares the
produced messages with the phase's ``RESULT`` lines
(:func:`daide.datc_compare.first_difference`).  The next phase starts from
the position the adjudicator computed, never from the expected lines
(docs/adjudication-conventions.md).  An omitted ``SCO`` in a RESULT means
"ownership unchanged": the SCO of the phase's starting position is expected.

Every problem - a malformed file, a bad DAIDE line, an unknown rule, even
an exception inside the adjudicator - is a failed case with its reason,
never a crash of the run.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from daide.datc_cases import (
    DEFAULT_RULES,
    AnyCase,
    Case,
    MalformedCase,
    SourceLine,
    read_case_file,
)
from daide.datc_compare import ResultLine, first_difference
from engine.phase_text import (
    InputError,
    Orders,
    PhaseOutput,
    Setting,
    Submission,
    read_orders,
    read_position,
    rulebook,
    run_phase,
    sco_of,
    setting,
)
from protocol.errors import ProtocolError
from protocol.text import tree_from_text, tree_to_text


@dataclass(frozen=True)
class CaseReport:
    """The verdict on one case: ``detail`` is empty for a pass, else the reason."""

    case_id: str
    passed: bool
    detail: str = ""

    def line(self) -> str:
        """``PASS 6.A.1`` or ``FAIL 6.A.1: <first difference>``."""
        if self.passed:
            return f"PASS {self.case_id}"
        return f"FAIL {self.case_id}: {self.detail}"


class _CaseFailure(Exception):
    """A reason to fail the case being run (with its line number in the text)."""


def load_cases(paths: Iterable[Path], default_rules: str = DEFAULT_RULES) -> list[AnyCase]:
    """Read case files in order; an id used twice (in any files) is malformed.
    Cases without a ``RULES`` line play ``default_rules``."""
    cases: list[AnyCase] = []
    seen: dict[str, str] = {}
    for path in paths:
        for case in read_case_file(path, default_rules):
            if isinstance(case, Case) and case.case_id in seen:
                case = MalformedCase(
                    case.case_id, case.source, case.line,
                    f"line {case.line}: duplicate case id (also in {seen[case.case_id]})",
                )
            else:
                seen.setdefault(case.case_id, f"{Path(case.source).name}:{case.line}")
            cases.append(case)
    return cases


def run_case(case: AnyCase) -> CaseReport:
    """Run one case; never raises."""
    if isinstance(case, MalformedCase):
        return CaseReport(case.case_id, False, f"{Path(case.source).name}: {case.reason}")
    try:
        _run(case)
    except _CaseFailure as exc:
        return CaseReport(case.case_id, False, str(exc))
    except Exception as exc:  # a crash in the engine is a failed case, not a failed run
        return CaseReport(case.case_id, False, f"error: {type(exc).__name__}: {exc}")
    return CaseReport(case.case_id, True)


def run_cases(cases: Iterable[AnyCase]) -> Iterator[CaseReport]:
    """:func:`run_case` for each case, lazily."""
    for case in cases:
        yield run_case(case)


def _at(line: SourceLine | int, exc: Exception | str) -> _CaseFailure:
    number = line.number if isinstance(line, SourceLine) else line
    return _CaseFailure(f"line {number}: {exc}")


def _run(case: Case) -> None:
    try:
        rules = rulebook(case.rules.preset, case.rules.overrides)
        game = setting(case.variant, rules)
    except InputError as exc:
        raise _at(case.line, exc) from None
    try:
        state = read_position(game, case.sco.text if case.sco else None, case.now.text)
    except InputError as exc:
        raise _at(case.sco or case.now, exc) from None
    for number, phase in enumerate(case.phases, start=1):
        orders: list[Orders] = []
        for sub in phase.submissions:
            try:
                orders.append(read_orders(game, state, Submission(sub.line.text, sub.submitter)))
            except InputError as exc:
                raise _at(sub.line, exc) from None
        expected = [_expected_line(game, line) for line in phase.expected]
        if not any(line.kind == "SCO" for line in expected):
            sco = sco_of(game, state).to_tree()
            expected.append(ResultLine(tree_to_text(sco, game.rep), sco))
        output = run_phase(game, state, orders)
        difference = first_difference(expected, _produced(game, output))
        if difference is not None:
            where = f"phase {number} ({state.phase}, RESULT at line {phase.result_line})"
            raise _CaseFailure(f"{where}: {difference}")
        state = output.state


def _expected_line(game: Setting, line: SourceLine) -> ResultLine:
    try:
        return ResultLine(line.text, tree_from_text(line.text, game.rep))
    except ProtocolError as exc:
        raise _at(line, exc) from None


def _produced(game: Setting, output: PhaseOutput) -> Sequence[ResultLine]:
    return [ResultLine(tree_to_text(tree, game.rep), tree) for tree in output.trees()]


def summary(reports: Sequence[CaseReport]) -> str:
    """``N passed, M failed``."""
    passed = sum(r.passed for r in reports)
    return f"{passed} passed, {len(reports) - passed} failed"
