"""Writing files only the user can read: mode 0600, in directories created 0700, never half-written."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


def ensure_private_dir(path: Path) -> Path:
    """Create `path` and its missing parents with mode 0700; existing directories are left alone."""
    missing: list[Path] = []
    current = path
    while not current.exists() and current.parent != current:
        missing.append(current)
        current = current.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(directory, DIR_MODE)  # mkdir's mode passes through the umask; make it exact
    return path


def _write_private(fd: int, data: bytes) -> None:
    """Write to an open descriptor (closing it), the file made 0600 whatever the umask."""
    with os.fdopen(fd, "wb") as file:
        if hasattr(os, "fchmod"):  # not on Windows, where the mode bits mean little
            os.fchmod(file.fileno(), FILE_MODE)
        file.write(data)
        file.flush()
        os.fsync(file.fileno())


def write_private_file(path: Path, text: str, *, overwrite: bool) -> None:
    """Write `text` to `path` with mode 0600.

    Without `overwrite` an existing file is never touched (FileExistsError). With it the new
    file replaces the old one in one step (temp file + rename), so a crash leaves one or the
    other, and the result is 0600 whatever the old file's mode was.
    """
    ensure_private_dir(path.parent)
    data = text.encode("utf-8")
    if not overwrite:
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE)
        except FileExistsError:
            raise FileExistsError(errno.EEXIST, "the file already exists", str(path)) from None
        try:
            _write_private(fd, data)
        except BaseException:
            with contextlib.suppress(OSError):
                path.unlink()
            raise
        return
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        _write_private(fd, data)
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
