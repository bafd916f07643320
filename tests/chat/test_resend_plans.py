"""Regenerate, retry and both kinds of edit plan their request as a send of the message would:
recall included, and the plan says what it kept (issue 40)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from ctxchat.chat.answering import Resend
from ctxchat.chat.edits import branch_from, replace_from
from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import TurnEvent, TurnStarted, regenerate, send_message
from ctxchat.chat.window import WindowInfo
from ctxchat.core.budget import Layer
from ctxchat.testing.server import ScriptedModelServer

from .test_session_recall import long_conversation

PLANTED = "We decided to use PostgreSQL for the main database."
QUESTION = "What did we decide about the database?"


async def collect(events: AsyncIterator[TurnEvent]) -> list[TurnEvent]:
    return [event async for event in events]


def recalled(body: dict[str, object]) -> list[str]:
    """The recall message of a request body as received, if it has one."""
    messages = body["messages"]
    assert isinstance(messages, list)
    return [m["content"] for m in messages if m["content"].startswith("Earlier messages recalled")]


async def asked_with_recall(session: ChatSession, server: ScriptedModelServer) -> None:
    session.server.use_window(WindowInfo(2_000, "config"))
    long_conversation(session, 60, {1: PLANTED})
    server.script("First.", "Second.", "Third.")
    await collect(send_message(session, QUESTION))
    [recall] = recalled(server.requests[0])
    assert PLANTED in recall  # the early turn is far out of working memory


async def test_regenerate_sends_the_request_a_send_of_the_question_sent(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    await asked_with_recall(session, server)
    events = await collect(regenerate(session))
    # The body received is the first one again, recall and all.
    assert server.requests[1]["messages"] == server.requests[0]["messages"]
    started = events[0]
    assert isinstance(started, TurnStarted)
    question = session.store.messages.newest_message(session.stored_id, role="user")
    assert question is not None
    assert started.plan.layer(Layer.INPUT).notes == (
        f"regenerate: keeps your message #{question.id} as it was (the reply is kept as a "
        "variant); memory, summary, task, files, recall and working memory planned anew as "
        "for a new message",
    )
    # The stored plan of the new reply says so too.
    reply = session.store.messages.newest_message(session.stored_id)
    assert reply is not None
    stored = session.store.plans.load_plan(reply.id)
    assert (
        stored is not None
        and stored.layer(Layer.INPUT).notes == started.plan.layer(Layer.INPUT).notes
    )


async def test_an_edit_sent_again_in_place_recalls_for_the_edited_text(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    await asked_with_recall(session, server)
    question = session.store.messages.newest_message(session.stored_id, role="user")
    assert question is not None
    replace_from(session, question.id, "Which main database did we decide on?")
    events = await collect(regenerate(session, Resend.EDIT))
    [recall] = recalled(server.requests[1])
    assert PLANTED in recall
    assert server.requests[1]["messages"][-1]["content"] == "Which main database did we decide on?"
    started = events[0]
    assert isinstance(started, TurnStarted)
    assert (
        started.plan.layer(Layer.INPUT)
        .notes[0]
        .startswith(
            f"edit: keeps your edited message #{question.id} (the replies after it were replaced)"
        )
    )


async def test_an_edit_sent_again_as_a_branch_recalls_in_the_branch(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    await asked_with_recall(session, server)
    question = session.store.messages.newest_message(session.stored_id, role="user")
    assert question is not None
    branch_id = branch_from(session, question.id, "Which main database did we decide on?")
    branch = session.for_conversation(branch_id)
    events = await collect(regenerate(branch, Resend.BRANCH))
    [recall] = recalled(server.requests[1])
    assert PLANTED in recall
    started = events[0]
    assert isinstance(started, TurnStarted)
    assert started.plan.layer(Layer.INPUT).notes[0].startswith("branch: keeps your edited message")
    # The original conversation is whole: its question and reply are still there.
    assert session.store.messages.newest_message(session.stored_id, role="user") == question
