"""Full-text search over messages (SQLite FTS5): for recall (BM25), the switcher and the find bar."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from ctxchat.core.recall import PREFIX_LENGTH, RecallCandidate
from ctxchat.store.database import Database
from ctxchat.store.records import MessageHit, chunks_of, conversation_name

# The vectors by a model (`?` second) of a conversation's messages (`?` first).
_CONVERSATION_VECTORS = (
    "FROM message_embeddings AS e JOIN messages AS m ON m.id = e.message_id "
    "WHERE m.conversation_id = ? AND e.model = ?"
)
# A word as the index's tokenizer (unicode61) cuts one: letters and digits; `_` separates.
_INDEX_WORD = re.compile(r"[^\W_]+")


def find_words(text: str) -> list[str]:
    """The words of `text` the index can look up, lower-cased, each once, in order."""
    return list(dict.fromkeys(word.casefold() for word in _INDEX_WORD.findall(text)))


def find_expression(text: str) -> str:
    """An FTS5 MATCH expression finding messages with every word of `text`, each as a
    prefix ("" when `text` has no word)."""
    return " AND ".join(f'"{word}"*' for word in find_words(text))


@dataclass(frozen=True, slots=True)
class OtherHit:
    """A message of another conversation that full-text search found for recall: the
    candidate (ref `conversation:C/message:M`, no `message_id`: it is no message of the
    conversation recalling it), its conversation and when it was written."""

    candidate: RecallCandidate
    conversation_id: int
    message_id: int
    title: str
    """What the conversation is called everywhere: its title, else `conversation N`."""
    created_at: float


def other_ref(conversation_id: int, message_id: int) -> str:
    """How a message of another conversation is named in a plan: never `message:N`, which
    names a message of the plan's own conversation (to exclude, edit, leave out)."""
    return f"conversation:{conversation_id}/message:{message_id}"


RECALLABLE_ELSEWHERE = "m.status IN ('complete', 'interrupted') AND m.excluded = 0"
"""What recall may bring of another conversation (`m` is its message): finished questions
and replies, not a turn the user left out there."""


def other_conversations(conversation_id: int, project_id: int | None) -> tuple[str, list[object]]:
    """The condition (and its parameters) on a message `m` of a conversation other than
    `conversation_id`: of project `project_id`, or of any conversation when it is None."""
    where = "m.conversation_id != ? "
    parameters: list[object] = [conversation_id]
    if project_id is not None:
        where += "AND m.conversation_id IN (SELECT id FROM conversations WHERE project_id = ?) "
        parameters.append(project_id)
    return where, parameters


def newest_message_id(conn: sqlite3.Connection) -> int:
    """The id of the newest message stored anywhere (0 for none): a hit of another
    conversation is as old as the messages stored after it."""
    newest: int = conn.execute("SELECT coalesce(max(id), 0) FROM messages").fetchone()[0]
    return newest


def other_hit(
    row: Sequence[Any],
    bm25: float,
    age_base: int,
    meaning: tuple[float, float, bool] | None = None,
) -> OtherHit:
    """A message of another conversation as a recall hit: `row` is its id, conversation's
    id and title, role, content, tokens and time written; its age `age_base` less its id
    (messages stored after it anywhere, plus what `age_base` adds). With `meaning`, search
    by meaning found it (full-text search did not): its cosine with the draft, the cosine
    that ranked it, and whether that is of the message read with the one before it."""
    message_id, other, title, role, content, tokens, created_at = row
    cosine, near, in_context = meaning if meaning is not None else (None, None, False)
    candidate = RecallCandidate(
        other_ref(other, message_id),
        role,
        content,
        tokens,
        bm25,
        age_base - message_id,
        cosine=cosine,
        matched=meaning is None,
        near=near,
        in_context=in_context,
    )
    return OtherHit(candidate, other, message_id, conversation_name(other, title), created_at)


