"""MemoryBook: every change to memory entries, each keeping the session's memory cache true."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ctxchat.core.memory import MemoryEntry, MemoryKind
from ctxchat.store import Store


class MemoryBook:
    """The memory entries a session plans with, to read and to change.

    The session owns one (`ChatSession.memory_book`); after each change it is told, and
    its next plan reads memory again. Raises the store's errors (NotFound, InvalidValue).
    """

    def __init__(self, store: Store, changed: Callable[[], None]) -> None:
        self._store = store
        self._changed = changed

    def get(self, entry_id: int) -> MemoryEntry:
        return self._store.memory.get_memory(entry_id)

    def add(
        self,
        kind: MemoryKind | str,
        text: str,
        *,
        key: str | None = None,
        pinned: bool = False,
        importance: int = 5,
        conversation_id: int | None = None,
        source: str = "manual",
        tags: Iterable[str] = (),
        replaces: int | None = None,
        project_id: int | None = None,
    ) -> MemoryEntry:
        """Store a new entry (global with `conversation_id` None, or `project_id`'s);
        `replaces` supersedes one."""
        try:
            return self._store.memory.add_memory(
                kind,
                text,
                key=key,
                pinned=pinned,
                importance=importance,
                conversation_id=conversation_id,
                source=source,
                tags=tags,
                replaces=replaces,
                project_id=project_id,
            )
        finally:
            self._changed()

    def update(self, entry_id: int, **changes: Any) -> MemoryEntry:
        """Change an entry's fields (those `Memory.update_memory` takes)."""
        try:
            return self._store.memory.update_memory(entry_id, **changes)
        finally:
            self._changed()

    def delete(self, entry_id: int) -> None:
        try:
            self._store.memory.delete_memory(entry_id)
        finally:
            self._changed()

    def restore(self, entry_id: int) -> MemoryEntry:
        """Make a superseded entry current again."""
        try:
            return self._store.memory.restore_memory(entry_id)
        finally:
            self._changed()

    def switch(self, entry_id: int, conversation_id: int, *, on: bool) -> MemoryEntry:
        """Switch a shared entry off in one conversation only, or on again there."""
        try:
            return self._store.memory.switch_memory(entry_id, conversation_id, on=on)
        finally:
            self._changed()

    def keep_hypothesis(self, entry_id: int) -> MemoryEntry:
        """Start an unconfirmed hypothesis's waiting time again from now."""
        try:
            return self._store.memory.keep_hypothesis(entry_id)
        finally:
            self._changed()
