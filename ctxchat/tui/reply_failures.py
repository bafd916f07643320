"""This run's failed replies, per conversation: the error as the model client told it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxchat.model.errors import ProviderError


class ReplyFailures:
    """The failures of replies seen this run, kept per conversation, for their details and
    retry. The store keeps each failure's sentence and the server's words; this keeps the
    rest (the action apart, the models a server offers) while the run lasts.

    One per run: each conversation's owner on screen (`OnScreen`) hands it to the next and
    reads only its own conversation's failures from it."""

    def __init__(self) -> None:
        self._by_conversation: dict[int, dict[int, ProviderError]] = {}

    def failed(self, conversation_id: int, reply_id: int, error: ProviderError) -> None:
        """`reply_id` in `conversation_id` failed with `error`."""
        self._by_conversation.setdefault(conversation_id, {})[reply_id] = error

    def of(self, conversation_id: int | None, reply_id: int) -> ProviderError | None:
        """How `reply_id` failed, if it is a reply of `conversation_id` that failed this run."""
        if conversation_id is None:
            return None
        return self._by_conversation.get(conversation_id, {}).get(reply_id)

    def forget(self, conversation_id: int | None, reply_id: int) -> None:
        """`reply_id` is asked again: its failure no longer holds."""
        if conversation_id is not None:
            self._by_conversation.get(conversation_id, {}).pop(reply_id, None)
