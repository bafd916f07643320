"""A branch is the same conversation, forked: everything the conversation chose for itself
goes with it, and its first request is the one the original would have sent."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ctxchat.chat.edits import branch_from
from ctxchat.chat.profile_choice import conversation_profile
from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import regenerate, send_message
from ctxchat.config.settings import Preset, Settings
from ctxchat.core.budget import Layer
from ctxchat.core.memory import SWITCHED_OFF_DETAIL, MemoryKind
from ctxchat.core.task import TaskState
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.store import Store
from ctxchat.testing.server import Reply, ScriptedModelServer

from .conftest import make_settings, open_chat
from .test_turn import collect

BRIEF = Preset(
    name="brief",
    system_prompt="Answer in one line.",
    model="other",
    temperature=0.3,
    max_output_tokens=150,
)


def _settings(server: ScriptedModelServer) -> Settings:
    return dataclasses.replace(make_settings(server), presets={"brief": BRIEF})


@pytest.fixture
def chat(store: Store, server: ScriptedModelServer, backend: OpenAIBackend) -> ChatSession:
    return open_chat(store, _settings(server), backend)


async def two_turns(chat: ChatSession, server: ScriptedModelServer) -> int:
    """Q1 (its reply cut at the output limit), Q2; the id of Q2, the message edited."""
    server.script(Reply("A1 was going on and on", finish_reason="length"), "A2")
    await collect(send_message(chat, "Q1"))
    await collect(send_message(chat, "Q2"))
    return chat.store.messages.messages(chat.stored_id)[2].id


def opened(chat: ChatSession, conversation: int) -> ChatSession:
    """A session on `conversation` as the app opens it: its chosen profile and model."""
    record = chat.store.conversations.get_conversation(conversation)
    session = chat.for_conversation(conversation)
    session.profile = conversation_profile(chat.default_profile, chat.settings, record, preset=None)
    return session


async def test_the_branchs_first_request_goes_out_with_the_presets_prompt_and_limit(
    chat: ChatSession, server: ScriptedModelServer
) -> None:
    chat.choose_preset("brief")
    edited = await two_turns(chat, server)
    original = dict(server.requests[-1])

    branch = opened(chat, branch_from(chat, edited, "Q2 other"))
    assert branch.preset_name == "brief"
    server.script("B2")
    await collect(regenerate(branch))
    sent = server.requests[-1]
    assert sent["messages"][0] == {"role": "system", "content": BRIEF.system_prompt}
    assert (sent["max_tokens"], sent["temperature"], sent["model"]) == (150, 0.3, "other")
    assert {k: v for k, v in sent.items() if k != "messages"} == {
        k: v for k, v in original.items() if k != "messages"
    }
    assert sent["messages"][:-1] == original["messages"][:-1]


async def test_the_copied_replies_keep_their_markers(
    chat: ChatSession, server: ScriptedModelServer
) -> None:
    edited = await two_turns(chat, server)
    branch = branch_from(chat, edited, "Q2 other")
    q1, a1, q2 = chat.store.messages.messages(branch)
    assert (q1.content, q2.content) == ("Q1", "Q2 other")
    original = chat.store.messages.messages(chat.stored_id)[1]
    assert a1.finish_reason == original.finish_reason == "length"
    assert (a1.prompt_tokens, a1.completion_tokens, a1.billing) == (
        original.prompt_tokens,
        original.completion_tokens,
        original.billing,
    )


async def test_the_own_system_prompt_and_the_chosen_model_go_with_the_branch(
    chat: ChatSession, server: ScriptedModelServer
) -> None:
    chat.set_system_prompt("Speak like a pirate.")
    chat.profile = dataclasses.replace(chat.profile, model="other")
    chat.choice.remember_model()
    edited = await two_turns(chat, server)
    branch_id = branch_from(chat, edited, "Q2 other")
    record = chat.store.conversations.get_conversation(branch_id)
    assert (record.system_prompt, record.chosen_profile, record.chosen_model) == (
        "Speak like a pirate.",
        "test",
        "other",
    )
    branch = opened(chat, branch_id)
    assert branch.model == "other"
    assert branch.plan(None).request_messages()[0]["content"] == "Speak like a pirate."


async def test_memory_switches_project_task_and_files_go_with_the_branch(
    chat: ChatSession, server: ScriptedModelServer, tmp_path: Path
) -> None:
    entry = chat.store.memory.add_memory(MemoryKind.FACT, "The office is in Lyon.")
    kept = chat.store.memory.add_memory(MemoryKind.FACT, "Deploys happen on Tuesdays.")
    edited = await two_turns(chat, server)
    chat.memory_book.switch(entry.id, chat.stored_id, on=False)
    chat.move_to_project("Travel")
    chat.save_task(TaskState(goal="Plan the trip"))
    notes = tmp_path / "notes.txt"
    notes.write_text("Flights leave at 9.", encoding="utf-8")
    chat.files.attach(notes)

    branch_id = branch_from(chat, edited, "Q2 other")
    branch = opened(chat, branch_id)
    original = chat.store.conversations.get_conversation(chat.stored_id)
    assert (
        chat.store.conversations.get_conversation(branch_id).project_id
        == original.project_id
        is not None
    )
    assert branch.task().goal == "Plan the trip"
    assert [a.name for a in branch.attachments()] == [str(notes)]
    plan = branch.plan(None)
    memory = plan.layer(Layer.MEMORY)
    assert [(o.ref, o.detail) for o in memory.left_out] == [(entry.ref, SWITCHED_OFF_DETAIL)]
    assert any(kept.text in m.content for m in plan.messages if m.layer is Layer.MEMORY)
    # Switched off in the branch as its own switch: on again there, still off in the original.
    branch.memory_book.switch(entry.id, branch_id, on=True)
    assert entry.ref not in [o.ref for o in branch.plan(None).layer(Layer.MEMORY).left_out]
    assert entry.ref in [o.ref for o in chat.plan(None).layer(Layer.MEMORY).left_out]
