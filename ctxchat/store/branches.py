"""Branches: a new conversation holding a conversation's turns up to an edited message."""

from __future__ import annotations

import sqlite3

from ctxchat.core.history import MessageStatus
from ctxchat.store.conversations import Conversations
from ctxchat.store.database import Database
from ctxchat.store.exclusions import Exclusions
from ctxchat.store.messages import Messages
from ctxchat.store.records import SummaryVersion
from ctxchat.store.summaries import Summaries
from ctxchat.store.tasks import Tasks
from ctxchat.store.transfer import IdMap

_ATTACHMENT_COPIED = (
    "path, name, content, digest, size, mtime, tokens, encoding, parts, attached_at, read_at"
)
_CONVERSATION_KEPT = "chosen_profile, chosen_model, preset, system_prompt, project_id"
"""What a conversation chose for itself, kept by its branches: the same conversation, forked."""
_REPLY_KEPT = (
    "reasoning, finish_reason, error, error_detail, prompt_tokens, completion_tokens, "
    "cached_tokens, estimated_prompt_tokens, billing"
)
"""How each copied turn ended and what it cost (a reply cut at the output limit stays
marked so), besides its text and count."""


class Branches:
    """Copies a conversation's turns (and the summary covering them, its task and its
    attached files) into a branch."""

    def __init__(
        self,
        db: Database,
        *,
        conversations: Conversations,
        messages: Messages,
        exclusions: Exclusions,
        tasks: Tasks,
        summaries: Summaries,
    ) -> None:
        self._db = db
        self._conversations = conversations
        self._messages = messages
        self._exclusions = exclusions
        self._tasks = tasks
        self._summaries = summaries

    def branch_conversation(
        self,
        conversation_id: int,
        message_id: int,
        text: str,
        *,
        tokens: int,
        exact: bool,
        encoding: str,
        model: str | None,
    ) -> int:
        """A new conversation holding the turns before `message_id`, then `text` (counted
        `tokens` with `encoding`) in its place, in one transaction; returns its id.

        The branch is the same conversation, forked: it keeps the original's preset, own
        system prompt, chosen profile and model, project, the memory entries switched off in
        it, its task state and attached files (their copies as read), and the summary that
        covers the turns it copies (see `covering_summary`) as its own first version, so its
        first plan and request are the original's; the copied turns keep how they ended
        (cut at the output limit, failed, what they cost), and the turns the user left out
        stay out. The original conversation is left whole.
        """
        original = self._conversations.get_conversation(conversation_id)
        title = f"{original.title or 'Conversation'} (branch)"
        with self._db.transaction() as conn:
            branch = self._conversations.create_conversation(
                title, model=original.model, profile=original.profile
            )
            conn.execute(
                f"UPDATE conversations SET ({_CONVERSATION_KEPT}) = "
                f"(SELECT {_CONVERSATION_KEPT} FROM conversations WHERE id = ?) WHERE id = ?",
                (original.id, branch.id),
            )
            conn.execute(
                "INSERT INTO memory_off (memory_id, conversation_id) "
                "SELECT memory_id, ? FROM memory_off WHERE conversation_id = ?",
                (branch.id, original.id),
            )
            copies = IdMap()
            excluded: list[int] = []
            for message in self._messages.messages(original.id):
                if message.id >= message_id:
                    break
                if message.status is MessageStatus.STREAMING:
                    continue
                copy = self._messages.add_message(
                    branch.id,
                    message.role,
                    message.content,
                    tokens=message.tokens,
                    exact=message.exact,
                    encoding=message.encoding,
                    model=message.model,
                    status=message.status,
                )
                copies.add(message.id, copy.id)
                self._copy_ending(conn, message.id, copy.id)
                if message.excluded:
                    excluded.append(copy.id)
            self._exclusions.set_excluded(excluded, True)
            self._tasks.save_task(branch.id, self._tasks.task(original.id))
            conn.execute(
                f"INSERT INTO attachments (conversation_id, {_ATTACHMENT_COPIED}) "
                f"SELECT ?, {_ATTACHMENT_COPIED} FROM attachments WHERE conversation_id = ? "
                "ORDER BY id",
                (branch.id, original.id),
            )
            summary = self.covering_summary(original.id, message_id)
            if summary is not None:
                self._copy_summary(summary, branch.id, copies)
            self._messages.add_message(
                branch.id, "user", text, tokens=tokens, exact=exact, encoding=encoding, model=model
            )
        return branch.id

    @staticmethod
    def _copy_ending(conn: sqlite3.Connection, original_id: int, copy_id: int) -> None:
        """The copy of a turn keeps how the original ended."""
        conn.execute(
            f"UPDATE messages SET ({_REPLY_KEPT}) = "
            f"(SELECT {_REPLY_KEPT} FROM messages WHERE id = ?) WHERE id = ?",
            (original_id, copy_id),
        )

    def covering_summary(self, conversation_id: int, message_id: int) -> SummaryVersion | None:
        """The summary a branch made at `message_id` keeps: the one in force if it covers
        only turns before `message_id`; if it covers later turns too, the newest earlier
        version that covers only turns before it (incremental folds make it the same
        summary, shorter). None when no summary is in force."""
        active = self._summaries.active_summary(conversation_id)
        if active is None:
            return None
        if active.last_message_id < message_id:
            return active
        earlier = [
            version
            for version in self._summaries.summaries(conversation_id)
            if version.version < active.version
            and version.last_message_id < message_id
            and not version.waiting
        ]
        return earlier[-1] if earlier else None

    def _copy_summary(self, summary: SummaryVersion, branch_id: int, copies: IdMap) -> None:
        """`summary` as the branch's own version, covering the copies of the turns it covers."""
        first, last = copies.span(summary.first_message_id, summary.last_message_id)
        if first not in copies.ids.values() or last not in copies.ids.values():
            return  # none of the turns it covers was copied
        copied = self._summaries.add_summary(
            branch_id,
            text=summary.text,
            first_message_id=first,
            last_message_id=last,
            strategy=summary.strategy,
            model=summary.model,
            tokens=summary.tokens,
            edited=summary.edited,
            note=f"copied from summary v{summary.version} of conversation "
            f"{summary.conversation_id}",
            cut=summary.cut,
            lost=summary.lost,
        )
        if summary.reviewed:
            self._summaries.mark_summary_reviewed(copied.id)
