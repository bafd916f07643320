"""A backend that imports the `openai` client only when it is first used.

Importing `openai` takes about half a second; the app draws its first frame without it
and `warm()` loads it in a thread meanwhile.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING

from ctxchat.model.backend import ModelBackend, ModelListing, ServerInfo, StreamChunk
from ctxchat.model.rendering import Rendering
from ctxchat.model.request import ChatRequest

if TYPE_CHECKING:
    from ctxchat.model.openai_backend import OpenAIBackend

_MODULE = "ctxchat.model.openai_backend"


def warm() -> None:
    """Import the client now (call from a worker thread)."""
    importlib.import_module(_MODULE)


class DeferredBackend(ModelBackend):
    """An `OpenAIBackend` for `base_url`, built on the first call."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        **timeouts: float,
    ) -> None:
        """`timeouts`: `chunk_timeout`, `first_chunk_timeout`, `connect_timeout` (seconds),
        passed on to `OpenAIBackend`."""
        self.base_url = base_url
        self._api_key = api_key
        self._headers = dict(headers or {})
        self._timeouts = timeouts
        self._real: OpenAIBackend | None = None
        self._lock = asyncio.Lock()

    @property
    def sends_usage_option(self) -> bool:
        return self._real is None or self._real.sends_usage_option

    @property
    def ready(self) -> bool:
        """Whether the client is built (by `real`, which the app calls once it has drawn)."""
        return self._real is not None

    async def real(self) -> OpenAIBackend:
        """The client itself, built in a thread so the screen keeps drawing: the import,
        and the client's TLS set-up (about 20 ms)."""
        if self._real is None:
            async with self._lock:
                if self._real is None:
                    self._real = await asyncio.to_thread(self._build)
        assert self._real is not None
        return self._real

    def _build(self) -> OpenAIBackend:
        module = importlib.import_module(_MODULE)
        backend: OpenAIBackend = module.OpenAIBackend(
            self.base_url, self._api_key, headers=self._headers, **self._timeouts
        )
        return backend

    async def stream_request(self, request: ChatRequest) -> AsyncIterator[StreamChunk]:
        real = await self.real()
        stream = real.stream_request(request)
        try:
            async for chunk in stream:
                yield chunk
        finally:
            await stream.aclose()  # type: ignore[attr-defined]

    async def model_listing(self) -> ModelListing:
        return await (await self.real()).model_listing()

    async def describe_server(
        self, model: str, configured_window: int | None, *, listing: ModelListing | None = None
    ) -> ServerInfo:
        return await (await self.real()).describe_server(model, configured_window, listing=listing)

    async def count_tokens(self, text: str) -> int | None:
        return await (await self.real()).count_tokens(text)

    @property
    def renders(self) -> bool:
        return self._real is None or self._real.renders

    async def render_prompt(
        self, messages: Sequence[Mapping[str, str]], *, model: str
    ) -> Rendering:
        return await (await self.real()).render_prompt(messages, model=model)

    def served_model(self, model: str) -> str | None:
        return self._real.served_model(model) if self._real is not None else None

    async def aclose(self) -> None:
        if self._real is not None:
            await self._real.aclose()
