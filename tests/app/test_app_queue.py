"""Messages sent while a reply streams wait under it, each sent as its own turn, in order,
once the reply before it ends; they can be edited or cancelled, and are never lost."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.confirm import ConfirmScreen
from ctxchat.tui.textual_compat import FooterKey
from ctxchat.tui.widgets.footer import KeyFooter
from ctxchat.tui.widgets.queued_messages import QueuedRow

from .app_harness import SIZE, MakeApp, burst, settle, shown_messages, until


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Holds the first reply after its first two chunks until set (set at the end anyway)."""
    event = threading.Event()
    yield event
    event.set()


def rows(app: CtxChatApp) -> list[str]:
    """The queued rows on screen, as drawn."""
    return [str(row.render()) for row in app.query(QueuedRow).results(QueuedRow)]


def sent(server: ScriptedModelServer) -> list[str]:
    """The newest user message of each chat request the server received, in order."""
    return [request["messages"][-1]["content"] for request in server.requests]


async def released(
    pilot: Pilot[Any], server: ScriptedModelServer, release: threading.Event, requests: int
) -> list[str]:
    """Let the held reply end; once `requests` chat requests came and all is done, what each
    sent (see `sent`)."""
    release.set()
    await until(pilot, lambda: len(server.requests) == requests)
    await settle(pilot)
    return sent(server)


async def streaming_first(
    app: CtxChatApp, pilot: Pilot[Any], server: ScriptedModelServer, release: threading.Event
) -> None:
    """Send "first"; its reply streams its first two chunks and is held there."""
    server.fail_next(Fault.STALL, after=2, until=release)
    server.script("A held reply, long enough to stream.")
    await settle(pilot)
    app.conversation_screen.composer.focus()
    burst(pilot, "first\r")
    await until(pilot, lambda: shown_messages(app)[-1:] == [("assistant", "A held reply")])


async def test_messages_sent_while_a_reply_streams_each_go_as_their_own_turn_in_order(
    make_app: MakeApp, server: ScriptedModelServer, release: threading.Event
) -> None:
    app, notes = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await streaming_first(app, pilot, server, release)
        burst(pilot, "second, typed fast\rthird [b]not bold[/b]\r")
        await until(pilot, lambda: len(rows(app)) == 2)
        assert rows(app) == [
            "queued · 1  second, typed fast",
            "queued · 2  third [b]not bold[/b]",  # shown as typed, never markup
        ]
        assert app.conversation_screen.composer.text == ""
        assert sent(server) == ["first"]  # nothing more goes while the reply streams
        release.set()
        await until(
            pilot, lambda: len(server.requests) == 3 and not app.conversation_screen.streaming
        )
        await settle(pilot)
        assert sent(server) == ["first", "second, typed fast", "third [b]not bold[/b]"]
        # Each after the reply before it: the third request holds the second's answer.
        third = server.requests[2]["messages"]
        assert [m["content"] for m in third[-4:-1]] == [
            "A held reply, long enough to stream.",
            "second, typed fast",
            "You said: second, typed fast",
        ]
        assert rows(app) == []
        assert notes.of("error") == []


async def test_shift_enter_while_a_reply_streams_is_a_new_line_of_the_queued_message(
    make_app: MakeApp, server: ScriptedModelServer, release: threading.Event
) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await streaming_first(app, pilot, server, release)
        await pilot.press(*"one", "shift+enter", *"two")
        await until(pilot, lambda: app.conversation_screen.composer.text == "one\ntwo")
        assert rows(app) == []
        await pilot.press("enter")
        await until(pilot, lambda: rows(app) == ["queued · 1  one ⏎ two"])
        assert await released(pilot, server, release, 2) == ["first", "one\ntwo"]


async def test_a_queued_message_edited_goes_back_into_the_composer_and_out_of_the_queue(
    make_app: MakeApp, server: ScriptedModelServer, release: threading.Event
) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await streaming_first(app, pilot, server, release)
        burst(pilot, "second\rthird\r")
        await until(pilot, lambda: len(rows(app)) == 2)
        first_row = app.query(QueuedRow).first(QueuedRow)
        first_row.focus()
        await pilot.press("enter")  # edit
        composer = app.conversation_screen.composer
        await until(pilot, lambda: composer.text == "second" and composer.has_focus)
        assert rows(app) == ["queued · 1  third"]
        await pilot.press(*" again", "enter")  # queued again, now after "third"
        await until(pilot, lambda: rows(app) == ["queued · 1  third", "queued · 2  second again"])
        assert await released(pilot, server, release, 3) == ["first", "third", "second again"]


