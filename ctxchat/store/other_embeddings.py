"""The vectors of other conversations' messages, for recall by meaning across conversations."""

from __future__ import annotations

from collections.abc import Sequence

from ctxchat.store.database import Database
from ctxchat.store.search import (
    RECALLABLE_ELSEWHERE,
    OtherHit,
    newest_message_id,
    other_conversations,
    other_hit,
)


class OtherEmbeddings:
    """Vectors of the messages of conversations other than the one recalling."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def load_other_embeddings(
        self, conversation_id: int, model: str, project_id: int | None
    ) -> list[tuple[int, bytes, int]]:
        """(message id, vector bytes, conversation id) by `model` of the recallable
        messages of the other conversations (of project `project_id`, or all when None),
        oldest first."""
        where, parameters = other_conversations(conversation_id, project_id)
        with self._db.reading() as conn:
            rows = conn.execute(
                "SELECT e.message_id, e.vector, m.conversation_id FROM message_embeddings AS e "
                "JOIN messages AS m ON m.id = e.message_id "
                f"WHERE {where} AND e.model = ? AND {RECALLABLE_ELSEWHERE} ORDER BY e.message_id",
                (*parameters, model),
            ).fetchall()
        return [
            (int(message_id), bytes(vector), int(conversation))
            for message_id, vector, conversation in rows
        ]

    def other_messages_to_embed(
        self, conversation_id: int, model: str, project_id: int | None, limit: int = 64
    ) -> list[tuple[int, str, int]]:
        """(id, content, conversation id) of the other conversations' recallable messages
        with no vector by `model` yet, newest first (as `messages_to_embed` for the
        conversation's own)."""
        where, parameters = other_conversations(conversation_id, project_id)
        with self._db.reading() as conn:
            rows = conn.execute(
                "SELECT m.id, m.content, m.conversation_id FROM messages AS m "
                "LEFT JOIN message_embeddings AS e ON e.message_id = m.id AND e.model = ? "
                f"WHERE {where} AND {RECALLABLE_ELSEWHERE} AND e.message_id IS NULL "
                "ORDER BY m.id DESC LIMIT ?",
                (model, *parameters, limit),
            ).fetchall()
        return [
            (int(message_id), str(content), int(conversation))
            for message_id, content, conversation in rows
        ]

    def other_messages(
        self,
        message_ids: Sequence[int],
        bm25: Sequence[float],
        cosines: Sequence[float],
        *,
        nears: Sequence[float],
        in_context: Sequence[bool],
        newer: int = 0,
    ) -> list[OtherHit]:
        """The messages `message_ids` of other conversations as recall hits found by
        meaning, each with its `bm25` (lower is better), its cosine with the draft, the
        cosine that ranked it and whether that is the message read with the one before it
        (see `SemanticIndex.search_in_context`), in that order; those no longer recallable
        (deleted, left out, an edit under way) are dropped. Ages count as
        `search_other_conversations`'s."""
        if not message_ids:
            return []
        marks = ", ".join("?" * len(message_ids))
        with self._db.reading() as conn:
            rows = conn.execute(
                "SELECT m.id, m.conversation_id, c.title, m.role, m.content, m.tokens, "
                "m.created_at FROM messages AS m "
                "JOIN conversations AS c ON c.id = m.conversation_id "
                f"WHERE m.id IN ({marks}) AND {RECALLABLE_ELSEWHERE}",
                list(message_ids),
            ).fetchall()
            newest = newest_message_id(conn)
        found = {row[0]: row for row in rows}
        return [
            other_hit(found[message_id], score, newer + newest, (cosine, near, read))
            for message_id, score, cosine, near, read in zip(
                message_ids, bm25, cosines, nears, in_context, strict=True
            )
            if message_id in found
        ]
