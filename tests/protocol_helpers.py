"""What the protocol's reader tests share: a message's outcome - the message, or the
error it raised, by type, text and tokens (their ``rep`` fixture is in conftest.py)."""

from __future__ import annotations

from collections.abc import Callable

from protocol.errors import ProtocolError


def outcome(call: Callable[..., object], *args: object, **kwargs: object) -> object:
    """What ``call`` returns, or its protocol error as ``(type, text, tokens)``."""
    try:
        return call(*args, **kwargs)
    except ProtocolError as exc:
        return (type(exc).__name__, str(exc), getattr(exc, "tokens", None))
