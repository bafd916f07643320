"""The conversation pane: paging through a long history, streaming, keys, literal text, links."""

from __future__ import annotations

from typing import Any

import pytest
from rich.color import ColorSystem
from textual.geometry import Offset
from textual.selection import Selection
from textual.theme import Theme
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from ctxchat.core.history import MessageStatus
from ctxchat.tui.live_turn import LiveTurn
from ctxchat.tui.screens.confirm import ConfirmScreen
from ctxchat.tui.themes import load_themes, shipped_theme_dirs
from ctxchat.tui.views import MessageView
from ctxchat.tui.widgets.conversation import ConversationView
from ctxchat.tui.widgets.message_item import RETRY_HINT, MessageItem

from ..colours import apart
from ..waiting import until
from .screen_hosts import SAMPLE, ConversationHost, listed, numbered


def top_item(view: ConversationView) -> MessageItem:
    """The turn at the top edge of the view."""
    return next(
        item
        for item in view.items
        if item.virtual_region.y <= view.scroll_y < item.virtual_region.bottom
    )


async def test_ten_thousand_messages_mount_only_the_newest_forty() -> None:
    calls, load = numbered(10_000)
    app = ConversationHost(10_000, load)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        assert calls == [(9960, 40)]
        assert len(view.items) == 40
        assert view.window == (9960, 10_000)
        assert view.items[-1].message_id == 10_000
        assert view.is_vertical_scroll_end


async def test_scrolling_to_the_top_loads_the_previous_page_and_keeps_the_place() -> None:
    calls, load = numbered(10_000)
    app = ConversationHost(10_000, load)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        view.scroll_home(animate=False)
        await pilot.pause()
        await pilot.pause()
        assert calls == [(9960, 40), (9940, 20)]
        assert len(view.items) == 60
        assert view.window == (9940, 10_000)
        # The turn that was at the top is still there: the older page went above it.
        assert top_item(view).message_id == 9961
        assert view.scroll_y > 0


async def test_paging_back_and_forth_never_mounts_more_than_the_cap() -> None:
    calls, load = numbered(10_000)
    app = ConversationHost(10_000, load)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        for _ in range(8):
            view.scroll_home(animate=False)
            await pilot.pause()
            await pilot.pause()
        assert len(view.items) <= ConversationView.MAX_MOUNTED
        start, end = view.window
        assert end < 10_000 and start == 10_000 - 40 - 8 * 20
        assert sum(limit for _, limit in calls) < 400
        # Back down: newer pages load again and the oldest ones leave.
        for _ in range(3):
            view.scroll_end(animate=False)
            await pilot.pause()
            await pilot.pause()
        assert view.window[1] > end
        assert len(view.items) <= ConversationView.MAX_MOUNTED


async def test_a_new_message_while_reading_history_jumps_to_the_newest() -> None:
    _, load = numbered(10_001)  # the store already holds the new message
    app = ConversationHost(10_000, load)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        for _ in range(8):
            view.scroll_home(animate=False)
            await pilot.pause()
            await pilot.pause()
        assert view.window[1] < 10_000 and not view.is_anchored
        item = await view.add_message(MessageView(10_001, "user", "New question"))
        await pilot.pause()
        assert item.message_id == 10_001 and view.items[-1] is item
        assert view.window == (10_001 - 40, 10_001)
        assert view.is_anchored and view.is_vertical_scroll_end


async def arrive(item: MessageItem, live: LiveTurn, text: str) -> None:
    """`text` of the reply arrives, as the app's turn hands it on."""
    live.received(text, "")
    await item.arrived()


async def test_a_streaming_reply_is_never_unmounted_by_paging() -> None:
    calls, load = numbered(1_000)
    app = ConversationHost(1_000, load)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        calls.clear()
        live = LiveTurn(1, reply_id=1_001)
        item = await view.begin_reply(
            MessageView(1_001, "assistant", "", MessageStatus.STREAMING), live
        )
        for _ in range(6):
            view.scroll_home(animate=False)
            await pilot.pause()
            await pilot.pause()
        assert item.is_attached
        await arrive(item, live, "still here")
        await item.finish("still here")
        assert str(item.query_one(MarkdownBlock).content) == "still here"


