"""`daide adjudicate`: golden output, ERROR lines, streaming many blocks."""

from __future__ import annotations

import io
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from daide.blocks import read_blocks
from daide.cli import main
from daide.cmd_adjudicate import adjudicate_stream
from engine.phase_text import rulebook, setting

ROOT = Path(__file__).resolve().parent.parent

UNO_SPRING = (
    "( UNO ANK BEL BUD BUL CON DEN EDI GRE HOL LON LVP MOS NAP NWY POR ROM RUM SER SEV SMY "
    "SPA STP SWE TRI TUN VEN VIE WAR )"
)

BLOCKS = """\
# a movement phase: a supported move wins, a fleet cannot go inland
SCO ( FRA BRE MAR PAR ) ( GER BER KIE MUN )
NOW ( SPR 1901 ) ( FRA AMY PAR ) ( FRA AMY MAR ) ( GER AMY MUN ) ( GER FLT KIE )
SUB ( ( FRA AMY PAR ) MTO BUR ) ( ( FRA AMY MAR ) SUP ( FRA AMY PAR ) MTO BUR )
SUB ( ( GER AMY MUN ) MTO BUR ) ( ( GER FLT KIE ) MTO MUN )

SCO ( ENG EDI LON LVP ) ( GER BER KIE MUN )
NOW ( AUT 1901 ) ( ENG FLT NTH ) ( GER FLT HOL MRT ( HEL KIE ) ) ( ENG FLT HOL )
SUB ( ( GER FLT HOL ) RTO BEL )

SCO ( RUS MOS SEV STP WAR ) ( UNO RUM )
NOW ( WIN 1901 ) ( RUS AMY MOS )
SUB ( ( RUS FLT ( STP NCS ) ) BLD ) ( RUS WVE )
AS ENG SUB ( RUS WVE )

SCO ( FRA BEL BRE EDI HOL LON MAR MUN PAR POR SPA TUN NAP ROM VEN KIE BER DEN ) ( UNO SWE )
NOW ( FAL 1905 ) ( FRA AMY DEN )
SUB ( ( FRA AMY DEN ) MTO SWE )
"""

GOLDEN = f"""\
THX ( ( GER FLT KIE ) MTO MUN ) ( FAR )
ORD ( SPR 1901 ) ( ( GER FLT KIE ) HLD ) ( SUC )
ORD ( SPR 1901 ) ( ( FRA AMY MAR ) SUP ( FRA AMY PAR ) MTO BUR ) ( SUC )
ORD ( SPR 1901 ) ( ( GER AMY MUN ) MTO BUR ) ( BNC )
ORD ( SPR 1901 ) ( ( FRA AMY PAR ) MTO BUR ) ( SUC )
SCO ( FRA BRE MAR PAR ) ( GER BER KIE MUN ) {UNO_SPRING}
NOW ( FAL 1901 ) ( FRA AMY BUR ) ( GER FLT KIE ) ( FRA AMY MAR ) ( GER AMY MUN )

THX ( ( GER FLT HOL ) RTO BEL ) ( NVR )
ORD ( AUT 1901 ) ( ( GER FLT HOL ) DSB ) ( SUC )
SCO ( ENG EDI HOL LON LVP ) ( GER BER KIE MUN ) ( UNO ANK BEL BRE BUD BUL CON DEN GRE MAR \
MOS NAP NWY PAR POR ROM RUM SER SEV SMY SPA STP SWE TRI TUN VEN VIE WAR )
NOW ( WIN 1901 ) ( ENG FLT HOL ) ( ENG FLT NTH )

THX ( RUS WVE ) ( NYU )
ORD ( WIN 1901 ) ( ( RUS FLT ( STP NCS ) ) BLD ) ( SUC )
ORD ( WIN 1901 ) ( RUS WVE ) ( SUC )
ORD ( WIN 1901 ) ( RUS WVE ) ( SUC )
SCO ( RUS MOS SEV STP WAR ) ( UNO ANK BEL BER BRE BUD BUL CON DEN EDI GRE HOL KIE LON LVP \
MAR MUN NAP NWY PAR POR ROM RUM SER SMY SPA SWE TRI TUN VEN VIE )
NOW ( SPR 1902 ) ( RUS AMY MOS ) ( RUS FLT ( STP NCS ) )

ORD ( FAL 1905 ) ( ( FRA AMY DEN ) MTO SWE ) ( SUC )
SCO ( FRA BEL BER BRE DEN EDI HOL KIE LON MAR MUN NAP PAR POR ROM SPA SWE TUN VEN ) \
( UNO ANK BUD BUL CON GRE LVP MOS NWY RUM SER SEV SMY STP TRI VIE WAR )
NOW ( WIN 1905 ) ( FRA AMY SWE )
SLO ( FRA )

"""


