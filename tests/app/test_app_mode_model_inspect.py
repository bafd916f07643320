"""Mode toggle, model switch and the request inspector, against what is really sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList

from ctxchat.config.state import load_state
from ctxchat.core.budget import Layer
from ctxchat.core.memory import MemoryKind, Mode
from ctxchat.core.plan import Reason
from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.screens.inspector import RequestInspector, WrappedLines, pretty_json
from ctxchat.tui.screens.model_picker import ModelPicker
from ctxchat.tui.widgets.layer_panel import ContextPanels

from .app_harness import SIZE, Cli, MakeApp, exchange, memory_refs, seed, settle, typed


def every_kind(store: Store) -> dict[MemoryKind, str]:
    """One global entry of each kind; their refs by kind."""
    texts = {
        MemoryKind.FACT: "The service runs on PostgreSQL 16.",
        MemoryKind.CONSTRAINT: "Everything must work offline.",
        MemoryKind.PREFERENCE: "Prefers short answers.",
        MemoryKind.HYPOTHESIS: "The slowdown comes from the ORM.",
    }
    return {kind: store.memory.add_memory(kind, text).ref for kind, text in texts.items()}


async def test_objective_mode_leaves_preferences_and_hypotheses_out(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    refs = every_kind(app.workspace.store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.conversation_screen.session.mode is Mode.PERSONALIZATION
        assert sorted(memory_refs(app.conversation_screen.last_plan)) == sorted(refs.values())
        assert app.conversation_screen.sub_title == "test · gpt-4o · mode: personalization"

        await pilot.press("ctrl+o")
        await settle(pilot)

        plan = app.conversation_screen.last_plan
        assert plan is not None and plan.mode == "objective"
        assert sorted(memory_refs(plan)) == sorted(
            [refs[MemoryKind.FACT], refs[MemoryKind.CONSTRAINT]]
        )
        assert sorted((o.ref, o.reason) for o in plan.layer(Layer.MEMORY).left_out) == sorted(
            [(refs[MemoryKind.PREFERENCE], Reason.MODE), (refs[MemoryKind.HYPOTHESIS], Reason.MODE)]
        )
        assert app.conversation_screen.sub_title == "test · gpt-4o · mode: objective"
        assert "Mode: objective" in notes.messages
        change = app.query_one("#context", ContextPanels).last_mode_change
        assert change is not None
        assert change.removed == {refs[MemoryKind.PREFERENCE], refs[MemoryKind.HYPOTHESIS]}
        assert change.describe().startswith("mode objective: −2 entries, −")
        state = load_state(app.workspace.locations.state_file)
        assert state.state.last_mode is Mode.OBJECTIVE

        await typed(pilot, "Why is it slow?")
        await pilot.press("enter")
        await settle(pilot)
        sent = server.requests[-1]["messages"]
        memory = next(m["content"] for m in sent if "Memory curated by the user" in m["content"])
        assert "PostgreSQL 16" in memory and "work offline" in memory
        assert "short answers" not in memory and "ORM" not in memory


async def test_the_mode_is_remembered_for_the_next_run(make_app: MakeApp) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
    again, _ = make_app()
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.conversation_screen.session.mode is Mode.OBJECTIVE
        assert again.conversation_screen.sub_title == "test · gpt-4o · mode: objective"
        await pilot.press("ctrl+o")
        await settle(pilot)
    assert load_state(again.workspace.locations.state_file).state.last_mode is Mode.PERSONALIZATION


async def test_model_switch_lists_the_servers_models_and_uses_the_choice(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        listed = await pick_model(pilot, "gpt-4o-mini")
        assert listed == ["p:test", "m:gpt-4o", "m:gpt-4o-mini", "add"]

        assert app.conversation_screen.session.model == "gpt-4o-mini"
        assert app.conversation_screen.sub_title == "test · gpt-4o-mini · mode: personalization"
        assert "Now talking to gpt-4o-mini (test)." in notes.messages
        await typed(pilot, "Hello")
        await pilot.press("enter")
        await settle(pilot)
        assert server.requests[-1]["model"] == "gpt-4o-mini"
        reply = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1]
        assert reply.model == "gpt-4o-mini"


async def test_the_inspector_shows_exactly_the_next_request(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    store = app.workspace.store
    every_kind(store)
    seed(
        store,
        [("user", "Which database?"), ("assistant", "PostgreSQL 16.")],
        conversation_id=app.conversation_screen.session.stored_id,
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await typed(pilot, "And which version of it?")
        await pilot.press("f2")
        inspector = app.screen
        assert isinstance(inspector, RequestInspector)
        expected = app.conversation_screen.session.plan(
            "And which version of it?"
        ).request_messages()
        assert inspector.body["messages"] == expected
        assert [m["role"] for m in expected] == ["system", "system", "user", "assistant", "user"]
        assert (inspector.body["model"], inspector.body["max_tokens"]) == ("gpt-4o", 2_000)
        assert inspector.json_text == pretty_json(inspector.body)

        await pilot.press("escape")
        assert not isinstance(app.screen, RequestInspector)
        await pilot.press("enter")
        await settle(pilot)
        assert server.requests[-1]["messages"] == expected


async def test_a_selected_reply_shows_the_request_it_came_from(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("First answer.", "Second answer.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for question in ("First question", "Second question"):
            await typed(pilot, question)
            await pilot.press("enter")
            await settle(pilot)
        store = app.workspace.store
        first_reply = store.messages.messages(app.conversation_screen.session.stored_id)[1]
        assert first_reply.content == "First answer."
        app.conversation_screen.conversation_view.select(first_reply.id)
        await pilot.press("f2")
        inspector = app.screen
        assert isinstance(inspector, RequestInspector)
        stored = store.plans.load_plan(first_reply.id)
        assert stored is not None
        assert (
            inspector.body["messages"]
            == stored.request_messages()
            == server.requests[0]["messages"]
        )
        assert inspector.body["messages"][-1] == {"role": "user", "content": "First question"}


async def test_the_inspectors_json_scrolls_to_its_last_line_at_160_by_45(
    make_app: MakeApp,
) -> None:
    app, _ = make_app()
    seed(
        app.workspace.store,
        exchange(30),
        conversation_id=app.conversation_screen.session.stored_id,
    )
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        inspector = app.screen
        assert isinstance(inspector, RequestInspector)
        view = inspector.query_one("#json-view", WrappedLines)
        await pilot.press("end")
        await pilot.pause()
        # The view ends inside the dialog, above the footer: its last row can be seen.
        dialog = inspector.query_one("#inspector-dialog")
        assert view.region.bottom <= dialog.content_region.bottom
        assert view.max_scroll_y > 0
        assert view.scroll_y == view.max_scroll_y
        last_row = view.region.bottom - 1
        assert inspector.get_widget_at(view.region.x + 2, last_row)[0] is view


async def pick_model(pilot: Pilot[Any], model: str) -> list[str | None]:
    """F4, then the model `model` in the picker; the ids of what the picker listed."""
    app = pilot.app
    await pilot.press("f4")
    await settle(pilot)
    picker = app.screen
    assert isinstance(picker, ModelPicker)
    options = picker.query_one(OptionList)
    listed = [options.get_option_at_index(i).id for i in range(options.option_count)]
    options.highlighted = options.get_option_index(f"m:{model}")
    options.focus()
    await pilot.press("enter")
    await settle(pilot)
    return listed


async def test_the_model_chosen_with_f4_is_remembered_for_that_conversation(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        chosen = app.conversation_screen.session.stored_id
        await pick_model(pilot, "gpt-4o-mini")

        # Another conversation talks to the configured model...
        await pilot.press("ctrl+n")
        await settle(pilot)
        other = app.conversation_screen.session.stored_id
        assert other != chosen
        assert app.conversation_screen.session.model == "gpt-4o"
        assert app.conversation_screen.sub_title == "test · gpt-4o · mode: personalization"
        await typed(pilot, "Hello there")
        await pilot.press("enter")
        await settle(pilot)
        assert server.requests[-1]["model"] == "gpt-4o"

        # ...and the first one still to the one chosen for it.
        await app.conversation_screen.open_conversation(chosen)
        await settle(pilot)
        assert app.conversation_screen.session.model == "gpt-4o-mini"
        assert app.conversation_screen.sub_title == "test · gpt-4o-mini · mode: personalization"
        await typed(pilot, "Hello again")
        await pilot.press("enter")
        await settle(pilot)
        assert server.requests[-1]["model"] == "gpt-4o-mini"

    # After a restart, the conversation opens on its model.
    again, _ = make_app()
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.conversation_screen.session.stored_id == chosen
        assert again.conversation_screen.session.model == "gpt-4o-mini"
        assert again.conversation_screen.sub_title == "test · gpt-4o-mini · mode: personalization"

        # Choosing the configured model again forgets the choice.
        await pick_model(pilot, "gpt-4o")
        stored = again.conversation_screen.session.store.conversations.get_conversation(chosen)
        assert (stored.chosen_profile, stored.chosen_model) == (None, None)


async def test_the_command_line_uses_the_conversations_model_unless_told_otherwise(
    make_app: MakeApp, server: ScriptedModelServer, tmp_path: Path, cli: Cli
) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        conversation = app.conversation_screen.session.stored_id
        await pick_model(pilot, "gpt-4o-mini")
    run = cli(tmp_path / "home", str(app.workspace.loaded.path))
    await run("send", "--json", "--conversation", str(conversation), "Hi")
    assert server.requests[-1]["model"] == "gpt-4o-mini"
    plan = await run("context", "--json", "--conversation", str(conversation))
    assert plan["request"]["body"]["model"] == "gpt-4o-mini"
    await run("send", "--json", "--conversation", str(conversation), "--model", "gpt-4o", "Hi")
    assert server.requests[-1]["model"] == "gpt-4o"
