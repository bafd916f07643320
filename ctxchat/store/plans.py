"""Per-reply context plans: what the model saw for each reply, stored compactly."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Collection, Iterable

from ctxchat.core.plan import ContextPlan
from ctxchat.store.database import Database
from ctxchat.store.errors import NotFound
from ctxchat.store.plancodec import pack, rebuild, unpack
from ctxchat.store.records import chunks_of, storable


class Plans:
    """The reply_plans table and the plan_blobs texts they point to."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def save_plan(self, message_id: int, plan: ContextPlan) -> None:
        """Keep the plan a reply was produced from (replacing one saved before).

        Save it when the reply starts, so an interrupted reply keeps its plan too.
        """
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT conversation_id FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
            if row is None:
                raise NotFound("message", message_id)
            release_plans(conn, [message_id])
            texts = [storable(message.content) for message in plan.messages]
            blob_for = _hold_blobs(conn, row[0], texts)
            packed = pack(plan, [blob_for[text] for text in texts])
            conn.execute(
                "INSERT INTO reply_plans (message_id, packed) VALUES (?, ?)", (message_id, packed)
            )

    def load_plan(self, message_id: int) -> ContextPlan | None:
        """The plan a reply was produced from, or None if none was saved."""
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT packed FROM reply_plans WHERE message_id = ?", (message_id,)
            ).fetchone()
            if row is None:
                return None
            packed = unpack(row[0])
            texts: dict[int, str] = {}
            for chunk in chunks_of(set(packed.blob_ids)):
                marks = ",".join("?" * len(chunk))
                texts.update(
                    conn.execute(
                        f"SELECT id, content FROM plan_blobs WHERE id IN ({marks})", chunk
                    ).fetchall()
                )
        return rebuild(packed, texts)


def _hold_blobs(
    conn: sqlite3.Connection, conversation_id: int, texts: Iterable[str]
) -> dict[str, int]:
    """The blob id of each distinct text, stored if new; each counts one more plan."""
    digests = {text: hashlib.sha256(text.encode("utf-8")).digest() for text in texts}
    found: dict[bytes, int] = {}
    for chunk in chunks_of(list(digests.values())):
        marks = ",".join("?" * len(chunk))
        found.update(
            (digest, blob_id)
            for blob_id, digest in conn.execute(
                f"SELECT id, hash FROM plan_blobs WHERE conversation_id = ? AND hash IN ({marks})",
                (conversation_id, *chunk),
            )
        )
    conn.executemany(
        "UPDATE plan_blobs SET refs = refs + 1 WHERE id = ?", [(i,) for i in found.values()]
    )
    blob_for: dict[str, int] = {}
    for text, digest in digests.items():
        if digest not in found:
            cursor = conn.execute(
                "INSERT INTO plan_blobs (conversation_id, hash, content, refs) VALUES (?, ?, ?, 1)",
                (conversation_id, digest, text),
            )
            assert cursor.lastrowid is not None
            found[digest] = cursor.lastrowid
        blob_for[text] = found[digest]
    return blob_for


def release_plans(conn: sqlite3.Connection, message_ids: Collection[int]) -> None:
    """Delete these replies' plans and every text no remaining plan uses."""
    released: dict[int, int] = {}
    for chunk in chunks_of(message_ids):
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT packed FROM reply_plans WHERE message_id IN ({marks})", chunk
        ).fetchall()
        for (packed,) in rows:
            for blob_id in set(unpack(packed).blob_ids):
                released[blob_id] = released.get(blob_id, 0) + 1
        conn.execute(f"DELETE FROM reply_plans WHERE message_id IN ({marks})", chunk)
    conn.executemany(
        "UPDATE plan_blobs SET refs = refs - ? WHERE id = ?",
        [(count, blob_id) for blob_id, count in released.items()],
    )
    for chunk in chunks_of(released):
        marks = ",".join("?" * len(chunk))
        conn.execute(f"DELETE FROM plan_blobs WHERE refs <= 0 AND id IN ({marks})", chunk)
