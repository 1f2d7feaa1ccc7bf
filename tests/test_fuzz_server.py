"""Property-based fuzzing of the whole server (Hypothesis): frames, tokens, texts, messages.

Each example is a fresh in-memory server with a bystander game running
(`fuzz.harness`); the fuzz client sends its chunks as an anonymous client or
as a player, at press level 0 or 8000.  Whatever it sends, the server answers
with an EM and a close, a PRN, a HUH, a REJ or a proper reply - never an
unhandled exception, never a malformed frame, never an effect on the other
game (`fuzz.harness.check`).  ``make fuzz`` runs the same inputs for longer,
coverage-guided (`fuzz/fuzz_server.py`).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.harness import IM, check, check_readers, dm, exchange
from fuzz.inputs import chunks

FUZZ = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


class HypothesisChooser:
    """`fuzz.inputs.Chooser` over Hypothesis's ``st.data()``."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))

    def raw(self, most: int) -> bytes:
        return self.data.draw(st.binary(max_size=most))


@FUZZ
@given(st.binary(max_size=400), st.booleans())
def test_any_bytes(data: bytes, after_im: bool) -> None:
    check(exchange([IM + data if after_im else data]))


@FUZZ
@given(st.data())
def test_frames_tokens_and_messages_from_an_anonymous_client(data: st.DataObject) -> None:
    case = chunks(HypothesisChooser(data), with_im=True)
    check_readers(case)
    check(exchange(case))


@pytest.mark.parametrize("level", [0, 8000])
@FUZZ
@given(data=st.data())
def test_frames_tokens_and_messages_from_a_player(level: int, data: st.DataObject) -> None:
    case = chunks(HypothesisChooser(data), with_im=False)
    check_readers(case, level=level)
    check(exchange(case, level=level, as_player=True))


def test_the_harness_sees_real_answers() -> None:
    """The harness is not vacuous: it sees replies, closes and the bystanders' answers."""
    report = exchange([IM + dm("IAM ( NOT"), dm("SUB ( ( ENG AMY LVP ) HLD )"),
                       dm("ADM ( 'x' ) ( 'hello' )"), bytes.fromhex("0900 0000")])
    assert report.replies == ["RM", "PRN ( IAM ( NOT )", "HUH ( ERR SUB ( ( ENG AMY LVP ) HLD ) )",
                              "ADM ( 'x' ) ( 'hello' )", "EM 0x08"]
    assert report.closed and not report.errors and not report.bystander_extra
    assert report.bystander_answer.startswith("NOW ( SPR 1901 ) ( TUR FLT ANK )")
    check(report)
    player = exchange([dm("SUB ( ( FRA AMY PAR ) MTO BUR )"), dm("NOT ( SUB )")], as_player=True)
    assert player.replies == ["THX ( ( FRA AMY PAR ) MTO BUR ) ( MBV )",
                              "MIS ( FRA FLT BRE ) ( FRA AMY MAR )", "YES ( NOT ( SUB ) )"]
    check(player)
