"""ChatSession: one conversation with one model, as the TUI and `ctxchat send` both use it."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping, Sequence

from ctxchat.chat.attachments import FileAttachments
from ctxchat.chat.context_planning import ContextPlanning
from ctxchat.chat.conversation_cache import ConversationCache
from ctxchat.chat.conversation_writer import ConversationWriter
from ctxchat.chat.memory_book import MemoryBook
from ctxchat.chat.profile_choice import ProfileChoice
from ctxchat.chat.recaller import Recaller
from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.server_counts import ServerCounts
from ctxchat.chat.server_knowledge import ServerKnowledge
from ctxchat.chat.server_talk import ServerTalk
from ctxchat.chat.session_counting import SessionCounting
from ctxchat.chat.session_part import locked
from ctxchat.chat.task_book import TaskBook
from ctxchat.chat.window import WindowInfo
from ctxchat.config.server_facts import ServerFacts
from ctxchat.config.settings import Preset, ProviderProfile, Settings
from ctxchat.core.across import RecallAcross
from ctxchat.core.budget import Budget
from ctxchat.core.history import HistoryMessage
from ctxchat.core.memory import MemoryEntry, Mode
from ctxchat.core.plan import ContextPlan
from ctxchat.core.recall import RecallHit
from ctxchat.core.summary import FoldRange
from ctxchat.core.task import TaskState
from ctxchat.core.tokens import CachingCounter, TokenCounter
from ctxchat.model.backend import ModelBackend, ModelListing
from ctxchat.model.request import ChatRequest, Sampling
from ctxchat.store import Conversation, Store, StoredMessage, SummaryVersion
from ctxchat.store.attachments import Attachment


class OverBudget(Exception):
    """The new message cannot fit even alone; nothing was stored or sent."""

    def __init__(self, plan: ContextPlan) -> None:
        self.plan = plan
        super().__init__(
            f"The message is {plan.over_by:,} tokens over the budget of "
            f"{plan.total_budget:,} tokens; shorten it or raise the context window."
        )


class ChatSession:
    """A conversation, the model it talks to, and the context decisions in between: a
    facade over the parts it owns, each with one job.

    `cache` (`chat/conversation_cache.py`) reads history, memory, the summary in force,
    the task and files once and keeps them, catching up with what other sessions and
    processes wrote; `writer` (`chat/conversation_writer.py`) makes every write and tells
    the cache what changed, so callers never tell it to forget. `choice`
    (`chat/profile_choice.py`) says which profile, preset and system prompt are in force;
    `planning` (`chat/context_planning.py`) plans the next request, with `recaller`,
    `files` and what `server` knows; `talk` (`chat/server_talk.py`) asks the server;
    `counting` holds the counter. The parts share one lock: workers plan too. `plan(draft)`
    is cheap enough to run on every keystroke.
    """

    def __init__(
        self,
        store: Store,
        settings: Settings,
        profile: ProviderProfile,
        conversation_id: int | None,
        *,
        backend: ModelBackend | None = None,
        mode: Mode | None = None,
        window: WindowInfo | None = None,
        counter: TokenCounter | None = None,
        secrets: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        default_profile: ProviderProfile | None = None,
        given_preset: str | None = None,
        model_given: bool = False,
        server: ServerKnowledge | None = None,
        summary_backend: ModelBackend | None = None,
        recall_across: RecallAcross | None = None,
    ) -> None:
        """`default_profile` (else `profile`), `given_preset` and `model_given` are what the
        run was given (see `ProfileChoice`); `server`, `summary_backend` and
        `recall_across` are shared with the session this one is opened from."""
        self.lock = threading.RLock()
        self.store = store
        self.settings = settings
        self.profile = profile
        self.conversation_id = conversation_id
        self.backend = backend
        self.mode = mode or settings.default_mode
        if server is None:
            server = ServerKnowledge(
                window or WindowInfo.for_profile(profile, settings.context_window(profile))
            )
            server.keep_in(store, profile.base_url, profile.model)
        self.server = server
        """What is known of the server: its window, facts, own counts and notes."""
        self.counting = SessionCounting(store, profile.model, counter)
        self.secrets = tuple(secrets)
        self.env = dict(env or {})
        self.recaller = Recaller(self, across=recall_across)
        """Recall: what it finds for a draft here and in other conversations, and its switch."""
        self.cache = ConversationCache(self)
        server.tell = self.cache.plan_changed  # what it learns changes the next request
        self.memory_book = MemoryBook(store, self.cache.memory_changed)
        """Memory entries, to read and to change (each change keeps the cache true)."""
        self.task_book = TaskBook(self)
        """The conversation's task state, to read and to change."""
        self.files = FileAttachments(self)
        """The files attached to the conversation: attach, refresh, detach, compare with disk."""
        self.choice = ProfileChoice(
            self,
            default_profile=default_profile or profile,
            given_preset=given_preset,
            model_given=model_given,
            summary_backend=summary_backend,
        )
        self.writer = ConversationWriter(self)
        self.planning = ContextPlanning(self)
        self.talk = ServerTalk(self)

    # --- what the session knows -------------------------------------------------------

    @property
    def model(self) -> str:
        return self.profile.model

    @property
    def counter(self) -> CachingCounter:
        """The counter of the model in use (see `SessionCounting`)."""
        return self.counting.counter

    @property
    def window(self) -> WindowInfo:
        """The window planned with (see `ServerKnowledge.window`)."""
        return self.server.window

    @property
    def facts(self) -> ServerFacts | None:
        """What the server said about itself (see `ServerKnowledge.facts`)."""
        return self.server.facts

    @property
    def server_counts(self) -> ServerCounts | None:
        """Counts by the server's own tokenizer (see `ServerKnowledge.counts`)."""
        return self.server.counts

    @property
    def semantic(self) -> SemanticRecall | None:
        """Recall by meaning, once the embeddings extra has loaded (see chat/semantic.py)."""
        return self.recaller.semantic

    @semantic.setter
    def semantic(self, semantic: SemanticRecall | None) -> None:
        with self.lock:  # set from the worker that loaded the encoder
            self.recaller.use_semantic(semantic)

    @property
    def budget(self) -> Budget:
        """The budget in force (raises BudgetError when window and reserve cannot work): a
        preset's max_output_tokens is the reply's reserve."""
        return self.server.budget(self.settings, self.profile, self.preset)

    @property
    def default_profile(self) -> ProviderProfile:
        """The profile of a conversation with none chosen for it (see `ProfileChoice`)."""
        return self.choice.default_profile

    @property
    def preset_name(self) -> str | None:
        """The preset in force: the one named for this run, else the conversation's."""
        return self.choice.preset_name

    @property
    def preset(self) -> Preset | None:
        """The settings of the preset in force (None: none, or one the config no longer has)."""
        return self.choice.preset

    @property
    def own_system_prompt(self) -> str | None:
        """The conversation's own system prompt (None: it has none)."""
        return self.choice.own_system_prompt

    @property
    def system_prompt(self) -> str:
        """The system prompt the plan sends (see `ProfileChoice.system_prompt`)."""
        return self.choice.system_prompt

    @property
    def system_prompt_source(self) -> str:
        """Where the system prompt in force comes from, in words."""
        return self.choice.system_prompt_source

    @property
    def sampling(self) -> Sampling:
        """How replies are sampled (see `ProfileChoice.sampling`)."""
        return self.choice.sampling

    @property
    def stored_id(self) -> int:
        """The conversation's id; a session for "no conversation yet" can only plan."""
        if self.conversation_id is None:
            raise ValueError("This session has no conversation to write to.")
        return self.conversation_id

    # --- what was read (see `ConversationCache`) -----------------------------------------

    def invalidate(self) -> None:
        """Forget what was read; the next plan reads the store again (after outside changes)."""
        self.cache.invalidate()

    def catch_up(self) -> bool:
        """Forget what was read if another process has written since; whether it had."""
        return self.cache.catch_up()

    def history(self) -> list[HistoryMessage]:
        return self.cache.history()

    def memory(self) -> list[MemoryEntry]:
        return self.cache.memory()

    def project_id(self) -> int | None:
        """The project the conversation is in (None: none), read with its memory."""
        return self.cache.project_id()

    def active_summary(self) -> SummaryVersion | None:
        return self.cache.active_summary()

    def task(self) -> TaskState:
        """The conversation's task state (empty when it has none)."""
        return self.cache.task()

    def attachments(self) -> list[Attachment]:
        """The files attached to the conversation (see `ConversationCache.attachments`)."""
        return self.cache.attachments()

    def attachments_changed(self) -> None:
        """A file was attached, refreshed or detached: read them again; other sessions too."""
        self.cache.attachments_changed()

    def positions(self) -> dict[int, int]:
        """Each history message's index in the history, by id."""
        return self.cache.positions()

    def remember_message(self, message: StoredMessage) -> None:
        """Take a message stored elsewhere (a finished reply) into the cached history."""
        self.cache.remember(message)

    def forget_memory(self) -> None:
        self.cache.forget_memory()

    def forget_summary(self) -> None:
        self.cache.forget_summary()

    def forget_history(self) -> None:
        self.cache.forget_history()

    # --- planning (see `ContextPlanning`) -------------------------------------------------

    def plan(self, draft: str | None = None, *, before: int | None = None) -> ContextPlan:
        """The context plan of the next request (see `ContextPlanning.plan`)."""
        return self.planning.plan(draft, before=before)

    def pending_fold(self, *, manual: bool = False) -> FoldRange | None:
        """What summarization would fold now (see `ContextPlanning.pending_fold`)."""
        return self.planning.pending_fold(manual=manual)

    @locked
    def recall(self, draft: str | None, upto: int | None = None) -> tuple[RecallHit, ...]:
        """Earlier messages (and memory entries) relevant to `draft` (see `Recaller.recall`)."""
        return self.recaller.recall(draft, upto)

    def request_for(self, plan: ContextPlan, *, model: str | None = None) -> ChatRequest:
        """The request `plan` goes out as: what the client sends and every surface shows."""
        return self.choice.request_for(plan, model=model)

    def with_request(self, plan: ContextPlan) -> ContextPlan:
        """`plan` with the request it goes out as (see `ContextPlan.request`)."""
        return self.choice.with_request(plan)

    def toggle_mode(self) -> Mode:
        self.mode = self.mode.toggled()
        self.cache.plan_changed()
        return self.mode

    def take_run_choices(self, other: ChatSession) -> None:
        """Take the choices that hold for the run, not for one conversation, as `other`
        has them: the mode, and where recall looks besides the conversation."""
        across = other.recaller.across
        if self.mode is other.mode and self.recaller.across is across:
            return
        self.mode = other.mode
        self.recaller.across = across
        self.cache.plan_changed()

    def count(self, role: str, content: str) -> int:
        return self.counting.count(role, content)

    # --- writes (see `ConversationWriter`) -----------------------------------------------

    def add_user_message(self, text: str, *, parent_id: int | None = None) -> StoredMessage:
        return self.writer.add_user_message(text, parent_id=parent_id)

    def edit_message(self, message_id: int, text: str) -> StoredMessage:
        """Rewrite one of the conversation's messages with `text` (counted again)."""
        return self.writer.edit_message(message_id, text)

    def delete_after(self, message_id: int) -> None:
        """Delete the conversation's messages after `message_id` (and what summed them up)."""
        self.writer.delete_after(message_id)

    def keep_variant(self, variant_id: int) -> StoredMessage:
        """Make a variant the reply that continues the conversation (see `Variants.keep_variant`)."""
        return self.writer.keep_variant(variant_id)

    def activate_summary(self, summary_id: int | None) -> None:
        """Put an earlier summary version (or none) in force again."""
        self.writer.activate_summary(summary_id)

    def save_task(self, task: TaskState) -> TaskState:
        """Store `task` as the conversation's task state (see `task_book` for the changes)."""
        return self.writer.save_task(task)

    def set_excluded(self, message_ids: Sequence[int], excluded: bool) -> list[StoredMessage]:
        """Exclude messages from the requests (or include them again): see `chat/exclusions.py`."""
        return self.writer.set_excluded(message_ids, excluded)

    def set_system_prompt(self, text: str | None) -> None:
        """Give the conversation its own system prompt (see `ConversationWriter`)."""
        self.writer.set_system_prompt(text)

    def create_conversation(self, title: str | None = None) -> Conversation:
        """A new, empty conversation (see `ConversationWriter.create_conversation`)."""
        return self.writer.create_conversation(title)

    def delete_conversation(self, conversation_id: int, *, with_memory: bool = False) -> None:
        """Delete a conversation (see `ConversationWriter.delete_conversation`)."""
        self.writer.delete_conversation(conversation_id, with_memory=with_memory)

    def move_to_project(self, project: int | str | None) -> None:
        """Put the conversation in a project (see `ConversationWriter.move_to_project`)."""
        self.writer.move_to_project(project)

    # --- the profile, model and server ------------------------------------------------

    @locked
    def choose_preset(self, name: str | None) -> bool:
        """Make `name` the conversation's preset (None: none), remembered with it. A preset
        that names a model talks to it from now on (the latest choice wins over a model
        chosen before); one that names none goes back to the model chosen for the
        conversation, else its profile's. True when the model changed: its window and
        facts are then worth asking the server for (`learn_server`).

        Raises UnknownPreset (naming the configured ones) for a name the config lacks.
        """
        model = self.choice.choose_preset(name)
        if model is None:
            return False
        self.switch_model(dataclasses.replace(self.profile, model=model), self.backend)
        return True

    @locked
    def switch_model(self, profile: ProviderProfile, backend: ModelBackend | None) -> None:
        """Talk to another profile or model; counts are redone once for the new encoding."""
        self.profile = profile
        self.backend = backend
        # What was learned was the other model's (or the other server's).
        window = WindowInfo.for_profile(profile, self.settings.context_window(profile))
        self.server.forget(window, kept_in=(self.store, profile.base_url, profile.model))
        self.counting.renew(profile.model)
        self.cache.forget_history()
        self.cache.plan_changed()

    def for_conversation(self, conversation_id: int | None) -> ChatSession:
        """A session on another conversation with the same servers, model, mode and window."""
        choice = self.choice
        return ChatSession(
            self.store,
            self.settings,
            self.profile,
            conversation_id,
            backend=self.backend,
            mode=self.mode,
            secrets=self.secrets,
            env=self.env,
            default_profile=choice.default_profile,
            given_preset=choice.given_preset,
            model_given=choice.model_given,
            server=self.server.copy(),
            summary_backend=choice.own_summary_backend,
            recall_across=self.recaller.across,
        )

    async def aclose(self) -> None:
        """Stop the background counting, then close the connections to the model servers."""
        await self.server.stop_counting()
        if self.backend is not None:
            await self.backend.aclose()
        await self.choice.close()

    async def detect_window(self) -> WindowInfo:
        """Ask the server for its context window (configured values still win)."""
        return await self.talk.detect_window()

    async def probe_server(self, listing: ModelListing | None = None) -> ServerFacts | None:
        """Ask the server which it is, its window and whether it counts (see `ServerTalk`)."""
        return await self.talk.probe_server(listing)

    def use_facts(self, facts: ServerFacts | None) -> None:
        """Plan with what an earlier run learned of the server (kept in the state file)."""
        self.talk.use_facts(facts)

    def count_with_server(self, plan: ContextPlan) -> None:
        """Count the plan's messages with the server's tokenizer in the background."""
        self.talk.count_with_server(plan)
