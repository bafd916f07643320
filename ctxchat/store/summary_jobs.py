"""Summaries being made: one row per conversation, seen by every process that opens the store.

A summarization takes a minute on a small model. While it runs, its row says which process
makes it, since when, which messages it folds and how far it got, so a second one (in the
same app or in another process) waits or is refused instead of folding the same turns again.
A row whose process is gone is stale: the next job takes its place. A failed job leaves its
row, with the failure, until the next one starts; a finished or cancelled one removes it.
"""

from __future__ import annotations

import secrets
import socket
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from ctxchat.core.summary import SummaryRun
from ctxchat.store.conversations import require_conversation
from ctxchat.store.database import Database
from ctxchat.store.errors import StoreError
from ctxchat.store.replies import this_writer, writer_alive

_COLUMNS = (
    "conversation_id, job, kind, owner, first_message_id, last_message_id, messages, step, "
    "steps, started_at, updated_at, state, error"
)


class JobKind(StrEnum):
    """What a summary job does: fold new turns in, or rebuild from the originals."""

    FOLD = "fold"
    REBUILD = "rebuild"


class JobState(StrEnum):
    RUNNING = "running"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class SummaryJob:
    """A summary being made for `conversation_id` (or the last one, failed, with `error`).

    `owner` is the process (`host/pid`) making it; `job` tells its row from a later one's.
    `step` of `steps` is how far it got: one step per request to the model. `alive` is
    whether its process may still be at work (False: it died, and the row is stale).
    """

    conversation_id: int
    job: str
    kind: JobKind
    owner: str
    first_message_id: int | None
    last_message_id: int | None
    messages: int
    step: int
    steps: int
    started_at: float
    updated_at: float
    state: JobState
    error: str | None
    alive: bool = True

    @property
    def running(self) -> bool:
        """Being made now, by a process that is still there."""
        return self.state is JobState.RUNNING and self.alive

    @property
    def failed(self) -> bool:
        return self.state is JobState.FAILED

    @property
    def pid(self) -> int | None:
        pid = self.owner.rpartition("/")[2]
        return int(pid) if pid.isdecimal() else None

    @property
    def here(self) -> bool:
        """Made by this process (an app's own worker), not by another one."""
        return self.owner == this_writer()

    def run(self) -> SummaryRun | None:
        """The job as the plan tells it: running, failed, or (stale) nothing."""
        if self.running:
            return SummaryRun(running=True)
        if self.failed:
            return SummaryRun(failure=short_failure(self.error or "it failed"))
        return None

    def elapsed(self, now: float) -> float:
        """Seconds since it started."""
        return max(0.0, now - self.started_at)

    def describe(self, now: float) -> str:
        """One line: what is being summarized, by whom, for how long."""
        what = "rebuilding the summary" if self.kind is JobKind.REBUILD else "summarizing"
        span = (
            f" messages {self.first_message_id}-{self.last_message_id}"
            if self.first_message_id is not None
            else ""
        )
        part = f", part {self.step} of {self.steps}" if self.steps > 1 and self.step else ""
        return f"{self.who()} is {what}{span}{part}, for {self.elapsed(now):.0f} s"

    def who(self) -> str:
        """The process making it: this one, or another's id (and host, if not this one)."""
        host, _, pid = self.owner.rpartition("/")
        if self.here:
            return "this process"
        return f"process {pid}" if host == socket.gethostname() else f"process {pid} on {host}"


def short_failure(error: str, width: int = 100) -> str:
    """A failure as a plan's reason tells it: its first sentence, without the remedy."""
    sentence = error.removeprefix("Summarization failed: ").split(". ", 1)[0].rstrip(".")
    return sentence if len(sentence) <= width else sentence[: width - 1] + "…"


class SummaryBusy(StoreError):
    """Another job is summarizing the conversation; `job` says which."""

    def __init__(self, job: SummaryJob, now: float) -> None:
        self.job = job
        super().__init__(f"This conversation is already being summarized: {job.describe(now)}.")


def _job(row: Any, now: float) -> SummaryJob:
    state = JobState(row[11])
    return SummaryJob(
        conversation_id=row[0],
        job=row[1],
        kind=JobKind(row[2]),
        owner=row[3],
        first_message_id=row[4],
        last_message_id=row[5],
        messages=row[6],
        step=row[7],
        steps=row[8],
        started_at=row[9],
        updated_at=row[10],
        state=state,
        error=row[12],
        alive=state is JobState.FAILED or writer_alive(row[3], row[10], now),
    )


class SummaryJobs:
    """The summary_jobs table: start, advance, end and look at summary jobs."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def start_summary_job(
        self,
        conversation_id: int,
        kind: JobKind,
        *,
        first_message_id: int | None = None,
        last_message_id: int | None = None,
        messages: int = 0,
        steps: int = 1,
    ) -> SummaryJob:
        """Record a new job, unless one is running: then raise SummaryBusy (nothing written).

        The check and the write are one transaction, so two processes starting at once
        cannot both get the conversation.
        """
        now = self._db.now()
        with self._db.transaction() as conn:
            require_conversation(conn, conversation_id)
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM summary_jobs WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()
            if row is not None and (current := _job(row, now)).running:
                raise SummaryBusy(current, now)
            values = (
                conversation_id,
                secrets.token_hex(8),
                kind.value,
                this_writer(),
                first_message_id,
                last_message_id,
                messages,
                0,
                max(1, steps),
                now,
                now,
                JobState.RUNNING.value,
                None,
            )
            conn.execute(
                f"INSERT OR REPLACE INTO summary_jobs ({_COLUMNS}) VALUES ({', '.join('?' * 13)})",
                values,
            )
            return _job(values, now)

    def advance_summary_job(self, job: SummaryJob, step: int, steps: int) -> SummaryJob:
        """Say the job is at request `step` of `steps` (also a sign of life)."""
        now = self._db.now()
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE summary_jobs SET step = ?, steps = ?, updated_at = ? "
                "WHERE conversation_id = ? AND job = ?",
                (step, max(step, steps), now, job.conversation_id, job.job),
            )
        return replace(job, step=step, steps=max(step, steps), updated_at=now)

    def end_summary_job(self, job: SummaryJob, error: str | None = None) -> None:
        """The job is over: done or cancelled (None), its row goes; failed, the row keeps
        the failure for the plan to tell, until the next job."""
        with self._db.transaction() as conn:
            if error is None:
                conn.execute(
                    "DELETE FROM summary_jobs WHERE conversation_id = ? AND job = ?",
                    (job.conversation_id, job.job),
                )
            else:
                conn.execute(
                    "UPDATE summary_jobs SET state = ?, error = ?, updated_at = ? "
                    "WHERE conversation_id = ? AND job = ?",
                    (JobState.FAILED.value, error, self._db.now(), job.conversation_id, job.job),
                )

    def summary_job(self, conversation_id: int) -> SummaryJob | None:
        """The conversation's job: running, failed, or stale (`alive` False); None if none."""
        with self._db.reading() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM summary_jobs WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()
        return None if row is None else _job(row, self._db.now())

    def summary_jobs(self) -> list[SummaryJob]:
        """Every conversation's job that is running now, oldest first."""
        with self._db.reading() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM summary_jobs WHERE state = ? ORDER BY started_at",
                (JobState.RUNNING.value,),
            ).fetchall()
        now = self._db.now()
        return [job for job in (_job(row, now) for row in rows) if job.running]
