"""server.logconfig: one processor for the fields of every line, the same line as structlog's chain."""

from __future__ import annotations

import io
import json
import time
from typing import Any

import pytest
import structlog

from server.logconfig import (
    LineFields,
    UtcTimestamp,
    configure_logging,
    redact_secrets,
    render_json,
)


class Odd:
    """A value JSON cannot hold: written as its repr."""

    def __repr__(self) -> str:
        return "<odd>"


def structlog_chain(name: str, event: dict[str, Any]) -> dict[str, Any]:
    """What the four processors LineFields stands for make of ``event``."""
    event = structlog.processors.add_log_level(None, name, event)
    event = UtcTimestamp()(None, name, event)
    event = redact_secrets(None, name, event)
    return structlog.processors.format_exc_info(None, name, event)


@pytest.mark.parametrize("name", ["info", "warn", "warning", "error", "debug"])
@pytest.mark.parametrize("fields", [{"turn": "SPR 1901", "orders": 22},
                                    {"power": "ENG", "passcode": 1234, "secret": "x"}, {}])
def test_line_fields_are_those_of_structlogs_processors(
        name: str, fields: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "time_ns", lambda: 1_764_108_000_123_456_789)
    ours = LineFields()(None, name, {**fields, "event": "e"})
    theirs = structlog_chain(name, {**fields, "event": "e"})
    assert list(ours.items()) == list(theirs.items())       # the same fields in the same order


def test_an_exception_is_rendered_as_structlog_renders_it() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        ours = LineFields()(None, "exception", {"event": "failed", "exc_info": True})
        theirs = structlog_chain("exception", {"event": "failed", "exc_info": True})
    ours.pop("timestamp"), theirs.pop("timestamp")
    assert ours == theirs and "ValueError: boom" in ours["exception"]
    assert ours["level"] == "error" and "exc_info" not in ours


def test_the_json_line_is_what_structlogs_renderer_writes() -> None:
    event = {"game": 3, "odd": Odd(), "seconds": 0.0012, "text": "é\n", "event": "phase_processed"}
    expected = structlog.processors.JSONRenderer(default=repr)(None, "info", dict(event))
    assert render_json(None, "info", dict(event)) == expected
    assert json.loads(expected)["odd"] == "<odd>"


def test_a_configured_logger_writes_one_json_line_per_event() -> None:
    out = io.StringIO()
    configure_logging(out)
    try:
        log = structlog.get_logger("t").bind(game=7)
        log.info("phase_processed", turn="SPR 1901", passcode=99)
        log.warning("clock_paused", seconds=3)
    finally:
        structlog.reset_defaults()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [list(line) for line in lines] == [
        ["game", "turn", "passcode", "event", "level", "timestamp"],
        ["game", "seconds", "event", "level", "timestamp"]]
    assert lines[0]["passcode"] == "***" and lines[1]["level"] == "warning"
