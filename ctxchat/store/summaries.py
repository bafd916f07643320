"""Summary versions: each fold adds one, one of them is in force, rollback moves that mark."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from ctxchat.core.summary import SummaryStrategy
from ctxchat.core.summary_loss import LostDetail
from ctxchat.store.conversations import read_conversation, require_conversation
from ctxchat.store.database import Database
from ctxchat.store.errors import InvalidValue, NotFound, StoreError
from ctxchat.store.memory import UNSET, Unset
from ctxchat.store.records import SummaryVersion

_COLUMNS = (
    "id, conversation_id, version, text, first_message_id, last_message_id, strategy, model, "
    "tokens, edited, note, created_at, cut, lost, reviewed, faults, waiting"
)


def _summary(row: Any) -> SummaryVersion:
    values = list(row)
    values[6] = SummaryStrategy(values[6])
    values[9] = bool(values[9])
    values[12] = bool(values[12])
    values[13] = lost_from_json(values[13])
    values[14] = bool(values[14])
    values[15] = faults_from_json(values[15])
    values[16] = bool(values[16])
    return SummaryVersion(*values)


def faults_from_json(text: str) -> tuple[str, ...]:
    try:
        found = json.loads(text or "[]")
    except ValueError:
        return ()
    return tuple(str(item) for item in found) if isinstance(found, list) else ()


def lost_to_json(lost: Sequence[LostDetail]) -> str:
    return json.dumps([item.to_dict() for item in lost], ensure_ascii=False)


def lost_from_json(text: str) -> tuple[LostDetail, ...]:
    try:
        return tuple(LostDetail.from_dict(item) for item in json.loads(text or "[]"))
    except (ValueError, TypeError, KeyError):
        return ()  # a damaged report is no report: the summary itself stands


class SummaryChanged(StoreError):
    """Another version came into force while this one was being made (by another process, or
    a rollback): storing it would fold the same turns twice."""


class Summaries:
    """The summaries table and the conversation's active summary."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def add_summary(
        self,
        conversation_id: int,
        *,
        text: str,
        first_message_id: int,
        last_message_id: int,
        strategy: SummaryStrategy | str,
        model: str | None,
        tokens: int,
        edited: bool = False,
        note: str = "",
        cut: bool = False,
        lost: Sequence[LostDetail] = (),
        in_force: int | Unset | None = UNSET,
        faults: Sequence[str] = (),
        waiting: bool = False,
    ) -> SummaryVersion:
        """Store the next version (previous highest + 1) and put it in force, or, `waiting`,
        keep it for the user's review (the one in force stays; see `settle_waiting`).

        `in_force` is the id of the version the new one was made from (None: no summary):
        if another is in force by now, nothing is stored and SummaryChanged is raised.
        """
        try:
            strategy = SummaryStrategy(strategy)
        except ValueError:
            choices = ", ".join(s.value for s in SummaryStrategy)
            raise InvalidValue(f"Unknown summary strategy {strategy!r}; use {choices}.") from None
        if first_message_id > last_message_id:
            raise InvalidValue(
                f"A summary cannot cover messages {first_message_id} to {last_message_id}: "
                "the first comes after the last."
            )
        with self._db.transaction() as conn:
            conversation = read_conversation(conn, conversation_id)
            if not isinstance(in_force, Unset) and conversation.active_summary_id != in_force:
                raise SummaryChanged(
                    "The summary changed while this one was being made (another process "
                    "summarized, or a version was rolled back); summarize again."
                )
            for message_id in (first_message_id, last_message_id):
                if not conn.execute(
                    "SELECT 1 FROM messages WHERE id = ? AND conversation_id = ?",
                    (message_id, conversation_id),
                ).fetchone():
                    raise InvalidValue(
                        f"Message {message_id} is not in conversation {conversation_id}."
                    )
            version = conn.execute(
                "SELECT coalesce(max(version), 0) + 1 FROM summaries WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()[0]
            now = self._db.now()
            summary_id = insert_summary(
                conn,
                conversation_id,
                version,
                text,
                first_message_id,
                last_message_id,
                strategy.value,
                model,
                tokens,
                edited,
                note,
                now,
                cut=cut,
                lost=lost,
                faults=faults,
                waiting=waiting,
            )
            # One waiting is replaced: a newer one waiting folds the same turns and more, and
            # one put in force is what the waiting one was made against no longer.
            conn.execute(
                "DELETE FROM summaries WHERE conversation_id = ? AND waiting = 1 AND id != ?",
                (conversation_id, summary_id),
            )
            conn.execute(
                "UPDATE conversations SET active_summary_id = ?, updated_at = ? WHERE id = ?",
                (conversation.active_summary_id if waiting else summary_id, now, conversation_id),
            )
            return _read_summary(conn, summary_id)

    def get_summary(self, summary_id: int) -> SummaryVersion:
        with self._db.reading() as conn:
            return _read_summary(conn, summary_id)

    def summaries(self, conversation_id: int) -> list[SummaryVersion]:
        """Every version kept for the conversation, oldest first."""
        with self._db.reading() as conn:
            require_conversation(conn, conversation_id)
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM summaries WHERE conversation_id = ? ORDER BY version",
                (conversation_id,),
            ).fetchall()
        return [_summary(row) for row in rows]

    def active_summary(self, conversation_id: int) -> SummaryVersion | None:
        """The version in force, or None (no summary yet, or rolled back to none)."""
        with self._db.reading() as conn:
            active = read_conversation(conn, conversation_id).active_summary_id
            return None if active is None else _read_summary(conn, active)

    def activate_summary(self, conversation_id: int, summary_id: int | None) -> None:
        """Put another version in force (rollback), or none at all with None."""
        with self._db.transaction() as conn:
            require_conversation(conn, conversation_id)
            if summary_id is not None:
                summary = _read_summary(conn, summary_id)
                if summary.conversation_id != conversation_id:
                    raise InvalidValue(
                        f"Summary {summary_id} belongs to conversation "
                        f"{summary.conversation_id}, not {conversation_id}."
                    )
                # Put in force by the user: no longer waiting for their review.
                conn.execute("UPDATE summaries SET waiting = 0 WHERE id = ?", (summary_id,))
            conn.execute(
                "UPDATE conversations SET active_summary_id = ?, updated_at = ? WHERE id = ?",
                (summary_id, self._db.now(), conversation_id),
            )

    def waiting_summary(self, conversation_id: int) -> SummaryVersion | None:
        """The automatic summary held for the user's review, not in force (None: none)."""
        with self._db.reading() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM summaries WHERE conversation_id = ? AND waiting = 1 "
                "ORDER BY version DESC LIMIT 1",
                (conversation_id,),
            ).fetchone()
        return None if row is None else _summary(row)

    def settle_waiting(self, summary_id: int, *, accepted: bool) -> SummaryVersion | None:
        """The user reviewed a held summary: accepted, it goes into force (reviewed); else
        it is deleted, never having been in force. Returns the one accepted."""
        with self._db.transaction() as conn:
            summary = _read_summary(conn, summary_id)
            if not summary.waiting:
                raise InvalidValue(f"Summary {summary_id} is not waiting for review.")
            if not accepted:
                conn.execute("DELETE FROM summaries WHERE id = ?", (summary_id,))
                return None
            conn.execute(
                "UPDATE summaries SET waiting = 0, reviewed = 1 WHERE id = ?", (summary_id,)
            )
            conn.execute(
                "UPDATE conversations SET active_summary_id = ?, updated_at = ? WHERE id = ?",
                (summary_id, self._db.now(), summary.conversation_id),
            )
            return _read_summary(conn, summary_id)

    def mark_summary_reviewed(self, summary_id: int) -> SummaryVersion:
        """The user looked at what a version lost and keeps it as it is: no longer flagged."""
        with self._db.transaction() as conn:
            _read_summary(conn, summary_id)
            conn.execute("UPDATE summaries SET reviewed = 1 WHERE id = ?", (summary_id,))
            return _read_summary(conn, summary_id)


