"""Conversations: create, find, list and search, rename, and delete for good."""

from __future__ import annotations

import sqlite3
from typing import Any

from ctxchat.store.database import Database
from ctxchat.store.errors import NotFound
from ctxchat.store.records import Conversation, ConversationInfo

_COLUMNS = (
    "id, title, model, profile, active_summary_id, created_at, updated_at, "
    "chosen_profile, chosen_model, origin, origin_id, preset, system_prompt, project_id"
)


def _conversation(row: Any) -> Conversation:
    return Conversation(*row)


def clean_title(title: str | None) -> str:
    # A title is one line: pasted newlines and runs of spaces would break the list.
    return " ".join((title or "").split())


class Conversations:
    """The conversations table."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def create_conversation(
        self, title: str | None = None, *, model: str | None = None, profile: str | None = None
    ) -> Conversation:
        now = self._db.now()
        with self._db.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO conversations (title, model, profile, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (clean_title(title), model, profile, now, now),
            )
            assert cursor.lastrowid is not None
        # Built from what was written: nothing else is set on a new conversation.
        return Conversation(cursor.lastrowid, clean_title(title), model, profile, None, now, now)

    def get_conversation(self, conversation_id: int) -> Conversation:
        with self._db.reading() as conn:
            return read_conversation(conn, conversation_id)

    def latest_conversation(self) -> Conversation | None:
        """The conversation changed most recently, or None when there is none."""
        with self._db.reading() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM conversations ORDER BY updated_at DESC, id DESC LIMIT 1"
            ).fetchone()
        return None if row is None else _conversation(row)

    def list_conversations(self, search: str | None = None) -> list[ConversationInfo]:
        """Every conversation, most recently changed first.

        `search` keeps those whose title or any message contains it, ignoring case
        (in any script: `ПРИВЕТ` finds `привет`).
        """
        needle = search.strip().casefold() if search and search.strip() else None
        with self._db.reading() as conn:
            rows = conn.execute(
                """
                SELECT c.id, c.title, c.created_at, c.updated_at,
                       count(m.id), coalesce(sum(m.tokens), 0), c.origin, c.origin_id,
                       (SELECT p.name FROM projects p WHERE p.id = c.project_id)
                FROM conversations c LEFT JOIN messages m ON m.conversation_id = c.id
                WHERE ?1 IS NULL
                   OR instr(ctx_fold(c.title), ?1) > 0
                   OR EXISTS (
                       SELECT 1 FROM messages s
                       WHERE s.conversation_id = c.id AND instr(ctx_fold(s.content), ?1) > 0
                   )
                GROUP BY c.id
                ORDER BY c.updated_at DESC, c.id DESC
                """,
                (needle,),
            ).fetchall()
        return [ConversationInfo(*row) for row in rows]

    def rename_conversation(self, conversation_id: int, title: str) -> Conversation:
        with self._db.transaction() as conn:
            require_conversation(conn, conversation_id)
            conn.execute(
                "UPDATE conversations SET title = ?, updated_at = ? WHERE id = ?",
                (clean_title(title), self._db.now(), conversation_id),
            )
            return read_conversation(conn, conversation_id)

    def choose_model(
        self, conversation_id: int, profile: str | None, model: str | None
    ) -> Conversation:
        """Remember the profile and model chosen for a conversation (None, None: forget the
        choice, so the configured one applies again)."""
        with self._db.transaction() as conn:
            require_conversation(conn, conversation_id)
            conn.execute(
                "UPDATE conversations SET chosen_profile = ?, chosen_model = ? WHERE id = ?",
                (profile, model, conversation_id),
            )
            return read_conversation(conn, conversation_id)

    def choose_preset(self, conversation_id: int, preset: str | None) -> Conversation:
        """Remember the preset chosen for a conversation (None: none)."""
        return self._set_conversation(conversation_id, "preset", preset)

    def set_system_prompt(self, conversation_id: int, text: str | None) -> Conversation:
        """Give a conversation its own system prompt (None: the preset's, else the config's)."""
        return self._set_conversation(conversation_id, "system_prompt", text)

    def _set_conversation(
        self, conversation_id: int, column: str, value: str | None
    ) -> Conversation:
        with self._db.transaction() as conn:
            require_conversation(conn, conversation_id)
            conn.execute(
                f"UPDATE conversations SET {column} = ? WHERE id = ?", (value, conversation_id)
            )
            return read_conversation(conn, conversation_id)

    def delete_conversation(self, conversation_id: int, *, with_memory: bool = False) -> None:
        """Delete a conversation with its messages, summaries and plans.

        Its own memory entries are kept, as global entries left out of every request until
        the user includes them, marked with the conversation's title (`kept_from`); with
        `with_memory` they are deleted too. Deleted text is zeroed in the file
        (secure_delete), the freed pages are given back and the write-ahead log is emptied,
        so the text is not left on disk.
        """
        with self._db.transaction() as conn:
            name = read_conversation(conn, conversation_id).name
            if not with_memory:
                conn.execute(
                    "UPDATE memory SET conversation_id = NULL, enabled = 0, kept_from = ?, "
                    "updated_at = ? WHERE conversation_id = ?",
                    (name, self._db.now(), conversation_id),
                )
            # Break the conversation ↔ summary cycle before the cascades run.
            conn.execute(
                "UPDATE conversations SET active_summary_id = NULL WHERE id = ?",
                (conversation_id,),
            )
            conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            # Merging the search index drops the deleted messages' words from it for good.
            conn.execute("INSERT INTO messages_fts (messages_fts) VALUES ('optimize')")
        self._db.reclaim_space()
        self._db.checkpoint()


def read_conversation(conn: sqlite3.Connection, conversation_id: int) -> Conversation:
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM conversations WHERE id = ?", (conversation_id,)
    ).fetchone()
    if row is None:
        raise NotFound("conversation", conversation_id)
    return _conversation(row)


def require_conversation(conn: sqlite3.Connection, conversation_id: int) -> None:
    if conn.execute("SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)).fetchone():
        return
    raise NotFound("conversation", conversation_id)


def touch(conn: sqlite3.Connection, conversation_id: int, now: float) -> None:
    """Mark the conversation changed, so it comes first in the list."""
    conn.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id))
