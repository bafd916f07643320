"""Curating memory from the keyboard: every key changes the store and the next request."""

from __future__ import annotations

from textual.widgets import Input, TextArea

from ctxchat.core.budget import Layer
from ctxchat.core.memory import MemoryKind
from ctxchat.core.plan import ContextPlan, Reason
from ctxchat.tui.screens.confirm import ConfirmScreen
from ctxchat.tui.screens.memory_editor import MemoryEditor
from ctxchat.tui.widgets.memory_panel import MemoryPanel

from .app_harness import SIZE, MakeApp, memory_refs, seed, settle


def memory_message(plan: ContextPlan | None) -> str:
    """The text of the memory message the plan sends."""
    assert plan is not None
    return next(m.content for m in plan.messages if m.layer is Layer.MEMORY)


async def test_f6_goes_to_the_memory_list_from_the_composer(make_app: MakeApp) -> None:
    app, _ = make_app()
    app.workspace.store.memory.add_memory(MemoryKind.FACT, "The service runs on PostgreSQL 16.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.focused is app.conversation_screen.composer
        await pilot.press("f6")
        panel = app.query_one("#memory", MemoryPanel)
        assert panel.option_list.has_focus
        assert panel.highlighted_entry is not None
        assert panel.highlighted_entry.text == "The service runs on PostgreSQL 16."


async def test_add_an_entry_in_the_editor(make_app: MakeApp) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6", "ctrl+a")
        editor = app.screen
        assert isinstance(editor, MemoryEditor)
        editor.query_one("#memory-text", TextArea).insert("Builds must work offline.")
        editor.query_one("#memory-importance", Input).value = "8"
        await pilot.press("ctrl+s")
        await settle(pilot)

        assert not isinstance(app.screen, MemoryEditor)
        (entry,) = app.conversation_screen.session.store.memory.list_memory(
            conversation_id=app.conversation_screen.session.conversation_id
        )
        assert (entry.kind, entry.text, entry.importance, entry.conversation_id, entry.source) == (
            MemoryKind.FACT,
            "Builds must work offline.",
            8,
            None,
            "manual",
        )
        assert memory_refs(app.conversation_screen.last_plan) == [entry.ref]
        assert "- [fact] Builds must work offline.\n" in memory_message(
            app.conversation_screen.last_plan
        )
        assert [e.id for e in app.query_one("#memory", MemoryPanel).entries] == [entry.id]


async def test_pin_moves_an_entry_first_and_unpin_moves_it_back(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    low = store.memory.add_memory(MemoryKind.FACT, "Deploys happen on Fridays.", importance=2)
    high = store.memory.add_memory(
        MemoryKind.FACT, "The service runs on PostgreSQL 16.", importance=9
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert memory_refs(app.conversation_screen.last_plan) == [high.ref, low.ref]
        await pilot.press("f6", "ctrl+k")  # the first entry in the panel: the oldest, `low`
        await settle(pilot)
        assert store.memory.get_memory(low.id).pinned
        assert memory_refs(app.conversation_screen.last_plan) == [low.ref, high.ref]
        await pilot.press("ctrl+k")
        await settle(pilot)
        assert not store.memory.get_memory(low.id).pinned
        assert memory_refs(app.conversation_screen.last_plan) == [high.ref, low.ref]


async def test_kind_cycles_and_the_request_labels_it(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    entry = store.memory.add_memory(MemoryKind.FACT, "Deploys happen on Fridays.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        seen = []
        for _ in range(4):
            await pilot.press("shift+right")
            await settle(pilot)
            kind = store.memory.get_memory(entry.id).kind
            seen.append(kind)
            assert app.conversation_screen.last_plan is not None
            assert app.conversation_screen.last_plan.layer(Layer.MEMORY).items[0].ref == entry.ref
        assert seen == [
            MemoryKind.CONSTRAINT,
            MemoryKind.PREFERENCE,
            MemoryKind.HYPOTHESIS,
            MemoryKind.FACT,
        ]
        assert "- [fact] Deploys happen on Fridays.\n" in memory_message(
            app.conversation_screen.last_plan
        )


async def test_scope_makes_an_entry_this_conversations_only(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    entry = store.memory.add_memory(MemoryKind.FACT, "Deploys happen on Fridays.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = app.conversation_screen.session.stored_id
        await pilot.press("f6", "ctrl+g")
        await settle(pilot)
        assert store.memory.get_memory(entry.id).conversation_id == first
        assert memory_refs(app.conversation_screen.last_plan) == [entry.ref]

        await pilot.press("ctrl+n")
        await settle(pilot)
        assert app.conversation_screen.session.stored_id != first
        assert memory_refs(app.conversation_screen.last_plan) == []
        assert app.query_one("#memory", MemoryPanel).entries == []


async def test_scope_back_to_global(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    entry = store.memory.add_memory(
        MemoryKind.FACT,
        "Deploys happen on Fridays.",
        conversation_id=app.conversation_screen.session.stored_id,
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6", "ctrl+g")
        await settle(pilot)
        assert store.memory.get_memory(entry.id).conversation_id is None
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert memory_refs(app.conversation_screen.last_plan) == [entry.ref]


async def test_exclude_and_include_again(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    entry = store.memory.add_memory(MemoryKind.CONSTRAINT, "Never touch the billing tables.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6", "ctrl+x")
        await settle(pilot)
        assert not store.memory.get_memory(entry.id).enabled
        assert app.conversation_screen.last_plan is not None
        assert memory_refs(app.conversation_screen.last_plan) == []
        assert [
            (o.ref, o.reason)
            for o in app.conversation_screen.last_plan.layer(Layer.MEMORY).left_out
        ] == [(entry.ref, Reason.DISABLED)]
        await pilot.press("ctrl+x")
        await settle(pilot)
        assert store.memory.get_memory(entry.id).enabled
        assert memory_refs(app.conversation_screen.last_plan) == [entry.ref]


async def test_importance_up_and_down_reorders_the_request(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    first = store.memory.add_memory(MemoryKind.FACT, "Deploys happen on Fridays.", importance=5)
    second = store.memory.add_memory(
        MemoryKind.FACT, "The service runs on PostgreSQL 16.", importance=6
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert memory_refs(app.conversation_screen.last_plan) == [second.ref, first.ref]
        await pilot.press("f6", "shift+up", "shift+up")
        await settle(pilot)
        assert store.memory.get_memory(first.id).importance == 7
        assert memory_refs(app.conversation_screen.last_plan) == [first.ref, second.ref]
        await pilot.press("shift+down", "shift+down", "shift+down")
        await settle(pilot)
        assert store.memory.get_memory(first.id).importance == 4
        assert memory_refs(app.conversation_screen.last_plan) == [second.ref, first.ref]


async def test_delete_asks_first_and_then_removes_the_entry(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    entry = store.memory.add_memory(MemoryKind.FACT, "Deploys happen on Fridays.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6", "delete")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")  # changed my mind
        await settle(pilot)
        assert [e.id for e in store.memory.list_memory()] == [entry.id]

        await pilot.press("delete")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("tab", "enter")  # the red Delete button: a typed y is not yes
        await settle(pilot)
        assert store.memory.list_memory() == []
        assert memory_refs(app.conversation_screen.last_plan) == []
        assert app.query_one("#memory", MemoryPanel).entries == []


async def test_pin_a_message_as_a_fact(make_app: MakeApp) -> None:
    app, _ = make_app()
    user, reply = seed(
        app.workspace.store,
        [
            ("user", "Which database do we use?"),
            ("assistant", "The service runs on PostgreSQL 16."),
        ],
        conversation_id=app.conversation_screen.session.stored_id,
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.conversation_view.focus()
        await pilot.press("up")  # selects the newest message: the reply
        assert app.conversation_screen.conversation_view.selected_id == reply.id
        await pilot.press("ctrl+k")
        editor = app.screen
        assert isinstance(editor, MemoryEditor)
        assert editor.query_one("#memory-text", TextArea).text == reply.content
        await pilot.press("ctrl+s")
        await settle(pilot)

        (entry,) = app.conversation_screen.session.store.memory.list_memory(
            conversation_id=app.conversation_screen.session.stored_id
        )
        fields = (entry.kind, entry.text, entry.source, entry.conversation_id, entry.importance)
        assert fields == (
            MemoryKind.FACT,
            "The service runs on PostgreSQL 16.",
            f"message:{reply.id}",
            app.conversation_screen.session.stored_id,
            6,
        )
        assert entry.pinned  # "pin" pins
        assert memory_refs(app.conversation_screen.last_plan) == [entry.ref]

        await pilot.press("up", "ctrl+k")  # the message before: the user's question
        editor = app.screen
        assert isinstance(editor, MemoryEditor)
        assert editor.query_one("#memory-text", TextArea).text == user.content
        await pilot.press("escape")
        await settle(pilot)
        assert (
            len(app.conversation_screen.session.store.memory.list_memory(include_all_scopes=True))
            == 1
        )


async def test_the_memory_panel_takes_only_the_room_its_entries_need(make_app: MakeApp) -> None:
    app, _ = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        memory = app.query_one("#memory")
        context = app.query_one("#context")
        assert memory.outer_size.height == 2  # its border and the header line
        assert context.outer_size.height == app.query_one("#side").size.height - 2
        app.conversation_screen.session.store.memory.add_memory(
            MemoryKind.FACT, "The service runs on PostgreSQL 16."
        )
        app.conversation_screen.session.cache.memory_changed()  # the planner follows
        await settle(pilot)
        header = memory.query_one(".memory-panel--header").outer_size.height
        assert memory.outer_size.height == 1 + header + 2  # and one two-line entry
