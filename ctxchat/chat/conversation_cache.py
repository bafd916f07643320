"""What a session read of its conversation from the store, kept true until another writer changes it."""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ctxchat.chat.changes import MEMORY, ChangeLog
from ctxchat.chat.session_part import PartOwner, locked
from ctxchat.core.files import sendable_text, split_into_parts
from ctxchat.core.history import HistoryMessage, SummaryState
from ctxchat.core.memory import MemoryEntry
from ctxchat.core.plan import ContextPlan
from ctxchat.core.task import TaskState
from ctxchat.core.tokens import CachingCounter
from ctxchat.store import Conversation, NotFound, StoredMessage, StoreError, SummaryVersion
from ctxchat.store.attachments import Attachment

if TYPE_CHECKING:
    from ctxchat.chat.recaller import Recaller


class CacheOwner(PartOwner, Protocol):
    """What the cache reads of its session (the facade over it and the other parts)."""

    @property
    def counter(self) -> CachingCounter: ...
    @property
    def recaller(self) -> Recaller: ...
    def count(self, role: str, content: str) -> int: ...


@dataclass
class SessionCache:
    """What the session read from the store, kept until something changes it."""

    history: list[HistoryMessage] | None = None
    memory: list[MemoryEntry] | None = None
    project_id: int | None = None
    """The project the conversation is in, read with `memory`."""
    summary: SummaryVersion | None = None
    summary_loaded: bool = False
    positions: dict[int, int] | None = None
    last_request: ContextPlan | None = None
    last_request_loaded: bool = False
    turns: int | None = None
    all_turns: int | None = None
    """User turns over every conversation: the clock unconfirmed hypotheses wait by."""
    counted_as: str = ""
    """The counter's name when `history` was read (a failed tokenizer turns it to estimate)."""
    task: TaskState | None = None
    attachments: list[Attachment] | None = None
    excluded: list[int] | None = None
    """The ids of the excluded messages of `history`, found once it is read."""
    conversation: Conversation | None = None
    """The conversation's row: its preset and own system prompt."""


