"""Summary versions: each fold adds one, one of them is in force, rollback moves that mark."""

from __future__ import annotations

import sqlite3
from typing import Any

from ctxchat.core.summary import SummaryStrategy
from ctxchat.store.conversations import ConversationStore
from ctxchat.store.errors import InvalidValue, NotFound
from ctxchat.store.records import SummaryVersion

_COLUMNS = (
    "id, conversation_id, version, text, first_message_id, last_message_id, strategy, model, "
    "tokens, edited, note, created_at"
)


def _summary(row: Any) -> SummaryVersion:
    values = list(row)
    values[6] = SummaryStrategy(values[6])
    values[9] = bool(values[9])
    return SummaryVersion(*values)


class SummaryStore(ConversationStore):
    """The summaries table and the conversation's active summary."""

    def add_summary(
        self,
        conversation_id: int,
        *,
        text: str,
        first_message_id: int,
        last_message_id: int,
        strategy: SummaryStrategy | str,
        model: str | None,
        tokens: int,
        edited: bool = False,
        note: str = "",
    ) -> SummaryVersion:
        """Store the next version (previous highest + 1) and put it in force."""
        try:
            strategy = SummaryStrategy(strategy)
        except ValueError:
            choices = ", ".join(s.value for s in SummaryStrategy)
            raise InvalidValue(f"Unknown summary strategy {strategy!r}; use {choices}.") from None
        if first_message_id > last_message_id:
            raise InvalidValue(
                f"A summary cannot cover messages {first_message_id} to {last_message_id}: "
                "the first comes after the last."
            )
        with self.transaction() as conn:
            self._require_conversation(conn, conversation_id)
            for message_id in (first_message_id, last_message_id):
                if not conn.execute(
                    "SELECT 1 FROM messages WHERE id = ? AND conversation_id = ?",
                    (message_id, conversation_id),
                ).fetchone():
                    raise InvalidValue(
                        f"Message {message_id} is not in conversation {conversation_id}."
                    )
            version = conn.execute(
                "SELECT coalesce(max(version), 0) + 1 FROM summaries WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()[0]
            now = self.now()
            summary_id = self._insert_summary(
                conn,
                conversation_id,
                version,
                text,
                first_message_id,
                last_message_id,
                strategy.value,
                model,
                tokens,
                edited,
                note,
                now,
            )
            conn.execute(
                "UPDATE conversations SET active_summary_id = ?, updated_at = ? WHERE id = ?",
                (summary_id, now, conversation_id),
            )
            return self._get_summary(conn, summary_id)

    @staticmethod
    def _insert_summary(
        conn: sqlite3.Connection,
        conversation_id: int,
        version: int,
        text: str,
        first_message_id: int,
        last_message_id: int,
        strategy: str,
        model: str | None,
        tokens: int,
        edited: bool,
        note: str,
        created_at: float,
    ) -> int:
        """Insert one summary row as given (no checks: the callers made them); its id."""
        cursor = conn.execute(
            "INSERT INTO summaries (conversation_id, version, text, first_message_id, "
            "last_message_id, strategy, model, tokens, edited, note, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                conversation_id,
                version,
                text,
                first_message_id,
                last_message_id,
                strategy,
                model,
                tokens,
                int(edited),
                note,
                created_at,
            ),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def get_summary(self, summary_id: int) -> SummaryVersion:
        with self.reading() as conn:
            return self._get_summary(conn, summary_id)

    def summaries(self, conversation_id: int) -> list[SummaryVersion]:
        """Every version kept for the conversation, oldest first."""
        with self.reading() as conn:
            self._require_conversation(conn, conversation_id)
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM summaries WHERE conversation_id = ? ORDER BY version",
                (conversation_id,),
            ).fetchall()
        return [_summary(row) for row in rows]

    def active_summary(self, conversation_id: int) -> SummaryVersion | None:
        """The version in force, or None (no summary yet, or rolled back to none)."""
        with self.reading() as conn:
            active = self._get_conversation(conn, conversation_id).active_summary_id
            return None if active is None else self._get_summary(conn, active)

    def activate_summary(self, conversation_id: int, summary_id: int | None) -> None:
        """Put another version in force (rollback), or none at all with None."""
        with self.transaction() as conn:
            self._require_conversation(conn, conversation_id)
            if summary_id is not None:
                summary = self._get_summary(conn, summary_id)
                if summary.conversation_id != conversation_id:
                    raise InvalidValue(
                        f"Summary {summary_id} belongs to conversation "
                        f"{summary.conversation_id}, not {conversation_id}."
                    )
            conn.execute(
                "UPDATE conversations SET active_summary_id = ?, updated_at = ? WHERE id = ?",
                (summary_id, self.now(), conversation_id),
            )

    def _get_summary(self, conn: sqlite3.Connection, summary_id: int) -> SummaryVersion:
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM summaries WHERE id = ?", (summary_id,)
        ).fetchone()
        if row is None:
            raise NotFound("summary", summary_id)
        return _summary(row)

    def _drop_summaries_beyond(
        self, conn: sqlite3.Connection, conversation_id: int, last_valid_id: int
    ) -> None:
        """Delete the versions that cover any message after `last_valid_id`.

        Used when later messages are deleted or an earlier one is edited: those versions
        describe text that is no longer in the conversation. If the version in force goes,
        the newest remaining one takes its place (incremental folds make it a correct,
        shorter summary); the messages after it are simply not summarized yet.
        """
        stale = {
            row[0]
            for row in conn.execute(
                "SELECT id FROM summaries WHERE conversation_id = ? AND last_message_id > ?",
                (conversation_id, last_valid_id),
            )
        }
        if not stale:
            return
        active = self._get_conversation(conn, conversation_id).active_summary_id
        if active in stale:
            row = conn.execute(
                "SELECT id FROM summaries WHERE conversation_id = ? AND last_message_id <= ? "
                "ORDER BY version DESC LIMIT 1",
                (conversation_id, last_valid_id),
            ).fetchone()
            conn.execute(
                "UPDATE conversations SET active_summary_id = ? WHERE id = ?",
                (None if row is None else row[0], conversation_id),
            )
        conn.execute(
            "DELETE FROM summaries WHERE conversation_id = ? AND last_message_id > ?",
            (conversation_id, last_valid_id),
        )
