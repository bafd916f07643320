"""Recall across conversations in the app: an item from another conversation of the project
shows where it was said on the recall panel, and the palette switches where recall looks."""

from __future__ import annotations

from datetime import datetime

import pytest
from textual.widgets import Static

from ctxchat.chat.semantic import SemanticRecall
from ctxchat.core.budget import Layer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.widgets.layer_panel import ContextPanels, LayerPanel

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


PAID = "The quote from the roofer came to 4,200 euros, tiles and labour included."
ASKED_BY_MEANING = "How expensive was fixing the top of the house?"


async def test_recall_by_meaning_brings_from_another_conversation_once_it_is_embedded(
    make_app: MakeApp,
) -> None:
    """The other conversations' messages are embedded in the background, after the
    conversation's own: then what shares no word with the draft is found there too."""
    if not SemanticRecall.possible():
        pytest.skip("the embeddings extra is not installed")
    app, _ = make_app()
    store = app.workspace.store
    session = app.conversation_screen.session
    session.move_to_project("House")
    earlier = store.conversations.create_conversation("Renovation").id
    store.projects.move_to_project(earlier, session.project_id())
    (paid, _) = seed(store, [("user", PAID), ("assistant", "Noted.")], conversation_id=earlier)
    ref = f"conversation:{earlier}/message:{paid.id}"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.composer.insert(ASKED_BY_MEANING)

        def recalled() -> dict[str, str]:
            plan = app.query_one(ContextPanels).plan
            items = plan.layer(Layer.RECALL).items if plan is not None else ()
            return {item.ref: item.label for item in items}

        # Loading the encoder and embedding is slow on a busy machine.
        await until(pilot, lambda: ref in recalled(), timeout=120)
        assert "similar in meaning" in recalled()[ref]
        await until(pilot, lambda: "from “Renovation”" in recall_panel_text(app))


async def test_switching_to_all_conversations_searches_them_by_meaning_too(
    make_app: MakeApp,
) -> None:
    """Outside a project recall stays in the conversation; switched to every conversation
    from the palette, it loads and embeds theirs in the background and finds by meaning."""
    if not SemanticRecall.possible():
        pytest.skip("the embeddings extra is not installed")
    app, _ = make_app()
    store = app.workspace.store
    elsewhere = store.conversations.create_conversation("Renovation").id
    (paid, _) = seed(store, [("user", PAID), ("assistant", "Noted.")], conversation_id=elsewhere)
    ref = f"conversation:{elsewhere}/message:{paid.id}"

    def recalled() -> dict[str, str]:
        plan = app.query_one(ContextPanels).plan
        items = plan.layer(Layer.RECALL).items if plan is not None else ()
        return {item.ref: item.label for item in items}

    async with app.run_test(size=SIZE) as pilot:
        await until(
            pilot, lambda: app.conversation_screen.session.semantic is not None, timeout=120
        )
        app.conversation_screen.composer.insert(ASKED_BY_MEANING)
        await settle(pilot)
        assert ref not in recalled()  # outside a project: this conversation only

        await palette_lines(pilot, "across")  # project → all
        await pilot.press("enter")
        await until(pilot, lambda: ref in recalled(), timeout=120)
        assert "similar in meaning" in recalled()[ref]
        plan = app.query_one(ContextPanels).plan
        assert plan is not None
        assert not any("other conversations yet" in warning for warning in plan.warnings)
