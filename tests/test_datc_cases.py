"""Reading DATC case files: layout, comments and malformed files (daide.datc_cases)."""

from __future__ import annotations

from pathlib import Path

from daide.datc_cases import (
    Case,
    MalformedCase,
    RuleSpec,
    SourceLine,
    SubLine,
    parse_cases,
    read_case_file,
    strip_comment,
)

TWO_PHASES = """\
# a file comment
CASE 6.H.1
TITLE NO SUPPORTS DURING RETREAT   # trailing comment
RULES datc-2.4 4.A.2=a
SCO ( AUS BUD TRI VIE ) ( UNO SER )
NOW ( SPR 1901 ) ( AUS FLT TRI ) ( AUS AMY SER )
SUB ( ( AUS FLT TRI ) HLD )
AS GER SUB ( ( AUS AMY SER ) HLD )

RESULT
ORD ( SPR 1901 ) ( ( AUS FLT TRI ) HLD ) ( SUC )
NOW ( FAL 1901 ) ( AUS FLT TRI ) ( AUS AMY SER )
RESULT
NOW ( WIN 1901 ) ( AUS FLT TRI )
SUB ( ( AUS FLT TRI ) REM )
RESULT
ORD ( WIN 1901 ) ( ( AUS FLT TRI ) REM ) ( SUC )
NOW ( SPR 1902 )
END
"""


def test_a_case_with_several_phases() -> None:
    [case] = parse_cases(TWO_PHASES, "x.datc")
    assert isinstance(case, Case)
    assert case.case_id == "6.H.1"
    assert case.title == "NO SUPPORTS DURING RETREAT"
    assert case.rules == RuleSpec("datc-2.4", (("4.A.2", "a"),))
    assert case.variant == "standard"
    assert case.sco == SourceLine(5, "SCO ( AUS BUD TRI VIE ) ( UNO SER )")
    assert case.now.number == 6
    assert [len(p.submissions) for p in case.phases] == [2, 0, 1]
    assert case.phases[0].submissions == (
        SubLine(SourceLine(7, "SUB ( ( AUS FLT TRI ) HLD )"), None),
        SubLine(SourceLine(8, "SUB ( ( AUS AMY SER ) HLD )"), "GER"),
    )
    assert case.phases[0].result_line == 10
    assert [e.number for e in case.phases[0].expected] == [11, 12]
    assert case.phases[2].expected[-1].text == "NOW ( SPR 1902 )"


def test_defaults_when_optional_lines_are_absent() -> None:
    [case] = parse_cases("CASE 1\nTITLE T\nNOW ( SPR 1901 )\nRESULT\nNOW ( SPR 1901 )\nEND\n", "f")
    assert isinstance(case, Case)
    assert case.rules == RuleSpec("datc-2.4", ())
    assert case.variant == "standard"
    assert case.sco is None


def test_comments_respect_strings_and_need_whitespace() -> None:
    assert strip_comment("# all comment") == ""
    assert strip_comment("NOW ( SPR 1901 )  # units") == "NOW ( SPR 1901 )"
    assert strip_comment("SND ( 'a # b' ) # c") == "SND ( 'a # b' )"
    assert strip_comment("SND ( 'it''s # x' )") == "SND ( 'it''s # x' )"
    assert strip_comment("A#B") == "A#B"


def _malformed(text: str) -> list[tuple[str, str]]:
    return [(c.case_id, c.reason) for c in parse_cases(text, "f.datc")
            if isinstance(c, MalformedCase)]


def test_layout_errors_are_malformed_cases_and_reading_goes_on() -> None:
    text = (
        "CASE A\nTITLE t\nSUB ( ( AUS FLT TRI ) HLD )\nEND\n"       # SUB before NOW
        "CASE B\nTITLE t\nNOW ( SPR 1901 )\nEND\n"                  # no RESULT
        "CASE C\nTITLE t\nNOW ( SPR 1901 )\nRESULT\nORD x\nEND\n"   # RESULT without NOW
        "CASE D\nNOW ( SPR 1901 )\n"                                # no TITLE, no END
        "CASE E\nTITLE t\nNOW ( SPR 1901 )\nRESULT\nNOW ( SPR 1901 )\nEND\n"  # fine
    )
    cases = parse_cases(text, "f.datc")
    assert [c.case_id for c in cases] == ["A", "B", "C", "D", "E"]
    assert _malformed(text) == [
        ("A", "line 3: SUB before the case's NOW line"),
        ("B", "line 8: case has no RESULT"),
        ("C", "line 12: RESULT without a NOW line"),
        ("D", "line 16: expected TITLE after CASE, got NOW"),
    ]
    assert isinstance(cases[-1], Case)


def test_more_layout_errors() -> None:
    head = "CASE X\nTITLE t\n"
    assert _malformed(head + "NOW ( SPR 1901 )\nSCO ( UNO SER )\nRESULT\nNOW ( SPR 1901 )\nEND\n") == [
        ("X", "line 4: SCO must come before NOW")]
    assert _malformed(head + "NOW a\nRESULT\nNOW b\nNOW c\nEND\n") == [
        ("X", "line 6: more than one NOW in one RESULT")]
    assert _malformed(head + "NOW a\nRESULT\nNOW b\nMIS\nEND\n") == [
        ("X", "line 6: MIS cannot appear in a RESULT")]
    assert _malformed(head + "NOW a\nRESULT\nNOW b\nSUB ( x )\nEND\n") == [
        ("X", "line 7: SUB lines after the last RESULT")]
    assert _malformed(head + "NOW a\nAS SUB ( x )\nRESULT\nNOW b\nEND\n") == [
        ("X", "line 4: AS needs a power and a SUB: AS GER SUB ( ... )")]
    assert _malformed(head + "RULES datc-2.4 4.A.2\nNOW a\nRESULT\nNOW b\nEND\n") == [
        ("X", "line 3: RULES override '4.A.2' is not issue=choice")]
    assert _malformed("NOW a\nCASE Y\nTITLE t\nNOW a\nRESULT\nNOW b\nEND\n") == [
        ("f.datc:1", "line 1: NOW outside a case")]
    assert _malformed(head + "NOW a\nRESULT\nNOW b\nEND\nCASE X\nTITLE u\nNOW a\nRESULT\nNOW b\nEND\n") == [
        ("X", "line 7: duplicate case id (first at line 1)")]
    assert _malformed(head + "NOW a\nRESULT\nNOW b\n") == [("X", "line 5: end of file before END")]
    assert _malformed(head + "NOW a\nRESULT\nNOW b\nCASE Z\nTITLE t\nNOW a\nRESULT\nNOW b\nEND\n") == [
        ("X", "line 6: CASE before END")]


def test_unreadable_file_is_one_malformed_case(tmp_path: Path) -> None:
    path = tmp_path / "bad.datc"
    path.write_bytes(b"CASE \xff\n")
    [case] = read_case_file(path)
    assert isinstance(case, MalformedCase)
    assert case.reason.startswith("cannot read the file")
    [missing] = read_case_file(tmp_path / "none.datc")
    assert isinstance(missing, MalformedCase)
