"""Reading DATC case files (``adjudicator/cases/datc-2.4/*.datc``, ``datc-3.0/``).

The format is fixed by ``docs/adjudication-conventions.md`` ("DATC case
files").  This module only splits a file into cases, phases and lines and
checks their *layout* (which keyword may follow which); the DAIDE text of a
``SCO``/``NOW``/``SUB``/result line is kept as a string and read by the
runner (:mod:`daide.datc_runner`) with the protocol package, so that a bad
token is reported against its case and line.

Layout of one case::

    CASE <id>
    TITLE <text>
    RULES <preset> [<issue>=<choice> ...]      optional, default datc-2.4 (or the run's --rules)
    VARIANT <name>                             optional, default standard
    SCO ...                                    optional, default 1901 ownership
    NOW ...
    { SUB ... | AS <power> SUB ... }*          a phase: its orders ...
    RESULT                                     ... and what must come out
    { THX | ORD | SCO | NOW | SLO ... }*
    ... more phases (SUB/AS or RESULT) ...
    END

A problem in the layout never raises: it becomes a :class:`MalformedCase`
(reported as a FAIL by the runner), and reading resumes at the next
``CASE`` line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

# Lines a RESULT may hold (docs/adjudication-conventions.md) and how many of
# each one phase may have at most (None = any number).
RESULT_KINDS: dict[str, int | None] = {"THX": None, "ORD": None, "SCO": 1, "NOW": 1, "SLO": 1}

DEFAULT_RULES = "datc-2.4"
DEFAULT_VARIANT = "standard"


class SourceLine(NamedTuple):
    """One content line of a case file: its 1-based number and its text
    (comment and surrounding blanks removed).  A named tuple: ``daide
    adjudicate`` makes one per input line, and a tuple is made several
    times faster than a frozen dataclass."""

    number: int
    text: str


@dataclass(frozen=True)
class SubLine:
    """A ``SUB`` line; ``submitter`` is the power after ``AS``, or ``None``
    when each order is submitted by the power that owns its unit."""

    line: SourceLine
    submitter: str | None


@dataclass(frozen=True)
class PhaseSpec:
    """One phase of a case: the orders given and the expected RESULT lines."""

    submissions: tuple[SubLine, ...]
    result_line: int
    expected: tuple[SourceLine, ...]


@dataclass(frozen=True)
class RuleSpec:
    """The ``RULES`` line: a preset name and ``issue=choice`` overrides."""

    preset: str = DEFAULT_RULES
    overrides: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Case:
    """A well-laid-out case; its DAIDE text is not checked yet."""

    case_id: str
    title: str
    source: str
    line: int
    rules: RuleSpec
    variant: str
    sco: SourceLine | None
    now: SourceLine
    phases: tuple[PhaseSpec, ...]


@dataclass(frozen=True)
class MalformedCase:
    """A case (or a stretch of a file) that could not be read.

    ``case_id`` is the case's id when its CASE line was read, otherwise
    ``<file>:<line>``.
    """

    case_id: str
    source: str
    line: int
    reason: str


AnyCase = Case | MalformedCase


def strip_comment(line: str) -> str:
    """Remove a ``#`` comment: at the start of the line, or preceded by
    whitespace and outside a single-quoted DAIDE string (``''`` inside a
    string is an escaped apostrophe, which toggles twice and so is harmless).
    """
    if "#" not in line:  # most lines: nothing to look for
        return line.strip()
    in_string = False
    for index, char in enumerate(line):
        if char == "'":
            in_string = not in_string
        elif char == "#" and not in_string and (index == 0 or line[index - 1].isspace()):
            return line[:index].strip()
    return line.strip()


def content_lines(text: str) -> Iterator[SourceLine]:
    """The non-empty lines of ``text`` without comments, numbered from 1."""
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = strip_comment(raw)
        if stripped:
            yield SourceLine(number, stripped)


class _LayoutError(Exception):
    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason


def _keyword(line: SourceLine) -> tuple[str, str]:
    word, _, rest = line.text.partition(" ")
    return word, rest.strip()


def _parse_rules(line: SourceLine, rest: str) -> RuleSpec:
    words = rest.split()
    if not words:
        raise _LayoutError(line.number, "RULES needs a preset name (e.g. RULES datc-2.4)")
    overrides = []
    for word in words[1:]:
        issue, sep, choice = word.partition("=")
        if not sep or not issue or not choice:
            raise _LayoutError(line.number, f"RULES override {word!r} is not issue=choice")
        overrides.append((issue, choice))
    return RuleSpec(words[0], tuple(overrides))


class _CaseBuilder:
    """Collects the lines of one case and checks their order."""

    def __init__(self, case_id: str, source: str, line: int, default_rules: str) -> None:
        self.case_id = case_id
        self.source = source
        self.line = line
        self.title: str | None = None
        self.rules = RuleSpec(default_rules)
        self.variant = DEFAULT_VARIANT
        self.sco: SourceLine | None = None
        self.now: SourceLine | None = None
        self.seen_header: set[str] = set()
        self.phases: list[PhaseSpec] = []
        self.subs: list[SubLine] = []
        self.result_line: int | None = None  # set while reading a RESULT
        self.expected: list[SourceLine] = []

    def add(self, line: SourceLine) -> None:
        word, rest = _keyword(line)
        if word in ("SUB", "AS", "RESULT") or self.result_line is not None:
            self._add_phase_line(line, word, rest)
        else:
            self._add_header_line(line, word, rest)

    def _add_header_line(self, line: SourceLine, word: str, rest: str) -> None:
        if self.title is None:
            if word != "TITLE":
                raise _LayoutError(line.number, f"expected TITLE after CASE, got {word}")
            self.title = rest
            return
        order = ["RULES", "VARIANT", "SCO", "NOW"]
        if word not in order:
            raise _LayoutError(line.number, f"unexpected {word} before the first SUB/RESULT")
        if word in self.seen_header:
            raise _LayoutError(line.number, f"second {word} line in the set-up")
        later = [w for w in order[order.index(word) + 1 :] if w in self.seen_header]
        if later:
            raise _LayoutError(line.number, f"{word} must come before {later[0]}")
        self.seen_header.add(word)
        if word == "RULES":
            self.rules = _parse_rules(line, rest)
        elif word == "VARIANT":
            if len(rest.split()) != 1:
                raise _LayoutError(line.number, "VARIANT takes one name")
            self.variant = rest
        elif word == "SCO":
            self.sco = line
        else:
            self.now = line

    def _add_phase_line(self, line: SourceLine, word: str, rest: str) -> None:
        if self.now is None:
            raise _LayoutError(line.number, f"{word} before the case's NOW line")
        if word in ("SUB", "AS"):
            self._close_result()
            self.subs.append(self._submission(line, word, rest))
        elif word == "RESULT":
            if rest:
                raise _LayoutError(line.number, "RESULT stands alone on its line")
            self._close_result()
            self.result_line = line.number
        elif word in RESULT_KINDS:
            limit = RESULT_KINDS[word]
            if limit is not None and sum(_keyword(e)[0] == word for e in self.expected) >= limit:
                raise _LayoutError(line.number, f"more than one {word} in one RESULT")
            self.expected.append(line)
        else:
            raise _LayoutError(line.number, f"{word} cannot appear in a RESULT")

    @staticmethod
    def _submission(line: SourceLine, word: str, rest: str) -> SubLine:
        if word == "SUB":
            return SubLine(line, None)
        power, _, sub = rest.partition(" ")
        if not power or not sub.strip().startswith("SUB"):
            raise _LayoutError(line.number, "AS needs a power and a SUB: AS GER SUB ( ... )")
        return SubLine(SourceLine(line.number, sub.strip()), power.upper())

    def _close_result(self) -> None:
        if self.result_line is None:
            return
        if not any(_keyword(e)[0] == "NOW" for e in self.expected):
            raise _LayoutError(self.result_line, "RESULT without a NOW line")
        self.phases.append(PhaseSpec(tuple(self.subs), self.result_line, tuple(self.expected)))
        self.subs, self.expected, self.result_line = [], [], None

    def finish(self, end_line: int) -> Case:
        if self.title is None:
            raise _LayoutError(end_line, "case has no TITLE")
        if self.now is None:
            raise _LayoutError(end_line, "case has no NOW line")
        if self.result_line is None:
            if self.subs:
                raise _LayoutError(end_line, "SUB lines after the last RESULT")
            if not self.phases:
                raise _LayoutError(end_line, "case has no RESULT")
        self._close_result()
        return Case(
            self.case_id, self.title, self.source, self.line, self.rules, self.variant,
            self.sco, self.now, tuple(self.phases),
        )


def parse_cases(text: str, source: str, default_rules: str = DEFAULT_RULES) -> list[AnyCase]:
    """Split the text of one case file into cases; a case without a
    ``RULES`` line plays ``default_rules``.

    Never raises for bad content: each problem becomes a
    :class:`MalformedCase`, and reading goes on at the next ``CASE`` line.
    """
    cases: list[AnyCase] = []
    builder: _CaseBuilder | None = None
    skipping = False  # after an error: ignore lines up to the next CASE
    last = 0
    for line in content_lines(text):
        last = line.number
        word, rest = _keyword(line)
        if word == "CASE":
            if builder is not None and not skipping:
                cases.append(MalformedCase(builder.case_id, source, builder.line,
                                           f"line {line.number}: CASE before END"))
            skipping = False
            if not rest or len(rest.split()) != 1:
                builder = None
                cases.append(MalformedCase(f"{source}:{line.number}", source, line.number,
                                           f"line {line.number}: CASE needs one id"))
                skipping = True
                continue
            builder = _CaseBuilder(rest, source, line.number, default_rules)
            continue
        if skipping:
            continue
        if builder is None:
            cases.append(MalformedCase(f"{source}:{line.number}", source, line.number,
                                       f"line {line.number}: {word} outside a case"))
            skipping = True
            continue
        current = builder
        try:
            if word == "END":
                if rest:
                    raise _LayoutError(line.number, "END stands alone on its line")
                cases.append(current.finish(line.number))
                builder = None
            else:
                current.add(line)
        except _LayoutError as exc:
            cases.append(MalformedCase(current.case_id, source, current.line,
                                       f"line {exc.line}: {exc.reason}"))
            builder = None
            skipping = True
    if builder is not None:
        cases.append(MalformedCase(builder.case_id, source, builder.line,
                                   f"line {last}: end of file before END"))
    return _flag_duplicates(cases)


def _flag_duplicates(cases: list[AnyCase]) -> list[AnyCase]:
    """A second case with an id already used in the same file is malformed."""
    first: dict[str, int] = {}
    result: list[AnyCase] = []
    for case in cases:
        if case.case_id in first and isinstance(case, Case):
            result.append(MalformedCase(case.case_id, case.source, case.line,
                                        f"line {case.line}: duplicate case id "
                                        f"(first at line {first[case.case_id]})"))
            continue
        first.setdefault(case.case_id, case.line)
        result.append(case)
    return result


def read_case_file(path: Path, default_rules: str = DEFAULT_RULES) -> list[AnyCase]:
    """Read one ``.datc`` file; an unreadable file is one malformed case."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [MalformedCase(path.name, str(path), 0, f"cannot read the file: {exc}")]
    return parse_cases(text, str(path), default_rules)


def bundled_case_files(rules_dir: str = DEFAULT_RULES) -> list[Path]:
    """The case files shipped in ``adjudicator/cases/<rules_dir>/``, sorted
    (``datc-2.4``: DATC v2.4 chapter 6; ``datc-3.0``: DATC v3.0 chapter 6)."""
    import adjudicator

    base = Path(adjudicator.__file__).parent / "cases" / rules_dir
    return sorted(base.glob("*.datc"))
