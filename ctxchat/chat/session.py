"""ChatSession: one conversation with one model, as the TUI and `ctxchat send` both use it."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.window import WindowInfo
from ctxchat.config.settings import ProviderProfile, Settings
from ctxchat.core.assemble import assemble_context
from ctxchat.core.budget import Budget, Layer
from ctxchat.core.history import HistoryMessage, SummaryState, preview
from ctxchat.core.memory import MemoryEntry, Mode
from ctxchat.core.plan import ContextPlan
from ctxchat.core.prefix import shared_prefix
from ctxchat.core.recall import (
    RecallCandidate,
    RecallHit,
    distinctive_terms,
    fts_query,
    matched_terms,
    query_terms,
    rank_recall,
)
from ctxchat.core.summary import FoldRange, SummaryStrategy, pending_fold
from ctxchat.core.tokens import (
    CachingCounter,
    DeferredCounter,
    TokenCounter,
    count_message,
)
from ctxchat.model.backend import ModelBackend
from ctxchat.model.errors import ProviderError
from ctxchat.store import Store, StoredMessage, StoreError, SummaryVersion


class OverBudget(Exception):
    """The new message cannot fit even alone; nothing was stored or sent."""

    def __init__(self, plan: ContextPlan) -> None:
        self.plan = plan
        super().__init__(
            f"The message is {plan.over_by:,} tokens over the budget of "
            f"{plan.total_budget:,} tokens; shorten it or raise the context window."
        )


TITLE_WIDTH = 48
"""The most characters of a conversation's first message its automatic title keeps."""


@dataclass
class SessionCache:
    """What the session read from the store, kept until something changes it."""

    history: list[HistoryMessage] | None = None
    memory: list[MemoryEntry] | None = None
    summary: SummaryVersion | None = None
    summary_loaded: bool = False
    positions: dict[int, int] | None = None
    last_request: ContextPlan | None = None
    last_request_loaded: bool = False
    turns: int | None = None
    recall: dict[str, tuple[RecallHit, ...]] = field(default_factory=dict)
    counted_as: str = ""
    """The counter's name when `history` was read (a failed tokenizer turns it to estimate)."""


