"""semantic_candidates: what a draft means finds a message that shares none of its words."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from ctxchat.embeddings.availability import REQUIRED

for _module in REQUIRED:
    pytest.importorskip(_module, reason=f"the embeddings extra is not installed ({_module})")

from ctxchat.core.recall import distinctive_terms, fts_query, query_terms, rank_recall  # noqa: E402
from ctxchat.embeddings.background import embed_pending  # noqa: E402
from ctxchat.embeddings.candidates import (  # noqa: E402
    MIN_COSINE,
    SEMANTIC_SCALE,
    cosine_relevance,
    semantic_candidates,
    widened_query,
)
from ctxchat.embeddings.fusion import fuse  # noqa: E402
from ctxchat.embeddings.index import SemanticIndex  # noqa: E402
from ctxchat.store import Store  # noqa: E402

if TYPE_CHECKING:
    from ctxchat.embeddings.encoder import MiniLMEncoder

QUESTION = "What database did we pick?"


def indexed(store: Store, encoder: MiniLMEncoder, conversation: int) -> SemanticIndex:
    index = SemanticIndex(encoder.dimensions, conversation)
    while embed_pending(store, encoder, conversation, index=index):
        pass
    return index


def test_cosine_relevance_stretches_the_range_above_the_floor() -> None:
    assert cosine_relevance(MIN_COSINE) == 0.0
    assert cosine_relevance(-0.5) == 0.0
    assert cosine_relevance(1.0) == SEMANTIC_SCALE
    assert cosine_relevance(0.7) / cosine_relevance(0.3) == pytest.approx(5.0)


def test_a_paraphrase_is_found_and_an_unrelated_message_is_not(
    store: Store, add: Callable[..., int], encoder: MiniLMEncoder
) -> None:
    conversation = store.conversations.create_conversation().id
    cat = add(conversation, "The cat sat on the mat.")
    decision = add(conversation, "We chose Postgres as our DB.", "assistant")
    index = indexed(store, encoder, conversation)

    found = semantic_candidates(index, encoder, store, QUESTION, limit=5)
    assert [c.message_id for c in found][:1] == [decision]
    assert cat not in [c.message_id for c in found]
    best = found[0]
    assert (best.ref, best.role, best.content, best.tokens) == (
        f"message:{decision}",
        "assistant",
        "We chose Postgres as our DB.",
        5,
    )
    cosine = float(encoder.encode([QUESTION])[0] @ encoder.encode([best.content])[0])
    assert best.cosine == pytest.approx(cosine, abs=1e-4)  # with the draft itself
    # Ranked by the draft widened towards its best matches' meaning.
    assert best.near is not None and best.near != pytest.approx(cosine, abs=1e-3)
    assert best.bm25 == pytest.approx(-cosine_relevance(best.near), abs=1e-4)
    assert best.age == 0  # counted in the index without age_of
    assert semantic_candidates(index, encoder, store, QUESTION, 5, age_of=lambda i: 40)[0].age == 40
    assert semantic_candidates(index, encoder, store, QUESTION, 5, before_id=decision) == []
    assert semantic_candidates(index, encoder, store, "   ", 5) == []


def test_a_reply_is_found_read_with_what_it_answers(
    store: Store, add: Callable[..., int], encoder: MiniLMEncoder
) -> None:
    conversation = store.conversations.create_conversation().id
    asked = add(conversation, "How did the vet visit go with Rex?", "assistant")
    answer = add(conversation, "All fine, he just needs to lose two kilos.")
    index = indexed(store, encoder, conversation)
    draft = "What did the vet say about the dog?"
    vectors = encoder.encode(
        [draft, "How did the vet visit go with Rex?", "All fine, he just needs to lose two kilos."]
    )
    assert float(vectors[0] @ vectors[2]) < MIN_COSINE  # alone, the answer is noise

    found = {c.message_id: c for c in semantic_candidates(index, encoder, store, draft, 5)}
    assert list(found) == [asked, answer]
    assert found[answer].cosine == pytest.approx(float(vectors[0] @ vectors[2]), abs=1e-4)
    assert found[answer].in_context and not found[asked].in_context
    near = found[answer].near
    assert near is not None and near > MIN_COSINE


def test_a_message_that_says_little_is_not_read_with_the_one_before_it(
    store: Store, add: Callable[..., int], encoder: MiniLMEncoder
) -> None:
    conversation = store.conversations.create_conversation().id
    asked = add(conversation, "How did the vet visit go with Rex?", "assistant")
    add(conversation, "Noted.")
    index = indexed(store, encoder, conversation)
    # Read with the question before it, "Noted." would come near; it would only stand for
    # the question, which is found itself.
    found = semantic_candidates(index, encoder, store, "What did the vet say about the dog?", 5)
    assert [c.message_id for c in found] == [asked]


def test_full_text_search_misses_it_and_fusion_keeps_it(
    store: Store, add: Callable[..., int], encoder: MiniLMEncoder
) -> None:
    conversation = store.conversations.create_conversation().id
    add(conversation, "The cat sat on the mat.")
    decision = add(conversation, "We chose Postgres as our DB.")
    index = indexed(store, encoder, conversation)
    terms = query_terms(QUESTION)
    kept, _ = distinctive_terms(terms, store.search.term_documents(terms))
    fts = store.search.search_messages(conversation, fts_query(kept)) if kept else []
    assert fts == []  # no message says "database" or "pick"
    hits = rank_recall(fuse(fts, semantic_candidates(index, encoder, store, QUESTION, 5)), kept)
    assert [hit.message_id for hit in hits] == [decision]
    assert hits[0].terms == ()


def test_a_deleted_message_is_dropped_from_the_index(
    store: Store, add: Callable[..., int], encoder: MiniLMEncoder
) -> None:
    conversation = store.conversations.create_conversation().id
    kept = add(conversation, "Lunch was fine.")
    decision = add(conversation, "We chose Postgres as our DB.")
    index = indexed(store, encoder, conversation)
    store.messages.delete_messages_after(conversation, kept)
    assert decision in index
    assert semantic_candidates(index, encoder, store, QUESTION, 5) == []
    assert decision not in index


def test_the_widened_query_leans_towards_the_best_matches(
    store: Store, add: Callable[..., int], encoder: MiniLMEncoder
) -> None:
    conversation = store.conversations.create_conversation().id
    add(conversation, "We chose Postgres as our DB.")
    add(conversation, "Postgres needs a vacuum job every night.")
    add(conversation, "The cat sat on the mat.")
    index = indexed(store, encoder, conversation)
    query = encoder.encode([QUESTION])[0]
    widened = widened_query(index, query, None, matches=2)
    nearest = index.vectors_of([m for m, _ in index.search(query, 2)]).mean(axis=0)
    assert float(widened @ widened) == pytest.approx(1.0, abs=1e-5)
    assert float(widened @ nearest) > float(query @ nearest)
    assert widened_query(SemanticIndex(encoder.dimensions), query, None) is query
