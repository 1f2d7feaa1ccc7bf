"""The admin token: the one secret that opens the host's doors (docs/hosting.md).

Every admin door - the HTTP API (`server.admin_api`, what ``daide game`` and
the admin page use) and the DAIDE admin messages - checks it with
`AdminToken.authorize` before it calls `server.hosting.Host`.

* **Where it lives.**  A file beside the database, ``<db>.admin-token``
  (`token_path`: ``./daide-server.db.admin-token`` by default), created at the
  server's first start with mode 0600 and read at every later start; or the
  file ``daide serve --admin-token-file PATH`` names (created the same way if
  it is missing).  The file's path is logged; the token never is.  A server on
  an in-memory database without ``--admin-token-file`` has nowhere to put it:
  its token lives in memory only (`AdminToken.for_server`).
* **What it is.**  ``secrets.token_urlsafe(32)``: 256 random bits in 43
  characters.  An operator's own file holds one line of at least
  `MIN_LENGTH` visible ASCII characters (it travels in an HTTP header).
* **Checking.**  In constant time (`secrets.compare_digest`), so the time an
  answer takes says nothing about how much of a guess was right.  A wrong
  token counts as a wrong passcode of its address in the server's
  `server.limits.IamGuard` (the IAM one, docs/protocol.md §13.2): after
  ``iam_failures_per_address`` of them within the window, every admin request
  and every IAM of that address is refused unchecked for a block that doubles
  each time.  A request without a token guesses nothing and is not counted.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from server.hosting_terms import UNAUTHORIZED, HostingError
from server.lock import needs_lock

if TYPE_CHECKING:
    from server.limits import IamGuard
    from server.settings import ServerSettings

log = structlog.get_logger("server.admin_token")

#: Shortest token an operator's own file may hold (a generated one has 43 characters).
MIN_LENGTH = 16
#: Longest token read (more is not a token file).
MAX_LENGTH = 512
#: The HTTP status of a request refused unchecked while its address is blocked.
TOO_MANY = 429


class AdminTokenError(Exception):
    """The token file cannot be created or read, or holds no usable token (one line)."""


def token_path(db_path: Path | str) -> Path:
    """The token file beside a database: ``<db>.admin-token``."""
    path = Path(db_path)
    return path.with_name(path.name + ".admin-token")


def _usable(text: str) -> bool:
    return (MIN_LENGTH <= len(text) <= MAX_LENGTH and text.isascii()
            and all(c.isprintable() and not c.isspace() for c in text))


class AdminToken:
    """The server's admin token (see the module doc); ``path`` None: kept in memory only."""

    def __init__(self, secret: str, path: Path | None = None) -> None:
        if not _usable(secret):
            raise AdminTokenError(f"an admin token is {MIN_LENGTH} to {MAX_LENGTH} visible "
                                  "ASCII characters without spaces")
        self._secret = secret.encode("ascii")
        self.path = path

    def __repr__(self) -> str:           # never the secret, whatever prints the object
        return f"AdminToken(path={str(self.path) if self.path else None!r})"

    @property
    def secret(self) -> str:
        """The token itself (for the embedding program or a test; never logged)."""
        return self._secret.decode("ascii")

    @classmethod
    def for_server(cls, settings: ServerSettings) -> AdminToken:
        """The token of a server: ``--admin-token-file``, else the file beside its
        database, else (an in-memory database) one kept in memory."""
        if settings.admin_token_file is not None:
            return cls.load_or_create(settings.admin_token_file)
        if not needs_lock(settings.db_path):          # ":memory:": no directory to write in
            log.info("admin_token_in_memory")
            return cls(secrets.token_urlsafe(32))
        return cls.load_or_create(token_path(settings.db_path))

    @classmethod
    def load_or_create(cls, path: Path) -> AdminToken:
        """Read the token file, or create it (mode 0600) with a new random token.

        Raises `AdminTokenError` with one line naming the file if it cannot be
        created or read, or holds no usable token."""
        try:
            token = cls._create(path)
            created = token is not None
            if token is None:
                token = cls._read(path)
        except OSError as exc:
            raise AdminTokenError(f"admin token file {path}: {exc.strerror or exc}") from None
        log.info("admin_token", path=str(path), created=created)
        return token

    @classmethod
    def _create(cls, path: Path) -> AdminToken | None:
        """A new token written to a new file; None if the file already exists."""
        secret = secrets.token_urlsafe(32)
        try:
            # O_EXCL: never overwrite a token someone already uses; 0600 from the
            # first instant, so no other user can read it even briefly.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return None
        try:
            os.write(fd, (secret + "\n").encode("ascii"))
            os.fsync(fd)
        except OSError:
            os.close(fd)
            path.unlink(missing_ok=True)      # no half-written token left for the next start
            raise
        os.close(fd)
        return cls(secret, path)

    @classmethod
    def _read(cls, path: Path) -> AdminToken:
        with open(path, "rb") as file:
            mode = os.fstat(file.fileno()).st_mode
            data = file.read(MAX_LENGTH + 2)
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            # The operator's own choice; said once, at start (chmod 600 to silence it).
            log.warning("admin_token_readable_by_others", path=str(path),
                        mode=f"{stat.S_IMODE(mode):04o}")
        try:
            text = data.decode("ascii").strip()
        except UnicodeDecodeError:
            text = ""
        if not _usable(text):
            raise AdminTokenError(f"admin token file {path} holds no token: one line of "
                                  f"{MIN_LENGTH} to {MAX_LENGTH} visible ASCII characters")
        return cls(text, path)

    def matches(self, text: str | None) -> bool:
        """True if ``text`` is the token; in constant time for tokens of its length."""
        if text is None:
            return False
        return secrets.compare_digest(text.encode("utf-8", "replace"), self._secret)

    def authorize(self, presented: str | None, guard: IamGuard, address: str,
                  now: float) -> None:
        """Let a door's request through, or raise `HostingError`: 429 while the address
        is blocked (unchecked, as an IAM), 401 without a token or with a wrong one (which
        counts towards the block; see the module doc)."""
        if guard.blocked(address, now):
            raise HostingError("too many wrong passcodes or admin tokens from this address: "
                               "wait", TOO_MANY)
        if not presented:
            raise HostingError("this needs the admin token", UNAUTHORIZED)
        if not self.matches(presented):
            guard.failed(address, now)
            log.warning("admin_token_refused", address=address)
            raise HostingError("wrong admin token", UNAUTHORIZED)
