"""ChangeLog: what the sessions of one run changed, so a session whose cache is older reads again."""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxchat.store import Store

MEMORY = "memory"
"""The log's key for memory entries (a global entry belongs to every conversation)."""


class ChangeLog:
    """A count of changes per conversation (and one for memory), shared by every session
    on one open store (`ChangeLog.of`).

    Opening a conversation again makes a new session while the old one may still be
    writing (a reply streaming, a summary folding, a variant asked of another profile):
    each session compares the count it last saw with the log's, and reads the store again
    when another session moved it. What other processes write, `Store.data_version` tells.
    """

    @classmethod
    def of(cls, store: Store) -> ChangeLog:
        """The log every session on `store` shares."""
        with _LOGS_LOCK:
            log = _LOGS.get(store)
            if log is None:
                log = _LOGS[store] = cls()
            return log

    def __init__(self) -> None:
        self._counts: dict[int | str, int] = {}
        self._total = 0
        self._lock = threading.Lock()

    def count(self, key: int | str) -> int:
        """How many changes were made to `key` (a conversation's id, or MEMORY)."""
        return self._counts.get(key, 0)

    def total(self) -> int:
        """How many changes were made to anything (recall across conversations reads again)."""
        return self._total

    def changed(self, key: int | str) -> int:
        """Note one more change to `key`; the count after it."""
        with self._lock:
            count = self._counts[key] = self._counts.get(key, 0) + 1
            self._total += 1
            return count


_LOGS: weakref.WeakKeyDictionary[Store, ChangeLog] = weakref.WeakKeyDictionary()
_LOGS_LOCK = threading.Lock()
