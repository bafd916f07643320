"""What a server taught is kept for every process and run: a fresh session on the same
server and model plans the same question as the one that learned it, to the byte."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import TurnFinished, send_message
from ctxchat.config.settings import ContextSettings, ProviderProfile, Settings
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer, count_prompt_tokens

MODEL = "test-model"
WINDOW = 4096


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    """A server with no tokenizer to ask: only its replies' usage tells how it counts."""
    with ScriptedModelServer(models=[MODEL]) as running:
        yield running


@pytest.fixture
async def backend(server: ScriptedModelServer) -> AsyncIterator[OpenAIBackend]:
    client = OpenAIBackend(server.base_url)
    yield client
    await client.aclose()


def wows(number: int) -> str:
    """Every "!" is a token to the server: far more than ctxchat's estimate counts."""
    return f"Turn {number}: " + "Wow!!!! " * 30


def session_on(
    store: Store, server: ScriptedModelServer, conversation: int, backend: OpenAIBackend
) -> ChatSession:
    profile = ProviderProfile(
        name="local", base_url=server.base_url, model=MODEL, context_window=WINDOW
    )
    settings = Settings(
        profiles={"local": profile},
        default_profile="local",
        context=ContextSettings(system_prompt="You are terse."),
    )
    return ChatSession(store, settings, profile, conversation, backend=backend)


async def test_a_fresh_session_plans_with_what_another_learned(
    tmp_path: Path, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    path = tmp_path / "ctxchat.db"
    with Store.open(path) as store:
        conversation = store.conversations.create_conversation("wows").id
        learner = session_on(store, server, conversation, backend)
        for number in range(14):
            events = [event async for event in send_message(learner, wows(number))]
            assert isinstance(events[-1], TurnFinished)
        learned = learner.plan("And now?")
        # The replies' usage taught that the server counts more: room is kept for it.
        assert learned.total_budget < learned.context_window - learned.output_reserve
        assert count_prompt_tokens(learned.request_messages()) <= WINDOW - learned.output_reserve

        # Another process (its own connection) and a later run alike.
        with Store.open(path) as elsewhere:
            fresh = session_on(elsewhere, server, conversation, backend)
            planned = fresh.plan("And now?")
    assert planned.total_budget == learned.total_budget
    assert planned.output_reserve == learned.output_reserve
    assert planned.request_messages() == learned.request_messages()
    assert any("kept free for the difference" in warning for warning in planned.warnings)