class ConversationCache:
    """History, memory, summary, task, files and the last request of one session's
    conversation (`ChatSession.cache`), read from the store once and kept.

    What other sessions of this run changed (`ChangeLog`) and what other processes wrote
    (`Store.data_version`) are read again before the next plan. The session's writes tell
    it what they changed (`remember`, `conversation_changed`, the `forget_…` methods).
    """

    def __init__(self, session: CacheOwner) -> None:
        self._session = session
        self.lock = session.lock
        self._cache = SessionCache()
        self._seen_version = session.store.data_version()
        self._changes = ChangeLog.of(session.store)
        self._seen_changes = self._change_counts()

    # --- catching up with other writers -------------------------------------------------

    @locked
    def invalidate(self) -> None:
        """Forget what was read; the next plan reads the store again (after outside changes)."""
        self._cache = SessionCache()
        self._session.recaller.forget_history()

    @locked
    def catch_up(self) -> bool:
        """Forget what was read if another process has written since; whether it had."""
        version = self._session.store.data_version()
        if version == self._seen_version:
            return False
        self._seen_version = version
        self.invalidate()
        return True

    def _change_counts(self) -> tuple[int, int]:
        conversation = self._changes.count(self._session.conversation_id or 0)
        return conversation, self._changes.count(MEMORY)

    def catch_up_with_sessions(self) -> None:
        """Forget what another session of this run has changed since it was read."""
        counts = self._change_counts()
        if counts == self._seen_changes:
            return
        if counts[0] != self._seen_changes[0]:
            self.forget_history()
        if counts[1] != self._seen_changes[1]:
            self.forget_memory()
        self._seen_changes = counts

    def conversation_changed(self) -> None:
        """This session changed its conversation (and its cache to match): the others of
        the run read it again; this one keeps its cache unless another changed it too."""
        conversation_id = self._session.conversation_id
        if conversation_id is None:
            return
        seen, memory = self._seen_changes
        count = self._changes.changed(conversation_id)
        self._seen_changes = (count if count == seen + 1 else seen, memory)

    def plan_changed(self) -> None:
        """What the next request would hold changed, though nothing read needs reading
        again (the mode, the model, the window, the server's counts, recall's vectors)."""
        self._changes.plan_changed(self._session.conversation_id)

    def changed_elsewhere(self, conversation_id: int) -> None:
        """This session changed another conversation (a branch, a deletion): its sessions
        read it again."""
        self._changes.changed(conversation_id)

    def memory_changed(self) -> None:
        """Memory changed (through `memory_book`, or extraction): every session reads it again."""
        with self.lock:
            self._changes.changed(MEMORY)
            self.forget_memory()

    # --- what was read ------------------------------------------------------------------

    @locked
    def record(self) -> Conversation | None:
        """The conversation's row as last read (None: no conversation yet)."""
        conversation_id = self._session.conversation_id
        if conversation_id is None:
            return None
        self.catch_up_with_sessions()
        if self._cache.conversation is None:
            try:
                self._cache.conversation = self._session.store.conversations.get_conversation(
                    conversation_id
                )
            except NotFound:
                return None  # deleted by another process: the plan goes on without its choices
        return self._cache.conversation

    @locked
    def history(self) -> list[HistoryMessage]:
        session = self._session
        self.catch_up_with_sessions()
        if self._cache.counted_as != session.counter.name:
            self.forget_history()
            self._cache.counted_as = session.counter.name
        if self._cache.history is None and session.conversation_id is None:
            self._cache.history = []
        if self._cache.history is None:
            counter = session.counter
            self._cache.history = session.store.messages.history(
                session.stored_id,
                counter.name,
                session.count,
                exact=counter.exact,
            )
        return self._cache.history

    @locked
    def memory(self) -> list[MemoryEntry]:
        session = self._session
        self.catch_up_with_sessions()
        if self._cache.memory is None:
            self._cache.project_id = session.store.projects.conversation_project(
                session.conversation_id
            )
            self._cache.memory = session.store.memory.list_memory(
                conversation_id=session.conversation_id
            )
        return self._cache.memory

    @locked
    def project_id(self) -> int | None:
        """The project the conversation is in (None: none), read with its memory."""
        self.memory()
        return self._cache.project_id

    @locked
    def user_turns(self) -> int:
        """User turns over every conversation (memory entries record the one they came in)."""
        if self._cache.all_turns is None:
            self._cache.all_turns = self._session.store.memory.user_turns()
        return self._cache.all_turns

    @locked
    def active_summary(self) -> SummaryVersion | None:
        conversation_id = self._session.conversation_id
        self.catch_up_with_sessions()
        if not self._cache.summary_loaded:
            self._cache.summary = (
                None
                if conversation_id is None
                else self._session.store.summaries.active_summary(conversation_id)
            )
            self._cache.summary_loaded = True
        return self._cache.summary

    def summary_state(self) -> SummaryState | None:
        summary = self.active_summary()
        return summary.state() if summary is not None else None

    @locked
    def task(self) -> TaskState:
        """The conversation's task state (empty when it has none)."""
        conversation_id = self._session.conversation_id
        self.catch_up_with_sessions()
        if self._cache.task is None:
            self._cache.task = (
                TaskState()
                if conversation_id is None
                else self._session.store.tasks.task(conversation_id)
            )
        return self._cache.task

    @locked
    def task_saved(self, task: TaskState) -> None:
        """`task` was stored as the conversation's task state."""
        self._cache.task = task
        self.conversation_changed()

    @locked
    def attachments(self) -> list[Attachment]:
        """The files attached to the conversation, counted with this session's counter (a
        file counted with another encoding, or cut at another part size, is counted again
        once, from its copy: the disk is not read)."""
        conversation_id = self._session.conversation_id
        self.catch_up_with_sessions()
        if self._cache.attachments is None:
            found = (
                []
                if conversation_id is None
                else self._session.store.attachments.attachments(conversation_id)
            )
            self._cache.attachments = [self._counted(attachment) for attachment in found]
        return self._cache.attachments

    def _counted(self, attachment: Attachment) -> Attachment:
        session = self._session
        counter, part_tokens = session.counter, session.settings.files.part_tokens
        if attachment.encoding == counter.name and attachment.part_tokens == part_tokens:
            return attachment
        text = sendable_text(attachment.content)
        tokens = counter.count_text(text)
        parts = split_into_parts(text, counter, part_tokens)
        with contextlib.suppress(StoreError):  # counted again next time
            session.store.attachments.recount_attachment(
                attachment.id,
                tokens=tokens,
                encoding=counter.name,
                part_tokens=part_tokens,
                parts=parts,
                digest=attachment.digest,
            )
        return dataclasses.replace(
            attachment,
            content=text,
            tokens=tokens,
            encoding=counter.name,
            part_tokens=part_tokens,
            parts=parts,
        )

    @locked
    def attachments_changed(self) -> None:
        """A file was attached, refreshed or detached: read them again; other sessions too."""
        self._cache.attachments = None
        self.conversation_changed()

    def excluded_ids(self) -> list[int]:
        if self._cache.excluded is None:
            self._cache.excluded = [m.id for m in self.history() if m.excluded]
        return self._cache.excluded

    def positions(self) -> dict[int, int]:
        """Each history message's index in the history, by id."""
        if self._cache.positions is None:
            self._cache.positions = {m.id: i for i, m in enumerate(self.history())}
        return self._cache.positions

    def turns(self) -> int:
        """The conversation's user turns."""
        if self._cache.turns is None:
            self._cache.turns = sum(1 for m in self.history() if m.role == "user")
        return self._cache.turns

    @locked
    def last_request(self) -> ContextPlan | None:
        """The plan of the newest reply: what the previous request sent."""
        if not self._cache.last_request_loaded:
            reply = next((m for m in reversed(self.history()) if m.role == "assistant"), None)
            self._cache.last_request = (
                self._session.store.plans.load_plan(reply.id) if reply is not None else None
            )
            self._cache.last_request_loaded = True
        return self._cache.last_request

    @locked
    def remember_request(self, plan: ContextPlan) -> None:
        """`plan` was just sent: the next request's prefix is measured against it."""
        self._cache.last_request = plan
        self._cache.last_request_loaded = True

    # --- what changed ---------------------------------------------------------------------

    @locked
    def remember(self, message: StoredMessage) -> None:
        """Take a message stored (a user's, a finished reply) into the cached history."""
        self.catch_up_with_sessions()  # what another session changed is read again
        self._cache.positions = None
        self._cache.excluded = None
        self._cache.turns = None
        history = self._cache.history
        new = bool(history and history[-1].id < message.id)
        self._session.recaller.took(message.to_history(), new=new)
        if history is not None:
            # Built whole, then put in place: a worker may be reading the old list.
            kept = [m for m in history if m.id != message.id]
            kept.append(message.to_history())
            kept.sort(key=lambda m: m.id)
            self._cache.history = kept
        self.conversation_changed()

    # What follows drops what was read (the next plan reads the store again). Writes through
    # the session call them; a test that wrote to the store itself may too.

    @locked
    def forget_conversation(self) -> None:
        """The conversation's row changed (its preset, system prompt or chosen model)."""
        self._cache.conversation = None

    @locked
    def forget_recall(self) -> None:
        """New vectors arrived: recall results may change."""
        self._session.recaller.forget()
        self.plan_changed()

    @locked
    def forget_memory(self) -> None:
        self._cache.memory = None
        self._session.recaller.forget()

    @locked
    def forget_summary(self) -> None:
        self._cache.summary_loaded = False
        self._cache.summary = None

    @locked
    def forget_history(self) -> None:
        self._cache = SessionCache(
            memory=self._cache.memory,
            project_id=self._cache.project_id,
            last_request=self._cache.last_request,
            last_request_loaded=self._cache.last_request_loaded,
        )
        self._session.recaller.forget_history()
