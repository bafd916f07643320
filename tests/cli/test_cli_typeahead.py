"""The real `ctxchat` on a pseudo-terminal: a message typed while the app is still starting,
Enter included, is sent once the app is up (the terminal does not turn Enter into a new
line)."""

from __future__ import annotations

import os
import termios
from pathlib import Path

from ctxchat.testing.server import ScriptedModelServer

from ..waiting import until_true
from .test_cli_paste import messages
from .test_cli_pty import CTRL_Q, Terminal


def starting_up(terminal: Terminal) -> bool:
    """Whether ctxchat runs but the app has not taken the keyboard yet (the terminal still
    reads lines, as the shell left it) and keys typed now keep Enter as Enter."""
    iflag, _, _, lflag, *_ = termios.tcgetattr(terminal.master)
    return bool(lflag & termios.ICANON) and not iflag & termios.ICRNL


def test_a_message_typed_while_the_app_starts_is_sent_by_its_enter(
    home: Path, server: ScriptedModelServer
) -> None:
    server.script("Hello early bird.")
    database = home / "data" / "ctxchat.db"
    terminal = Terminal(dict(os.environ, TERM="xterm-256color"), columns=120, rows=35)
    try:
        until_true(lambda: starting_up(terminal), what="ctxchat started, the app not yet up")
        terminal.write(b"typed before the first frame\rand the next one")
        until_true(
            lambda: [status for *_, status in messages(database)] == ["complete", "complete"],
            what="the early message answered",
        )
        assert messages(database) == [
            ("user", "typed before the first frame", "complete"),
            ("assistant", "Hello early bird.", "complete"),
        ]
        # Nothing typed was echoed over the shell before the app took the screen.
        before_the_app, _, _ = bytes(terminal.output).partition(b"\x1b[?1049h")
        assert b"typed before" not in before_the_app
    finally:
        terminal.close()


def test_the_terminal_is_as_the_shell_left_it_after_the_app_quits(
    home: Path, server: ScriptedModelServer
) -> None:
    terminal = Terminal(dict(os.environ, TERM="xterm-256color"), columns=120, rows=35)
    try:
        before = termios.tcgetattr(terminal.master)
        until_true(lambda: b"Write a message" in terminal.output, what="the composer drawn")
        terminal.write(CTRL_Q)
        until_true(lambda: terminal.process.poll() is not None, what="ctxchat quit")
        assert termios.tcgetattr(terminal.master) == before
    finally:
        terminal.close()
