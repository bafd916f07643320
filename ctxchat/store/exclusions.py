"""Messages left out of requests by the user: marked, never deleted."""

from __future__ import annotations

from collections.abc import Sequence

from ctxchat.store.conversations import require_conversation
from ctxchat.store.database import Database
from ctxchat.store.errors import InvalidValue
from ctxchat.store.messages import read_message
from ctxchat.store.records import StoredMessage


class Exclusions:
    """Marks messages excluded from (or included again in) the requests of their conversation."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def set_excluded(self, message_ids: Sequence[int], excluded: bool) -> list[StoredMessage]:
        """Exclude the messages (or include them again), in one transaction; returns them.

        They must all be of one conversation. Nothing else about them changes: search still
        finds them and the conversation still shows them.
        """
        if not message_ids:
            return []
        with self._db.transaction() as conn:
            found = [read_message(conn, message_id) for message_id in message_ids]
            conversations = {message.conversation_id for message in found}
            if len(conversations) > 1:
                raise InvalidValue("Those messages are in different conversations.")
            conn.executemany(
                "UPDATE messages SET excluded = ? WHERE id = ?",
                [(int(excluded), message.id) for message in found],
            )
            return [read_message(conn, message.id) for message in found]

    def excluded_messages(self, conversation_id: int) -> list[int]:
        """The ids of the conversation's excluded messages, in order."""
        with self._db.reading() as conn:
            require_conversation(conn, conversation_id)
            rows = conn.execute(
                "SELECT id FROM messages WHERE conversation_id = ? AND excluded = 1 ORDER BY id",
                (conversation_id,),
            ).fetchall()
        return [row[0] for row in rows]
