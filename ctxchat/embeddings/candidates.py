"""Semantic recall candidates: the stored messages nearest in meaning to a draft."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ctxchat.core.followers import says_little
from ctxchat.core.history import HistoryMessage, MessageStatus
from ctxchat.core.recall import RecallCandidate
from ctxchat.embeddings.encoder import MiniLMEncoder
from ctxchat.embeddings.index import Floats, SemanticIndex

if TYPE_CHECKING:
    from ctxchat.store import Store

# A nearest neighbour always exists, relevant or not: below this cosine a match is taken
# for noise (what the encoder gives related and unrelated texts: bench/NOTES.md).
MIN_COSINE = 0.2
# Across conversations a match must come closer: there a weak match is from another topic
# altogether (a chores conversation's "I'll do the bins, you do the dishes." at 0.27 for
# "What should I cook tonight?"), and a new conversation has room to spare that it would fill
# with them. Measured on LoCoMo across conversations: 0.3 costs 0.1 / 0.2 / 0.3 of a point
# there, where every conversation is about the same two people (bench/NOTES.md).
ACROSS_MIN_COSINE = 0.3
# The relevance of a perfect match, on BM25's scale (where the best full-text hits lie).
SEMANTIC_SCALE = 10.0
# A second look (pseudo-relevance feedback): the draft's vector moved towards the mean of its
# best matches' finds what answers in their words rather than the draft's: the other half of
# a multi-hop answer, a turn that names what the question only describes (bench/NOTES.md).
FEEDBACK_MATCHES = 3
FEEDBACK_WEIGHT = 0.5


def cosine_relevance(cosine: float, min_cosine: float = MIN_COSINE) -> float:
    """A cosine as a relevance on BM25's scale: 0 at `min_cosine`, SEMANTIC_SCALE at 1.

    Stretching the range above the floor matters because relevance is multiplied by recency:
    raw cosines of a paraphrase (0.7) and a loose match (0.3) differ about 2×, which one
    half-life of recency would undo; stretched they differ 5×.
    """
    if cosine <= min_cosine:
        return 0.0
    return SEMANTIC_SCALE * (min(cosine, 1.0) - min_cosine) / (1.0 - min_cosine)


def widened_query(
    index: SemanticIndex,
    query: Floats,
    before_id: int | None,
    matches: int = FEEDBACK_MATCHES,
    weight: float = FEEDBACK_WEIGHT,
    min_cosine: float = MIN_COSINE,
) -> Floats:
    """`query` (normalised) moved towards the mean vector of its `matches` nearest messages
    that are matches at all (a cosine above `min_cosine`), normalised again; `query` itself
    when there are none."""
    best = [found for found in index.search(query, matches, before_id) if found[1] > min_cosine]
    if not best:
        return query
    mixed = query + weight * index.vectors_of([message_id for message_id, _ in best]).mean(axis=0)
    norm = float(np.linalg.norm(mixed))
    return (mixed / norm).astype(np.float32) if norm > 0 else query


def semantic_candidates(
    index: SemanticIndex,
    encoder: MiniLMEncoder,
    store: Store,
    draft: str,
    limit: int,
    before_id: int | None = None,
    age_of: Callable[[int], int] | None = None,
    known: Callable[[int], HistoryMessage | None] | None = None,
    *,
    min_cosine: float = MIN_COSINE,
    vector: Floats | None = None,
) -> list[RecallCandidate]:
    """Messages nearest to `draft` in meaning, as recall candidates, best first.

    Nearest to the draft widened by its best matches (see `widened_query`), each message
    also read with the one before it (`SemanticIndex.search_in_context`): `near` is the
    better of those cosines (`in_context` says which), `cosine` the one with the draft alone. Only those with a `near` above
    `min_cosine`; `bm25` carries −cosine_relevance(near),
    so the list ranks with `rank_recall` alone or merges with full-text hits by `fuse`.
    `before_id` and `age_of` mean what they do for `Search.search_messages` (without
    `age_of`, age counts the index's newer vectors: a close guess). Encoding the draft takes
    a few milliseconds. `known(message_id)` gives a message the caller holds already (no
    store read). A message deleted since it was indexed is dropped from the index. `vector`:
    the draft's, when the caller has it already. A message that says little ("Noted.", see
    `says_little`) is ranked by itself: read with the one before it, it would stand for that.
    """
    if not draft.strip() or limit <= 0:
        return []
    query: Floats = encoder.encode([draft])[0] if vector is None else vector
    widened = widened_query(index, query, before_id, min_cosine=min_cosine)
    found = index.search_in_context(widened, limit, before_id)
    vectors = (
        index.vectors_of([message_id for message_id, _, _ in found])
        if found
        else np.zeros((0, index.dimensions), dtype=np.float32)
    )
    own: Floats = vectors @ query
    alone: Floats = vectors @ widened
    candidates = []
    gone = []
    for (message_id, near, in_context), cosine, by_itself in zip(found, own, alone, strict=True):
        if near <= min_cosine:
            break
        message: HistoryMessage | None = known(message_id) if known is not None else None
        if message is None:
            try:
                message = store.messages.get_message(message_id).to_history()
            except LookupError:
                gone.append(message_id)
                continue
        if message.status not in (MessageStatus.COMPLETE, MessageStatus.INTERRUPTED):
            continue
        if in_context and says_little(message.content):
            # "Noted." read with the message before it would only stand for that message.
            near, in_context = float(by_itself), False
            if near <= min_cosine:
                continue
        age = age_of(message_id) if age_of is not None else index.newer_than(message_id)
        candidates.append(
            RecallCandidate(
                ref=f"message:{message_id}",
                role=message.role,
                content=message.content,
                tokens=message.tokens,
                bm25=-cosine_relevance(near, min_cosine),
                age=age,
                message_id=message_id,
                cosine=float(cosine),
                matched=False,
                near=near,
                in_context=in_context,
            )
        )
    if gone:
        index.discard(gone)
    candidates.sort(key=lambda c: (c.bm25, c.age, c.ref))
    return candidates
