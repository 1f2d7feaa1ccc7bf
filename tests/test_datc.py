"""The DATC: one test per bundled case (``test_datc[6.F.17]``), and the runner itself."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import daide.datc_runner as runner
from daide.cli import main
from daide.datc_cases import AnyCase, Case, RuleSpec, bundled_case_files, parse_cases
from daide.datc_runner import CaseReport, load_cases, run_case, summary

BUNDLED: list[AnyCase] = load_cases(bundled_case_files())
BUNDLED_3_0: list[AnyCase] = load_cases(bundled_case_files("datc-3.0"), "datc-3.0")

# DATC v2.4 chapter 6: number of cases per section (6.A.1-6.A.12, ...).
DATC_SECTIONS = {"A": 12, "B": 14, "C": 7, "D": 34, "E": 15, "F": 24, "G": 18, "H": 16,
                 "I": 7, "J": 11}
# DATC v3.0 chapter 6 adds 6.B.15, 6.C.8, 6.C.9, 6.F.25, 6.G.19 and 6.G.20.
DATC_3_0_SECTIONS = {**DATC_SECTIONS, "B": 15, "C": 9, "F": 25, "G": 20}


@pytest.mark.parametrize("case", BUNDLED, ids=[c.case_id for c in BUNDLED])
def test_datc(case: AnyCase) -> None:
    report = run_case(case)
    assert report.passed, report.line()


@pytest.mark.parametrize("case", BUNDLED_3_0, ids=[c.case_id for c in BUNDLED_3_0])
def test_datc_3_0(case: AnyCase) -> None:
    report = run_case(case)
    assert report.passed, report.line()


def _uncovered(cases: list[AnyCase], sections: dict[str, int]) -> list[str]:
    ids = {c.case_id for c in cases}
    wanted = {f"6.{s}.{n}" for s, count in sections.items() for n in range(1, count + 1)}
    # a case with several scenarios may be split as 6.J.9a, 6.J.9b ...
    covered = {w for w in wanted if w in ids or any(re.fullmatch(re.escape(w) + r"[a-z]", i)
                                                     for i in ids)}
    return sorted(wanted - covered)


def test_every_datc_2_4_case_is_bundled() -> None:
    assert _uncovered(BUNDLED, DATC_SECTIONS) == []
    assert [p.name for p in bundled_case_files()] == [f"6{s}.datc" for s in DATC_SECTIONS]


def test_every_datc_3_0_case_is_bundled_and_names_its_rules() -> None:
    assert _uncovered(BUNDLED_3_0, DATC_3_0_SECTIONS) == []
    assert [p.name for p in bundled_case_files("datc-3.0")] == [
        f"6{s}.datc" for s in DATC_3_0_SECTIONS]
    # Each v3.0 case says RULES datc-3.0 itself, so a file run alone plays v3.0.
    assert {c.rules for c in load_cases(bundled_case_files("datc-3.0"))} == {RuleSpec("datc-3.0")}


def test_the_v3_0_cases_whose_result_changed_fail_under_v2_4() -> None:
    # DATC v3.0 changed these results (docs/datc-issues.md, "DATC v3.0"):
    # 6.F.12 and 6.G.19 (4.E.1: a convoy order no route needs is illegal),
    # 6.G.8 (4.A.3: no land fallback), 6.J.6, 6.J.10, 6.J.11 (4.D.8: distance
    # to owned centres over land and sea).  Every other case agrees.
    failing = [c.case_id for c in BUNDLED_3_0
               if isinstance(c, Case) and not run_case(replace(c, rules=RuleSpec())).passed]
    assert failing == ["6.F.12", "6.G.8", "6.G.19", "6.J.6", "6.J.10", "6.J.11"]


# --- the runner ------------------------------------------------------------------------

BOUNCE = """\
CASE T.1
TITLE TWO MOVES BOUNCE
NOW ( SPR 1901 ) ( FRA AMY PAR ) ( GER AMY MUN )
SUB ( ( FRA AMY PAR ) MTO BUR )
SUB ( ( GER AMY MUN ) MTO BUR )
RESULT
ORD ( SPR 1901 ) ( ( FRA AMY PAR ) MTO BUR ) ( BNC )
ORD ( SPR 1901 ) ( ( GER AMY MUN ) MTO BUR ) ( {result} )
NOW ( FAL 1901 ) ( GER AMY MUN ) ( FRA AMY PAR )
END
"""


def _run(text: str) -> CaseReport:
    [case] = parse_cases(text, "t.datc")
    return run_case(case)


def test_a_correct_case_passes_with_lists_compared_as_sets() -> None:
    assert _run(BOUNCE.format(result="BNC")) == CaseReport("T.1", True, "")


def test_a_wrong_expectation_fails_with_the_difference() -> None:
    report = _run(BOUNCE.format(result="SUC"))
    assert report.line() == (
        "FAIL T.1: phase 1 (SPR 1901, RESULT at line 6): "
        "expected ORD ( SPR 1901 ) ( ( GER AMY MUN ) MTO BUR ) ( SUC ), "
        "got ORD ( SPR 1901 ) ( ( GER AMY MUN ) MTO BUR ) ( BNC )"
    )


def test_missing_and_unexpected_lines() -> None:
    text = BOUNCE.format(result="BNC").replace("ORD ( SPR 1901 ) ( ( FRA AMY PAR ) MTO BUR ) ( BNC )\n", "")
    assert _run(text).detail == (
        "phase 1 (SPR 1901, RESULT at line 6): "
        "unexpected ORD ( SPR 1901 ) ( ( FRA AMY PAR ) MTO BUR ) ( BNC )"
    )
    text = BOUNCE.format(result="BNC").replace("END", "THX ( ( FRA AMY PAR ) MTO BUR ) ( FAR )\nEND")
    assert _run(text).detail.endswith(
        "expected THX ( ( FRA AMY PAR ) MTO BUR ) ( FAR ), got no such line")


def test_an_omitted_sco_means_unchanged_and_a_wrong_one_fails() -> None:
    wrong = BOUNCE.format(result="BNC").replace("END", "SCO ( FRA PAR )\nEND")
    detail = _run(wrong).detail
    assert detail.startswith("phase 1 (SPR 1901, RESULT at line 6): expected SCO ( FRA PAR ), "
                             "got SCO ( AUS BUD TRI VIE ) ( ENG EDI LON LVP )")


MULTI = """\
CASE T.2
TITLE DISLODGE, RETREAT, BUILD
SCO ( FRA PAR MAR ) ( GER MUN ) ( UNO BEL )
NOW ( FAL 1901 ) ( FRA AMY PIC ) ( FRA AMY BUR ) ( GER AMY BEL )
SUB ( ( FRA AMY PIC ) MTO BEL ) ( ( FRA AMY BUR ) SUP ( FRA AMY PIC ) MTO BEL )
RESULT
ORD ( FAL 1901 ) ( ( FRA AMY PIC ) MTO BEL ) ( SUC )
ORD ( FAL 1901 ) ( ( FRA AMY BUR ) SUP ( FRA AMY PIC ) MTO BEL ) ( SUC )
ORD ( FAL 1901 ) ( ( GER AMY BEL ) HLD ) ( RET )
NOW ( AUT 1901 ) ( FRA AMY BUR ) ( FRA AMY BEL ) ( GER AMY BEL MRT ( RUH HOL ) )
SUB ( ( GER AMY BEL ) RTO RUH )
RESULT
ORD ( AUT 1901 ) ( ( GER AMY BEL ) RTO RUH ) ( SUC )
SCO ( FRA BEL MAR PAR ) ( GER MUN ) ( UNO ANK BER BRE BUD BUL CON DEN EDI GRE HOL KIE LON LVP \
MOS NAP NWY POR ROM RUM SER SEV SMY SPA STP SWE TRI TUN VEN VIE WAR )
NOW ( WIN 1901 ) ( FRA AMY BUR ) ( FRA AMY BEL ) ( GER AMY RUH )
SUB ( ( FRA AMY PAR ) BLD ) ( ( FRA AMY PAR ) BLD )
RESULT
THX ( ( FRA AMY PAR ) BLD ) ( ESC )
ORD ( WIN 1901 ) ( ( FRA AMY PAR ) BLD ) ( SUC )
NOW ( SPR 1902 ) ( FRA AMY BUR ) ( FRA AMY BEL ) ( FRA AMY PAR ) ( GER AMY RUH )
END
"""


def test_phases_follow_the_computed_state() -> None:
    assert _run(MULTI) == CaseReport("T.2", True, "")
    # A wrong expectation in a later phase is reported with that phase.
    report = _run(MULTI.replace("( GER AMY RUH )\nSUB", "( GER AMY HOL )\nSUB"))
    assert report.detail.startswith("phase 2 (AUT 1901, RESULT at line 12): expected NOW ( WIN 1901 )")


def test_bad_text_and_rules_are_failures_with_reasons() -> None:
    good = BOUNCE.format(result="BNC")
    assert _run(good.replace("MTO BUR )\nSUB", "MTO XYZ )\nSUB")).detail.startswith(
        "line 4: SUB: unknown token 'XYZ'")
    assert _run(good.replace("TITLE", "RULES datc-9\nTITLE")).detail == (
        "t.datc: line 2: expected TITLE after CASE, got RULES")
    assert _run(good.replace("NOW ( SPR", "RULES datc-9\nNOW ( SPR", 1)).detail == (
        "line 1: unknown rulebook preset 'datc-9' (datc-2.4, datc-3.0)")
    assert _run(good.replace("NOW ( SPR", "RULES datc-2.4 4.Z.9=a\nNOW ( SPR", 1)).detail == (
        "line 1: unknown DATC issue '4.Z.9'")
    assert _run(good.replace("NOW ( SPR", "VARIANT nosuch\nNOW ( SPR", 1)).detail.startswith(
        "line 1: unknown or unreadable variant 'nosuch'")
    assert _run(good.replace("( BNC )\nNOW", "( BNC\nNOW")).detail.startswith("line 8: ")
    assert _run(good.replace("GER AMY MUN ) MTO BUR )\nRESULT", "GER AMY MUN ) MTO BUR )\n"
                             "SUB ( FAL 1901 ) ( ( GER AMY MUN ) HLD )\nRESULT")).detail == (
        "line 6: SUB for FAL 1901, but the position is in SPR 1901")


def test_a_malformed_case_is_a_failure_never_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "broken.datc"
    path.write_text("CASE X.1\nTITLE t\nSUB ( ( FRA AMY PAR ) HLD )\nEND\n" + BOUNCE.format(result="BNC"))
    reports = [run_case(c) for c in load_cases([path])]
    assert [r.line() for r in reports] == [
        "FAIL X.1: broken.datc: line 3: SUB before the case's NOW line",
        "PASS T.1",
    ]
    assert summary(reports) == "1 passed, 1 failed"


def test_a_duplicate_id_across_files_fails(tmp_path: Path) -> None:
    for name in ("a.datc", "b.datc"):
        (tmp_path / name).write_text(BOUNCE.format(result="BNC"))
    reports = [run_case(c) for c in load_cases(sorted(tmp_path.glob("*.datc")))]
    assert [r.passed for r in reports] == [True, False]
    assert reports[1].detail == "b.datc: line 1: duplicate case id (also in a.datc:1)"


def test_an_engine_exception_is_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(runner, "run_phase", explode)
    assert _run(BOUNCE.format(result="BNC")).detail == "error: RuntimeError: boom"


def test_the_datc_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.datc"
    good.write_text(BOUNCE.format(result="BNC"))
    bad = tmp_path / "bad.datc"
    bad.write_text(BOUNCE.format(result="SUC").replace("T.1", "T.9"))
    assert main(["datc", str(good)]) == 0
    assert capsys.readouterr().out == "PASS T.1\n1 passed, 0 failed\n"
    assert main(["datc", str(good), str(bad), str(tmp_path / "none.datc")]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "PASS T.1"
    assert lines[1].startswith("FAIL T.9: phase 1 (SPR 1901, RESULT at line 6): expected ORD")
    assert lines[2].startswith("FAIL none.datc: none.datc: cannot read the file")
    assert lines[3] == "1 passed, 2 failed"


def test_the_datc_command_runs_the_bundle_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["datc"])
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == f"{len(BUNDLED)} passed, 0 failed"
    assert status == 0


# A case without a RULES line: an explicit convoy (CTO) with no fleet ordered
# to convoy.  v2.4 (4.A.3 d) moves the army over land, v3.0 (4.A.3 e) not.
EXPLICIT_CONVOY = """\
CASE T.3
TITLE EXPLICIT CONVOY THAT ISN'T THERE
NOW ( SPR 1901 ) ( FRA AMY BEL ) ( ENG FLT NTH )
SUB ( ( FRA AMY BEL ) CTO HOL VIA ( NTH ) )
RESULT
ORD ( SPR 1901 ) ( ( FRA AMY BEL ) CTO HOL VIA ( NTH ) ) ( NSO )
ORD ( SPR 1901 ) ( ( ENG FLT NTH ) HLD ) ( SUC )
NOW ( FAL 1901 ) ( FRA AMY BEL ) ( ENG FLT NTH )
END
"""


def _datc_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "daide", "datc", *args],
                          capture_output=True, text=True, timeout=120)


def test_the_datc_command_rules_option_sets_the_default_rules(tmp_path: Path) -> None:
    path = tmp_path / "explicit.datc"
    path.write_text(EXPLICIT_CONVOY)
    v30 = _datc_cli("--rules", "datc-3.0", str(path))
    assert (v30.returncode, v30.stdout, v30.stderr) == (0, "PASS T.3\n1 passed, 0 failed\n", "")
    v24 = _datc_cli(str(path))
    assert v24.returncode == 1
    assert v24.stdout.splitlines() == [
        "FAIL T.3: phase 1 (SPR 1901, RESULT at line 5): expected ORD ( SPR 1901 ) "
        "( ( FRA AMY BEL ) CTO HOL VIA ( NTH ) ) ( NSO ), got ORD ( SPR 1901 ) "
        "( ( FRA AMY BEL ) CTO HOL VIA ( NTH ) ) ( SUC )",
        "0 passed, 1 failed",
    ]
    bad = _datc_cli("--rules", "datc-9")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "argument --rules: invalid choice: 'datc-9'" in bad.stderr


def test_the_datc_command_runs_the_v3_0_bundle() -> None:
    done = _datc_cli("--rules", "datc-3.0")
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1] == f"{len(BUNDLED_3_0)} passed, 0 failed"
    assert "Traceback" not in done.stderr
