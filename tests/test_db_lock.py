"""One server per database (server.lock): a second server refuses to start,
and a lock left by a killed server never blocks the next one."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
import trio

from server.lock import DatabaseInUse, DatabaseLock, acquire, holder_pid, lock_path, needs_lock
from tests.cli_helpers import daide, one_error_line, serving


def test_a_second_lock_on_one_database_is_refused_and_names_the_holder(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    assert holder_pid(db) is None
    first = DatabaseLock.try_acquire(db)
    try:
        assert holder_pid(db) == os.getpid()
        # flock belongs to the open file: another open in this process is refused too
        with pytest.raises(DatabaseInUse) as refused:
            DatabaseLock.try_acquire(db)
        assert str(refused.value) == f"{db} is in use by another server (pid {os.getpid()})"
    finally:
        first.release()
    assert not lock_path(db).exists()          # released: no file left behind
    assert holder_pid(db) is None
    with DatabaseLock.try_acquire(db):         # and free for the next one
        assert lock_path(db).read_text() == f"{os.getpid()}\n"


async def test_acquire_waits_for_a_server_that_is_shutting_down(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    old = DatabaseLock.try_acquire(db)

    async def shut_down_soon() -> None:
        await trio.sleep(0.2)
        old.release()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(shut_down_soon)
        new = await acquire(db, wait=5)
    new.release()
    held = DatabaseLock.try_acquire(db)
    try:
        with pytest.raises(DatabaseInUse):
            await acquire(db, wait=0.1)
    finally:
        held.release()


def test_in_memory_databases_need_no_lock() -> None:
    assert not needs_lock(":memory:")
    assert needs_lock("daide-server.db")


def test_a_second_server_refuses_the_database_and_a_killed_one_does_not_block(
        tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    with serving(db) as (first, _port):
        done = daide("serve", "--port", "0", "--db", str(db))
        assert done.returncode == 1
        assert one_error_line(done, "serve") == (
            f"daide serve: error: {db} is in use by another server (pid {first.pid})")
        first.send_signal(signal.SIGKILL)         # no chance to release anything
        first.wait(timeout=30)
    assert lock_path(db).exists()                  # the file stays; the lock went with the process
    assert holder_pid(db) is None
    with serving(db) as (again, _port):
        assert holder_pid(db) == again.pid
    assert again.returncode == 0                   # stopped with SIGTERM, cleanly
    assert not lock_path(db).exists()
