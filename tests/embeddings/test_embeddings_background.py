"""embed_pending: vectors for every finished message, once, and again after an edit."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import pytest

from ctxchat.embeddings.availability import REQUIRED

for _module in REQUIRED:
    pytest.importorskip(_module, reason=f"the embeddings extra is not installed ({_module})")

import numpy as np  # noqa: E402

from ctxchat.core.history import MessageStatus  # noqa: E402
from ctxchat.embeddings.background import embed_pending  # noqa: E402
from ctxchat.embeddings.index import SemanticIndex, vectors_from_blobs  # noqa: E402
from ctxchat.store import Store  # noqa: E402

if TYPE_CHECKING:
    from ctxchat.embeddings.encoder import MiniLMEncoder

TEXTS = ["We chose Postgres as our DB.", "Sounds good.", "The cat sat on the mat.", "Deploy at 5."]


def stored(store: Store, conversation: int, encoder: MiniLMEncoder) -> dict[int, np.ndarray]:
    rows = store.search.load_embeddings(conversation, encoder.model_name)
    vectors = vectors_from_blobs([blob for _, blob in rows], encoder.dimensions)
    return {message_id: vector for (message_id, _), vector in zip(rows, vectors, strict=True)}


def test_fills_the_store_in_batches_and_then_has_nothing_to_do(
    store: Store, add: Callable[..., int], encoder: MiniLMEncoder
) -> None:
    conversation = store.conversations.create_conversation().id
    ids = [add(conversation, text) for text in TEXTS]
    store.messages.add_message(
        conversation, "assistant", "", tokens=0, exact=False, encoding="e",
        status=MessageStatus.FAILED,
    )  # fmt: skip
    counts = []
    while count := embed_pending(store, encoder, conversation, batch=3):
        counts.append(count)
    assert counts == [3, 1]
    vectors = stored(store, conversation, encoder)
    assert list(vectors) == ids  # the failed reply holds nothing to recall
    np.testing.assert_allclose(np.stack(list(vectors.values())), encoder.encode(TEXTS), atol=1e-6)
    assert embed_pending(store, encoder, conversation) == 0
    assert stored(store, conversation, encoder).keys() == vectors.keys()


def test_an_edited_message_is_embedded_again_and_replaced_in_the_index(
    store: Store, add: Callable[..., int], encoder: MiniLMEncoder
) -> None:
    conversation = store.conversations.create_conversation().id
    ids = [add(conversation, text) for text in TEXTS]
    index = SemanticIndex(encoder.dimensions, conversation)
    assert embed_pending(store, encoder, conversation, index=index) == len(TEXTS)
    assert len(index) == len(TEXTS)

    store.messages.update_message_content(
        ids[2], "We use Kubernetes now.", tokens=5, exact=False, encoding="e"
    )
    assert ids[2] not in stored(store, conversation, encoder)
    assert embed_pending(store, encoder, conversation, index=index) == 1
    edited = encoder.encode(["We use Kubernetes now."])[0]
    np.testing.assert_allclose(stored(store, conversation, encoder)[ids[2]], edited, atol=1e-6)
    assert len(index) == len(TEXTS)
    [(nearest, cosine)] = index.search(edited, 1)
    assert nearest == ids[2]
    assert cosine == pytest.approx(1.0, abs=1e-5)
    assert embed_pending(store, encoder, conversation, index=index) == 0


def test_a_message_edited_while_it_is_encoded_keeps_no_vector_of_its_old_text(
    store: Store, add: Callable[..., int], encoder: MiniLMEncoder
) -> None:
    conversation = store.conversations.create_conversation().id
    ids = [add(conversation, text) for text in TEXTS]
    index = SemanticIndex(encoder.dimensions, conversation)

    class EditedMeanwhile:
        """The encoder, with the user editing the third message while it works."""

        model_name = encoder.model_name
        dimensions = encoder.dimensions

        def encode(self, texts: list[str]) -> np.ndarray:
            store.messages.update_message_content(
                ids[2], "We use Kubernetes now.", tokens=5, exact=False, encoding="e"
            )
            return encoder.encode(texts)

    edited_meanwhile = cast("MiniLMEncoder", EditedMeanwhile())  # has all embed_pending reads
    assert embed_pending(store, edited_meanwhile, conversation, index=index) == len(TEXTS)
    assert ids[2] not in stored(store, conversation, encoder)
    assert len(index) == len(TEXTS) - 1  # the old text's vector is not searched either
    # The edit brings it back: the next batch embeds what it says now.
    assert embed_pending(store, encoder, conversation, index=index) == 1
    edited = encoder.encode(["We use Kubernetes now."])[0]
    np.testing.assert_allclose(stored(store, conversation, encoder)[ids[2]], edited, atol=1e-6)
    assert index.search(edited, 1)[0][0] == ids[2]
