"""Where a memory entry applies: switched off for one conversation only, on in the others."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, OptionList, RadioButton, RadioSet, TextArea

from ctxchat.core.budget import Layer
from ctxchat.core.memory import MemoryEntry, MemoryKind
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.memory_editor import MemoryEditor
from ctxchat.tui.screens.project_dialog import ProjectDialog
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
    entry = store.memory.add_memory(MemoryKind.FACT, SOIL)
    server.script("Noted.", "Noted again.", "Sure.", "Back on.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert SOIL in await sent_memory(pilot, server, "What should I plant?")
        garden = app.conversation_screen.session.conversation_id
        assert garden is not None

        await pilot.press("f6", "ctrl+d")
        await settle(pilot)
        assert store.memory.get_memory(entry.id).off_in == {garden}
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
        assert store.memory.get_memory(entry.id).enabled

        await pilot.press("ctrl+n")
        await settle(pilot)
        assert memory_refs(app.conversation_screen.last_plan) == [entry.ref]
        assert SOIL in await sent_memory(pilot, server, "A new garden: what soil?")
        assert store.memory.get_memory(entry.id).off_in == {garden}

        await app.conversation_screen.open_conversation(garden)
        await settle(pilot)
        assert memory_refs(app.conversation_screen.last_plan) == []
        await pilot.press("f6", "ctrl+d")
        await settle(pilot)
        assert store.memory.get_memory(entry.id).off_in == frozenset()
        assert memory_refs(app.conversation_screen.last_plan) == [entry.ref]
        assert SOIL in await sent_memory(pilot, server, "Back in the garden.")
        assert notes.of("error") == []


async def test_a_conversations_own_entry_has_no_off_here_key(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    entry = store.memory.add_memory(
        MemoryKind.FACT, SOIL, conversation_id=app.conversation_screen.session.conversation_id
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6", "ctrl+d")
        await settle(pilot)
        panel = app.query_one("#memory", MemoryPanel)
        assert panel.check_action("switch_here", ()) is False
        assert store.memory.get_memory(entry.id).off_in == frozenset()
        assert memory_refs(app.conversation_screen.last_plan) == [entry.ref]


CLAY = "The allotment soil is clay."


async def move_with_the_palette(
    pilot: Pilot[Any], choose: Callable[[ProjectDialog], Awaitable[None]]
) -> None:
    """Open "project: move this conversation…" and make a choice in its dialog."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await pilot.press(*"project: move")
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, ProjectDialog))
    dialog = app.screen
    assert isinstance(dialog, ProjectDialog)
    await choose(dialog)
    await until(pilot, lambda: not isinstance(app.screen, ProjectDialog))
    await settle(pilot)


