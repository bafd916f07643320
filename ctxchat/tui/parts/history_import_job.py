"""The in-app import of another tool's history as a job: how far it got, cancelled whole."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ctxchat.chat.history_import import FileImport, import_file
from ctxchat.core.tokens import TokenCounter
from ctxchat.store import Store, StoreError
from ctxchat.store.history_import import ImportOutcome

__all__ = ["HistoryImport", "ImportCancelled"]


class ImportCancelled(Exception):
    """The import was cancelled: its transaction is rolled back, nothing of it is kept."""


@dataclass(eq=False)
class HistoryImport:
    """One file imported in a thread (`run`); `cancel` stops it at the next conversation,
    and nothing of it is kept, as the whole file is one transaction."""

    path: Path
    source: str | None
    database: Path
    counter: TokenCounter
    read: int = 0
    """Conversations read so far (stored, or there from an earlier import)."""
    cancelled: threading.Event = field(default_factory=threading.Event)
    ended: threading.Event = field(default_factory=threading.Event)
    """Set once its thread is done: committed, or rolled back."""

    def run(self, done: Callable[[FileImport], object], failed: Callable[[str], object]) -> None:
        """Import the file (in a thread), then `done(what came)`, or `failed(why)`; nothing
        when cancelled.

        A connection of its own: the whole file is one write transaction, and on the app's
        connection every read and write of the app would wait behind it (the store's lock)
        until the import ended; on its own, the app goes on reading meanwhile (WAL)."""
        try:
            self._import(done, failed)
        finally:
            self.ended.set()

    def _import(
        self, done: Callable[[FileImport], object], failed: Callable[[str], object]
    ) -> None:
        try:
            with Store.open(self.database) as store, store.transaction():
                imported = import_file(
                    store, self.path, counter=self.counter, source=self.source, progress=self._step
                )
                if self.cancelled.is_set():  # the last look before it is committed
                    raise ImportCancelled
        except ImportCancelled:
            return
        except StoreError as error:
            failed(str(error))
            return
        except OSError as error:
            failed(f"Cannot read {self.path}: {error.strerror or error}.")
            return
        done(imported)

    def cancel(self) -> None:
        self.cancelled.set()

    def progress(self) -> str:
        """How far it got, in words."""
        read = self.read
        return f"{read:,} conversation{'s' * (read != 1)} read"

    def _step(self, outcome: ImportOutcome) -> None:
        if self.cancelled.is_set():
            raise ImportCancelled
        self.read += 1