class Search:
    """Search; the index is kept in step with the messages table by triggers."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def term_documents(self, terms: Sequence[str]) -> dict[str, int]:
        """How many messages (in all conversations) hold each term — as a prefix when the
        recall query will use it as one."""
        documents: dict[str, int] = {}
        with self._db.reading() as conn:
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
        with self._db.reading() as conn:
            rows = _fts_rows(conn, query, parameters)
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

    def search_other_conversations(
        self,
        conversation_id: int,
        match: str,
        *,
        project_id: int | None,
        limit: int = 20,
        newer: int = 0,
    ) -> list[OtherHit]:
        """Messages of the conversations other than `conversation_id` matching the FTS5
        expression `match`, best BM25 first: those of project `project_id`, or of every
        conversation when it is None. Only complete and interrupted messages the user has
        not excluded. A hit's age is `newer` (the messages of the conversation asking) plus
        how many messages were stored after it anywhere: all of them are older than the
        conversation's own, and the newer of two still ranks first on a near-tie."""
        if not match.strip():
            return []
        others, parameters = other_conversations(conversation_id, project_id)
        query = (
            "SELECT m.id, m.conversation_id, c.title, m.role, m.content, m.tokens, "
            "m.created_at, bm25(messages_fts) AS score "
            "FROM messages_fts JOIN messages AS m ON m.id = messages_fts.rowid "
            "JOIN conversations AS c ON c.id = m.conversation_id "
            f"WHERE messages_fts MATCH ? AND {others} AND {RECALLABLE_ELSEWHERE} "
            "ORDER BY score LIMIT ?"
        )
        with self._db.reading() as conn:
            rows = _fts_rows(conn, query, [match, *parameters, limit])
            if not rows:
                return []
            newest = newest_message_id(conn)
        return [other_hit(row[:7], row[7], newer + newest) for row in rows]

    def around_other(self, hit: OtherHit) -> tuple[OtherHit | None, OtherHit | None]:
        """The messages just before and just after `hit` in its conversation, when they may
        be recalled (complete or interrupted, not excluded); ages one more and one less."""
        query = (
            "SELECT m.id, m.role, m.content, m.tokens, m.created_at FROM messages AS m "
            "WHERE m.conversation_id = ? AND m.id {} ? "
            f"AND {RECALLABLE_ELSEWHERE} "
            "ORDER BY m.id {} LIMIT 1"
        )
        found: list[OtherHit | None] = []
        with self._db.reading() as conn:
            for sign, order, step in (("<", "DESC", 1), (">", "ASC", -1)):
                row = conn.execute(
                    query.format(sign, order), (hit.conversation_id, hit.message_id)
                ).fetchone()
                if row is None:
                    found.append(None)
                    continue
                message_id, role, content, tokens, created_at = row
                ref = other_ref(hit.conversation_id, message_id)
                age = max(0, hit.candidate.age + step)
                candidate = RecallCandidate(ref, role, content, tokens, 0.0, age)
                found.append(
                    OtherHit(candidate, hit.conversation_id, message_id, hit.title, created_at)
                )
        return found[0], found[1]

    # --- finding messages by the words typed (the switcher, the find bar) ------------------

    def find_conversations(self, text: str) -> dict[int, MessageHit]:
        """Per conversation whose messages hold every word of `text` (each as a prefix, as
        it is being typed), how many do and the newest of them; from the index, no scan."""
        match = find_expression(text)
        if not match:
            return {}
        with self._db.reading() as conn:
            try:
                rows = conn.execute(
                    "SELECT h.conversation_id, h.message_id, m.content, h.hits FROM ("
                    "  SELECT m.conversation_id, max(m.id) AS message_id, count(*) AS hits "
                    "  FROM messages_fts JOIN messages AS m ON m.id = messages_fts.rowid "
                    "  WHERE messages_fts MATCH ? GROUP BY m.conversation_id"
                    ") AS h JOIN messages AS m ON m.id = h.message_id",
                    (match,),
                ).fetchall()
            except sqlite3.OperationalError:
                return {}
        return {
            int(row[0]): MessageHit(int(row[0]), int(row[1]), str(row[2]), int(row[3]))
            for row in rows
        }

    def find_in_conversation(self, conversation_id: int, text: str) -> list[int]:
        """Ids of the conversation's messages holding every word of `text`, oldest first."""
        match = find_expression(text)
        if not match:
            return []
        with self._db.reading() as conn:
            try:
                # The index is asked once; joined row by row, it would be asked per message.
                rows = conn.execute(
                    "SELECT id FROM messages WHERE conversation_id = ? AND id IN "
                    "(SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?) ORDER BY id",
                    (conversation_id, match),
                ).fetchall()
            except sqlite3.OperationalError:
                return []
        return [int(row[0]) for row in rows]

    def message_position(self, conversation_id: int, message_id: int) -> int:
        """How many of the conversation's messages come before `message_id` (its offset
        from the oldest, as the conversation pane pages)."""
        with self._db.reading() as conn:
            count: int = conn.execute(
                "SELECT count(*) FROM messages WHERE conversation_id = ? AND id < ?",
                (conversation_id, message_id),
            ).fetchone()[0]
        return count

    # --- embeddings, for semantic recall --------------------------------------------------

    def messages_to_embed(
        self, conversation_id: int, model: str, limit: int = 64, *, first: Sequence[int] = ()
    ) -> list[tuple[int, str]]:
        """(id, content) of finished messages with no embedding by `model` yet: those of
        `first` (what a query needs now), then the newest (the likeliest to be asked about).

        Editing a message deletes its embedding (a trigger), so it comes back here.
        """
        query = (
            "SELECT m.id, m.content FROM messages AS m "
            "LEFT JOIN message_embeddings AS e ON e.message_id = m.id AND e.model = ? "
            "WHERE m.conversation_id = ? AND m.status IN ('complete', 'interrupted') "
            "AND e.message_id IS NULL "
        )
        rows: list[tuple[int, str]] = []
        with self._db.reading() as conn:
            wanted = list(dict.fromkeys(first))[:limit]
            if wanted:
                marks = ", ".join("?" * len(wanted))
                rows = conn.execute(
                    query + f"AND m.id IN ({marks}) ORDER BY m.id DESC",
                    (model, conversation_id, *wanted),
                ).fetchall()
            if len(rows) < limit:
                taken = [message_id for message_id, _ in rows]
                marks = ", ".join("?" * len(taken))
                rows += conn.execute(
                    query
                    + (f"AND m.id NOT IN ({marks}) " if taken else "")
                    + "ORDER BY m.id DESC LIMIT ?",
                    (model, conversation_id, *taken, limit - len(rows)),
                ).fetchall()
        return [(int(message_id), str(content)) for message_id, content in rows]

    def save_embeddings(self, model: str, rows: Sequence[tuple[int, str, bytes]]) -> list[int]:
        """Store (message id, the content that was embedded, vector bytes) for `model`, and
        return the ids stored.

        A message deleted or edited since its content was read is skipped: its vector would
        stand for text it no longer holds (an edit brings it back to `messages_to_embed`).
        """
        saved: list[int] = []
        with self._db.transaction() as conn:
            for message_id, content, vector in rows:
                cursor = conn.execute(
                    "INSERT INTO message_embeddings (message_id, model, vector) "
                    "SELECT ?, ?, ? WHERE EXISTS "
                    "(SELECT 1 FROM messages WHERE id = ? AND content = ?) "
                    "ON CONFLICT (message_id, model) DO UPDATE SET vector = excluded.vector",
                    (message_id, model, vector, message_id, content),
                )
                if cursor.rowcount:
                    saved.append(message_id)
        return saved

    def load_embeddings(self, conversation_id: int, model: str) -> list[tuple[int, bytes]]:
        """(message id, vector bytes) of the conversation's embedded messages, oldest first."""
        with self._db.reading() as conn:
            rows = conn.execute(
                f"SELECT e.message_id, e.vector {_CONVERSATION_VECTORS} ORDER BY e.message_id",
                (conversation_id, model),
            ).fetchall()
        return [(int(message_id), bytes(vector)) for message_id, vector in rows]

    def embedded_ids(self, conversation_id: int, model: str) -> set[int]:
        """The ids of the conversation's messages that have a vector by `model` now."""
        with self._db.reading() as conn:
            rows = conn.execute(
                f"SELECT e.message_id {_CONVERSATION_VECTORS}",
                (conversation_id, model),
            ).fetchall()
        return {int(message_id) for (message_id,) in rows}

    def embeddings_of(self, message_ids: Collection[int], model: str) -> list[tuple[int, bytes]]:
        """(message id, vector bytes) by `model` of those of `message_ids` that have one."""
        found: list[tuple[int, bytes]] = []
        with self._db.reading() as conn:
            for chunk in chunks_of(message_ids):
                marks = ", ".join("?" * len(chunk))
                found += conn.execute(
                    "SELECT message_id, vector FROM message_embeddings "
                    f"WHERE model = ? AND message_id IN ({marks}) ORDER BY message_id",
                    (model, *chunk),
                ).fetchall()
        return [(int(message_id), bytes(vector)) for message_id, vector in found]


def _fts_rows(conn: sqlite3.Connection, query: str, parameters: list[object]) -> list[Any]:
    """The rows of a full-text query; none for an expression FTS5 cannot parse, which finds
    nothing rather than failing the plan."""
    try:
        return conn.execute(query, parameters).fetchall()
    except sqlite3.OperationalError:
        return []
