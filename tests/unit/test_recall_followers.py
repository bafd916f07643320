"""Recall by words reads a message with the one before it (core/followers.py)."""

from __future__ import annotations

from ctxchat.core.followers import FOLLOWER_SHARE, with_followers
from ctxchat.core.history import HistoryMessage
from ctxchat.core.recall import (
    RecallCandidate,
    rank_recall,
    recall_demand,
    with_neighbours,
    with_references,
)
from ctxchat.core.termstats import ConversationTerms

TEXTS = [
    "Took Rex for his check-up today.",
    "How did the vet visit go with Rex?",
    "All fine, he just needs to lose two kilos.",
    "Noted.",
    "The vet also sold us a new lead for Rex.",
    "We should walk him twice daily and cut his treats.",
    "Sounds good, thanks!",
]


def history(excluded: tuple[int, ...] = ()) -> list[HistoryMessage]:
    return [
        HistoryMessage(i, "user" if i % 2 else "assistant", text, 10, excluded=i in excluded)
        for i, text in enumerate(TEXTS, start=1)
    ]


def match(message_id: int, bm25: float) -> RecallCandidate:
    text = TEXTS[message_id - 1]
    return RecallCandidate(
        f"message:{message_id}",
        "user" if message_id % 2 else "assistant",
        text,
        10,
        bm25,
        len(TEXTS) - message_id,
        message_id,
        terms=("vet", "rex"),
    )


def test_the_message_after_a_match_ranks_at_a_share_of_its_score() -> None:
    messages = history()
    positions = {m.id: i for i, m in enumerate(messages)}
    found = with_followers([match(2, -10.0), match(5, -4.0)], messages, positions, None)
    assert [(c.message_id, c.bm25, c.after) for c in found] == [
        (2, -10.0, None),
        (5, -4.0, None),
        (3, -10.0 * FOLLOWER_SHARE, 2),  # the answer in other words, through its question
        (6, -4.0 * FOLLOWER_SHARE, 5),
    ]
    assert found[2].terms == ("vet", "rex")  # the words its predecessor matched
    assert found[2].age == len(TEXTS) - 3


def test_what_says_nothing_of_its_own_or_may_not_be_sent_does_not_follow() -> None:
    messages = history(excluded=(6,))
    positions = {m.id: i for i, m in enumerate(messages)}
    # "Noted." after #3; the message after #5 is excluded.
    found = with_followers([match(3, -5.0), match(5, -4.0)], messages, positions, None)
    assert [c.message_id for c in found] == [3, 5]
    messages = history()
    # "Sounds good, thanks!" after #6.
    assert [c.message_id for c in with_followers([match(6, -1.0)], messages, positions, None)] == [
        6
    ]


def test_working_memory_and_the_candidates_themselves_are_not_brought_again() -> None:
    messages = history()
    positions = {m.id: i for i, m in enumerate(messages)}
    # #3 follows #2 but is a match itself; #6 is among the newest (working memory).
    found = with_followers(
        [match(2, -10.0), match(3, -2.0), match(5, -4.0)], messages, positions, 6
    )
    assert [c.message_id for c in found] == [2, 5, 3]


def test_a_follower_is_labelled_brings_nothing_and_adds_no_demand() -> None:
    messages = history()
    positions = {m.id: i for i, m in enumerate(messages)}
    found = with_followers([match(2, -10.0)], messages, positions, None)
    hits = rank_recall(found, ["vet", "rex"])
    follower = hits[1]
    assert follower.why.startswith("read with #2 before it, which matched vet, rex; score ")
    stats = ConversationTerms(TEXTS)
    # It matched nothing of its own: it brings no message that refers back to it.
    assert [h.message_id for h in with_references(hits, messages, positions, stats)] == [2, 3]
    # The share recall takes is decided by the match alone.
    assert recall_demand(hits, 1_000) == recall_demand(hits[:1], 1_000)


def test_the_answer_to_the_users_question_is_left_to_come_right_after_it() -> None:
    messages = [
        HistoryMessage(1, "user", "Which lead should we buy for Rex?", 10),
        HistoryMessage(2, "assistant", "The red leather one from the vet fits him best.", 10),
    ]
    positions = {1: 0, 2: 1}
    asked = RecallCandidate("message:1", "user", messages[0].content, 10, -5.0, 1, 1)
    assert with_followers([asked], messages, positions, None) == [asked]
    hits = with_neighbours(rank_recall([asked], ["lead", "rex"]), messages, positions)
    assert [(h.message_id, h.neighbour_of) for h in hits] == [(1, None), (2, 1)]
