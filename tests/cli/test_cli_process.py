"""The command line as separate processes: fast help, and a send killed mid-stream."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from ctxchat.core.history import MessageStatus
from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer

from ..waiting import until_true

HEAVY = ("textual", "openai", "tiktoken", "rich", "httpx2", "sqlite3")


def test_help_and_version_import_nothing_heavy() -> None:
    code = (
        "import sys\n"
        "from ctxchat.cli.main import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip().endswith("[]")
    assert "usage: ctxchat" in result.stdout
    version = subprocess.run(
        [sys.executable, "-m", "ctxchat.cli.main", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert version.stdout == "ctxchat 0.1.0\n"


def test_killed_send_keeps_the_message_and_most_of_the_reply(
    home: Path, server: ScriptedModelServer
) -> None:
    server.latency = 0.02
    server.chunk_size = 4
    full = "".join(f"word{i} " for i in range(400))
    server.script(full)
    env = dict(os.environ)
    process = subprocess.Popen(
        [sys.executable, "-m", "ctxchat.cli.main", "send", "Please keep me"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    database = home / "data" / "ctxchat.db"
    seen = ""

    def saved_while_streaming() -> bool:
        nonlocal seen
        if not database.exists():
            return False
        try:
            with sqlite3.connect(database, timeout=5) as conn:
                row = conn.execute(
                    "SELECT content FROM messages WHERE role = 'assistant'"
                ).fetchone()
        except sqlite3.OperationalError:
            return False
        if row and len(row[0]) > 200:
            seen = row[0]
        return bool(seen)

    try:
        until_true(saved_while_streaming)  # the reply saved while it streams
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        process.wait(timeout=10)  # reaped, so its pid is really gone
    store = Store.open(database)
    try:
        assert store.interrupted_on_open == 1
        conversation = store.conversations.latest_conversation()
        assert conversation is not None
        messages = store.messages.messages(conversation.id)
    finally:
        store.close()
    assert [(m.role, m.content, m.status) for m in messages[:1]] == [
        ("user", "Please keep me", MessageStatus.COMPLETE)
    ]
    reply = messages[1]
    assert reply.status is MessageStatus.INTERRUPTED
    assert full.startswith(reply.content)
    assert len(reply.content) >= len(seen)
