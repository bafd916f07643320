"""The processes of the side-by-side test: the app on a pseudo-terminal (its output read as it
comes) and `ctxchat` commands, each killed with SIGKILL at a random point when told."""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..waiting import until_true

PLACEHOLDER = b"Write a message"


class AppTerminal:
    """`ctxchat ARGS` (the app) on a pseudo-terminal; everything it draws is kept, read by a
    thread so the app never waits on a full terminal while the test waits on commands."""

    def __init__(self, args: Sequence[str], *, columns: int = 160, rows: int = 40) -> None:
        self._master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        environment = dict(os.environ)
        environment.update(TERM="xterm-256color", COLUMNS=str(columns), LINES=str(rows))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ctxchat.cli.main", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=environment,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self.output = bytearray()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self._master, 65536)
            except OSError:  # EIO: the app is gone
                return
            if not data:
                return
            self.output.extend(data)

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def mark(self) -> int:
        """Where the output is now: `shows(text, since=mark)` looks only at what came after."""
        return len(self.output)

    def shows(self, text: str | bytes, since: int = 0) -> bool:
        wanted = text.encode() if isinstance(text, str) else text
        return wanted in self.output[since:]

    def wait_for(self, text: str | bytes, since: int = 0) -> None:
        """Wait until the app drew `text` (after `since`); fails if the app ends first."""

        def drawn() -> bool:
            if self.shows(text, since):
                return True
            if not self.alive:
                tail = bytes(self.output[-1500:])
                raise AssertionError(f"the app ended before it showed {text!r}: {tail!r}")
            return False

        try:
            until_true(drawn, what=f"the app shows {text!r}")
        except AssertionError as error:
            kept = Path(os.environ.get("CTXCHAT_DURABILITY_KEEP", "/nonexistent"))
            if kept.parent.is_dir():
                kept.write_bytes(bytes(self.output))
            screen = bytes(self.output[since:][-3000:])
            raise AssertionError(f"{error}; it drew last: {screen!r}") from None

    def type(self, data: bytes) -> None:
        view = memoryview(data)  # all of it: a terminal may take less than it is given
        while view:
            view = view[os.write(self._master, view) :]

    def kill(self) -> None:
        """SIGKILL: nothing of the app runs after it (no exit handler, no checkpoint)."""
        if self.alive:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def close(self) -> None:
        self.kill()
        self._reader.join(timeout=5)
        os.close(self._master)

    def deleted_database_files(self, database: Path) -> list[str]:
        """The database files (the file, its -wal or -shm) the app holds open although they
        were deleted: what it writes there reaches no one. Empty where /proc is missing."""
        folder = Path(f"/proc/{self.process.pid}/fd")
        held = []
        try:
            links = list(folder.iterdir())
        except OSError:
            return []
        for link in links:
            try:
                target = os.readlink(link)
            except OSError:
                continue
            if target.startswith(str(database)) and target.endswith("(deleted)"):
                held.append(target)
        return held


@dataclass(frozen=True, slots=True)
class Finished:
    """How a command ended: its exit code (negative: the signal), killed by the test or not,
    and what it wrote."""

    args: tuple[str, ...]
    code: int
    killed: bool
    out: str
    err: str

    @property
    def acknowledged(self) -> bool:
        """The command told its user it was done: exit code 0."""
        return self.code == 0


def run_command(args: Sequence[str], folder: Path, kill_after: float | None) -> Finished:
    """`ctxchat ARGS` to its end, or SIGKILLed `kill_after` seconds after it started (the
    random point; a command done by then is not killed)."""
    folder.mkdir(parents=True, exist_ok=True)
    out_path, err_path = folder / "stdout", folder / "stderr"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "ctxchat.cli.main", *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        killed = False
        try:
            process.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait()
            killed = True
    return Finished(
        tuple(args),
        process.returncode,
        killed,
        out_path.read_text(encoding="utf-8", errors="replace"),
        err_path.read_text(encoding="utf-8", errors="replace"),
    )
