"""Importing another tool's history, in pictures: the dialog ctrl+o opens from the
conversation list, and imported conversations in the list saying where they came from."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from ctxchat.store.importers import ImportedConversation, ImportedMessage
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.import_history import ImportChoice
from ctxchat.tui.widgets.jobs_line import JobsLine

from ..app.held_history import HeldHistory
from ..importers.chatgpt_export import short, trip
from ..waiting import until
from .snapshot_apps import COUNTER, HOUR, NOW, BuildApp, RunBefore, steady

SnapCompare = Callable[..., bool]
NARROW = (80, 24)
WIDE = (200, 50)


def import_dialog_with(path: str) -> RunBefore:
    """Ctrl+L, ctrl+o, and `path` typed into the dialog's file box."""

    async def run(pilot: Pilot[Any]) -> None:
        await steady(pilot)
        await pilot.press("ctrl+l", "ctrl+o")
        await steady(pilot)
        pilot.app.screen.query_one(Input).value = path
        await steady(pilot)

    return run


def with_imported(app: CtxChatApp) -> CtxChatApp:
    """Two conversations imported from ChatGPT a day and a week before, beside the open one."""
    chats = [
        ImportedConversation(
            "c1",
            "Trip to Oslo",
            (
                ImportedMessage("user", "When should I visit Oslo?"),
                ImportedMessage("assistant", "Go in summer.", model="gpt-4o"),
            ),
            NOW - 7 * 24 * HOUR,
            NOW - 24 * HOUR,
        ),
        ImportedConversation(
            "c2",
            "Sourdough starter",
            (ImportedMessage("user", "How often do I feed it?"),),
            NOW - 8 * 24 * HOUR,
            NOW - 7 * 24 * HOUR,
        ),
    ]
    app.workspace.store.imports.import_history(chats, "chatgpt", COUNTER)
    return app


class TestImportDialog:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """`Import conversations` over the list: the hint naming ChatGPT's or Claude.ai's
        conversations.json, llm's logs.db (read, never changed), an Open WebUI or a ctxchat
        export, and that conversations imported before are left as they are; `File:` with
        `~/Downloads/conversations.json` typed; `From:` on `Recognise it from the file`;
        `Cancel` and `Import` (primary) on the right."""
        run = import_dialog_with("~/Downloads/conversations.json")
        assert snap_compare(build(), run_before=run, terminal_size=NARROW)

    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """As narrow, in a 76-column dialog."""
        run = import_dialog_with("~/Downloads/conversations.json")
        assert snap_compare(build(), run_before=run, terminal_size=WIDE)


class TestImportedInTheList:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """Ctrl+L: the open conversation first, then `Trip to Oslo` (`2 messages · 18 tokens
        · 2025-01-05 09:30 · from ChatGPT`) and `Sourdough starter` (`1 message · 11 tokens
        · 2024-12-30 09:30 · from ChatGPT`), in the order they last changed in ChatGPT."""
        app = with_imported(build())

        async def run(pilot: Pilot[Any]) -> None:
            await steady(pilot)
            await pilot.press("ctrl+l")
            await steady(pilot)

        assert snap_compare(app, run_before=run, terminal_size=NARROW)

    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """As narrow, in a dialog up to 110 columns wide."""
        app = with_imported(build())

        async def run(pilot: Pilot[Any]) -> None:
            await steady(pilot)
            await pilot.press("ctrl+l")
            await steady(pilot)

        assert snap_compare(app, run_before=run, terminal_size=WIDE)


def importing_half_way(folder: Path) -> RunBefore:
    """An import of a ChatGPT export started, seen once its first conversation is read (the
    rest of the file arrives when the app, ending, cancels it)."""

    async def run(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, CtxChatApp)
        await steady(pilot)
        held = HeldHistory(folder, [short("c1", "Hello", "Hi!"), trip()])
        screen = app.conversation_screen
        dialogs = screen.conversation_dialogs
        dialogs.start_import(screen.session, ImportChoice(held.path, "chatgpt"))
        importing = dialogs.importing
        assert importing is not None

        def release_once_cancelled() -> None:
            importing.cancelled.wait()
            held.release()

        threading.Thread(target=release_once_cancelled, daemon=True).start()
        line = screen.query_one(JobsLine)
        await until(pilot, lambda: "1 conversation read" in str(line.render()))
        app.clear_notifications()  # (`steady` would wait for the import to end)
        await pilot.pause()

    return run


class TestImportOnTheJobsLine:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare, tmp_path: Path) -> None:
        """Under the conversation, above the status line, the accent line `Importing
        conversations.json · 1 conversation read · 0 s · f9 cancels`; the footer holds
        `f9 Cancel job`."""
        run = importing_half_way(tmp_path)
        assert snap_compare(build(), run_before=run, terminal_size=NARROW)
