"""Planner: the plan of the next request of the conversation on screen, kept up to date."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from textual import on
from textual.message import Message
from textual.reactive import var
from textual.timer import Timer

from ctxchat.chat.changes import MEMORY, ChangeLog, plan_key
from ctxchat.chat.counted_first import count_first, counted_already
from ctxchat.chat.session import ChatSession
from ctxchat.core.budget import BudgetError
from ctxchat.core.plan import ContextPlan
from ctxchat.store import NotFound
from ctxchat.tui.on_screen import OnScreen
from ctxchat.tui.parts.part import Part

BIG_DRAFT = 50_000
"""Drafts longer than this are planned in a thread, so a huge paste never stalls typing."""
TYPING_PAUSE = 0.4
"""Seconds of no typing before the server is asked to count the draft's request."""
BURST = 0.05
"""Seconds without a keystroke that end a burst: keystrokes in a burst make one plan."""


class Planner(Part):
    """Plans the next request of the conversation on screen, with the draft: at once, or in
    a thread for a huge draft. `plan` is the plan drawn for it: the screen watches it and
    draws each new one.

    It follows the state, not calls: whatever changes what the next request would hold
    (a message, memory, the summary, the mode, the model, the window, the server's counts,
    recall's vectors) is told to the run's `ChangeLog`, which the planner watches; a draft
    typed plans once its burst ends (`typed`). A conversation drawn afresh starts with no
    plan to compare its first one with (`afresh`).
    """

    plan: var[ContextPlan | None] = var(None, always_update=True, init=False)
    """The plan for the conversation on screen: what its next request sends."""
    _draft: str | None = None
    _asked = 0

    def __init__(self, draft: Callable[[], str | None]) -> None:
        """`draft` reads the draft being typed (None: none)."""
        super().__init__()
        self._read_draft = draft
        self._log: ChangeLog | None = None
        self._stop_watching: Callable[[], None] | None = None
        self._burst: Timer | None = None
        self._due = False

    @dataclass
    class _PlannedInThread(Message):
        session: ChatSession
        plan: ContextPlan

    @dataclass
    class _Changed(Message):
        """`key` changed in the run's `ChangeLog` (told from any thread)."""

        key: int | str

    def watch_shown(self, shown: OnScreen | None) -> None:
        log = None if shown is None else ChangeLog.of(shown.session.store)
        if log is self._log:
            return
        self._stop()
        self._log = log
        if log is not None:
            self._stop_watching = log.watch(lambda key: self.post_message(self._Changed(key)))

    def on_unmount(self) -> None:
        self._stop()

    def _stop(self) -> None:
        if self._stop_watching is not None:
            self._stop_watching()
            self._stop_watching = None

    @on(_Changed)
    def _changed(self, event: _Changed) -> None:
        event.stop()
        shown = self.shown
        if shown is None:
            return
        conversation_id = shown.session.conversation_id
        if event.key in (conversation_id, plan_key(conversation_id), MEMORY):
            self.plan_soon()

    def plan_soon(self) -> None:
        """Plan again once the changes told so far are all in (several make one plan)."""
        if not self._due:
            self._due = True
            self.call_later(self._plan_due)

    def _plan_due(self) -> None:
        self._due = False
        self.plan_again()

    def typed(self) -> None:
        """The draft changed: plan once the burst of keystrokes ends."""
        if self._burst is not None:
            self._burst.stop()
        self._burst = self.set_timer(BURST, self.plan_again)

    def afresh(self) -> None:
        """The conversation is drawn afresh: plan it, compared with no plan before."""
        self.set_reactive(Planner.plan, None)
        self.plan_again()

    def plan_again(self) -> None:
        """Plan the next request with the draft as it is now (also for a change nothing
        tells: a file changed on disk)."""
        self.plan_with(self._read_draft())

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
        except NotFound:
            return None  # deleted (here, or by another process): the screen opens another
