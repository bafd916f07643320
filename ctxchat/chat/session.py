"""ChatSession: one conversation with one model, as the TUI and `ctxchat send` both use it."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Concatenate, ParamSpec, TypeVar

from ctxchat.chat.attachments import FileAttachments
from ctxchat.chat.changes import MEMORY, ChangeLog
from ctxchat.chat.connection import make_backend, same_server
from ctxchat.chat.memory_book import MemoryBook
from ctxchat.chat.recaller import Recaller
from ctxchat.chat.rendered import render_request
from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.server_counts import ServerCounts
from ctxchat.chat.server_fit import fit_to_server
from ctxchat.chat.server_knowledge import ServerKnowledge
from ctxchat.chat.summary_notice import with_summary_notices
from ctxchat.chat.task_book import TaskBook
from ctxchat.chat.window import WindowInfo
from ctxchat.config.errors import MissingApiKey
from ctxchat.config.server_facts import ServerFacts
from ctxchat.config.settings import Preset, ProviderProfile, Settings
from ctxchat.core.assemble import assemble_context
from ctxchat.core.budget import Budget, Layer
from ctxchat.core.files import sendable_text, split_into_parts
from ctxchat.core.history import HistoryMessage, SummaryState, preview
from ctxchat.core.memory import MemoryDates, MemoryEntry, Mode, day
from ctxchat.core.placement import place_system_content
from ctxchat.core.plan import ContextPlan
from ctxchat.core.prefix import shared_prefix
from ctxchat.core.recall import RecallHit
from ctxchat.core.server_count import TemplateCost
from ctxchat.core.summary import FoldRange, SummaryRun, SummaryStrategy, pending_fold
from ctxchat.core.summary_loss import LostDetail
from ctxchat.core.task import TaskState
from ctxchat.core.tokens import (
    CachingCounter,
    DeferredCounter,
    TokenCounter,
    count_message,
)
from ctxchat.model.backend import ModelBackend, ModelListing
from ctxchat.model.errors import ProviderError
from ctxchat.model.request import ChatRequest, Sampling, build_chat_request
from ctxchat.store import (
    Conversation,
    InvalidValue,
    NotFound,
    Store,
    StoredMessage,
    StoreError,
    SummaryVersion,
)
from ctxchat.store.attachments import Attachment
from ctxchat.store.memory import UNSET, Unset
from ctxchat.store.projects import project_name


class OverBudget(Exception):
    """The new message cannot fit even alone; nothing was stored or sent."""

    def __init__(self, plan: ContextPlan) -> None:
        self.plan = plan
        super().__init__(
            f"The message is {plan.over_by:,} tokens over the budget of "
            f"{plan.total_budget:,} tokens; shorten it or raise the context window."
        )


def with_preset_model(profile: ProviderProfile, preset: Preset | None) -> ProviderProfile:
    """`profile` talking to the preset's model, when the preset names one."""
    if preset is None or not preset.model:
        return profile
    return dataclasses.replace(profile, model=preset.model)


def conversation_profile(
    default: ProviderProfile,
    settings: Settings,
    conversation: Conversation,
    *,
    preset: str | None = None,
    model_given: bool = False,
) -> ProviderProfile:
    """The profile a conversation talks to: the profile and model chosen for it (F4), else
    `default`; with the model of its preset (`preset`, a preset given for this run, else
    the one it chose) unless a model was chosen for it since, or `model_given` (--model).
    A chosen profile the config no longer has leaves the choice unused."""
    name, model = conversation.chosen_profile, conversation.chosen_model
    profile = default
    if name is not None and name != default.name:
        if name not in settings.profiles:
            name, model = None, None
        else:
            profile = settings.profile(name)
    if (model and preset is None) or model_given:
        return dataclasses.replace(profile, model=model) if model else profile
    chosen = settings.presets.get(preset or conversation.preset or "")
    if chosen is not None and chosen.model:
        return with_preset_model(profile, chosen)
    return dataclasses.replace(profile, model=model) if model else profile


