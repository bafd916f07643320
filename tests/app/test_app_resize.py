"""Resizing the terminal while a reply streams: the app goes on, the reply ends complete."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable
from typing import Any

from textual.events import Resize
from textual.geometry import Size
from textual.pilot import Pilot
from textual.widget import Widget

from ctxchat.core.history import MessageStatus
from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.widgets.message_item import MessageItem

from .app_harness import (
    SIZE,
    MakeApp,
    Notes,
    exchange,
    seed,
    settle,
    shown_messages,
    typed,
    until,
)

SMALLEST, LARGEST = (20, 5), (200, 45)
REPLY = "A reply long enough to stream for a while. " * 12


def resize(app: CtxChatApp, columns: int, rows: int) -> None:
    """The terminal's new size, as the driver reports it (the app takes the last of a burst)."""
    size = Size(columns, rows)
    app.post_message(Resize(size, size))


def with_history(
    make_app: MakeApp, server: ScriptedModelServer, turns: int
) -> tuple[CtxChatApp, Notes]:
    """The app on a conversation of `turns` exchanges (a history the pane pages through),
    the server scripted to answer `REPLY`."""
    app, notes = make_app()
    conversation = app.conversation_screen.session.stored_id
    seed(app.workspace.store, exchange(turns), conversation_id=conversation)
    server.script(REPLY)
    return app, notes


def reply_ended_complete(app: CtxChatApp, notes: Notes) -> None:
    """The app runs on, the reply is stored and shown whole, and no error was told."""
    assert app.is_running
    session = app.conversation_screen.session
    reply = session.store.messages.messages(session.stored_id)[-1]
    assert (reply.content, reply.status) == (REPLY, MessageStatus.COMPLETE)
    assert shown_messages(app)[-1] == ("assistant", REPLY)
    ids = [item.message_id for item in app.conversation_screen.conversation_view.items]
    assert ids == sorted(set(ids))  # each turn once, in order
    assert notes.of("error") == []


async def after(mounting: Awaitable[None], scrolled: asyncio.Event) -> None:
    await mounting
    await scrolled.wait()


async def send(pilot: Pilot[Any], text: str) -> None:
    await typed(pilot, text)
    await pilot.press("enter")


async def test_a_resize_as_the_reply_turn_mounts_does_not_mount_it_twice(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    # The narrowest moment: the terminal changes size just as the reply's turn joins the
    # pane, and the pane scrolls (pages in what it is told is below) before it has joined.
    app, notes = with_history(make_app, server, 10)
    async with app.run_test(size=SIZE) as pilot:
        view = app.conversation_screen.conversation_view
        mount = view.mount

        def mount_while_resized(*widgets: Widget, **where: Any) -> Awaitable[None]:
            mounting = mount(*widgets, **where)
            if not any(isinstance(w, MessageItem) and w.view.role == "assistant" for w in widgets):
                return mounting
            resize(app, *LARGEST)
            # What a change of height does to the pane at once: it scrolls. The mount ends
            # once the pane has handled that scroll (the order a busy machine can give).
            view.scroll_to(y=view.max_scroll_y - 1, animate=False, immediate=True)
            scrolled = asyncio.Event()
            view.call_later(scrolled.set)
            return after(mounting, scrolled)

        view.mount = mount_while_resized  # type: ignore[assignment]
        await send(pilot, "Tell me a story.")
        await settle(pilot)
        reply_ended_complete(app, notes)
        assert [item.message_id for item in view.items] == list(range(1, 23))


async def test_resizing_all_through_a_slow_reply_leaves_it_complete(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = with_history(make_app, server, 30)
    server.latency = 0.01
    server.chunk_size = 4
    # The reply is held after its first chunks until the first resizes are done: however
    # fast the machine, they happen while it streams.
    release = threading.Event()
    server.fail_next(Fault.STALL, after=2, until=release)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "Tell me a story.")
        await until(pilot, lambda: app.conversation_screen.streaming)
        sizes = 0
        while app.conversation_screen.streaming or sizes < 4:
            await pilot.resize_terminal(*(SMALLEST, LARGEST)[sizes % 2])
            sizes += 1
            if sizes == 4:
                release.set()
        await pilot.resize_terminal(*SIZE)
        await settle(pilot)
        reply_ended_complete(app, notes)
