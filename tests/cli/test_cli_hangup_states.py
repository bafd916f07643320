"""The real app ends when its terminal goes away whatever it is doing: a dialog open over a
reply streaming, a summary being made, an import running. What it did is kept as a normal quit keeps it."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

from ctxchat.store import Store
from ctxchat.testing.server import Fault, ScriptedModelServer

from ..importers.chatgpt_export import short
from ..waiting import until_true
from .pty_process import PtyProcess, Run
from .test_cli_hangup import DRAFT, LONG_REPLY, PLACEHOLDER, _send_what_the_composer_holds
from .test_cli_paste import messages
from .test_cli_summarize import chat

CTRL_L = b"\x0c"
CTRL_O = b"\x0f"
CTRL_S = b"\x13"


def _ended(app: PtyProcess) -> None:
    app.close_terminal()  # as a tmux session killed: the terminal hangs up
    until_true(lambda: app.process.poll() is not None, what="the app ended")
    assert app.process.returncode == 0


def test_a_dialog_open_over_a_reply_streaming(home: Path, server: ScriptedModelServer) -> None:
    database = home / "data" / "ctxchat.db"
    server.latency = 0.005
    server.script(LONG_REPLY)
    with PtyProcess([], columns=120, rows=30) as app:
        app.read_until(lambda output: PLACEHOLDER in output)
        app.press(b"tell me\r", b"w0040")
        app.press(DRAFT.encode(), DRAFT.encode())
        app.press(CTRL_L, b"Titles and messages")
        until_true(lambda: "w0300" in messages(database)[-1][1], what="the reply going on")
        _ended(app)
    assert messages(database)[0] == ("user", "tell me", "complete")
    role, text, status = messages(database)[1]
    assert (role, status) == ("assistant", "interrupted")
    assert text and LONG_REPLY.startswith(text)
    server.latency = 0.0
    server.script("ok")
    _send_what_the_composer_holds(database)


def test_a_summary_being_made(run: Run, home: Path, server: ScriptedModelServer) -> None:
    chat(run, server)
    held = threading.Event()
    server.fail_next(Fault.STALL, until=held)
    server.script("Summary never finished.")
    asked = len(server.requests)
    try:
        with PtyProcess([], columns=120, rows=30) as app:
            app.read_until(lambda output: b"Quit" in output)  # the footer: the app is up
            app.press(CTRL_S, b"Summarize 6")  # the preview
            app.write(b"\r")
            assert server.wait_for_requests(asked + 1, timeout=60)  # its request is held
            app.read_until(lambda output: b"f9 cancels" in output)
            _ended(app)
    finally:
        held.set()
    with Store.open(home / "data" / "ctxchat.db") as store:
        assert store.summaries.summaries(1) == []
        assert store.summary_jobs.summary_job(1) is None  # the app's job ended with it


def test_an_import_running(home: Path) -> None:
    """The import is cancelled with the app: nothing of the file is kept."""
    database = home / "data" / "ctxchat.db"
    path = home / "conversations.json"
    many = [short(f"c{n}", f"Question {n}", f"Answer {n}") for n in range(20_000)]
    path.write_text(json.dumps(many), encoding="utf-8")
    with PtyProcess([], columns=120, rows=30) as app:
        app.read_until(lambda output: PLACEHOLDER in output)
        app.press(CTRL_L, b"Titles and messages")
        app.press(CTRL_O, b"Import conversations")
        app.press(str(path).encode(), b"conversations.json")
        app.write(b"\r")
        app.read_until(lambda output: bool(re.search(rb"[1-9][\d,]* conversations read", output)))
        _ended(app)
    with Store.open(database) as store:
        assert [c.origin for c in store.conversations.list_conversations()] == [None]
