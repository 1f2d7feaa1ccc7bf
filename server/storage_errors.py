"""The storage's errors: an unusable database, and a write the storage refused.

A refused write - disk full, a read-only file, an I/O error - is the
storage's fault, not the data's: the store latches it (`StorageFailure`,
`server.store.Store.fail`) and writes nothing more, so the database and
the journal keep the last state written whole (docs/hardening.md).  These
functions name the reason, alike for SQLite's errors and the journal's.
"""

from __future__ import annotations

import errno
import sqlite3


class StoreError(Exception):
    """The database is unusable (wrong schema, unknown game, ...)."""


class StorageFailure(StoreError):
    """A write failed because of the storage: disk full, read-only, I/O error.

    The first one latches the store (`server.store.Store.failure`): every
    later write fails at once, without touching the file, so the database
    keeps the last state that was committed whole and a restart resumes from it.
    """


#: SQLite result codes that mean the storage, not the data, is at fault.
_STORAGE_ERRORS = {
    "SQLITE_FULL": "disk full",
    "SQLITE_READONLY": "database is read-only",
    "SQLITE_IOERR": "disk I/O error",
    "SQLITE_CANTOPEN": "database file cannot be opened",
    "SQLITE_PERM": "no permission to write the database",
    "SQLITE_CORRUPT": "database file is corrupt",
    "SQLITE_NOTADB": "not a database file",
}

#: The same for the journal's system calls (`OSError.errno`); any other is an I/O error.
_OS_ERRORS = {
    errno.ENOSPC: "disk full",
    errno.EDQUOT: "disk full",
    errno.EROFS: "database is read-only",
    errno.EACCES: "no permission to write the database",
    errno.EPERM: "no permission to write the database",
}


def storage_reason(exc: sqlite3.Error) -> str | None:
    """A short reason if ``exc`` is a storage failure (see `StorageFailure`), else None."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    for prefix, reason in _STORAGE_ERRORS.items():
        if name == prefix or name.startswith(prefix + "_"):
            return reason
    return None


def failure_reason(exc: OSError, path: str) -> str:
    """The reason of a failed write of the file ``path`` (the journal), worded like
    `storage_reason`'s."""
    kind = _OS_ERRORS.get(exc.errno or 0, "disk I/O error")
    return f"{kind} ({path}: {exc.strerror or exc})"
