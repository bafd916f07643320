"""Fixtures for the chat layer: a store in a temp dir, a scripted server, a session on both."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxchat.chat.session import ChatSession
from ctxchat.chat.window import WindowInfo
from ctxchat.config.settings import ContextSettings, ProviderProfile, Settings, SummarySettings
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer

API_KEY = "sk-chat-test-0123456789"


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=["gpt-4o", "other"], requires_key=API_KEY) as running:
        yield running


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(tmp_path / "ctxchat.db")
    yield opened
    opened.close()


def make_settings(server: ScriptedModelServer, **context: Any) -> Settings:
    profile = ProviderProfile(
        name="test", base_url=server.base_url, model="gpt-4o", api_key_env="TEST_KEY"
    )
    return Settings(
        profiles={"test": profile},
        default_profile="test",
        context=ContextSettings(system_prompt="You are terse.", **context),
        summary=SummarySettings(min_messages=4, min_tokens=100_000),
    )


@pytest.fixture
async def backend(server: ScriptedModelServer) -> AsyncIterator[OpenAIBackend]:
    client = OpenAIBackend(
        server.base_url,
        API_KEY,
        chunk_timeout=0.5,
        first_chunk_timeout=3.0,
        connect_timeout=1.0,
        request_timeout=3.0,
        probe_timeout=1.0,
    )
    yield client
    await client.aclose()


def open_chat(
    store: Store, settings: Settings, backend: OpenAIBackend, *, window: int = 8_000
) -> ChatSession:
    """A session on a new conversation, with a configured window."""
    conversation = store.conversations.create_conversation("Test")
    return ChatSession(
        store,
        settings,
        settings.profile(),
        conversation.id,
        backend=backend,
        window=WindowInfo(window, "config"),
        secrets=[API_KEY],
    )


@pytest.fixture
def session(store: Store, server: ScriptedModelServer, backend: OpenAIBackend) -> ChatSession:
    return open_chat(store, make_settings(server), backend)
