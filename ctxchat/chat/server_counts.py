"""Exact counts by the server's own tokenizer: kept beside tiktoken's, filled in the
background, read without network calls when a plan is drawn."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable

from ctxchat.chat.rendered import RenderedRequest, request_key
from ctxchat.core.plan import ContextPlan
from ctxchat.core.server_count import ServerFigure, TemplateCost, server_figure
from ctxchat.core.tokens import text_key
from ctxchat.model.backend import ModelBackend
from ctxchat.model.errors import ProviderError
from ctxchat.store import Store
from ctxchat.store.errors import StoreError

LABEL = "server tokenizer"
KEPT_RENDERINGS = 8
"""How many of the newest renderings are kept (a plan fitted anew renders one or two more)."""


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
        self._counts = store.server_counts.server_counts(key)
        self._base: int | None = None
        self._lock = asyncio.Lock()
        self._rendered: dict[bytes, RenderedRequest] = {}

    def counted(self, text: str) -> int | None:
        return self._counts.get(text_key(text))

    def figure(self, plan: ContextPlan) -> ServerFigure:
        """The plan's prompt tokens as the server counts them (lookups only)."""
        return server_figure(plan.messages, self.counted, self.template)

    def keep_rendering(self, key: bytes, rendered: RenderedRequest) -> None:
        """The server rendered the request named `key` (see `rendered.request_key`): a plan
        of that request is counted by its rendering. Only the newest few are kept."""
        if rendered.tokens is None:
            return
        self._rendered.pop(key, None)
        self._rendered[key] = rendered
        while len(self._rendered) > KEPT_RENDERINGS:
            del self._rendered[next(iter(self._rendered))]

    def rendering(self, key: bytes) -> RenderedRequest | None:
        """The kept rendering of the request named `key`, if it is one of those kept."""
        return self._rendered.get(key)

    def describe(self, plan: ContextPlan) -> tuple[ServerFigure, str]:
        """The plan's server figure and the counter's note: by its rendering where the server
        rendered this very request (exact, and what the template adds), else by counts."""
        # A kept rendering is rare; the key is only made then.
        rendered = self._rendered and self.rendering(request_key(plan.request_messages()))
        if not rendered or rendered.tokens is None:
            figure = self.figure(plan)
            return figure, self.label(figure)
        figure = ServerFigure(rendered.tokens, 0, len(rendered.left_out))
        note = self.label(figure)
        if rendered.template_tokens is not None:
            note += f"; template adds {rendered.template_tokens:,} tokens"
        return figure, note

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
                self._store.server_counts.keep_server_counts(self.key, new)
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
