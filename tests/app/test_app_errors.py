"""Every failure of a turn is told once, on the reply's marker line (details on a click or
ctrl+d, in the server's own words), never also in the status line or a notification; the
user's message is always kept in the store."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

from ctxchat.chat.turn import send_message
from ctxchat.core.history import MessageStatus
from ctxchat.store import StoredMessage
from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.error_details import ErrorDetails
from ctxchat.tui.textual_compat import FooterKey
from ctxchat.tui.widgets.budget_bar import BudgetBar
from ctxchat.tui.widgets.message_item import CUT_SENTENCE

from .app_harness import (
    SIZE,
    MakeApp,
    Notes,
    seed,
    settle,
    shown_messages,
    stalled_reply,
    status_line,
    typed,
)

REPLY = "Some reply text that is long enough."
CASES = [
    pytest.param(
        Fault.AUTH,
        {},
        "The server rejected the API key (401 Unauthorized).",
        "Check the key in your provider profile or in OPENAI_API_KEY.",
        ("", MessageStatus.FAILED),
        id="auth-401",
    ),
    pytest.param(
        Fault.RATE_LIMIT,
        {"retry_after": 1},
        "The server is rate-limiting requests (429 Too Many Requests).",
        "Wait 1 second, then retry.",
        ("", MessageStatus.FAILED),
        id="rate-limit-429",
    ),
    pytest.param(
        Fault.SERVER_ERROR,
        {},
        "The model server failed with an internal error (500).",
        "Retry in a moment; if it keeps failing, check the server's log.",
        ("", MessageStatus.FAILED),
        id="server-error-500",
    ),
    pytest.param(
        Fault.DROP,
        {"after": 2},
        "The connection dropped in the middle of the reply; the part received so far was kept.",
        "Retry to get the whole reply.",
        ("Some reply t", MessageStatus.INTERRUPTED),
        id="dropped-stream",
    ),
    pytest.param(
        Fault.CONTEXT_LENGTH_EXCEEDED,
        {"n_ctx": 4096},
        "The conversation is longer than the model's context window (4096 tokens).",
        "Set context_window in the profile to the server's window, then retry.",
        ("", MessageStatus.FAILED),
        id="context-overflow",
    ),
]


def marker(app: CtxChatApp, index: int = -1) -> str:
    """The marker line under a turn (how a reply ended badly; "" for none)."""
    item = app.conversation_screen.conversation_view.items[index]
    return str(item.query_one(".message--status", Static).render())


def told_once(app: CtxChatApp, notes: Notes, text: str) -> None:
    """`text` is on the newest reply's marker line and nowhere else: not in the status line,
    not in any notification."""
    assert text in marker(app)
    assert status_line(app) == ""
    assert notes.messages == []


async def sent_reply(app: CtxChatApp, pilot: Any) -> StoredMessage:
    """Send "Hello there"; the reply as stored once the turn is over."""
    await typed(pilot, "Hello there")
    await pilot.press("enter")
    await settle(pilot)
    return app.conversation_screen.session.store.messages.messages(
        app.conversation_screen.session.stored_id
    )[-1]


async def open_details_by_click(app: CtxChatApp, pilot: Any) -> list[str]:
    """Click the newest reply's marker line; the lines of the dialog that opens."""
    item = app.conversation_screen.conversation_view.items[-1]
    assert await pilot.click(item.query_one(".message--status", Static))
    await settle(pilot)
    return dialog_text(app)


@pytest.mark.parametrize(("fault", "options", "sentence", "action", "kept"), CASES)
async def test_a_provider_error_is_told_once_on_the_reply_and_the_message_kept(
    make_app: MakeApp,
    server: ScriptedModelServer,
    fault: Fault,
    options: dict[str, Any],
    sentence: str,
    action: str,
    kept: tuple[str, MessageStatus],
) -> None:
    app, notes = make_app()
    server.fail_next(fault, **options)
    server.script(REPLY)
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Hello there")
        await pilot.press("enter")
        await settle(pilot)

        told_once(app, notes, f"{sentence} {action}")
        user, reply = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )
        assert (user.role, user.content, user.status) == (
            "user",
            "Hello there",
            MessageStatus.COMPLETE,
        )
        assert (reply.content, reply.status) == kept
        assert reply.error == f"{sentence} {action}"
        assert TEST_KEY not in reply.error
        assert app.conversation_screen.conversation_view.items[-1].view.status is kept[1]
        assert app.conversation_screen.composer.text == ""
        assert not app.conversation_screen.streaming

        shown = await open_details_by_click(app, pilot)
        assert shown[:2] == [sentence, action]
        assert app.screen.query("#retry")


