"""Layer panels: contents and counts, left-out items with reasons, mode switches, live updates."""

from collections.abc import Callable
from typing import Any

import pytest
from textual import events
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import Static

from ctxchat.core.attribution import Use
from ctxchat.core.budget import Budget, Layer
from ctxchat.core.memory import MemoryEntry, MemoryKind, Mode
from ctxchat.tui.widgets.budget_bar import BudgetBar
from ctxchat.tui.widgets.layer_panel import ContextPanels, LayerPanel, mode_change

from .widget_hosts import ENTRIES, HostApp, make_plan, rendered


def panel_text(panels: ContextPanels, layer: Layer) -> str:
    panel = panels.panels[layer]
    return "\n".join(rendered(child) for child in panel.query(Static))


def line_of(text: str, needle: str) -> str:
    return next(line for line in text.splitlines() if needle in line)


async def test_each_layer_shows_its_counts_items_and_left_out_reasons() -> None:
    plan = make_plan(mode=Mode.OBJECTIVE)
    app = HostApp(lambda: [ContextPanels()])
    async with app.run_test(size=(100, 80)) as pilot:
        panels = app.query_one(ContextPanels)
        panels.update_plan(plan, window_source="server")
        await pilot.pause()
        memory = plan.layer(Layer.MEMORY)
        text = panel_text(panels, Layer.MEMORY)
        assert f"memory · {memory.tokens} tokens · cap 12,390 (10%) · 3 left out" in text
        assert "memory:2" in line_of(text, "Everything must work offline.")
        assert "excluded: objective mode leaves out preferences" in text
        assert "excluded: objective mode leaves out hypotheses" in text
        assert "excluded by you" in line_of(text, "excluded by")
        working = panel_text(panels, Layer.WORKING)
        assert "target 74,342 (60%)" in working
        assert "messages:1-12" in working and "in summary v3" in working
        assert "excluded: failed reply" in working
        assert "user: message 13 about the database migration" in working
        assert "v3, messages 1-12" in panel_text(panels, Layer.SUMMARY)
        inputs = panel_text(panels, Layer.INPUT)
        assert "input · 12 tokens · counted first, never cut" in inputs
        assert "What did we decide?" in inputs
        # The plan's own word (`reply-primer`, kept in `--json`) is said in plain words.
        assert "the start of the reply, which the chat template adds" in line_of(
            inputs, "reply-primer"
        )
        assert "mode  objective  facts and constraints only" in rendered(
            panels.query_one(".context-panels--mode", Static)
        )


async def test_dropped_over_budget_and_layer_notes() -> None:
    entries = [
        MemoryEntry(i, MemoryKind.FACT, f"Fact number {i} " + "word " * 30, importance=10 - i)
        for i in range(1, 6)
    ]
    plan = make_plan(memory=entries, budget=Budget(2_000, 1_000), messages=0)
    app = HostApp(lambda: [ContextPanels()])
    async with app.run_test(size=(100, 60)) as pilot:
        panels = app.query_one(ContextPanels)
        panels.update_plan(plan, window_source="config")
        await pilot.pause()
        text = panel_text(panels, Layer.MEMORY)
        assert text.count("dropped: over the memory budget") == 3


async def test_a_mode_switch_shows_what_it_added_or_removed() -> None:
    personal = make_plan(mode=Mode.PERSONALIZATION)
    objective = make_plan(mode=Mode.OBJECTIVE)
    saved = personal.tokens - objective.tokens
    assert saved > 0
    app = HostApp(lambda: [ContextPanels()])
    async with app.run_test(size=(100, 80)) as pilot:
        panels = app.query_one(ContextPanels)
        change_line = panels.query_one(".context-panels--change", Static)
        panels.update_plan(personal, window_source="server")
        await pilot.pause()
        assert not change_line.display

        panels.update_plan(objective, personal, window_source="server")
        await pilot.pause()
        assert change_line.display
        assert f"mode objective: \u22122 entries, \u2212{saved} tokens" in rendered(change_line)
        memory = panel_text(panels, Layer.MEMORY)
        assert line_of(memory, "memory:3").startswith("\u2212memory:3")
        assert line_of(memory, "memory:4").startswith("\u2212memory:4")

        # Typing afterwards keeps the switch's effect on show.
        typing = make_plan(mode=Mode.OBJECTIVE, new_input="What did we decide? And")
        panels.update_plan(typing, objective, window_source="server")
        await pilot.pause()
        assert f"\u2212{saved} tokens" in rendered(change_line)

        panels.update_plan(personal, objective, window_source="server")
        await pilot.pause()
        assert f"mode personalization: +2 entries, +{saved} tokens" in rendered(change_line)
        memory = panel_text(panels, Layer.MEMORY)
        assert line_of(memory, "Prefers short answers.").startswith("+memory:3")


