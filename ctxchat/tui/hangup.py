"""The terminal going away ends the app as quitting does, instead of leaving it running.

A terminal window closed or a tmux pane killed sends SIGHUP; a terminal whose other side
simply closes (the process holding a pseudo-terminal ends) sends nothing, and the app's
input then only ever reads end-of-file: Textual's driver selects again at once, and the app
went on without a terminal at half a core. Both, and SIGTERM, call `ended` in the app's
loop, which quits as the user would (the draft kept, a reply stopped where it came).
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import signal
import sys
import threading
from collections.abc import Callable

__all__ = ["TerminalWatch"]

ENDING_SIGNALS = (signal.SIGHUP, signal.SIGTERM)
LOOK_EVERY_MS = 500
"""How often the watching thread looks whether the app ended (it sleeps meanwhile)."""


class TerminalWatch:
    """Calls `ended` (once, in the running loop) when the terminal hangs up or the process
    is asked to end."""

    def __init__(self, ended: Callable[[], object]) -> None:
        self._ended = ended
        self._called = False
        self._stop = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Watch from now (in the app's loop); the input only when it is a terminal."""
        self._loop = loop = asyncio.get_running_loop()
        for number in ENDING_SIGNALS:
            loop.add_signal_handler(number, self._end)
        stdin = sys.__stdin__
        if stdin is not None and stdin.isatty():
            thread = threading.Thread(
                target=self._watch_input, args=(stdin.fileno(),), name="terminal-watch"
            )
            thread.daemon = True
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._loop is not None and not self._loop.is_closed():
            for number in ENDING_SIGNALS:
                self._loop.remove_signal_handler(number)

    def _end(self) -> None:
        if not self._called:
            self._called = True
            self._ended()

    def _watch_input(self, fd: int) -> None:
        # Only a hang-up wakes this poll (no POLLIN asked): the input stays Textual's to read.
        watched = select.poll()
        watched.register(fd, select.POLLHUP)
        while not self._stop.is_set():
            for _, flags in watched.poll(LOOK_EVERY_MS):
                if flags & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
                    self._stop.set()
                    loop = self._loop
                    if loop is not None:
                        with contextlib.suppress(RuntimeError):  # the app ended meanwhile
                            loop.call_soon_threadsafe(self._end)
