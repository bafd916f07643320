"""Importing another tool's history from the conversation list (ctrl+l, then ctrl+o): the
file asked for, imported without stopping the app, then the conversations that came listed."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input, OptionList, Static

from ctxchat.tui.screens.conversations import ConversationSwitcher
from ctxchat.tui.screens.import_history import ImportHistoryScreen

from ..importers.chatgpt_export import short, trip
from .app_harness import SIZE, MakeApp, settle, shown_messages, until


def chatgpt_file(folder: Path) -> Path:
    path = folder / "conversations.json"
    path.write_text(json.dumps([short("c1", "Hello", "Hi!"), trip()]), encoding="utf-8")
    return path


async def test_import_lists_the_conversations_that_came(make_app: MakeApp, tmp_path: Path) -> None:
    app, _ = make_app()
    path = chatgpt_file(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = app.conversation_screen.session.stored_id
        await pilot.press("ctrl+l", "ctrl+o")
        assert isinstance(app.screen, ImportHistoryScreen)
        app.screen.query_one(Input).value = str(path)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ConversationSwitcher))
        switcher = app.screen
        assert isinstance(switcher, ConversationSwitcher)
        store = app.workspace.store
        imported = {
            c.id: c.title for c in store.conversations.list_conversations() if c.origin == "chatgpt"
        }
        assert sorted(imported.values()) == ["Hello", "Trip to Oslo", "Trip to Oslo (branch 2)"]
        assert sorted(switcher.visible_ids) == sorted(imported)
        assert before not in switcher.visible_ids
        rows = switcher.query_one(OptionList)
        assert all("from ChatGPT" in str(rows.get_option_at_index(i).prompt) for i in range(3))
        rows.highlighted = rows.get_option_index(
            str(next(i for i, t in imported.items() if t == "Hello"))
        )
        await pilot.press("tab", "enter")
        await settle(pilot)
        assert shown_messages(app) == [("user", "Hello"), ("assistant", "Hi!")]


async def test_a_damaged_file_is_one_notice_and_imports_nothing(
    make_app: MakeApp, tmp_path: Path
) -> None:
    app, notes = make_app()
    path = tmp_path / "conversations.json"
    path.write_text('[{"id": "c1", "mapping": []}]', encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l", "ctrl+o")
        app.screen.query_one(Input).value = str(path)
        await pilot.press("enter")
        await until(pilot, lambda: notes.of("error"))
        assert notes.of("error") == [
            f"{path} is not ChatGPT's data export (conversations.json) as ctxchat reads it: "
            "conversation 1: mapping: expected an object, found a list; nothing was imported"
        ]
        assert all(c.origin is None for c in app.workspace.store.conversations.list_conversations())


async def test_a_path_with_no_file_is_said_in_the_dialog(make_app: MakeApp, tmp_path: Path) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l", "ctrl+o")
        dialog = app.screen
        dialog.query_one(Input).value = str(tmp_path / "missing.json")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is dialog
        error = dialog.query_one("#import-error", Static)
        assert f"There is no file at {tmp_path / 'missing.json'}." in str(error.render())
