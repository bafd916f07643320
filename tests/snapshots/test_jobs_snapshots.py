"""A summary being made, seen: the jobs line under the conversation, and the summary versions
(F3) while it runs. The store's clock is the test's, so the seconds shown are fixed."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.widgets.jobs_line import JobsLine

from ..waiting import until
from .snapshot_apps import NOW, BuildApp, Clock, RunBefore, say

SnapCompare = Callable[..., bool]
NARROW = (80, 24)
LARGE = (160, 45)
SMALL_WORKING = "[context]\nmin_recent = 2\n[summary]\nauto = false\n"


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=["gpt-4o"], requires_key=TEST_KEY) as running:
        yield running


@pytest.fixture
def held(server: ScriptedModelServer) -> Iterator[threading.Event]:
    """The summarizer's request is held until the test is over."""
    release = threading.Event()
    server.fail_next(Fault.STALL, until=release)
    server.script("Backups run nightly.")
    yield release
    release.set()


@pytest.fixture
def backups(build: BuildApp, server: ScriptedModelServer, held: threading.Event) -> CtxChatApp:
    """Four exchanges about backups, on the scripted server (which holds the summary)."""
    app = build(base_url=server.base_url, extra=SMALL_WORKING)
    store = app.workspace.store
    conversation = app.conversation_screen.session.stored_id
    for n in range(1, 5):
        say(store, conversation, "user", f"Question {n} about backups?")
        say(store, conversation, "assistant", f"Answer {n}: they run nightly.")
    return app


def summarizing_for(clock: Clock, seconds: float, *keys: str) -> RunBefore:
    """Summarize now (ctrl+s, confirmed); once the model has the request and the jobs line
    shows it, `seconds` pass on the store's clock; then `keys`."""

    async def run(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, CtxChatApp)
        await pilot.pause()
        await pilot.press("ctrl+s", "enter")
        line = app.conversation_screen.query_one(JobsLine)
        await until(pilot, lambda: line.display and "0 s" in str(line.render()))
        clock.now = NOW + seconds
        await until(pilot, lambda: f"{seconds:.0f} s" in str(line.render()))
        if keys:
            await pilot.press(*keys)
            await pilot.pause()
        for screen in app.screen_stack:
            for widget in screen.query("Input, TextArea"):
                assert isinstance(widget, Input | TextArea)
                widget.cursor_blink = False
        await pilot.pause()

    return run


class TestJobsLine:
    def test_narrow(self, backups: CtxChatApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """The newest messages; under them, above the status line (`reply: ctxchat 12`),
        the accent line `Summarizing 6 messages · 34 s · f9 cancels`; the footer holds
        `f9 Cancel job` after `^o Mode`."""
        assert snap_compare(backups, run_before=summarizing_for(clock, 34), terminal_size=NARROW)

    def test_at_160x45(self, backups: CtxChatApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """As narrow, with the context side on the right; the jobs line spans only the
        conversation column."""
        assert snap_compare(backups, run_before=summarizing_for(clock, 34), terminal_size=LARGE)


class TestSummaryVersionsWhileSummarizing:
    def test_narrow(self, backups: CtxChatApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """F3 during the summary: `Summary versions` with the accent line `Summarizing
        messages #1–#6 (6 messages) now · 12 s · f9 cancels` at the top and, under it, `No
        summary yet: the first one is being made (above).`; the footer holds `f9 Cancel` and
        no `Summarize now`."""
        assert snap_compare(
            backups, run_before=summarizing_for(clock, 12, "f3"), terminal_size=NARROW
        )
