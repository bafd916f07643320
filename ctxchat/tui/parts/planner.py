"""Planner: the plan of the next request of the conversation on screen, kept up to date."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from textual import on
from textual.message import Message
from textual.reactive import var

from ctxchat.chat.counted_first import count_first, counted_already
from ctxchat.chat.session import ChatSession
from ctxchat.core.budget import BudgetError
from ctxchat.core.plan import ContextPlan
from ctxchat.tui.parts.part import Part

BIG_DRAFT = 50_000
"""Drafts longer than this are planned in a thread, so a huge paste never stalls typing."""
TYPING_PAUSE = 0.4
"""Seconds of no typing before the server is asked to count the draft's request."""


class Planner(Part):
    """Plans the next request of the conversation on screen, with the draft (`plan_with`):
    at once, or in a thread for a huge draft. `plan` is the plan drawn for it: the screen
    watches it and draws each new one. A conversation drawn afresh starts with none
    (`forget`: nothing to compare its first plan with)."""

    plan: var[ContextPlan | None] = var(None, always_update=True, init=False)
    """The plan for the conversation on screen: what its next request sends."""
    _draft: str | None = None
    _asked = 0

    @dataclass
    class _PlannedInThread(Message):
        session: ChatSession
        plan: ContextPlan

    def forget(self) -> None:
        """The conversation is drawn afresh: its next plan is compared with none."""
        self.set_reactive(Planner.plan, None)

    def plan_with(self, draft: str | None) -> None:
        """Plan the next request with `draft` (None: no draft)."""
        if self.shown is None:
            return
        session = self.shown.session
        self._draft = draft
        if draft is not None and len(draft) > BIG_DRAFT:
            self.run_worker(
                lambda: self._plan_in_thread(session, draft),
                thread=True,
                exclusive=True,
                group="plan",
            )
            return
        plan = self._safe_plan(session, draft)
        if plan is not None:
            self.plan = plan
            self._count_later(session, draft, plan)

    def _count_later(self, session: ChatSession, draft: str | None, plan: ContextPlan) -> None:
        """Where the server counts, have it count (and render) the request once typing
        pauses, and draw the plan again by its count: the panel's figure is the request's."""
        if session.server_counts is None or counted_already(session, plan):
            return
        self._asked += 1
        self.run_worker(self._count_and_plan(session, draft, self._asked), group="server-count")

    async def _count_and_plan(self, session: ChatSession, draft: str | None, asked: int) -> None:
        # Not cancelled by the next keystroke (whoever waits for the workers would see a
        # cancellation): when a newer one asked meanwhile, this one ends.
        await asyncio.sleep(TYPING_PAUSE)
        if asked != self._asked:
            return
        await count_first(session, draft)
        if self.shown is None or self.shown.session is not session or self._draft != draft:
            return
        plan = self._safe_plan(session, draft)
        if plan is not None:
            self.plan = plan

    def _plan_in_thread(self, session: ChatSession, draft: str) -> None:
        plan = self._safe_plan(session, draft)
        if plan is not None:
            self.post_message(self._PlannedInThread(session, plan))

    @on(_PlannedInThread)
    def _planned_in_thread(self, event: _PlannedInThread) -> None:
        event.stop()
        if self.shown is not None and event.session is self.shown.session:
            self.plan = event.plan

    def _safe_plan(self, session: ChatSession, draft: str | None) -> ContextPlan | None:
        try:
            return session.plan(draft)
        except BudgetError as error:
            self.call_later(
                self.notify, f"Budget settings: {error}", severity="error", markup=False
            )
            return None
