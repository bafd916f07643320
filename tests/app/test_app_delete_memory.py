"""Deleting a conversation that holds pinned facts: the dialog names them, and keeps them
unless told otherwise."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button, OptionList, Static

from ctxchat.core.memory import MemoryKind
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.delete_conversation import DeleteConversationScreen
from ctxchat.tui.widgets.memory_panel import MemoryPanel

from .app_harness import SIZE, MakeApp, seed, settle
from .test_app_conversations import open_switcher


def trip_with_a_pinned_fact(app: CtxChatApp) -> tuple[int, int, int]:
    """The open conversation ("Garden") and "Trip to Porto", which holds a fact pinned from
    one of its messages; their ids and the entry's."""
    store = app.workspace.store
    garden = app.conversation_screen.session.stored_id
    store.conversations.rename_conversation(garden, "Garden")
    seed(
        store,
        [("user", "When to plant tulips?"), ("assistant", "In autumn.")],
        conversation_id=garden,
    )
    trip = seed(
        store, [("user", "We fly to Porto."), ("assistant", "Noted.")], title="Trip to Porto"
    )
    entry = store.memory.add_memory(
        MemoryKind.FACT,
        "Destination city is Porto.",
        pinned=True,
        conversation_id=trip[0].conversation_id,
        source=f"message:{trip[0].id}",
    )
    return garden, trip[0].conversation_id, entry.id


async def ask_to_delete(
    app: CtxChatApp, pilot: Pilot[Any], conversation: int
) -> DeleteConversationScreen:
    await settle(pilot)
    await open_switcher(app, pilot, highlight=conversation)
    await pilot.press("delete")
    dialog = app.screen
    assert isinstance(dialog, DeleteConversationScreen)
    return dialog


async def test_the_question_names_the_conversations_memory_and_keeps_it(
    make_app: MakeApp,
) -> None:
    app, notes = make_app()
    garden, trip, entry = trip_with_a_pinned_fact(app)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_to_delete(app, pilot, trip)
        said = " ".join(str(s.render()) for s in dialog.query(Static))
        assert "Delete “Trip to Porto” and its 2 messages?" in said
        assert "1 memory entry of its own: “Destination city is Porto.”" in said
        assert "kept as global entries, left out of requests until you include them" in said
        buttons = [str(b.label) for b in dialog.query(Button)]
        assert buttons == ["Cancel", "Delete, keep memory", "Delete all"]

        await pilot.click("#keep-memory")
        await settle(pilot)
        kept = app.workspace.store.memory.get_memory(entry)
        assert (kept.conversation_id, kept.enabled, kept.kept_from) == (
            None,
            False,
            "Trip to Porto",
        )
        assert (
            "Deleted “Trip to Porto”; kept its 1 memory entry as global entries, left out until "
            "you include them." in notes.messages
        )
        # Shown in the conversation on screen, with why it is not sent.
        assert app.conversation_screen.session.stored_id == garden
        panel = app.query_one("#memory", MemoryPanel)
        text = str(panel.query_one(OptionList).get_option_at_index(0).prompt)
        assert "Destination city is Porto." in text
        assert "kept from the deleted conversation “Trip to Porto”: include it to use it" in text
        plan = app.conversation_screen.last_plan
        assert plan is not None
        assert "Destination city is Porto." not in str(plan.messages)


async def test_deleting_the_memory_too_is_a_choice(make_app: MakeApp) -> None:
    app, notes = make_app()
    _, trip, _entry = trip_with_a_pinned_fact(app)
    async with app.run_test(size=SIZE) as pilot:
        await ask_to_delete(app, pilot, trip)
        await pilot.click("#with-memory")
        await settle(pilot)
        assert app.workspace.store.memory.list_memory(include_all_scopes=True) == []
        assert "Deleted “Trip to Porto” and its 1 memory entry." in notes.messages
