"""The running engine as its clients find it: a small file (pid, port, key, model) in the
engine's directory, readable only by the user, a lock so one engine starts at a time, and
the mark each client leaves when it uses the engine (which keeps it from stopping)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from ctxchat.engine.errors import EngineError, EngineLoadCancelled

STATE_FILE = "engine.json"
LOCK_FILE = "engine.lock"
USED_FILE = "used"
LOG_FILE = "engine.log"
FAILURE_FILE = "failure.txt"
PORT_FILE = "port"
"""The port of the last engine, tried first by the next (the server's URL then stays the same)."""
DIR_MODE = 0o700
FILE_MODE = 0o600


@dataclass(frozen=True, slots=True)
class EngineState:
    """One running engine: its process, where it listens, its key, the model it serves."""

    pid: int
    port: int
    key: str
    model_path: str
    model: str
    """The name it serves the model as."""
    n_ctx: int
    started: float
    window_note: str = ""
    """Why the engine serves the window it does, when that needs saying (less than the
    model was trained for)."""

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.root}/v1"

    def __repr__(self) -> str:  # never the key
        return f"EngineState(pid={self.pid}, port={self.port}, model={self.model!r})"


def engine_dir(directory: Path) -> Path:
    """`directory`, made (0700) when missing."""
    directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    return directory


def write_private(path: Path, text: str) -> None:
    """Replace `path` in one step with a 0600 file holding `text`."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(temporary, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, path)


def write_state(directory: Path, state: EngineState) -> None:
    write_private(directory / STATE_FILE, json.dumps(asdict(state)))
    write_private(directory / PORT_FILE, str(state.port))


def read_state(directory: Path) -> EngineState | None:
    """The engine the file names (None: none, or a file no engine wrote whole)."""
    try:
        data = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))
        return EngineState(**data)
    except (OSError, ValueError, TypeError):
        return None


def clear_state(directory: Path, pid: int) -> None:
    """Remove the state file if it still names process `pid` (a newer engine's stays)."""
    state = read_state(directory)
    if state is not None and state.pid == pid:
        with contextlib.suppress(OSError):
            (directory / STATE_FILE).unlink()


def last_port(directory: Path) -> int:
    try:
        return int((directory / PORT_FILE).read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return 0


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie child of ours counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(ChildProcessError, OSError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    return True


def mark_used(directory: Path) -> None:
    """Say that a client uses the engine now: it stops only after a while without this."""
    path = directory / USED_FILE
    try:
        os.utime(path)
    except FileNotFoundError:
        with contextlib.suppress(OSError):
            path.touch(mode=FILE_MODE)
    except OSError:
        pass


def last_used(directory: Path) -> float:
    try:
        return (directory / USED_FILE).stat().st_mtime
    except OSError:
        return 0.0


@contextlib.contextmanager
def start_lock(
    directory: Path, patience: float, cancelled: threading.Event | None = None
) -> Iterator[None]:
    """Held while an engine is started or stopped: a second process waits for the first,
    then finds its engine running. Raises EngineError after `patience` seconds, and
    EngineLoadCancelled once `cancelled` is set while it waits."""
    fd = os.open(directory / LOCK_FILE, os.O_CREAT | os.O_RDWR, FILE_MODE)
    try:
        deadline = time.monotonic() + patience
        while True:
            try:
                _lock(fd)
                break
            except (BlockingIOError, PermissionError):
                if cancelled is not None and cancelled.is_set():
                    raise EngineLoadCancelled("Loading was cancelled.") from None
                if time.monotonic() > deadline:
                    raise EngineError(
                        "Another ctxchat has been starting the engine for too long: try "
                        "again, or `ctxchat engine stop`."
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # releases the lock


def _lock(fd: int) -> None:
    """Take the lock on `fd` without waiting (BlockingIOError or PermissionError: taken)."""
    if sys.platform == "win32":
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def resident_memory(pid: int) -> int | None:
    """Bytes of memory process `pid` holds (Linux; None elsewhere or when gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None
