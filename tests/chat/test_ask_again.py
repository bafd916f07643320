"""Asking a reply's request again with a change, over real HTTP: sent, stored as a variant."""

from __future__ import annotations

import asyncio

import pytest

from ctxchat.chat.ask_again import (
    AskAgainError,
    VariantFailed,
    VariantFinished,
    VariantStarted,
    ask_again,
    prepare_variant,
)
from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import ReplyDelta, TurnFinished, send_message
from ctxchat.core.budget import Layer
from ctxchat.core.counterfactual import Change
from ctxchat.core.history import MessageStatus
from ctxchat.core.memory import MemoryKind, Mode
from ctxchat.model.errors import ErrorKind
from ctxchat.testing.server import Fault, ScriptedModelServer


async def a_reply(session: ChatSession, server: ScriptedModelServer) -> int:
    session.store.memory.add_memory(MemoryKind.FACT, "The database is SQLite.", key="db")
    session.store.memory.add_memory(MemoryKind.PREFERENCE, "Likes short answers.")
    session.forget_memory()
    server.script("SQLite, as you told me.")
    events = [event async for event in send_message(session, "Which database do we use?")]
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    return finished.reply.id


async def variant_events(session: ChatSession, reply_id: int, change: Change) -> list[object]:
    prepared = prepare_variant(session, reply_id, change)
    return [event async for event in ask_again(session, prepared)]


async def test_without_a_memory_entry_the_request_sent_is_the_variant_plan(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    reply_id = await a_reply(session, server)
    original = server.requests[-1]
    server.script("I do not know which database you use.")
    prepared = prepare_variant(session, reply_id, Change(without=("memory:1",)))
    events = [event async for event in ask_again(session, prepared)]

    sent = server.requests[-1]
    assert sent == dict(prepared.request.body)
    assert "SQLite" not in sent["messages"][1]["content"]
    assert "Likes short answers." in sent["messages"][1]["content"]
    assert sent["messages"][2:] == original["messages"][2:]
    started, finished = events[0], events[-1]
    assert isinstance(started, VariantStarted) and isinstance(finished, VariantFinished)
    assert "".join(e.text for e in events if isinstance(e, ReplyDelta)) == (
        "I do not know which database you use."
    )
    variant = finished.variant
    assert (variant.reply_id, variant.status, variant.change) == (
        reply_id,
        MessageStatus.COMPLETE,
        "without memory:1",
    )
    assert variant.prompt_tokens == server.prompt_tokens(sent["messages"])
    assert variant.estimated_prompt_tokens == prepared.plan.tokens
    # Stored with its request, fully inspectable; the reply is untouched.
    stored = session.store.variants.load_variant_plan(variant.id)
    assert stored is not None and stored.request == prepared.request.shown()
    assert session.store.messages.get_message(reply_id).content == "SQLite, as you told me."
    diff = prepared.diff()
    assert any(line.startswith("-") and "SQLite" in line for line in diff)
    assert not any(line.startswith("+") and "SQLite" in line for line in diff[2:])


async def test_objective_mode_and_another_model(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    reply_id = await a_reply(session, server)
    server.script("SQLite.")
    await variant_events(session, reply_id, Change(mode=Mode.OBJECTIVE, model="other"))
    sent = server.requests[-1]
    assert sent["model"] == "other"
    assert "Likes short answers." not in sent["messages"][1]["content"]
    (variant,) = session.store.variants.variants(reply_id)
    assert (variant.model, variant.change) == ("other", "in objective mode; to model other")
    plan = session.store.variants.load_variant_plan(variant.id)
    assert plan is not None and plan.mode == "objective"


async def test_the_reply_s_own_mode_is_no_change(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    reply_id = await a_reply(session, server)
    prepared = prepare_variant(session, reply_id, Change(mode=Mode.PERSONALIZATION))
    assert prepared.change.describe() == "asked again unchanged"
    assert prepared.diff() == []


async def test_replay_resends_the_stored_body_with_only_the_model_swapped(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    reply_id = await a_reply(session, server)
    original = dict(server.requests[-1])
    # Memory changed since: a replay still sends what was sent then.
    session.store.memory.add_memory(MemoryKind.FACT, "A new fact.")
    session.forget_memory()
    server.script("Replayed.")
    await variant_events(session, reply_id, Change(replay=True, model="other"))
    assert server.requests[-1] == {**original, "model": "other"}


async def test_keeping_the_variant_continues_the_conversation_from_it(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    reply_id = await a_reply(session, server)
    server.script("PostgreSQL, I guess.")
    events = await variant_events(session, reply_id, Change(without=("memory",)))
    finished = events[-1]
    assert isinstance(finished, VariantFinished)
    session.store.variants.keep_variant(finished.variant.id)
    session.invalidate()
    server.script("Fine.")
    _ = [event async for event in send_message(session, "Why?")]
    assert server.requests[-1]["messages"][-2] == {
        "role": "assistant",
        "content": "PostgreSQL, I guess.",
    }
    (former,) = session.store.variants.variants(reply_id)
    assert former.content == "SQLite, as you told me."


async def test_a_failed_variant_is_stored_failed_and_the_reply_stays(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    reply_id = await a_reply(session, server)
    server.fail_next(Fault.SERVER_ERROR)
    events = await variant_events(session, reply_id, Change(without=("memory:2",)))
    failed = events[-1]
    assert isinstance(failed, VariantFailed)
    assert failed.error.kind is ErrorKind.SERVER
    assert failed.variant.status is MessageStatus.FAILED
    assert session.store.messages.get_message(reply_id).status is MessageStatus.COMPLETE


async def test_what_cannot_be_asked_again_is_one_line(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    reply_id = await a_reply(session, server)
    with pytest.raises(AskAgainError, match="not a reply"):
        prepare_variant(session, reply_id - 1, Change())
    with pytest.raises(AskAgainError, match="memory:9 is not in this reply's request"):
        prepare_variant(session, reply_id, Change(without=("memory:9",)))
    assert server.requests[-1]["messages"][-1]["content"] == "Which database do we use?"


async def test_stopping_a_variant_keeps_what_arrived_as_interrupted(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    reply_id = await a_reply(session, server)
    server.latency = 0.05
    server.script("word " * 200)
    received: list[str] = []
    prepared = prepare_variant(session, reply_id, Change(without=("memory",)))

    three = asyncio.Event()

    async def run() -> None:
        async for event in ask_again(session, prepared):
            if isinstance(event, ReplyDelta):
                received.append(event.text)
                if len(received) >= 3:
                    three.set()

    task = asyncio.create_task(run())
    await asyncio.wait_for(three.wait(), timeout=30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (variant,) = session.store.variants.variants(reply_id)
    assert variant.status is MessageStatus.INTERRUPTED
    assert variant.content == "".join(received)
    assert variant.error == "You stopped the reply; the part received so far was kept."


async def test_a_variant_says_what_it_keeps_of_the_reply_request(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    reply_id = await a_reply(session, server)
    asked = prepare_variant(session, reply_id, Change(without=("memory:1",)))
    replayed = prepare_variant(session, reply_id, Change(replay=True))
    assert asked.plan.layer(Layer.INPUT).notes == (
        "ask again: keeps the reply's request as it was sent (every layer, recall included) "
        "but for one change, without memory:1; nothing planned anew",
    )
    assert replayed.plan.layer(Layer.INPUT).notes == (
        "replay: keeps the reply's request exactly as it was sent; nothing planned anew",
    )
