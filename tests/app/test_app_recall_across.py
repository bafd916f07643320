"""Recall across conversations in the app: an item from another conversation of the project
shows where it was said on the recall panel, and the palette switches where recall looks."""

from __future__ import annotations

from datetime import datetime

from textual.widgets import Static

from ctxchat.core.budget import Layer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.widgets.layer_panel import LayerPanel

from .app_harness import SIZE, MakeApp, seed, settle, typed, until
from .test_app_palette_keys import palette_lines

FACT = "For the birdhouse we settled on cedar planks, 19 mm thick, and brass screws."
QUESTION = "Which wood did we pick for the birdhouse?"


def recall_panel_text(app: CtxChatApp) -> str:
    panel = app.conversation_screen.query_one("#layer-recall", LayerPanel)
    return "\n".join(str(s.render()) for s in panel.query(Static))


async def test_the_recall_panel_names_the_conversation_and_the_palette_switches_it(
    make_app: MakeApp,
) -> None:
    app, notes = make_app(extra="[recall]\nsemantic = false")
    store = app.workspace.store
    session = app.conversation_screen.session
    session.move_to_project("Garden")
    earlier = store.conversations.create_conversation("Birdhouse plan").id
    store.projects.move_to_project(earlier, session.project_id())
    (fact, _) = seed(
        store, [("user", FACT), ("assistant", "Cedar it is.")], conversation_id=earlier
    )
    today = datetime.now().astimezone().date().isoformat()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        plan = await typed(pilot, QUESTION)
        ref = f"conversation:{earlier}/message:{fact.id}"
        assert [item.ref for item in plan.layer(Layer.RECALL).items] == [ref]
        await until(pilot, lambda: ref in recall_panel_text(app))
        assert f"from “Birdhouse plan” ({today})" in recall_panel_text(app)

        # The palette names the choice it switches to, and says what it does.
        lines = await palette_lines(pilot, "across")
        (line,) = [line for line in lines if "recall: across conversations" in line]
        assert "→ all" in line and "every other conversation" in line
        await pilot.press("enter")
        await settle(pilot)
        assert app.conversation_screen.session.recaller.across.value == "all"
        assert any(
            message.startswith("Recall across conversations: all") for message in notes.messages
        )
        await palette_lines(pilot, "across")  # all → off
        await pilot.press("enter")
        await settle(pilot)
        assert app.conversation_screen.session.recaller.across.value == "off"
        await until(pilot, lambda: ref not in recall_panel_text(app))
        assert app.conversation_screen.last_plan is not None
        assert app.conversation_screen.last_plan.layer(Layer.RECALL).items == ()
