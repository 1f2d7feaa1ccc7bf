"""Shared test configuration."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

import pytest
import structlog

from protocol.tokens import STANDARD, ProvinceCategory, Representation

ROOT = Path(__file__).resolve().parent.parent
#: facts copied from outside documents, each with its source (tests/data/README.md)
DATA = ROOT / "tests" / "data"


#: Server log events that mean a bug was swallowed to protect the server: a
#: test during which one is logged fails, unless it carries the marker.
SERVER_FAILURES = frozenset({"game_step_failed", "connection_failed"})
EXPECTS_FAILURE = "expects_server_failure"


@pytest.fixture(autouse=True)
def no_swallowed_server_failures(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test during which the server logged `SERVER_FAILURES`: an exception
    the server swallowed to protect itself must never pass unnoticed in a test.

    A structlog processor in front of the configured ones records them.  (A
    test that captures logs itself with ``structlog.testing.capture_logs``
    replaces the processors for that block and checks its own lines.)
    """
    seen: list[dict[str, Any]] = []

    def record(_logger: Any, _name: str, event: MutableMapping[str, Any]
               ) -> MutableMapping[str, Any]:
        if event.get("event") in SERVER_FAILURES:
            seen.append(dict(event))
        return event

    before = structlog.get_config()["processors"]
    structlog.configure(processors=[record, *before])
    try:
        yield
    finally:
        processors = structlog.get_config()["processors"]
        if processors and processors[0] is record:
            structlog.configure(processors=processors[1:])
    if seen and request.node.get_closest_marker(EXPECTS_FAILURE) is None:
        lines = "; ".join(f"{e['event']} ({e.get('step') or e.get('exc_info') or ''})"
                          for e in seen)
        pytest.fail(f"the server logged {lines}; mark the test {EXPECTS_FAILURE} if expected")


@pytest.fixture(params=["standard", "variant"])
def rep(request: pytest.FixtureRequest) -> Representation:
    """The two representations the protocol's readers are tested under: the
    standard one, and a map that takes a language mnemonic for a province
    (docs/protocol.md §11 forbids it, variant files do it): 'BRA' is a province
    there, not a bracket."""
    if request.param == "standard":
        return STANDARD
    return Representation.for_variant(
        ["AUS", "ENG"], [("VIE", ProvinceCategory.COASTAL, True), ("BRA", ProvinceCategory.INLAND, True)]
    )
