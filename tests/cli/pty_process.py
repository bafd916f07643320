"""Run ctxchat as a real process on a pseudo-terminal and see the exact bytes it writes."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Self

# `run` fixture: ctxchat in-process, its output captured (so not a terminal).
Run = Callable[..., tuple[int, str, str]]

# A guard against a hung child, not a timing assertion: every wait below is for a condition.
GIVE_UP = 60.0


class PtyProcess:
    """`python -m ctxchat.cli.main ARGS` with stdin, stdout and stderr on one pseudo-terminal."""

    def __init__(
        self,
        args: Sequence[str],
        env: Mapping[str, str] | None = None,
        *,
        columns: int = 200,
        rows: int = 50,
    ) -> None:
        self.output = b""
        self._master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        environment = dict(os.environ if env is None else env)
        environment.update(TERM="xterm-256color", COLUMNS=str(columns), LINES=str(rows))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ctxchat.cli.main", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=environment,
            start_new_session=True,  # the pty becomes its controlling terminal: Ctrl-C works
            close_fds=True,
        )
        os.close(slave)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self._master >= 0:
            os.close(self._master)

    def _read(self, wait: float) -> bool:
        """Read what is there (waiting up to `wait`); False once the terminal is closed."""
        ready, _, _ = select.select([self._master], [], [], wait)
        if not ready:
            return True
        try:
            data = os.read(self._master, 65536)
        except OSError:  # EIO: every writer is gone
            return False
        self.output += data
        return bool(data)

    def read_until(self, condition: Callable[[bytes], bool], give_up: float = GIVE_UP) -> bytes:
        """Read until `condition(output)` holds; fails the test if the process ends first
        (or after `give_up` seconds: a real model on a busy machine may want more)."""
        deadline = time.monotonic() + give_up
        while not condition(self.output):
            if not self._read(0.1) or time.monotonic() > deadline:
                raise AssertionError(f"never saw what was awaited; output ends:\n{self.tail()}")
        return self.output

    def tail(self) -> str:
        return repr(self.output[-1500:])

    def write(self, data: bytes) -> None:
        """Write all of `data` (a write to a terminal may take less than it was given: a
        long paste, a signal meanwhile), reading what the app draws between the parts."""
        view = memoryview(data)
        while view:
            view = view[os.write(self._master, view) :]
            if view:
                self._read(0)

    def press(self, keys: bytes, *shown: bytes) -> None:
        """Type `keys`, then read until each of `shown` has been drawn since."""
        mark = len(self.output)
        self.write(keys)
        self.read_until(lambda output: all(text in output[mark:] for text in shown))

    def quit(self) -> int:
        """Quit the app with ctrl+q (from a dialog too); its exit code. (Esc first, then
        ctrl+q, can reach the app as one alt+ctrl+q: a terminal cannot tell them apart.)"""
        self.write(b"\x11")
        return self.finish()

    def resize(self, columns: int, rows: int) -> None:
        """Resize the terminal as a terminal window does: the new size, then SIGWINCH to the
        foreground process group."""
        fcntl.ioctl(self._master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        os.killpg(self.process.pid, signal.SIGWINCH)

    def close_terminal(self) -> None:
        """The terminal goes away as when the program holding it ends: its side of the
        pseudo-terminal closes (no signal is sent; the process is not its session's)."""
        os.close(self._master)
        self._master = -1

    def hang_up(self) -> None:
        """A terminal window closed or a tmux pane killed: SIGHUP to the process group."""
        os.killpg(self.process.pid, signal.SIGHUP)

    def interrupt(self) -> None:
        """Ctrl-C as a terminal sends it: SIGINT to the foreground process group."""
        os.killpg(self.process.pid, signal.SIGINT)

    def finish(self) -> int:
        """Read everything until the process exits and its terminal closes; its exit code."""
        deadline = time.monotonic() + GIVE_UP
        while self._read(0.1):
            if self.process.poll() is not None and not select.select([self._master], [], [], 0)[0]:
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"the process never ended; output ends:\n{self.tail()}")
        return self.process.wait()


def run_on_pty(args: Sequence[str], env: Mapping[str, str] | None = None) -> tuple[int, bytes]:
    """Run a command to its end on a pseudo-terminal: (exit code, every byte it wrote)."""
    with PtyProcess(args, env) as process:
        code = process.finish()
        return code, process.output
