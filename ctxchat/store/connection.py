"""Opening the database file safely: checks, pragmas, migrations, and errors in plain words."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections import Counter
from pathlib import Path

from ctxchat.store.errors import SIDECARS, CorruptDatabase, StoreError
from ctxchat.store.schema import check_ownership, migrate

SQLITE_HEADER = b"SQLite format 3\x00"
HEADER_SIZE = 100
BUSY_TIMEOUT_MS = 10_000

# The database files this process holds a connection to, by (device, inode), with how many.
# POSIX advisory locks belong to the process: closing *any* descriptor of a file drops every
# lock the process holds on it, its open SQLite connections' included (SQLite's "How To
# Corrupt An SQLite Database File", 2.2). Another process then takes itself for the last
# connection and checkpoints and deletes the write-ahead log under ours, and what we write
# afterwards reaches a deleted file. So ctxchat itself opens a database file by path only
# while no connection of this process has it open; SQLite's own opens are safe (it shares
# one descriptor per file across a process's connections and defers closing it).
_open_files: Counter[tuple[int, int]] = Counter()
_open_paths: dict[tuple[int, int], Path] = {}  # where each of them was opened from
_open_files_lock = threading.Lock()


def connect(path: Path) -> sqlite3.Connection:
    """A configured, migrated connection to the database at `path` (created if missing).

    Close it with `disconnect`, so the process knows the file has one connection fewer."""
    with _open_files_lock:
        # Under the lock: a thread opening the same file meanwhile must not check it by path
        # while this connection is being made.
        if _file_key(path) not in _open_files:
            _prepare_file(path)
        conn = _open(path)
        key = _file_key(path)
        if key is not None:
            _open_files[key] += 1
            _open_paths.setdefault(key, path)
    try:
        _set_up(conn, path)
    except BaseException:
        disconnect(conn, key)
        raise
    return conn


def disconnect(conn: sqlite3.Connection, key: tuple[int, int] | None) -> None:
    """Close a connection made by `connect` (once), `key` being its file's `file_key`."""
    with _open_files_lock:
        conn.close()
        if key is not None and _open_files[key] > 0:
            _open_files[key] -= 1
            if not _open_files[key]:
                del _open_files[key]
                _open_paths.pop(key, None)


def file_key(path: Path) -> tuple[int, int] | None:
    """What identifies the database file at `path` for `disconnect` (stat opens nothing)."""
    return _file_key(path)


def open_in_this_process(path: Path) -> bool:
    """Whether a connection of this process has the database file at `path` open."""
    with _open_files_lock:
        return _file_key(path) in _open_files


def is_database_file(path: Path | str, database: Path | None = None) -> bool:
    """Whether `path` is a database file this process has a connection to (or `database`), or
    one of its -wal, -shm or -journal files: a file ctxchat must never open by path for
    reading or writing (by stat: opens nothing)."""
    key = _file_key(Path(path))
    if key is None:
        return False
    with _open_files_lock:
        databases = list(_open_paths.values())
    if database is not None:
        databases.append(database)
    return any(
        key == _file_key(Path(f"{base}{suffix}"))
        for base in databases
        for suffix in ("", *SIDECARS)
    )


def _file_key(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def _open(path: Path) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(
            path,
            isolation_level=None,  # transactions are explicit: BEGIN IMMEDIATE … COMMIT
            check_same_thread=False,  # the store serializes access with its own lock
            timeout=BUSY_TIMEOUT_MS / 1000,
        )
    except sqlite3.Error as exc:
        raise translate(exc, path) or StoreError(f"Cannot open {path}: {exc}.") from exc
    return conn


def _set_up(conn: sqlite3.Connection, path: Path) -> None:
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # Before any pragma that writes (journal_mode changes the file's header): another
        # program's database, or one from a newer ctxchat, is refused byte-identical.
        check_ownership(conn, path)
        _configure(conn)
        _check_integrity(conn, path)
        migrate(conn, path)
    except sqlite3.Error as exc:
        raise translate(exc, path) or StoreError(f"Cannot open {path}: {exc}.") from exc


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
    """Create the private data directory and file; recognize a file that is not SQLite.

    Opens the file by path: only while no connection of this process has it open."""
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
