"""A turn end to end against the scripted server: what is sent, stored and shown on failure."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator

import pytest

from ctxchat.chat.session import ChatSession, OverBudget
from ctxchat.chat.turn import (
    ReplyDelta,
    TurnEvent,
    TurnFailed,
    TurnFinished,
    TurnRetried,
    TurnStarted,
    regenerate,
    send_message,
)
from ctxchat.chat.window import WindowInfo
from ctxchat.core.budget import Layer
from ctxchat.core.history import MessageStatus
from ctxchat.core.memory import MemoryKind
from ctxchat.model.errors import ErrorKind
from ctxchat.store import ReplyEnding
from ctxchat.store.variants import REGENERATED
from ctxchat.testing.server import Fault, Reply, ScriptedModelServer, count_prompt_tokens

from ..waiting import PATIENCE

API_KEY = "sk-chat-test-0123456789"  # the key tests/chat/conftest.py configures


async def collect(events: AsyncIterator[TurnEvent]) -> list[TurnEvent]:
    return [event async for event in events]


async def test_the_bytes_sent_are_the_plan(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    session.store.memory.add_memory(MemoryKind.FACT, "The database is SQLite.")
    session.forget_memory()
    server.script("First answer.", "Second answer.")
    await collect(send_message(session, "Hello"))
    events = await collect(send_message(session, "What database do we use?"))

    started = events[0]
    assert isinstance(started, TurnStarted)
    body = server.requests[-1]
    assert json.dumps(body["messages"]) == json.dumps(started.plan.request_messages())
    assert [m["role"] for m in body["messages"]] == [
        "system",
        "system",
        "user",
        "assistant",
        "user",
    ]
    assert body["messages"][-1]["content"] == "What database do we use?"
    assert body["model"] == "gpt-4o"
    assert body["max_tokens"] == started.plan.output_reserve
    # The stored plan of the reply is the one that was sent.
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    stored_plan = session.store.plans.load_plan(finished.reply.id)
    assert stored_plan is not None
    assert stored_plan.request_messages() == body["messages"]


async def test_reply_is_streamed_stored_with_usage_and_drift(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.script("A reply that arrives in several small chunks.")
    events = await collect(send_message(session, "Hi there"))
    deltas = [e.text for e in events if isinstance(e, ReplyDelta)]
    assert len(deltas) > 3
    assert "".join(deltas) == "A reply that arrives in several small chunks."
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    reply = finished.reply
    assert reply.status is MessageStatus.COMPLETE
    assert reply.content == "A reply that arrives in several small chunks."
    assert reply.prompt_tokens == server.prompt_tokens(server.requests[-1]["messages"])
    started = events[0]
    assert isinstance(started, TurnStarted)
    assert reply.estimated_prompt_tokens == started.plan.tokens
    assert reply.drift == reply.prompt_tokens - started.plan.tokens
    assert reply.tokens == session.count("assistant", reply.content)
    stored = session.store.messages.messages(session.stored_id)
    assert [(m.role, m.content) for m in stored] == [
        ("user", "Hi there"),
        ("assistant", "A reply that arrives in several small chunks."),
    ]


async def test_wrong_key_keeps_the_message_and_names_no_secret(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.fail_next(Fault.AUTH)
    events = await collect(send_message(session, "Keep me"))
    failed = events[-1]
    assert isinstance(failed, TurnFailed)
    assert failed.error.kind is ErrorKind.AUTH
    assert failed.reply.status is MessageStatus.FAILED
    assert failed.reply.error is not None
    assert API_KEY not in failed.reply.error
    assert API_KEY not in str(failed.error)
    stored = session.store.messages.messages(session.stored_id)
    assert stored[0].content == "Keep me"
    # A failed reply is not sent back next time.
    assert [m["role"] for m in session.plan("again").request_messages()] == [
        "system",
        "user",
        "user",
    ]


async def test_dropped_stream_keeps_the_partial_reply(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.script("One two three four five six seven eight nine ten.")
    server.fail_next(Fault.DROP, after=3)
    events = await collect(send_message(session, "Count"))
    failed = events[-1]
    assert isinstance(failed, TurnFailed)
    assert failed.error.kind is ErrorKind.INTERRUPTED
    partial = "".join(e.text for e in events if isinstance(e, ReplyDelta))
    assert partial
    assert failed.reply.status is MessageStatus.INTERRUPTED
    assert failed.reply.content == partial


async def test_stopping_keeps_what_arrived(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.latency = 0.05
    server.script("word " * 200)
    received: list[str] = []
    three_arrived = asyncio.Event()

    async def run() -> None:
        async for event in send_message(session, "Talk a lot"):
            if isinstance(event, ReplyDelta):
                received.append(event.text)
                if len(received) == 3:
                    three_arrived.set()

    task = asyncio.create_task(run())
    await asyncio.wait_for(three_arrived.wait(), PATIENCE)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    reply = session.store.messages.messages(session.stored_id)[-1]
    assert reply.status is MessageStatus.INTERRUPTED
    assert reply.content == "".join(received)
    assert reply.error == "You stopped the reply; the part received so far was kept."


async def test_the_request_goes_out_while_the_turn_is_being_drawn(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.script("Answer.")
    events = send_message(session, "Hello")
    started = await anext(events)
    assert isinstance(started, TurnStarted)
    # No chunk asked for yet: the caller is still drawing the new turn.
    assert await asyncio.to_thread(server.wait_for_requests, 1)
    rest = await collect(events)
    assert isinstance(rest[-1], TurnFinished)
    assert rest[-1].reply.content == "Answer."


async def test_stopping_before_the_first_chunk_marks_the_reply(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.latency = 0.5
    server.script("Never seen.")
    events = send_message(session, "Hello")
    started = await anext(events)
    assert isinstance(started, TurnStarted)
    assert await asyncio.to_thread(server.wait_for_requests, 1)
    await events.aclose()  # as when the user stops the turn while it is being drawn
    reply = session.store.messages.get_message(started.reply_id)
    assert reply.status is MessageStatus.INTERRUPTED
    assert reply.content == ""
    assert await asyncio.to_thread(server.wait_for_abort)


async def test_over_budget_input_stores_nothing(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    with pytest.raises(OverBudget) as caught:
        await collect(send_message(session, "word " * 20_000))
    assert str(caught.value).startswith("The message is ")
    assert "tokens over the budget of 7,000 tokens" in str(caught.value)
    assert session.store.messages.messages(session.stored_id) == []
    assert server.requests == []


async def test_regenerate_replaces_the_last_reply(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.script("First try.", "Second try.")
    await collect(send_message(session, "Question"))
    events = await collect(regenerate(session))
    assert isinstance(events[-1], TurnFinished)
    stored = session.store.messages.messages(session.stored_id)
    assert [(m.role, m.content) for m in stored] == [
        ("user", "Question"),
        ("assistant", "Second try."),
    ]
    assert [m["content"] for m in server.requests[-1]["messages"]] == ["You are terse.", "Question"]


async def test_regenerate_keeps_the_replaced_reply_and_its_variants_as_variants(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.script(Reply("First try.", reasoning="Thinking once."), "Second try.")
    await collect(send_message(session, "Question"))
    store = session.store
    old = store.messages.messages(session.stored_id)[-1]
    plan = store.plans.load_plan(old.id)
    assert plan is not None
    asked = store.variants.start_variant(old.id, change="without memory", model="other", plan=plan)
    store.variants.finish_variant(
        asked.id, ReplyEnding(content="A variant.", tokens=3, exact=True, encoding="x")
    )

    events = await collect(regenerate(session))
    started = events[0]
    assert isinstance(started, TurnStarted)
    new = store.messages.messages(session.stored_id)[-1]
    variants = store.variants.variants(new.id)
    # Listed in the order they were written: the reply, then the variant asked of it.
    assert [(v.change, v.content, v.reasoning) for v in variants] == [
        (REGENERATED, "First try.", "Thinking once."),
        ("without memory", "A variant.", ""),
    ]
    assert started.kept == (variants[0].id,)
    assert store.variants.load_variant_plan(variants[0].id) == plan
    assert variants[0].created_at == old.created_at


async def test_a_regenerate_that_cannot_fit_changes_nothing(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.script("First try.")
    await collect(send_message(session, "Question"))
    before = session.store.messages.messages(session.stored_id)
    session.server.use_window(WindowInfo(8, "probed"))  # not even the system prompt fits
    with pytest.raises(OverBudget):
        await collect(regenerate(session))
    assert session.store.messages.messages(session.stored_id) == before
    assert session.store.variants.variants(before[-1].id) == []
    assert len(server.requests) == 1


async def test_reasoning_is_stored_apart_and_never_sent_back(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.script(Reply("The answer is 4.", reasoning="Two plus two makes four."))
    events = await collect(send_message(session, "2+2?"))
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    reply = finished.reply
    assert reply.content == "The answer is 4."
    assert reply.reasoning == "Two plus two makes four."
    server.script("ok")
    await collect(send_message(session, "thanks"))
    sent = json.dumps(server.requests[-1]["messages"])
    assert "Two plus two" not in sent
    assert "The answer is 4." in sent


async def test_think_tags_are_split_from_the_answer(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.script("<think>Let me see.</think>\n\nIt is Tuesday.")
    events = await collect(send_message(session, "Day?"))
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    reply = finished.reply
    assert (reply.content, reply.reasoning) == ("It is Tuesday.", "Let me see.")


async def test_output_limit_is_reported(session: ChatSession, server: ScriptedModelServer) -> None:
    server.script(Reply("Cut here", finish_reason="length"))
    events = await collect(send_message(session, "Write a lot"))
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    assert finished.notice is not None
    assert finished.notice.startswith("The reply was cut off by the output limit")
    assert finished.reply.finish_reason == "length"


async def test_edit_and_replace_later_turns(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    from ctxchat.chat.edits import replace_from

    server.script("A1", "A2", "A1 again")
    await collect(send_message(session, "Q1"))
    await collect(send_message(session, "Q2"))
    first = session.store.messages.messages(session.stored_id)[0]
    replace_from(session, first.id, "Q1 edited")
    await collect(regenerate(session))
    stored = session.store.messages.messages(session.stored_id)
    assert [(m.role, m.content) for m in stored] == [
        ("user", "Q1 edited"),
        ("assistant", "A1 again"),
    ]
    assert server.requests[-1]["messages"][-1] == {"role": "user", "content": "Q1 edited"}


async def test_edit_as_a_branch_keeps_the_original(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    from ctxchat.chat.edits import branch_from

    server.script("A1", "A2", "B2")
    await collect(send_message(session, "Q1"))
    await collect(send_message(session, "Q2"))
    second = session.store.messages.messages(session.stored_id)[2]
    branch_id = branch_from(session, second.id, "Q2 other")
    branch = session.for_conversation(branch_id)
    await collect(regenerate(branch))
    assert [m.content for m in session.store.messages.messages(session.stored_id)] == [
        "Q1",
        "A1",
        "Q2",
        "A2",
    ]
    assert [m.content for m in session.store.messages.messages(branch_id)] == [
        "Q1",
        "A1",
        "Q2 other",
        "B2",
    ]
    assert session.store.conversations.get_conversation(branch_id).title == "Test (branch)"


def summary_sent(session: ChatSession) -> list[str]:
    """The summary messages the session's next request sends."""
    plan = session.plan(None)
    return [m.content for m in plan.messages if m.layer is Layer.SUMMARY]


