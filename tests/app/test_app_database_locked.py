"""A message sent while another program holds the database's write lock: the app goes on,
the status line says why nothing happens, and the message goes once the lock is released
(or stays the draft when the turn is stopped meanwhile)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from ctxchat.chat.write_lock import LOCKED_NOTICE
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp

from .app_harness import SIZE, MakeApp, settle, shown_messages, status_line, typed, until


@contextlib.contextmanager
def write_lock_held(database: Path) -> Iterator[sqlite3.Connection]:
    """Another program's connection holding the write lock (BEGIN IMMEDIATE) until it
    commits (or the block ends). SQLite shares one descriptor of the file between a
    process's connections, so this one does not drop the app's locks."""
    other = sqlite3.connect(database, isolation_level=None, check_same_thread=False)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield other
    finally:
        if other.in_transaction:
            other.execute("ROLLBACK")
        other.close()


def stored(app: CtxChatApp) -> list[tuple[str, str]]:
    session = app.conversation_screen.session
    return [(m.role, m.content) for m in session.store.messages.messages(session.stored_id)]


async def test_a_message_waits_for_the_lock_said_and_goes_once_released(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("pong")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        with write_lock_held(app.workspace.store.path) as other:
            await typed(pilot, "ping")
            await pilot.press("enter")
            await until(pilot, lambda: status_line(app) == LOCKED_NOTICE)
            assert stored(app) == []
            assert server.requests == []
            other.execute("COMMIT")
        await until(
            pilot, lambda: shown_messages(app)[-2:] == [("user", "ping"), ("assistant", "pong")]
        )
        assert stored(app) == [("user", "ping"), ("assistant", "pong")]
        assert status_line(app) != LOCKED_NOTICE


async def test_a_message_stopped_while_it_waits_is_the_draft_again(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        with write_lock_held(app.workspace.store.path):
            await typed(pilot, "ping")
            await pilot.press("enter")
            await until(pilot, lambda: status_line(app) == LOCKED_NOTICE)
            await pilot.press("escape")
            await until(pilot, lambda: status_line(app) != LOCKED_NOTICE)
            await until(pilot, lambda: app.conversation_screen.composer.text == "ping")
        await settle(pilot)
        assert stored(app) == []
        assert server.requests == []


async def test_a_new_answer_asked_while_locked_waits_too(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("first", "second")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await typed(pilot, "ping")
        await pilot.press("enter")
        await until(pilot, lambda: stored(app) == [("user", "ping"), ("assistant", "first")])
        await settle(pilot)
        with write_lock_held(app.workspace.store.path) as other:
            app.conversation_screen.chat.again()
            await until(pilot, lambda: status_line(app) == LOCKED_NOTICE)
            assert len(server.requests) == 1
            other.execute("COMMIT")
        await until(pilot, lambda: stored(app) == [("user", "ping"), ("assistant", "second")])
        assert status_line(app) != LOCKED_NOTICE
