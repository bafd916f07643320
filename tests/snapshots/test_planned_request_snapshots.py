"""Requests shown before they go: the edit dialog's plan line, and the request a regenerate
sends (SVG snapshots of the real app, over real HTTP; issue 40).

Regenerate with `pytest tests/snapshots/test_planned_request_snapshots.py --snapshot-update`
and look at the picture before committing.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.edit_message import EditMessageScreen
from ctxchat.tui.screens.planned_request import PlannedRequest, ReplyInspector

from ..waiting import until
from .snapshot_apps import BuildApp, exchange, steady

SnapCompare = Callable[..., bool]
WIDE = (150, 40)
PLANTED = "We decided to use PostgreSQL for the main database."
QUESTION = "What did we decide about the database?"
SYLLABLES = "ka lo mi ne ru ta vo xi ze pa do fe gu hi ja ko lu ma ni po".split()  # noqa: SIM905


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=["gpt-4o"], requires_key=TEST_KEY) as running:
        yield running


def with_history(build: BuildApp, server: ScriptedModelServer) -> CtxChatApp:
    """90 turns of filler after a decision: asked about it, the request recalls it."""
    app = build(
        base_url=server.base_url,
        context_window=2_000,
        output_reserve=256,
        extra="[summary]\nauto = false\n",
    )
    rng = random.Random(7)
    turns = []
    for turn in range(90):
        words = [
            "".join(rng.choice(SYLLABLES) for _ in range(3)) for _ in range(rng.randint(6, 14))
        ]
        turns += [("user", PLANTED if turn == 0 else " ".join(words) + "."), ("assistant", "Ok.")]
    exchange(app.workspace.store, app.conversation_screen.session.stored_id, turns)
    server.script("PostgreSQL.", "PostgreSQL again.")
    return app


async def asked(pilot: Pilot[Any]) -> CtxChatApp:
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    await steady(pilot)
    app.conversation_screen.composer.insert(QUESTION)
    await pilot.press("enter")
    await steady(pilot)
    return app


async def edit_the_question(pilot: Pilot[Any]) -> None:
    app = await asked(pilot)
    app.conversation_screen.composer.focus()
    await pilot.press("up")
    await until(pilot, lambda: isinstance(app.screen, EditMessageScreen))
    await until(pilot, lambda: "It sends:" in str(app.screen.query_one("#edit-plan").render()))
    await steady(pilot)


async def preview_the_regenerate(pilot: Pilot[Any]) -> None:
    app = await asked(pilot)
    session = app.conversation_screen.session
    reply = session.store.messages.newest_message(session.stored_id)
    assert reply is not None
    app.conversation_screen.conversation_view.select(reply.id)
    await pilot.press("f2")
    await until(pilot, lambda: isinstance(app.screen, ReplyInspector))
    await pilot.press("ctrl+g")
    await until(pilot, lambda: isinstance(app.screen, PlannedRequest))
    await steady(pilot)


class TestEditDialogPlan:
    def test_wide(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """The edit dialog over the conversation: the question in the text box, the choice
        about the one later message (◉ keep as a branch, ○ replace), then `It sends: system
        10 · recall 44 · working 1,646 · input 15 = 1,715 of 1,744 tokens · f2 shows the
        request`; the
        footer with `f2 Request`."""
        app = with_history(build, server)
        assert snap_compare(app, run_before=edit_the_question, terminal_size=WIDE)


class TestRegeneratePreview:
    def test_wide(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """`Regenerating reply 182 sends · gpt-4o`, the summary line, then the layers' tokens
        (`recall 44` among them), `regenerate: keeps your message #181 as it was …`, `Not sent
        yet: ctrl+g sends it, Esc closes without sending.`; the Diff tab, the same request as
        the reply's; the footer with `^g Regenerate`."""
        app = with_history(build, server)
        assert snap_compare(app, run_before=preview_the_regenerate, terminal_size=WIDE)
