"""The real app on a pseudo-terminal, resized again and again while a reply streams."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

from ctxchat.testing.server import ScriptedModelServer

from .pty_process import PtyProcess

REPLY = "A reply long enough to stream for a while. " * 12


def replies(home: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(home / "data" / "ctxchat.db") as conn:
        rows = conn.execute("SELECT content, status FROM messages WHERE role = 'assistant'")
        return [(content, status) for content, status in rows]


def test_resizing_while_a_reply_streams_keeps_the_app_and_the_reply(
    home: Path, server: ScriptedModelServer
) -> None:
    server.latency = 0.02
    server.chunk_size = 4
    server.script(REPLY)
    sizes = itertools.cycle([(20, 5), (200, 45)])

    def resized_until_stored(output: bytes) -> bool:
        tui.resize(*next(sizes))
        return replies(home) == [(REPLY, "complete")]

    with PtyProcess([], columns=120, rows=30) as tui:
        tui.read_until(lambda output: b"gpt-4o" in output)
        tui.write(b"Tell me a story.\r")
        tui.read_until(resized_until_stored)
        tui.resize(120, 30)
        assert tui.process.poll() is None, tui.tail()
        assert tui.quit() == 0, tui.tail()
    assert b"Traceback" not in tui.output
    assert replies(home) == [(REPLY, "complete")]
