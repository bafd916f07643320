"""A summary being made, as everyone sees it: a second one refused, its progress, its end
(done, failed, cancelled), a dead process's job taken over, and the plan telling it."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator

import pytest

from ctxchat.chat.session import ChatSession
from ctxchat.chat.summarizer import Summarizer, SummaryFailed, SummaryInProgress
from ctxchat.chat.summary_job import JobKind, current_job, running_jobs, wait_for_job
from ctxchat.core.budget import Layer
from ctxchat.core.plan import Reason
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.store import Store
from ctxchat.testing.server import Fault, ScriptedModelServer

from ..waiting import until_awaited
from .conftest import API_KEY
from .test_summary_limits import session_with, talk


@pytest.fixture
async def patient(server: ScriptedModelServer) -> AsyncIterator[OpenAIBackend]:
    """A client that waits out a reply the test holds back."""
    client = OpenAIBackend(server.base_url, API_KEY, chunk_timeout=60, first_chunk_timeout=60)
    yield client
    await client.aclose()


def dropped_details(session: ChatSession) -> set[str]:
    working = session.plan("next").layer(Layer.WORKING)
    return {o.detail for o in working.left_out if o.reason is Reason.BUDGET}


async def test_a_second_summary_while_one_runs_is_refused_and_sees_its_progress(
    store: Store, server: ScriptedModelServer, patient: OpenAIBackend
) -> None:
    session = session_with(store, server, patient, window=1_200)
    talk(session, 24, words=30)
    held = threading.Event()
    server.fail_next(Fault.STALL, until=held)
    fold = session.pending_fold(manual=True)
    assert fold is not None
    running = asyncio.create_task(Summarizer.for_session(session).fold(fold))
    await until_awaited(lambda: server.requests)
    job = current_job(session)
    assert job is not None and job.running and job.kind is JobKind.FOLD
    assert (job.first_message_id, job.last_message_id) == (fold.first_id, fold.last_id)
    assert job.step == 1 and job.steps >= 3
    assert job.describe(job.started_at + 12).startswith(
        f"this process is summarizing messages {fold.first_id}-{fold.last_id}, part 1 of"
    )
    assert job.describe(job.started_at + 12).endswith(", for 12 s")
    assert running_jobs(store) == [job]
    # Meanwhile the turns waiting for it say so.
    assert dropped_details(session) == {
        "dropped: over the working budget, not in the summary yet: being summarized now"
    }
    with pytest.raises(SummaryInProgress, match="already being summarized"):
        await Summarizer.for_session(session).fold(fold)
    assert len(server.requests) == 1  # the second asked nothing
    held.set()
    version = await running
    assert current_job(session) is None
    assert [v.id for v in store.summaries.summaries(session.stored_id)] == [version.id]


async def test_a_failed_summary_is_told_until_the_next_one(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = session_with(store, server, backend, window=1_200)
    talk(session, 24, words=30)
    assert dropped_details(session) == {
        "dropped: over the working budget, not in the summary yet, so the model does not see it"
    }
    server.fail_next(Fault.SERVER_ERROR)
    fold = session.pending_fold(manual=True)
    assert fold is not None
    with pytest.raises(SummaryFailed):
        await Summarizer.for_session(session).fold(fold)
    job = current_job(session)
    assert job is not None and job.failed and not job.running
    assert dropped_details(session) == {
        "dropped: over the working budget, not in the summary yet: the last summary failed "
        "(The model server failed with an internal error (500))"
    }
    server.default_reply = "Done."
    await Summarizer.for_session(session).fold(fold)
    assert current_job(session) is None


async def test_a_cancelled_summary_leaves_no_job_and_no_failure(
    store: Store, server: ScriptedModelServer, patient: OpenAIBackend
) -> None:
    session = session_with(store, server, patient)
    talk(session, 10)
    held = threading.Event()
    server.fail_next(Fault.STALL, until=held)
    fold = session.pending_fold(manual=True)
    assert fold is not None
    running = asyncio.create_task(Summarizer.for_session(session).fold(fold))
    await until_awaited(lambda: current_job(session) is not None and server.requests)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    held.set()
    assert current_job(session) is None
    assert store.summaries.summaries(session.stored_id) == []


async def test_the_job_of_a_process_that_died_is_taken_over(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = session_with(store, server, backend)
    talk(session, 10)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    job = store.summary_jobs.start_summary_job(session.stored_id, JobKind.FOLD, messages=3)
    with store.transaction() as conn:
        conn.execute(
            "UPDATE summary_jobs SET owner = ? WHERE job = ?",
            (f"{socket.gethostname()}/{gone.pid}", job.job),
        )
    stale = store.summary_jobs.summary_job(session.stored_id)
    assert stale is not None and not stale.alive and not stale.running
    assert current_job(session) is None
    await wait_for_job(session)  # nothing to wait for
    server.script("Taken over.")
    fold = session.pending_fold(manual=True)
    assert fold is not None
    version = await Summarizer.for_session(session).fold(fold)
    assert version.text == "Taken over."
