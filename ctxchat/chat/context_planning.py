"""Planning a session's next request: what each layer holds, fitted to the budget and the server."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo
from typing import Protocol

from ctxchat.chat.attachments import FileAttachments
from ctxchat.chat.conversation_cache import ConversationCache
from ctxchat.chat.recaller import Recaller
from ctxchat.chat.server_fit import fit_to_server
from ctxchat.chat.server_knowledge import ServerKnowledge
from ctxchat.chat.session_counting import SessionCounting
from ctxchat.chat.session_part import PartOwner, locked
from ctxchat.chat.summary_notice import with_summary_notices
from ctxchat.core.assemble import assemble_context
from ctxchat.core.budget import Budget, Layer
from ctxchat.core.history import HistoryMessage
from ctxchat.core.memory import MemoryDates, Mode, day
from ctxchat.core.placement import place_system_content
from ctxchat.core.plan import ContextPlan
from ctxchat.core.prefix import shared_prefix
from ctxchat.core.summary import FoldRange, SummaryRun, pending_fold


def local_zone() -> tzinfo:
    """The time zone dates are shown in: the machine's."""
    zone = datetime.now().astimezone().tzinfo
    return zone if zone is not None else UTC


class PlanSource(PartOwner, Protocol):
    """What planning reads of its session: the parts that keep the conversation, recall,
    the files and the server, and what is in force (mode, system prompt, budget)."""

    @property
    def mode(self) -> Mode: ...
    @property
    def system_prompt(self) -> str: ...
    @property
    def budget(self) -> Budget: ...
    @property
    def counting(self) -> SessionCounting: ...
    @property
    def cache(self) -> ConversationCache: ...
    @property
    def recaller(self) -> Recaller: ...
    @property
    def files(self) -> FileAttachments: ...
    @property
    def server(self) -> ServerKnowledge: ...


class ContextPlanning:
    """The plan of a session's next request (`ChatSession.planning`), from what the
    session keeps: cheap enough to run on every keystroke."""

    def __init__(self, session: PlanSource) -> None:
        self._session = session
        self.lock = session.lock

    @locked
    def plan(self, draft: str | None = None, *, before: int | None = None) -> ContextPlan:
        """The context plan of the next request (with `draft` as the new message, if any);
        with `before`, as if the history ended before that message (see `chat/answering.py`).

        It records how much of its start is identical to the previous request's, the part a
        provider's prompt cache can reuse. What another process wrote since the last plan
        (a `ctxchat send` to this conversation) is read first, so the plan never leaves it out.
        """
        session, cache = self._session, self._session.cache
        cache.catch_up()
        plan = self._assemble(draft, upto=None if before is None else cache.positions()[before])
        plan = with_summary_notices(
            plan, session.store, session.conversation_id, cache.active_summary()
        )
        recaller = session.recaller
        notes = [recaller.missing_note(), recaller.embedding_note if draft else ""]
        if any(notes):
            plan = dataclasses.replace(plan, warnings=(*plan.warnings, *filter(None, notes)))
        previous = cache.last_request()
        if previous is None:
            return plan
        prefix = shared_prefix(previous.messages, plan.messages)
        return dataclasses.replace(
            plan, prefix_messages=prefix.messages, prefix_tokens=prefix.tokens
        )

    @locked
    def plan_with_history(
        self, history: Sequence[HistoryMessage], draft: str | None = None
    ) -> ContextPlan:
        """The plan of the next request were the history `history` (a change not made yet:
        messages excluded or included again), to tell what the change would do."""
        self._session.cache.catch_up()
        return self._assemble(draft, history)

    def _assemble(
        self,
        draft: str | None,
        history: Sequence[HistoryMessage] | None = None,
        upto: int | None = None,
    ) -> ContextPlan:
        return fit_to_server(
            lambda budget: self._assemble_in(budget, draft, history, upto), self._session.budget
        )

    def _assemble_in(
        self,
        budget: Budget,
        draft: str | None,
        history: Sequence[HistoryMessage] | None,
        upto: int | None = None,
    ) -> ContextPlan:
        session, cache = self._session, self._session.cache
        counter = session.counting.counter
        counted_as = counter.name
        given = history
        if history is None:
            history = cache.history()[:upto]  # a recount of its messages is kept in their rows
        # What a plan without a draft counts is what the next start's first plan counts.
        with session.counting.keeping() if not draft else contextlib.nullcontext():
            plan = assemble_context(
                budget=budget,
                counter=counter,
                mode=session.mode,
                system_prompt=session.system_prompt,
                memory=cache.memory(),
                summary=cache.summary_state(),
                summary_run=self.summary_run(),
                history=history,
                new_input=draft,
                conversation_id=session.conversation_id,
                project_id=cache.project_id(),
                options=session.settings.context.assembly_options(),
                recall=session.recaller.recall(draft, upto),
                adaptive=session.settings.adaptive(),
                turns=sum(m.role == "user" for m in history) + (draft is not None)
                if upto is not None
                else cache.turns() + (draft is not None),
                dates=self.memory_dates(),
                zone=local_zone(),
                task=cache.task(),
                files=session.files.for_plan(),
                excluded_ids=cache.excluded_ids() if given is None else None,
            )
        if session.counting.counter.name != counted_as:
            # The tokenizer failed to build halfway: count everything again as an estimate.
            return self._assemble_in(budget, draft, given, upto)
        placement = session.settings.context.system_placement
        plan = place_system_content(
            plan,
            placement,
            drops_system=session.server.drops_system,
            counter=session.counting.counter,
        )
        return session.server.annotate(plan, placement)

    def memory_dates(self) -> MemoryDates | None:
        """Today's date for the memory layer, when `[memory] dates` is on (read here, so the
        core never reads the clock)."""
        if not self._session.settings.memory.dates:
            return None
        zone = local_zone()
        return MemoryDates(day(self._session.store.now(), zone), zone)

    def summary_run(self) -> SummaryRun | None:
        """Whether a summary of this conversation is being made (here or by another process),
        or the last one failed: the plan says so of the turns waiting for it."""
        session = self._session
        if session.conversation_id is None:
            return None
        job = session.store.summary_jobs.summary_job(session.conversation_id)
        return None if job is None else job.run()

    @locked
    def pending_fold(self, *, manual: bool = False) -> FoldRange | None:
        """What summarization would fold now: by hand everything but the recent turns,
        automatically only what left working memory once the policy's threshold is met."""
        session = self._session
        policy = session.settings.summary.policy()
        working: set[int] = set()
        if manual or not policy.auto:
            _ = session.budget  # a window and reserve that cannot work are reported all the same
        else:
            # Only automatic folding asks what working memory holds.
            working = {
                int(item.ref.split(":", 1)[1])
                for item in self._assemble(None).layer(Layer.WORKING).items
                if item.ref.startswith("message:")
            }
        return pending_fold(
            session.cache.history(),
            session.cache.summary_state(),
            working,
            policy,
            min_recent=session.settings.context.min_recent,
            manual=manual,
        )
