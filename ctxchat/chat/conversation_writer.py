"""Every write a session makes to its conversation, each telling the cache what it changed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ctxchat.chat.conversation_cache import ConversationCache
from ctxchat.chat.profile_choice import ProfileChoice
from ctxchat.chat.session_part import PartOwner, locked
from ctxchat.core.history import preview
from ctxchat.core.summary import SummaryStrategy
from ctxchat.core.summary_loss import LostDetail
from ctxchat.core.task import TaskState
from ctxchat.core.tokens import CachingCounter
from ctxchat.store import Conversation, InvalidValue, StoredMessage, SummaryVersion
from ctxchat.store.memory import UNSET, Unset
from ctxchat.store.projects import project_name

TITLE_WIDTH = 48
"""The most characters of a conversation's first message its automatic title keeps."""


class WriterOwner(PartOwner, Protocol):
    """What the writer reads of its session: the conversation, the counter and model, the
    cache it keeps true and the choices a new conversation starts with."""

    @property
    def counter(self) -> CachingCounter: ...
    @property
    def model(self) -> str: ...
    @property
    def cache(self) -> ConversationCache: ...
    @property
    def choice(self) -> ProfileChoice: ...
    def count(self, role: str, content: str) -> int: ...


class ConversationWriter:
    """The session's writes to the store (`ChatSession.writer`): messages, summaries, the
    task, exclusions, the conversation's own settings and its project. Each tells the
    cache what it changed, so the next plan is true without reading everything again."""

    def __init__(self, session: WriterOwner) -> None:
        self._session = session
        self.lock = session.lock

    @locked
    def add_user_message(self, text: str, *, parent_id: int | None = None) -> StoredMessage:
        session = self._session
        counter = session.counter
        message = session.store.messages.add_message(
            session.stored_id,
            "user",
            text,
            tokens=session.count("user", text),
            exact=counter.exact,
            encoding=counter.name,
            model=session.model,
            parent_id=parent_id,
        )
        session.cache.remember(message)
        self._title_from_first(message)
        return message

    def _title_from_first(self, message: StoredMessage) -> None:
        """An untitled conversation is named after its first message (no model call; the
        user renames it at will)."""
        session = self._session
        conversation = session.store.conversations.get_conversation(session.stored_id)
        if conversation.title or session.store.messages.count_messages(session.stored_id) != 1:
            return
        title = preview(message.content, TITLE_WIDTH)
        if title.endswith("…"):  # cut at a word, not inside one
            title = title[:-1].rsplit(" ", 1)[0].rstrip() + "…"
        session.store.conversations.rename_conversation(session.stored_id, title)

    @locked
    def edit_message(self, message_id: int, text: str) -> StoredMessage:
        """Rewrite one of the conversation's messages with `text` (counted again)."""
        session = self._session
        message = session.store.messages.update_message_content(
            message_id,
            text,
            tokens=session.count("user", text),
            exact=session.counter.exact,
            encoding=session.counter.name,
        )
        session.cache.forget_history()  # and the summaries made from the old text, which left
        session.cache.conversation_changed()
        return message

    @locked
    def delete_after(self, message_id: int) -> None:
        """Delete the conversation's messages after `message_id` (and what summed them up)."""
        session = self._session
        session.store.messages.delete_messages_after(session.stored_id, message_id)
        session.cache.forget_history()  # the summary is read again too
        session.cache.conversation_changed()

    def branch_at(self, message_id: int, text: str) -> int:
        """A branch of this conversation: its turns before `message_id`, then `text` (see
        `Branches.branch_conversation`); returns the branch's id."""
        session = self._session
        branch = session.store.branches.branch_conversation(
            session.stored_id,
            message_id,
            text,
            tokens=session.count("user", text),
            exact=session.counter.exact,
            encoding=session.counter.name,
            model=session.model,
        )
        session.cache.changed_elsewhere(branch)
        return branch

    @locked
    def keep_variant(self, variant_id: int) -> StoredMessage:
        """Make a variant the reply that continues the conversation (see `Variants.keep_variant`)."""
        session = self._session
        reply = session.store.variants.keep_variant(variant_id)
        session.cache.forget_history()  # the reply's text, count and plan traded places
        session.cache.conversation_changed()
        return reply

    @locked
    def add_summary(
        self,
        text: str,
        *,
        first_message_id: int,
        last_message_id: int,
        strategy: SummaryStrategy | str,
        model: str | None,
        edited: bool = False,
        note: str = "",
        cut: bool = False,
        lost: Sequence[LostDetail] = (),
        in_force: int | Unset | None = UNSET,
        faults: Sequence[str] = (),
        waiting: bool = False,
    ) -> SummaryVersion:
        """Store `text`, counted, as the next summary version and put it in force, or hold
        it for review (see `Summaries.add_summary` for `cut`, `lost`, `in_force`, `waiting`)."""
        session = self._session
        version = session.store.summaries.add_summary(
            session.stored_id,
            text=text,
            first_message_id=first_message_id,
            last_message_id=last_message_id,
            strategy=strategy,
            model=model,
            tokens=session.counter.count_text(text),
            edited=edited,
            note=note,
            cut=cut,
            lost=lost,
            in_force=in_force,
            faults=faults,
            waiting=waiting,
        )
        session.cache.forget_summary()
        session.cache.conversation_changed()
        return version

    @locked
    def activate_summary(self, summary_id: int | None) -> None:
        """Put an earlier summary version (or none) in force again."""
        session = self._session
        session.store.summaries.activate_summary(session.stored_id, summary_id)
        session.cache.forget_summary()
        session.cache.conversation_changed()

    @locked
    def mark_summary_reviewed(self, summary_id: int) -> SummaryVersion:
        """The user keeps a version in force as it is: no longer flagged."""
        session = self._session
        version = session.store.summaries.mark_summary_reviewed(summary_id)
        session.cache.forget_summary()
        session.cache.conversation_changed()
        return version

    @locked
    def settle_waiting(self, summary_id: int, *, accepted: bool) -> SummaryVersion | None:
        """A summary held for review goes into force, or is deleted (see
        `Summaries.settle_waiting`)."""
        session = self._session
        version = session.store.summaries.settle_waiting(summary_id, accepted=accepted)
        session.cache.forget_summary()
        session.cache.conversation_changed()
        return version

    @locked
    def save_task(self, task: TaskState) -> TaskState:
        """Store `task` as the conversation's task state (see `task_book` for the changes)."""
        session = self._session
        saved = session.store.tasks.save_task(session.stored_id, task)
        session.cache.task_saved(saved)
        return saved

    @locked
    def set_excluded(self, message_ids: Sequence[int], excluded: bool) -> list[StoredMessage]:
        """Exclude messages from the requests (or include them again): see `chat/exclusions.py`."""
        session = self._session
        changed = session.store.exclusions.set_excluded(message_ids, excluded)
        session.cache.forget_history()
        session.cache.conversation_changed()
        return changed

    @locked
    def set_system_prompt(self, text: str | None) -> None:
        """Give the conversation its own system prompt ("" sends none), remembered with it;
        None goes back to its preset's, else the config's. The next plan sends it."""
        session = self._session
        session.store.conversations.set_system_prompt(session.stored_id, text)
        session.cache.forget_conversation()
        session.cache.conversation_changed()

    def create_conversation(self, title: str | None = None) -> Conversation:
        """A new, empty conversation on the default profile and its model (a model chosen
        for one conversation belongs to that conversation), with the preset named for this
        run if any."""
        session = self._session
        default, preset = session.choice.default_profile, session.choice.given_preset
        created = session.store.conversations.create_conversation(
            title, model=default.model, profile=default.name
        )
        if preset is None:
            return created
        return session.store.conversations.choose_preset(created.id, preset)

    def rename_conversation(self, conversation_id: int, title: str) -> Conversation:
        return self._session.store.conversations.rename_conversation(conversation_id, title)

    def delete_conversation(self, conversation_id: int, *, with_memory: bool = False) -> None:
        """Delete a conversation and everything in it. Its own memory entries are kept, as
        global entries left out until the user includes them; `with_memory` deletes them."""
        session = self._session
        session.store.conversations.delete_conversation(conversation_id, with_memory=with_memory)
        session.cache.changed_elsewhere(conversation_id)
        session.cache.memory_changed()

    def move_to_project(self, project: int | str | None) -> None:
        """Put the conversation in a project: by id, or by name (made when there is none
        of that name); None takes it out of its project. Its memory changes with it."""
        session = self._session
        if session.conversation_id is None:
            raise InvalidValue("Send a first message: a new conversation is in no project yet.")
        if isinstance(project, str):
            named = {p.name.casefold(): p.id for p in session.store.projects.projects()}
            project = named.get(project_name(project).casefold()) or (
                session.store.projects.create_project(project).id
            )
        session.store.projects.move_to_project(session.conversation_id, project)
        session.cache.memory_changed()
