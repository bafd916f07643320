"""The memory panel with many entries: it scrolls, keeps its lines in view, hides the old."""

from __future__ import annotations

import pytest
from textual import events
from textual.geometry import Region
from textual.widget import Widget

from ctxchat.core.memory import MemoryKind
from ctxchat.store import Store
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.widgets.memory_panel import MemoryPanel

from .app_harness import MakeApp, memory_refs, settle

HYPOTHESIS = "The roses fail because of the north wind."


def many_entries(store: Store, conversation_id: int | None) -> dict[str, int]:
    """25 entries: 22 current (the first a hypothesis, the last the conversation's own), 2
    superseded, 1 excluded."""
    ids = {"hypothesis": store.memory.add_memory(MemoryKind.HYPOTHESIS, HYPOTHESIS).id}
    for number in range(18):
        store.memory.add_memory(MemoryKind.FACT, f"Bed {number} holds plants of kind {number}.")
    ids["superseded"] = store.memory.add_memory(MemoryKind.FACT, "Dug in spring.", key="dug").id
    store.memory.add_memory(MemoryKind.FACT, "Dug in autumn.", key="dug")
    store.memory.add_memory(MemoryKind.FACT, "Watered daily.", key="water")
    store.memory.add_memory(MemoryKind.FACT, "Watered weekly.", key="water")
    ids["excluded"] = store.memory.add_memory(MemoryKind.FACT, "Grows potatoes.", enabled=False).id
    store.memory.add_memory(MemoryKind.FACT, "Wants a pond.", conversation_id=conversation_id)
    return ids


def visible(app: CtxChatApp, widget: Widget) -> Region:
    """The part of `widget` drawn on the screen."""
    return widget.region.intersection(app.screen.region)


@pytest.mark.parametrize("size", [(160, 45), (80, 24)])
async def test_the_panel_scrolls_and_keeps_its_lines_in_view(
    make_app: MakeApp, size: tuple[int, int]
) -> None:
    app, _ = make_app(extra="[memory]\nhypothesis_turns = 0\n")
    many_entries(app.workspace.store, app.conversation_screen.session.conversation_id)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        if size[0] < 110:
            await pilot.press("ctrl+b")  # the context side, hidden on a narrow screen
        await pilot.press("f6")
        await settle(pilot)
        panel = app.query_one("#memory", MemoryPanel)
        listing = panel.option_list
        header = panel.query_one(".memory-panel--header")
        detail = panel.query_one(".memory-panel--detail")
        assert len(panel.entries) == 25
        assert listing.max_scroll_y > 0
        # The first entry whole, the header above the list and the line under it readable.
        first = listing.region
        assert visible(app, header).height == header.region.height > 0
        assert visible(app, detail).height == detail.region.height > 0
        assert panel.detail_text == "memory:1: typed by hand"
        assert first.height >= 4  # the hypothesis: badge line and text, at least

        await pilot.press("end")
        await settle(pilot)
        assert panel.highlighted_entry is not None
        assert panel.highlighted_entry.text == "Wants a pond."
        assert listing.scroll_y == listing.max_scroll_y
        assert visible(app, detail).height == detail.region.height > 0

        await pilot.press("home")
        await settle(pilot)
        assert listing.scroll_y == 0
        # The mouse wheel scrolls the list too.
        x, y = listing.region.offset
        for _ in range(3):
            listing.post_message(
                events.MouseScrollDown(listing, 1, 1, 0, 1, 0, False, False, False, x + 1, y + 1)
            )
        await settle(pilot)
        assert listing.scroll_y > 0


async def test_hide_and_show_the_left_out_entries(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    ids = many_entries(store, app.conversation_screen.session.conversation_id)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        await settle(pilot)
        panel = app.query_one("#memory", MemoryPanel)
        header = panel.query_one(".memory-panel--header")
        sent = memory_refs(app.conversation_screen.last_plan)
        assert (len(panel.entries), panel.hidden_count) == (25, 0)

        await pilot.press("shift+left")
        await settle(pilot)
        shown = {entry.id for entry in panel.entries}
        assert (len(shown), panel.hidden_count) == (22, 3)
        assert ids["superseded"] not in shown and ids["excluded"] not in shown
        assert "25 entries · 3 hidden" in str(header.render())
        # Hiding is the panel's: the request is the same.
        assert memory_refs(app.conversation_screen.last_plan) == sent

        # An entry excluded while they are hidden leaves the list at once.
        await pilot.press("home", "ctrl+x")
        await settle(pilot)
        assert panel.hidden_count == 4
        assert ids["hypothesis"] not in {entry.id for entry in panel.entries}

        await pilot.press("shift+left")
        await settle(pilot)
        assert (len(panel.entries), panel.hidden_count) == (25, 0)
        assert "hidden" not in str(header.render())
