"""The real app when its terminal goes away (closed, or hung up by SIGHUP) or it is told to
end (SIGTERM): it ends as quitting does, the draft kept for the next start, a reply being
written kept as far as it came."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxchat.testing.server import Fault, ScriptedModelServer

from ..waiting import until_true
from .pty_process import PtyProcess
from .test_cli_paste import messages

PLACEHOLDER = b"Write a message"
DRAFT = "half a thought, not sent"


def _ended(process: PtyProcess) -> None:
    until_true(lambda: process.process.poll() is not None, what="the app ended")


def _close(process: PtyProcess) -> None:
    process.close_terminal()


def _signal(number: signal.Signals) -> Callable[[PtyProcess], None]:
    def send(process: PtyProcess) -> None:
        process.hang_up() if number is signal.SIGHUP else process.process.send_signal(number)

    return send


ENDINGS = {
    "terminal closed": _close,
    "SIGHUP": _signal(signal.SIGHUP),
    "SIGTERM": _signal(signal.SIGTERM),
}


def _send_what_the_composer_holds(database: Path) -> None:
    """Start the app again and press Enter: what the composer held is sent."""
    with PtyProcess([], columns=120, rows=30) as again:
        again.read_until(lambda output: DRAFT.encode() in output)
        assert PLACEHOLDER not in again.output  # the box was never empty
        again.write(b"\r")
        until_true(
            lambda: (
                [m[:2] for m in messages(database)][-2:] == [("user", DRAFT), ("assistant", "ok")]
            ),
            what="the kept draft sent and answered",
        )
        assert again.quit() == 0


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_the_app_ends_when_its_terminal_goes_and_the_draft_is_there_next_time(
    home: Path, server: ScriptedModelServer, ending: str
) -> None:
    database = home / "data" / "ctxchat.db"
    with PtyProcess([], columns=120, rows=30) as app:
        app.read_until(lambda output: PLACEHOLDER in output)
        app.press(DRAFT.encode(), DRAFT.encode())
        ENDINGS[ending](app)
        _ended(app)
        if ending != "terminal closed":
            app.finish()  # what it wrote on its way out: the terminal given back, no traceback
            assert b"Traceback" not in app.output
            assert b"\x1b[?1049l" in app.output  # left the alternate screen
        assert app.process.returncode == 0
    assert messages(database) == []  # kept as a draft, not sent
    server.script("ok")
    _send_what_the_composer_holds(database)


def test_a_reply_being_written_when_the_terminal_goes_is_kept_as_far_as_it_came(
    home: Path, server: ScriptedModelServer
) -> None:
    database = home / "data" / "ctxchat.db"
    held = threading.Event()
    server.script("Twelve chars came, then the terminal went away.")  # in chunks of 6
    server.fail_next(Fault.STALL, after=2, until=held)
    try:
        with PtyProcess([], columns=120, rows=30) as app:
            app.read_until(lambda output: PLACEHOLDER in output)
            app.press(b"tell me\r", b"Twelve chars")
            app.press(DRAFT.encode(), DRAFT.encode())
            app.close_terminal()
            _ended(app)
            assert app.process.returncode == 0
        assert messages(database) == [
            ("user", "tell me", "complete"),
            ("assistant", "Twelve chars", "interrupted"),
        ]
    finally:
        held.set()
    server.script("ok")
    _send_what_the_composer_holds(database)


LONG_REPLY = " ".join(f"w{number:04}" for number in range(4000))


@pytest.mark.parametrize("ending", ["terminal closed", "SIGHUP"])
def test_the_app_ends_when_its_terminal_goes_while_a_reply_streams(
    home: Path, server: ScriptedModelServer, ending: str
) -> None:
    """A reply streaming draws a frame every few milliseconds: once the terminal was gone,
    those writes failed, and the app froze on its next one instead of ending (as a tmux
    session killed four seconds into a slow reply left it, orphaned)."""
    database = home / "data" / "ctxchat.db"
    server.latency = 0.005
    server.script(LONG_REPLY)
    with PtyProcess([], columns=120, rows=30) as app:
        app.read_until(lambda output: PLACEHOLDER in output)
        app.press(b"tell me\r", b"w0040")
        app.press(DRAFT.encode(), DRAFT.encode())
        app.read_until(lambda output: b"w0300" in output)  # frames went on being drawn
        ENDINGS[ending](app)
        _ended(app)
        assert app.process.returncode == 0
    (question, reply) = messages(database)
    assert question == ("user", "tell me", "complete")
    role, text, status = reply
    assert (role, status) == ("assistant", "interrupted")
    assert len(text) > len("w0000 ") * 300
    assert LONG_REPLY.startswith(text)
    server.latency = 0.0
    server.script("ok")
    _send_what_the_composer_holds(database)
