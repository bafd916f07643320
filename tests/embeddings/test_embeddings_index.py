"""SemanticIndex: exact nearest neighbours, before_id, replacing and forgetting vectors, loading."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ctxchat.embeddings.availability import REQUIRED

for _module in REQUIRED:
    pytest.importorskip(_module, reason=f"the embeddings extra is not installed ({_module})")

import numpy as np  # noqa: E402

from ctxchat.embeddings.index import (  # noqa: E402
    CONTEXT_WEIGHT,
    SemanticIndex,
    vector_blob,
    vectors_from_blobs,
)
from ctxchat.store import Store  # noqa: E402


def unit_vectors(count: int, dimensions: int = 8, seed: int = 1) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((count, dimensions)).astype(np.float32)
    normalised: np.ndarray = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return normalised


def brute_force(vectors: np.ndarray, ids: list[int], query: np.ndarray, limit: int) -> list[int]:
    scores = vectors @ query
    return [ids[row] for row in np.argsort(-scores, kind="stable")[:limit]]


def test_search_finds_the_nearest_vectors_best_first() -> None:
    vectors = unit_vectors(500)
    ids = list(range(10, 510))
    index = SemanticIndex(8)
    index.add(ids, vectors)
    query = unit_vectors(1, seed=2)[0]
    found = index.search(query, 7)
    assert [message_id for message_id, _ in found] == brute_force(vectors, ids, query, 7)
    cosines = [cosine for _, cosine in found]
    assert cosines == sorted(cosines, reverse=True)
    assert cosines[0] == pytest.approx(float(np.max(vectors @ query)), abs=1e-6)


def test_a_vector_finds_itself_and_limit_may_exceed_the_count() -> None:
    vectors = unit_vectors(5)
    index = SemanticIndex(8)
    index.add([1, 2, 3, 4, 5], vectors)
    found = index.search(vectors[2], 50)
    assert len(found) == 5
    assert found[0][0] == 3
    assert found[0][1] == pytest.approx(1.0, abs=1e-6)
    assert index.search(vectors[2], 0) == []
    assert SemanticIndex(8).search(vectors[2], 3) == []


def test_before_id_keeps_only_older_messages() -> None:
    vectors = unit_vectors(100)
    ids = list(range(1, 101))
    index = SemanticIndex(8)
    index.add(ids, vectors)
    query = vectors[90]
    found = index.search(query, 10, before_id=40)
    assert len(found) == 10
    assert all(message_id < 40 for message_id, _ in found)
    assert [i for i, _ in found] == brute_force(vectors[:39], ids[:39], query, 10)
    assert [i for i, _ in index.search(query, 10, before_id=4)] == [
        i for i, _ in index.search(query, 100) if i < 4
    ]
    assert index.search(query, 10, before_id=1) == []


@pytest.mark.parametrize("order", ["ascending", "shuffled", "older one added last"])
def test_before_id_whatever_order_ids_were_added_in(order: str) -> None:
    vectors = unit_vectors(60)
    ids = list(range(100, 160))
    index = SemanticIndex(8)
    if order == "ascending":
        index.add(ids, vectors)
    elif order == "shuffled":
        rows = np.random.default_rng(3).permutation(60)
        index.add([ids[r] for r in rows], vectors[rows])
    else:
        index.add(ids[1:], vectors[1:])
        index.add(ids[:1], vectors[:1])
    query = vectors[5]
    for before in (100, 101, 130, 159, 160, 500):
        expected = brute_force(vectors, ids, query, 60)
        assert [i for i, _ in index.search(query, 60, before)] == [
            i for i in expected if i < before
        ]


def test_equal_vectors_rank_newest_first_whatever_order_they_were_added_in() -> None:
    same, other = unit_vectors(2)
    vectors = np.stack([same, other, same, same])
    for ids in ([1, 2, 3, 4], [4, 3, 2, 1]):
        index = SemanticIndex(8)
        index.add(ids, vectors if ids[0] == 1 else vectors[::-1])
        assert [message_id for message_id, _ in index.search(same, 4)] == [4, 3, 1, 2]


def in_context(vector: np.ndarray, before: np.ndarray, query: np.ndarray) -> float:
    """The cosine of `vector` read with the one `before` it, by its definition."""
    read = vector + CONTEXT_WEIGHT * before
    return float(read @ query / np.linalg.norm(read))


def test_a_message_read_with_the_one_before_it_is_found_by_what_that_one_says() -> None:
    question, reply, unrelated, query = unit_vectors(4, seed=5)
    # The question is the query nearly; the reply alone is far from it.
    question = query + 0.3 * question
    question /= np.linalg.norm(question)
    vectors = np.stack([unrelated, question, reply])
    index = SemanticIndex(8, conversation_id=1)
    index.add([1, 2, 3], vectors)

    alone = dict(index.search(query, 3))
    found = index.search_in_context(query, 3)
    assert [message_id for message_id, _, _ in found] == [2, 3, 1]
    cosines = {message_id: cosine for message_id, cosine, _ in found}
    read = {message_id for message_id, _, read in found if read}
    # The reply is found through the question before it, and says so.
    assert read == {3}
    assert cosines[3] == pytest.approx(in_context(reply, question, query), abs=1e-5)
    assert cosines[3] > alone[3]
    # The question keeps its own cosine: read with the unrelated one before, it matches
    # less; the first message has nothing before it.
    assert cosines[2] == pytest.approx(alone[2], abs=1e-6)
    assert cosines[1] == pytest.approx(alone[1], abs=1e-6)


@pytest.mark.parametrize("order", ["ascending", "shuffled"])
def test_in_context_the_message_before_is_the_previous_id_whatever_order_they_came_in(
    order: str,
) -> None:
    vectors = unit_vectors(30, seed=6)
    ids = list(range(200, 230))
    index = SemanticIndex(8, conversation_id=1)
    rows = np.arange(30) if order == "ascending" else np.random.default_rng(4).permutation(30)
    index.add([ids[r] for r in rows], vectors[rows])
    query = vectors[12]
    found = {message_id: cosine for message_id, cosine, _ in index.search_in_context(query, 30)}
    assert found[213] == pytest.approx(
        max(float(vectors[13] @ query), in_context(vectors[13], vectors[12], query)), abs=1e-5
    )
    # Only messages before message 213 are searched, each read with its own predecessor.
    older = index.search_in_context(query, 30, before_id=213)
    assert sorted(message_id for message_id, _, _ in older) == list(range(200, 213))
    assert dict((i, c) for i, c, _ in older)[212] == pytest.approx(
        max(float(vectors[12] @ query), in_context(vectors[12], vectors[11], query)), abs=1e-5
    )


def test_in_context_follows_messages_added_and_discarded() -> None:
    first, second, third = unit_vectors(3, seed=7)
    index = SemanticIndex(8, conversation_id=1)
    index.add([1, 2], np.stack([first, second]))
    index.search_in_context(first, 2)  # works out who comes before whom
    index.add([3], third[None, :])
    found = {i: cosine for i, cosine, _ in index.search_in_context(second, 3)}
    assert found[3] == pytest.approx(
        max(float(third @ second), in_context(third, second, second)), abs=1e-5
    )
    index.discard([2])
    found = {i: cosine for i, cosine, _ in index.search_in_context(first, 2)}
    # With message 2 gone, message 3 is read with message 1.
    assert found[3] == pytest.approx(
        max(float(third @ first), in_context(third, first, first)), abs=1e-5
    )


def test_in_an_index_of_several_conversations_the_message_before_is_of_the_same_one() -> None:
    first, other, reply = unit_vectors(3, seed=8)
    # Message 2 is another conversation's, written between messages 1 and 3 of the first.
    index = SemanticIndex.of_blobs(
        [(1, vector_blob(first)), (2, vector_blob(other)), (3, vector_blob(reply))],
        8,
        conversations=[10, 20, 10],
    )
    found = {i: cosine for i, cosine, _ in index.search_in_context(other, 3)}
    assert found[3] == pytest.approx(max(float(reply @ other), in_context(reply, first, other)))
    # Embedded later, newest first, as the other conversations' messages are.
    later = SemanticIndex(8)
    later.add([3], reply[None, :], [10])
    later.add([2, 1], np.stack([other, first]), [20, 10])
    assert {i: c for i, c, _ in later.search_in_context(other, 3)} == pytest.approx(found)
    with pytest.raises(ValueError, match="conversations"):
        later.add([4], reply[None, :], [10, 20])


def test_adding_an_id_again_replaces_its_vector() -> None:
    vectors = unit_vectors(3)
    index = SemanticIndex(8)
    index.add([1, 2, 3], vectors)
    index.add([2, 4], np.stack([vectors[0], vectors[1]]))
    assert len(index) == 4
    found = dict(index.search(vectors[0], 4))
    assert found[1] == pytest.approx(1.0, abs=1e-6)
    assert found[2] == pytest.approx(1.0, abs=1e-6)
    assert found[4] == pytest.approx(float(vectors[1] @ vectors[0]), abs=1e-6)


def test_growing_past_the_first_capacity_and_discarding() -> None:
    vectors = unit_vectors(300)
    index = SemanticIndex(8)
    for start in range(0, 300, 7):
        index.add(list(range(start, min(start + 7, 300))), vectors[start : start + 7])
    assert len(index) == 300
    index.discard([5, 6, 999])
    assert len(index) == 298
    assert 5 not in index and 7 in index
    assert index.newer_than(290) == 9
    found = index.search(vectors[5], 300)
    assert {message_id for message_id, _ in found} == set(range(300)) - {5, 6}
    [(nearest, cosine)] = index.search(vectors[200], 1)
    assert nearest == 200
    assert cosine == pytest.approx(1.0, abs=1e-6)


def test_wrong_shapes_are_refused() -> None:
    index = SemanticIndex(8)
    with pytest.raises(ValueError, match="Expected 2 vectors of 8"):
        index.add([1, 2], unit_vectors(3))


def test_blobs_round_trip() -> None:
    vectors = unit_vectors(4, dimensions=384)
    blobs = [vector_blob(v) for v in vectors]
    assert all(len(blob) == 384 * 4 for blob in blobs)
    np.testing.assert_array_equal(vectors_from_blobs(blobs, 384), vectors)
    assert vectors_from_blobs([], 384).shape == (0, 384)


def test_load_reads_the_conversations_vectors_of_that_model(
    store: Store, add: Callable[..., int]
) -> None:
    conversation = store.conversations.create_conversation().id
    other = store.conversations.create_conversation().id
    ids = [add(conversation, f"message {n}") for n in range(3)]
    elsewhere = add(other, "another conversation")
    vectors = unit_vectors(4)
    rows = [(i, f"message {n}", vector_blob(vectors[n])) for n, i in enumerate(ids)]
    store.search.save_embeddings("m", rows)
    store.search.save_embeddings(
        "m", [(elsewhere, "another conversation", vector_blob(vectors[3]))]
    )
    store.search.save_embeddings("other-model", [(ids[0], "message 0", vector_blob(vectors[3]))])
    index = SemanticIndex.load(store, conversation, "m", 8)
    assert len(index) == 3  # other-model's vector of ids[0] is kept beside m's, not in place
    assert index.conversation_id == conversation
    assert index.search(vectors[1], 1)[0][0] == ids[1]
    # A blob of the wrong size (another model under the same name) is skipped.
    store.search.save_embeddings("m", [(ids[0], "message 0", b"\x00" * 12)])
    assert len(SemanticIndex.load(store, conversation, "m", 8)) == 2
