"""Recall and the summary in force agree: a turn the summary covers is recalled only for a
detail the question names that the summary lacks, and the panel says which (issue 40)."""

from __future__ import annotations

from ctxchat.chat.session import ChatSession
from ctxchat.chat.window import WindowInfo
from ctxchat.core.budget import Layer
from ctxchat.core.detail_kind import DetailKind
from ctxchat.core.plan import Reason
from ctxchat.core.summary_loss import LostDetail

from .test_session_recall import long_conversation

DECISION = "We decided to use PostgreSQL for the main database."
STAGING = "The staging host is called Marlin and listens on port 5433."


def summarized(session: ChatSession) -> None:
    """60 turns; a summary of the first 30 in force that holds the decision and lost the
    staging host's name."""
    session.server.use_window(WindowInfo(2_000, "config"))
    long_conversation(session, 60, {10: DECISION, 12: STAGING})
    session.writer.add_summary(
        "We decided on PostgreSQL for the main database. A staging host exists.",
        first_message_id=1,
        last_message_id=60,
        strategy="summarize",
        model=None,
        lost=(LostDetail("Marlin", DetailKind.NAME, 23, STAGING),),
    )


def test_a_turn_the_summary_holds_is_left_out_as_in_the_summary(session: ChatSession) -> None:
    summarized(session)
    recall = session.plan("What did we decide about the database?").layer(Layer.RECALL)
    assert "message:19" not in [item.ref for item in recall.items]
    [left] = [o for o in recall.left_out if o.ref == "message:19"]
    assert (left.reason, left.detail) == (Reason.SUMMARIZED, "in summary v1")


def test_a_turn_is_recalled_for_a_detail_the_summary_lost(session: ChatSession) -> None:
    summarized(session)
    recall = session.plan("Which Marlin port was it?").layer(Layer.RECALL)
    [item] = [item for item in recall.items if item.ref == "message:23"]
    assert item.label.startswith("in summary v1, recalled for “Marlin” the summary lacks; matched ")


def test_without_the_summary_the_same_turn_is_recalled_as_before(session: ChatSession) -> None:
    session.server.use_window(WindowInfo(2_000, "config"))
    long_conversation(session, 60, {10: DECISION, 12: STAGING})
    recall = session.plan("What did we decide about the database?").layer(Layer.RECALL)
    [item] = [item for item in recall.items if item.ref == "message:19"]
    assert item.label.startswith("matched decide, database; score ")


def test_a_turn_is_recalled_for_a_word_of_the_question_the_summary_lacks(
    session: ChatSession,
) -> None:
    summarized(session)
    recall = session.plan("Which port does the staging host listen on?").layer(Layer.RECALL)
    [item] = [item for item in recall.items if item.ref == "message:23"]
    assert item.label.startswith("in summary v1, recalled for “port” the summary lacks; matched ")


def test_the_conversation_marks_a_turn_left_out_by_recall_as_in_the_summarys_run(
    session: ChatSession,
) -> None:
    from ctxchat.tui.outside import outside_marks

    summarized(session)
    plan = session.plan("What did we decide about the database?")
    run = outside_marks(plan).run_of(19)
    # One divider under the summarized turns, not one of its own under turn 19.
    assert run is not None and (run.first, run.last) == (1, 60)
    assert run.divider() == "above: in summary v1, 60 messages"
