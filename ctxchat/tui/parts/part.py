"""Part: a piece of the conversation screen that draws nothing; Flow: one that runs jobs."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from textual.message import Message
from textual.reactive import var
from textual.widget import Widget
from textual.worker import Worker

from ctxchat.chat.session import ChatSession
from ctxchat.tui.on_screen import OnScreen

ResultType = TypeVar("ResultType")


class Part(Widget):
    """A part of the conversation screen that draws nothing. It owns its state and its
    workers; the screen binds `shown` to the conversation on screen, calls its methods, and
    hears its messages."""

    DEFAULT_CSS = """
    Part {
        display: none;
    }
    """

    shown: var[OnScreen | None] = var(None)
    """The conversation on screen (bound to the screen's: `ConversationScreen.shown`)."""

    @property
    def session(self) -> ChatSession | None:
        """The session of the conversation on screen, if one is open."""
        return None if self.shown is None else self.shown.session

    def shows(self, session: ChatSession) -> bool:
        """Whether `session`'s conversation is the one on screen (through any session)."""
        shown = self.shown  # read once: asked for every delta of a reply
        return shown is not None and shown.shows(session)

    def post_up(self, make: Callable[[], Message]) -> None:
        """Post the message `make()` builds from this part's own queue, so that it bubbles
        up to the screen whoever called the part. (Textual lets a message go no further
        than the parent that made it: one made while a parent's call runs, or in a worker
        that call started, would stop at a column.)"""
        self.call_later(lambda: self.post_message(make()))


@dataclass(frozen=True, slots=True)
class Job:
    """A flow's background work: what it does (as the user would say it), since when, and
    the conversation it works on."""

    what: str
    started: float
    """When it began, by the store's clock (`Store.now`): the clock that stamps a summary
    job of another process too, so the jobs line tells every job's seconds alike."""
    conversation_id: int | None = None


class Flow(Part):
    """A part whose work takes a while (asking the model, reading a server): it runs one
    job at a time, in its worker, and says which (`job`) until the job ends."""

    job: var[Job | None] = var(None)
    """The job running now, if one is."""
    after_cancel: ClassVar[str] = ""
    """What the note of a cancelled job adds (what stays as it was)."""

    def run_job(
        self,
        what: str,
        work: Callable[[], Awaitable[ResultType]],
        *,
        group: str,
        session: ChatSession | None = None,
    ) -> Worker[ResultType]:
        """Run `work()` as this flow's job `what`, on `session`'s conversation if given
        (another job of `group` is cancelled)."""
        session = session or self.session
        started = time.time() if session is None else session.store.now()
        conversation = None if session is None else session.conversation_id
        job = Job(what, started, conversation)
        self.job = job

        async def running() -> ResultType:
            try:
                return await work()
            finally:
                if self.job is job:
                    self.job = None

        return self.run_worker(running(), group=group, exclusive=True, exit_on_error=False)

    def progress(self, job: Job) -> str | None:
        """How far `job` got, in words ("step 2 of 5"), when the flow can tell."""
        return None

    def cancel_job(self) -> Job | None:
        """Stop the job running, if one is, and say so; the job stopped."""
        job = self.job
        if job is not None:
            self.workers.cancel_node(self)
            # A worker cancelled before it began never runs its `finally`.
            self.job = None
            self.notify(f"Cancelled: {job.what}.{self.cancelled_note(job)}", markup=False)
        return job

    def cancelled_note(self, job: Job) -> str:
        """What the note of `job`, cancelled, adds (what stays as it was)."""
        return self.after_cancel
