"""The summary being made for a conversation, as every process sees it: start one (refused
while another runs), say how far it got, end it, look at it, or wait for it to end."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from ctxchat.chat.session import ChatSession
from ctxchat.core.history import HistoryMessage
from ctxchat.store import Store
from ctxchat.store.summary_jobs import JobKind, SummaryBusy, SummaryJob

__all__ = [
    "JobKind",
    "SummaryBusy",
    "SummaryJob",
    "current_job",
    "running_jobs",
    "summarizing",
    "wait_for_job",
]

# How often a waiting process looks whether the other one has finished.
WAIT_POLL = 0.25


class JobProgress:
    """A job this process runs: `step(n, of)` records how far it got (others read it)."""

    def __init__(self, store: Store, job: SummaryJob) -> None:
        self._store = store
        self.job = job

    def step(self, step: int, steps: int) -> None:
        self.job = self._store.summary_jobs.advance_summary_job(self.job, step, steps)


@contextmanager
def summarizing(
    session: ChatSession, kind: JobKind, messages: Sequence[HistoryMessage]
) -> Iterator[JobProgress]:
    """Record that this process summarizes `messages` of the session's conversation, for
    the `with` block; raises SummaryBusy (nothing started) while another job runs.

    The block ending normally or cancelled removes the record; an exception leaves it
    marked failed, with the exception's text, for the plan to tell until the next job.
    """
    store = session.store
    job = store.summary_jobs.start_summary_job(
        session.stored_id,
        kind,
        first_message_id=messages[0].id if messages else None,
        last_message_id=messages[-1].id if messages else None,
        messages=len(messages),
    )
    progress = JobProgress(store, job)
    try:
        yield progress
    except Exception as error:
        store.summary_jobs.end_summary_job(progress.job, str(error) or type(error).__name__)
        raise
    except BaseException:  # cancelled (the user stopped it, the app quit): nothing failed
        store.summary_jobs.end_summary_job(progress.job)
        raise
    store.summary_jobs.end_summary_job(progress.job)


def current_job(session: ChatSession) -> SummaryJob | None:
    """The conversation's summary job: running (`running`), failed (`failed`, `error`), or
    None. A job whose process died is not running (`alive` False) and reads as None."""
    if session.conversation_id is None:
        return None
    job = session.store.summary_jobs.summary_job(session.conversation_id)
    return job if job is not None and (job.running or job.failed) else None


def running_jobs(store: Store) -> list[SummaryJob]:
    """Every conversation being summarized now, by any process, oldest first."""
    return store.summary_jobs.summary_jobs()


async def wait_for_job(
    session: ChatSession, told: Callable[[SummaryJob], None] | None = None
) -> None:
    """Return once no job summarizes the session's conversation; `told` hears of the one
    waited for, once, first. The session then reads the store again (the job may have
    stored a new version)."""
    told_of: str | None = None
    while (job := current_job(session)) is not None and job.running:
        if told is not None and job.job != told_of:
            told(job)
            told_of = job.job
        await asyncio.sleep(WAIT_POLL)
    session.catch_up()
