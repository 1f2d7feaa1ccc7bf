"""The output directory of a command, checked before any work is done.

`daide demo --out DIR` plays a whole game before it writes the record, and
`daide export --out DIR` reads a whole game first: a directory that cannot
be written must be named at once, not after the work (and not as a
traceback).  Permission bits alone cannot tell (root writes anywhere a mode
forbids; a read-only or immutable file system refuses even root), so the
check writes and removes a probe file.
"""

from __future__ import annotations

import errno
import tempfile
from pathlib import Path

from daide.errors import CommandError


def writable_dir(path: Path) -> Path:
    """``path``, created if missing, once a file could be written in it.

    CommandError (one line naming ``path`` and the reason) otherwise.
    """
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise CommandError(f"cannot use {path}: it is a file, not a directory") from None
    except OSError as exc:
        raise CommandError(f"cannot create {path}: {reason(exc)}") from None
    try:
        with tempfile.NamedTemporaryFile(dir=path, prefix=".daide-probe-"):
            pass
    except OSError as exc:
        raise CommandError(f"cannot write in {path}: {reason(exc)}") from None
    return path


def reason(exc: OSError) -> str:
    """A short, plain reason for a file system error."""
    if exc.errno == errno.ENOTDIR:
        return "a part of the path is a file, not a directory"
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return f"read-only ({exc.strerror})"
    return exc.strerror or str(exc)
