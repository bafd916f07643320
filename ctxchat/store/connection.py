"""Opening the database file safely: checks, pragmas, migrations, and errors in plain words."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ctxchat.store.errors import CorruptDatabase, StoreError
from ctxchat.store.schema import check_ownership, migrate

SQLITE_HEADER = b"SQLite format 3\x00"
HEADER_SIZE = 100
BUSY_TIMEOUT_MS = 10_000


def connect(path: Path) -> sqlite3.Connection:
    """A configured, migrated connection to the database at `path` (created if missing)."""
    _prepare_file(path)
    try:
        conn = sqlite3.connect(
            path,
            isolation_level=None,  # transactions are explicit: BEGIN IMMEDIATE … COMMIT
            check_same_thread=False,  # the store serializes access with its own lock
            timeout=BUSY_TIMEOUT_MS / 1000,
        )
    except sqlite3.Error as exc:
        raise translate(exc, path) or StoreError(f"Cannot open {path}: {exc}.") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # Before any pragma that writes (journal_mode changes the file's header): another
        # program's database, or one from a newer ctxchat, is refused byte-identical.
        check_ownership(conn, path)
        _configure(conn)
        _check_integrity(conn, path)
        migrate(conn, path)
    except sqlite3.Error as exc:
        conn.close()
        raise translate(exc, path) or StoreError(f"Cannot open {path}: {exc}.") from exc
    except BaseException:
        conn.close()
        raise
    return conn


def translate(exc: sqlite3.Error, path: Path) -> StoreError | None:
    """The user-facing error for an SQLite failure, or None for a programming error."""
    primary = getattr(exc, "sqlite_errorcode", -1) & 0xFF
    text = str(exc)
    if primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB) or (
        "malformed" in text or "not a database" in text
    ):
        return CorruptDatabase(path, text)
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        seconds = BUSY_TIMEOUT_MS // 1000
        return StoreError(
            f"{path} stayed locked by another program for more than {seconds} seconds; try again."
        )
    if primary == sqlite3.SQLITE_FULL:
        return StoreError(f"Could not write to {path}: the disk is full.")
    if primary in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN):
        return StoreError(f"Cannot write to {path} ({text}); check its permissions.")
    if primary == sqlite3.SQLITE_IOERR:
        return StoreError(f"The disk failed reading or writing {path} ({text}).")
    return None


def _prepare_file(path: Path) -> None:
    """Create the private data directory and file; recognize a file that is not SQLite."""
    if path.exists() and not path.is_file():
        raise StoreError(f"{path} is not a file; choose another place for the database.")
    try:
        # Conversations are private: the directory we create is the user's alone.
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        with path.open("rb") as file:
            header = file.read(HEADER_SIZE)
    except OSError as exc:
        raise StoreError(f"Cannot open {path}: {exc.strerror or exc}.") from exc
    if not header:
        return  # a new, empty file: SQLite makes it a database
    magic = header[: len(SQLITE_HEADER)]
    if magic != SQLITE_HEADER[: len(magic)]:
        raise CorruptDatabase(path, "it is not an SQLite database")
    if len(header) < HEADER_SIZE:
        raise CorruptDatabase(path, "the file is cut short")


def _configure(conn: sqlite3.Connection) -> None:
    # Only takes effect on a new file, and only before journal_mode: lets deletes give the
    # space back (PRAGMA incremental_vacuum) without rewriting the whole file.
    conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
    # WAL lets a reader (a CLI export) and a writer (the TUI) work at the same time. Where the
    # file system cannot do WAL (some network mounts) SQLite keeps its rollback journal.
    conn.execute("PRAGMA journal_mode = WAL").fetchall()
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    # Deleted text is overwritten with zeros, so a deleted conversation is gone from the file.
    conn.execute("PRAGMA secure_delete = ON")
    conn.create_function("ctx_fold", 1, _fold, deterministic=True)


def _fold(text: str | None) -> str | None:
    # SQLite's LIKE and lower() only know ASCII; search must match Привет with привет too.
    return None if text is None else text.casefold()


def _check_integrity(conn: sqlite3.Connection, path: Path) -> None:
    # quick_check reads every page once (tens of milliseconds for a large history) and
    # catches a truncated or overwritten file before it fails halfway through a session.
    result = conn.execute("PRAGMA quick_check(1)").fetchone()
    if result is None or result[0] != "ok":
        detail = "damaged" if result is None else f"damaged: {result[0]}"
        raise CorruptDatabase(path, detail)
