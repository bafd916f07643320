"""A job that takes a while is seen until it ends: the jobs line (what, seconds, the key that
cancels it), F3 during a summary, and no second summary of the same turns, from this app or
while another process makes one."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.summarize_preview import SummarizePreview
from ctxchat.tui.screens.summary_review import SummaryReview
from ctxchat.tui.screens.summary_versions import SummaryScreen
from ctxchat.tui.textual_compat import FooterKey
from ctxchat.tui.widgets.jobs_line import JobsLine

from .app_harness import SIZE, MakeApp, Notes, exchange, seed, settle, until

SMALL_WORKING = "[context]\nmin_recent = 2\n[summary]\nauto = false\n"
OURS = re.compile(r"^Summarizing 6 messages · (\d+) s · f9 cancels$")


def jobs_text(app: CtxChatApp) -> str:
    """The jobs line as drawn ("" while it is hidden)."""
    line = app.conversation_screen.query_one(JobsLine)
    return str(line.render()) if line.display else ""


def footer_keys(app: CtxChatApp) -> list[str]:
    return [key.description for key in app.screen.query(FooterKey)]


def versions(app: CtxChatApp) -> list[str]:
    session = app.conversation_screen.session
    return [v.text for v in session.store.summaries.summaries(session.stored_id)]


@dataclass
class Summarizing:
    """An app whose summary of four exchanges is running, its request held by the model
    until `release` is set."""

    app: CtxChatApp
    pilot: Pilot[Any]
    notes: Notes
    release: threading.Event


@asynccontextmanager
async def summarizing(make_app: MakeApp, server: ScriptedModelServer) -> AsyncIterator[Summarizing]:
    """Ctrl+S and the preview confirmed, once the model has the request (no job was shown
    before it)."""
    app, notes = make_app(extra=SMALL_WORKING)
    seed(
        app.workspace.store,
        exchange(4),
        conversation_id=app.conversation_screen.session.stored_id,
    )
    release = threading.Event()
    server.fail_next(Fault.STALL, until=release)
    server.script("They asked four questions about the database.")
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert jobs_text(app) == ""
            assert "Cancel job" not in footer_keys(app)
            await pilot.press("ctrl+s")
            assert isinstance(app.screen, SummarizePreview)
            await pilot.press("enter")
            await until(pilot, lambda: len(server.requests) == 1)
            yield Summarizing(app, pilot, notes, release)
    finally:
        release.set()


async def test_a_summary_is_shown_with_its_seconds_until_it_ends(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    async with summarizing(make_app, server) as running:
        app, pilot = running.app, running.pilot
        await until(pilot, lambda: OURS.match(jobs_text(app)))
        first = jobs_text(app)
        await until(pilot, lambda: "Cancel job" in footer_keys(app))
        # The seconds go on while it runs.
        await until(pilot, lambda: jobs_text(app) != first)
        assert OURS.match(jobs_text(app))
        # It ends while a dialog is open: the line goes, and the key with it once back.
        await pilot.press("f3")
        assert isinstance(app.screen, SummaryScreen)
        running.release.set()
        await until(pilot, lambda: jobs_text(app) == "")
        await settle(pilot)
        # The summary made is shown for review over the versions; kept, it is in force.
        assert isinstance(app.screen, SummaryReview)
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("escape")
        assert versions(app) == ["They asked four questions about the database."]
        await until(pilot, lambda: "Cancel job" not in footer_keys(app))


async def test_the_cancel_key_stops_a_summary_and_leaves_no_version(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    async with summarizing(make_app, server) as running:
        app, pilot = running.app, running.pilot
        await until(pilot, lambda: OURS.match(jobs_text(app)))
        await pilot.press("f9")
        await until(pilot, lambda: jobs_text(app) == "")
        await settle(pilot)
        session = app.conversation_screen.session
        assert versions(app) == []
        assert session.store.summary_jobs.summary_job(session.stored_id) is None
        assert (
            "Cancelled: Summarizing 6 messages. The summary in force stays as it was."
            in running.notes.messages
        )


async def test_f3_during_a_summary_shows_it_and_offers_no_second_one(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    async with summarizing(make_app, server) as running:
        app, pilot = running.app, running.pilot
        await pilot.press("f3")
        screen = app.screen
        assert isinstance(screen, SummaryScreen)
        progress = screen.query_one("#summary-progress", Static)
        assert re.match(
            r"^Summarizing messages #1–#6 \(6 messages\) now · \d+ s · f9 cancels$",
            str(progress.render()),
        )
        empty = str(screen.query_one("#summary-empty", Static).render())
        assert empty == "No summary yet: the first one is being made (above)."
        assert "Summarize now" not in footer_keys(app)
        assert "Cancel" in footer_keys(app)
        await pilot.press("ctrl+s")  # not offered: nothing happens
        assert app.screen is screen
        await pilot.press("f9")  # cancels from the dialog too
        await until(pilot, lambda: jobs_text(app) == "")
        await settle(pilot)
        assert versions(app) == []
        assert len(server.requests) == 1


async def test_a_second_summarize_while_one_runs_is_refused(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    async with summarizing(make_app, server) as running:
        app, pilot = running.app, running.pilot
        await pilot.press("ctrl+s")
        assert app.screen is app.conversation_screen  # no preview of a second one
        assert running.notes.of("warning") == [
            "A summary is already being made (Summarizing 6 messages): wait for it to "
            "finish, or f9 cancels it."
        ]
        running.release.set()
        await until(pilot, lambda: isinstance(app.screen, SummaryReview))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert versions(app) == ["They asked four questions about the database."]
        assert len(server.requests) == 1


# Another ctxchat process: it records a summary job of conversation 1 at step 2 of 5, says
# "ready", and ends the job when its stdin closes.
OTHER_PROCESS = """
import sys
from ctxchat.store import Store
from ctxchat.store.summary_jobs import JobKind
with Store.open(sys.argv[1]) as store:
    job = store.summary_jobs.start_summary_job(
        1, JobKind.FOLD, first_message_id=1, last_message_id=6, messages=6, steps=5
    )
    job = store.summary_jobs.advance_summary_job(job, 2, 5)
    print("ready", flush=True)
    sys.stdin.read()
    store.summary_jobs.end_summary_job(job)
