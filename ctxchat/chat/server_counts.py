"""Exact counts by the server's own tokenizer: kept beside tiktoken's, filled in the
background, read without network calls when a plan is drawn."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable

from ctxchat.core.plan import ContextPlan
from ctxchat.core.server_count import ServerFigure, TemplateCost, server_figure
from ctxchat.core.tokens import text_key
from ctxchat.model.backend import ModelBackend
from ctxchat.model.errors import ProviderError
from ctxchat.store import Store
from ctxchat.store.errors import StoreError

LABEL = "server tokenizer"


class ServerCounts:
    """The counts of one tokenizer (server kind, address, model): switching models never
    mixes them, since each has its own key in the store."""

    def __init__(
        self, store: Store, backend: ModelBackend, key: str, template: TemplateCost
    ) -> None:
        self.key = key
        self.template = template
        self.failure: str | None = None
        """Why counting stopped (a tokenizer that failed); the estimate stands in."""
        self._store = store
        self._backend = backend
        self._counts = store.server_counts(key)
        self._base: int | None = None
        self._lock = asyncio.Lock()

    def counted(self, text: str) -> int | None:
        return self._counts.get(text_key(text))

    def figure(self, plan: ContextPlan) -> ServerFigure:
        """The plan's prompt tokens as the server counts them (lookups only)."""
        return server_figure(plan.messages, self.counted, self.template)

    def label(self, figure: ServerFigure) -> str:
        """The counter's note for the budget panel."""
        shown = f"{LABEL}, {figure.tokens:,} tokens"
        if figure.exact:
            return f"exact: {shown}"
        return f"estimate: {shown}, {figure.estimated} not counted by the server yet"

    async def count(self, texts: Iterable[str]) -> int:
        """Count with the server the texts not counted yet; how many were counted."""
        async with self._lock:
            missing = {text_key(t): t for t in texts if text_key(t) not in self._counts}
            if not missing or self.failure is not None:
                return 0
            if self._base is None:
                self._base = await self._ask("")
                if self._base is None:
                    return 0
            new: dict[bytes, int] = {}
            for key, text in missing.items():
                tokens = await self._ask(text)
                if tokens is None:
                    break
                new[key] = max(0, tokens - self._base)
            self._counts.update(new)
            # Kept in memory for this run all the same when the store is busy.
            with contextlib.suppress(StoreError):
                self._store.keep_server_counts(self.key, new)
            return len(new)

    async def _ask(self, text: str) -> int | None:
        try:
            tokens = await self._backend.count_tokens(text)
        except ProviderError as error:  # a broken tokenizer must never stop a plan
            tokens = None
            self.failure = f"{type(error).__name__}"
        if tokens is None and self.failure is None:
            self.failure = "it gave no count"
        return tokens
