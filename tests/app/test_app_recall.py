"""Recall in the app: the recall panel fills as the question is typed, and what is sent."""

from __future__ import annotations

import random

import pytest

from ctxchat.chat.semantic import SemanticRecall
from ctxchat.core.budget import Layer
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.widgets.layer_panel import ContextPanels

from .app_harness import MakeApp, seed, settle, typed, until

SIZE = (160, 40)
SYLLABLES = "ka lo mi ne ru ta vo xi ze pa do fe gu hi ja ko lu ma ni po".split()  # noqa: SIM905


def babble(rng: random.Random) -> str:
    """A sentence of made-up words: near nothing in meaning, sharing no word with English."""
    words = ["".join(rng.choice(SYLLABLES) for _ in range(3)) for _ in range(rng.randint(6, 14))]
    return " ".join(words).capitalize() + "."


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
    seed(store, decisions(), conversation_id=app.conversation_screen.session.stored_id)
    app.conversation_screen.session.invalidate()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        plan = await typed(pilot, "What did we decide about the database?")
        recall = plan.layer(Layer.RECALL)
        stored = store.messages.messages(app.conversation_screen.session.stored_id)
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


async def test_recall_by_meaning_starts_before_a_long_history_is_embedded(
    make_app: MakeApp,
) -> None:
    """The newest messages are embedded first and recall uses them at once: the answer found
    by meaning shows in the recall panel while older messages still wait for their vectors."""
    if not SemanticRecall.possible():
        pytest.skip("the embeddings extra is not installed")
    app, _ = make_app(context_window=3_000, output_reserve=500)
    store = app.workspace.store
    conversation = app.conversation_screen.session.stored_id
    rng = random.Random(3)
    turns = [("user" if i % 2 == 0 else "assistant", babble(rng)) for i in range(1_500)]
    turns[1_400] = ("user", "We chose Postgres as our DB.")
    with store.transaction():
        seed(store, turns, conversation_id=conversation)
    app.conversation_screen.session.invalidate()
    answer = next(
        m for m in store.messages.messages(conversation) if m.content.startswith("We chose")
    )
    async with app.run_test(size=SIZE) as pilot:
        # Loading the encoder and embedding the newest messages is slow on a busy machine.
        await until(
            pilot, lambda: app.conversation_screen.session.semantic is not None, timeout=120
        )
        app.conversation_screen.composer.insert("Which database did we pick?")

        def recalled() -> dict[str, str]:
            plan = app.query_one(ContextPanels).plan
            items = plan.layer(Layer.RECALL).items if plan is not None else ()
            return {item.ref: item.label for item in items}

        await until(pilot, lambda: f"message:{answer.id}" in recalled(), timeout=120)
        assert recalled()[f"message:{answer.id}"].startswith("similar in meaning (cosine ")
        from ctxchat.embeddings import MiniLMEncoder

        # Older messages still wait for their vectors, and the plan says how many.
        assert store.search.messages_to_embed(conversation, MiniLMEncoder.model_name, limit=1)
        plan = app.query_one(ContextPanels).plan
        assert plan is not None
        assert any(" are not embedded yet." in warning for warning in plan.warnings)
