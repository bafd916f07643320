"""Embedding the messages that have no vector yet, a batch at a time, off the UI thread."""

from __future__ import annotations

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
) -> int:
    """Embed up to `batch` of the conversation's messages that have no vector, oldest first.

    Saves the vectors in the store (and adds them to `index`, when given, replacing the old
    vector of an edited message) and returns how many were embedded. The app calls this in a
    worker thread until it returns 0; an edit deletes a message's vector, so the message comes
    back here.
    """
    pending = store.messages_to_embed(conversation_id, encoder.model_name, limit=batch)
    if not pending:
        return 0
    ids = [message_id for message_id, _ in pending]
    vectors = encoder.encode([content for _, content in pending])
    store.save_embeddings(
        encoder.model_name,
        [(message_id, vector_blob(v)) for message_id, v in zip(ids, vectors, strict=True)],
    )
    if index is not None:
        index.add(ids, vectors)
    return len(pending)
