"""structlog configuration: configured once, at the edge (`daide serve`).

One line per event that matters.  JSON lines when the output is not a
terminal (for machines), a readable key=value console format when it is.
Context is bound per trio task (``conn``/``peer`` in a connection task,
``game`` in a game task) with `structlog.contextvars`, which trio copies
into every task it starts.

Passcodes are never logged in clear: `redact_secrets` masks any event key
that names a secret, wherever a log call comes from.
"""

from __future__ import annotations

import json as jsonlib
import logging
import sys
import time
from collections.abc import MutableMapping
from typing import Any, TextIO

import structlog

#: Event keys whose values are secrets (masked by `redact_secrets`).
SECRET_KEYS = frozenset({"passcode", "passcodes", "password", "secret"})


def redact_secrets(_logger: Any, _name: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """structlog processor: replace secret values by ``"***"``."""
    for key in SECRET_KEYS.intersection(event):
        event[key] = "***"
    return event


class UtcTimestamp:
    """structlog processor: ``timestamp`` exactly as ``TimeStamper(fmt="iso", utc=True)``
    writes it (``2026-11-25T21:59:06.123456Z``; no fraction on a whole second).

    The server writes a line per phase of every game: the date and time of
    day are formatted once per second, not through a `datetime` per line.
    """

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""

    def __call__(self, _logger: Any, _name: str,
                 event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        event["timestamp"] = self.now()
        return event

    def now(self) -> str:
        """The timestamp of this moment."""
        now = time.time_ns() // 1000                    # microseconds, as datetime keeps them
        second, micro = divmod(now, 1_000_000)
        if second != self._second:
            self._second = second
            self._prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self._prefix}.{micro:06d}Z" if micro else f"{self._prefix}Z"


class LineFields(UtcTimestamp):
    """structlog processor: what every line gets, in one call - ``level``
    (as `structlog.processors.add_log_level` names it), ``timestamp``
    (`UtcTimestamp`), secrets masked (`redact_secrets`) and an exception
    rendered (`structlog.processors.format_exc_info`, when there is one),
    in that order.

    The server writes a line per phase of every game: one processor call
    instead of four.
    """

    def __call__(self, logger: Any, name: str,
                 event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        # add_log_level's names: warn is an alias, exception() logs an error
        event["level"] = "warning" if name == "warn" else "error" if name == "exception" else name
        event["timestamp"] = self.now()
        if not SECRET_KEYS.isdisjoint(event):
            redact_secrets(logger, name, event)
        if "exc_info" in event:
            return structlog.processors.format_exc_info(logger, name, event)
        return event


def _json_fallback(obj: Any) -> Any:
    """What JSON cannot hold: its ``__structlog__()`` if it has one, else its repr
    (structlog's own rule)."""
    custom = getattr(obj, "__structlog__", None)
    return custom() if custom is not None else repr(obj)


#: one encoder for every line (``json.dumps`` with options builds one per call)
_ENCODER = jsonlib.JSONEncoder(default=_json_fallback)


def render_json(_logger: Any, _name: str, event: MutableMapping[str, Any]) -> str:
    """structlog processor: the line, as `structlog.processors.JSONRenderer`
    with `_json_fallback` writes it."""
    return _ENCODER.encode(event)


def configure_logging(stream: TextIO | None = None, *, json: bool | None = None,
                      level: int = logging.INFO) -> None:
    """Configure structlog for the server process.

    ``json=None`` chooses JSON when ``stream`` is not a terminal.
    """
    out = stream if stream is not None else sys.stderr
    if json is None:
        json = not (hasattr(out, "isatty") and out.isatty())
    renderer: Any = render_json if json else structlog.dev.ConsoleRenderer(colors=False)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            LineFields(),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        # one write and flush per line, as print() did, without print()
        logger_factory=structlog.WriteLoggerFactory(out),
        # not cached: a process may configure again (a tournament worker per game)
        cache_logger_on_first_use=False,
    )
