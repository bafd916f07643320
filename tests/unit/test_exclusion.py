"""Leaving a turn out without deleting it: the plan lists it, recall never brings it back."""

from typing import Any

import pytest

from ctxchat.core.assemble import AssemblyOptions
from ctxchat.core.budget import Budget, Layer
from ctxchat.core.exclusion import TokenDifference, pair_of, with_exclusions
from ctxchat.core.history import HistoryMessage, SummaryState
from ctxchat.core.plan import ContextPlan, Reason
from ctxchat.core.recall import RecallHit
from ctxchat.core.summary import unsummarized
from ctxchat.core.tokens import TokenCounter, count_message

from .plans import plan_with

TEXTS = [
    "Which database?",
    "PostgreSQL 16.",
    "Paste the huge log?",
    "LOG " * 200,
    "Thanks, next step?",
    "Restore the dump.",
]


@pytest.fixture
def history(counter: TokenCounter) -> list[HistoryMessage]:
    made = []
    for index, text in enumerate(TEXTS):
        role = "user" if index % 2 == 0 else "assistant"
        made.append(
            HistoryMessage(index + 1, role, text, count_message(counter, role, text).tokens)
        )
    return made


def plan(counter: TokenCounter, history: list[HistoryMessage], **changes: Any) -> ContextPlan:
    return plan_with(counter, history=history, new_input="What next?", adaptive=None, **changes)


def test_a_pair_is_a_question_and_the_replies_to_it(history: list[HistoryMessage]) -> None:
    assert pair_of(history, 4) == pair_of(history, 3) == (3, 4)
    assert pair_of(history, 1) == (1, 2)
    assert pair_of(history, 99) == ()
    opening = [
        HistoryMessage(1, "assistant", "Hello!", 5),
        HistoryMessage(2, "assistant", "Anyone there?", 6),
        HistoryMessage(3, "user", "Yes.", 5),
    ]
    assert pair_of(opening, 2) == (2,)


def test_an_excluded_pair_is_left_out_with_its_reason(
    counter: TokenCounter, history: list[HistoryMessage]
) -> None:
    before = plan(counter, history)
    after = plan(counter, with_exclusions(history, (3, 4), True))
    assert [item.ref for item in after.layer(Layer.WORKING).items] == [
        "message:1",
        "message:2",
        "message:5",
        "message:6",
    ]
    assert [(o.ref, o.tokens, o.reason, o.detail) for o in after.layer(Layer.WORKING).left_out] == [
        ("message:3", 9, Reason.EXCLUDED, "excluded by you"),
        ("message:4", 205, Reason.EXCLUDED, "excluded by you"),
    ]
    assert after.to_dict()["layers"][-2]["left_out"][0]["reason"] == "excluded"
    difference = TokenDifference.between(before, after)
    assert (difference.before, difference.after, difference.tokens) == (266, 52, -214)
    assert difference.describe() == "the next request: 266 → 52 tokens (−214)"
    # Included again, it is sent again.
    again = with_exclusions(with_exclusions(history, (3, 4), True), (3, 4), False)
    assert plan(counter, again).messages == before.messages


def test_recall_finds_an_excluded_message_and_never_brings_it_back(
    counter: TokenCounter, history: list[HistoryMessage]
) -> None:
    excluded = with_exclusions(history, (3, 4), True)
    hit = RecallHit(
        "message:4", "assistant", TEXTS[3], 205, 1.0, 1.0, 1.0, ("log",), 2, message_id=4
    )
    made = plan(counter, excluded, recall=[hit])
    recall = made.layer(Layer.RECALL)
    assert (recall.tokens, recall.items) == (0, ())
    assert [(o.ref, o.reason, o.detail) for o in recall.left_out] == [
        ("message:4", Reason.EXCLUDED, "excluded by you: recall found it and leaves it out")
    ]
    # Recall with nothing left takes no share from working memory.
    assert made.share_notes == () and all(m.content != TEXTS[3] for m in made.messages)


def test_an_excluded_message_in_the_summary_range_says_the_summary_may_hold_it(
    counter: TokenCounter, history: list[HistoryMessage]
) -> None:
    excluded = with_exclusions(history, (3,), True)
    made = plan(counter, excluded, summary=SummaryState(1, "They chose Postgres.", 1, 4))
    assert [(o.ref, o.reason, o.detail) for o in made.layer(Layer.WORKING).left_out] == [
        ("messages:1-2", Reason.SUMMARIZED, "in summary v1"),
        ("message:4", Reason.SUMMARIZED, "in summary v1"),
        (
            "message:3",
            Reason.EXCLUDED,
            "excluded by you (summary v1 covers it and may hold what it said)",
        ),
    ]
    # Summarizing skips excluded messages: the summary never reads them.
    assert [m.id for m in unsummarized(excluded, None)] == [1, 2, 4, 5, 6]


def test_runs_left_out_for_the_budget_never_span_an_excluded_message(
    counter: TokenCounter, history: list[HistoryMessage]
) -> None:
    excluded = with_exclusions(history, (2,), True)
    made = plan(
        counter,
        excluded,
        budget=Budget(330, 200),
        options=AssemblyOptions(min_recent=2),
    )
    assert [(o.ref, o.reason) for o in made.layer(Layer.WORKING).left_out] == [
        ("message:1", Reason.BUDGET),
        ("messages:3-4", Reason.BUDGET),
        ("message:2", Reason.EXCLUDED),
    ]


def test_excluded_ids_kept_by_the_caller_give_the_plan_a_scan_gives(
    counter: TokenCounter, history: list[HistoryMessage]
) -> None:
    excluded = with_exclusions(history, (2, 3), True)
    summary = SummaryState(1, "They chose Postgres.", 1, 4)
    scanned = plan(counter, excluded, summary=summary)
    assert plan(counter, excluded, summary=summary, excluded_ids=[2, 3]) == scanned
    assert [o.reason for o in scanned.layer(Layer.WORKING).left_out].count(Reason.EXCLUDED) == 2
