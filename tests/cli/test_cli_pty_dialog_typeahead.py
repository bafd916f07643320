"""The real `ctxchat` on a pseudo-terminal: the keys typed in the same burst as the key that
opens a dialog land in that dialog's text box, every one of them, not in the composer."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.testing.server import ScriptedModelServer

from ..waiting import until_true
from .test_cli_paste import messages
from .test_cli_pty import Terminal

F10 = b"\x1b[21~"
F12 = b"\x1b[24~"
ESC = b"\x1b"


@pytest.fixture
def started(home: Path, server: ScriptedModelServer) -> Iterator[Terminal]:
    """The app with one conversation answered: the dialogs have one to work on."""
    server.script("Noted.", "Noted again.")
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor")
    running = Terminal(env, columns=120, rows=35)
    try:
        until_true(lambda: b"Write a message" in running.output, what="the composer drawn")
        running.write(b"hello\r")
        until_true(
            lambda: (
                [s for *_, s in messages(home / "data" / "ctxchat.db")] == ["complete", "complete"]
            ),
            what="the first reply",
        )
        yield running
    finally:
        running.close()


def one_row(database: Path, query: str) -> tuple[str, ...] | None:
    try:
        with sqlite3.connect(database, timeout=5) as conn:
            found = conn.execute(query).fetchone()
    except sqlite3.OperationalError:
        return None
    return None if found is None else tuple(str(value) for value in found)


def test_a_goal_typed_right_after_f10_is_the_tasks_goal(home: Path, started: Terminal) -> None:
    database = home / "data" / "ctxchat.db"
    started.write(F10 + b"Ship the release\r")
    until_true(
        lambda: one_row(database, "SELECT goal FROM tasks") == ("Ship the release",),
        what="the goal stored",
    )
    mark = started.mark()
    started.write(ESC)
    # The conversation screen's footer, drawn again once the dialog is gone.
    until_true(lambda: started.drew_since(mark, b"Summarize"), what="the dialog closed")
    started.write(b"next\r")  # the composer held nothing of the goal
    until_true(lambda: len(messages(database)) == 4, what="the next message answered")
    assert messages(database)[2] == ("user", "next", "complete")


def test_a_path_typed_right_after_f12_is_attached(home: Path, started: Terminal) -> None:
    database = home / "data" / "ctxchat.db"
    notes = home / "notes.txt"
    notes.write_text("Remember the milk.\n", encoding="utf-8")
    started.write(F12 + str(notes).encode() + b"\r")
    until_true(
        lambda: one_row(database, "SELECT path FROM attachments") == (str(notes),),
        what="the file attached",
    )


F8 = b"\x1b[19~"


def test_a_model_typed_right_after_f8_goes_into_the_ask_again_dialog(
    home: Path, started: Terminal
) -> None:
    """What is typed in the same burst as F8 is drawn in the dialog's model box, and the
    composer gets none of it."""
    database = home / "data" / "ctxchat.db"
    mark = started.mark()
    started.write(F8 + b"xyzzy")
    until_true(lambda: started.drew_since(mark, b"xyzzy"), what="the typing drawn in the box")
    mark = started.mark()
    started.write(ESC)
    # The conversation screen's footer, drawn again once the dialog is gone.
    until_true(lambda: started.drew_since(mark, b"Summarize"), what="the dialog closed")
    started.write(b"next\r")  # the composer held nothing of what was typed
    until_true(lambda: len(messages(database)) == 4, what="the next message answered")
    assert messages(database)[2] == ("user", "next", "complete")
