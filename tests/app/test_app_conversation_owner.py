"""The conversation on screen owns its state: opening another one shows none of it, and
coming back finds what should outlive the visit (a failed reply's details, the "used"
estimate), while the find bar counts the conversation it is over."""

from __future__ import annotations

from typing import Any

from ctxchat.core.memory import MemoryKind
from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.widgets.memory_panel import MemoryPanel

from .app_harness import SIZE, MakeApp, seed, settle, typed, until
from .test_app_errors import dialog_text

SERVER_ERROR = [
    "The model server failed with an internal error (500).",
    "Retry in a moment; if it keeps failing, check the server's log.",
    "The server had an error while processing your request.",
]


async def send(app: CtxChatApp, pilot: Any, text: str) -> None:
    """Send `text` from the composer and wait for the turn to end."""
    await typed(pilot, text)
    await pilot.press("enter")
    await settle(pilot)


async def details(app: CtxChatApp, pilot: Any) -> list[str]:
    """The newest reply's details (ctrl+d on the conversation), closed again after reading."""
    app.conversation_screen.conversation_view.focus()
    await pilot.press("ctrl+d")
    await settle(pilot)
    lines = dialog_text(app)
    await pilot.press("escape")
    await settle(pilot)
    return lines


async def test_a_failed_replys_details_stay_with_its_conversation(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.fail_next(Fault.SERVER_ERROR)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "Hello there")
        first = app.conversation_screen.session.stored_id
        assert await details(app, pilot) == SERVER_ERROR

        other = app.conversation_screen.session.store.conversations.create_conversation(
            "Other", model="gpt-4o"
        ).id
        await app.conversation_screen.open_conversation(other)
        await settle(pilot)
        server.fail_next(Fault.AUTH)
        await send(app, pilot, "Hello again")
        assert await details(app, pilot) == [  # its own failure, none of the first one's
            "The server rejected the API key (401 Unauthorized).",
            "Check the key in your provider profile or in OPENAI_API_KEY.",
            "Incorrect API key provided: [redacted].",
        ]

        await app.conversation_screen.open_conversation(first)
        await settle(pilot)
        # Back: the failure as told this run (its action apart), not the store's one line.
        assert await details(app, pilot) == SERVER_ERROR


async def test_the_used_estimate_is_the_shown_conversations_own(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    store = app.workspace.store
    database = store.memory.add_memory(MemoryKind.FACT, "The service runs on PostgreSQL 16.")
    server.script("Since production runs PostgreSQL 16, add a partial index.")
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "How do I speed up the query?")
        first = app.conversation_screen.session.stored_id
        panel = app.query_one("#memory", MemoryPanel)
        await until(pilot, lambda: set(panel.notes.used) == {database.ref})

        # Another conversation (the same global entry in its memory): none of its replies
        # used anything.
        other = seed(store, [("user", "Hi"), ("assistant", "Hello.")])[0].conversation_id
        await app.conversation_screen.open_conversation(other)
        await settle(pilot)
        assert dict(panel.notes.used) == {}
        assert [entry.ref for entry in app.conversation_screen.session.memory()] == [database.ref]

        await app.conversation_screen.open_conversation(first)
        await until(pilot, lambda: set(panel.notes.used) == {database.ref})


async def test_the_find_bar_counts_the_conversation_it_is_over(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    first = app.conversation_screen.session.stored_id
    seed(
        store,
        [
            ("user", "A zebra?"),
            ("assistant", "Yes."),
            ("user", "Another zebra."),
            ("assistant", "Ok."),
        ],
        conversation_id=first,
    )
    other = seed(store, [("user", "Horses only."), ("assistant", "Fine.")])[0].conversation_id
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f", *"zebra", "enter")
        bar = app.conversation_screen.find_bar
        assert bar is not None
        await until(pilot, lambda: bar.count_text == "1 of 2")

        await app.conversation_screen.open_conversation(other)
        await settle(pilot)
        assert bar.is_open
        assert bar.count_text == "no match"  # not the first conversation's "1 of 2"

        await app.conversation_screen.open_conversation(first)
        await settle(pilot)
        assert bar.count_text == "2 matches"
        bar.query_one("#find-query").focus()
        await pilot.press("enter")  # from the newest again, as the count says
        await until(pilot, lambda: bar.count_text == "1 of 2")
