"""Fixtures for the model client tests: a scripted server and a backend pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.testing.server import ScriptedModelServer

API_KEY = "sk-test-0123456789abcdef"
MODEL = "test-model"


@pytest.fixture
def model_server() -> Iterator[ScriptedModelServer]:
    """A started scripted server on a free loopback port, stopped after the test."""
    with ScriptedModelServer(models=[MODEL, "other-model"]) as server:
        yield server


def short_timeout_backend(
    server: ScriptedModelServer, api_key: str | None = API_KEY
) -> OpenAIBackend:
    """A backend with short timeouts, so fault tests stay fast."""
    return OpenAIBackend(
        server.base_url,
        api_key,
        chunk_timeout=0.3,
        first_chunk_timeout=3.0,
        connect_timeout=1.0,
        request_timeout=3.0,
        probe_timeout=1.0,
        window_probe_timeout=1.0,
    )


@pytest.fixture
async def backend(model_server: ScriptedModelServer) -> AsyncIterator[OpenAIBackend]:
    """An `OpenAIBackend` talking to `model_server`."""
    client = short_timeout_backend(model_server)
    yield client
    await client.aclose()


@pytest.fixture
async def make_backend() -> AsyncIterator[Callable[..., OpenAIBackend]]:
    """Build more backends (other servers, other keys); all are closed after the test."""
    made: list[OpenAIBackend] = []

    def build(server: ScriptedModelServer, api_key: str | None = API_KEY) -> OpenAIBackend:
        client = short_timeout_backend(server, api_key)
        made.append(client)
        return client

    yield build
    for client in made:
        await client.aclose()
