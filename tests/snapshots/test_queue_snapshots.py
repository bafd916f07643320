"""Messages queued while a reply streams, in pictures: the rows under the reply."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea

from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.widgets import message_item
from ctxchat.tui.widgets.queued_messages import QueuedRow

from ..waiting import until
from .snapshot_apps import BuildApp, say

SnapCompare = Callable[..., bool]
NARROW = (80, 24)


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=["gpt-4o"], requires_key=TEST_KEY) as running:
        yield running


@pytest.fixture
def release() -> Iterator[threading.Event]:
    event = threading.Event()
    yield event
    event.set()


def two_queued_while_streaming(
    server: ScriptedModelServer, release: threading.Event
) -> Callable[[Pilot[Any]], Any]:
    """Send a question whose reply is held after its first words, then two more messages."""
    server.fail_next(Fault.STALL, after=2, until=release)
    server.script("PostgreSQL, for its transactions and its extensions.")

    async def run(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, CtxChatApp)
        await app.conversation_screen.mounted.wait()
        await pilot.pause()
        composer = app.conversation_screen.composer
        composer.cursor_blink = False
        composer.focus()
        await pilot.press(*"Which database?", "enter")
        await until(pilot, lambda: app.conversation_screen.streaming)
        await pilot.press(*"And for the cache?", "enter")
        await pilot.press(*"Keep it short, [b]no markup[/b]", "enter")
        await until(pilot, lambda: len(app.query(QueuedRow)) == 2)
        await until(
            pilot,
            lambda: (
                app.conversation_screen.conversation_view.items[-1].view.content == "PostgreSQL, "
            ),
        )
        for area in app.query(TextArea).results(TextArea):
            area.cursor_blink = False
        app.clear_notifications()
        await pilot.pause()

    return run


class TestQueuedUnderAStreamingReply:
    def test_narrow(
        self,
        build: BuildApp,
        server: ScriptedModelServer,
        release: threading.Event,
        snap_compare: SnapCompare,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """`Which database?`, the reply streaming (`PostgreSQL,`, the status line `gpt-4o is
        writing… (Esc stops)`), and under it two rows: `queued · 1  And for the cache?` and
        `queued · 2  Keep it short, [b]no markup[/b]` (the brackets shown as typed); the
        composer empty."""
        # The reply is held longer than the header waits before it counts the seconds.
        monkeypatch.setattr(message_item, "STALL_AFTER", 10**6)
        app = build(base_url=server.base_url)
        store, conversation = app.workspace.store, app.conversation_screen.session.stored_id
        say(store, conversation, "user", "Hello")
        say(store, conversation, "assistant", "Hello! What are we building?")
        run = two_queued_while_streaming(server, release)
        assert snap_compare(app, run_before=run, terminal_size=NARROW)
