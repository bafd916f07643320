"""Storing conversations imported from another tool: all of a file in one transaction, each
message counted once, and a conversation imported before found by its id there and left be."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ctxchat.core.history import MessageStatus
from ctxchat.core.tokens import TokenCounter, count_message
from ctxchat.store.conversations import clean_title
from ctxchat.store.database import Database
from ctxchat.store.importers.records import ImportedAnswer, ImportedConversation, ImportedMessage
from ctxchat.store.records import storable


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """What became of one conversation: the id it has here (None in a dry run of a new one),
    and whether it was there already."""

    title: str
    origin_id: str
    messages: int
    answers: int
    conversation_id: int | None
    already: bool


@dataclass(slots=True)
class ImportReport:
    """What an import did (or, in a dry run, would do), conversation by conversation."""

    origin: str
    outcomes: list[ImportOutcome] = field(default_factory=list)
    empty: int = 0
    """Conversations with no message in them, left out."""

    @property
    def added(self) -> list[ImportOutcome]:
        return [outcome for outcome in self.outcomes if not outcome.already]

    @property
    def already(self) -> list[ImportOutcome]:
        return [outcome for outcome in self.outcomes if outcome.already]

    @property
    def messages(self) -> int:
        return sum(outcome.messages for outcome in self.added)

    @property
    def answers(self) -> int:
        return sum(outcome.answers for outcome in self.added)


Progress = Callable[[ImportOutcome], None]


class HistoryImports:
    """Conversations of other tools, stored as ctxchat's own."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def import_history(
        self,
        conversations: Iterable[ImportedConversation],
        origin: str,
        counter: TokenCounter,
        *,
        dry_run: bool = False,
        progress: Progress | None = None,
    ) -> ImportReport:
        """Store every conversation not imported from `origin` before, counting each message
        with `counter` (the count every plan uses). All or nothing: when reading
        `conversations` fails part way (a damaged file), nothing is stored. In a dry run
        nothing is written; the report says what would be."""
        report = ImportReport(origin)
        with self._db.reading() if dry_run else self._db.transaction() as conn:
            for conversation in conversations:
                if not conversation.messages:
                    report.empty += 1
                    continue
                existing = self._imported_as(conn, origin, conversation.origin_id)
                new_id = None
                if existing is None and not dry_run:
                    new_id = self._store_imported(conn, conversation, origin, counter)
                outcome = ImportOutcome(
                    conversation.title,
                    conversation.origin_id,
                    len(conversation.messages),
                    sum(len(m.answers) for m in conversation.messages),
                    existing if existing is not None else new_id,
                    existing is not None,
                )
                report.outcomes.append(outcome)
                if progress is not None:
                    progress(outcome)
        return report

    @staticmethod
    def _imported_as(conn: sqlite3.Connection, origin: str, origin_id: str) -> int | None:
        row = conn.execute(
            "SELECT id FROM conversations WHERE origin = ? AND origin_id = ?", (origin, origin_id)
        ).fetchone()
        return None if row is None else int(row[0])

    def _store_imported(
        self,
        conn: sqlite3.Connection,
        conversation: ImportedConversation,
        origin: str,
        counter: TokenCounter,
    ) -> int:
        now = self._db.now()
        times = [m.created_at for m in conversation.messages if m.created_at is not None]
        created = conversation.created_at or (min(times) if times else now)
        updated = conversation.updated_at or (max(times) if times else created)
        cursor = conn.execute(
            "INSERT INTO conversations (title, model, created_at, updated_at, origin, origin_id) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                clean_title(storable(conversation.title)),
                conversation.model,
                created,
                max(updated, created),
                origin,
                conversation.origin_id,
            ),
        )
        assert cursor.lastrowid is not None
        conversation_id = cursor.lastrowid
        moment = created
        for message in conversation.messages:
            moment = message.created_at or moment
            reply_id = self._store_message(conn, conversation_id, message, moment, counter)
            for answer in message.answers:
                self._store_answer(conn, reply_id, answer, moment, counter)
        return conversation_id

    @staticmethod
    def _store_message(
        conn: sqlite3.Connection,
        conversation_id: int,
        message: ImportedMessage,
        moment: float,
        counter: TokenCounter,
    ) -> int:
        content = storable(message.content)
        count = count_message(counter, message.role, content)
        cursor = conn.execute(
            "INSERT INTO messages (conversation_id, role, content, reasoning, tokens, exact, "
            "encoding, model, status, error, prompt_tokens, completion_tokens, created_at, "
            "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                conversation_id,
                message.role,
                content,
                storable(message.reasoning),
                count.tokens,
                int(count.exact),
                counter.name,
                message.model,
                MessageStatus(message.status).value,
                message.error,
                message.prompt_tokens,
                message.completion_tokens,
                moment,
                moment,
            ),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    @staticmethod
    def _store_answer(
        conn: sqlite3.Connection,
        reply_id: int,
        answer: ImportedAnswer,
        moment: float,
        counter: TokenCounter,
    ) -> None:
        content = storable(answer.content)
        count = count_message(counter, "assistant", content)
        when = answer.created_at or moment
        conn.execute(
            "INSERT INTO reply_variants (reply_id, change, content, reasoning, tokens, exact, "
            "encoding, model, status, plan, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'null', ?, ?)",
            (
                reply_id,
                storable(answer.change),
                content,
                storable(answer.reasoning),
                count.tokens,
                int(count.exact),
                counter.name,
                answer.model,
                MessageStatus.COMPLETE.value,
                when,
                when,
            ),
        )
