"""A terminal gone while the app draws to it drops what is drawn instead of freezing the app.

Textual 8.2.8's Linux driver writes the frames through a thread fed by a queue of 30 writes.
When the terminal goes away (a tmux session killed, a terminal window closed), a write to it
fails with EIO: the thread raised and ended, the queue filled, and the next frame's write
waited forever in the app's own loop, so the app never heard the hang-up and lived on,
orphaned, holding its database. It happened while a reply streamed (a frame every few
milliseconds), and more so because the hang-up's SIGCONT makes the driver start its
application mode again (`isatty` is false on a hung-up terminal, so it skips its terminal
check) with a second writing thread. The thread used here drops what it cannot write once
the terminal fails, and goes on emptying its queue, so the app ends as quitting does.
"""

from __future__ import annotations

import contextlib

from textual.drivers import linux_driver
from textual.drivers._writer_thread import WriterThread

__all__ = ["DroppingWriterThread", "drop_output_to_a_gone_terminal"]


class DroppingWriterThread(WriterThread):
    """Textual's writing thread, which drops what it writes once the terminal fails."""

    def run(self) -> None:
        output = self._file
        gone = False
        while True:
            text = self._queue.get()
            if text is None:
                break
            if gone:
                continue
            try:
                output.write(text)
                if self._queue.qsize() == 0:
                    output.flush()
            except OSError:  # EIO: the terminal is gone; nothing can be shown any more
                gone = True
        if not gone:
            with contextlib.suppress(OSError):  # it went while the last frames were written
                output.flush()


def drop_output_to_a_gone_terminal() -> None:
    """Have the terminal driver write through `DroppingWriterThread` (before the app runs)."""
    linux_driver.WriterThread = DroppingWriterThread  # type: ignore[attr-defined]
