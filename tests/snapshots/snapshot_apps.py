"""Data and steps shared by the app snapshots: a settable clock, seeded turns, steady screens."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from ctxchat.core.budget import Layer
from ctxchat.core.history import MessageStatus
from ctxchat.core.tokens import count_message, counter_for_model
from ctxchat.store import ReplyEnding, ReplyWriter, Store, StoredMessage
from ctxchat.tui.app import CtxChatApp

from ..waiting import until

# 2025-01-06 09:30 UTC.
NOW = 1736155800.0
HOUR = 3600.0
COUNTER = counter_for_model("gpt-4o")

RunBefore = Callable[[Pilot[Any]], Awaitable[None]]
BuildApp = Callable[..., CtxChatApp]
"""The `build` fixture: the app on a config (keywords `base_url`, `extra`, `context_window`,
`output_reserve`, `offline`: True unless a test wants the server asked at start)."""


class Clock:
    """The store's clock: it says `now` until the test moves it."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def tokens(role: str, text: str) -> int:
    return count_message(COUNTER, role, text).tokens


def say(store: Store, conversation_id: int, role: str, text: str) -> StoredMessage:
    """A whole message, counted for gpt-4o."""
    return store.messages.add_message(
        conversation_id,
        role,
        text,
        tokens=tokens(role, text),
        exact=True,
        encoding=COUNTER.name,
        model="gpt-4o",
    )


def reply(
    store: Store,
    conversation_id: int,
    text: str,
    *,
    reasoning: str = "",
    status: MessageStatus = MessageStatus.COMPLETE,
    error: str | None = None,
) -> StoredMessage:
    """An assistant reply as a stream leaves it: with reasoning, interrupted or failed."""
    writer = ReplyWriter.start(store.replies, conversation_id, model="gpt-4o")
    writer.append(text, reasoning)
    return writer.close(
        ReplyEnding(
            content=writer.content,
            reasoning=writer.reasoning,
            status=status,
            tokens=tokens("assistant", text) if text else 0,
            exact=True,
            encoding=COUNTER.name,
            finish_reason="stop" if status is MessageStatus.COMPLETE else "error",
            error=error,
        )
    )


def exchange(store: Store, conversation_id: int, turns: Sequence[tuple[str, str]]) -> None:
    for role, text in turns:
        say(store, conversation_id, role, text)


async def planned(pilot: Pilot[Any], draft: str) -> None:
    """Wait until the live plan (re-made shortly after typing stops) holds `draft`."""
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    wanted = app.conversation_screen.session.count("user", draft)

    def holds_the_draft() -> bool:
        plan = app.conversation_screen.last_plan
        return plan is not None and any(
            item.ref == "input" and item.tokens == wanted for item in plan.layer(Layer.INPUT).items
        )

    await until(pilot, holds_the_draft)


async def steady(pilot: Pilot[Any]) -> None:
    """Let every worker finish, stop cursors blinking and clear toasts (they time out)."""
    app = pilot.app
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    for screen in app.screen_stack:
        for widget in screen.query("Input, TextArea"):
            assert isinstance(widget, Input | TextArea)
            widget.cursor_blink = False
            # A text area caches its lines with no cursor while blinking; drawn in the
            # blink's dark half, the cursor line would stay dark with blinking off.
            widget.notify_style_update()
            widget.refresh()
    app.clear_notifications()
    await pilot.pause()


def then(*keys: str, context: bool = False) -> RunBefore:
    """Steps before the picture: optionally show the context side (ctrl+b), press `keys`."""

    async def run(pilot: Pilot[Any]) -> None:
        await steady(pilot)
        if context:
            await pilot.press("ctrl+b")
        if keys:
            await pilot.press(*keys)
        await steady(pilot)

    return run
