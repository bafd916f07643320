"""Focus and scrolling around the conversation: F5 goes to the turns, PageUp and PageDown
scroll them from the composer, a dialog closed gives the focus back to where it was, and a
dialog's footer is its own over the conversation screen."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import RadioButton

from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.ask_again import AskAgainDialog
from ctxchat.tui.textual_compat import FooterKey
from ctxchat.tui.widgets.conversation import ConversationView
from ctxchat.tui.widgets.footer import KeyFooter

from .app_harness import SIZE, MakeApp, exchange, seed, settle, typed, until


def seeded(app: CtxChatApp, pairs: int) -> None:
    seed(
        app.workspace.store,
        exchange(pairs),
        conversation_id=app.conversation_screen.session.stored_id,
    )


async def test_f5_goes_to_the_conversation_and_typing_still_writes_the_message(
    make_app: MakeApp,
) -> None:
    app, _ = make_app()
    seeded(app, 3)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.conversation_screen
        assert app.focused is screen.composer
        await pilot.press("f5", "up")  # the arrow right after it selects, in the turns
        assert isinstance(app.focused, ConversationView)
        await until(pilot, lambda: screen.conversation_view.selected_id is not None)
        await pilot.press(*"more")
        await until(pilot, lambda: screen.composer.text == "more")
        await pilot.press("f6", "f5")  # in the memory panel f5 sorts, and stays there
        await pilot.pause()
        assert screen.in_memory_panel


async def test_page_up_and_down_in_the_composer_scroll_the_conversation(
    make_app: MakeApp,
) -> None:
    app, _ = make_app()
    seeded(app, 40)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.conversation_screen
        view = screen.conversation_view
        await typed(pilot, "a draft\nof two lines")
        await until(pilot, lambda: view.max_scroll_y > 0 and view.scroll_y == view.max_scroll_y)
        bottom = view.scroll_y
        await pilot.press("pageup")
        await until(pilot, lambda: view.scroll_y < bottom)
        assert app.focused is screen.composer
        assert screen.composer.text == "a draft\nof two lines"
        assert screen.composer.cursor_location == (1, len("of two lines"))  # not moved
        up = view.scroll_y
        await pilot.press("pagedown")
        await until(pilot, lambda: view.scroll_y > up)
        # Found by name in the palette too.
        commands = {command.title: command for command in app.get_system_commands(app.screen)}
        down = view.scroll_y
        app.call_later(commands["composer: scroll the conversation a page up"].callback)
        await until(pilot, lambda: view.scroll_y < down)
        up = view.scroll_y
        app.call_later(commands["composer: scroll the conversation a page down"].callback)
        await until(pilot, lambda: view.scroll_y > up)
        assert screen.composer.text == "a draft\nof two lines"


async def on_screen(pilot: Pilot[Any], name: str) -> None:
    await until(pilot, lambda: type(pilot.app.screen).__name__ == name)
    await pilot.pause()


async def conversation_again(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    await until(pilot, lambda: app.screen is app.conversation_screen)
    await settle(pilot)


# (keys that open it, the dialog, keys that close it). Each opens over the conversation.
DIALOGS = {
    "inspector": (["f2"], "RequestInspector", ["escape"]),
    "summary versions": (["f3"], "SummaryScreen", ["escape"]),
    "summarize now": (["ctrl+s"], "SummarizePreview", ["escape"]),
    "model picker": (["f4"], "ModelPicker", ["escape"]),
    "ask again": (["f8"], "AskAgainDialog", ["escape"]),
    "variants": (["f7"], "VariantList", ["escape"]),
    "conversations": (["ctrl+l"], "ConversationSwitcher", ["escape"]),
}

FOCUS = {
    "composer": lambda app: app.conversation_screen.composer,
    "conversation": lambda app: app.conversation_screen.conversation_view,
    "memory panel": lambda app: app.conversation_screen.side.memory_panel.option_list,
}


@pytest.mark.parametrize("where", FOCUS)
@pytest.mark.parametrize("name", DIALOGS)
async def test_closing_a_dialog_gives_the_focus_back_to_where_it_was(
    make_app: MakeApp, server: ScriptedModelServer, name: str, where: str
) -> None:
    app, _ = make_app(extra="[context]\nmin_recent = 2\n")
    seeded(app, 6)
    server.script("Regenerated.")
    opens, dialog, closes = DIALOGS[name]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.conversation_screen
        screen.set_focus(screen.conversation_view)
        await pilot.press("ctrl+g")  # the newest reply gets a variant
        await settle(pilot)
        focused: Widget = FOCUS[where](app)
        screen.set_focus(focused)
        await pilot.pause()
        await pilot.press(*opens)
        await on_screen(pilot, dialog)
        await pilot.press(*closes)
        await conversation_again(pilot)
        assert screen.focused is focused
        await pilot.press("shift+tab")
        await pilot.pause()
        assert screen.focused is not focused


async def test_ask_again_shows_its_own_keys_and_ctrl_s_asks(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("Noted.", "Asked again.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Hello")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("f8")
        await until(pilot, lambda: isinstance(app.screen, AskAgainDialog))
        dialog = app.screen
        await pilot.pause()
        footers = list(dialog.query(KeyFooter))
        assert footers
        words = {str(key.description) for key in footers[0].query(FooterKey)}
        assert {"Ask again", "Cancel"} <= words and not {"Inspect", "Memory"} & words
        await pilot.press("ctrl+o")  # nothing of the screen's: ctrl+o is its mode key
        assert app.screen is dialog
        dialog.query_one("#ask-again-mode").query(RadioButton).last().value = True
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, AskAgainDialog))
        await settle(pilot)
        assert server.requests[-1]["messages"][-1]["content"] == "Hello"
        assert len(server.requests) >= 2
