"""One server per database: an OS file lock held for the server's lifetime.

Two servers on one database file would both resume its running games and
both write them.  `acquire` takes an exclusive ``flock`` on
``PATH.lock`` (beside the database) and writes the holder's pid into it;
a second server gets `DatabaseInUse` ("PATH is in use by another server
(pid N)") and does not start.

Why ``flock`` on a file of its own:

* the kernel drops the lock when its holder dies, however it dies (SIGKILL,
  power cut), so a stale file never blocks the next start - there is no pid
  to check for liveness, and no pid reuse to be fooled by;
* ``flock`` belongs to the open file, not the process: another open of the
  same file in the same process (a web API listing the games with
  `holder_pid`) sees the lock too and cannot release it, unlike POSIX
  ``fcntl`` record locks, which a process loses when it closes *any*
  descriptor of the file;
* a file of its own, not the database: SQLite takes its own record locks
  on the database, and where ``flock`` is emulated with record locks (NFS)
  the two would meet.

The file is removed when the lock is released.  A starter that opened the
file just before it was removed would lock a file nobody can find, so the
lock is only taken once the locked file is still the one at the path
(same inode); otherwise it tries again.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

import trio

from server.store import StoreError

WAIT_SECONDS = 2.0
"""How long `acquire` retries a lock that is in use before giving up."""
_RETRY_STEP = 0.02


class DatabaseLockError(StoreError):
    """The database cannot be locked for this server: one line saying why."""


class DatabaseInUse(DatabaseLockError):
    """Another live process holds the database's lock."""

    def __init__(self, db_path: Path, pid: int | None) -> None:
        who = f"pid {pid}" if pid is not None else "pid unknown"
        super().__init__(f"{db_path} is in use by another server ({who})")
        self.db_path = db_path
        self.pid = pid


def lock_path(db_path: Path | str) -> Path:
    """Where the lock of the database ``db_path`` lives: ``PATH.lock``."""
    path = Path(db_path)
    return path.with_name(path.name + ".lock")


def needs_lock(db_path: Path | str) -> bool:
    """False for SQLite's in-memory databases (nothing to share)."""
    text = str(db_path)
    return text != "" and text != ":memory:" and "mode=memory" not in text


class DatabaseLock:
    """The held lock of one database; `release` (or process death) frees it."""

    def __init__(self, db_path: Path, fd: int) -> None:
        self.db_path = db_path
        self.path = lock_path(db_path)
        self._fd: int | None = fd

    @classmethod
    def try_acquire(cls, db_path: Path | str) -> DatabaseLock:
        """Lock ``db_path`` for this process, or fail at once.

        `DatabaseInUse` if a live server holds it; `DatabaseLockError` (one
        line: "cannot create PATH: ...") if the lock file cannot be created,
        e.g. in a read-only or missing directory.
        """
        db = Path(db_path)
        path = lock_path(db)
        while True:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                raise DatabaseLockError(f"cannot create {db}: {_why(exc, path)}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise DatabaseInUse(db, _read_pid(path)) from None
            except BaseException:
                os.close(fd)
                raise
            if _same_file(fd, path):
                break
            os.close(fd)            # removed by its last holder meanwhile: take the new one
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return cls(db, fd)

    def release(self) -> None:
        """Remove the lock file and drop the lock (idempotent)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            if _same_file(fd, self.path):
                os.unlink(self.path)       # while still locked: see the module doc
        except OSError:
            pass
        finally:
            os.close(fd)

    def __enter__(self) -> DatabaseLock:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


async def acquire(db_path: Path | str, *, wait: float = WAIT_SECONDS) -> DatabaseLock:
    """`DatabaseLock.try_acquire`, retried for up to ``wait`` seconds while in use.

    The wait covers a server of this process that is still shutting down
    (a restart) and a reader's momentary shared lock (`holder_pid`); a
    server that keeps the lock longer is really in use.
    """
    deadline = trio.current_time() + wait
    while True:
        try:
            return DatabaseLock.try_acquire(db_path)
        except DatabaseInUse:
            if trio.current_time() >= deadline:
                raise
        await trio.sleep(_RETRY_STEP)


def holder_pid(db_path: Path | str) -> int | None:
    """The pid of the server holding ``db_path``'s lock, None if no server holds it.

    Read-only: never creates the lock file.  A holder whose pid cannot be
    read (it is just writing it) is reported as 0.
    """
    path = lock_path(db_path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None                 # no file: no server (a holder keeps its file)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(path)
            return pid if pid is not None else 0
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _read_pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def _why(exc: OSError, path: Path) -> str:
    directory = path.parent
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return f"the directory {directory} is read-only ({exc.strerror})"
    if exc.errno == errno.ENOENT:
        return f"there is no directory {directory}"
    if exc.errno == errno.ENOTDIR:
        return f"{directory} is not a directory"
    return exc.strerror or str(exc)
