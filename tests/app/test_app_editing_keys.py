"""Fixing a typo in a burst of keys: Backspace, Delete and the arrows act where they were
typed, in order with the letters around them, in the composer and from the conversation."""

from __future__ import annotations

from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot

from ctxchat.tui.app import CtxChatApp

from .app_harness import SIZE, MakeApp, burst, exchange, seed, settle, until

KEY_NAMES = frozenset({"backspace", "delete", "left", "right", "home", "end", "ctrl+w"})


def keys(pilot: Pilot[Any], *names: str) -> None:
    """Send the named keys at once, in the same queue and pace as `burst`'s letters."""
    app = pilot.app
    for name in names:
        event = events.Key(name, "\x7f" if name == "backspace" else None)
        event.set_sender(app)
        app.post_message(event)


async def type_draft(pilot: Pilot[Any], app: CtxChatApp, text: str) -> None:
    """Once the app has settled, type `text` into the composer."""
    await settle(pilot)
    app.conversation_screen.composer.focus()
    burst(pilot, text)
    await until(pilot, lambda: app.conversation_screen.composer.text == text)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        (
            ["hello wrold", "backspace", "backspace", "backspace", "backspace", "orld"],
            "hello world",
        ),
        (["helo", "left", "l"], "hello"),
        (["a stray word", "ctrl+w", "fine"], "a stray fine"),
        (["ab", "left", "left", "delete", "A"], "Ab"),
        (["wrld", "home", "right", "o", "end", "!"], "world!"),
    ],
)
async def test_a_burst_with_corrections_in_the_composer_types_what_was_meant(
    make_app: MakeApp, typed: list[str], expected: str
) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.composer.focus()
        await until(pilot, lambda: app.screen.focused is app.conversation_screen.composer)
        for part in typed:
            if part in KEY_NAMES:
                keys(pilot, part)
            else:
                burst(pilot, part)
        await until(pilot, lambda: app.conversation_screen.composer.text == expected)
        await settle(pilot)
        assert app.conversation_screen.composer.text == expected


async def test_backspace_in_the_conversation_edits_the_draft_in_order_with_the_typing(
    make_app: MakeApp,
) -> None:
    app, _ = make_app()
    seed(app.workspace.store, exchange(2), conversation_id=None)
    async with app.run_test(size=SIZE) as pilot:
        await type_draft(pilot, app, "a draft with a tpyo")
        app.conversation_screen.conversation_view.focus()
        await pilot.press("up")
        assert app.focused is app.conversation_screen.conversation_view
        keys(pilot, "backspace", "backspace", "backspace")
        burst(pilot, "ypo")
        await until(pilot, lambda: app.conversation_screen.composer.text.endswith("ypo"))
        await settle(pilot)
        assert app.conversation_screen.composer.text == "a draft with a typo"
        assert app.screen.focused is app.conversation_screen.composer


async def test_shift_tab_then_up_go_to_the_conversation_not_the_draft(
    make_app: MakeApp,
) -> None:
    app, _ = make_app()
    seed(app.workspace.store, exchange(2), conversation_id=None)
    async with app.run_test(size=SIZE) as pilot:
        await type_draft(pilot, app, "a draft")
        keys(pilot, "shift+tab")
        await until(pilot, lambda: app.screen.focused is app.conversation_screen.conversation_view)
        keys(pilot, "up")
        await settle(pilot)
        assert app.screen.focused is app.conversation_screen.conversation_view
        assert app.conversation_screen.composer.text == "a draft"
        assert app.conversation_screen.composer.cursor_location == (0, len("a draft"))


async def test_shift_tab_and_up_in_one_burst_from_an_empty_composer_select_a_message(
    make_app: MakeApp,
) -> None:
    """Sent together, as a terminal does, Shift+Tab moves focus before the ↑ arrives: the
    ↑ selects a message in the conversation, not the edit of the last one."""
    app, _ = make_app()
    seed(
        app.workspace.store,
        exchange(2),
        conversation_id=app.conversation_screen.session.stored_id,
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.composer.focus()
        await until(pilot, lambda: app.screen.focused is app.conversation_screen.composer)
        keys(pilot, "shift+tab", "up")
        await settle(pilot)
        assert app.screen is app.conversation_screen  # no edit dialog
        assert app.screen.focused is app.conversation_screen.conversation_view
        assert app.conversation_screen.conversation_view.selected_id is not None