async def test_a_short_conversation_loads_whole_and_asks_for_no_more() -> None:
    calls, load = numbered(5)
    app = ConversationHost(5, load)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert calls == [(0, 5)]
        assert len(app.query_one(ConversationView).items) == 5


async def test_streamed_reply_ends_with_exactly_the_full_text_rendered() -> None:
    full = (
        "Here is the code:\n\n```python\ndef double(x):\n    return x * 2\n```\n\n"
        "Then **call** it.\x1b[31m"
    )
    app = ConversationHost(0, listed([]))
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        await view.add_message(MessageView(1, "user", "Write a function."))
        live = LiveTurn(1, reply_id=2)
        item = await view.begin_reply(
            MessageView(2, "assistant", "", MessageStatus.STREAMING), live
        )
        assert item.is_streaming and item.status is MessageStatus.STREAMING
        assert item.query_one(".message--status").has_class("-streaming")
        for start in range(0, len(full), 5):
            await arrive(item, live, full[start : start + 5])
        await item.finish(full, MessageStatus.COMPLETE, tokens=31)
        await pilot.pause()
        markdown = item.query_one(Markdown)
        assert markdown.source == full.replace("\x1b[31m", "")
        blocks = [
            (type(b).__name__, str(b.content)) for b in markdown.query_children(MarkdownBlock)
        ]
        assert blocks == [
            ("MarkdownParagraph", "Here is the code:"),
            ("CodeFence", ""),
            ("MarkdownParagraph", "Then call it."),
        ]
        fence = markdown.query_one(MarkdownFence)
        assert fence.code == "def double(x):\n    return x * 2"
        assert not item.is_streaming
        assert item.view.content == full and item.view.tokens == 31
        assert item.status is MessageStatus.COMPLETE and not item.is_streaming
        assert item.query_one(".message--status").has_class("-complete")


async def test_interrupted_stream_is_marked_with_the_error_and_the_retry_key() -> None:
    app = ConversationHost(0, listed([]))
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(ConversationView)
        live = LiveTurn(1, reply_id=7)
        item = await view.begin_reply(
            MessageView(7, "assistant", "", MessageStatus.STREAMING), live
        )
        await arrive(item, live, "Half a rep")
        await item.finish("Half a rep", MessageStatus.INTERRUPTED, error="The stream stalled.")
        await pilot.pause()
        status = str(item.query_one(".message--status", Static).content)
        assert status == "⚠ Interrupted: The stream stalled.  ·  " + RETRY_HINT
        assert item.status is MessageStatus.INTERRUPTED
        assert item.query_one(".message--status").has_class("-interrupted")


async def test_markup_and_control_sequences_show_literally() -> None:
    text = "[bold]x[/bold] [/INST] [@click=app.quit]x[/] \x1b[31mred\x1b[0m"
    shown = "[bold]x[/bold] [/INST] [@click=app.quit]x[/] red"
    views = [
        MessageView(1, "user", text, model="[red]m[/red]"),
        MessageView(2, "assistant", text, model="m\x1b]0;title\x07"),
    ]
    app = ConversationHost(2, listed(views))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        user, assistant = app.query_one(ConversationView).items
        assert str(user.query_one(".message--body", Static).content) == shown
        paragraph = assistant.query_one(Markdown).query_one(MarkdownBlock)
        assert str(paragraph.content) == shown
        assert "title" not in str(assistant.query_one(".message--header", Static).content)
        screen_text = app.export_screenshot()
        assert "\x1b" not in screen_text
        assert "[@click=app.quit]x[/]" in screen_text.replace("&#160;", " ")
        # Nothing was run: the app is still here.
        assert app.is_running


