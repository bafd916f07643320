"""The composer's own actions: clearing the draft (and undoing it), ↑ editing the last message,
writing the draft in $EDITOR; each of them in the command palette."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from textual.widgets import TextArea

from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.actions import ACTIONS
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.edit_message import EditMessageScreen

from .app_harness import SIZE, MakeApp, seed, settle, shown_messages, until


def conversation(app: CtxChatApp) -> int:
    """The open conversation, with two turns."""
    first = seed(
        app.workspace.store,
        [
            ("user", "Which database should I use?"),
            ("assistant", "PostgreSQL."),
            ("user", "And for a phone app?"),
            ("assistant", "SQLite."),
        ],
        conversation_id=app.conversation_screen.session.stored_id,
    )
    return first[0].conversation_id


def composer_text(app: CtxChatApp) -> str:
    return app.conversation_screen.composer.text


async def test_one_key_clears_a_long_draft_and_undo_brings_it_back(make_app: MakeApp) -> None:
    app, notes = make_app()
    conversation(app)
    draft = "\n".join(f"line {number} of a long paste" for number in range(1, 2_001))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        composer = app.conversation_screen.composer
        composer.focus()
        await pilot.press(*"typed first ")
        composer.insert(draft)
        await pilot.press("ctrl+u")
        await until(pilot, lambda: composer_text(app) == "")
        assert notes.messages[-1] == "Cleared the draft (2,000 lines); ^z brings it back."
        await pilot.press("ctrl+z")
        await until(pilot, lambda: composer_text(app) != "")
        assert composer_text(app) == f"typed first {draft}"


async def test_up_in_an_empty_composer_edits_the_last_message_and_sends_it(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    """The last message has a reply after it: the edit dialog asks, and by default keeps
    it in a branch; the request sent holds the edited message, not the old one. With a
    draft, ↑ moves the cursor."""
    app, _ = make_app()
    first = conversation(app)
    server.script("SQLite, or Realm.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        composer = app.conversation_screen.composer
        composer.focus()
        # With a draft, ↑ moves the cursor as ever: to the line above.
        await pilot.press(*"one", "shift+enter", *"two", "up")
        await pilot.pause()
        assert app.screen is app.conversation_screen
        assert composer.cursor_location == (0, 3)
        await pilot.press("ctrl+u", "up")  # the composer empty, ↑ edits the last message
        await until(pilot, lambda: isinstance(app.screen, EditMessageScreen))
        area = app.screen.query_one(TextArea)
        assert area.text == "And for a phone app?"
        area.load_text("And for an embedded device?")
        await pilot.press("ctrl+s")
        await settle(pilot)
        await until(pilot, lambda: len(server.requests) == 1)
        sent = server.requests[-1]["messages"][1:]
        assert sent == [
            {"role": "user", "content": "Which database should I use?"},
            {"role": "assistant", "content": "PostgreSQL."},
            {"role": "user", "content": "And for an embedded device?"},
        ]
        assert shown_messages(app)[-2:] == [
            ("user", "And for an embedded device?"),
            ("assistant", "SQLite, or Realm."),
        ]
        # The old turn stays in the conversation it was in.
        store = app.workspace.store
        assert [m.content for m in store.messages.messages(first)][-2:] == [
            "And for a phone app?",
            "SQLite.",
        ]


def script(folder: Path, name: str, body: str) -> Path:
    """An executable shell script `name` in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$EDITOR is a script that rewrites the draft's file (and $VISUAL unset)."""
    monkeypatch.delenv("VISUAL", raising=False)
    path = script(
        tmp_path / "bin",
        "fake-editor",
        '/bin/sed -i "s/a rough draft/a draft finished in the editor/" "$1"\n'
        'printf "\\nwith a second line\\n" >> "$1"',
    )
    monkeypatch.setenv("EDITOR", str(path))
    return path


async def test_the_draft_goes_to_the_editor_and_comes_back(make_app: MakeApp, editor: Path) -> None:
    app, notes = make_app()
    conversation(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.composer.focus()
        await pilot.press(*"a rough draft", "ctrl+g")
        await until(pilot, lambda: composer_text(app) != "a rough draft")
        assert composer_text(app) == "a draft finished in the editor\nwith a second line"
        assert notes.messages == []
        await pilot.press("ctrl+z")  # the draft from before the editor
        await until(pilot, lambda: composer_text(app) == "a rough draft")


@pytest.mark.parametrize(
    ("command", "note"),
    [
        ("exit 3", "The editor {path} exited with status 3; the draft is as it was."),
        ("", "The editor {path} was not found; the draft is as it was."),
        (None, "Set $VISUAL or $EDITOR to write the draft in your editor."),
    ],
    ids=["exits with an error", "not found", "none set"],
)
async def test_a_failing_editor_is_one_line_and_the_draft_stays(
    make_app: MakeApp,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str | None,
    note: str,
) -> None:
    path = tmp_path / "bin" / "broken-editor"
    if command:
        # It writes to the file, then fails: what it wrote is not taken.
        script(tmp_path / "bin", "broken-editor", f'echo "half a thought" > "$1"\n{command}')
    monkeypatch.delenv("EDITOR", raising=False)
    if command is None:
        monkeypatch.delenv("VISUAL", raising=False)
    else:
        monkeypatch.setenv("VISUAL", str(path))
    app, notes = make_app()
    conversation(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.composer.focus()
        await pilot.press(*"keep me", "ctrl+g")
        await until(pilot, lambda: notes.messages != [])
        assert notes.of("warning") == [note.format(path=path)]
        assert composer_text(app) == "keep me"


def test_every_composer_key_has_a_palette_entry() -> None:
    composer_rows = [action for action in ACTIONS if action.where == "Composer"]
    assert {action.id for action in composer_rows} >= {
        "composer.clear",
        "composer.edit_last",
        "composer.editor",
    }
    for action in composer_rows:
        assert action.palette.startswith("composer: "), action.id
        assert action.palette_action == f"composer('{action.action}')", action.id


async def test_the_palette_runs_the_composer_actions(make_app: MakeApp, editor: Path) -> None:
    app, _ = make_app()
    conversation(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        commands = {command.title: command for command in app.get_system_commands(app.screen)}
        app.conversation_screen.conversation_view.focus()  # away from the composer
        app.conversation_screen.composer.insert("a rough draft")
        app.call_later(commands["composer: open draft in $EDITOR"].callback)
        await until(pilot, lambda: composer_text(app).startswith("a draft finished"))
        app.call_later(commands["composer: clear draft"].callback)
        await until(pilot, lambda: composer_text(app) == "")
        app.call_later(commands["composer: undo"].callback)
        await until(pilot, lambda: composer_text(app).startswith("a draft finished"))
        app.call_later(commands["composer: clear draft"].callback)
        await until(pilot, lambda: composer_text(app) == "")
        app.call_later(commands["composer: edit last message"].callback)
        await until(pilot, lambda: isinstance(app.screen, EditMessageScreen))
        assert app.screen.query_one(TextArea).text == "And for a phone app?"
