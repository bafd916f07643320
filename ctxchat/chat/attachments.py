"""Files attached to a session's conversation: attach (read once, counted once), refresh,
detach, and how each compares with the disk now.

Nothing the user did not attach is read: a file is read when attached or refreshed, and an
attached file's bytes are read again only to tell whether it changed (when its size or time
on disk did).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ctxchat.chat.session_part import PartOwner
from ctxchat.core.budget import Layer
from ctxchat.core.files import (
    AttachedFile,
    DiskState,
    PartIndex,
    sendable_text,
    split_into_parts,
)
from ctxchat.core.plan import ContextPlan
from ctxchat.store.attachments import Attachment
from ctxchat.store.connection import is_database_file

if TYPE_CHECKING:
    from ctxchat.core.tokens import CachingCounter

__all__ = [
    "AttachRefused",
    "Attached",
    "FileAttachments",
    "FileStatus",
    "attached_path",
    "complete_path",
    "shown_name",
]


class AttachRefused(Exception):
    """A path that cannot be attached; the message says why in one line."""


def attached_path(path: str | Path) -> str:
    """The absolute path a file is attached (and detached) by."""
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise AttachRefused(
            f"cannot attach {text!r}: its name is not UTF-8 text; rename the file"
        ) from None
    return os.path.abspath(os.path.expanduser(text))


def shown_name(path: str, cwd: str | None = None, home: str | None = None) -> str:
    """How a file is named in the request and on screen: relative to the working directory
    when it is inside it, else with `~` for the home directory; characters that do not print
    (a control character in a file's name) become `?`, so the name stays one line."""
    cwd = cwd if cwd is not None else os.getcwd()
    home = home if home is not None else os.path.expanduser("~")
    if path.startswith(cwd.rstrip(os.sep) + os.sep):
        name = os.path.relpath(path, cwd)
    elif home and path.startswith(home.rstrip(os.sep) + os.sep):
        name = "~" + path[len(home.rstrip(os.sep)) :]
    else:
        name = path
    return "".join(ch if ch.isprintable() else "?" for ch in name)


def _size(count: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


@dataclass(frozen=True, slots=True)
class _Read:
    data: bytes
    size: int
    mtime: float


def _read_regular(path: str, limit: int, name: str) -> _Read:
    """The bytes of the regular file at `path`, at most `limit` of them; refused with one line
    otherwise. Opened without blocking and checked on the open file, so a pipe or a device
    put there meanwhile is refused, never waited on. ctxchat's open database is never opened:
    closing the descriptor would drop the process's SQLite locks on it."""
    if is_database_file(path):
        raise AttachRefused(f"cannot attach {name}: it is ctxchat's own database")
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise AttachRefused(f"cannot attach {name}: there is no such file") from None
    except IsADirectoryError:
        raise AttachRefused(f"cannot attach {name}: it is a directory") from None
    except PermissionError:
        raise AttachRefused(f"cannot attach {name}: permission denied") from None
    except OSError as error:
        raise AttachRefused(f"cannot attach {name}: {error.strerror or error}") from None
    try:
        info = os.fstat(descriptor)
        if stat.S_ISDIR(info.st_mode):
            raise AttachRefused(f"cannot attach {name}: it is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise AttachRefused(
                f"cannot attach {name}: it is not a regular file (a device or pipe)"
            )
        if info.st_size > limit:
            raise AttachRefused(
                f"cannot attach {name}: it is {_size(info.st_size)}, over the limit of "
                f"{_size(limit)} ([files] max_bytes)"
            )
        with os.fdopen(descriptor, "rb", closefd=False) as file:
            data = file.read(limit + 1)
    except OSError as error:
        raise AttachRefused(f"cannot attach {name}: {error.strerror or error}") from None
    finally:
        os.close(descriptor)
    if len(data) > limit:  # it grew while being read
        raise AttachRefused(
            f"cannot attach {name}: it is over the limit of {_size(limit)} ([files] max_bytes)"
        )
    return _Read(data, len(data), info.st_mtime)


def _text_of(data: bytes, name: str) -> str:
    if b"\0" in data:
        raise AttachRefused(f"cannot attach {name}: it is a binary file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise AttachRefused(
            f"cannot attach {name}: it is not UTF-8 text (byte {data[error.start]:#04x} at "
            f"offset {error.start})"
        ) from None


@dataclass(frozen=True, slots=True)
class Attached:
    """What attaching did: the file as attached now, and whether it was read anew (refreshed)
    or was attached already and left as it was (`unchanged`)."""

    attachment: Attachment
    refreshed: bool = False
    unchanged: bool = False


@dataclass(frozen=True, slots=True)
class FileStatus:
    """An attached file as the files layer of a plan uses it: its tokens whole, what the plan
    sends of it (`sent` tokens, in `parts_sent` of its parts, or whole), its share of the
    budget, and how the disk compares."""

    attachment: Attachment
    disk: DiskState
    sent: int
    share: float
    whole: bool
    parts_sent: int

    @property
    def how(self) -> str:
        """`whole`, `3 of 12 parts`, `left out`."""
        if self.whole:
            return "whole"
        if self.parts_sent:
            return f"{self.parts_sent} of {len(self.attachment.parts)} parts"
        return "left out"

    def to_dict(self) -> dict[str, object]:
        attachment = self.attachment
        return {
            "id": attachment.id,
            "ref": attachment.ref,
            "path": attachment.path,
            "name": attachment.name,
            "tokens": attachment.tokens,
            "sent_tokens": self.sent,
            "share": self.share,
            "sent": self.how,
            "parts": len(attachment.parts),
            "disk": self.disk.value,
            "changed": self.disk is DiskState.CHANGED,
            "size": attachment.size,
            "digest": attachment.digest,
            "attached_at": attachment.attached_at,
            "read_at": attachment.read_at,
        }


class FilesOwner(PartOwner, Protocol):
    """What the files part reads of its session: the conversation, its files as the
    session keeps them, the counter and the `[files]` settings."""

    @property
    def counter(self) -> CachingCounter: ...
    def attachments(self) -> list[Attachment]: ...
    def attachments_changed(self) -> None: ...


class FileAttachments:
    """The files attached to one session's conversation (`ChatSession.files`)."""

    def __init__(self, session: FilesOwner) -> None:
        self._session = session
        # What the disk held the last time a file's size or time differed from its copy's.
        self._seen: dict[int, tuple[int, int, DiskState]] = {}
        self._indexes: dict[tuple[int, str, str, int], PartIndex] = {}

    def attach(self, path: str | Path, *, refresh: bool = False) -> Attached:
        """Attach the file at `path` (read and counted now). One already attached is left as
        it is unless `refresh`; attached and changed on disk since, it is refused without
        `refresh`, saying so. Raises AttachRefused with one line for anything that cannot be
        attached: a binary file, one over `[files] max_bytes`, a directory, a path that
        cannot be read."""
        session = self._session
        full = attached_path(path)
        name = shown_name(full)
        known = next((a for a in session.attachments() if a.path == full), None)
        if known is not None and not refresh:
            disk = self.disk_state(known)
            if disk is DiskState.SAME:
                return Attached(known, unchanged=True)
            if disk is DiskState.CHANGED:
                raise AttachRefused(
                    f"{name} is attached already and changed on disk since; attach it with "
                    "--refresh to read it anew"
                )
        read = _read_regular(full, session.settings.files.max_bytes, name)
        text = sendable_text(_text_of(read.data, name))
        counter, part_tokens = session.counter, session.settings.files.part_tokens
        attachment = session.store.attachments.attach_file(
            session.stored_id,
            path=full,
            name=name,
            content=text,
            digest=hashlib.sha256(read.data).hexdigest(),
            size=read.size,
            mtime=read.mtime,
            tokens=counter.count_text(text),
            encoding=counter.name,
            part_tokens=part_tokens,
            parts=split_into_parts(text, counter, part_tokens),
        )
        self._seen.pop(attachment.id, None)
        session.attachments_changed()
        return Attached(attachment, refreshed=known is not None)

    def detach(self, path: str | Path) -> Attachment:
        """Detach the file attached from `path` (InvalidValue when none is); nothing is read."""
        session = self._session
        removed = session.store.attachments.detach_file(session.stored_id, attached_path(path))
        self._seen.pop(removed.id, None)
        session.attachments_changed()
        return removed

    def disk_state(self, attachment: Attachment) -> DiskState:
        """How the file on disk compares with the copy attached: by size and time first, by
        content hash when those differ (read once for each change seen)."""
        try:
            info = os.stat(attachment.path)
        except OSError:
            return DiskState.GONE
        if not stat.S_ISREG(info.st_mode):
            return DiskState.GONE
        if info.st_size == attachment.size and info.st_mtime == attachment.mtime:
            return DiskState.SAME
        seen = self._seen.get(attachment.id)
        if seen is not None and seen[:2] == (info.st_size, info.st_mtime_ns):
            return seen[2]
        state = self._compare(attachment, info.st_size)
        self._seen[attachment.id] = (info.st_size, info.st_mtime_ns, state)
        return state

    def _compare(self, attachment: Attachment, size: int) -> DiskState:
        if size != attachment.size:
            return DiskState.CHANGED
        try:
            read = _read_regular(attachment.path, attachment.size, attachment.name)
        except AttachRefused:
            return DiskState.GONE
        same = hashlib.sha256(read.data).hexdigest() == attachment.digest
        return DiskState.SAME if same else DiskState.CHANGED

    def for_plan(self) -> list[AttachedFile]:
        """The attached files as the context engine plans with them, each with its disk state."""
        files = []
        for attachment in self._session.attachments():
            key = (attachment.id, attachment.digest, attachment.encoding, attachment.part_tokens)
            index = self._indexes.get(key)
            if index is None:
                file = attachment.to_file()
                index = self._indexes[key] = PartIndex(
                    [file.part_text(part) for part in file.parts]
                )
            files.append(attachment.to_file(self.disk_state(attachment), index))
        return files

    def statuses(self, plan: ContextPlan) -> list[FileStatus]:
        """Each attached file with what `plan` sends of it."""
        try:
            layer = plan.layer(Layer.FILES)
        except KeyError:  # a plan stored before files were a layer
            layer = None
        items = layer.items if layer is not None else ()
        found = []
        for attachment in self._session.attachments():
            ref = attachment.ref
            mine = [item for item in items if item.ref == ref or item.ref.startswith(ref + "#")]
            sent = sum(item.tokens for item in mine)
            whole = any(item.ref == ref for item in mine)
            share = sent / plan.total_budget if plan.total_budget else 0.0
            found.append(
                FileStatus(
                    attachment,
                    self.disk_state(attachment),
                    sent,
                    round(share, 4),
                    whole,
                    0 if whole else len(mine),
                )
            )
        return found


def complete_path(partial: str, cwd: str | None = None, limit: int = 50) -> list[str]:
    """Paths that begin with `partial` (a directory ends with `/`), for completion as the
    user types one: only names are listed, no file is read."""
    base = cwd if cwd is not None else os.getcwd()
    expanded = os.path.expanduser(partial)
    folder, start = os.path.split(expanded)
    where = os.path.join(base, folder) if folder else base
    try:
        names = sorted(os.listdir(where))
    except OSError:
        return []
    shown_folder = partial[: len(partial) - len(start)]
    found: list[str] = []
    for entry in names:
        if not entry.startswith(start) or (entry.startswith(".") and not start.startswith(".")):
            continue
        suffix = "/" if os.path.isdir(os.path.join(where, entry)) else ""
        found.append(shown_folder + entry + suffix)
        if len(found) == limit:
            break
    return found
