"""Messages: add, page through, edit, cut the tail, and the history the context engine reads."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from ctxchat.core.history import HistoryMessage, MessageStatus
from ctxchat.store.conversations import require_conversation, touch
from ctxchat.store.database import Database
from ctxchat.store.errors import InvalidValue, NotFound
from ctxchat.store.plans import release_plans
from ctxchat.store.records import ROLES, StoredMessage, storable
from ctxchat.store.summaries import drop_summaries_beyond

# Each status by its stored value: a dictionary look-up per row where calling the enum costs
# several times more (20,000 rows are read for a 20,000-message conversation's plan).
_STATUSES = {status.value: status for status in MessageStatus}

MESSAGE_COLUMNS = (
    "id, conversation_id, role, content, tokens, exact, encoding, status, model, reasoning, "
    "finish_reason, error, prompt_tokens, completion_tokens, cached_tokens, "
    "estimated_prompt_tokens, parent_id, created_at, updated_at, error_detail, excluded, billing"
)


def message_from_row(row: Any) -> StoredMessage:
    values = list(row)
    values[4] = _count(values[4])
    values[5] = bool(values[5])
    values[7] = MessageStatus(values[7])
    values[20] = bool(values[20])
    for time_column in (17, 18):
        if not isinstance(values[time_column], int | float):
            values[time_column] = 0.0
    return StoredMessage(*values)


def _count(value: object) -> int:
    # An older ctxchat imported whatever an export held; a count that is not one reads as 0
    # (and is counted again where a recount is possible) so one bad row stops no command.
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def check_role(role: str) -> None:
    if role not in ROLES:
        raise InvalidValue(f"Unknown role {role!r}; a message is from {', '.join(ROLES)}.")


class Messages:
    """The messages table, apart from replies being streamed (see `Replies`)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def add_message(
        self,
        conversation_id: int,
        role: str,
        content: str,
        *,
        tokens: int,
        exact: bool,
        encoding: str,
        model: str | None = None,
        status: MessageStatus = MessageStatus.COMPLETE,
        parent_id: int | None = None,
    ) -> StoredMessage:
        """Store a whole message, its token count made once now with `encoding`."""
        check_role(role)
        status = MessageStatus(status)
        if status is MessageStatus.STREAMING:
            raise InvalidValue("A reply being streamed is started with start_reply.")
        now = self._db.now()
        with self._db.transaction() as conn:
            require_conversation(conn, conversation_id)
            check_parent(conn, conversation_id, parent_id)
            cursor = conn.execute(
                "INSERT INTO messages (conversation_id, parent_id, role, content, tokens, exact, "
                "encoding, model, status, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    conversation_id,
                    parent_id,
                    role,
                    storable(content),
                    tokens,
                    int(exact),
                    encoding,
                    model,
                    status.value,
                    now,
                    now,
                ),
            )
            touch(conn, conversation_id, now)
            assert cursor.lastrowid is not None
            return read_message(conn, cursor.lastrowid)

    def get_message(self, message_id: int) -> StoredMessage:
        with self._db.reading() as conn:
            return read_message(conn, message_id)

    def newest_message(
        self, conversation_id: int, *, role: str | None = None
    ) -> StoredMessage | None:
        """The conversation's last message (of `role`, if given), if it has any."""
        with self._db.reading() as conn:
            row = conn.execute(
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? "
                "AND (? IS NULL OR role = ?) ORDER BY id DESC LIMIT 1",
                (conversation_id, role, role),
            ).fetchone()
        return None if row is None else message_from_row(row)

    def messages(
        self, conversation_id: int, *, offset: int = 0, limit: int | None = None
    ) -> list[StoredMessage]:
        """Messages in the order they were written; `offset`/`limit` page through them."""
        with self._db.reading() as conn:
            require_conversation(conn, conversation_id)
            rows = conn.execute(
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? "
                "ORDER BY id LIMIT ? OFFSET ?",
                (conversation_id, -1 if limit is None else limit, offset),
            ).fetchall()
        return [message_from_row(row) for row in rows]

    def count_messages(self, conversation_id: int, *, after: int | None = None) -> int:
        """How many messages the conversation holds (only those written after the message
        `after`, when given)."""
        with self._db.reading() as conn:
            require_conversation(conn, conversation_id)
            count: int = conn.execute(
                "SELECT count(*) FROM messages WHERE conversation_id = ? AND id > ?",
                (conversation_id, -1 if after is None else after),
            ).fetchone()[0]
        return count

    def update_message_content(
        self, message_id: int, content: str, *, tokens: int, exact: bool, encoding: str
    ) -> StoredMessage:
        """Edit a message's text (with its new count).

        Summary versions covering this message or later ones are deleted: they were made from
        the old text (see `drop_summaries_beyond`). Plans of earlier replies keep the text
        as it was sent; they hold their own copy.
        """
        now = self._db.now()
        with self._db.transaction() as conn:
            message = read_message(conn, message_id)
            if message.status is MessageStatus.STREAMING:
                raise InvalidValue(f"Message {message_id} is still being streamed.")
            conn.execute(
                "UPDATE messages SET content = ?, tokens = ?, exact = ?, encoding = ?, "
                "updated_at = ? WHERE id = ?",
                (storable(content), tokens, int(exact), encoding, now, message_id),
            )
            drop_summaries_beyond(conn, message.conversation_id, message_id - 1)
            touch(conn, message.conversation_id, now)
            return read_message(conn, message_id)

    def delete_messages_after(self, conversation_id: int, message_id: int) -> int:
        """Delete every message of the conversation after `message_id` (edit-and-resend
        replaces the later turns); returns how many went.

        Their plans go with them, and so do the summary versions that covered any of them;
        if the version in force was one, the newest remaining version takes its place.
        """
        with self._db.transaction() as conn:
            kept = read_message(conn, message_id)
            if kept.conversation_id != conversation_id:
                raise InvalidValue(
                    f"Message {message_id} is not in conversation {conversation_id}."
                )
            doomed = [
                row[0]
                for row in conn.execute(
                    "SELECT id FROM messages WHERE conversation_id = ? AND id > ?",
                    (conversation_id, message_id),
                )
            ]
            if not doomed:
                return 0
            release_plans(conn, doomed)
            drop_summaries_beyond(conn, conversation_id, message_id)
            conn.execute(
                "DELETE FROM messages WHERE conversation_id = ? AND id > ?",
                (conversation_id, message_id),
            )
            touch(conn, conversation_id, self._db.now())
        return len(doomed)

    def history(
        self,
        conversation_id: int,
        counter_name: str,
        recount: Callable[[str, str], int] | None = None,
        *,
        exact: bool = False,
    ) -> list[HistoryMessage]:
        """The conversation as the context engine reads it, with the stored token counts.

        A message counted with another encoding than `counter_name` (the model changed) is
        counted again with `recount(role, content)` when it is given, and the new count is
        stored (with `exact`), so this happens once per message, not on every request.
        """
        with self._db.reading() as conn:
            require_conversation(conn, conversation_id)
            rows = conn.execute(
                "SELECT id, role, content, tokens, status, encoding, excluded FROM messages "
                "WHERE conversation_id = ? ORDER BY id",
                (conversation_id,),
            ).fetchall()
        history: list[HistoryMessage] = []
        updates: list[tuple[int, str, int, int, str, str]] = []
        for message_id, role, content, stored_tokens, status, encoding, excluded in rows:
            state = _STATUSES.get(status) or MessageStatus(status)
            tokens = _count(stored_tokens)
            stale = encoding != counter_name or tokens != stored_tokens
            # A reply still arriving is counted when it is finished.
            if recount and stale and state is not MessageStatus.STREAMING:
                tokens = recount(role, content)
                updates.append((tokens, counter_name, int(exact), message_id, encoding, content))
            history.append(HistoryMessage(message_id, role, content, tokens, state, bool(excluded)))
        if updates:
            # Counting happened outside the lock (it can take a while); the WHERE clause
            # skips a message another process changed in the meantime.
            with self._db.transaction() as conn:
                conn.executemany(
                    "UPDATE messages SET tokens = ?, encoding = ?, exact = ? "
                    "WHERE id = ? AND encoding = ? AND content = ?",
                    updates,
                )
        return history


def read_message(conn: sqlite3.Connection, message_id: int) -> StoredMessage:
    row = conn.execute(
        f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?", (message_id,)
    ).fetchone()
    if row is None:
        raise NotFound("message", message_id)
    return message_from_row(row)


def check_parent(conn: sqlite3.Connection, conversation_id: int, parent_id: int | None) -> None:
    if parent_id is None:
        return
    if read_message(conn, parent_id).conversation_id != conversation_id:
        raise InvalidValue(f"Message {parent_id} is not in conversation {conversation_id}.")