def test_mode_change_counts_entries_both_ways() -> None:
    before = make_plan(memory=ENTRIES[:2], mode=Mode.OBJECTIVE)
    after = make_plan(memory=[ENTRIES[0], ENTRIES[2]], mode=Mode.PERSONALIZATION)
    change = mode_change(before, after)
    assert (change.added, change.removed) == (frozenset({"memory:3"}), frozenset({"memory:2"}))
    assert change.describe().startswith("mode personalization: +1 / \u22121 entries, ")
    same = mode_change(before, before)
    assert same.describe() == "mode objective: no entries change, 0 tokens"


def counting(
    updates: dict[Layer, int], layer: Layer, update: Callable[..., None]
) -> Callable[..., None]:
    def counted(*args: Any, **kwargs: Any) -> None:
        updates[layer] += 1
        update(*args, **kwargs)

    return counted


@pytest.mark.perf
async def test_typing_updates_the_input_layer_without_remounting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Protects typing from redrawing the side: a keystroke updates the input panel only."""
    app = HostApp(lambda: [ContextPanels()])
    async with app.run_test(size=(100, 80)) as pilot:
        panels = app.query_one(ContextPanels)
        panels.update_plan(make_plan(new_input=""), window_source="server")
        await pilot.pause()
        widgets = list(app.query("*"))
        updates: dict[Layer, int] = dict.fromkeys(Layer, 0)
        for layer, panel in panels.panels.items():
            body = panel.query_one(".layer-panel--body", Static)
            monkeypatch.setattr(body, "update", counting(updates, layer, body.update))

        typed = ""
        for character in "What did we decide?":
            typed += character
            panels.update_plan(make_plan(new_input=typed), window_source="server")
        await pilot.pause()

        assert list(app.query("*")) == widgets
        assert updates[Layer.SYSTEM] == updates[Layer.MEMORY] == updates[Layer.SUMMARY] == 0
        assert updates[Layer.INPUT] == len(typed)
        final = make_plan(new_input=typed)
        assert f"input · {final.layer(Layer.INPUT).tokens} tokens" in panel_text(
            panels, Layer.INPUT
        )
        assert f"used {final.tokens:,} of" in rendered(app.query_one(BudgetBar))


async def test_text_in_layers_is_never_markup() -> None:
    from ctxchat.core.assemble import assemble_context
    from ctxchat.core.history import HistoryMessage

    from .widget_hosts import COUNTER

    plan = assemble_context(
        budget=Budget(8_000, 1_000),
        counter=COUNTER,
        mode=Mode.PERSONALIZATION,
        system_prompt="[bold]You are[/bold] \x1b[31mred\x1b[0m [/INST]",
        memory=[MemoryEntry(1, MemoryKind.FACT, "[@click=app.quit]x[/] \x1b]0;title\x07")],
        summary=None,
        history=[HistoryMessage(1, "user", "[red]hi[/red]\x1b[2J", 9)],
        new_input="[b]typed[/b]",
    )
    app = HostApp(lambda: [ContextPanels()])
    async with app.run_test(size=(100, 60)) as pilot:
        panels = app.query_one(ContextPanels)
        panels.update_plan(plan, window_source="server")
        await pilot.pause()
        assert "[bold]You are[/bold] red [/INST]" in panel_text(panels, Layer.SYSTEM)
        assert "[@click=app.quit]x[/]" in panel_text(panels, Layer.MEMORY)
        assert "user: [red]hi[/red]" in panel_text(panels, Layer.WORKING)
        assert "[b]typed[/b]" in panel_text(panels, Layer.INPUT)
        assert app.is_running


@pytest.mark.parametrize("key", ["enter", "space"])
async def test_a_layer_panel_folds_from_the_keyboard(key: str) -> None:
    app = HostApp(lambda: [ContextPanels()])
    async with app.run_test(size=(100, 60)) as pilot:
        panels = app.query_one(ContextPanels)
        panels.update_plan(make_plan(), window_source="server")
        panel = panels.panels[Layer.WORKING]
        panel.focus()
        await pilot.press(key)
        assert panel.collapsed
        assert not panel.query_one(".layer-panel--body", Static).display
        assert (
            rendered(panel.query_one(".layer-panel--header", Static))
            .lstrip()
            .startswith("▸ working")
        )
        await pilot.press(key)
        assert not panel.collapsed
        assert panel.query_one(".layer-panel--body", Static).display


async def planned_panels(pilot: Pilot[None]) -> ContextPanels:
    """The host's panels, showing the realistic plan."""
    panels = pilot.app.query_one(ContextPanels)
    panels.update_plan(make_plan(), window_source="server")
    await pilot.pause()
    return panels


