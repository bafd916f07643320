"""Frames written to a terminal that is gone are dropped: the app's writes never wait on a
thread that died (Textual's own thread ended at the first failed write, and the 31st write
after it waited forever, in the app's loop)."""

from __future__ import annotations

import errno
import io
import threading

import pytest
from textual.drivers import linux_driver

from ctxchat.tui.textual_compat.output import DroppingWriterThread, drop_output_to_a_gone_terminal

from ..waiting import until_true


class GoneTerminal(io.StringIO):
    """A terminal whose other side closed after `works` writes: every later write fails."""

    def __init__(self, works: int) -> None:
        super().__init__()
        self.works = works

    def write(self, text: str) -> int:
        if self.works <= 0:
            raise OSError(errno.EIO, "Input/output error")
        self.works -= 1
        return super().write(text)


def test_writes_after_the_terminal_went_are_dropped_and_stop_returns() -> None:
    output = GoneTerminal(works=3)
    writer = DroppingWriterThread(output)
    writer.start()
    finished = threading.Event()

    def draw_frames_then_quit() -> None:
        for frame in range(200):
            writer.write(f"frame {frame}\n")
        writer.stop()
        finished.set()

    threading.Thread(target=draw_frames_then_quit, daemon=True).start()
    until_true(finished.is_set, what="every frame written and the thread stopped")
    assert output.getvalue() == "frame 0\nframe 1\nframe 2\n"
    assert not writer.is_alive()


def test_a_terminal_that_works_gets_every_write() -> None:
    output = GoneTerminal(works=1000)
    writer = DroppingWriterThread(output)
    writer.start()
    for frame in range(100):
        writer.write(f"{frame};")
    writer.stop()
    assert output.getvalue() == "".join(f"{frame};" for frame in range(100))


def test_the_driver_writes_through_the_dropping_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(linux_driver, "WriterThread", vars(linux_driver)["WriterThread"])
    drop_output_to_a_gone_terminal()
    assert vars(linux_driver)["WriterThread"] is DroppingWriterThread
