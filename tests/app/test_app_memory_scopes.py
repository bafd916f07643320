"""Where a memory entry applies: switched off for one conversation only, on in the others."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from ctxchat.core.budget import Layer
from ctxchat.core.memory import MemoryKind
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.widgets.memory_panel import MemoryPanel

from .app_harness import SIZE, MakeApp, memory_refs, settle, typed, until

SOIL = "The soil in the garden is heavy clay."


async def sent_memory(pilot: Pilot[Any], server: ScriptedModelServer, text: str) -> str:
    """Send `text` and return the memory message the scripted server received ("" if none)."""
    count = len(server.requests)
    await typed(pilot, text)
    await pilot.press("enter")
    await until(pilot, lambda: len(server.requests) == count + 1)
    await settle(pilot)
    messages = server.requests[-1]["messages"]
    return next((m["content"] for m in messages if "Memory curated" in m["content"]), "")


async def test_switched_off_here_stays_on_in_a_new_conversation(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    store = app.workspace.store
    entry = store.add_memory(MemoryKind.FACT, SOIL)
    server.script("Noted.", "Noted again.", "Sure.", "Back on.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert SOIL in await sent_memory(pilot, server, "What should I plant?")
        garden = app.conversation_screen.session.conversation_id
        assert garden is not None

        await pilot.press("f6", "ctrl+d")
        await settle(pilot)
        assert store.get_memory(entry.id).off_in == {garden}
        panel = app.query_one("#memory", MemoryPanel)
        assert panel.notes.off_here(panel.entries[0])
        plan = app.conversation_screen.last_plan
        assert memory_refs(plan) == []
        assert plan is not None
        assert [(o.ref, o.detail) for o in plan.layer(Layer.MEMORY).left_out] == [
            (entry.ref, "switched off for this conversation")
        ]
        assert SOIL not in await sent_memory(pilot, server, "And now?")
        # Still on everywhere else: excluding it (ctrl+x) is what leaves it out everywhere.
        assert store.get_memory(entry.id).enabled

        await pilot.press("ctrl+n")
        await settle(pilot)
        assert memory_refs(app.conversation_screen.last_plan) == [entry.ref]
        assert SOIL in await sent_memory(pilot, server, "A new garden: what soil?")
        assert store.get_memory(entry.id).off_in == {garden}

        await app.conversation_screen.open_conversation(garden)
        await settle(pilot)
        assert memory_refs(app.conversation_screen.last_plan) == []
        await pilot.press("f6", "ctrl+d")
        await settle(pilot)
        assert store.get_memory(entry.id).off_in == frozenset()
        assert memory_refs(app.conversation_screen.last_plan) == [entry.ref]
        assert SOIL in await sent_memory(pilot, server, "Back in the garden.")
        assert notes.of("error") == []


async def test_a_conversations_own_entry_has_no_off_here_key(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    entry = store.add_memory(
        MemoryKind.FACT, SOIL, conversation_id=app.conversation_screen.session.conversation_id
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6", "ctrl+d")
        await settle(pilot)
        panel = app.query_one("#memory", MemoryPanel)
        assert panel.check_action("switch_here", ()) is False
        assert store.get_memory(entry.id).off_in == frozenset()
        assert memory_refs(app.conversation_screen.last_plan) == [entry.ref]
