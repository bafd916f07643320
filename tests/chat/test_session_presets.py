"""A conversation's preset and own system prompt: what the plan holds and the server receives."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ctxchat.chat.ask_again import replay_request
from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import TurnFinished, send_message
from ctxchat.config.errors import UnknownPreset
from ctxchat.config.settings import Preset, Settings
from ctxchat.core.budget import Layer
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer

from .conftest import make_settings, open_chat
from .test_turn import collect

PRECISE = Preset(
    name="precise",
    system_prompt="Answer in one line, like a telegram.",
    model="other",
    temperature=0.2,
    top_p=0.5,
    max_output_tokens=300,
)
LOOSE = Preset(name="loose", temperature=1.3)


def _settings(server: ScriptedModelServer) -> Settings:
    settings = make_settings(server)
    return dataclasses.replace(settings, presets={"precise": PRECISE, "loose": LOOSE})


@pytest.fixture
def chat(store: Store, server: ScriptedModelServer, backend: OpenAIBackend) -> ChatSession:
    return open_chat(store, _settings(server), backend)


def _system_text(session: ChatSession) -> str:
    plan = session.plan("Hello")
    system = plan.layer(Layer.SYSTEM)
    assert system.tokens > 0
    return plan.request_messages()[0]["content"]


async def test_the_preset_reaches_the_server(
    chat: ChatSession, server: ScriptedModelServer
) -> None:
    assert chat.choose_preset("precise") is True  # it names another model
    server.script("Stop.")
    events = await collect(send_message(chat, "Hello"))
    assert isinstance(events[-1], TurnFinished)

    body = server.requests[-1]
    assert body["model"] == "other"
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.2, 0.5, 300)
    assert body["messages"][0] == {"role": "system", "content": PRECISE.system_prompt}
    # The stored plan keeps what was asked, as every surface shows it.
    stored = chat.store.plans.load_plan(events[-1].reply.id)
    assert stored is not None and stored.request is not None
    assert stored.request["body"]["temperature"] == 0.2
    assert stored.output_reserve == 300


def test_the_plan_follows_the_preset_and_the_conversations_own_prompt(
    chat: ChatSession,
) -> None:
    configured = chat.plan("Hello")
    assert _system_text(chat) == "You are terse."

    chat.choose_preset("precise")
    assert _system_text(chat) == PRECISE.system_prompt
    preset_plan = chat.plan("Hello")
    assert preset_plan.layer(Layer.SYSTEM).tokens > configured.layer(Layer.SYSTEM).tokens
    assert preset_plan.output_reserve == 300

    chat.set_system_prompt("Be kind.")
    assert _system_text(chat) == "Be kind."
    chat.set_system_prompt("")
    assert chat.plan("Hello").layer(Layer.SYSTEM).tokens == 0
    assert [m["role"] for m in chat.plan("Hello").request_messages()] == ["user"]

    chat.set_system_prompt(None)
    assert _system_text(chat) == PRECISE.system_prompt
    chat.choose_preset(None)
    assert _system_text(chat) == "You are terse."


def test_choices_are_remembered_and_seen_by_a_new_session(
    chat: ChatSession, store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    chat.choose_preset("loose")
    chat.set_system_prompt("Speak plainly.")
    conversation = store.conversations.get_conversation(chat.stored_id)
    assert (conversation.preset, conversation.system_prompt) == ("loose", "Speak plainly.")

    again = ChatSession(store, chat.settings, chat.default_profile, chat.stored_id)
    assert again.preset_name == "loose"
    assert again.request_for(again.plan("Hi")).body["temperature"] == 1.3
    assert again.plan("Hi").request_messages()[0]["content"] == "Speak plainly."
    # Another session of the same run on the same conversation follows a later change.
    chat.set_system_prompt("Speak in verse.")
    assert again.plan("Hi").request_messages()[0]["content"] == "Speak in verse."


def test_choosing_a_preset_switches_its_model_and_back(chat: ChatSession) -> None:
    assert chat.model == "gpt-4o"
    assert chat.choose_preset("precise") is True
    assert chat.model == "other"
    assert chat.choose_preset("loose") is True  # it names no model: the profile's again
    assert chat.model == "gpt-4o"
    assert chat.choose_preset("loose") is False


def test_a_model_named_for_the_run_wins_over_the_presets(chat: ChatSession) -> None:
    chat.choice.model_given = True
    assert chat.choose_preset("precise") is False
    assert chat.model == "gpt-4o"
    assert chat.request_for(chat.plan("Hi")).body["temperature"] == 0.2


def test_a_preset_with_a_model_replaces_a_model_chosen_before(chat: ChatSession) -> None:
    chat.store.conversations.choose_model(chat.stored_id, "test", "gpt-4o-mini")
    chat.choose_preset("precise")
    conversation = chat.store.conversations.get_conversation(chat.stored_id)
    assert (conversation.chosen_profile, conversation.chosen_model) == ("test", None)


def test_the_profiles_sampling_applies_unless_the_preset_sets_its_own(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    settings = _settings(server)
    profile = dataclasses.replace(settings.profile(), temperature=0.7, top_p=0.8)
    settings = dataclasses.replace(settings, profiles={"test": profile})
    session = open_chat(store, settings, backend)
    body = session.request_for(session.plan("Hi")).body
    assert (body["temperature"], body["top_p"]) == (0.7, 0.8)
    session.choose_preset("loose")
    body = session.request_for(session.plan("Hi")).body
    assert (body["temperature"], body["top_p"]) == (1.3, 0.8)


def test_no_sampling_is_sent_unless_asked(chat: ChatSession) -> None:
    body = chat.request_for(chat.plan("Hi")).body
    assert "temperature" not in body and "top_p" not in body


def test_an_unknown_preset_names_the_configured_ones(chat: ChatSession) -> None:
    with pytest.raises(UnknownPreset, match='no preset named "fast"; the configured presets are'):
        chat.choose_preset("fast")
    assert chat.store.conversations.get_conversation(chat.stored_id).preset is None


async def test_a_replay_asks_with_the_same_sampling(
    chat: ChatSession, server: ScriptedModelServer
) -> None:
    chat.choose_preset("precise")
    server.script("Stop.")
    events = await collect(send_message(chat, "Hello"))
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    chat.choose_preset(None)
    original = chat.store.plans.load_plan(finished.reply.id)
    assert original is not None
    replayed = replay_request(chat, original, "gpt-4o").body
    assert (replayed["temperature"], replayed["top_p"], replayed["max_tokens"]) == (0.2, 0.5, 300)


def test_a_conversation_deleted_elsewhere_has_no_choices_left(
    chat: ChatSession, tmp_path: Path
) -> None:
    chat.choose_preset("loose")
    chat.set_system_prompt("Be kind.")
    with Store.open(tmp_path / "ctxchat.db") as other:
        other.conversations.delete_conversation(chat.stored_id)
    chat.catch_up()
    assert (chat.preset_name, chat.system_prompt) == (None, "You are terse.")