class ChatSession:
    """A conversation, the model it talks to, and the context decisions in between.

    It reads history, memory and the active summary from the store once and keeps them;
    every method that changes them goes through the session so the cache stays true.
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
        self.store = store
        self.settings = settings
        self.profile = profile
        self.conversation_id = conversation_id
        self.backend = backend
        self.mode = mode or settings.default_mode
        self.window = window or WindowInfo.without_server(
            profile.model, settings.context_window(profile)
        )
        self._keeps_as: str | None = None
        self.counter = self._counter_for(profile.model, counter)
        self.secrets = tuple(secrets)
        self.env = dict(env or {})
        self._cache = SessionCache()
        # Set by the app once the embeddings extra has loaded (see chat/semantic.py).
        self.semantic: SemanticRecall | None = None

    # --- what the session knows -------------------------------------------------------

    @property
    def model(self) -> str:
        return self.profile.model

    @property
    def budget(self) -> Budget:
        """The budget in force (raises BudgetError when window and reserve cannot work)."""
        return self.settings.budget(self.profile, self.window.context_window)

    def invalidate(self) -> None:
        """Forget what was read; the next plan reads the store again (after outside changes)."""
        self._cache = SessionCache()

    def history(self) -> list[HistoryMessage]:
        if self._cache.counted_as != self.counter.name:
            self.forget_history()
            self._cache.counted_as = self.counter.name
        if self._cache.history is None and self.conversation_id is None:
            self._cache.history = []
        if self._cache.history is None:
            counter = self.counter
            self._cache.history = self.store.history(
                self.conversation,
                counter.name,
                self.count,
                exact=counter.exact,
            )
        return self._cache.history

    def memory(self) -> list[MemoryEntry]:
        if self._cache.memory is None:
            self._cache.memory = self.store.list_memory(conversation_id=self.conversation_id)
        return self._cache.memory

    def active_summary(self) -> SummaryVersion | None:
        if not self._cache.summary_loaded:
            self._cache.summary = (
                None
                if self.conversation_id is None
                else self.store.active_summary(self.conversation_id)
            )
            self._cache.summary_loaded = True
        return self._cache.summary

    def summary_state(self) -> SummaryState | None:
        summary = self.active_summary()
        return summary.state() if summary is not None else None

    def _positions(self) -> dict[int, int]:
        if self._cache.positions is None:
            self._cache.positions = {m.id: i for i, m in enumerate(self.history())}
        return self._cache.positions

    def _turns(self) -> int:
        if self._cache.turns is None:
            self._cache.turns = sum(1 for m in self.history() if m.role == "user")
        return self._cache.turns

    def recall(self, draft: str | None) -> tuple[RecallHit, ...]:
        """Earlier messages (and memory entries) relevant to `draft`, best first."""
        settings = self.settings.recall
        if not draft or not settings.enabled or self.conversation_id is None:
            return ()
        cached = self._cache.recall.get(draft)
        if cached is not None:
            return cached
        terms = query_terms(draft)
        kept, _skipped = distinctive_terms(terms, self.store.term_documents(terms))
        history = self.history()
        positions = self._positions()
        newest = len(history) - 1
        recent = self.settings.context.min_recent
        # The newest messages are always in working memory: no need to find them.
        before = history[-recent].id if recent and len(history) >= recent else None

        def age_of(message_id: int) -> int:
            return newest - positions.get(message_id, newest)

        candidates: list[RecallCandidate] = []
        if kept:
            candidates = self.store.search_messages(
                self.conversation,
                fts_query(kept),
                limit=settings.limit,
                before_id=before,
                age_of=age_of,
            )
        semantic = self.semantic
        if semantic is not None and settings.semantic and semantic.ready:
            from ctxchat.embeddings import fuse

            # Meaning finds what shares no words with the draft ("which DB did we pick?").
            candidates = fuse(
                candidates, semantic.candidates(draft, settings.limit, before, age_of)
            )
        hits: tuple[RecallHit, ...] = ()
        if candidates or kept:
            candidates.extend(self._memory_candidates(kept, candidates))
            hits = tuple(rank_recall(candidates, kept, settings.half_life))
        if len(self._cache.recall) > 16:
            self._cache.recall.clear()
        self._cache.recall[draft] = hits
        return hits

    def _memory_candidates(
        self, terms: list[str], found: list[RecallCandidate]
    ) -> list[RecallCandidate]:
        """Memory entries matching the terms; the plan recalls only those its memory layer
        had to drop for budget. Relevance: the share of terms matched, on the messages' scale."""
        if not terms:
            return []
        scale = max((-c.bm25 for c in found), default=5.0) or 5.0
        candidates = []
        for entry in self.memory():
            matched = matched_terms(entry.text, terms)
            if matched and entry.enabled:
                relevance = scale * len(matched) / len(terms)
                candidates.append(
                    RecallCandidate(
                        entry.ref,
                        "memory",
                        entry.text,
                        self.count("system", entry.text),
                        -relevance,
                        0,
                    )
                )
        return candidates

    def last_request(self) -> ContextPlan | None:
        """The plan of the newest reply: what the previous request sent."""
        if not self._cache.last_request_loaded:
            reply = next((m for m in reversed(self.history()) if m.role == "assistant"), None)
            self._cache.last_request = self.store.load_plan(reply.id) if reply is not None else None
            self._cache.last_request_loaded = True
        return self._cache.last_request

    def plan(self, draft: str | None = None) -> ContextPlan:
        """The context plan of the next request (with `draft` as the new message, if any).

        It records how much of its start is identical to the previous request's, the part a
        provider's prompt cache can reuse.
        """
        plan = self._assemble(draft)
        previous = self.last_request()
        if previous is None:
            return plan
        prefix = shared_prefix(previous.messages, plan.messages)
        return dataclasses.replace(
            plan, prefix_messages=prefix.messages, prefix_tokens=prefix.tokens
        )

    def remember_request(self, plan: ContextPlan) -> None:
        """`plan` was just sent: the next request's prefix is measured against it."""
        self._cache.last_request = plan
        self._cache.last_request_loaded = True

    def _assemble(self, draft: str | None) -> ContextPlan:
        counted_as = self.counter.name
        history = self.history()  # a recount of its messages is kept in their rows
        # What a plan without a draft counts is what the next start's first plan counts.
        with self.keeping() if not draft else contextlib.nullcontext():
            plan = assemble_context(
                budget=self.budget,
                counter=self.counter,
                mode=self.mode,
                system_prompt=self.settings.context.system_prompt,
                memory=self.memory(),
                summary=self.summary_state(),
                history=history,
                new_input=draft,
                conversation_id=self.conversation_id,
                options=self.settings.context.assembly_options(),
                recall=self.recall(draft),
                adaptive=self.settings.recall.policy(),
                turns=self._turns() + (draft is not None),
            )
        if self.counter.name != counted_as:
            # The tokenizer failed to build halfway: count everything again as an estimate.
            return self._assemble(draft)
        return plan

    def _counter_for(self, model: str, counter: TokenCounter | None = None) -> CachingCounter:
        """A counter for `model` that, with the model's own tokenizer, uses and adds to the
        counts the store keeps: what a plan needs besides the draft is counted only once."""
        if counter is not None:
            self._keeps_as = None
            return CachingCounter(counter)
        deferred = DeferredCounter(model)
        self._keeps_as = deferred.name
        return CachingCounter(deferred, kept=self.store.kept_counts(deferred.name))

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
                self.store.keep_counts(encoding, counted)
            except StoreError:
                return  # kept counts only save time: the plan stands without them
            counter.keep(counted)

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

    def add_user_message(self, text: str, *, parent_id: int | None = None) -> StoredMessage:
        message = self.store.add_message(
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
        conversation = self.store.get_conversation(self.conversation)
        if conversation.title or self.store.count_messages(self.conversation) != 1:
            return
        title = preview(message.content, TITLE_WIDTH)
        if title.endswith("…"):  # cut at a word, not inside one
            title = title[:-1].rsplit(" ", 1)[0].rstrip() + "…"
        self.store.rename_conversation(self.conversation, title)

    def _remember(self, message: StoredMessage) -> None:
        self._cache.positions = None
        self._cache.turns = None
        self._cache.recall.clear()
        if self._cache.history is not None:
            self._cache.history = [m for m in self._cache.history if m.id != message.id]
            self._cache.history.append(message.to_history())
            self._cache.history.sort(key=lambda m: m.id)

    def remember_message(self, message: StoredMessage) -> None:
        """Take a message stored elsewhere (a finished reply) into the cached history."""
        self._remember(message)

    def delete_after(self, message_id: int) -> None:
        """Delete the conversation's messages after `message_id` (and what summed them up)."""
        self.store.delete_messages_after(self.conversation, message_id)
        self.forget_history()  # the summary is read again too

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
    ) -> SummaryVersion:
        """Store `text`, counted, as the next summary version and put it in force."""
        version = self.store.add_summary(
            self.conversation,
            text=text,
            first_message_id=first_message_id,
            last_message_id=last_message_id,
            strategy=strategy,
            model=model,
            tokens=self.counter.count_text(text),
            edited=edited,
            note=note,
        )
        self.forget_summary()
        return version

    def forget_recall(self) -> None:
        """New vectors arrived: recall results may change."""
        self._cache.recall.clear()

    def forget_memory(self) -> None:
        self._cache.memory = None
        self._cache.recall.clear()

    def forget_summary(self) -> None:
        self._cache.summary_loaded = False
        self._cache.summary = None

    def forget_history(self) -> None:
        self._cache = SessionCache(
            memory=self._cache.memory,
            last_request=self._cache.last_request,
            last_request_loaded=self._cache.last_request_loaded,
        )

    def switch_model(self, profile: ProviderProfile, backend: ModelBackend | None) -> None:
        """Talk to another profile or model; counts are redone once for the new encoding."""
        self.profile = profile
        self.backend = backend
        self.window = WindowInfo.without_server(
            profile.model, self.settings.context_window(profile)
        )
        self.counter = self._counter_for(profile.model)
        self.forget_history()

    async def detect_window(self) -> WindowInfo:
        """Ask the server for its context window (configured values still win)."""
        configured = self.settings.context_window(self.profile)
        if configured > 0 or self.backend is None:
            return self.window
        try:
            info = await self.backend.describe_server(self.model, None)
        except ProviderError:
            return self.window
        if info.context_window:
            self.window = WindowInfo(info.context_window, info.window_source, info.warnings)
        elif info.warnings:
            self.window = WindowInfo(
                self.window.context_window, self.window.source, self.window.warnings + info.warnings
            )
        return self.window