def insert_summary(
    conn: sqlite3.Connection,
    conversation_id: int,
    version: int,
    text: str,
    first_message_id: int,
    last_message_id: int,
    strategy: str,
    model: str | None,
    tokens: int,
    edited: bool,
    note: str,
    created_at: float,
    *,
    cut: bool = False,
    lost: Sequence[LostDetail] = (),
    reviewed: bool = False,
    faults: Sequence[str] = (),
    waiting: bool = False,
) -> int:
    """Insert one summary row as given (no checks: the callers made them); its id."""
    cursor = conn.execute(
        "INSERT INTO summaries (conversation_id, version, text, first_message_id, "
        "last_message_id, strategy, model, tokens, edited, note, created_at, cut, lost, "
        "reviewed, faults, waiting) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            conversation_id,
            version,
            text,
            first_message_id,
            last_message_id,
            strategy,
            model,
            tokens,
            int(edited),
            note,
            created_at,
            int(cut),
            lost_to_json(lost),
            int(reviewed),
            json.dumps(list(faults), ensure_ascii=False),
            int(waiting),
        ),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def _read_summary(conn: sqlite3.Connection, summary_id: int) -> SummaryVersion:
    row = conn.execute(f"SELECT {_COLUMNS} FROM summaries WHERE id = ?", (summary_id,)).fetchone()
    if row is None:
        raise NotFound("summary", summary_id)
    return _summary(row)


def drop_summaries_beyond(
    conn: sqlite3.Connection, conversation_id: int, last_valid_id: int
) -> None:
    """Delete the versions that cover any message after `last_valid_id`.

    Used when later messages are deleted or an earlier one is edited: those versions
    describe text that is no longer in the conversation. If the version in force goes,
    the newest remaining one takes its place (incremental folds make it a correct,
    shorter summary); the messages after it are simply not summarized yet.
    """
    stale = {
        row[0]
        for row in conn.execute(
            "SELECT id FROM summaries WHERE conversation_id = ? AND last_message_id > ?",
            (conversation_id, last_valid_id),
        )
    }
    if not stale:
        return
    active = read_conversation(conn, conversation_id).active_summary_id
    if active in stale:
        row = conn.execute(
            "SELECT id FROM summaries WHERE conversation_id = ? AND last_message_id <= ? "
            "ORDER BY version DESC LIMIT 1",
            (conversation_id, last_valid_id),
        ).fetchone()
        conn.execute(
            "UPDATE conversations SET active_summary_id = ? WHERE id = ?",
            (None if row is None else row[0], conversation_id),
        )
    conn.execute(
        "DELETE FROM summaries WHERE conversation_id = ? AND last_message_id > ?",
        (conversation_id, last_valid_id),
    )
