"""Claude.ai's export: branches by parent, thinking as reasoning, tools and files as text,
empty messages left out, and older exports without parents read in order."""

from __future__ import annotations

from pathlib import Path

from ctxchat.core.tokens import TokenCounter
from ctxchat.store import Store

from .claude_export import linear, recipe
from .conftest import imported

SEARCH = (
    '[called web_search]\n```json\n{\n  "query": "bread oven temperature"\n}\n```\n\n'
    "[web_search output]\n```\nBaking\n\nMost breads: 200 °C.\n```\n\nBake it at 200 °C."
)


def test_the_newest_branch_is_the_conversation(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    imported(store, counter, tmp_path, [recipe()])
    main = next(
        c for c in store.conversations.list_conversations() if c.origin_id == "claude-recipe"
    )
    messages = store.messages.messages(main.id)
    assert [(m.role, m.content) for m in messages] == [
        (
            "user",
            "[attached file recipe.txt]\n```\nBread: flour, water, salt.\n```\n"
            "[file not imported: photo.jpg]\n\nHow hot should the oven be?",
        ),
        ("assistant", SEARCH),
        ("user", "How long?"),
        ("assistant", "40 minutes."),
    ]
    assert messages[1].reasoning == "Bread usually bakes hot."
    assert [v.content for v in store.variants.variants(messages[1].id)] == ["Bake it at 180 °C."]
    assert main.origin == "claude"


def test_an_edited_question_is_a_branch_conversation(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    imported(store, counter, tmp_path, [recipe()])
    branch = next(
        c for c in store.conversations.list_conversations() if c.origin_id == "claude-recipe#rye"
    )
    assert branch.title == "Baking bread (branch 2)"
    assert [m.content for m in store.messages.messages(branch.id)] == [
        "Which flour should I use?",
        "Use rye flour.",
    ]


def test_an_export_without_parents_is_read_in_order(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    done = imported(store, counter, tmp_path, [linear()])
    conversation = store.conversations.get_conversation(done.conversation_ids[0])
    assert (conversation.title, conversation.created_at) == ("Greeting", 1_709_294_400.0)
    assert [(m.role, m.content) for m in store.messages.messages(conversation.id)] == [
        ("user", "Hello"),
        ("assistant", "Hello! How can I help?"),
    ]
