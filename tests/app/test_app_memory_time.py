"""Memory over time in the app: supersession and restore, flagged hypotheses, the source of an
entry, and the "used" estimate after a reply."""

from __future__ import annotations

from textual.widgets import Static, TextArea

from ctxchat.core.memory import MemoryKind
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.memory_editor import MemoryEditor
from ctxchat.tui.widgets.conversation import ConversationView
from ctxchat.tui.widgets.layer_panel import ContextPanels
from ctxchat.tui.widgets.memory_panel import MemoryPanel

from .app_harness import SIZE, MakeApp, memory_refs, seed, settle, typed, until


def panel_of(app: CtxChatApp) -> MemoryPanel:
    return app.query_one("#memory", MemoryPanel)


async def test_the_reply_marks_the_entries_it_used_with_the_evidence(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    store = app.workspace.store
    database = store.memory.add_memory(MemoryKind.FACT, "The service runs on PostgreSQL 16.")
    store.memory.add_memory(MemoryKind.FACT, "The frontend is written in Svelte.")
    server.script("Since production runs PostgreSQL 16, add a partial index.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "How do I speed up the query?")
        await pilot.press("enter")
        await settle(pilot)
        panel = panel_of(app)
        await until(pilot, lambda: database.ref in panel.notes.used)
        assert set(panel.notes.used) == {database.ref}
        # Never sent to the model: the next request holds no trace of it.
        assert "used" not in str(server.requests[-1]["messages"])
        panels = app.query_one("#context", ContextPanels)
        tooltip = str(panels.panels[next(iter(panels.panels))].tooltip or "")
        assert "used" not in tooltip  # the system layer holds nothing used
        detail = panel.query_one(".memory-panel--detail")
        assert not detail.display  # shown only while the list has focus
        await pilot.press("f6")
        assert detail.display
        assert panel.highlighted_entry == store.memory.get_memory(database.id)
        assert "used by the last reply (estimate): shares" in panel.detail_text
        assert '"postgresql"' in panel.detail_text


async def test_restoring_an_excluded_entry_says_it_stays_out(make_app: MakeApp) -> None:
    app, notes = make_app()
    store = app.workspace.store
    old = store.memory.add_memory(MemoryKind.CONSTRAINT, "Budget is 5,000 EUR.", key="budget")
    store.memory.update_memory(old.id, enabled=False)
    new = store.memory.add_memory(MemoryKind.CONSTRAINT, "Budget is 6,000 EUR.", key="budget")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6", "ctrl+z")  # the old, excluded one comes back
        await settle(pilot)
        assert store.memory.get_memory(new.id).superseded_by == old.id
        assert memory_refs(app.conversation_screen.last_plan) == []
        assert (
            f"Restored memory #{old.id}: it is current again, but left out of requests "
            "(excluded by you)."
        ) in notes.messages


async def test_r_restores_a_superseded_entry_into_the_request(make_app: MakeApp) -> None:
    app, notes = make_app()
    store = app.workspace.store
    old = store.memory.add_memory(MemoryKind.FACT, "The service runs on MySQL 8.", key="database")
    new = store.memory.add_memory(
        MemoryKind.FACT, "The service runs on PostgreSQL 16.", key="database"
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert memory_refs(app.conversation_screen.last_plan) == [new.ref]
        await pilot.press("f6", "ctrl+z")  # the first entry is the old, superseded one
        await settle(pilot)
        assert memory_refs(app.conversation_screen.last_plan) == [old.ref]
        assert store.memory.get_memory(new.id).superseded_by == old.id
        assert (
            f"Restored memory #{old.id}: it is current again and goes into requests while "
            "the memory budget has room."
        ) in notes.messages
        # From the palette too: the one superseded last comes back.
        app.conversation_screen.composer.focus()
        await app.conversation_screen.run_action("route('memory.restore')")
        await settle(pilot)
        assert memory_refs(app.conversation_screen.last_plan) == [new.ref]


async def test_n_writes_a_new_version_and_keeps_the_old_as_superseded(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    old = store.memory.add_memory(MemoryKind.FACT, "Deploys happen on Fridays.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6", "ctrl+u")
        editor = app.screen
        assert isinstance(editor, MemoryEditor)
        text = editor.query_one("#memory-text", TextArea)
        text.clear()
        text.insert("Deploys happen on Mondays.")
        await pilot.press("ctrl+s")
        await settle(pilot)
        newer = store.memory.list_memory()[-1]
        assert newer.text == "Deploys happen on Mondays."
        assert store.memory.get_memory(old.id).superseded_by == newer.id
        assert memory_refs(app.conversation_screen.last_plan) == [newer.ref]


async def test_a_hypothesis_waiting_too_long_is_flagged_then_confirmed_or_kept(
    make_app: MakeApp,
) -> None:
    app, _ = make_app(extra="[memory]\nhypothesis_turns = 2\n")
    store = app.workspace.store
    first = store.memory.add_memory(MemoryKind.HYPOTHESIS, "The slowdown comes from the ORM.")
    second = store.memory.add_memory(MemoryKind.HYPOTHESIS, "Deploys fail on Mondays.")
    conversation = app.conversation_screen.session.stored_id
    seed(
        store, [("user", "one"), ("assistant", "ok"), ("user", "two")], conversation_id=conversation
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = panel_of(app)
        assert [panel.notes.flagged(e) for e in panel.entries] == [2, 2]
        await pilot.press("f6", "ctrl+y")  # confirm the first as a fact
        await settle(pilot)
        assert store.memory.get_memory(first.id).kind is MemoryKind.FACT
        await pilot.press("down", "ctrl+w")  # keep the second waiting: its clock starts again
        await settle(pilot)
        kept = store.memory.get_memory(second.id)
        assert (kept.kind, kept.turn) == (MemoryKind.HYPOTHESIS, 2)
        assert [panel.notes.flagged(e) for e in panel.entries] == [None, None]
        # Never promoted or deleted on its own.
        assert len(store.memory.list_memory()) == 2


async def test_ctrl_j_shows_the_message_an_entry_came_from(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    turns = [("user" if i % 2 == 0 else "assistant", f"turn {i} about the plan") for i in range(80)]
    messages = seed(store, turns, conversation_id=app.conversation_screen.session.stored_id)
    source = messages[2]
    store.memory.add_memory(MemoryKind.FACT, "An early decision.", source=f"message:{source.id}")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.query_one(ConversationView)
        assert view.item(source.id) is None  # far above the newest turns
        await pilot.press("f6", "ctrl+j")
        await settle(pilot)
        assert view.selected_id == source.id
        assert app.focused is view


async def test_the_editor_tells_where_the_entry_came_from(make_app: MakeApp) -> None:
    app, _ = make_app()
    entry = app.workspace.store.memory.add_memory(
        MemoryKind.FACT, "Deploys happen on Fridays.", source="messages:4-9"
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6", "ctrl+e")
        editor = app.screen
        assert isinstance(editor, MemoryEditor)
        note = str(editor.query_one("#memory-note", Static).content)
        assert note == f"memory #{entry.id}, extracted from messages #4–#9."
