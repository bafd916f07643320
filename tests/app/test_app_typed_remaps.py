"""A `[keys]` remap onto a letter where typing goes to the composer is told, and not applied."""

from __future__ import annotations

from ctxchat.core.memory import MemoryKind
from ctxchat.tui.screens.memory_editor import MemoryEditor
from ctxchat.tui.widgets.memory_panel import MemoryPanel

from .app_harness import SIZE, MakeApp, burst, settle, until


async def test_a_letter_remapped_onto_the_memory_panel_is_told_and_typing_still_types(
    make_app: MakeApp,
) -> None:
    app, notes = make_app(extra='[keys]\n"memory.add" = "a"\n"mode.toggle" = "f9"\n')
    config = app.workspace.loaded.path
    app.workspace.store.memory.add_memory(MemoryKind.FACT, "Deploys happen on Fridays.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert notes.of("warning") == [
            f'{config}:3: keys."memory.add": "a" would never fire: a key typed on the main '
            "screen goes to the composer; use a ctrl+ or F key"
        ]
        await pilot.press("f6")
        assert app.query_one("#memory", MemoryPanel).option_list.has_focus
        burst(pilot, "a plan")
        await until(pilot, lambda: app.conversation_screen.composer.text == "a plan")
        await pilot.press("f6", "ctrl+a")  # the shipped key still adds
        await until(pilot, lambda: isinstance(app.screen, MemoryEditor))
