"""A message waiting for another program's write lock on the database, in a picture."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from ctxchat.chat.write_lock import LOCKED_NOTICE
from ctxchat.tui.app import CtxChatApp

from ..app.test_app_database_locked import write_lock_held
from ..waiting import until
from .snapshot_apps import BuildApp, steady

SnapCompare = Callable[..., bool]
NARROW = (80, 24)


@pytest.fixture
def locked_app(build: BuildApp) -> Iterator[CtxChatApp]:
    """The app, its database's write lock held by another connection for the whole test."""
    app = build()
    with write_lock_held(app.workspace.store.path):
        yield app


async def sent_while_locked(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    await steady(pilot)
    app.conversation_screen.composer.insert("Is the backup done?")
    await pilot.press("enter")
    line = app.query_one("#status-line", Static)
    await until(pilot, lambda: str(line.render()) == LOCKED_NOTICE)
    app.clear_notifications()  # (`steady` would wait for the turn, which waits for the lock)
    await pilot.pause()


class TestDatabaseLocked:
    def test_narrow(self, locked_app: CtxChatApp, snap_compare: SnapCompare) -> None:
        """An empty composer (the message taken); the status line above it, in the warning
        colour, `The database is locked by another program; waiting…`."""
        assert snap_compare(locked_app, run_before=sent_while_locked, terminal_size=NARROW)
