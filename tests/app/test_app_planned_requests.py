"""The requests a regenerate and an edit send, shown before they go: the edit dialog's line
and its f2, and f2 then ctrl+g on the newest reply (issue 40)."""

from __future__ import annotations

import random
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.edit_message import EditMessageScreen
from ctxchat.tui.screens.planned_request import PlannedRequest, ReplyInspector

from ..chat.test_session_recall import filler
from .app_harness import SIZE, MakeApp, seed, settle, typed, until

PLANTED = "We decided to use PostgreSQL for the main database."
QUESTION = "What did we decide about the database?"
NO_FOLDS = "[summary]\nauto = false\n"  # the requests counted are the replies'


def long_history(app: CtxChatApp, turns: int = 60) -> None:
    """`turns` turns of filler, the first one a decision far out of working memory."""
    rng = random.Random(7)
    history = []
    for turn in range(turns):
        history += [("user", PLANTED if turn == 0 else filler(rng)), ("assistant", filler(rng))]
    seed(app.workspace.store, history, conversation_id=app.conversation_screen.session.stored_id)


async def ask_the_question(pilot: Pilot[Any], server: ScriptedModelServer) -> None:
    """Ask about the early decision: its request recalls it."""
    await settle(pilot)
    await typed(pilot, QUESTION)
    await pilot.press("enter")
    await settle(pilot)
    assert PLANTED in recall_of(server.requests[0])


def recall_of(body: object) -> str:
    assert isinstance(body, dict)
    found = [m["content"] for m in body["messages"] if "Earlier messages recalled" in m["content"]]
    return found[0] if found else ""


async def test_f2_then_ctrl_g_on_the_newest_reply_shows_the_regenerate_then_sends_it(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app(context_window=2_000, output_reserve=256, extra=NO_FOLDS)
    long_history(app)
    server.script("First.", "Second.")
    async with app.run_test(size=SIZE) as pilot:
        await ask_the_question(pilot, server)
        session = app.conversation_screen.session
        reply = session.store.messages.newest_message(session.stored_id)
        assert reply is not None
        app.conversation_screen.conversation_view.select(reply.id)
        await pilot.press("f2")
        assert isinstance(app.screen, ReplyInspector)
        await pilot.press("ctrl+g")
        await until(pilot, lambda: isinstance(app.screen, PlannedRequest))
        planned = app.screen
        assert isinstance(planned, PlannedRequest)
        # Before anything is sent, it shows the request the regenerate sends: recall and all.
        assert len(server.requests) == 1
        assert planned.body["messages"] == server.requests[0]["messages"]
        layers = str(planned.query_one(".planned--layers", Static).render())
        assert "recall " in layers and "working " in layers
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert len(server.requests) == 2
        assert server.requests[1]["messages"] == server.requests[0]["messages"]


async def test_an_older_reply_offers_no_regenerate(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("First answer.", "Second answer.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for question in ("First question", "Second question"):
            await typed(pilot, question)
            await pilot.press("enter")
            await settle(pilot)
        session = app.conversation_screen.session
        first_reply = session.store.messages.messages(session.stored_id)[1]
        app.conversation_screen.conversation_view.select(first_reply.id)
        await pilot.press("f2")
        assert isinstance(app.screen, ReplyInspector)
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert isinstance(app.screen, ReplyInspector)
        assert len(server.requests) == 2


async def test_the_edit_dialog_shows_the_request_the_edit_sends_before_it_goes(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app(context_window=2_000, output_reserve=256, extra=NO_FOLDS)
    long_history(app)
    server.script("First.", "Second.")
    async with app.run_test(size=SIZE) as pilot:
        await ask_the_question(pilot, server)
        app.conversation_screen.composer.focus()
        await pilot.press("up")  # edits the last message
        await until(pilot, lambda: isinstance(app.screen, EditMessageScreen))
        dialog = app.screen
        line = dialog.query_one("#edit-plan", Static)
        await until(pilot, lambda: "recall " in str(line.render()))
        assert str(line.render()).startswith("It sends: system ")
        await pilot.press("f2")
        await until(pilot, lambda: isinstance(app.screen, PlannedRequest))
        planned = app.screen
        assert isinstance(planned, PlannedRequest)
        assert PLANTED in recall_of(dict(planned.body))
        kept = str(planned.query_one(".planned--kept", Static).render())
        assert kept.startswith("branch: keeps your edited message #")
        assert len(server.requests) == 1
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is dialog)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert len(server.requests) == 2
        assert PLANTED in recall_of(server.requests[1])