async def test_a_dead_server_is_told_once_on_the_reply(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        server.stop()  # nothing listens any more
        reply = await sent_reply(app, pilot)
        assert reply.status is MessageStatus.FAILED and reply.error
        told_once(app, notes, reply.error)
        app.conversation_screen.conversation_view.focus()
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert isinstance(app.screen, ErrorDetails)


async def test_a_stalled_stream_is_told_once_on_the_reply(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app(extra="[model]\nchunk_timeout = 0.5\n")
    server.fail_next(Fault.STALL, after=2, seconds=30)
    server.script(REPLY)
    async with app.run_test(size=SIZE) as pilot:
        reply = await sent_reply(app, pilot)
        assert (reply.content, reply.status) == ("Some reply t", MessageStatus.INTERRUPTED)
        assert reply.error and "chunk_timeout" in reply.error
        told_once(app, notes, reply.error)
        assert (await open_details_by_click(app, pilot))[0] in reply.error


async def test_a_reply_stopped_with_escape_is_told_once_on_the_reply(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await stalled_reply(pilot, server)
        await pilot.press("escape")
        await settle(pilot)
        told_once(app, notes, "You stopped the reply; the part received so far was kept.")
        assert "Interrupted" in marker(app)


async def test_a_reply_cut_by_the_output_limit_is_told_once_on_the_reply(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    server.fail_next(Fault.FINISH_LENGTH)
    server.script(REPLY)
    async with app.run_test(size=SIZE) as pilot:
        reply = await sent_reply(app, pilot)
        assert (reply.status, reply.finish_reason) == (MessageStatus.COMPLETE, "length")
        assert marker(app) == CUT_SENTENCE.format(setting="output_reserve of the profile 'test'")
        assert "cut" not in status_line(app)
        assert status_line(app).startswith(
            f"reply {reply.tokens:,} tokens (server counted {reply.completion_tokens:,})"
        )
        assert notes.messages == []


async def test_a_reply_cut_at_a_presets_limit_names_the_presets_setting(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    """The limit was the preset's max_output_tokens, not the profile's output_reserve: the
    marker says which setting to raise, as the reply is drawn and when drawn again."""
    app, _notes = make_app(extra="[presets.brief]\nmax_output_tokens = 150\n", preset="brief")
    server.fail_next(Fault.FINISH_LENGTH)
    server.script(REPLY)
    async with app.run_test(size=SIZE) as pilot:
        reply = await sent_reply(app, pilot)
        assert server.requests[-1]["max_tokens"] == 150
        said = CUT_SENTENCE.format(setting="max_output_tokens of the preset 'brief'")
        assert marker(app) == said
        await app.conversation_screen.reload_conversation()
        await settle(pilot)
        assert reply.finish_reason == "length"
        assert marker(app) == said


async def test_a_reply_failing_in_a_conversation_not_on_screen_is_notified_once(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    """No message on screen to mark: one notification names the conversation; its marker
    line is there on coming back."""
    app, notes = make_app()
    server.fail_next(Fault.SERVER_ERROR)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = app.conversation_screen.session
        first = session.stored_id
        other = session.store.conversations.create_conversation("Other", model="gpt-4o").id
        await app.conversation_screen.open_conversation(other)
        await settle(pilot)
        # The turn of the first conversation ends while the other one is on screen (as
        # when the user switches away mid-reply).
        app.conversation_screen.chat.run_turn(
            session, lambda session: send_message(session, "Hello there")
        )
        await settle(pilot)
        reply = session.store.messages.messages(first)[-1]
        assert reply.status is MessageStatus.FAILED
        name = app.conversation_screen.session.store.conversations.get_conversation(first).name
        assert notes.messages == [f"In “{name}”: {reply.error}"]
        assert status_line(app) == ""
        await app.conversation_screen.open_conversation(first)
        await settle(pilot)
        assert reply.error and reply.error in marker(app)
        assert len(notes.messages) == 1


async def test_a_context_overflow_teaches_the_app_the_servers_window(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    """With no configured window (0 = detect), the window the server names in its refusal
    is the one planned with from then on."""
    app, _ = make_app(context_window=0)
    server.fail_next(Fault.CONTEXT_LENGTH_EXCEEDED, n_ctx=4096)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.conversation_screen.session.window.source == "table"
        await typed(pilot, "Hello there")
        await pilot.press("enter")
        await settle(pilot)
        assert (
            app.conversation_screen.session.window.context_window,
            app.conversation_screen.session.window.source,
        ) == (
            4096,
            "learned from an error",
        )
        assert (
            app.conversation_screen.last_plan is not None
            and app.conversation_screen.last_plan.context_window == 4096
        )
        # Re-planned with that window and sent again by itself: one user message, one reply.
        views = [item.view for item in app.conversation_screen.conversation_view.items]
        assert [(v.role, v.status) for v in views] == [
            ("user", MessageStatus.COMPLETE),
            ("assistant", MessageStatus.COMPLETE),
        ]
        assert len(server.requests) == 2


async def test_a_configured_window_stays_labelled_as_configured_after_an_overflow(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.fail_next(Fault.CONTEXT_LENGTH_EXCEEDED, n_ctx=4096)
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Hello there")
        await pilot.press("enter")
        await settle(pilot)
        assert (
            app.conversation_screen.last_plan is not None
            and app.conversation_screen.last_plan.context_window == 16_000
        )
        shown = str(app.query_one(BudgetBar).render())
        assert "window 16,000 (from the config)" in shown


async def send_to_fail(app: Any, pilot: Any) -> None:
    """Send "Hello there" (a fault is set up to fail it), then focus the conversation."""
    await typed(pilot, "Hello there")
    await pilot.press("enter")
    await settle(pilot)
    app.conversation_screen.conversation_view.focus()
    await settle(pilot)


async def test_retry_after_a_server_error_gets_the_whole_reply(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    server.fail_next(Fault.SERVER_ERROR)
    server.script("The whole reply.")
    async with app.run_test(size=SIZE) as pilot:
        await send_to_fail(app, pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)

        messages = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )
        assert [(m.role, m.content, m.status) for m in messages] == [
            ("user", "Hello there", MessageStatus.COMPLETE),
            ("assistant", "The whole reply.", MessageStatus.COMPLETE),
        ]
        assert shown_messages(app) == [("user", "Hello there"), ("assistant", "The whole reply.")]
        # No stale error line anywhere: the marker went with the failed reply.
        assert [marker(app, index) for index in (0, 1)] == ["", ""]
        assert status_line(app).startswith("reply ")
        assert notes.messages == []


def dialog_text(app: Any) -> list[str]:
    """The error dialog's lines: sentence, action, server's words (those it has)."""
    screen = app.screen
    assert isinstance(screen, ErrorDetails)
    ids = ("#error-message", "#error-action", "#error-detail")
    return [str(screen.query_one(name, Static).render()) for name in ids if screen.query(name)]


async def test_details_of_a_failed_reply_show_the_servers_words_and_can_retry(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.fail_next(Fault.SERVER_ERROR)
    server.script("The whole reply.")
    async with app.run_test(size=SIZE) as pilot:
        await send_to_fail(app, pilot)
        assert "Details" in footer_keys(app)
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert dialog_text(app) == [
            "The model server failed with an internal error (500).",
            "Retry in a moment; if it keeps failing, check the server's log.",
            "The server had an error while processing your request.",
        ]
        await pilot.click("#retry")
        await settle(pilot)

        messages = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )
        assert [(m.content, m.status) for m in messages][-1] == (
            "The whole reply.",
            MessageStatus.COMPLETE,
        )
        assert "Details" not in footer_keys(app)  # nothing failed any more


async def test_details_of_a_reply_that_failed_in_an_earlier_run_come_from_the_store(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    first, _ = make_app()
    server.fail_next(Fault.SERVER_ERROR)
    async with first.run_test(size=SIZE) as pilot:
        await typed(pilot, "Hello there")
        await pilot.press("enter")
        await settle(pilot)
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.conversation_view.focus()
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert dialog_text(app) == [
            "The model server failed with an internal error (500). "
            "Retry in a moment; if it keeps failing, check the server's log.",
            "The server had an error while processing your request.",  # kept in the store
        ]
        assert app.screen.query("#retry")
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ErrorDetails)


def footer_keys(app: Any) -> list[str]:
    return [key.description for key in app.screen.query(FooterKey)]


async def test_retry_in_the_details_does_nothing_once_another_conversation_is_open(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.fail_next(Fault.SERVER_ERROR)
    async with app.run_test(size=SIZE) as pilot:
        await send_to_fail(app, pilot)
        store = app.conversation_screen.session.store
        other = store.conversations.create_conversation("Other", model="gpt-4o").id
        kept = seed(store, [("user", "Hi"), ("assistant", "Good answer.")], conversation_id=other)
        await pilot.press("ctrl+d")
        await settle(pilot)
        sent = len(server.requests)
        # The palette works over the dialog; a switch made there must not be retried into.
        await app.conversation_screen.open_conversation(other)
        await settle(pilot)
        await pilot.click("#retry")
        await settle(pilot)
        assert store.messages.messages(other) == kept
        assert len(server.requests) == sent


async def test_retry_in_the_details_works_after_leaving_the_conversation_and_coming_back(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.fail_next(Fault.SERVER_ERROR)
    server.script("The whole reply.")
    async with app.run_test(size=SIZE) as pilot:
        await send_to_fail(app, pilot)
        first = app.conversation_screen.session.stored_id
        other = app.conversation_screen.session.store.conversations.create_conversation(
            "Other", model="gpt-4o"
        ).id
        await pilot.press("ctrl+d")
        await settle(pilot)
        # Away and back through the palette, over the dialog: the reply is still the newest.
        await app.conversation_screen.open_conversation(other)
        await app.conversation_screen.open_conversation(first)
        await settle(pilot)
        await pilot.click("#retry")
        await settle(pilot)
        last = app.conversation_screen.session.store.messages.messages(first)[-1]
        assert (last.content, last.status) == ("The whole reply.", MessageStatus.COMPLETE)