async def test_a_branch_keeps_the_summary_that_covers_the_turns_it_copies(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    from ctxchat.chat.edits import branch_from

    server.script("A1", "A2", "A3")
    for question in ("Q1", "Q2", "Q3"):
        await collect(send_message(session, question))
    q1, a1, q2, a2, q3, _a3 = session.store.messages.messages(session.stored_id)
    session.writer.add_summary(
        "Q1 asked; A1 said.",
        first_message_id=q1.id,
        last_message_id=a1.id,
        strategy="semantic",
        model="gpt-4o",
    )
    session.writer.add_summary(
        "Q1, Q2 asked; A1, A2 said.",
        first_message_id=q1.id,
        last_message_id=a2.id,
        strategy="semantic",
        model="gpt-4o",
    )
    in_force = summary_sent(session)
    assert in_force and "Q1, Q2 asked" in in_force[0]

    # Edited after every summarized turn: the branch sends the same summary.
    later = session.for_conversation(branch_from(session, q3.id, "Q3 other"))
    assert summary_sent(later) == in_force
    (copied,) = session.store.summaries.summaries(later.stored_id)
    copies = session.store.messages.messages(later.stored_id)
    assert (copied.version, copied.first_message_id, copied.last_message_id) == (
        1,
        copies[0].id,
        copies[3].id,
    )

    # The branch travels with its summary.
    moved = session.store.transfer.import_conversation(
        session.store.transfer.export_conversation(later.stored_id)
    )
    assert summary_sent(session.for_conversation(moved)) == in_force

    # Edited inside what v2 covers: v2 describes turns the branch does not have; v1 does not.
    earlier = session.for_conversation(branch_from(session, q2.id, "Q2 other"))
    (kept,) = session.store.summaries.summaries(earlier.stored_id)
    assert kept.text == "Q1 asked; A1 said."
    assert (kept.first_message_id, kept.last_message_id) == tuple(
        m.id for m in session.store.messages.messages(earlier.stored_id)[:2]
    )

    # Rolled back to no summary: the branch has none either.
    session.store.summaries.activate_summary(session.stored_id, None)
    none = branch_from(session, q3.id, "Q3 again")
    assert session.store.summaries.summaries(none) == []


async def _history_of(session: ChatSession, turns: int) -> None:
    for number in range(turns):
        await collect(send_message(session, f"Message number {number}: " + "words " * 40))


async def test_an_overflow_is_replanned_with_the_servers_window_and_sent_again(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    await _history_of(session, 6)
    server.n_ctx, server.enforce_n_ctx = 400, True  # the server really serves 400 tokens
    before = len(server.requests)

    events = await collect(send_message(session, "And now?"))

    kinds = [type(event).__name__ for event in events if not isinstance(event, ReplyDelta)]
    assert kinds == ["TurnStarted", "TurnRetried", "TurnStarted", "TurnFinished"]
    first, retried, second, finished = (e for e in events if not isinstance(e, ReplyDelta))
    assert isinstance(first, TurnStarted) and isinstance(second, TurnStarted)
    assert isinstance(retried, TurnRetried) and isinstance(finished, TurnFinished)
    assert retried.window == 400 and retried.error.kind is ErrorKind.CONTEXT_OVERFLOW
    assert (first.plan.context_window, second.plan.context_window) == (8_000, 400)
    sent = server.requests[before:]
    assert len(sent) == 2
    assert len(sent[1]["messages"]) < len(sent[0]["messages"])
    assert sent[1]["messages"][-1] == {"role": "user", "content": "And now?"}
    # The user's message is kept once; the refused reply is gone, the new one stored whole.
    history = session.history()
    assert [(m.role, m.content) for m in history[-2:]] == [
        ("user", "And now?"),
        ("assistant", "You said: And now?"),
    ]
    assert (session.window.context_window, session.window.source) == (
        400,
        "learned from an error",
    )
    stored = session.store.plans.load_plan(finished.reply.id)
    assert stored is not None and stored.context_window == 400
    # The budget panel says why the window changed.
    assert (
        "The server refused a prompt over its window of 400 tokens; planning with it."
        in session.plan("next").warnings
    )


async def test_an_overflow_is_retried_only_once(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.fail_next(Fault.CONTEXT_LENGTH_EXCEEDED, n_ctx=6_000)
    server.fail_next(Fault.CONTEXT_LENGTH_EXCEEDED, n_ctx=5_000)

    events = await collect(send_message(session, "Hello"))

    failed = events[-1]
    assert isinstance(failed, TurnFailed)
    assert failed.error.context_window == 5_000
    assert len(server.requests) == 2
    assert [m.content for m in session.history()] == ["Hello", ""]


async def test_an_overflow_with_a_configured_window_is_not_retried(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    context = dataclasses.replace(session.settings.context, context_window=8_000)
    session.settings = dataclasses.replace(session.settings, context=context)
    server.fail_next(Fault.CONTEXT_LENGTH_EXCEEDED, n_ctx=4_096)

    events = await collect(send_message(session, "Hello"))

    assert isinstance(events[-1], TurnFailed)
    assert len(server.requests) == 1
    assert (session.window.context_window, session.window.source) == (8_000, "config")


async def test_a_window_that_shrinks_is_noted(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    session.server.use_window(WindowInfo(8_000, "probed"))
    server.fail_next(Fault.CONTEXT_LENGTH_EXCEEDED, n_ctx=4_096)

    events = await collect(send_message(session, "Hello"))

    assert isinstance(events[-1], TurnFinished)
    assert session.plan("next").warnings[-1] == (
        "The server's context window shrank from 8,000 to 4,096 tokens (restarted with "
        "less?); planning with 4,096."
    )


async def test_usage_without_a_server_tokenizer_calibrates_the_estimate(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    local = dataclasses.replace(session.profile, model="local-model")  # no exact tokenizer
    session.switch_model(local, session.backend)
    events = await collect(send_message(session, "Hello there, how are you today?"))
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    reply = finished.reply
    assert reply.prompt_tokens is not None and reply.estimated_prompt_tokens is not None

    plan = session.plan("Next one.")

    ratio = reply.prompt_tokens / reply.estimated_prompt_tokens
    assert not plan.exact
    assert plan.counter_note.endswith(
        f"; calibrated to the server's usage: ~{round(plan.tokens * ratio):,} tokens"
    )


async def test_a_server_counting_more_than_the_estimate_is_retried_within_less(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    """The window is right but the server counts the prompt a third larger than ctxchat does
    (a chat template whose markers its tokenizer spells out): the refusal says how much it
    counted, the turn is planned again within less and sent once more, and later plans keep
    room for the difference."""
    session.server.use_window(WindowInfo(600, "server"))
    await _history_of(session, 6)
    server.n_ctx, server.enforce_n_ctx = 600, True
    server.prompt_tokens = lambda messages: count_prompt_tokens(messages) * 4 // 3
    before = len(server.requests)

    events = await collect(send_message(session, "And now?"))

    kinds = [type(event).__name__ for event in events if not isinstance(event, ReplyDelta)]
    assert kinds == ["TurnStarted", "TurnRetried", "TurnStarted", "TurnFinished"]
    first, _, second, _ = (e for e in events if not isinstance(e, ReplyDelta))
    assert isinstance(first, TurnStarted) and isinstance(second, TurnStarted)
    assert second.plan.total_budget < first.plan.total_budget
    assert second.plan.context_window == first.plan.context_window == 600
    assert len(server.requests[before:]) == 2
    later = session.plan("next")
    assert later.total_budget <= second.plan.total_budget
    assert any("larger than ctxchat's estimate" in warning for warning in later.warnings)