def part(panel: LayerPanel, name: str) -> Static:
    """The panel's `header` or `body`."""
    return panel.query_one(f".layer-panel--{name}", Static)


async def test_a_click_on_the_header_folds_and_unfolds_a_layer() -> None:
    app = HostApp(lambda: [ContextPanels()])
    async with app.run_test(size=(100, 60)) as pilot:
        panel = (await planned_panels(pilot)).panels[Layer.SYSTEM]
        header, body = part(panel, "header"), part(panel, "body")
        assert rendered(header).startswith("▾ system") and body.display

        assert await pilot.click(header)
        await pilot.pause()
        assert panel.collapsed and not body.display
        assert rendered(header).startswith("▸ system")
        assert not panel.has_focus  # a click folds; it takes no focus from where typing goes

        assert await pilot.click(header)
        await pilot.pause()
        assert not panel.collapsed and body.display
        assert rendered(header).startswith("▾ system")


async def test_a_click_on_the_body_does_not_fold() -> None:
    app = HostApp(lambda: [ContextPanels()])
    async with app.run_test(size=(100, 60)) as pilot:
        panel = (await planned_panels(pilot)).panels[Layer.SYSTEM]
        assert await pilot.click(part(panel, "body"))
        await pilot.pause()
        assert not panel.collapsed


async def test_a_folded_layer_stays_folded_through_new_plans() -> None:
    app = HostApp(lambda: [ContextPanels()])
    async with app.run_test(size=(100, 60)) as pilot:
        panels = await planned_panels(pilot)
        panel = panels.panels[Layer.WORKING]
        assert await pilot.click(part(panel, "header"))
        for draft in ("W", "Wh", "What changed?"):
            panels.update_plan(make_plan(new_input=draft), window_source="server")
            await pilot.pause()
        panels.update_plan(make_plan(mode=Mode.OBJECTIVE), window_source="server")
        await pilot.pause()
        assert panel.collapsed and not part(panel, "body").display
        assert rendered(part(panel, "header")).startswith("▸ working")


def test_layer_panel_binding_has_an_id_and_tooltip() -> None:
    for binding in Binding.make_bindings(LayerPanel.BINDINGS):
        assert binding.id and binding.tooltip


async def test_a_long_layer_lists_its_newest_items_and_counts_the_rest() -> None:
    """Thousands of working messages become one summary line and the newest 60."""
    from ctxchat.core.plan import LayerPlan, PlanItem
    from ctxchat.tui.widgets.layer_panel import SHOWN_ITEMS

    items = tuple(PlanItem(f"message:{i}", 10, "user") for i in range(1, 2_001))
    layer = LayerPlan(Layer.WORKING, 100_000, 0.6, 20_000, items)
    app = HostApp(lambda: [LayerPanel(Layer.WORKING)])
    async with app.run_test(size=(100, 80)) as pilot:
        panel = app.query_one(LayerPanel)
        panel.update_layer(layer)
        await pilot.pause()
        text = "\n".join(rendered(child) for child in panel.query(Static))
    assert SHOWN_ITEMS == 60
    assert "… 1,940 earlier items, 19,400 tokens" in text
    assert "message:2000" in text and "message:1941" in text
    assert "message:1940 " not in text


