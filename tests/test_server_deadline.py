"""Phase deadlines (pause/resume for DSD) and TME requests, on a fake clock."""

from __future__ import annotations

import math

import pytest

from server.deadline import PhaseClock, TimeRequests, whole_seconds


class FakeTime:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_no_deadline_means_infinity() -> None:
    clock = PhaseClock(FakeTime())
    clock.start(None)
    assert clock.deadline == math.inf and clock.remaining() is None
    assert not clock.expired() and not clock.has_deadline
    with pytest.raises(ValueError):
        clock.pause()


def test_pause_freezes_and_resume_moves_the_deadline() -> None:
    now = FakeTime()
    clock = PhaseClock(now)
    clock.start(300)
    assert clock.deadline == 400.0
    now.t = 250.0
    assert clock.pause() == 150.0
    assert clock.deadline == math.inf and clock.paused
    now.t = 10_000.0
    assert clock.remaining() == 150.0 and not clock.expired()
    assert clock.resume() == 150.0
    assert clock.deadline == 10_150.0
    now.t = 10_150.0
    assert clock.expired()


def test_phase_may_start_paused() -> None:
    now = FakeTime()
    clock = PhaseClock(now)
    clock.start(60, paused=True)
    assert clock.paused and clock.remaining() == 60.0
    now.t += 500
    clock.resume()
    assert clock.deadline == now.t + 60


def test_whole_seconds_round_up_and_clamp() -> None:
    assert whole_seconds(0.0) == 0
    assert whole_seconds(0.2) == 1
    assert whole_seconds(59.0) == 59
    assert whole_seconds(-3) == 0
    assert whole_seconds(1e9) == 8191


def test_time_requests_fire_once_per_phase() -> None:
    now = FakeTime()
    clock = PhaseClock(now)
    clock.start(300)
    req = TimeRequests()
    req.add("a", 60)
    req.add("a", 10)
    req.add("b", 500)  # longer than the phase: due at once
    assert req.due(clock) == [("b", 500)]
    assert req.next_time(clock) == 400.0 - 60
    now.t = 340.0
    assert req.due(clock) == [("a", 60)]
    assert req.due(clock) == []
    assert req.next_time(clock) == 390.0
    assert req.cancel("a", 10) and not req.cancel("a", 10)
    assert req.next_time(clock) == math.inf
    req.new_phase()
    clock.start(300)
    assert req.due(clock) == [("b", 500)]
    req.cancel_all("b")
    assert req.due(clock) == []


def test_paused_clock_fires_nothing() -> None:
    now = FakeTime()
    clock = PhaseClock(now)
    clock.start(30)
    clock.pause()
    req = TimeRequests()
    req.add("a", 60)
    assert req.due(clock) == [] and req.next_time(clock) == math.inf
