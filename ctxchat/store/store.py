"""The SQLite store: opening the database and everything it keeps, behind one object."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from ctxchat.store.branches import BranchStore
from ctxchat.store.connection import connect
from ctxchat.store.counts import CountStore
from ctxchat.store.history_import import HistoryImportStore
from ctxchat.store.other_embeddings import OtherEmbeddingStore
from ctxchat.store.search import SearchStore
from ctxchat.store.server_counts import ServerCountStore
from ctxchat.store.server_learning import ServerLearningStore
from ctxchat.store.summary_jobs import SummaryJobStore


class Store(
    SearchStore,
    OtherEmbeddingStore,
    BranchStore,
    CountStore,
    ServerCountStore,
    ServerLearningStore,
    HistoryImportStore,
    SummaryJobStore,
):
    """ctxchat's database: conversations, messages, memory, summaries and reply plans.

    Open it with `Store.open(path)`; use it as a context manager or `close()` it. Every
    write is one `BEGIN IMMEDIATE` transaction; `transaction()` groups several.
    """

    interrupted_on_open: int = 0
    """How many replies a crashed process left streaming, marked interrupted by `open`."""

    @classmethod
    def open(cls, path: Path | str, *, clock: Callable[[], float] = time.time) -> Store:
        """Open (creating and migrating if needed) the database at `path`.

        Raises CorruptDatabase for a damaged or non-SQLite file, NewerSchema for a database
        from a newer ctxchat, StoreError for anything else that stops it (permissions).
        """
        path = Path(path).expanduser()
        store = cls(connect(path), path, clock)
        try:
            store.interrupted_on_open = store.interrupt_abandoned_replies()
            store.interrupt_abandoned_variants()
        except BaseException:
            store.close()
            raise
        return store
