"""Ctrl-C during a command's async work: noted, and the work cancelled where it waits."""

from __future__ import annotations

import asyncio
import signal
import threading
from types import TracebackType
from typing import Self


class CtrlC:
    """While entered, Ctrl-C (SIGINT) sets `pressed` and cancels the task that entered it.

    Both, because either alone can miss: a cancellation is delivered only where the task
    awaits (and a library may swallow it), while the flag is only seen between chunks.
    """

    def __init__(self) -> None:
        self.pressed = False
        self._listening = False

    def __enter__(self) -> Self:
        task = asyncio.current_task()
        assert task is not None, "CtrlC is entered by a running task"
        self._task = task
        # Signals reach only the main thread: a command run from another thread (an embedding
        # program, the tests) leaves SIGINT to whoever owns it there.
        if threading.current_thread() is threading.main_thread():
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, self._press)
            self._listening = True
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._listening:
            asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)

    def _press(self) -> None:
        self.pressed = True
        self._task.cancel()

    def absorb(self) -> None:
        """Call on catching the CancelledError Ctrl-C caused: the task runs on normally."""
        self._task.uncancel()