async def test_a_projects_entries_go_only_to_its_conversations(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    store = app.workspace.store
    server.script(*["ok"] * 4)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert CLAY not in await sent_memory(pilot, server, "Beds?")
        beds = app.conversation_screen.session.conversation_id
        assert beds is not None

        async def new_name(dialog: ProjectDialog) -> None:
            dialog.query_one("#project-name", Input).focus()
            await pilot.press(*"Allotment", "enter")

        await move_with_the_palette(pilot, new_name)
        (project,) = store.projects.projects()
        assert (project.name, project.conversations) == ("Allotment", 1)
        entry = store.memory.add_memory(MemoryKind.FACT, CLAY, project_id=project.id)
        app.conversation_screen.session.cache.memory_changed()  # the planner follows
        await settle(pilot)
        panel = app.query_one("#memory", MemoryPanel)
        assert [e.scope_words for e in panel.entries] == ["project Allotment"]
        plan = app.conversation_screen.last_plan
        assert plan is not None and memory_refs(plan) == [entry.ref]
        assert "in as entries of project “Allotment”" in plan.layer(Layer.MEMORY).hints[0]
        assert CLAY in await sent_memory(pilot, server, "What grows in clay?")

        await pilot.press("ctrl+n")
        await settle(pilot)
        assert CLAY not in await sent_memory(pilot, server, "Trip to Porto.")

        await app.conversation_screen.open_conversation(beds)
        await settle(pilot)

        async def no_project(dialog: ProjectDialog) -> None:
            assert dialog.query_one(OptionList).highlighted == 1  # where it is now
            await pilot.press("up", "enter")

        await move_with_the_palette(pilot, no_project)
        assert store.projects.conversation_project(beds) is None
        assert memory_refs(app.conversation_screen.last_plan) == []
        assert CLAY not in await sent_memory(pilot, server, "And now?")
        assert notes.of("error") == []


def projects_entry(app: CtxChatApp, name: str) -> tuple[int, MemoryEntry]:
    """Project `name`, the open conversation moved into it, and an entry of that project."""
    store = app.workspace.store
    project = store.projects.create_project(name).id
    garden = app.conversation_screen.session.conversation_id
    assert garden is not None
    store.projects.move_to_project(garden, project)
    return project, store.memory.add_memory(MemoryKind.FACT, CLAY, project_id=project)


async def test_a_new_version_of_a_projects_entry_stays_the_projects(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    project, old = projects_entry(app, "Allotment")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6", "ctrl+u")
        await until(pilot, lambda: isinstance(app.screen, MemoryEditor))
        app.screen.query_one("#memory-text", TextArea).text = "The allotment soil is loam."
        await pilot.press("ctrl+s")
        await settle(pilot)
        new = store.memory.get_memory(old.id + 1)
        assert (new.text, new.project_id, new.conversation_id) == (
            "The allotment soil is loam.",
            project,
            None,
        )
        assert store.memory.get_memory(old.id).superseded_by == new.id
        assert memory_refs(app.conversation_screen.last_plan) == [new.ref]


def editor_scope(app: CtxChatApp) -> str:
    """The scope the memory editor has chosen, as it reads."""
    pressed = app.screen.query_one("#memory-scope", RadioSet).pressed_button
    assert pressed is not None
    return str(pressed.label)


async def test_the_editor_names_a_projects_entrys_project_and_keeps_or_leaves_it(
    make_app: MakeApp,
) -> None:
    app, _ = make_app()
    store = app.workspace.store
    project, entry = projects_entry(app, "Allotment [b]2[/b]")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6", "ctrl+e")
        await until(pilot, lambda: isinstance(app.screen, MemoryEditor))
        assert editor_scope(app) == "project Allotment [b]2[/b]"
        await pilot.press("ctrl+s")  # saved as it is: still the project's
        await until(pilot, lambda: not isinstance(app.screen, MemoryEditor))
        await settle(pilot)
        stored = store.memory.get_memory(entry.id)
        assert (stored.project_id, stored.conversation_id) == (project, None)

        await pilot.press("ctrl+e")
        await until(pilot, lambda: isinstance(app.screen, MemoryEditor))
        app.screen.query_one("#scope-global", RadioButton).value = True
        await pilot.press("ctrl+s")  # every conversation: no longer the project's
        await until(pilot, lambda: not isinstance(app.screen, MemoryEditor))
        await settle(pilot)
        stored = store.memory.get_memory(entry.id)
        assert (stored.project_id, stored.conversation_id) == (None, None)


async def test_ctrl_g_puts_an_entry_in_this_conversations_project_then_here_then_global(
    make_app: MakeApp,
) -> None:
    """In a conversation of a project, the panel's scope key goes global → the project's →
    this conversation's → global; outside a project, global ↔ this conversation."""
    app, _ = make_app()
    store = app.workspace.store
    project = store.projects.create_project("Allotment").id
    garden = app.conversation_screen.session.conversation_id
    assert garden is not None
    store.projects.move_to_project(garden, project)
    entry = store.memory.add_memory(MemoryKind.FACT, CLAY)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.query_one("#memory", MemoryPanel)
        await pilot.press("f6")
        seen: list[tuple[int | None, int | None, str]] = []
        for _ in range(3):
            await pilot.press("ctrl+g")
            await settle(pilot)
            stored = store.memory.get_memory(entry.id)
            seen.append((stored.project_id, stored.conversation_id, panel.entries[0].scope_words))
        assert seen == [
            (project, None, "project Allotment"),
            (None, garden, "this conversation"),
            (None, None, "global"),
        ]
        # Out of the project: straight from global to this conversation.
        store.projects.move_to_project(garden, None)
        app.conversation_screen.session.forget_memory()
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert store.memory.get_memory(entry.id).conversation_id == garden
