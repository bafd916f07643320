"""The conversation screen at 80x24 with a message selected: whole keys in the footer, the
status line in words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from ctxchat.tui.app import CtxChatApp

from ..waiting import until
from .snapshot_apps import BuildApp, exchange, steady

SnapCompare = Callable[..., bool]
NARROW = (80, 24)


async def select_the_question(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    await steady(pilot)
    view = app.conversation_screen.conversation_view
    view.focus()
    await pilot.press("up", "up")
    await until(pilot, lambda: view.selected_id is not None)
    await steady(pilot)


class TestSelectedMessage:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The question selected (thick accent bar, strong tint); under the conversation
        `reply 12 tokens` (the counts in words); the footer's keys for the selected message
        each whole (`Copy`, `Pin`, `Edit`…), those that do not fit left out, then
        `^p palette` at the right edge."""
        app = build()
        exchange(
            app.workspace.store,
            app.conversation_screen.session.stored_id,
            [("user", "Which journal mode?"), ("assistant", "WAL, with synchronous = NORMAL.")],
        )
        assert snap_compare(app, run_before=select_the_question, terminal_size=NARROW)
