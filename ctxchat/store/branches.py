"""Branches: a new conversation holding a conversation's turns up to an edited message."""

from __future__ import annotations

from ctxchat.core.history import MessageStatus
from ctxchat.store.attachments import AttachmentStore
from ctxchat.store.exclusions import ExclusionStore
from ctxchat.store.messages import MessageStore
from ctxchat.store.records import SummaryVersion
from ctxchat.store.tasks import TaskStore
from ctxchat.store.transfer import IdMap

_ATTACHMENT_COPIED = (
    "path, name, content, digest, size, mtime, tokens, encoding, parts, attached_at, read_at"
)


class BranchStore(ExclusionStore, TaskStore, AttachmentStore, MessageStore):
    """Copies a conversation's turns (and the summary covering them, its task and its
    attached files) into a branch."""

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

        The branch also gets the summary that covers the turns it copies (see
        `covering_summary`), as its own first version, and the original's task state and
        attached files (their copies as read), so its first plan shows what the original's
        showed; the turns the user left out stay out. The original conversation is left whole.
        """
        original = self.get_conversation(conversation_id)
        title = f"{original.title or 'Conversation'} (branch)"
        with self.transaction() as conn:
            branch = self.create_conversation(title, model=original.model, profile=original.profile)
            copies = IdMap()
            excluded: list[int] = []
            for message in self.messages(original.id):
                if message.id >= message_id:
                    break
                if message.status is MessageStatus.STREAMING:
                    continue
                copy = self.add_message(
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
                if message.excluded:
                    excluded.append(copy.id)
            self.set_excluded(excluded, True)
            self.save_task(branch.id, self.task(original.id))
            conn.execute(
                f"INSERT INTO attachments (conversation_id, {_ATTACHMENT_COPIED}) "
                f"SELECT ?, {_ATTACHMENT_COPIED} FROM attachments WHERE conversation_id = ? "
                "ORDER BY id",
                (branch.id, original.id),
            )
            summary = self.covering_summary(original.id, message_id)
            if summary is not None:
                self._copy_summary(summary, branch.id, copies)
            self.add_message(
                branch.id, "user", text, tokens=tokens, exact=exact, encoding=encoding, model=model
            )
        return branch.id

    def covering_summary(self, conversation_id: int, message_id: int) -> SummaryVersion | None:
        """The summary a branch made at `message_id` keeps: the one in force if it covers
        only turns before `message_id`; if it covers later turns too, the newest earlier
        version that covers only turns before it (incremental folds make it the same
        summary, shorter). None when no summary is in force."""
        active = self.active_summary(conversation_id)
        if active is None:
            return None
        if active.last_message_id < message_id:
            return active
        earlier = [
            version
            for version in self.summaries(conversation_id)
            if version.version < active.version and version.last_message_id < message_id
        ]
        return earlier[-1] if earlier else None

    def _copy_summary(self, summary: SummaryVersion, branch_id: int, copies: IdMap) -> None:
        """`summary` as the branch's own version, covering the copies of the turns it covers."""
        first, last = copies.span(summary.first_message_id, summary.last_message_id)
        if first not in copies.ids.values() or last not in copies.ids.values():
            return  # none of the turns it covers was copied
        self.add_summary(
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
        )
