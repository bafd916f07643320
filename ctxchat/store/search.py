"""Full-text search over a conversation's messages (SQLite FTS5, BM25), for recall."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from ctxchat.core.recall import PREFIX_LENGTH, RecallCandidate
from ctxchat.store.transfer import TransferStore


class SearchStore(TransferStore):
    """Search; the index is kept in step with the messages table by triggers."""

    def term_documents(self, terms: Sequence[str]) -> dict[str, int]:
        """How many messages (in all conversations) hold each term — as a prefix when the
        recall query will use it as one."""
        documents: dict[str, int] = {}
        with self.reading() as conn:
            for term in terms:
                if len(term) >= PREFIX_LENGTH:
                    row = conn.execute(
                        "SELECT coalesce(sum(doc), 0) FROM messages_vocab "
                        "WHERE term >= ? AND term < ?",
                        (term, term + "\uffff"),
                    ).fetchone()
                else:
                    row = conn.execute(
                        "SELECT coalesce(sum(doc), 0) FROM messages_vocab WHERE term = ?", (term,)
                    ).fetchone()
                documents[term] = int(row[0])
        return documents

    def search_messages(
        self,
        conversation_id: int,
        match: str,
        *,
        limit: int = 20,
        before_id: int | None = None,
        age_of: Callable[[int], int] | None = None,
    ) -> list[RecallCandidate]:
        """Messages of the conversation matching the FTS5 expression `match`, best BM25 first.

        `before_id` keeps only older messages (those that may have left working memory).
        `age_of(message_id)` says how many messages are newer; a caller holding the history
        knows that for free, otherwise it is counted here (slower on long conversations).
        Only complete and interrupted messages are searched: failed replies hold nothing.
        """
        if not match.strip():
            return []
        query = (
            "SELECT m.id, m.role, m.content, m.tokens, bm25(messages_fts) AS score "
            "FROM messages_fts JOIN messages AS m ON m.id = messages_fts.rowid "
            "WHERE messages_fts MATCH ? AND m.conversation_id = ? "
            "AND m.status IN ('complete', 'interrupted') "
        )
        parameters: list[object] = [match, conversation_id]
        if before_id is not None:
            query += "AND m.id < ? "
            parameters.append(before_id)
        query += "ORDER BY score LIMIT ?"
        parameters.append(limit)
        with self.reading() as conn:
            try:
                rows = conn.execute(query, parameters).fetchall()
            except sqlite3.OperationalError:
                # A query FTS5 cannot parse finds nothing rather than failing the plan.
                return []
            candidates = []
            for message_id, role, content, tokens, score in rows:
                if age_of is not None:
                    age = age_of(message_id)
                else:
                    age = conn.execute(
                        "SELECT count(*) FROM messages WHERE conversation_id = ? AND id > ?",
                        (conversation_id, message_id),
                    ).fetchone()[0]
                candidates.append(
                    RecallCandidate(
                        f"message:{message_id}", role, content, tokens, score, age, message_id
                    )
                )
        return candidates
