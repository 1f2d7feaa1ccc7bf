"""Crash safety in ``make test``: a short trial of `tests.crash_harness`.

Three seeded games of seven RandBots; the server (``daide serve``, a
subprocess) is killed with SIGKILL three times at random moments and
restarted on the same database; every game must end exactly as the same
game played without a crash.  Then hosted games (`tests.crash_hosted`): a
kill in the middle of each kind of admin action and of a phase, each
checked after the restart; and a fill killed before the server read it
(absent) and after its answer (done).  ``make crash`` runs the long form.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from tests.crash_harness import CrashPlan, crash_trial
from tests.crash_hosted import ACTIONS, HostedPlan, Trial, bot_invitations, hosted_trial


@pytest.mark.parametrize("durability", ["disk", "os"])
async def test_killed_servers_lose_nothing_and_repeat_nothing(tmp_path: Path,
                                                              durability: str) -> None:
    # "os" announces before any fsync: a killed process still loses nothing.
    plan = CrashPlan(games=3, max_year=1905, kills=3, seed=7, durability=durability)
    with trio.fail_after(120):
        result = await crash_trial(tmp_path, plan)
    assert result.differences() == []
    assert len(result.reference) == len(result.crashed) == 3
    assert len(result.kills) == 3
    # The kills hit running games, whose bots rejoined them with IAM.
    total = sum(len(phases) for phases, _ in result.reference.values())
    assert result.kills == sorted(result.kills) and 3 < result.kills[0] < result.kills[-1] < total
    assert result.rejoins >= 7
    for phases, ending in result.reference.values():
        assert len(phases) > 10 and ending[-1].startswith("SMR")


async def test_hosted_games_resume_whole_after_kills_in_admin_actions(tmp_path: Path) -> None:
    # One round of each kind: a phase, pause, resume, extend, eject, new, fill - too
    # few for the rule that each admin action is seen both done and absent (make crash).
    plan = HostedPlan(rounds=len(ACTIONS), seed=3)
    with trio.fail_after(300):
        result = await hosted_trial(tmp_path, plan)
    assert result.problems == []
    assert result.kills == len(ACTIONS) and result.finished == 2
    assert sorted(a.action for a in result.attempts) == sorted(ACTIONS[1:])
    # Each was found after the restart on one side, none refused, each killed at a
    # random moment (a kind's first round; the other moments need a second round).
    assert all(a.present is not None and not a.refused for a in result.attempts)
    assert {a.moment for a in result.attempts} == {"within"}


async def test_a_fill_killed_as_sent_is_absent_and_one_killed_after_its_answer_is_done(
        tmp_path: Path) -> None:
    # The two sides of a fill in make test (make crash sees both of every kind): no bot
    # invitation, free seat or log line after a request the server never read; all of
    # them, and the bot's process, after one it answered.
    trial = Trial(tmp_path, HostedPlan(seed=5))
    try:
        with trio.fail_after(120):
            await trial.server.start()
            api = trial.server.api()
            made = await trial.create(api, {"name": "crash forming", "mtl": 120}, seats=("FRA",))
            trial.forming = made["id"]
            for number, moment in enumerate(("sent", "answered"), 1):
                attempt = await trial.prepare(api, number, "fill", [])
                attempt.moment = moment
                await trial.kill_around(api, attempt)
                await trial.server.start()
                api = trial.server.api()
                await trial.check(api, attempt)
            await trial.server.stop()
            await trial.bots_settled("after the server stopped")
    finally:
        with trio.CancelScope(shield=True):
            await trial.server.stop()
    assert trial.problems == []
    assert [(a.moment, a.present, a.refused) for a in trial.result.attempts] == [
        ("sent", False, False), ("answered", True, False)]
    assert len(bot_invitations(trial.db, made["id"])) == 1
