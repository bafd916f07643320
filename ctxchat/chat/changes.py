"""ChangeLog: what the sessions of one run changed, so a session whose cache is older reads again."""

from __future__ import annotations

import threading

MEMORY = "memory"
"""The log's key for memory entries (a global entry belongs to every conversation)."""


class ChangeLog:
    """A count of changes per conversation (and one for memory), shared by every session
    made from one another (`ChatSession.for_conversation`).

    Opening a conversation again makes a new session while the old one may still be
    writing (a reply streaming, a summary folding): each session compares the count it
    last saw with the log's, and reads the store again when another session moved it.
    """

    def __init__(self) -> None:
        self._counts: dict[int | str, int] = {}
        self._lock = threading.Lock()

    def count(self, key: int | str) -> int:
        """How many changes were made to `key` (a conversation's id, or MEMORY)."""
        return self._counts.get(key, 0)

    def changed(self, key: int | str) -> int:
        """Note one more change to `key`; the count after it."""
        with self._lock:
            count = self._counts[key] = self._counts.get(key, 0) + 1
            return count
