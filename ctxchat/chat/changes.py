"""ChangeLog: what the sessions of one run changed, so a session whose cache is older reads again."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxchat.store import Store

MEMORY = "memory"
"""The log's key for memory entries (a global entry belongs to every conversation)."""


def plan_key(conversation_id: int | None) -> str:
    """The log's key for what changes a conversation's next request without changing what
    is stored of it (the mode, the model, the window, the server's counts, recall's vectors):
    nothing read needs reading again, but the plan is worth making again."""
    return f"plan {conversation_id or 0}"


Watcher = Callable[[int | str], object]
"""Told each key that changed, in the thread that changed it."""


class ChangeLog:
    """A count of changes per conversation (and one for memory), shared by every session
    on one open store (`ChangeLog.of`).

    Another session of the same conversation may be writing (a variant asked of another
    profile, a command's session in the same process; the app keeps one session per
    conversation otherwise): each session compares the count it last saw with the log's, and reads the store again
    when another session moved it. What other processes write, `Store.data_version` tells.

    It is also the version the app's planner watches (`watch`): every change to what a
    conversation's next request would hold, stored or not (`plan_changed`), is told here,
    so the plan on screen follows the state rather than calls to draw it again.
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
        self._watchers: list[Watcher] = []

    def count(self, key: int | str) -> int:
        """How many changes were made to `key` (a conversation's id, or MEMORY)."""
        return self._counts.get(key, 0)

    def total(self) -> int:
        """How many changes were made to anything (recall across conversations reads again)."""
        return self._total

    def changed(self, key: int | str) -> int:
        """Note one more change to `key`; the count after it. The watchers are told."""
        return self._note(key, stored=True)

    def plan_changed(self, conversation_id: int | None) -> None:
        """What `conversation_id`'s next request would hold changed, though nothing stored
        of it did (see `plan_key`): the watchers are told; no session reads again."""
        self._note(plan_key(conversation_id), stored=False)

    def _note(self, key: int | str, *, stored: bool) -> int:
        with self._lock:
            count = self._counts[key] = self._counts.get(key, 0) + 1
            if stored:
                self._total += 1
            watchers = tuple(self._watchers)
        for watcher in watchers:
            watcher(key)
        return count

    def watch(self, watcher: Watcher) -> Callable[[], None]:
        """Tell `watcher` every key that changes from now on (a conversation's id, MEMORY,
        a `plan_key`); returns what stops it."""
        with self._lock:
            self._watchers.append(watcher)

        def stop() -> None:
            with self._lock:
                if watcher in self._watchers:
                    self._watchers.remove(watcher)

        return stop


_LOGS: weakref.WeakKeyDictionary[Store, ChangeLog] = weakref.WeakKeyDictionary()
_LOGS_LOCK = threading.Lock()
