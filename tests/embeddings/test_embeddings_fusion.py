"""fuse: full-text and semantic candidates merged by message, by reciprocal rank, on BM25's scale."""

from __future__ import annotations

import pytest

from ctxchat.core.recall import RecallCandidate, rank_recall
from ctxchat.embeddings.fusion import RRF_K, fuse


def candidate(message_id: int, bm25: float, age: int = 0) -> RecallCandidate:
    return RecallCandidate(
        f"message:{message_id}", "user", f"text {message_id}", 5, bm25, age, message_id
    )


def test_a_message_found_by_both_searches_comes_first_on_the_best_full_text_scale() -> None:
    fts = [candidate(2, -4.0), candidate(1, -8.0)]  # given in any order: ranked by bm25
    semantic = [candidate(3, -9.0), candidate(1, -5.0)]
    fused = fuse(fts, semantic)
    assert [c.message_id for c in fused] == [1, 3, 2]
    both = 1 / (RRF_K + 1) + 1 / (RRF_K + 2)
    assert [c.bm25 for c in fused] == pytest.approx(
        [-8.0, -8.0 * (1 / (RRF_K + 1)) / both, -8.0 * (1 / (RRF_K + 2)) / both]
    )
    assert fused[0].content == "text 1"


def test_equal_fused_scores_keep_the_newer_message_first() -> None:
    fused = fuse([candidate(1, -3.0, age=9)], [candidate(2, -0.5, age=1)])
    assert [(c.message_id, c.bm25) for c in fused] == [(2, -3.0), (1, -3.0)]


def test_one_list_alone_comes_back_best_first_unchanged() -> None:
    semantic = [candidate(1, -2.0), candidate(2, -6.0)]
    assert fuse([], semantic) == [semantic[1], semantic[0]]
    assert fuse(semantic, []) == [semantic[1], semantic[0]]
    assert fuse([], []) == []


def test_fused_candidates_rank_with_recency_as_before() -> None:
    fused = fuse([candidate(1, -8.0, age=300)], [candidate(2, -9.0, age=0)])
    hits = rank_recall(fused, ["text"], half_life=150.0)
    # Equal relevance after fusion: recency decides.
    assert [hit.message_id for hit in hits] == [2, 1]
    assert hits[1].recency == pytest.approx(1 - 0.25 * (1 - 0.25))  # two half-lives old


def test_a_fused_hit_says_which_search_found_it() -> None:
    fts = [candidate(1, -8.0), candidate(2, -4.0)]
    semantic = [
        RecallCandidate("message:1", "user", "text 1", 5, -6.0, 0, 1, cosine=0.61, matched=False),
        RecallCandidate("message:3", "user", "text 3", 5, -5.0, 0, 3, cosine=0.52, matched=False),
    ]
    hits = {hit.message_id: hit for hit in rank_recall(fuse(fts, semantic), ["text"])}
    assert hits[1].why.startswith("matched text; similar in meaning (cosine 0.61); score ")
    assert hits[2].why.startswith("matched text; score ")
    assert hits[3].why.startswith("similar in meaning (cosine 0.52); score ")
