"""What a session asks its server: the window, what it is, its own counts and renderings."""

from __future__ import annotations

import asyncio
from typing import Protocol

from ctxchat.chat.rendered import render_request
from ctxchat.chat.server_counts import ServerCounts
from ctxchat.chat.server_knowledge import ServerKnowledge
from ctxchat.chat.session_part import TalksToModel
from ctxchat.chat.window import WindowInfo
from ctxchat.config.server_facts import ServerFacts
from ctxchat.core.plan import ContextPlan
from ctxchat.core.server_count import TemplateCost
from ctxchat.model.backend import ModelListing
from ctxchat.model.errors import ProviderError


class ServerOwner(TalksToModel, Protocol):
    """What asking the server reads of its session: the profile, the server, what is
    known of it, and the plan it would send next."""

    @property
    def server(self) -> ServerKnowledge: ...
    @property
    def server_counts(self) -> ServerCounts | None: ...
    def plan(self, draft: str | None = None, *, before: int | None = None) -> ContextPlan: ...


class ServerTalk:
    """Asking the session's server (`ChatSession.talk`) what `ServerKnowledge` keeps: its
    window and facts, counts by its own tokenizer, renderings of its chat template."""

    def __init__(self, session: ServerOwner) -> None:
        self._session = session

    def _where(self) -> str:
        return f"{self._session.profile.base_url} {self._session.model}"

    async def detect_window(self) -> WindowInfo:
        """Ask the server for its context window (configured values still win)."""
        session = self._session
        if session.settings.context_window(session.profile) > 0:
            return session.server.window
        await self.probe_server()
        return session.server.window

    async def probe_server(self, listing: ModelListing | None = None) -> ServerFacts | None:
        """Ask the server which it is, its window for the model and whether it counts
        tokens; plan with that window unless one is configured. None: no answer. `listing`
        is its `/models` answer when it was just received."""
        session = self._session
        backend = session.backend
        if backend is None:
            return None
        try:
            info = await backend.describe_server(session.model, None, listing=listing)
        except ProviderError:
            return None
        return session.server.learned(
            info,
            configured=session.settings.context_window(session.profile) > 0,
            counting=(session.store, backend, self._where()),
        )

    def count_with(self, tokenizer: str, template: TemplateCost | None) -> None:
        """Count with the server's `tokenizer` from now on (see `ServerKnowledge.count_with`)."""
        session = self._session
        if session.backend is not None:
            session.server.count_with(
                tokenizer, template, session.store, session.backend, self._where()
            )

    def use_facts(self, facts: ServerFacts | None) -> None:
        """Plan with what an earlier run learned of the server (kept in the state file)."""
        session = self._session
        session.server.use_facts(facts, session.store, session.backend, self._where())

    def count_with_server(self, plan: ContextPlan) -> None:
        """Count the plan's messages with the server's tokenizer in the background (each text
        once); the next plan drawn uses those counts."""
        self._session.server.count_texts([m.content for m in plan.messages])

    def render_with_server(self) -> None:
        """Have the server render the next request (no draft) in the background, where it
        renders its chat template: the plan drawn next says what the template adds."""
        session = self._session
        if session.server.counts is None or session.backend is None:
            return
        if not session.backend.renders:
            return

        async def render() -> None:
            plan = await asyncio.to_thread(session.plan)
            if plan.messages:
                await render_request(session, plan.request_messages())

        session.server.in_background(render())
