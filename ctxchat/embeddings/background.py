"""Embedding the messages that have no vector yet, a batch at a time, off the UI thread."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ctxchat.embeddings.encoder import MiniLMEncoder
from ctxchat.embeddings.index import SemanticIndex, vector_blob

if TYPE_CHECKING:
    from ctxchat.store import Store


def embed_pending(
    store: Store,
    encoder: MiniLMEncoder,
    conversation_id: int,
    batch: int = 32,
    *,
    index: SemanticIndex | None = None,
    first: Sequence[int] = (),
) -> int:
    """Embed up to `batch` of the conversation's messages that have no vector: those of
    `first` (wanted by a query), then the newest.

    Saves the vectors in the store (and adds them to `index`, when given, replacing the old
    vector of an edited message) and returns how many were embedded. The app calls this in a
    worker thread until it returns 0; an edit deletes a message's vector, so the message comes
    back here.
    """
    pending = store.search.messages_to_embed(
        conversation_id, encoder.model_name, limit=batch, first=first
    )
    return embed_messages(store, encoder, pending, index)


def embed_messages(
    store: Store,
    encoder: MiniLMEncoder,
    pending: Sequence[tuple[int, str]],
    index: SemanticIndex | None = None,
    conversations: Sequence[int] | None = None,
) -> int:
    """Embed the (id, content) `pending` messages, save their vectors in the store (and add
    them to `index`, when given, replacing the old vector of an edited message; with
    `conversations`, the conversation of each, for an index of several); how many."""
    if not pending:
        return 0
    vectors = encoder.encode([content for _, content in pending])
    rows = [
        (message_id, content, vector_blob(vector))
        for (message_id, content), vector in zip(pending, vectors, strict=True)
    ]
    saved = set(store.search.save_embeddings(encoder.model_name, rows))
    if index is not None and saved:
        # A message edited while it was encoded keeps no vector of its old text; the edit
        # brings it back to the next batch.
        kept = [row for row, (message_id, _) in enumerate(pending) if message_id in saved]
        index.add(
            [pending[row][0] for row in kept],
            vectors[kept],
            None if conversations is None else [conversations[row] for row in kept],
        )
    return len(pending)