async def test_what_the_last_reply_used_is_marked_with_its_evidence_on_hover() -> None:
    plan = make_plan()
    app = HostApp(lambda: [ContextPanels()])
    async with app.run_test(size=(100, 80)) as pilot:
        panels = app.query_one(ContextPanels)
        panels.update_plan(plan, window_source="server")
        panels.mark_used(
            {
                "memory:1": Use("memory:1", ("postgresql",), 0.5),
                "summary:v3#1": Use("summary:v3#1", ("postgresql", "chose"), 0.8),
            }
        )
        await pilot.pause()
        memory = panel_text(panels, Layer.MEMORY)
        assert "◆ used" in line_of(memory, "PostgreSQL 16")
        assert "◆ used" not in line_of(memory, "work offline")
        summary = panel_text(panels, Layer.SUMMARY)
        assert "◆ used: line 1" in summary
        tooltip = str(panels.panels[Layer.SUMMARY].tooltip)
        assert tooltip.startswith("What the last reply most likely used (an estimate):")
        assert 'summary:v3#1: shares "postgresql", "chose"' in tooltip
        assert panels.panels[Layer.SYSTEM].tooltip is None


async def test_the_task_and_files_panels_show_only_while_their_layer_holds_something() -> None:
    from ctxchat.core.adaptive import AdaptivePolicy
    from ctxchat.core.assemble import assemble_context
    from ctxchat.core.files import AttachedFile, sendable_text, split_into_parts
    from ctxchat.core.task import TaskState

    from .widget_hosts import COUNTER

    text = sendable_text("The cluster is pg16-a.")
    notes = AttachedFile(
        4, "notes.md", text, COUNTER.count_text(text), split_into_parts(text, COUNTER, 500)
    )
    with_both = assemble_context(
        budget=Budget(128_000, 4_096),
        counter=COUNTER,
        mode=Mode.PERSONALIZATION,
        system_prompt="Be brief.",
        memory=[],
        summary=None,
        history=[],
        new_input="Next?",
        adaptive=AdaptivePolicy(task_share=0.05, files_share=0.25),
        task=TaskState("Migrate billing").with_step("Dump the database"),
        files=[notes],
    )
    app = HostApp(lambda: [ContextPanels()])
    async with app.run_test(size=(100, 80)) as pilot:
        panels = app.query_one(ContextPanels)
        panels.update_plan(make_plan(), window_source="config")
        await pilot.pause()
        assert not panels.panels[Layer.TASK].display and not panels.panels[Layer.FILES].display
        assert "task" not in rendered(panels.budget_bar)
        panels.update_plan(with_both, window_source="config")
        await pilot.pause()
        assert panels.panels[Layer.TASK].display and panels.panels[Layer.FILES].display
        task = panel_text(panels, Layer.TASK)
        assert "task · 51 tokens · cap 6,195 (5%)" in task
        assert "[pending] Dump the database" in task
        assert "notes.md: whole file, 1 line," in panel_text(panels, Layer.FILES)
        assert "■ task 51 " in rendered(panels.budget_bar)
        assert "■ files " in rendered(panels.budget_bar)


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_a_long_layer_scrolls_on_its_own(size: tuple[int, int]) -> None:
    """A working layer taller than its share of the terminal shows a part of its items and
    scrolls them (arrows and page keys with the panel focused, the wheel over it), while the
    layers under it stay where they are."""
    plan = make_plan(messages=80)
    app = HostApp(lambda: [ContextPanels()])
    async with app.run_test(size=size) as pilot:
        panels = app.query_one(ContextPanels)
        panels.update_plan(plan, window_source="server")
        await pilot.pause()
        working = panels.panels[Layer.WORKING]
        box = working.body_scroll
        assert box.outer_size.height <= size[1] * 40 // 100
        assert box.max_scroll_y > 0
        working.focus()
        await pilot.press("down")
        assert box.scroll_y == 1
        await pilot.press("pagedown")
        assert box.scroll_y == 1 + box.scrollable_content_region.height - 1
        await pilot.press("pageup", "up")
        assert box.scroll_y == 0
        below = panels.panels[Layer.INPUT].region.y
        await pilot.hover(box)
        box.post_message(
            events.MouseScrollDown(
                box,
                1,
                1,
                0,
                0,
                0,
                False,
                False,
                False,
                screen_x=box.region.x + 1,
                screen_y=box.region.y + 1,
            )
        )
        await pilot.pause()
        assert box.scroll_y > 0
        assert panels.panels[Layer.INPUT].region.y == below