async def test_each_key_posts_its_message_with_the_selected_id() -> None:
    app = ConversationHost(len(SAMPLE), listed(SAMPLE))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        # Nothing selected: actions apply to the newest message (a failed reply).
        await pilot.press("ctrl+g")
        await pilot.press("up")  # selects the newest
        assert view.selected_id == 6
        await pilot.press("up")
        assert view.selected_id == 5
        await pilot.press("ctrl+e", "ctrl+c")
        await pilot.press("up", "ctrl+k")
        await pilot.press("down")
        assert view.selected_id == 5
        await pilot.press("escape")
        await pilot.pause()
        posted = [(type(m).__name__, getattr(m, "message_id", None)) for m in app.posted]
        assert posted == [
            ("RegenerateRequested", None),
            ("EditRequested", 5),
            ("CopyRequested", 5),
            ("PinRequested", 4),
            ("Left", None),
        ]
        assert view.selected_id is None
        copy = app.posted[2]
        assert isinstance(copy, ConversationView.CopyRequested)
        assert copy.text == "Try once more, please."
        pin = app.posted[3]
        assert isinstance(pin, ConversationView.PinRequested)
        assert pin.text == SAMPLE[3].content


async def test_letters_typed_here_fire_no_action() -> None:
    app = ConversationHost(len(SAMPLE), listed(SAMPLE))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("up", *"great, thanks; pin it, edit, copy, kj")
        await pilot.pause()
        assert app.posted == []


async def test_pin_takes_the_text_selected_in_the_message() -> None:
    app = ConversationHost(len(SAMPLE), listed(SAMPLE))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        view.select(3)
        body = view.items[2].query_one(".message--body", Static)
        # "And the [bold]literal[/bold] text": columns 8 to 29 of the first line.
        app.screen.selections = {body: Selection.from_offsets(Offset(8, 0), Offset(29, 0))}
        await pilot.press("ctrl+k")
        await pilot.pause()
        pin = app.posted[-1]
        assert isinstance(pin, ConversationView.PinRequested)
        assert (pin.message_id, pin.text) == (3, "[bold]literal[/bold]")


async def test_actions_that_do_not_apply_post_nothing() -> None:
    app = ConversationHost(len(SAMPLE), listed(SAMPLE))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("up", "up", "up", "up")  # message 3, a user turn that completed
        assert app.query_one(ConversationView).selected_id == 3
        await pilot.press("up", "ctrl+e")  # message 2 is the assistant's: not editable
        await pilot.pause()
        assert app.posted == []


async def test_up_at_the_oldest_mounted_turn_loads_the_page_before() -> None:
    calls, load = numbered(100)
    app = ConversationHost(100, load)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        view.select(61)
        await pilot.pause()
        await pilot.press("up")
        await pilot.pause()
        assert view.selected_id == 60
        assert (40, 20) in calls


async def test_selecting_a_message_with_the_mouse() -> None:
    app = ConversationHost(len(SAMPLE), listed(SAMPLE))
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        await pilot.click("#message-5")
        assert view.selected_id == 5
        await pilot.press("escape")
        assert view.selected_id is None


async def test_a_clicked_link_asks_before_opening() -> None:
    views = [MessageView(1, "assistant", "Read [the docs](https://example.com/docs) first.")]
    app = ConversationHost(1, listed(views))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        paragraph = app.query_one(Markdown).query_one(MarkdownBlock)
        # "Read " is five cells; the link text starts right after.
        await pilot.click(paragraph, offset=(7, 0))
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert [type(m).__name__ for m in app.posted] == ["LinkClicked"]
        assert app.opened == []
        await pilot.press("escape")
        await pilot.pause()
        assert app.opened == []
        await pilot.click(paragraph, offset=(7, 0))
        await pilot.pause()
        await pilot.click("#confirm")
        await pilot.pause()
        assert app.opened == ["https://example.com/docs"]


async def test_switching_conversation_replaces_every_turn() -> None:
    app = ConversationHost(len(SAMPLE), listed(SAMPLE))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        await pilot.press("up")
        _, load = numbered(3)
        await view.replace_all(3, load)
        await pilot.pause()
        assert [item.message_id for item in view.items] == [1, 2, 3]
        assert view.selected_id is None


