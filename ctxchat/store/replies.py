"""Replies while they stream: started empty, saved as text arrives, finished or interrupted."""

from __future__ import annotations

import os
import socket
from typing import NoReturn

from ctxchat.core.history import MessageStatus
from ctxchat.store.conversations import require_conversation, touch
from ctxchat.store.database import Database
from ctxchat.store.ending import ReplyEnding
from ctxchat.store.errors import StoreError
from ctxchat.store.messages import check_parent, read_message
from ctxchat.store.records import StoredMessage, storable

# A reply whose writer cannot be checked (another host, or no way to test a process id)
# counts as abandoned once nothing was saved for this long.
STALE_AFTER = 600.0

# Still open for text: streaming, or marked interrupted by another process that thought the
# writer had died (it keeps `stream_owner`); a reply finished as interrupted clears it.
_OPEN = "(status = 'streaming' OR (status = 'interrupted' AND stream_owner IS NOT NULL))"


def this_writer() -> str:
    """Who is streaming: host and process id, so another process can tell if it died."""
    return f"{socket.gethostname()}/{os.getpid()}"


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if os.name != "posix":
        return True  # os.kill(pid, 0) would not just test on Windows; staleness decides
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, another user's
    except OSError:
        return False
    return True


def writer_alive(owner: str | None, updated_at: float, now: float) -> bool:
    """Whether the process that started a streaming reply may still be writing it."""
    if not owner:
        return False
    host, _, pid = owner.rpartition("/")
    if host == socket.gethostname() and pid.isdecimal():
        return _process_alive(int(pid))
    return now - updated_at < STALE_AFTER


class Replies:
    """Streaming replies: start_reply → save_partial … → finish_reply."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def start_reply(
        self,
        conversation_id: int,
        *,
        model: str | None,
        estimated_prompt_tokens: int | None = None,
        parent_id: int | None = None,
    ) -> StoredMessage:
        """An empty assistant message marked streaming, saved before the first token."""
        now = self._db.now()
        with self._db.transaction() as conn:
            require_conversation(conn, conversation_id)
            check_parent(conn, conversation_id, parent_id)
            cursor = conn.execute(
                "INSERT INTO messages (conversation_id, parent_id, role, content, model, status, "
                "estimated_prompt_tokens, stream_owner, created_at, updated_at) "
                "VALUES (?, ?, 'assistant', '', ?, ?, ?, ?, ?, ?)",
                (
                    conversation_id,
                    parent_id,
                    model,
                    MessageStatus.STREAMING.value,
                    estimated_prompt_tokens,
                    this_writer(),
                    now,
                    now,
                ),
            )
            touch(conn, conversation_id, now)
            assert cursor.lastrowid is not None
            return read_message(conn, cursor.lastrowid)

    def save_partial(self, message_id: int, content: str, reasoning: str = "") -> None:
        """Save the text received so far: one UPDATE. Callers throttle (see ReplyWriter)."""
        with self._db.transaction() as conn:
            cursor = conn.execute(
                "UPDATE messages SET content = ?, reasoning = ?, status = ?, stream_owner = ?, "
                f"updated_at = ? WHERE id = ? AND {_OPEN}",
                (
                    storable(content),
                    storable(reasoning),
                    MessageStatus.STREAMING.value,
                    this_writer(),
                    self._db.now(),
                    message_id,
                ),
            )
            if cursor.rowcount == 0:
                self._refuse_finished(read_message(conn, message_id))

    def finish_reply(self, message_id: int, ending: ReplyEnding) -> StoredMessage:
        """Store the whole reply with its count and the server's usage; `ending.status` says
        how it ended: complete, interrupted (stopped or cut off) or failed (`error` says why,
        and `error_detail` what the server said)."""
        now = self._db.now()
        with self._db.transaction() as conn:
            message = read_message(conn, message_id)
            cursor = conn.execute(
                f"UPDATE messages SET {ending.assignments()}, stream_owner = NULL, "
                f"updated_at = ? WHERE id = ? AND {_OPEN}",
                (*ending.values(), now, message_id),
            )
            if cursor.rowcount == 0:
                self._refuse_finished(message)
            touch(conn, message.conversation_id, now)
            return read_message(conn, message_id)

    def _refuse_finished(self, message: StoredMessage) -> NoReturn:
        raise StoreError(f"Reply {message.id} is already finished ({message.status.value}).")

    def interrupt_abandoned_replies(self) -> int:
        """Mark replies left streaming by a process that died (a crash, `kill -9`) as
        interrupted, keeping the text saved so far; returns how many.

        Replies another live process is still streaming are left alone; if one is taken for
        dead by mistake, its next save marks it streaming again. The time of the last saved
        text is kept as the message's `updated_at`.
        """
        with self._db.reading() as conn:
            # Served by the partial index of streaming rows: cheap on every open.
            rows = conn.execute(
                "SELECT id, stream_owner, updated_at FROM messages WHERE status = 'streaming'"
            ).fetchall()
        now = self._db.now() if rows else 0.0
        abandoned = [(row[0],) for row in rows if not writer_alive(row[1], row[2], now)]
        if not abandoned:
            return 0
        with self._db.transaction() as conn:
            conn.executemany(
                "UPDATE messages SET status = 'interrupted' WHERE id = ? AND status = 'streaming'",
                abandoned,
            )
        return len(abandoned)
