"""Typing never loses a key: bursts faster than the app, Enter mid-burst, Enter mid-reply."""

from __future__ import annotations

from textual.widgets import Input

from ctxchat.core.history import MessageStatus
from ctxchat.testing.server import Fault, ScriptedModelServer

from .app_harness import SIZE, MakeApp, burst, exchange, seed, settle, until


async def test_a_burst_with_enter_sends_the_whole_draft_and_keeps_what_follows(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    seed(app.workspace.store, exchange(300), title="long")
    server.script("Noted.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.composer.focus()
        await pilot.pause()
        burst(pilot, "the first message, typed fast\rand the start of the next")
        await until(
            pilot, lambda: app.conversation_screen.composer.text == "and the start of the next"
        )
        await settle(pilot)
        sent = [
            m.content
            for m in app.conversation_screen.session.store.messages.messages(
                app.conversation_screen.session.stored_id
            )
        ]
        assert sent[-2:] == ["the first message, typed fast", "Noted."]
        assert app.conversation_screen.composer.text == "and the start of the next"
        assert notes.of("error") == []


async def test_enter_while_a_reply_streams_queues_the_message_and_keeps_every_key(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    server.latency = 0.05
    server.script("A reply that takes a while to arrive, word by word, chunk by chunk.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.composer.focus()
        burst(pilot, "first\r")
        await until(pilot, lambda: app.conversation_screen.streaming)
        burst(pilot, "second\rthird")
        await until(pilot, lambda: app.conversation_screen.composer.text == "third")
        await settle(pilot)
        sent = [
            m.content
            for m in app.conversation_screen.session.store.messages.messages(
                app.conversation_screen.session.stored_id
            )
            if m.role == "user"
        ]
        assert sent == ["first", "second"]  # queued, then sent once the reply ended
        assert app.conversation_screen.composer.text == "third"
        assert notes.of("error") == []


async def test_a_message_that_cannot_be_sent_goes_back_into_the_box(make_app: MakeApp) -> None:
    app, notes = make_app(context_window=3_000, output_reserve=2_000)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.composer.focus()
        too_long = "word " * 2_000
        app.conversation_screen.composer.insert(too_long)
        await pilot.press("enter")
        await settle(pilot)
        await until(pilot, lambda: app.conversation_screen.composer.text == too_long)
        assert (
            app.conversation_screen.session.store.messages.count_messages(
                app.conversation_screen.session.stored_id
            )
            == 0
        )
        assert notes.of("error")


async def test_typing_into_the_conversation_types_into_the_composer_and_fires_nothing(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("Reasoned reply.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.composer.focus()
        burst(pilot, "first\r")
        await settle(pilot)
        before = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )
        await pilot.click("#conversation")
        await pilot.press("up")
        assert app.focused is app.conversation_screen.conversation_view
        # Every letter of the old single-key actions (g regenerate, p pin, e edit, c copy…)
        burst(pilot, "great, thanks! pin, edit, copy, kj")
        await until(
            pilot,
            lambda: app.conversation_screen.composer.text == "great, thanks! pin, edit, copy, kj",
        )
        await settle(pilot)
        assert app.screen.focused is app.conversation_screen.composer
        assert app.screen is app.screen_stack[0]  # no dialog opened
        assert (
            app.conversation_screen.session.store.messages.messages(
                app.conversation_screen.session.stored_id
            )
            == before
        )
        assert len(server.requests) == 1


async def test_escape_from_the_conversation_or_the_memory_panel_returns_to_the_composer(
    make_app: MakeApp,
) -> None:
    app, _ = make_app()
    seed(app.workspace.store, exchange(2), conversation_id=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.conversation_view.focus()
        await pilot.press("up", "escape")
        assert app.focused is app.conversation_screen.composer
        assert app.conversation_screen.conversation_view.selected_id is None
        await pilot.press("f6")
        assert app.focused is not app.conversation_screen.composer
        await pilot.press("escape")
        assert app.focused is app.conversation_screen.composer


async def test_ctrl_r_in_the_composer_retries_the_newest_failed_reply(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    server.fail_next(Fault.SERVER_ERROR)
    server.script("The whole reply.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.composer.focus()
        burst(pilot, "Hello there\r")
        await settle(pilot)
        assert app.focused is app.conversation_screen.composer
        # An older message selected does not matter: the newest reply is retried.
        await pilot.press("ctrl+r")
        await settle(pilot)
        messages = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )
        assert [(m.content, m.status) for m in messages] == [
            ("Hello there", MessageStatus.COMPLETE),
            ("The whole reply.", MessageStatus.COMPLETE),
        ]
        await pilot.press("ctrl+r")
        assert "Nothing to retry: the newest reply is complete." in notes.messages


async def test_retry_is_in_the_palette(make_app: MakeApp, server: ScriptedModelServer) -> None:
    app, _ = make_app()
    server.fail_next(Fault.SERVER_ERROR)
    server.script("Second time lucky.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        burst(pilot, "Hello\r")
        await settle(pilot)
        await pilot.press("ctrl+p")
        burst(pilot, "reply: retry")
        await pilot.pause()
        await until(pilot, lambda: "reply: retry" in app.screen.query_one("Input", Input).value)
        await pilot.press("enter")
        await settle(pilot)
        newest = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1]
        assert (newest.content, newest.status) == ("Second time lucky.", MessageStatus.COMPLETE)