async def test_queued_messages_cancelled_by_key_or_palette_are_never_sent(
    make_app: MakeApp, server: ScriptedModelServer, release: threading.Event
) -> None:
    app, notes = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await streaming_first(app, pilot, server, release)
        burst(pilot, "second\rthird\rfourth\r")
        await until(pilot, lambda: len(rows(app)) == 3)
        app.query(QueuedRow).results(QueuedRow).__next__().focus()
        await pilot.press("delete")
        await until(pilot, lambda: rows(app) == ["queued · 1  third", "queued · 2  fourth"])
        assert "Cancelled the queued message: it is not sent." in notes.messages
        await app.conversation_screen.run_action("route('queued.cancel_all')")
        await until(pilot, lambda: rows(app) == [])
        assert "Cancelled 2 queued messages: not sent." in notes.messages
        release.set()
        await until(pilot, lambda: not app.conversation_screen.streaming)
        await settle(pilot)
        assert sent(server) == ["first"]


async def test_after_the_user_stops_a_reply_the_queue_waits_until_enter(
    make_app: MakeApp, server: ScriptedModelServer, release: threading.Event
) -> None:
    app, notes = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await streaming_first(app, pilot, server, release)
        burst(pilot, "second\r")
        await until(pilot, lambda: len(rows(app)) == 1)
        await pilot.press("escape")  # stop the reply
        await until(pilot, lambda: not app.conversation_screen.streaming)
        await settle(pilot)
        assert sent(server) == ["first"]  # held: written expecting the stopped reply
        assert rows(app) == ["queued · 1  second"]
        held = app.query_one("#queued-held")
        assert "Held" in str(held.render())
        assert any("1 queued message waits, held" in note for note in notes.messages)
        await pilot.press("enter")  # the box is empty: the queue goes on
        await until(pilot, lambda: len(server.requests) == 2)
        await settle(pilot)
        assert sent(server) == ["first", "second"]
        assert rows(app) == []


async def test_a_queued_message_goes_into_its_own_conversation_after_a_switch(
    make_app: MakeApp, server: ScriptedModelServer, release: threading.Event
) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.conversation_screen
        await streaming_first(app, pilot, server, release)
        first = screen.session.conversation_id
        burst(pilot, "second, for the first conversation\r")
        await until(pilot, lambda: len(rows(app)) == 1)
        await screen.run_action("new_conversation")
        await until(pilot, lambda: screen.session.conversation_id != first)
        other = screen.session.conversation_id
        await until(pilot, lambda: rows(app) == [])  # that queue is not this one's
        release.set()
        await until(pilot, lambda: len(server.requests) == 2)
        await settle(pilot)
        store = screen.session.store
        assert first is not None and other is not None
        assert [m.content for m in store.messages.messages(first) if m.role == "user"] == [
            "first",
            "second, for the first conversation",
        ]
        assert list(store.messages.messages(other)) == []


async def test_quitting_with_messages_queued_asks_first(
    make_app: MakeApp, server: ScriptedModelServer, release: threading.Event
) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await streaming_first(app, pilot, server, release)
        burst(pilot, "second\r")
        await until(pilot, lambda: len(rows(app)) == 1)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "1 queued message not sent yet" in str(
            app.screen.query_one("#confirm-question").render()
        )
        await pilot.press("escape")  # stay: the message still waits
        await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert app.is_running and rows(app) == ["queued · 1  second"]
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("ctrl+q")  # asked already: quits
        await until(pilot, lambda: not app.is_running)


async def test_three_messages_typed_in_one_burst_go_whole_and_in_order(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    """Each Enter of a burst is decided where the messages arrive, in order: the first
    starts a reply, the next two wait for it (never put back into the box reversed)."""
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.composer.focus()
        burst(pilot, "burst number 1, fox\rburst number 2, dog\rburst number 3, cat\r")
        await until(pilot, lambda: len(server.requests) == 3)
        await settle(pilot)
        assert sent(server) == ["burst number 1, fox", "burst number 2, dog", "burst number 3, cat"]
        assert app.conversation_screen.composer.text == ""


def footer_words(app: CtxChatApp) -> set[str]:
    return {str(key.description) for key in app.screen.query_one(KeyFooter).query(FooterKey)}


async def test_the_footer_says_enter_queues_while_a_reply_is_written_and_sends_after(
    make_app: MakeApp, server: ScriptedModelServer, release: threading.Event
) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Send" in footer_words(app) and "Queue" not in footer_words(app)
        await streaming_first(app, pilot, server, release)
        await until(pilot, lambda: "Queue" in footer_words(app))
        assert "Send" not in footer_words(app)
        await released(pilot, server, release, 1)
        await until(pilot, lambda: "Send" in footer_words(app))
        assert "Queue" not in footer_words(app)
