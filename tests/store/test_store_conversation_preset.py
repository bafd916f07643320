"""A conversation's preset and own system prompt: stored with it, upgraded into, carried by
both exports."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxchat.store import Store, StoreError, export_text, schema

from .conftest import store_before


def test_a_conversation_remembers_its_preset_and_system_prompt(store: Store) -> None:
    conversation = store.conversations.create_conversation("chat").id
    fresh = store.conversations.get_conversation(conversation)
    assert (fresh.preset, fresh.system_prompt) == (None, None)

    assert store.conversations.choose_preset(conversation, "precise").preset == "precise"
    assert (
        store.conversations.set_system_prompt(conversation, "Be terse.").system_prompt
        == "Be terse."
    )
    kept = store.conversations.get_conversation(conversation)
    assert (kept.preset, kept.system_prompt) == ("precise", "Be terse.")

    store.conversations.choose_preset(conversation, None)
    store.conversations.set_system_prompt(
        conversation, ""
    )  # none sent: not the same as the config's
    assert store.conversations.get_conversation(conversation).system_prompt == ""
    store.conversations.set_system_prompt(conversation, None)
    cleared = store.conversations.get_conversation(conversation)
    assert (cleared.preset, cleared.system_prompt) == (None, None)


def _before_presets() -> int:
    """How many migrations there were before conversations kept a preset."""
    return next(
        index
        for index, statements in enumerate(schema.MIGRATIONS)
        if any("ADD COLUMN preset" in statement for statement in statements)
    )


def test_a_database_from_before_presets_is_upgraded(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with store_before(db_path, monkeypatch, _before_presets()) as old:
        old.conversations.create_conversation("kept", model="gpt-4o", profile="test")

    with Store.open(db_path) as store:
        (listed,) = store.conversations.list_conversations()
        kept = store.conversations.get_conversation(listed.id)
        assert (kept.title, kept.preset, kept.system_prompt) == ("kept", None, None)
        assert store.conversations.choose_preset(kept.id, "precise").preset == "precise"


def test_the_preset_and_system_prompt_travel_with_export_and_import(
    store: Store, tmp_path: Path
) -> None:
    conversation = store.conversations.create_conversation("chat").id
    store.conversations.choose_preset(conversation, "precise")
    store.conversations.set_system_prompt(conversation, "Answer as a pirate.")
    data = store.transfer.export_conversation(conversation)
    assert (data["conversation"]["preset"], data["conversation"]["system_prompt"]) == (
        "precise",
        "Answer as a pirate.",
    )
    with Store.open(tmp_path / "other.db") as other:
        imported = other.conversations.get_conversation(other.transfer.import_conversation(data))
    assert (imported.preset, imported.system_prompt) == ("precise", "Answer as a pirate.")


def test_the_markdown_export_shows_the_preset_and_system_prompt(store: Store) -> None:
    conversation = store.conversations.create_conversation("chat", model="gpt-4o").id
    store.conversations.choose_preset(conversation, "precise")
    store.conversations.set_system_prompt(conversation, "Answer as a pirate.")
    text = export_text(store.transfer.export_conversation(conversation), markdown=True)
    assert ", model gpt-4o, preset precise.*" in text
    assert "## System prompt\n\nAnswer as a pirate.\n" in text


def test_an_export_from_before_presets_imports_without_one(store: Store) -> None:
    conversation = store.conversations.create_conversation("chat").id
    data = store.transfer.export_conversation(conversation)
    del data["conversation"]["preset"], data["conversation"]["system_prompt"]
    imported = store.conversations.get_conversation(store.transfer.import_conversation(data))
    assert (imported.preset, imported.system_prompt) == (None, None)
    assert "System prompt" not in export_text(data, markdown=True)


def test_a_system_prompt_that_is_not_text_is_refused(store: Store) -> None:
    conversation = store.conversations.create_conversation("chat").id
    data = store.transfer.export_conversation(conversation)
    data["conversation"]["system_prompt"] = ["not", "text"]
    with pytest.raises(StoreError, match=r"conversation\.system_prompt: expected text, or null"):
        store.transfer.import_conversation(data)
