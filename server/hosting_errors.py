"""The one error of the host's operations (`server.hosting`), and its HTTP statuses."""

from __future__ import annotations

#: HTTP statuses of `HostingError` (the API answers with them; the CLI prints the message).
BAD_REQUEST, UNAUTHORIZED, NOT_FOUND, CONFLICT, UNAVAILABLE = 400, 401, 404, 409, 503


class HostingError(Exception):
    """An operation refused: one sentence saying why; nothing was changed."""

    def __init__(self, message: str, status: int = BAD_REQUEST) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
