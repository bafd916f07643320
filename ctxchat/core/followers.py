"""Recall by words reads a message with the one before it: the message after a full-text
match is a candidate too, ranked at a share of the match's score.

By meaning each message's vector is also read with its predecessor's
(`SemanticIndex.search_in_context`); by words a reply that answers in other words ("All
fine, he just needs to lose two kilos.") shares none with the question ("What did the vet
say about Rex?"), only the message it answers does ("How did the vet visit go with Rex?").
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxchat.core.history import HistoryMessage
from ctxchat.core.recall import RecallCandidate, is_question, query_terms

# The share of its match's score a follower ranks at. On LoCoMo's tuning conversations by
# words alone it took the answering turns at 8k from 76.7% to 79.7% (0.2 and 0.5 the same);
# by meaning the vectors read each message so already, and it found nothing more there
# (bench/NOTES.md).
FOLLOWER_SHARE = 0.3
# A message with fewer content words than this says nothing of its own ("Noted.", "Sounds
# good, thanks!"): it does not follow a match into the request.
FOLLOWER_MIN_TERMS = 3


def says_little(text: str) -> bool:
    """Whether `text` has fewer than FOLLOWER_MIN_TERMS content words ("Noted."): read with
    the message before it, it would only stand for that message."""
    return len(query_terms(text, FOLLOWER_MIN_TERMS)) < FOLLOWER_MIN_TERMS


def with_followers(
    candidates: Sequence[RecallCandidate],
    history: Sequence[HistoryMessage],
    positions: dict[int, int],
    before_id: int | None,
    share: float = FOLLOWER_SHARE,
) -> list[RecallCandidate]:
    """The full-text `candidates` (best first) and the message after each in `history`
    (`positions`: each message's index in it), ranked at `share` of that candidate's score,
    best first. Not after the user's question (its answer comes right after it, see
    `with_neighbours`), nor when it is a candidate itself, cannot be sent (failed, excluded), is
    not older than `before_id` (working memory holds it), or has fewer than
    FOLLOWER_MIN_TERMS content words. It carries the words its predecessor matched, and
    `after` names that predecessor (the best one, when it follows two)."""
    found = {c.message_id for c in candidates}
    newest = len(history) - 1
    followers: dict[int, RecallCandidate] = {}
    for candidate in candidates:
        if candidate.role == "user" and is_question(candidate.content):
            continue  # its answer comes right after it (`with_neighbours`), at its score
        position = None if candidate.message_id is None else positions.get(candidate.message_id)
        if position is None or position + 1 >= len(history):
            continue
        message = history[position + 1]
        if (
            message.id in found
            or message.id in followers
            or not message.sendable
            or (before_id is not None and message.id >= before_id)
            or says_little(message.content)
        ):
            continue
        followers[message.id] = RecallCandidate(
            ref=message.ref,
            role=message.role,
            content=message.content,
            tokens=message.tokens,
            bm25=share * candidate.bm25,
            age=newest - position - 1,
            message_id=message.id,
            terms=candidate.terms,
            after=candidate.message_id,
        )
    merged = [*candidates, *followers.values()]
    merged.sort(key=lambda c: (c.bm25, c.age, c.ref))
    return merged