def test_golden_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "in.txt"
    path.write_text(BLOCKS)
    assert main(["adjudicate", str(path)]) == 0
    assert capsys.readouterr().out == GOLDEN


def test_datc_3_0_rules_change_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # DATC 6.G.8 (docs/datc-issues.md): v2.4 moves a "via convoy" army by land when
    # no fleet convoys it; v3.0 makes the move fail.
    path = tmp_path / "in.txt"
    path.write_text("SCO ( FRA PAR )\nNOW ( SPR 1901 ) ( FRA AMY PIC )\n"
                    "SUB ( ( FRA AMY PIC ) CTO BEL VIA ( ECH ) )\n")
    assert main(["adjudicate", str(path)]) == 0  # a THX note is no error
    assert capsys.readouterr().out.splitlines()[0] == (
        "THX ( ( FRA AMY PIC ) CTO BEL VIA ( ECH ) ) ( NSF )")
    path.write_text("SCO ( FRA PAR )\nNOW ( SPR 1901 ) ( FRA AMY PIC ) ( FRA FLT ECH )\n"
                    "SUB ( ( FRA AMY PIC ) CTO BEL VIA ( ECH ) )\n")
    assert main(["adjudicate", str(path)]) == 0
    v24 = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("SCO")]
    assert main(["adjudicate", "--rules", "datc-3.0", str(path)]) == 0
    v30 = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("SCO")]
    assert v24 == [
        "ORD ( SPR 1901 ) ( ( FRA FLT ECH ) HLD ) ( SUC )",
        "ORD ( SPR 1901 ) ( ( FRA AMY PIC ) CTO BEL VIA ( ECH ) ) ( SUC )",
        "NOW ( FAL 1901 ) ( FRA AMY BEL ) ( FRA FLT ECH )",
        "",
    ]
    assert v30 == [
        "ORD ( SPR 1901 ) ( ( FRA FLT ECH ) HLD ) ( SUC )",
        "ORD ( SPR 1901 ) ( ( FRA AMY PIC ) CTO BEL VIA ( ECH ) ) ( NSO )",
        "NOW ( FAL 1901 ) ( FRA FLT ECH ) ( FRA AMY PIC )",
        "",
    ]


BAD_BLOCKS = """\
SCO ( ENG LON )
NOW ( SPR 1901 ) ( ENG AMY NTH )

SCO ( ENG LON )
NOW ( SPR 1901 ) ( ENG FLT NTH )
SUB ( ( ENG FLT NTH ) MTO BEL )

NOW ( SPR 1901 ) ( ENG FLT NTH )

SCO ( ENG LON )
NOW ( SPR 1901 ) ( ENG FLT NTH )
SUB ( ( ENG FLT NTH ) MTO XYZ )

SCO ( ENG LON )
NOW ( SPR 1901 ) ( ENG FLT NTH )
ORD ( SPR 1901 ) ( ( ENG FLT NTH ) HLD ) ( SUC )

SCO ( ENG LON )
NOW ( SPR 1901 ) ( ENG FLT NTH ) ( FRA FLT NTH )

SCO ( ENG LON )
NOW ( SPR 1901 ) ( ENG FLT NTH MRT ( EDI ) )

SCO ( ENG LON ) ( ENG PAR )
NOW ( SPR 1901 ) ( ENG FLT NTH )

SCO ( ENG LON )
NOW ( SPR 1901 ) ( ENG FLT NTH )
SUB ( FAL 1901 ) ( ( ENG FLT NTH ) HLD )
"""


def test_malformed_blocks_give_error_lines_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "in.txt"
    path.write_text(BAD_BLOCKS)
    assert main(["adjudicate", str(path)]) == 1
    out = [line for line in capsys.readouterr().out.splitlines() if line]
    errors = [line for line in out if line.startswith("ERROR")]
    assert errors == [
        "ERROR block 1 (line 2): NOW: ENG AMY NTH - an army cannot stand at NTH",
        "ERROR block 3 (line 8): the block has no SCO line",
        "ERROR block 4 (line 12): SUB: unknown token 'XYZ' at column 27: "
        "...( ENG FLT NTH ) MTO <<HERE>>XYZ )",
        "ERROR block 5 (line 16): expected SCO, NOW or SUB, got ORD",
        "ERROR block 6 (line 19): NOW: two units in NTH",
        "ERROR block 7 (line 22): NOW: MRT lists in SPR 1901, which is not a retreat phase",
        "ERROR block 8 (line 24): SCO: two groups for ENG",
        "ERROR block 9 (line 29): SUB for FAL 1901, but the position is in SPR 1901",
    ]
    # block 2 is fine and is answered between the errors
    assert out[1] == "ORD ( SPR 1901 ) ( ( ENG FLT NTH ) MTO BEL ) ( SUC )"


