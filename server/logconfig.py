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

import logging
import sys
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


def configure_logging(stream: TextIO | None = None, *, json: bool | None = None,
                      level: int = logging.INFO) -> None:
    """Configure structlog for the server process.

    ``json=None`` chooses JSON when ``stream`` is not a terminal.
    """
    out = stream if stream is not None else sys.stderr
    if json is None:
        json = not (hasattr(out, "isatty") and out.isatty())
    renderer: Any = (structlog.processors.JSONRenderer(sort_keys=False) if json
                     else structlog.dev.ConsoleRenderer(colors=False))
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            redact_secrets,
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(out),
        cache_logger_on_first_use=False,
    )
