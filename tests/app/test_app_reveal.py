"""A search hit opened (the switcher's message hits, the find bar) is the turn selected and
the turn on show, wherever it is in a long conversation and whatever the terminal's size."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from textual.pilot import Pilot

from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.conversations import ConversationSwitcher
from ctxchat.tui.widgets.conversation import ConversationView

from .app_harness import MakeApp, exchange, seed, settle, until

TOTAL = 240
# Far up, near the top (the window starts short of the oldest turn), in the middle, near
# the newest, and each again from the other side.
HITS = (22, 231, 5, 120, 238)


def rich_reply(number: int) -> str:
    """A reply of several blocks whose height depends on the width (wrapped paragraphs, a
    list, code): turns laid out again once drawn, as real replies are."""
    words = " ".join(f"word{n}" for n in range(20 + number % 40))
    return (
        f"## Answer {number}\n\n{words}\n\n- first point, {words}\n- second point\n\n"
        f"```python\nprint({number})\n```\n\nIn short: {words}."
    )


def conversation_with_hits(app: CtxChatApp) -> list[int]:
    """The open conversation: `TOTAL` messages, those at `HITS` naming a zebra; every
    message id, oldest first."""
    turns = [
        (role, text if role == "user" else rich_reply(number))
        for number, (role, text) in enumerate(exchange(TOTAL // 2))
    ]
    for offset in HITS:
        turns[offset] = (turns[offset][0], f"Message {offset} sees a zebra.")
    stored = seed(
        app.workspace.store, turns, conversation_id=app.conversation_screen.session.stored_id
    )
    return [message.id for message in stored]


def visible_ids(view: ConversationView) -> list[int]:
    """The turns the view shows now, whole or in part."""
    top, bottom = view.scroll_y, view.scroll_y + view.scrollable_content_region.height
    return [
        item.message_id
        for item in view.items
        if item.virtual_region.y < bottom and item.virtual_region.bottom > top
    ]


def is_selected(view: ConversationView, message_id: int) -> bool:
    return view.selected_id == message_id


async def quiet(pilot: Pilot[Any]) -> None:
    """Let every refresh, scroll and page load the reveal started run to its end: until a
    settled app shows the same turns, at the same place, twice in a row."""
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    view = app.conversation_screen.conversation_view
    shown: object = None
    while True:
        await settle(pilot)
        now = (view.window, view.scroll_y, view.virtual_size, tuple(visible_ids(view)))
        if now == shown:
            return
        shown = now


SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 45), id="160x45")]


@pytest.mark.parametrize("size", SIZES)
async def test_each_find_hit_is_the_turn_on_show(make_app: MakeApp, size: tuple[int, int]) -> None:
    app, _ = make_app()
    ids = conversation_with_hits(app)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        view = app.conversation_screen.conversation_view
        await pilot.press("ctrl+f", *"zebra")
        # Hits count from the newest; enter goes up (older), shift+enter down, wrapping.
        newest_first = sorted(HITS, reverse=True)
        place = 0
        for key in ["enter"] * (len(HITS) + 1) + ["shift+enter"] * 2:
            await pilot.press(key)
            place += 1 if key == "enter" else -1
            offset = newest_first[(place - 1) % len(HITS)]
            await until(pilot, functools.partial(is_selected, view, ids[offset]))
            await quiet(pilot)
            assert ids[offset] in visible_ids(view), (offset, visible_ids(view), view.window)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("offset", [22, 231])
async def test_a_switcher_hit_opens_on_show(
    make_app: MakeApp, size: tuple[int, int], offset: int
) -> None:
    app, _ = make_app()
    here = app.conversation_screen.session.stored_id
    ids = conversation_with_hits(app)
    other = seed(app.workspace.store, exchange(3), title="Elsewhere")[0].conversation_id
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await app.conversation_screen.open_conversation(other)
        await settle(pilot)
        await pilot.press("ctrl+l", *f"Message {offset} sees")
        switcher = app.screen
        assert isinstance(switcher, ConversationSwitcher)
        await until(pilot, lambda: switcher.visible_ids == [here])
        await pilot.press("enter")
        view = app.conversation_screen.conversation_view
        await until(pilot, lambda: view.selected_id == ids[offset])
        await quiet(pilot)
        assert view.selected_id == ids[offset]
        assert ids[offset] in visible_ids(view), (visible_ids(view), view.window)
