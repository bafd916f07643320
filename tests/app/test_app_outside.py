"""The conversation shows what the model no longer sees, and how each reply ended."""

from __future__ import annotations

import re

from textual.widgets import Static

from ctxchat.core.history import MessageStatus
from ctxchat.testing.server import Fault, Reply, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.widgets.message_item import CUT_SENTENCE, MessageItem

from .app_harness import SIZE, MakeApp, exchange, seed, settle, typed, until


def divider(item: MessageItem) -> str:
    line = item.query_one(".message--outside", Static)
    return "" if line.has_class("-empty") else str(line.render())


def marked(app: CtxChatApp) -> list[int]:
    return [
        item.message_id
        for item in app.conversation_screen.conversation_view.items
        if item.has_class("-outside")
    ]


async def test_turns_in_the_summary_are_marked_with_one_divider_under_them(
    make_app: MakeApp,
) -> None:
    app, _ = make_app()
    store = app.workspace.store
    messages = seed(store, exchange(8), conversation_id=app.conversation_screen.session.stored_id)
    store.summaries.add_summary(
        app.conversation_screen.session.stored_id,
        text="They talked about the database.",
        first_message_id=messages[0].id,
        last_message_id=messages[5].id,
        strategy="summarize",
        model="gpt-4o",
        tokens=8,
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        items = {item.message_id: item for item in app.conversation_screen.conversation_view.items}
        assert marked(app) == [m.id for m in messages[:6]]
        assert divider(items[messages[5].id]) == ("┄┄ above: in summary v1, 6 messages")
        assert [divider(items[m.id]) for m in messages[:5] + messages[6:]] == [""] * 15
        assert not items[messages[6].id].has_class("-outside")


async def test_turns_dropped_over_budget_are_marked_and_unmarked_when_they_fit(
    make_app: MakeApp,
) -> None:
    app, _ = make_app(
        context_window=2_600,
        output_reserve=2_000,
        extra="[context]\nmin_recent = 2\n[summary]\nauto = false\n",
    )
    long = "A long answer about the database and its many settings. " * 12
    turns = [("user", f"Question {n}?") if n % 2 == 0 else ("assistant", long) for n in range(12)]
    messages = seed(
        app.workspace.store, turns, conversation_id=app.conversation_screen.session.stored_id
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        dropped = marked(app)
        assert dropped, "some older turns are over the working budget"
        assert dropped == [m.id for m in messages[: len(dropped)]]
        newest_dropped = app.conversation_screen.conversation_view.item(dropped[-1])
        assert newest_dropped is not None
        assert divider(newest_dropped).startswith("┄┄ above: dropped, over the working budget")
        assert messages[-1].id not in dropped


CUT = CUT_SENTENCE.format(setting="output_reserve of the profile 'test'")


async def test_a_length_cut_reply_keeps_its_marker_and_a_failed_empty_one_shows_no_tokens(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script(Reply("This answer stops in the mid", finish_reason="length"))
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Tell me everything")
        await pilot.press("enter")
        await settle(pilot)
        cut = app.conversation_screen.conversation_view.items[-1]
        status = cut.query_one(".message--status", Static)
        assert str(status.render()) == CUT
        assert status.display

        server.fail_next(Fault.SERVER_ERROR)
        await typed(pilot, "Again")
        await pilot.press("enter")
        await settle(pilot)
        failed = app.conversation_screen.conversation_view.items[-1]
        assert failed.status is MessageStatus.FAILED
        assert "tokens" not in str(failed.query_one(".message--header", Static).render())

    again, _ = make_app()  # the next run draws the cut reply from the store: still marked
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        item = again.conversation_screen.conversation_view.item(cut.message_id)
        assert item is not None
        assert str(item.query_one(".message--status", Static).render()) == CUT


async def test_a_stalled_reply_shows_how_long_it_has_waited(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.fail_next(Fault.STALL, after=1, seconds=6.0)
    server.script("Slow at first, then the rest.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Are you there?")
        await pilot.press("enter")
        await until(pilot, lambda: app.conversation_screen.streaming)
        item = app.conversation_screen.conversation_view.items[-1]

        def header() -> str:
            return str(item.query_one(".message--header", Static).render())

        await until(pilot, lambda: "s for the server" in header(), timeout=10)
        assert re.search(r"writing… · waiting \d+ s for the server \(Esc stops\)", header())
        await pilot.press("escape")
        await settle(pilot)
        assert "waiting" not in header()
