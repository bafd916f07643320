"""Recall in the app: the recall panel fills as the question is typed, and what is sent."""

from __future__ import annotations

from ctxchat.core.budget import Layer
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.widgets.layer_panel import ContextPanels

from .app_harness import MakeApp, seed, settle, typed

SIZE = (160, 40)


def decisions() -> list[tuple[str, str]]:
    turns = []
    for number in range(1, 41):
        if number == 3:
            question = "We decided to use MySQL for the main database."
        elif number == 20:
            question = "Change of plan: we decided on PostgreSQL for the main database."
        else:
            question = f"Could you look at the release notes, round {number}?"
        turns.append(("user", question))
        turns.append(("assistant", "Looked at them; all fine. " * 20))
    return turns


async def test_typing_a_question_recalls_the_newer_decision_first(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app(context_window=3_000, output_reserve=500, extra="[recall]\nsemantic = false")
    store = app.workspace.store
    seed(store, decisions(), conversation_id=app.session.conversation)
    app.session.invalidate()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        plan = await typed(pilot, "What did we decide about the database?")
        recall = plan.layer(Layer.RECALL)
        stored = store.messages(app.session.conversation)
        newer = next(m for m in stored if "PostgreSQL" in m.content)
        older = next(m for m in stored if "MySQL" in m.content)
        assert [item.ref for item in recall.items] == [f"message:{newer.id}", f"message:{older.id}"]
        assert app.query_one(ContextPanels).plan is plan
        server.script("It is PostgreSQL.")
        await pilot.press("enter")
        await settle(pilot)
        # The chat request (a summary fold may follow it).
        sent = next(
            r["messages"]
            for r in server.requests
            if r["messages"][-1]["content"] == "What did we decide about the database?"
        )
        assert sent[1]["role"] == "system"
        assert "Change of plan: we decided on PostgreSQL" in sent[1]["content"]
        # The message gives them oldest first, with their age: the newer decision reads last.
        recalled = sent[1]["content"]
        assert recalled.index("MySQL") < recalled.index("PostgreSQL")
        assert f"[#{newer.id} user, " in recalled