TITLE_WIDTH = 48
"""The most characters of a conversation's first message its automatic title keeps."""


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


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _locked(
    method: Callable[Concatenate[ChatSession, _P], _R],
) -> Callable[Concatenate[ChatSession, _P], _R]:
    """Run `method` holding the session's lock: plans are drawn on the UI thread and in
    workers (a huge draft, the memory usage estimate) at once, over one cache."""

    def locked(self: ChatSession, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            return method(self, *args, **kwargs)

    functools.update_wrapper(locked, method)
    return locked


def local_zone() -> tzinfo:
    """The time zone dates are shown in: the machine's."""
    zone = datetime.now().astimezone().tzinfo
    return zone if zone is not None else UTC


class ChatSession:
    """A conversation, the model it talks to, and the context decisions in between.

    It reads history, memory and the active summary from the store once and keeps them;
    every change to them goes through the session's methods (and `memory_book`), which
    keep the cache true: callers never tell it to forget. What other sessions of this run
    changed (`ChangeLog`) and what other processes wrote (`Store.data_version`) are read
    again before the next plan. The cache is behind a lock: workers may plan too.
    `plan(draft)` is cheap enough to run on every keystroke.
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
    ) -> None:
        self._lock = threading.RLock()
        self.store = store
        self.settings = settings
        self.profile = profile
        self.default_profile = profile
        """The profile of a conversation with none chosen for it (see `conversation_profile`)."""
        self.given_preset: str | None = None
        """A preset named for this run (`--preset`): it wins over the conversation's, and a
        conversation this session starts keeps it."""
        self.model_given = False
        """A model was named for this run (`--model`): a preset's model does not replace it."""
        self.conversation_id = conversation_id
        self.backend = backend
        self.mode = mode or settings.default_mode
        self.server = ServerKnowledge(
            window or WindowInfo.for_profile(profile, settings.context_window(profile))
        )
        """What is known of the server: its window, facts, own counts and notes."""
        self.server.keep_in(store, profile.base_url, profile.model)
        self._keeps_as: str | None = None
        self.counter = self._counter_for(profile.model, counter)
        self.secrets = tuple(secrets)
        self.env = dict(env or {})
        self._cache = SessionCache()
        self._seen_version = store.data_version()
        self._changes = ChangeLog.of(store)
        self._seen_changes = self._change_counts()
        self.memory_book = MemoryBook(store, self._memory_changed)
        """Memory entries, to read and to change (each change keeps this cache true)."""
        self.task_book = TaskBook(self)
        """The conversation's task state, to read and to change."""
        self.files = FileAttachments(self)
        """The files attached to the conversation: attach, refresh, detach, compare with disk."""
        self.recaller = Recaller(self)
        """Recall: what it finds for a draft here and in other conversations, and its switch."""
        # The summarizer's own server, when `[summary] profile` names another one.
        self._summary_backend: ModelBackend | None = None

    # --- what the session knows -------------------------------------------------------

    @property
    def model(self) -> str:
        return self.profile.model

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
        with self._lock:  # set from the worker that loaded the encoder
            self.recaller.use_semantic(semantic)

    @property
    def budget(self) -> Budget:
        """The budget in force (raises BudgetError when window and reserve cannot work): a
        preset's max_output_tokens is the reply's reserve."""
        return self.server.budget(self.settings, self.profile, self.preset)

    @_locked
    def conversation_record(self) -> Conversation | None:
        """The conversation's row as last read (None: no conversation yet)."""
        if self.conversation_id is None:
            return None
        self._catch_up_with_sessions()
        if self._cache.conversation is None:
            try:
                self._cache.conversation = self.store.conversations.get_conversation(
                    self.conversation_id
                )
            except NotFound:
                return None  # deleted by another process: the plan goes on without its choices
        return self._cache.conversation

    @property
    def preset_name(self) -> str | None:
        """The preset in force: the one named for this run, else the conversation's."""
        if self.given_preset is not None:
            return self.given_preset
        record = self.conversation_record()
        return None if record is None else record.preset

    @property
    def preset(self) -> Preset | None:
        """The settings of the preset in force (None: none, or one the config no longer has)."""
        name = self.preset_name
        return None if name is None else self.settings.presets.get(name)

    @property
    def own_system_prompt(self) -> str | None:
        """The conversation's own system prompt (None: it has none)."""
        record = self.conversation_record()
        return None if record is None else record.system_prompt

    @property
    def system_prompt(self) -> str:
        """The system prompt the plan sends: the conversation's own, else its preset's, else
        `[context] system_prompt` ("" sends none)."""
        own = self.own_system_prompt
        if own is not None:
            return own
        preset = self.preset
        if preset is not None and preset.system_prompt is not None:
            return preset.system_prompt
        return self.settings.context.system_prompt

    @property
    def system_prompt_source(self) -> str:
        """Where the system prompt in force comes from, in words."""
        if self.own_system_prompt is not None:
            return "the conversation's own"
        preset = self.preset
        if preset is not None and preset.system_prompt is not None:
            return f'preset "{preset.name}"'
        return "the config ([context] system_prompt)"

    @property
    def sampling(self) -> Sampling:
        """How replies are sampled: the preset's temperature and top_p, else the profile's
        (None: the server's default); the reply's limit is the plan's output reserve."""
        preset = self.preset
        temperature, top_p = self.profile.temperature, self.profile.top_p
        if preset is not None:
            temperature = temperature if preset.temperature is None else preset.temperature
            top_p = top_p if preset.top_p is None else preset.top_p
        return Sampling(temperature, top_p)

    @_locked
    def invalidate(self) -> None:
        """Forget what was read; the next plan reads the store again (after outside changes)."""
        self._cache = SessionCache()
        self.recaller.forget_history()

    @_locked
    def catch_up(self) -> bool:
        """Forget what was read if another process has written since; whether it had."""
        version = self.store.data_version()
        if version == self._seen_version:
            return False
        self._seen_version = version
        self.invalidate()
        return True

    def _change_counts(self) -> tuple[int, int]:
        conversation = self._changes.count(self.conversation_id or 0)
        return conversation, self._changes.count(MEMORY)

    def _catch_up_with_sessions(self) -> None:
        """Forget what another session of this run has changed since it was read."""
        counts = self._change_counts()
        if counts == self._seen_changes:
            return
        if counts[0] != self._seen_changes[0]:
            self.forget_history()
        if counts[1] != self._seen_changes[1]:
            self.forget_memory()
        self._seen_changes = counts

    def _conversation_changed(self) -> None:
        """This session changed its conversation (and its cache to match): the others of
        the run read it again; this one keeps its cache unless another changed it too."""
        if self.conversation_id is None:
            return
        seen, memory = self._seen_changes
        count = self._changes.changed(self.conversation_id)
        self._seen_changes = (count if count == seen + 1 else seen, memory)

    def _memory_changed(self) -> None:
        """Memory changed (through `memory_book`, or extraction): every session reads it again."""
        with self._lock:
            self._changes.changed(MEMORY)
            self.forget_memory()

    @_locked
    def history(self) -> list[HistoryMessage]:
        self._catch_up_with_sessions()
        if self._cache.counted_as != self.counter.name:
            self.forget_history()
            self._cache.counted_as = self.counter.name
        if self._cache.history is None and self.conversation_id is None:
            self._cache.history = []
        if self._cache.history is None:
            counter = self.counter
            self._cache.history = self.store.messages.history(
                self.conversation,
                counter.name,
                self.count,
                exact=counter.exact,
            )
        return self._cache.history

    @_locked
    def memory(self) -> list[MemoryEntry]:
        self._catch_up_with_sessions()
        if self._cache.memory is None:
            self._cache.project_id = self.store.projects.conversation_project(self.conversation_id)
            self._cache.memory = self.store.memory.list_memory(conversation_id=self.conversation_id)
        return self._cache.memory

    @_locked
    def project_id(self) -> int | None:
        """The project the conversation is in (None: none), read with its memory."""
        self.memory()
        return self._cache.project_id

    def move_to_project(self, project: int | str | None) -> None:
        """Put the conversation in a project: by id, or by name (made when there is none
        of that name); None takes it out of its project. Its memory changes with it."""
        if self.conversation_id is None:
            raise InvalidValue("Send a first message: a new conversation is in no project yet.")
        if isinstance(project, str):
            named = {p.name.casefold(): p.id for p in self.store.projects.projects()}
            project = named.get(project_name(project).casefold()) or (
                self.store.projects.create_project(project).id
            )
        self.store.projects.move_to_project(self.conversation_id, project)
        self._memory_changed()

    @_locked
    def user_turns(self) -> int:
        """User turns over every conversation (memory entries record the one they came in)."""
        if self._cache.all_turns is None:
            self._cache.all_turns = self.store.memory.user_turns()
        return self._cache.all_turns

    def memory_dates(self) -> MemoryDates | None:
        """Today's date for the memory layer, when `[memory] dates` is on (read here, so the
        core never reads the clock)."""
        if not self.settings.memory.dates:
            return None
        zone = local_zone()
        return MemoryDates(day(self.store.now(), zone), zone)

    @_locked
    def active_summary(self) -> SummaryVersion | None:
        self._catch_up_with_sessions()
        if not self._cache.summary_loaded:
            self._cache.summary = (
                None
                if self.conversation_id is None
                else self.store.summaries.active_summary(self.conversation_id)
            )
            self._cache.summary_loaded = True
        return self._cache.summary

    def summary_state(self) -> SummaryState | None:
        summary = self.active_summary()
        return summary.state() if summary is not None else None

    @_locked
    def task(self) -> TaskState:
        """The conversation's task state (empty when it has none)."""
        self._catch_up_with_sessions()
        if self._cache.task is None:
            self._cache.task = (
                TaskState()
                if self.conversation_id is None
                else self.store.tasks.task(self.conversation_id)
            )
        return self._cache.task

    @_locked
    def save_task(self, task: TaskState) -> TaskState:
        """Store `task` as the conversation's task state (see `task_book` for the changes)."""
        saved = self.store.tasks.save_task(self.conversation, task)
        self._cache.task = saved
        self._conversation_changed()
        return saved

    @_locked
    def attachments(self) -> list[Attachment]:
        """The files attached to the conversation, counted with this session's counter (a
        file counted with another encoding, or cut at another part size, is counted again
        once, from its copy: the disk is not read)."""
        self._catch_up_with_sessions()
        if self._cache.attachments is None:
            found = (
                []
                if self.conversation_id is None
                else self.store.attachments.attachments(self.conversation_id)
            )
            self._cache.attachments = [self._counted(attachment) for attachment in found]
        return self._cache.attachments

    def _counted(self, attachment: Attachment) -> Attachment:
        counter, part_tokens = self.counter, self.settings.files.part_tokens
        if attachment.encoding == counter.name and attachment.part_tokens == part_tokens:
            return attachment
        text = sendable_text(attachment.content)
        tokens = counter.count_text(text)
        parts = split_into_parts(text, counter, part_tokens)
        with contextlib.suppress(StoreError):  # counted again next time
            self.store.attachments.recount_attachment(
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

    @_locked
    def attachments_changed(self) -> None:
        """A file was attached, refreshed or detached: read them again; other sessions too."""
        self._cache.attachments = None
        self._conversation_changed()

    @_locked
    def set_excluded(self, message_ids: Sequence[int], excluded: bool) -> list[StoredMessage]:
        """Exclude messages from the requests (or include them again): see `chat/exclusions.py`."""
        changed = self.store.exclusions.set_excluded(message_ids, excluded)
        self.forget_history()
        self._conversation_changed()
        return changed

    def _excluded_ids(self) -> list[int]:
        if self._cache.excluded is None:
            self._cache.excluded = [m.id for m in self.history() if m.excluded]
        return self._cache.excluded

    def summary_run(self) -> SummaryRun | None:
        """Whether a summary of this conversation is being made (here or by another process),
        or the last one failed: the plan says so of the turns waiting for it."""
        if self.conversation_id is None:
            return None
        job = self.store.summary_jobs.summary_job(self.conversation_id)
        return None if job is None else job.run()

    def positions(self) -> dict[int, int]:
        """Each history message's index in the history, by id."""
        if self._cache.positions is None:
            self._cache.positions = {m.id: i for i, m in enumerate(self.history())}
        return self._cache.positions

    def _turns(self) -> int:
        if self._cache.turns is None:
            self._cache.turns = sum(1 for m in self.history() if m.role == "user")
        return self._cache.turns

    @_locked
    def recall(self, draft: str | None, upto: int | None = None) -> tuple[RecallHit, ...]:
        """Earlier messages (and memory entries) relevant to `draft` (see `Recaller.recall`)."""
        return self.recaller.recall(draft, upto)

    @_locked
    def last_request(self) -> ContextPlan | None:
        """The plan of the newest reply: what the previous request sent."""
        if not self._cache.last_request_loaded:
            reply = next((m for m in reversed(self.history()) if m.role == "assistant"), None)
            self._cache.last_request = (
                self.store.plans.load_plan(reply.id) if reply is not None else None
            )
            self._cache.last_request_loaded = True
        return self._cache.last_request

    @_locked
    def plan(self, draft: str | None = None, *, before: int | None = None) -> ContextPlan:
        """The context plan of the next request (with `draft` as the new message, if any);
        with `before`, as if the history ended before that message (see `chat/answering.py`).

        It records how much of its start is identical to the previous request's, the part a
        provider's prompt cache can reuse. What another process wrote since the last plan
        (a `ctxchat send` to this conversation) is read first, so the plan never leaves it out.
        """
        self.catch_up()
        plan = self._assemble(draft, upto=None if before is None else self.positions()[before])
        plan = with_summary_notices(plan, self.store, self.conversation_id, self.active_summary())
        notes = [self.recaller.missing_note(), self.recaller.embedding_note if draft else ""]
        if any(notes):
            plan = dataclasses.replace(plan, warnings=(*plan.warnings, *filter(None, notes)))
        previous = self.last_request()
        if previous is None:
            return plan
        prefix = shared_prefix(previous.messages, plan.messages)
        return dataclasses.replace(
            plan, prefix_messages=prefix.messages, prefix_tokens=prefix.tokens
        )

    def request_for(self, plan: ContextPlan, *, model: str | None = None) -> ChatRequest:
        """The request `plan` goes out as: what the client sends and every surface shows."""
        try:
            api_key = self.profile.resolve_api_key(self.env)
        except MissingApiKey:
            api_key = None
        backend = self.backend
        sampling = self.sampling
        return build_chat_request(
            base_url=self.profile.base_url,
            model=model or self.model,
            messages=plan.request_messages(),
            max_tokens=plan.output_reserve,
            temperature=sampling.temperature,
            top_p=sampling.top_p,
            stream_usage=True if backend is None else backend.sends_usage_option,
            api_key=api_key,
            headers=self.profile.headers,
        )

    def with_request(self, plan: ContextPlan) -> ContextPlan:
        """`plan` with the request it goes out as (see `ContextPlan.request`)."""
        if plan.request is not None:
            return plan
        return dataclasses.replace(plan, request=self.request_for(plan).shown())

    @_locked
    def remember_request(self, plan: ContextPlan) -> None:
        """`plan` was just sent: the next request's prefix is measured against it."""
        self._cache.last_request = plan
        self._cache.last_request_loaded = True

    @_locked
    def plan_with_history(
        self, history: Sequence[HistoryMessage], draft: str | None = None
    ) -> ContextPlan:
        """The plan of the next request were the history `history` (a change not made yet:
        messages excluded or included again), to tell what the change would do."""
        self.catch_up()
        return self._assemble(draft, history)

    def _assemble(
        self,
        draft: str | None,
        history: Sequence[HistoryMessage] | None = None,
        upto: int | None = None,
    ) -> ContextPlan:
        return fit_to_server(
            lambda budget: self._assemble_in(budget, draft, history, upto), self.budget
        )

    def _assemble_in(
        self,
        budget: Budget,
        draft: str | None,
        history: Sequence[HistoryMessage] | None,
        upto: int | None = None,
    ) -> ContextPlan:
        counted_as = self.counter.name
        given = history
        if history is None:
            history = self.history()[:upto]  # a recount of its messages is kept in their rows
        # What a plan without a draft counts is what the next start's first plan counts.
        with self.keeping() if not draft else contextlib.nullcontext():
            plan = assemble_context(
                budget=budget,
                counter=self.counter,
                mode=self.mode,
                system_prompt=self.system_prompt,
                memory=self.memory(),
                summary=self.summary_state(),
                summary_run=self.summary_run(),
                history=history,
                new_input=draft,
                conversation_id=self.conversation_id,
                project_id=self.project_id(),
                options=self.settings.context.assembly_options(),
                recall=self.recall(draft, upto),
                adaptive=self.settings.adaptive(),
                turns=sum(m.role == "user" for m in history) + (draft is not None)
                if upto is not None
                else self._turns() + (draft is not None),
                dates=self.memory_dates(),
                zone=local_zone(),
                task=self.task(),
                files=self.files.for_plan(),
                excluded_ids=self._excluded_ids() if given is None else None,
            )
        if self.counter.name != counted_as:
            # The tokenizer failed to build halfway: count everything again as an estimate.
            return self._assemble_in(budget, draft, given, upto)
        placement = self.settings.context.system_placement
        plan = place_system_content(
            plan, placement, drops_system=self.server.drops_system, counter=self.counter
        )
        return self.server.annotate(plan, placement)

    def count_with(self, tokenizer: str, template: TemplateCost | None) -> None:
        """Count with the server's `tokenizer` from now on (see `ServerKnowledge.count_with`)."""
        if self.backend is not None:
            where = f"{self.profile.base_url} {self.model}"
            self.server.count_with(tokenizer, template, self.store, self.backend, where)

    def use_facts(self, facts: ServerFacts | None) -> None:
        """Plan with what an earlier run learned of the server (kept in the state file)."""
        where = f"{self.profile.base_url} {self.model}"
        self.server.use_facts(facts, self.store, self.backend, where)

    def count_with_server(self, plan: ContextPlan) -> None:
        """Count the plan's messages with the server's tokenizer in the background (each text
        once); the next plan drawn uses those counts."""
        self.server.count_texts([m.content for m in plan.messages])

    def render_with_server(self) -> None:
        """Have the server render the next request (no draft) in the background, where it
        renders its chat template: the plan drawn next says what the template adds."""
        if self.server.counts is None or self.backend is None or not self.backend.renders:
            return

        async def render() -> None:
            plan = await asyncio.to_thread(self.plan)
            if plan.messages:
                await render_request(self, plan.request_messages())

        self.server.in_background(render())

    def _counter_for(self, model: str, counter: TokenCounter | None = None) -> CachingCounter:
        """A counter for `model` that, with the model's own tokenizer, uses and adds to the
        counts the store keeps: what a plan needs besides the draft is counted only once."""
        if counter is not None:
            self._keeps_as = None
            return CachingCounter(counter)
        deferred = DeferredCounter(model)
        self._keeps_as = deferred.name
        return CachingCounter(deferred, kept=self.store.counts.kept_counts(deferred.name))

    @contextlib.contextmanager
    def keeping(self) -> Iterator[None]:
        """Keep in the store, for later runs, the count of every text counted inside: the
        texts of a plan without a draft, or the reasoning of the turns on screen.

        The whole set is written each time, so counts the store dropped (an edit, a
        deletion, the cap) come back, and the ones in use stay the newest.
        """
        counter, encoding = self.counter, self._keeps_as
        if encoding is None:
            yield
            return
        with counter.recording() as counted:
            yield
        # Only counts of the tokenizer the kept ones belong to (not of an estimate).
        if counted and counter.name == encoding:
            try:
                self.store.counts.keep_counts(encoding, counted)
            except StoreError:
                return  # kept counts only save time: the plan stands without them
            counter.keep(counted)

    @_locked
    def pending_fold(self, *, manual: bool = False) -> FoldRange | None:
        """What summarization would fold now: by hand everything but the recent turns,
        automatically only what left working memory once the policy's threshold is met."""
        policy = self.settings.summary.policy()
        working: set[int] = set()
        if manual or not policy.auto:
            _ = self.budget  # a window and reserve that cannot work are reported all the same
        else:
            # Only automatic folding asks what working memory holds.
            working = {
                int(item.ref.split(":", 1)[1])
                for item in self._assemble(None).layer(Layer.WORKING).items
                if item.ref.startswith("message:")
            }
        return pending_fold(
            self.history(),
            self.summary_state(),
            working,
            policy,
            min_recent=self.settings.context.min_recent,
            manual=manual,
        )

    # --- changes ----------------------------------------------------------------------

    def toggle_mode(self) -> Mode:
        self.mode = self.mode.toggled()
        return self.mode

    def count(self, role: str, content: str) -> int:
        return count_message(self.counter, role, content).tokens

    @property
    def conversation(self) -> int:
        """The conversation's id; a session for "no conversation yet" can only plan."""
        if self.conversation_id is None:
            raise ValueError("This session has no conversation to write to.")
        return self.conversation_id

    @_locked
    def add_user_message(self, text: str, *, parent_id: int | None = None) -> StoredMessage:
        message = self.store.messages.add_message(
            self.conversation,
            "user",
            text,
            tokens=self.count("user", text),
            exact=self.counter.exact,
            encoding=self.counter.name,
            model=self.model,
            parent_id=parent_id,
        )
        self._remember(message)
        self._title_from_first(message)
        return message

    def _title_from_first(self, message: StoredMessage) -> None:
        """An untitled conversation is named after its first message (no model call; the
        user renames it at will)."""
        conversation = self.store.conversations.get_conversation(self.conversation)
        if conversation.title or self.store.messages.count_messages(self.conversation) != 1:
            return
        title = preview(message.content, TITLE_WIDTH)
        if title.endswith("…"):  # cut at a word, not inside one
            title = title[:-1].rsplit(" ", 1)[0].rstrip() + "…"
        self.store.conversations.rename_conversation(self.conversation, title)

    def _remember(self, message: StoredMessage) -> None:
        self._catch_up_with_sessions()  # what another session changed is read again
        self._cache.positions = None
        self._cache.excluded = None
        self._cache.turns = None
        history = self._cache.history
        self.recaller.took(message.to_history(), new=bool(history and history[-1].id < message.id))
        if history is not None:
            # Built whole, then put in place: a worker may be reading the old list.
            kept = [m for m in history if m.id != message.id]
            kept.append(message.to_history())
            kept.sort(key=lambda m: m.id)
            self._cache.history = kept
        self._conversation_changed()

    @_locked
    def remember_message(self, message: StoredMessage) -> None:
        """Take a message stored elsewhere (a finished reply) into the cached history."""
        self._remember(message)

    @_locked
    def edit_message(self, message_id: int, text: str) -> StoredMessage:
        """Rewrite one of the conversation's messages with `text` (counted again)."""
        message = self.store.messages.update_message_content(
            message_id,
            text,
            tokens=self.count("user", text),
            exact=self.counter.exact,
            encoding=self.counter.name,
        )
        self.forget_history()  # and the summaries made from the old text, which left
        self._conversation_changed()
        return message

    @_locked
    def delete_after(self, message_id: int) -> None:
        """Delete the conversation's messages after `message_id` (and what summed them up)."""
        self.store.messages.delete_messages_after(self.conversation, message_id)
        self.forget_history()  # the summary is read again too
        self._conversation_changed()

    def branch_at(self, message_id: int, text: str) -> int:
        """A branch of this conversation: its turns before `message_id`, then `text` (see
        `Branches.branch_conversation`); returns the branch's id."""
        branch = self.store.branches.branch_conversation(
            self.conversation,
            message_id,
            text,
            tokens=self.count("user", text),
            exact=self.counter.exact,
            encoding=self.counter.name,
            model=self.model,
        )
        self._changes.changed(branch)
        return branch

    @_locked
    def keep_variant(self, variant_id: int) -> StoredMessage:
        """Make a variant the reply that continues the conversation (see `Variants.keep_variant`)."""
        reply = self.store.variants.keep_variant(variant_id)
        self.forget_history()  # the reply's text, count and plan traded places
        self._conversation_changed()
        return reply

    @_locked
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
        version = self.store.summaries.add_summary(
            self.conversation,
            text=text,
            first_message_id=first_message_id,
            last_message_id=last_message_id,
            strategy=strategy,
            model=model,
            tokens=self.counter.count_text(text),
            edited=edited,
            note=note,
            cut=cut,
            lost=lost,
            in_force=in_force,
            faults=faults,
            waiting=waiting,
        )
        self.forget_summary()
        self._conversation_changed()
        return version

    @_locked
    def activate_summary(self, summary_id: int | None) -> None:
        """Put an earlier summary version (or none) in force again."""
        self.store.summaries.activate_summary(self.conversation, summary_id)
        self.forget_summary()
        self._conversation_changed()

    def create_conversation(self, title: str | None = None) -> Conversation:
        """A new, empty conversation on the default profile and its model (a model chosen
        for one conversation belongs to that conversation), with the preset named for this
        run if any."""
        default = self.default_profile
        created = self.store.conversations.create_conversation(
            title, model=default.model, profile=default.name
        )
        if self.given_preset is None:
            return created
        return self.store.conversations.choose_preset(created.id, self.given_preset)

    def remember_model(self) -> None:
        """Remember the profile and model in use for this conversation; the default one
        (with its preset's model) forgets the choice (the configured one applies again)."""
        if self.conversation_id is None:
            return
        profile = self.profile
        unchosen = self._with_preset(self.default_profile)
        chosen = (None, None) if profile == unchosen else (profile.name, profile.model)
        self.store.conversations.choose_model(self.conversation_id, *chosen)
        self.forget_conversation()

    def _with_preset(self, profile: ProviderProfile) -> ProviderProfile:
        """`profile` with the model of the preset in force, unless a model was named."""
        return profile if self.model_given else with_preset_model(profile, self.preset)

    @_locked
    def choose_preset(self, name: str | None) -> bool:
        """Make `name` the conversation's preset (None: none), remembered with it. A preset
        that names a model talks to it from now on (the latest choice wins over a model
        chosen before); one that names none goes back to the model chosen for the
        conversation, else its profile's. True when the model changed: its window and
        facts are then worth asking the server for (`learn_server`).

        Raises UnknownPreset (naming the configured ones) for a name the config lacks.
        """
        preset = None if name is None else self.settings.preset(name)
        conversation = self.conversation
        record = self.store.conversations.choose_preset(conversation, name)
        if preset is not None and preset.model and record.chosen_model is not None:
            record = self.store.conversations.choose_model(
                conversation, record.chosen_profile, None
            )
        self.given_preset = None  # chosen for the conversation now: its own choice applies
        self.forget_conversation()
        self._conversation_changed()
        if self.model_given:
            return False
        base = self.default_profile
        if self.profile.name != base.name:
            base = self.settings.profiles.get(self.profile.name, self.profile)
        wanted = conversation_profile(base, self.settings, record)
        if wanted.model == self.model:
            return False
        self.switch_model(dataclasses.replace(self.profile, model=wanted.model), self.backend)
        return True

    @_locked
    def set_system_prompt(self, text: str | None) -> None:
        """Give the conversation its own system prompt ("" sends none), remembered with it;
        None goes back to its preset's, else the config's. The next plan sends it."""
        self.store.conversations.set_system_prompt(self.conversation, text)
        self.forget_conversation()
        self._conversation_changed()

    def rename_conversation(self, conversation_id: int, title: str) -> Conversation:
        return self.store.conversations.rename_conversation(conversation_id, title)

    def delete_conversation(self, conversation_id: int, *, with_memory: bool = False) -> None:
        """Delete a conversation and everything in it. Its own memory entries are kept, as
        global entries left out until the user includes them; `with_memory` deletes them."""
        self.store.conversations.delete_conversation(conversation_id, with_memory=with_memory)
        self._changes.changed(conversation_id)
        self._memory_changed()

    # What follows drops what was read (the next plan reads the store again). Writes through
    # the session call them; a test that wrote to the store itself may too.

    @_locked
    def forget_conversation(self) -> None:
        """The conversation's row changed (its preset, system prompt or chosen model)."""
        self._cache.conversation = None

    @_locked
    def forget_recall(self) -> None:
        """New vectors arrived: recall results may change."""
        self.recaller.forget()

    @_locked
    def forget_memory(self) -> None:
        self._cache.memory = None
        self.recaller.forget()

    @_locked
    def forget_summary(self) -> None:
        self._cache.summary_loaded = False
        self._cache.summary = None

    @_locked
    def forget_history(self) -> None:
        self._cache = SessionCache(
            memory=self._cache.memory,
            project_id=self._cache.project_id,
            last_request=self._cache.last_request,
            last_request_loaded=self._cache.last_request_loaded,
        )
        self.recaller.forget_history()

    @_locked
    def switch_model(self, profile: ProviderProfile, backend: ModelBackend | None) -> None:
        """Talk to another profile or model; counts are redone once for the new encoding."""
        self.profile = profile
        self.backend = backend
        # What was learned was the other model's (or the other server's).
        window = WindowInfo.for_profile(profile, self.settings.context_window(profile))
        self.server.forget(window, kept_in=(self.store, profile.base_url, profile.model))
        self.counter = self._counter_for(profile.model)
        self.forget_history()

    def for_conversation(self, conversation_id: int | None) -> ChatSession:
        """A session on another conversation with the same servers, model, mode and window."""
        other = ChatSession(
            self.store,
            self.settings,
            self.profile,
            conversation_id,
            backend=self.backend,
            mode=self.mode,
            secrets=self.secrets,
            env=self.env,
        )
        other.server = self.server.copy()
        other._summary_backend = self._summary_backend
        other.default_profile = self.default_profile
        other.given_preset = self.given_preset
        other.model_given = self.model_given
        other.recaller.across = self.recaller.across
        return other

    def summary_profile(self) -> ProviderProfile:
        """The profile summaries are written with (see `Settings.summarizer_profile`)."""
        return self.settings.summarizer_profile(self.profile)

    def summary_backend(self) -> ModelBackend | None:
        """The server summaries are written by: the chat's, unless the summary profile talks
        to another server (or with another key or headers). Raises MissingApiKey."""
        profile = self.summary_profile()
        if self.backend is None or same_server(profile, self.profile, self.env):
            return self.backend
        if self._summary_backend is None:
            self._summary_backend = make_backend(profile, self.env, self.settings.model)
        return self._summary_backend

    async def aclose(self) -> None:
        """Stop the background counting, then close the connections to the model servers."""
        await self.server.stop_counting()
        for backend in (self.backend, self._summary_backend):
            if backend is not None:
                await backend.aclose()
        self._summary_backend = None

    async def detect_window(self) -> WindowInfo:
        """Ask the server for its context window (configured values still win)."""
        if self.settings.context_window(self.profile) > 0:
            return self.window
        await self.probe_server()
        return self.window

    async def probe_server(self, listing: ModelListing | None = None) -> ServerFacts | None:
        """Ask the server which it is, its window for the model and whether it counts
        tokens; plan with that window unless one is configured. None: no answer. `listing`
        is its `/models` answer when it was just received."""
        if self.backend is None:
            return None
        try:
            info = await self.backend.describe_server(self.model, None, listing=listing)
        except ProviderError:
            return None
        where = f"{self.profile.base_url} {self.model}"
        return self.server.learned(
            info,
            configured=self.settings.context_window(self.profile) > 0,
            counting=(self.store, self.backend, where),
        )
