"""The model chosen for a conversation: stored with it, upgraded into, carried by export."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxchat.store import Store, StoreError
from ctxchat.store.schema import SCHEMA_VERSION

from .conftest import store_before


def test_a_conversation_remembers_the_model_chosen_for_it(store: Store) -> None:
    conversation = store.conversations.create_conversation(
        "chat", model="gpt-4o", profile="test"
    ).id
    assert (store.conversations.get_conversation(conversation).chosen_model,) == (None,)

    store.conversations.choose_model(conversation, "test", "gpt-4o-mini")
    chosen = store.conversations.get_conversation(conversation)
    assert (chosen.chosen_profile, chosen.chosen_model) == ("test", "gpt-4o-mini")
    # What it started with stays as it was.
    assert (chosen.profile, chosen.model) == ("test", "gpt-4o")

    store.conversations.choose_model(conversation, None, None)
    forgotten = store.conversations.get_conversation(conversation)
    assert (forgotten.chosen_profile, forgotten.chosen_model) == (None, None)


def test_a_database_from_before_conversations_remembered_a_model_is_upgraded(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with store_before(db_path, monkeypatch, 9) as old, old.transaction() as conn:
        conn.execute(
            "INSERT INTO conversations (title, model, profile, created_at, updated_at) "
            "VALUES ('kept', 'gpt-4o', 'test', 5, 5)"
        )

    with Store.open(db_path) as store:
        (conversation,) = store.conversations.list_conversations()
        kept = store.conversations.get_conversation(conversation.id)
        assert (kept.title, kept.model, kept.chosen_profile, kept.chosen_model) == (
            "kept",
            "gpt-4o",
            None,
            None,
        )
        assert store.conversations.choose_model(kept.id, "test", "o3").chosen_model == "o3"
        with store.reading() as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_the_chosen_model_travels_with_export_and_import(store: Store, tmp_path: Path) -> None:
    conversation = store.conversations.create_conversation(
        "chat", model="gpt-4o", profile="test"
    ).id
    store.conversations.choose_model(conversation, "local", "gemma-3-270m")
    data = store.transfer.export_conversation(conversation)
    assert data["conversation"]["chosen_model"] == "gemma-3-270m"

    with Store.open(tmp_path / "other.db") as other:
        imported = other.conversations.get_conversation(other.transfer.import_conversation(data))
    assert (imported.chosen_profile, imported.chosen_model) == ("local", "gemma-3-270m")


def test_an_export_from_before_conversations_remembered_a_model_imports(store: Store) -> None:
    conversation = store.conversations.create_conversation("chat").id
    data = store.transfer.export_conversation(conversation)
    del data["conversation"]["chosen_profile"], data["conversation"]["chosen_model"]
    imported = store.conversations.get_conversation(store.transfer.import_conversation(data))
    assert (imported.chosen_profile, imported.chosen_model) == (None, None)


def test_a_chosen_model_that_is_not_text_is_refused(store: Store) -> None:
    conversation = store.conversations.create_conversation("chat").id
    data = store.transfer.export_conversation(conversation)
    data["conversation"]["chosen_model"] = 42
    with pytest.raises(StoreError, match=r"conversation\.chosen_model: expected text, or null"):
        store.transfer.import_conversation(data)
