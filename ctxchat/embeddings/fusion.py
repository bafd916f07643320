"""Merging full-text and semantic recall candidates into one list (reciprocal-rank fusion).

BM25 scores and cosines are on unrelated scales, and BM25's depends on the corpus and the
query, so the two lists are merged by rank instead: a candidate scores Σ 1/(k + rank) over
the lists it is in (rank 1 = best). Found by both searches, it outranks one found by either.

That fused score is then put on BM25's scale, so `rank_recall` (relevance × recency) and the
session's memory candidates (scaled by the best message relevance) keep working unchanged:
the best fused candidate gets the best full-text relevance, the others in proportion to
their fused score. Needs none of the extra's packages.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxchat.core.recall import RecallCandidate

# The usual RRF constant is 60, for lists of hundreds; recall lists hold ~20, and a smaller
# k keeps rank 1 worth clearly more than rank 10 (1/11 vs 1/20) against recency weighting.
RRF_K = 10.0


def _key(candidate: RecallCandidate) -> int | str:
    return candidate.message_id if candidate.message_id is not None else candidate.ref


def _best_first(candidates: Sequence[RecallCandidate]) -> list[RecallCandidate]:
    return sorted(candidates, key=lambda c: c.bm25)


def fuse(
    fts: Sequence[RecallCandidate],
    semantic: Sequence[RecallCandidate],
    k: float = RRF_K,
) -> list[RecallCandidate]:
    """One list of candidates from both searches, merged by message, best fused score first.

    Each list is ranked by its own `bm25` (lower is better). The result's `bm25` is
    −(fused / best fused × best full-text relevance); with no full-text hits the semantic
    list's own scale is used, and a list fused with nothing is returned as it is (best first).
    Ties keep the newer message (smaller age) first.
    """
    if not fts or not semantic:
        return _best_first(fts or semantic)
    fused: dict[int | str, float] = {}
    first_seen: dict[int | str, RecallCandidate] = {}
    by_meaning: dict[int | str, RecallCandidate] = {}
    for ranked in (_best_first(fts), _best_first(semantic)):
        for rank, candidate in enumerate(ranked, start=1):
            key = _key(candidate)
            fused[key] = fused.get(key, 0.0) + 1.0 / (k + rank)
            first_seen.setdefault(key, candidate)
            if candidate.cosine is not None:
                by_meaning[key] = candidate
    matched = {_key(c) for c in fts}
    scale = max(-c.bm25 for c in fts)
    if scale <= 0:
        scale = max(-c.bm25 for c in semantic)
    best = max(fused.values())
    merged = [
        RecallCandidate(
            ref=c.ref,
            role=c.role,
            content=c.content,
            tokens=c.tokens,
            bm25=-scale * (fused[key] / best),
            age=c.age,
            message_id=c.message_id,
            cosine=meaning.cosine if meaning is not None else None,
            matched=key in matched,
            terms=c.terms,
            near=meaning.near if meaning is not None else None,
            in_context=meaning is not None and meaning.in_context,
        )
        for key, c in first_seen.items()
        for meaning in [by_meaning.get(key)]
    ]
    merged.sort(key=lambda c: (c.bm25, c.age, c.ref))
    return merged
