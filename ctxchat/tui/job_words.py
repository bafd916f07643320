"""Jobs in words: a job of this app, a summary another ctxchat makes, a summary in progress
as the summary versions (F3) tell it."""

from __future__ import annotations

from dataclasses import dataclass

from ctxchat.chat.summary_job import JobKind, SummaryJob
from ctxchat.tui.parts.part import Job

CANCEL = "jobs.cancel"
"""The binding that cancels this app's jobs."""


@dataclass(frozen=True, slots=True)
class InProgress:
    """A summary being made, as a dialog shows it: its line, and whether this app makes
    it (then the cancel key stops it)."""

    text: str
    cancellable: bool


def seconds(elapsed: float) -> str:
    return f"{max(0, int(elapsed))} s"


def steps(job: SummaryJob) -> str | None:
    """How far a summary job got, when it takes more than one request."""
    return f"step {job.step} of {job.steps}" if job.steps > 1 and job.step else None


def job_line(job: Job, progress: str | None, now: float, cancel_key: str) -> str:
    """One job of this app: "Summarizing 6 messages · step 2 of 5 · 34 s · f9 cancels"."""
    parts = [job.what, progress, seconds(now - job.started), f"{cancel_key} cancels"]
    return " · ".join(part for part in parts if part)


def other_line(job: SummaryJob, now: float) -> str:
    """A summary another process makes of the conversation on screen."""
    what = (
        "rebuilding this conversation's summary"
        if job.kind is JobKind.REBUILD
        else "summarizing this conversation"
    )
    parts = [f"Another ctxchat is {what}", steps(job), seconds(job.elapsed(now))]
    return " · ".join(part for part in parts if part)


def summary_progress(job: SummaryJob, now: float, cancel_key: str) -> str:
    """The summary being made, as the summary versions (F3) say it: its messages, how far
    it got, for how long, and who makes it (and how to stop it, when it is this app)."""
    what = "Rebuilding the summary from" if job.kind is JobKind.REBUILD else "Summarizing"
    span = (
        f" messages #{job.first_message_id}–#{job.last_message_id}"
        if job.first_message_id is not None
        else ""
    )
    count = f" ({job.messages} messages)" if job.messages else ""
    parts = [f"{what}{span}{count} now", steps(job), seconds(job.elapsed(now))]
    if job.here:
        parts.append(f"{cancel_key} cancels")
    else:
        parts.append(f"in another ctxchat ({job.who()}): wait for it to finish")
    return " · ".join(part for part in parts if part)
