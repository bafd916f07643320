"""The real `ctxchat` app on a pseudo-terminal: a bracketed paste that holds escape
sequences (coloured terminal output, a log) lands whole in the composer and sends nothing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.testing.server import ScriptedModelServer

from ..waiting import until_true
from .test_cli_pty import Terminal, rows

PASTE_START = b"\x1b[200~"
PASTE_END = b"\x1b[201~"


def messages(database: Path) -> list[tuple[str, str, str]]:
    """(role, content, status) of every message in the store, oldest first."""
    return [(role, content, status) for _, role, content, status in rows(database, 0)]


@pytest.fixture
def terminal(home: Path) -> Iterator[Terminal]:
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor")
    running = Terminal(env, columns=120, rows=35)
    try:
        until_true(lambda: b"Write a message" in running.output, what="the composer drawn")
        yield running
    finally:
        running.close()


def test_a_paste_holding_escape_sequences_arrives_whole_and_sends_nothing(
    terminal: Terminal, home: Path, server: ScriptedModelServer
) -> None:
    server.script("Got it.")
    database = home / "data" / "ctxchat.db"
    pasted = b"build log: \x1b[31mFAILED\x1b[0m at step 3\rnext line \x1b[1mbold\x1b[0m\rlast"
    terminal.write(PASTE_START + pasted + PASTE_END + b" (typed after)")
    terminal.write(b"\r")  # sends what the box holds, now and not before
    until_true(
        lambda: [status for *_, status in messages(database)] == ["complete", "complete"],
        what="the pasted message answered",
    )
    assert messages(database) == [
        (
            "user",
            "build log: ␛[31mFAILED␛[0m at step 3\nnext line ␛[1mbold␛[0m\nlast (typed after)",
            "complete",
        ),
        ("assistant", "Got it.", "complete"),
    ]