async def test_a_scroll_while_the_turns_are_replaced_loads_no_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The pane grew from 8 to 12 turns and is redrawn; the old turns going scrolls it, which
    # asked for the newer page (9-12) before the new window (1-12) was mounted: twice.
    app = ConversationHost(8, numbered(8)[1])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        remove_children = view.remove_children

        async def removed_then_scrolled(*args: Any) -> None:
            await remove_children(*args)
            await view._load_at_edge()  # what the scroll the removal causes asks for

        monkeypatch.setattr(view, "remove_children", removed_then_scrolled)
        await view.replace_all(12, numbered(12)[1])
        await pilot.pause()
        assert [item.message_id for item in view.items] == list(range(1, 13))
        assert view.window == (0, 12)


async def test_update_message_shows_the_new_state() -> None:
    app = ConversationHost(len(SAMPLE), listed(SAMPLE))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        view.update_message(MessageView(6, "assistant", "It worked this time.", tokens=9))
        await pilot.pause()
        item = view.items[-1]
        assert item.status is MessageStatus.COMPLETE
        marker = item.query_one(".message--status")
        assert marker.has_class("-complete") and not marker.has_class("-failed")
        assert str(item.query_one(MarkdownBlock).content) == "It worked this time."


def _themes() -> list[Theme]:
    shipped, problems = load_themes(shipped_theme_dirs())
    assert problems == []
    return shipped


SHIPPED = [theme.name for theme in _themes()]
SELECTION_THEMES = [*SHIPPED, "textual-dark", "textual-light"]  # textual-dark is the default


@pytest.mark.parametrize("theme", SELECTION_THEMES)
async def test_the_selected_message_stands_out_in_every_theme(theme: str) -> None:
    app = ConversationHost(len(SAMPLE), listed(SAMPLE))
    async with app.run_test(size=(80, 24)) as pilot:
        for shipped in _themes():
            app.register_theme(shipped)
        app.theme = theme
        await pilot.pause()
        view = app.query_one(ConversationView)
        for message_id in (1, 2):  # a user turn and a reply
            item = view.item(message_id)
            assert item is not None
            plain = item.background_colors[1]
            view.select(message_id)
            await pilot.pause()
            selected = item.background_colors[1]
            for system in (None, ColorSystem.EIGHT_BIT):  # truecolor, and 256 colours
                assert apart(plain, selected, system) >= 60, (theme, message_id, system)
            bar_type, bar = item.styles.border_left
            assert bar_type == "thick"
            assert apart(bar, selected, ColorSystem.EIGHT_BIT) >= 60
            view.select(5)  # off again
            await pilot.pause()


async def test_home_and_end_go_to_the_very_first_and_the_newest_message() -> None:
    _, load = numbered(500)
    app = ConversationHost(500, load)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        await pilot.press("home")
        await pilot.pause()
        assert view.selected_id == 1
        assert view.window[0] == 0
        assert view.scroll_y == 0
        await pilot.press("end")
        await pilot.pause()
        assert view.selected_id == 500
        assert view.window[1] == 500


def on_screen(view: ConversationView, item: MessageItem) -> bool:
    """Some of `item` is inside the view's visible area."""
    top, bottom = view.scroll_y, view.scroll_y + view.scrollable_content_region.height
    return item.virtual_region.y < bottom and item.virtual_region.bottom > top


async def test_reveal_mounts_a_far_up_message_selects_it_and_scrolls_to_it() -> None:
    calls, load = numbered(10_000)
    app = ConversationHost(10_000, load)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(ConversationView)
        assert await view.reveal(1_235, 1_234)
        item = view.item(1_235)
        assert item is not None and view.selected_id == 1_235 and item.has_class("-selected")
        await until(pilot, lambda: on_screen(view, item))
        start, end = view.window
        assert start <= 1_234 < end and end - start <= ConversationView.MAX_MOUNTED
        # Only the pages around it were read, not the 8,700 messages in between.
        assert sum(limit for _, limit in calls) < 200
        # A message already mounted is selected where it is, nothing is read.
        read = len(calls)
        assert await view.reveal(1_236, 1_235)
        assert view.selected_id == 1_236 and len(calls) == read
        assert not await view.reveal(99_999, 99_998)
