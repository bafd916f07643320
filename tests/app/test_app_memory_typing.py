"""Typing while the memory panel has focus types into the composer and changes no entry."""

from __future__ import annotations

from textual import events

from ctxchat.core.memory import MemoryKind
from ctxchat.tui.widgets.memory_panel import MemoryPanel

from .app_harness import SIZE, MakeApp, burst, input_tokens, settle, until

# Every key the panel once acted on (a e d p k s x + - n r c w g o, space, =), in words.
SENTENCE = "a quick note: pinned, kept, deleted + restored - six words, go = done"


async def test_a_burst_typed_on_the_memory_panel_lands_in_the_composer_in_order(
    make_app: MakeApp,
) -> None:
    app, notes = make_app()
    store = app.workspace.store
    store.memory.add_memory(MemoryKind.FACT, "The service runs on PostgreSQL 16.", importance=5)
    store.memory.add_memory(MemoryKind.HYPOTHESIS, "The slowdown comes from the ORM.", importance=5)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = store.memory.list_memory()
        app.conversation_screen.composer.insert("Already typed: ")
        await pilot.press("f6")
        panel = app.query_one("#memory", MemoryPanel)
        assert panel.option_list.has_focus

        burst(pilot, SENTENCE)
        await until(
            pilot, lambda: app.conversation_screen.composer.text == "Already typed: " + SENTENCE
        )
        await settle(pilot)
        assert app.focused is app.conversation_screen.composer
        assert app.screen is app.screen_stack[0]  # no dialog opened (add, edit, delete)
        assert store.memory.list_memory() == before
        assert not panel.sorted_by_use
        assert notes.messages == []


async def test_a_paste_on_the_memory_panel_goes_into_the_composer(make_app: MakeApp) -> None:
    app, _ = make_app()
    app.workspace.store.memory.add_memory(MemoryKind.FACT, "Deploys happen on Fridays.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        pasted = "pasted text\nwith two lines"
        app.post_message(events.Paste(pasted))
        await until(pilot, lambda: app.conversation_screen.composer.text == pasted)
        assert app.focused is app.conversation_screen.composer
        expected = app.conversation_screen.session.count("user", pasted)
        await until(
            pilot, lambda: input_tokens(app.conversation_screen.last_plan) == expected
        )  # planned with it


async def test_the_panels_keys_still_act_and_escape_goes_back(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    entry = store.memory.add_memory(MemoryKind.FACT, "Deploys happen on Fridays.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6", "ctrl+k", "ctrl+x", "shift+up")
        await settle(pilot)
        changed = store.memory.get_memory(entry.id)
        assert (changed.pinned, changed.enabled, changed.importance) == (
            True,
            False,
            entry.importance + 1,
        )
        await pilot.press("escape")
        assert app.focused is app.conversation_screen.composer
