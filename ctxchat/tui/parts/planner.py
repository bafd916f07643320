"""Planner: the plan of the next request of the conversation on screen, kept up to date."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.message import Message
from textual.reactive import var

from ctxchat.chat.session import ChatSession
from ctxchat.core.budget import BudgetError
from ctxchat.core.plan import ContextPlan
from ctxchat.tui.parts.part import Part

BIG_DRAFT = 50_000
"""Drafts longer than this are planned in a thread, so a huge paste never stalls typing."""


class Planner(Part):
    """Plans the next request of the conversation on screen, with the draft (`plan_with`):
    at once, or in a thread for a huge draft. `plan` is the plan drawn for it: the screen
    watches it and draws each new one. A conversation drawn afresh starts with none
    (`forget`: nothing to compare its first plan with)."""

    plan: var[ContextPlan | None] = var(None, always_update=True, init=False)
    """The plan for the conversation on screen: what its next request sends."""

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
