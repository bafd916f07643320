"""The connection a store holds: one lock, write transactions, consistent reads, plain errors."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Self

from ctxchat.store.connection import BUSY_TIMEOUT_MS, disconnect, file_key, translate

# How long deleting a conversation waits for other processes' readers to finish before it
# leaves emptying the write-ahead log to a later moment.
CHECKPOINT_WAIT = 1.0


class Database:
    """Owns one SQLite connection; every statement runs under its lock.

    The TUI calls the store from its event loop and workers may call it from threads, so
    access is serialized here rather than trusting SQLite's own mutex with open transactions.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, clock: Callable[[], float]) -> None:
        self.path = path
        self._conn = conn
        self._clock = clock
        self._lock = threading.RLock()
        self._depth = 0  # nesting of write transactions on this connection
        self._file = file_key(path)
        self._closed = False

    def now(self) -> float:
        """Seconds since the epoch, as stored in every timestamp column."""
        return self._clock()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: `BEGIN IMMEDIATE` … `COMMIT`, rolled back on any error.

        Taking the write lock up front means a transaction never has to upgrade a read lock
        later, the case where SQLite gives up with "database is locked" instead of waiting.
        Nested transactions become savepoints, so a batch (an import, a benchmark) can wrap
        many single-row writes in one commit.
        """
        with self._lock:
            conn = self._conn
            depth = self._depth
            if depth == 0 and conn.in_transaction:
                # Upgrading a read to a write is how SQLite ends up "locked": refuse it here.
                raise RuntimeError("a write transaction cannot start inside reading()")
            with self._translated():
                conn.execute("BEGIN IMMEDIATE" if depth == 0 else f"SAVEPOINT nested{depth}")
            self._depth = depth + 1
            try:
                with self._translated():
                    yield conn
            except BaseException:
                self._depth = depth
                self._undo(depth)
                raise
            self._depth = depth
            with self._translated():
                try:
                    conn.execute("COMMIT" if depth == 0 else f"RELEASE nested{depth}")
                except sqlite3.Error:
                    self._undo(depth)
                    raise

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """Reads that see one consistent state of the database, even across statements."""
        with self._lock:
            conn = self._conn
            if conn.in_transaction:
                with self._translated():
                    yield conn  # already inside a transaction: it is consistent
                return
            with self._translated():
                conn.execute("BEGIN")
            try:
                with self._translated():
                    yield conn
            finally:
                if conn.in_transaction:
                    with self._translated():
                        conn.execute("COMMIT")

    def _undo(self, depth: int) -> None:
        conn = self._conn
        if not conn.in_transaction:
            return  # SQLite already rolled back (a full disk, an I/O error)
        with self._translated():
            if depth == 0:
                conn.execute("ROLLBACK")
            else:
                conn.execute(f"ROLLBACK TO nested{depth}")
                conn.execute(f"RELEASE nested{depth}")

    @contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            error = translate(exc, self.path)
            if error is None:
                raise
            raise error from exc

    @contextmanager
    def waiting_briefly(self, wait_ms: int) -> Iterator[None]:
        """Inside it, a statement waits at most `wait_ms` for another process's write to
        end (StoreError then), instead of the usual seconds."""
        with self._lock:
            conn = self._conn
            conn.execute(f"PRAGMA busy_timeout = {wait_ms}")
            try:
                yield
            finally:
                conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    def data_version(self) -> int:
        """A number that changes whenever another connection (another process: a `ctxchat
        send` beside the TUI) commits to the database; this connection's own writes leave it.
        Cheap enough to ask before every plan."""
        with self._lock, self._translated():
            version: int = self._conn.execute("PRAGMA data_version").fetchone()[0]
            return version

    def reclaim_space(self) -> None:
        """Give the pages freed by deletes back to the file system (auto_vacuum=INCREMENTAL).

        Run as a script because each step of `PRAGMA incremental_vacuum` frees one page and
        `execute()` would take only the first step.
        """
        with self._lock, self._translated():
            if self._depth:
                return
            try:
                self._conn.executescript("BEGIN IMMEDIATE; PRAGMA incremental_vacuum; COMMIT;")
            finally:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")

    def checkpoint(self, wait: float = CHECKPOINT_WAIT) -> bool:
        """Copy the write-ahead log into the database and empty it, so deleted text that the
        log still held is gone from disk too; returns whether it was emptied.

        It waits up to `wait` seconds for readers in other processes; if one is still
        reading, the log is emptied by a later checkpoint or when the last connection closes.
        """
        with self._lock, self._translated():
            if self._depth:
                return False
            conn = self._conn
            conn.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
            try:
                busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            finally:
                conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            return not busy

    def takes_writes(self) -> bool:
        """Whether a write would begin now, asked without waiting: False while another
        program holds the database's write lock."""
        with self._lock:
            conn = self._conn
            if self._depth or conn.in_transaction:
                return True  # this connection is inside a transaction already
            with self._translated():
                conn.execute("PRAGMA busy_timeout = 0")
                try:
                    try:
                        conn.execute("BEGIN IMMEDIATE")
                    except sqlite3.OperationalError as exc:
                        code = getattr(exc, "sqlite_errorcode", -1) & 0xFF
                        if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                            return False
                        raise
                    conn.execute("ROLLBACK")
                    return True
                finally:
                    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    def close(self) -> None:
        """Close the connection (idempotent). The last connection to close also folds the
        write-ahead log into the database file."""
        with self._lock:
            # Closed already, or the file is in trouble: closing must still work.
            if self._closed:
                return
            self._closed = True
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA optimize")
            disconnect(self._conn, self._file)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
