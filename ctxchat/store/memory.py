"""Memory entries: the user's curated facts, constraints, preferences and hypotheses."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from enum import Enum
from typing import Any

from ctxchat.core.memory import MemoryEntry, MemoryKind
from ctxchat.store.conversations import require_conversation
from ctxchat.store.database import Database
from ctxchat.store.errors import InvalidValue, NotFound
from ctxchat.store.records import storable

_COLUMNS = (
    "id, kind, text, key, pinned, importance, conversation_id, source, enabled, created_at, "
    "updated_at, tags, superseded_by, superseded_at, turn, kept_from, "
    "(SELECT group_concat(o.conversation_id) FROM memory_off o WHERE o.memory_id = memory.id), "
    "project_id, (SELECT p.name FROM projects p WHERE p.id = memory.project_id)"
)


class Unset(Enum):
    """Marks an argument not given (None is a real value: no key, global scope)."""

    UNSET = 0


UNSET = Unset.UNSET


def _entry(row: Any) -> MemoryEntry:
    return MemoryEntry(
        id=row[0],
        kind=MemoryKind(row[1]),
        text=row[2],
        key=row[3],
        pinned=bool(row[4]),
        importance=row[5],
        conversation_id=row[6],
        source=row[7],
        enabled=bool(row[8]),
        created_at=row[9],
        updated_at=row[10],
        tags=tuple(json.loads(row[11])),
        superseded_by=row[12],
        superseded_at=row[13],
        turn=row[14],
        kept_from=row[15],
        off_in=frozenset(int(c) for c in row[16].split(",")) if row[16] else frozenset(),
        project_id=row[17],
        project=row[18],
    )


def valid_kind(kind: MemoryKind | str) -> MemoryKind:
    try:
        return MemoryKind(kind)
    except ValueError:
        choices = ", ".join(k.value for k in MemoryKind)
        raise InvalidValue(f"Unknown memory kind {kind!r}; use {choices}.") from None


def valid_importance(importance: int) -> int:
    if isinstance(importance, bool) or not isinstance(importance, int) or not 1 <= importance <= 10:
        raise InvalidValue(f"Importance is {importance!r}; it must be a whole number from 1 to 10.")
    return importance


def valid_text(text: str) -> str:
    if not text.strip():
        raise InvalidValue("A memory entry needs some text.")
    return storable(text.strip())


def valid_tags(tags: Iterable[str]) -> tuple[str, ...]:
    # Tags are single words the user filters by; duplicates and blanks would only confuse.
    cleaned: list[str] = []
    for tag in tags:
        tag = tag.strip()
        if tag and tag not in cleaned:
            cleaned.append(tag)
    return tuple(cleaned)


def stored_key(key: str | None) -> str | None:
    """A key as stored: trimmed, and None when blank."""
    return (key.strip() or None) if key else None


def stored_tags(tags: Iterable[str]) -> str:
    """Tags as stored: cleaned (see `valid_tags`), as a JSON list."""
    return json.dumps(valid_tags(tags), ensure_ascii=False)


class Memory:
    """The memory table."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def add_memory(
        self,
        kind: MemoryKind | str,
        text: str,
        *,
        key: str | None = None,
        pinned: bool = False,
        importance: int = 5,
        conversation_id: int | None = None,
        source: str = "manual",
        enabled: bool = True,
        tags: Iterable[str] = (),
        replaces: int | None = None,
        project_id: int | None = None,
    ) -> MemoryEntry:
        """Store an entry: global with `conversation_id` None, else for that conversation;
        with `project_id`, for every conversation of that project.

        It supersedes the current entries with the same key in the same scope, and entry
        `replaces` when given: they are kept, marked as replaced by the new one. A new version
        of an excluded entry is excluded too.
        """
        now = self._db.now()
        with self._db.transaction() as conn:
            if conversation_id is not None:
                require_conversation(conn, conversation_id)
            if project_id is not None:
                _require_project(conn, project_id, conversation_id)
            if replaces is not None and not _read_memory(conn, replaces).enabled:
                enabled = False  # a new version of an entry left out is left out too
            values = (
                valid_kind(kind).value,
                valid_text(text),
                stored_key(key),
                int(pinned),
                valid_importance(importance),
                conversation_id,
                source,
                int(enabled),
                stored_tags(tags),
            )
            new_id = insert_memory(conn, values, now, now, count_user_turns(conn))
            if project_id is not None:
                conn.execute("UPDATE memory SET project_id = ? WHERE id = ?", (project_id, new_id))
            replaced = [] if replaces is None else [replaces]
            if values[2] is not None:
                replaced += [
                    row[0]
                    for row in conn.execute(
                        "SELECT id FROM memory WHERE key = ? COLLATE NOCASE AND id <> ? "
                        "AND superseded_by IS NULL AND conversation_id IS ? AND project_id IS ?",
                        (values[2], new_id, conversation_id, project_id),
                    )
                ]
            for old_id in replaced:
                _supersede(conn, old_id, new_id, now)
            if replaces is not None:
                # A new version of an entry switched off somewhere is off there too.
                conn.execute(
                    "INSERT OR IGNORE INTO memory_off (memory_id, conversation_id) "
                    "SELECT ?, conversation_id FROM memory_off WHERE memory_id = ?",
                    (new_id, replaces),
                )
            return _read_memory(conn, new_id)

    def user_turns(self) -> int:
        """How many user turns the store holds, over every conversation (a hypothesis's clock)."""
        with self._db.reading() as conn:
            return count_user_turns(conn)

    def restore_memory(self, memory_id: int) -> MemoryEntry:
        """Make a superseded entry current again; the entry that replaced it, if still
        current, is superseded by it in turn (nothing is lost either way)."""
        with self._db.transaction() as conn:
            entry = _read_memory(conn, memory_id)
            if entry.superseded_by is None:
                raise InvalidValue(
                    f"Memory entry {memory_id} is not superseded; nothing to restore."
                )
            conn.execute(
                "UPDATE memory SET superseded_by = NULL, superseded_at = NULL WHERE id = ?",
                (memory_id,),
            )
            newer = conn.execute(
                "SELECT id FROM memory WHERE id = ? AND superseded_by IS NULL",
                (entry.superseded_by,),
            ).fetchone()
            if newer is not None:
                _supersede(conn, newer[0], memory_id, self._db.now())
            return _read_memory(conn, memory_id)

    def switch_memory(self, memory_id: int, conversation_id: int, *, on: bool) -> MemoryEntry:
        """Switch an entry off in one conversation (it stays on in the others), or on again.

        Only an entry shared with other conversations: one of the conversation's own is
        excluded instead."""
        with self._db.transaction() as conn:
            entry = _read_memory(conn, memory_id)
            require_conversation(conn, conversation_id)
            if entry.conversation_id == conversation_id:
                raise InvalidValue(
                    f"Memory entry {memory_id} belongs to conversation {conversation_id} "
                    "alone: exclude it instead."
                )
            if on:
                conn.execute(
                    "DELETE FROM memory_off WHERE memory_id = ? AND conversation_id = ?",
                    (memory_id, conversation_id),
                )
            else:
                switch_off(conn, memory_id, conversation_id)
            return _read_memory(conn, memory_id)

    def keep_hypothesis(self, memory_id: int) -> MemoryEntry:
        """The user keeps an unconfirmed hypothesis: its clock starts again from this turn."""
        with self._db.transaction() as conn:
            _read_memory(conn, memory_id)
            conn.execute(
                "UPDATE memory SET turn = ? WHERE id = ?", (count_user_turns(conn), memory_id)
            )
            return _read_memory(conn, memory_id)

    def update_memory(
        self,
        memory_id: int,
        *,
        kind: MemoryKind | str | Unset = UNSET,
        text: str | Unset = UNSET,
        key: str | Unset | None = UNSET,
        pinned: bool | Unset = UNSET,
        importance: int | Unset = UNSET,
        conversation_id: int | Unset | None = UNSET,
        project_id: int | Unset | None = UNSET,
        source: str | Unset = UNSET,
        enabled: bool | Unset = UNSET,
        tags: Iterable[str] | Unset = UNSET,
    ) -> MemoryEntry:
        """Change the given fields (validated) and touch `updated_at`; returns the entry."""
        changes: dict[str, object] = {}
        if not isinstance(kind, Unset):
            changes["kind"] = valid_kind(kind).value
        if not isinstance(text, Unset):
            changes["text"] = valid_text(text)
        if not isinstance(key, Unset):
            changes["key"] = stored_key(key)
        if not isinstance(pinned, Unset):
            changes["pinned"] = int(pinned)
        if not isinstance(importance, Unset):
            changes["importance"] = valid_importance(importance)
        if not isinstance(conversation_id, Unset):
            changes["conversation_id"] = conversation_id
            if conversation_id is not None:
                changes["project_id"] = None  # one conversation's now, no project's
        if not isinstance(project_id, Unset):
            if isinstance(project_id, int) and isinstance(conversation_id, int):
                raise InvalidValue("An entry is a project's or one conversation's, not both.")
            changes["project_id"] = project_id
            if project_id is not None:
                changes["conversation_id"] = None  # shared by the project's conversations
        if not isinstance(source, Unset):
            changes["source"] = source
        if not isinstance(enabled, Unset):
            changes["enabled"] = int(enabled)
        if not isinstance(tags, Unset):
            changes["tags"] = stored_tags(tags)
        with self._db.transaction() as conn:
            before = _read_memory(conn, memory_id)
            if isinstance(project_id, int):
                _require_project(conn, project_id)
            if isinstance(conversation_id, int):
                require_conversation(conn, conversation_id)
                # Its own conversation's entry is in or out there by `enabled` alone.
                conn.execute(
                    "DELETE FROM memory_off WHERE memory_id = ? AND conversation_id = ?",
                    (memory_id, conversation_id),
                )
            if changes.get("kind") == MemoryKind.HYPOTHESIS.value != before.kind.value:
                # A guess waits for confirmation from the turn it became one.
                changes["turn"] = count_user_turns(conn)
            changes["updated_at"] = self._db.now()
            # Column names come from the fixed set above, never from the caller.
            assignments = ", ".join(f"{column} = ?" for column in changes)
            conn.execute(
                f"UPDATE memory SET {assignments} WHERE id = ?", (*changes.values(), memory_id)
            )
            return _read_memory(conn, memory_id)

    def delete_memory(self, memory_id: int) -> None:
        with self._db.transaction() as conn:
            _read_memory(conn, memory_id)
            conn.execute("DELETE FROM memory WHERE id = ?", (memory_id,))

    def get_memory(self, memory_id: int) -> MemoryEntry:
        with self._db.reading() as conn:
            return _read_memory(conn, memory_id)

    def list_memory(
        self, *, conversation_id: int | None = None, include_all_scopes: bool = False
    ) -> list[MemoryEntry]:
        """Global entries plus those of `conversation_id` and of its project (every entry
        with `include_all_scopes`), oldest first."""
        with self._db.reading() as conn:
            if include_all_scopes:
                rows = conn.execute(f"SELECT {_COLUMNS} FROM memory ORDER BY id").fetchall()
            else:
                # Global entries, those of the conversation's project, and its own.
                rows = conn.execute(
                    f"SELECT {_COLUMNS} FROM memory WHERE conversation_id = ?1 "
                    "OR (conversation_id IS NULL AND (project_id IS NULL OR project_id = "
                    "(SELECT c.project_id FROM conversations c WHERE c.id = ?1))) ORDER BY id",
                    (conversation_id,),
                ).fetchall()
        return [_entry(row) for row in rows]

    def conversation_memory(self, conversation_id: int) -> list[MemoryEntry]:
        """The entries scoped to `conversation_id` alone (what deleting it with its memory
        deletes), oldest first."""
        with self._db.reading() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM memory WHERE conversation_id = ? ORDER BY id",
                (conversation_id,),
            ).fetchall()
        return [_entry(row) for row in rows]


