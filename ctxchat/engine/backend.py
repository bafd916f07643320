"""A model backend for a profile whose model runs in the engine: it starts the engine when
first used (and again after it stopped or was killed), and talks to it with its key."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ctxchat.config.settings import ENGINE_PLACEHOLDER_URL
from ctxchat.engine.control import EngineOptions, ensure_engine, running_engine
from ctxchat.engine.errors import EngineError
from ctxchat.engine.state import EngineState, alive, last_port, mark_used, read_state
from ctxchat.model.backend import StreamChunk
from ctxchat.model.deferred import DeferredBackend
from ctxchat.model.errors import ErrorKind, ProviderError
from ctxchat.model.request import ChatRequest

if TYPE_CHECKING:
    from ctxchat.model.openai_backend import OpenAIBackend

__all__ = ["EngineBackend"]

KILLED = "The engine stopped while writing the reply (killed, or out of memory)."
KILLED_ACTION = "The reply is kept as far as it came; the next message starts the engine again."


GONE_PATIENCE = 2.0
"""Seconds a killed engine may take to end after its connections dropped (they close first)."""


async def _gone(pid: int) -> bool:
    """Whether the engine `pid` ended (or is ending): a dropped reply is then its doing."""
    deadline = time.monotonic() + GONE_PATIENCE
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


class EngineBackend(DeferredBackend):
    """The engine's server with its key of the moment: built when first used, and again
    when the engine it talked to is gone."""

    is_engine = True

    def __init__(
        self,
        directory: Path,
        options: EngineOptions,
        headers: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        **timeouts: float,
    ) -> None:
        super().__init__(ENGINE_PLACEHOLDER_URL, None, headers, **timeouts)
        self.directory = directory
        self.options = options
        self._env = dict(env) if env is not None else None
        self._state: EngineState | None = None
        found = running_engine(directory)
        port = found.port if found is not None else last_port(directory)
        if port:
            self.base_url = f"http://127.0.0.1:{port}/v1"

    @property
    def state(self) -> EngineState | None:
        """The engine it talks to (None until first used)."""
        return self._state

    def _current(self) -> bool:
        """Whether the client built talks to the engine running now."""
        state = self._state
        if self._real is None or state is None:
            return False
        named = read_state(self.directory)
        return named is not None and named.pid == state.pid and alive(state.pid)

    async def real(self) -> OpenAIBackend:
        if self._current():
            mark_used(self.directory)
        else:
            async with self._lock:
                if not self._current():
                    await self._connect()
        assert self._real is not None
        return self._real

    async def _connect(self) -> None:
        try:
            state = await asyncio.to_thread(
                ensure_engine, self.directory, self.options, env=self._env
            )
        except EngineError as error:
            raise ProviderError(ErrorKind.CONNECTION, str(error), "") from None
        old, self._real = self._real, None
        self._state = state
        self.base_url, self._api_key = state.base_url, state.key
        self._real = await asyncio.to_thread(self._build)
        if old is not None:
            await old.aclose()

    async def stream_request(self, request: ChatRequest) -> AsyncIterator[StreamChunk]:
        real = await self.real()
        state = self._state
        stream = real.stream_request(request)
        try:
            async for chunk in stream:
                yield chunk
        except ProviderError as error:
            if state is not None and await _gone(state.pid):
                raise ProviderError(
                    ErrorKind.INTERRUPTED,
                    KILLED,
                    KILLED_ACTION,
                    partial_text=error.partial_text,
                    detail=error.detail,
                ) from error
            raise
        finally:
            await stream.aclose()  # type: ignore[attr-defined]
