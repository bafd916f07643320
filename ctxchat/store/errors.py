"""What can go wrong with the database, each said in one sentence a user can act on."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

# SQLite keeps a write-ahead log and a shared-memory index beside the database; they belong to
# it and move with it.
SIDECARS = ("-wal", "-shm", "-journal")


class StoreError(Exception):
    """A storage problem; `str()` is one clear sentence for the user."""


class InvalidValue(StoreError, ValueError):
    """A value the store refuses (an unknown kind, importance out of range, an empty text)."""


class NotFound(StoreError, LookupError):
    """No row with that id (it was deleted, or never existed)."""

    def __init__(self, what: str, id: int) -> None:
        super().__init__(f"No {what} with id {id}.")
        self.what = what
        self.id = id


class CorruptDatabase(StoreError):
    """The database file is damaged or is not an SQLite database at all."""

    def __init__(self, path: Path, detail: str = "") -> None:
        reason = f" ({detail})" if detail else ""
        super().__init__(
            f"{path} is not a readable ctxchat database{reason}. Run `ctxchat db move-aside` "
            f"to rename it to {path.name}.corrupt-<timestamp> and start a new one, "
            "or restore it from a backup."
        )
        self.path = path
        self.detail = detail


class NewerSchema(StoreError):
    """The database was written by a newer ctxchat; opening it here could damage it."""

    def __init__(self, path: Path, found: int, supported: int) -> None:
        super().__init__(
            f"{path} was written by a newer version of ctxchat (database schema {found}, this "
            f"version understands up to {supported}); upgrade ctxchat to open it."
        )
        self.path = path
        self.found = found
        self.supported = supported


def move_aside(path: Path, *, now: datetime | None = None) -> Path:
    """Rename a damaged database (and its -wal/-shm files) out of the way; returns the new path.

    Only call this when the user agreed: the file may still hold what they want to recover.
    """
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    serial = 1
    while target.exists() or any(Path(f"{target}{s}").exists() for s in SIDECARS):
        serial += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{serial}")
    os.replace(path, target)
    for suffix in SIDECARS:
        sidecar = Path(f"{path}{suffix}")
        if sidecar.exists():
            # Named after the new file so SQLite still pairs them if someone opens it to recover.
            os.replace(sidecar, Path(f"{target}{suffix}"))
    return target