def _supersede(conn: sqlite3.Connection, old_id: int, new_id: int, when: float) -> None:
    conn.execute(
        "UPDATE memory SET superseded_by = ?, superseded_at = ? WHERE id = ?",
        (new_id, when, old_id),
    )


def _require_project(
    conn: sqlite3.Connection, project_id: int, conversation_id: int | None = None
) -> None:
    if conversation_id is not None:
        raise InvalidValue("An entry is a project's or one conversation's, not both.")
    if conn.execute("SELECT 1 FROM projects WHERE id = ?", (project_id,)).fetchone() is None:
        raise NotFound("project", project_id)


def count_user_turns(conn: sqlite3.Connection) -> int:
    count: int = conn.execute("SELECT count(*) FROM messages WHERE role = 'user'").fetchone()[0]
    return count


def insert_memory(
    conn: sqlite3.Connection,
    values: tuple[Any, ...],
    created_at: float,
    updated_at: float,
    turn: int,
) -> int:
    """Insert one entry: `values` are its columns from kind to tags, stored as given."""
    cursor = conn.execute(
        "INSERT INTO memory (kind, text, key, pinned, importance, conversation_id, "
        "source, enabled, tags, created_at, updated_at, turn) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (*values, created_at, updated_at, turn),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def switch_off(conn: sqlite3.Connection, memory_id: int, conversation_id: int) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO memory_off (memory_id, conversation_id) VALUES (?, ?)",
        (memory_id, conversation_id),
    )


def _read_memory(conn: sqlite3.Connection, memory_id: int) -> MemoryEntry:
    row = conn.execute(f"SELECT {_COLUMNS} FROM memory WHERE id = ?", (memory_id,)).fetchone()
    if row is None:
        raise NotFound("memory entry", memory_id)
    return _entry(row)