def test_unknown_rules_and_variant_are_one_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["adjudicate", "--rules", "datc-1.0"])
    assert exc.value.code == 2
    assert "invalid choice: 'datc-1.0'" in capsys.readouterr().err
    assert main(["adjudicate", "--variant", "nosuch", os.devnull]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("daide adjudicate: error: unknown or unreadable")
    assert main(["adjudicate", "/no/such/file"]) == 1
    assert capsys.readouterr().err.startswith("daide adjudicate: error: cannot read /no/such/file")


class _Recorder(io.StringIO):
    """An output that notes how much input had been read at each flush."""

    def __init__(self, consumed: list[int]) -> None:
        super().__init__()
        self.consumed = consumed
        self.flushed_at: list[int] = []

    def flush(self) -> None:
        self.flushed_at.append(self.consumed[0])


def test_thousands_of_blocks_stream_one_at_a_time() -> None:
    block = BLOCKS.split("\n\n")[0] + "\n\n"
    count = 2000
    consumed = [0]

    def lines() -> Iterator[str]:
        for _ in range(count):
            for line in block.splitlines(keepends=True):
                consumed[0] += 1
                yield line

    out = _Recorder(consumed)
    game = setting("standard", rulebook("datc-2.4"))
    assert adjudicate_stream(game, lines(), out) == 0
    per_block = len(block.splitlines())
    # each block was written (and flushed) as soon as its empty line was read
    assert out.flushed_at == [per_block * (i + 1) for i in range(count)]
    first = GOLDEN.split("\n\n")[0] + "\n\n"
    assert out.getvalue() == first * count


def test_the_command_answers_a_block_before_the_input_ends() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "daide", "adjudicate"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, env=env, cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    fd = proc.stdout.fileno()
    try:
        block = (BLOCKS.split("\n\n")[0] + "\n\n").encode()
        expected = (GOLDEN.split("\n\n")[0] + "\n\n").encode()
        for _ in range(3):
            # the input stays open: the answer must come before the end of input
            proc.stdin.write(block)
            proc.stdin.flush()
            answer = b""
            while len(answer) < len(expected):
                ready, _, _ = select.select([fd], [], [], 30)
                assert ready, "no answer within 30 s: output not flushed per block"
                chunk = os.read(fd, 65536)
                assert chunk, "the command ended early"
                answer += chunk
            assert answer == expected
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        proc.stdout.close()


def test_blocks_are_split_on_empty_lines_only() -> None:
    text = "# head\nSCO a\n# only a comment: no separator\nNOW b\n\n\n  \nSUB c  # tail\n"
    blocks = list(read_blocks(io.StringIO(text)))
    assert [(b.number, [(ln.number, ln.text) for ln in b.lines]) for b in blocks] == [
        (1, [(2, "SCO a"), (4, "NOW b")]),
        (2, [(8, "SUB c")]),
    ]


def test_the_lines_of_a_phase_are_the_text_of_its_messages() -> None:
    """PhaseOutput.lines writes ORD, SCO and NOW straight from the results and
    the new position: on every phase of every bundled DATC case (movement,
    retreats, builds, dislodged units, solos) they are ``tree_to_text`` of
    the messages."""
    from daide.datc_cases import Case, bundled_case_files
    from daide.datc_runner import load_cases
    from engine.phase_text import (
        InputError,
        Submission,
        read_orders,
        read_position,
        run_phase,
    )
    from protocol.text import tree_to_text

    phases = 0
    for rules in ("datc-2.4", "datc-3.0"):
        for case in load_cases(bundled_case_files(rules), rules):
            assert isinstance(case, Case)
            game = setting(case.variant, rulebook(case.rules.preset, case.rules.overrides))
            state = read_position(game, case.sco.text if case.sco else None, case.now.text)
            for phase in case.phases:
                orders = []
                for sub in phase.submissions:
                    try:
                        orders.append(read_orders(game, state, Submission(sub.line.text,
                                                                          sub.submitter)))
                    except InputError:
                        continue
                output = run_phase(game, state, orders)
                assert list(output.lines(game.rep)) == [
                    tree_to_text(tree, game.rep) for tree in output.trees()]
                state = output.state
                phases += 1
    assert phases > 300
