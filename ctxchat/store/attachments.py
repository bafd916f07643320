"""Files attached to a conversation: the copy read, its digest, its count and its parts."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxchat.core.files import AttachedFile, DiskState, FilePart, PartIndex
from ctxchat.store.conversations import require_conversation
from ctxchat.store.database import Database
from ctxchat.store.errors import InvalidValue

_COLUMNS = (
    "id, conversation_id, path, name, content, digest, size, mtime, tokens, encoding, parts, "
    "attached_at, read_at"
)


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file attached to a conversation, as read when attached (or last refreshed).

    `path` is where it is read from again (absolute); `name` is how it is shown and sent.
    `content` is the text as sent (ending with a new line); `digest` (SHA-256 of the bytes
    read), `size` and `mtime` are the file's then, to tell when it changed. `tokens` and
    the parts' counts were made with `encoding`, the parts cut at about `part_tokens`.
    """

    id: int
    conversation_id: int
    path: str
    name: str
    content: str
    digest: str
    size: int
    mtime: float
    tokens: int
    encoding: str
    part_tokens: int
    parts: tuple[FilePart, ...]
    attached_at: float
    read_at: float

    @property
    def ref(self) -> str:
        return f"file:{self.id}"

    def to_file(
        self, disk: DiskState = DiskState.UNCHECKED, index: PartIndex | None = None
    ) -> AttachedFile:
        """The file as the context engine plans with it."""
        return AttachedFile(self.id, self.name, self.content, self.tokens, self.parts, disk, index)


def parts_json(part_tokens: int, parts: Sequence[FilePart]) -> str:
    rows = [[p.number, p.first_line, p.last_line, p.start, p.end, p.tokens] for p in parts]
    return json.dumps({"part_tokens": part_tokens, "parts": rows})


def _parts(text: str) -> tuple[int, tuple[FilePart, ...]]:
    data = json.loads(text)
    return int(data["part_tokens"]), tuple(FilePart(*row) for row in data["parts"])


def _attachment(row: Any) -> Attachment:
    values = dict(zip(_COLUMNS.split(", "), row, strict=True))
    values["part_tokens"], values["parts"] = _parts(values["parts"])
    return Attachment(**values)


class Attachments:
    """The attachments table."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def attach_file(
        self,
        conversation_id: int,
        *,
        path: str,
        name: str,
        content: str,
        digest: str,
        size: int,
        mtime: float,
        tokens: int,
        encoding: str,
        part_tokens: int,
        parts: Sequence[FilePart],
    ) -> Attachment:
        """Attach a file read just now; a file attached already (same path) takes the new copy
        (it is read anew) and keeps its id and when it was first attached."""
        now = self._db.now()
        with self._db.transaction() as conn:
            require_conversation(conn, conversation_id)
            conn.execute(
                "INSERT INTO attachments (conversation_id, path, name, content, digest, size, "
                "mtime, tokens, encoding, parts, attached_at, read_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (conversation_id, path) DO UPDATE SET name = excluded.name, "
                "content = excluded.content, digest = excluded.digest, size = excluded.size, "
                "mtime = excluded.mtime, tokens = excluded.tokens, encoding = excluded.encoding, "
                "parts = excluded.parts, read_at = excluded.read_at",
                (
                    conversation_id,
                    path,
                    name,
                    content,
                    digest,
                    size,
                    mtime,
                    tokens,
                    encoding,
                    parts_json(part_tokens, parts),
                    now,
                    now,
                ),
            )
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM attachments WHERE conversation_id = ? AND path = ?",
                (conversation_id, path),
            ).fetchone()
            return _attachment(row)

    def recount_attachment(
        self,
        attachment_id: int,
        *,
        tokens: int,
        encoding: str,
        part_tokens: int,
        parts: Sequence[FilePart],
        digest: str,
    ) -> None:
        """Keep a count made again (another model's encoding, another part size); skipped when
        the copy changed meanwhile (`digest` is the one counted)."""
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE attachments SET tokens = ?, encoding = ?, parts = ? "
                "WHERE id = ? AND digest = ?",
                (tokens, encoding, parts_json(part_tokens, parts), attachment_id, digest),
            )

    def attachments(self, conversation_id: int) -> list[Attachment]:
        """The conversation's files, in the order they were first attached."""
        with self._db.reading() as conn:
            require_conversation(conn, conversation_id)
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM attachments WHERE conversation_id = ? ORDER BY id",
                (conversation_id,),
            ).fetchall()
        return [_attachment(row) for row in rows]

    def detach_file(self, conversation_id: int, path: str) -> Attachment:
        """Detach the file attached from `path` (InvalidValue when none is)."""
        with self._db.transaction() as conn:
            found = self._attached(conn, conversation_id, path)
            conn.execute("DELETE FROM attachments WHERE id = ?", (found.id,))
            return found

    def _attached(self, conn: sqlite3.Connection, conversation_id: int, path: str) -> Attachment:
        require_conversation(conn, conversation_id)
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM attachments WHERE conversation_id = ? AND path = ?",
            (conversation_id, path),
        ).fetchone()
        if row is None:
            raise InvalidValue(
                f"No file is attached from {path} to conversation {conversation_id}."
            )
        return _attachment(row)
