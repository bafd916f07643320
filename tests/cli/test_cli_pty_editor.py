"""The draft written in $EDITOR, with the real app on a pseudo-terminal: the app hands the
terminal over (the editor reads the keys typed meanwhile), takes it back, and the text the
editor left is the draft that is sent."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer

from .test_cli_pty import Terminal, rows, wait_for

CTRL_G = b"\x07"


@pytest.fixture
def database(home: Path) -> Path:
    """One answered question in the app's store; the path of the database."""
    path = home / "data" / "ctxchat.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    store = Store.open(path)
    try:
        conversation = store.conversations.create_conversation(
            "notes", model="gpt-4o", profile="test"
        ).id
        for role, text in (("user", "Where were we?"), ("assistant", "At the editor.")):
            store.messages.add_message(
                conversation, role, text, tokens=5, exact=True, encoding="o200k_base"
            )
    finally:
        store.close()
    return path


def answered(database: Path) -> bool:
    """Whether one message and its whole reply follow the two seeded ones."""
    found = rows(database, 2)
    return len(found) == 2 and found[-1][3] == "complete"


def start(home: Path, editor: str) -> Terminal:
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", EDITOR=editor)
    env.pop("VISUAL", None)
    running = Terminal(env, columns=100, rows=30)
    wait_for(lambda: b"At the editor." in running.output, "the conversation drawn")
    return running


@pytest.fixture
def editor(tmp_path: Path) -> Path:
    """An editor that says it runs, reads a line from the terminal and adds it to the file."""
    path = tmp_path / "line-editor"
    path.write_text(
        "#!/bin/sh\n"
        "printf 'line-editor has the terminal\\n'\n"
        "read answer\n"
        'printf " and %s" "$answer" >> "$1"\n',
        encoding="utf-8",
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def terminal(home: Path, database: Path, editor: Path) -> Iterator[Terminal]:
    running = start(home, str(editor))
    try:
        yield running
    finally:
        running.close()


def test_the_editor_gets_the_terminal_and_its_text_is_sent(
    terminal: Terminal, database: Path, server: ScriptedModelServer
) -> None:
    server.script("Noted.")
    terminal.write(b"a draft from the app")
    wait_for(lambda: b"a draft from the app" in terminal.output, "the draft drawn")
    mark = terminal.mark()
    terminal.write(CTRL_G)
    wait_for(lambda: terminal.drew_since(mark, b"line-editor has the terminal"), "the editor")
    mark = terminal.mark()
    terminal.write(b"a line typed in the editor\r")  # read by the editor, not the app
    wait_for(
        lambda: terminal.drew_since(mark, b"and a line typed in the editor"),
        "the app back, the editor's text in the composer",
    )
    terminal.write(b"\r")
    wait_for(lambda: answered(database), "the message sent and answered")
    assert [(role, text) for _, role, text, _ in rows(database, 2)] == [
        ("user", "a draft from the app and a line typed in the editor"),
        ("assistant", "Noted."),
    ]


def test_an_editor_not_found_leaves_the_app_running_with_the_draft(
    home: Path, database: Path, server: ScriptedModelServer, tmp_path: Path
) -> None:
    server.script("Noted.")
    missing = tmp_path / "no-such-editor"
    running = start(home, str(missing))
    try:
        running.write(b"keep this draft")
        wait_for(lambda: b"keep this draft" in running.output, "the draft drawn")
        mark = running.mark()
        running.write(CTRL_G)
        wait_for(lambda: running.drew_since(mark, b"was not found"), "the note")
        running.write(b", still here\r")
        wait_for(lambda: answered(database), "the message sent and answered")
        assert rows(database, 2)[0][1:3] == ("user", "keep this draft, still here")
    finally:
        running.close()