"""


@contextmanager
def another_process_summarizing(database: Path) -> Iterator[subprocess.Popen[str]]:
    """A real second process summarizing conversation 1, until the block ends."""
    other = subprocess.Popen(
        [sys.executable, "-c", OTHER_PROCESS, str(database)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout is not None and other.stdout.readline() == "ready\n"
        yield other
    finally:
        if other.stdin is not None:
            other.stdin.close()
        other.wait(timeout=30)


async def test_a_summary_another_process_makes_is_shown_and_not_made_twice(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app(extra=SMALL_WORKING)
    seed(
        app.workspace.store,
        exchange(4),
        conversation_id=app.conversation_screen.session.stored_id,
    )
    with another_process_summarizing(app.workspace.store.path) as other:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await until(
                pilot,
                lambda: re.match(
                    r"^Another ctxchat is summarizing this conversation · step 2 of 5 · \d+ s$",
                    jobs_text(app),
                ),
            )
            assert "Cancel job" not in footer_keys(app)  # not this app's to cancel

            await pilot.press("ctrl+s")
            assert app.screen is app.conversation_screen
            [refused] = notes.of("warning")
            assert refused.startswith(
                "Another ctxchat is already summarizing this conversation: process "
                f"{other.pid} is summarizing messages 1-6, part 2 of 5, for "
            )
            assert refused.endswith(" s. Wait for it to finish; F3 shows how far it got.")

            await pilot.press("f3")
            screen = app.screen
            assert isinstance(screen, SummaryScreen)
            progress = str(screen.query_one("#summary-progress", Static).render())
            assert re.match(
                r"^Summarizing messages #1–#6 \(6 messages\) now · step 2 of 5 · \d+ s · in "
                rf"another ctxchat \(process {other.pid}\): wait for it to finish$",
                progress,
            )
            assert "Cancel" not in footer_keys(app)
            assert "Summarize now" not in footer_keys(app)
            await pilot.press("escape")

            assert other.stdin is not None
            other.stdin.close()
            other.wait(timeout=30)
            # The other process ended its job: the line goes (the app looks every second).
            await until(pilot, lambda: jobs_text(app) == "")
            assert server.requests == []


async def test_an_automatic_summary_cancelled_waits_until_the_user_summarizes(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    # On a slow model every reply waits behind a summary the server is making: one the user
    # cancelled must not begin again at the next reply.
    app, notes = make_app(
        extra="[context]\nmin_recent = 2\n", context_window=1200, output_reserve=100
    )
    seed(
        app.workspace.store,
        exchange(40, topic="the database we picked for the orders service last spring"),
        conversation_id=app.conversation_screen.session.stored_id,
    )
    release = threading.Event()
    # The reply comes at once; the fold of what left working memory after it is held.
    server.fail_next(Fault.STALL, seconds=0)
    server.fail_next(Fault.STALL, until=release)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press(*"Next?", "enter")
            await until(pilot, lambda: jobs_text(app).startswith("Folding "))
            folding = len(server.requests)
            await pilot.press("f9")
            await until(pilot, lambda: jobs_text(app) == "")
            release.set()
            assert any(
                note.endswith(
                    "The summary in force stays as it was. Automatic summaries of this "
                    "conversation wait until you summarize (^s)."
                )
                for note in notes.messages
            )
            await pilot.press(*"And then?", "enter")
            await until(pilot, lambda: len(server.requests) == folding + 1)
            await settle(pilot)
            assert server.requests[-1]["messages"][-1]["content"] == "And then?"
            assert jobs_text(app) == ""
            assert versions(app) == []
            # Summarizing by hand is still there, and lets automatic summaries go on.
            await pilot.press("ctrl+s")
            assert isinstance(app.screen, SummarizePreview)
    finally:
        release.set()
