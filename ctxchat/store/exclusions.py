"""Messages left out of requests by the user: marked, never deleted."""

from __future__ import annotations

from collections.abc import Sequence

from ctxchat.store.errors import InvalidValue
from ctxchat.store.messages import MessageStore
from ctxchat.store.records import StoredMessage


class ExclusionStore(MessageStore):
    """Marks messages excluded from (or included again in) the requests of their conversation."""

    def set_excluded(self, message_ids: Sequence[int], excluded: bool) -> list[StoredMessage]:
        """Exclude the messages (or include them again), in one transaction; returns them.

        They must all be of one conversation. Nothing else about them changes: search still
        finds them and the conversation still shows them.
        """
        if not message_ids:
            return []
        with self.transaction() as conn:
            found = [self._get_message(conn, message_id) for message_id in message_ids]
            conversations = {message.conversation_id for message in found}
            if len(conversations) > 1:
                raise InvalidValue("Those messages are in different conversations.")
            conn.executemany(
                "UPDATE messages SET excluded = ? WHERE id = ?",
                [(int(excluded), message.id) for message in found],
            )
            return [self._get_message(conn, message.id) for message in found]

    def excluded_messages(self, conversation_id: int) -> list[int]:
        """The ids of the conversation's excluded messages, in order."""
        with self.reading() as conn:
            self._require_conversation(conn, conversation_id)
            rows = conn.execute(
                "SELECT id FROM messages WHERE conversation_id = ? AND excluded = 1 ORDER BY id",
                (conversation_id,),
            ).fetchall()
        return [row[0] for row in rows]
